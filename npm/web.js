// "ctxlens/web": plain browser ESM. `await init()` fetches and instantiates the wasm (by default
// from ./wasm/ctxlens_bg.wasm beside this file); the API throws until it has.
import wbgInit, * as raw from "./wasm/ctxlens.js";
import { bind, protocols, piVersion } from "./api.js";

let ready = false;
let pending = null;

/** Loads the wasm: from `input` (a URL, Response, bytes or WebAssembly.Module) or its default URL. */
export default function init(input) {
  if (ready) return Promise.resolve();
  pending ??= wbgInit(input === undefined ? undefined : { module_or_path: input }).then(
    () => {
      ready = true;
    },
    (e) => {
      pending = null;
      throw e;
    },
  );
  return pending;
}

/** Instantiates the wasm synchronously from its bytes or a compiled module. */
export function initSync(module) {
  if (ready) return;
  raw.initSync({ module });
  ready = true;
}

export const { assemble, assembleCase, parseSession } = bind(raw, (fn) => {
  if (!ready) throw new Error(`ctxlens.${fn}: the wasm is not loaded; call \`await init()\` (from "ctxlens/web") first`);
});
export { protocols, piVersion };
