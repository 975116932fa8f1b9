// Loads the visualizer's wasm. A separate file, so the page's Content-Security-Policy can forbid
// inline scripts.
import init from "./ctxlens-web.js";
await init({ module_or_path: new URL("./ctxlens-web_bg.wasm", import.meta.url) });
