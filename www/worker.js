// The Web Worker that runs the ctxlens core (parsing and assembly) off the page's thread. A module
// worker, loaded by the page from its own origin (CSP: worker-src 'self').
import init from "./ctxlens-worker.js";
await init({ module_or_path: new URL("./ctxlens-worker_bg.wasm", import.meta.url) });
