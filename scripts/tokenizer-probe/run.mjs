// node run.mjs MODULE.wasm SESSION [TOKENIZER_JSON]: tokens of the session's text parts, two passes
import { readFileSync } from "node:fs";
const [wasmPath, textPath, jsonPath] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), new Proxy({}, { get: () => new Proxy({}, { get: (_, n) => () => { throw new Error("import " + String(n)); } }) }));
const ex = instance.exports;
const put = (bytes) => { const p = ex.alloc(bytes.length); new Uint8Array(ex.memory.buffer, p, bytes.length).set(bytes); return p; };
if (jsonPath) { const b = readFileSync(jsonPath); const t0 = performance.now(); const rc = ex.load(put(b), b.length); console.log("load rc", rc, Math.round(performance.now() - t0), "ms"); }
const lines = readFileSync(textPath, "utf8").split("\n").filter(Boolean);
const texts = [];
for (const l of lines) { const e = JSON.parse(l); for (const p of e.message?.content ?? []) { if (typeof p?.text === "string") texts.push(p.text); } }
const enc = new TextEncoder();
const bufs = texts.map((t) => enc.encode(t));
let bytes = 0; for (const b of bufs) bytes += b.length;
for (let pass = 0; pass < 2; pass++) {
  const t0 = performance.now(); let n = 0;
  for (const b of bufs) { n += ex.count(put(b), b.length); }
  const s = (performance.now() - t0) / 1000;
  console.log(`pass ${pass}: ${texts.length} texts ${(bytes/1e6).toFixed(2)} MB, ${n} tokens, ${s.toFixed(3)} s, ${(n/s/1e6).toFixed(2)} M tokens/s`);
}
