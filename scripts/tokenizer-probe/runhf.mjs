import { readFileSync } from "node:fs";
// node runhf.mjs HF_JS HF_WASM TOKENIZER_JSON SESSION
const [hfJs, hfWasm, json, session] = process.argv.slice(2);
const { initSync } = await import(hfJs);
const ex = initSync({ module: readFileSync(hfWasm) });
const put = (bytes) => { const p = ex.alloc(bytes.length); new Uint8Array(ex.memory.buffer, p, bytes.length).set(bytes); return p; };
const b = readFileSync(json); let t0 = performance.now(); console.log("load rc", ex.load(put(b), b.length), Math.round(performance.now() - t0), "ms");
const texts = [];
for (const l of readFileSync(session, "utf8").split("\n").filter(Boolean)) { const e = JSON.parse(l); for (const p of e.message?.content ?? []) if (typeof p?.text === "string") texts.push(p.text); }
const bufs = texts.map((t) => new TextEncoder().encode(t));
t0 = performance.now(); let n = 0; for (const x of bufs) n += ex.count(put(x), x.length);
const s = (performance.now() - t0) / 1000; console.log(`${n} tokens ${s.toFixed(2)} s ${(n / s / 1e6).toFixed(2)} M tokens/s`);
