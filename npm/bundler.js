// "ctxlens" for bundlers and browsers resolving the package root: the web build, initialized
// with top-level await, so the API is ready on import as in Node. The bundler picks up the
// wasm through `new URL("ctxlens_bg.wasm", import.meta.url)` in ./wasm/ctxlens.js.
import init from "./web.js";

await init();

export { assemble, assembleCase, parseSession, protocols, piVersion } from "./web.js";
