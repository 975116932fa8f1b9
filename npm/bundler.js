// "ctxlens" for bundlers and browsers resolving the package root: the web build, initialized
// with top-level await, so the API is ready on import as in Node. The bundler picks up the
// wasm through `new URL("ctxlens_bg.wasm", import.meta.url)` in ./wasm/ctxlens.js.
// Every release's data is fetched too (./data/pi-<version>/), so the calls are synchronous.
import init, { load, piVersions } from "./web.js";

await init();
await Promise.all(piVersions.map((v) => load(v)));

export { assemble, assembleCase, parseSession, protocols, piVersion, piVersions, load, CtxlensError } from "./web.js";
