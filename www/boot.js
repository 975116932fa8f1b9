// Loads the visualizer's wasm. A separate file, so the page's Content-Security-Policy can forbid
// inline scripts. If loading fails, say so on the page instead of leaving it blank.
import init from "./ctxlens-web.js";
try {
  await init({ module_or_path: new URL("./ctxlens-web_bg.wasm", import.meta.url) });
} catch (e) {
  const p = document.createElement("p");
  p.className = "boot-error";
  p.textContent = "ctxlens could not start: " + (e && e.message ? e.message : String(e));
  document.body.append(p);
  throw e;
}
