// bench-tokenizers.mjs: each vocabulary's wasm module (the npm package's tokenizers/NAME.wasm)
// in Node: its size, its load time (read + compile + instantiate, then the vocabulary built by
// its first count), and tokens per second on a session's texts (every text part, thinking and
// tool-call arguments of its messages, each encoded on its own, as tokens/examples/bench.rs
// counts them natively); then `assemble` of that session with and without `tokens: true`.
//
//   node scripts/bench-npm.mjs --generate /tmp/tb --sizes 4
//   node scripts/bench-tokenizers.mjs /tmp/tb/session-4MB.jsonl [--vocabularies o200k_base,qwen2]
//
// Needs the package built (scripts/build-npm.sh → pkg/ctxlens/). Each vocabulary runs in a
// fresh process, so its load is cold and its memory its own.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = path.join(repo, "pkg/ctxlens");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};

/** The texts bench.rs counts: each message's text parts, thinking, tool-call arguments. */
function texts(session) {
  const out = [];
  for (const line of session.split("\n")) {
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    const content = e?.message?.content;
    if (typeof content === "string") out.push(content);
    for (const part of Array.isArray(content) ? content : []) {
      for (const key of ["text", "thinking"]) if (typeof part?.[key] === "string") out.push(part[key]);
      if (part?.type === "toolCall") out.push(JSON.stringify(part.arguments));
    }
  }
  return out;
}

if (process.argv[2] === "--child") {
  const [, , , name, file] = process.argv;
  const t0 = performance.now();
  const bytes = fs.readFileSync(path.join(pkg, "tokenizers", `${name}.wasm`));
  const module = new WebAssembly.Module(bytes);
  const instance = new WebAssembly.Instance(module, {});
  const compiled = performance.now() - t0;
  // The package's own loader on the instance (it checks the name and builds the vocabulary).
  const { loadVocabulary } = await import(pathToFileURL(path.join(pkg, "index.js")).href);
  const t1 = performance.now();
  const v = await loadVocabulary(name);
  const loaded = performance.now() - t1;
  void instance;
  const list = texts(fs.readFileSync(file, "utf8"));
  const enc = new TextEncoder();
  const mb = list.reduce((n, t) => n + enc.encode(t).length, 0) / 1e6;
  const passes = [];
  let tokens = 0;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    tokens = 0;
    for (const s of list) tokens += v.count(s);
    passes.push((performance.now() - t) / 1000);
  }
  const best = Math.min(...passes);
  process.stdout.write(JSON.stringify({ compiled, loaded, tokens, texts: list.length, mb, first: passes[0], best }));
  process.exit(0);
}

if (process.argv[2] === "--assemble") {
  const file = process.argv[3];
  const ctxlens = await import(pathToFileURL(path.join(pkg, "index.js")).href);
  const session = fs.readFileSync(file, "utf8");
  const options = { session, model: "openai/gpt-5", env: { OPENAI_API_KEY: "k" }, prompt: "Now summarize what changed.", now: 1767225600000 };
  const time = (o) => {
    const runs = [];
    let r;
    for (let i = 0; i < 6; i++) {
      const t = performance.now();
      r = ctxlens.assemble(o);
      runs.push(performance.now() - t);
    }
    const first = runs.shift();
    runs.sort((a, b) => a - b);
    return { first, median: runs[Math.floor(runs.length / 2)], r };
  };
  const plain = time(options);
  const counted = time({ ...options, tokens: true });
  process.stdout.write(JSON.stringify({ plain: plain.median, plainFirst: plain.first, counted: counted.median, countedFirst: counted.first, tokens: counted.r.tokens, history: counted.r.stats?.history?.tokens }));
  process.exit(0);
}

const session = process.argv[2];
if (!session || !fs.existsSync(session)) {
  console.error("usage: node scripts/bench-tokenizers.mjs SESSION.jsonl [--vocabularies a,b]\n  (node scripts/bench-npm.mjs --generate DIR --sizes 4 writes one)");
  process.exit(2);
}
const { vocabularies } = await import(pathToFileURL(path.join(pkg, "tokens.js")).href);
const names = arg("--vocabularies", vocabularies.join(",")).split(",");
const rows = [];
for (const name of names) {
  const file = path.join(pkg, "tokenizers", `${name}.wasm`);
  const raw = fs.statSync(file).size;
  const gz = execFileSync("gzip", ["-9c", file], { maxBuffer: 1 << 26 }).length;
  const out = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", name, session], { maxBuffer: 1 << 24 }).toString());
  rows.push({ name, raw, gz, ...out });
  process.stderr.write(`${name} done\n`);
}
console.log(`session: ${session}, ${rows[0].texts} texts, ${rows[0].mb.toFixed(2)} MB of text; Node ${process.version}\n`);
console.log("| vocabulary | module raw / gzip -9 (bytes) | compile + instantiate ms | loadVocabulary ms (read, compile, instantiate, build) | tokens | first pass s | best pass s | tokens/s | MB/s |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.name} | ${r.raw.toLocaleString("en")} / ${r.gz.toLocaleString("en")} | ${r.compiled.toFixed(0)} | ${r.loaded.toFixed(0)} | ${r.tokens} | ${r.first.toFixed(3)} | ${r.best.toFixed(3)} | ${(r.tokens / r.best / 1e6).toFixed(1)} M | ${(r.mb / r.best).toFixed(1)} |`);
}
const a = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--assemble", session], { maxBuffer: 1 << 24 }).toString());
console.log(`\nassemble (openai/gpt-5: ${a.tokens.vocabulary}), median of 5 after a first call: without tokens ${a.plain.toFixed(0)} ms (first ${a.plainFirst.toFixed(0)}), with tokens: true ${a.counted.toFixed(0)} ms (first ${a.countedFirst.toFixed(0)}, the vocabulary's load included); history ${a.history} tokens`);
