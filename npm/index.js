// "ctxlens" for Node: the wasm is read from the package and instantiated synchronously, so the
// API is ready on import (no init).
import { readFileSync } from "node:fs";
import * as raw from "./wasm/ctxlens.js";
import { bind, protocols, piVersion } from "./api.js";

raw.initSync({ module: readFileSync(new URL("./wasm/ctxlens_bg.wasm", import.meta.url)) });

export const { assemble, assembleCase, parseSession } = bind(raw);
export { protocols, piVersion };
