// Token counts through the packed package: each vocabulary's wasm module (tokenizers/NAME.wasm)
// in Node against independent reference tokenizers (tokens/tests/reference-counts.json:
// js-tiktoken, @lenml/tokenizers, mistral-common) and against the native `ctxlens stats` (the
// same texts counted by ctxlens-tokens compiled natively); and in Chromium, a vocabulary fetched
// same-origin with progress, only when asked for.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { launch, open } from "../e2e/harness.mjs";
import { installPackage, corpus, readTree, repo } from "./helpers.mjs";

const SHIPPED = ["o200k_base", "cl100k_base", "qwen2", "deepseek_v3", "llama3", "mistral_v3", "kimi_k2", "glm4", "glm5", "minimax_m2"];
const reference = JSON.parse(fs.readFileSync(path.join(repo, "tokens/tests/reference-counts.json"), "utf8"));

let ctxlens, project;
before(async () => {
  project = installPackage();
  fs.writeFileSync(path.join(project, "entry.mjs"), 'export * as ctxlens from "ctxlens";\n');
  ({ ctxlens } = await import(pathToFileURL(path.join(project, "entry.mjs")).href));
});

test("the package ships one module per vocabulary and loads each by name", async () => {
  assert.deepEqual([...ctxlens.vocabularies], SHIPPED);
  // A module that is not the one asked for is refused.
  const cl100k = path.join(project, "node_modules/ctxlens/tokenizers/cl100k_base.wasm");
  await assert.rejects(ctxlens.loadVocabulary("qwen2", { url: cl100k }), /the module loaded for qwen2 is the "cl100k_base" vocabulary's/);
  for (const name of SHIPPED) {
    assert.ok(fs.existsSync(path.join(project, "node_modules/ctxlens/tokenizers", `${name}.wasm`)), name);
    const events = [];
    const v = await ctxlens.loadVocabulary(name, { onProgress: (e) => events.push(e) });
    assert.equal(v.name, name);
    assert.equal(v.count(""), 0);
    assert.ok(v.count("hello world") >= 2, name);
    assert.ok(events.length === 1 && events[0].name === name && events[0].loaded === fs.statSync(path.join(project, "node_modules/ctxlens/tokenizers", `${name}.wasm`)).size, name);
    assert.equal(await ctxlens.loadVocabulary(name), v, "loaded once");
  }
  // Gemma's tokenizer.json (HF tokenizers, 33 MB) is not in the package: said, not guessed.
  await assert.rejects(ctxlens.loadVocabulary("gemma3"), /not a vocabulary this package has.*o200k_base/);
  await assert.rejects(ctxlens.loadVocabulary("o200k_base", { bogus: 1 }), /unknown option `bogus`/);
});

test("counts in wasm equal the independent reference tokenizers' on 71 texts of the corpus", async () => {
  const compared = {};
  for (const name of SHIPPED) {
    const v = await ctxlens.loadVocabulary(name);
    for (const t of reference.texts) {
      if (t.counts[name] === undefined) continue;
      assert.equal(v.count(t.text), t.counts[name], `${name}: ${t.case} ${t.where}`);
      compared[name] = (compared[name] ?? 0) + 1;
    }
  }
  // Every vocabulary with a reference was compared on every text (kimi_k2, glm4, glm5,
  // minimax_m2 have none reachable here: the next test compares them with the native build).
  assert.deepEqual(compared, { o200k_base: 71, cl100k_base: 71, qwen2: 71, deepseek_v3: 71, llama3: 71, mistral_v3: 71 });
});

/** The native CLI's `stats --json` for a case (ctxlens-tokens compiled natively). */
function nativeStats(dir) {
  const bin = path.join(repo, "target/debug/ctxlens");
  if (!fs.existsSync(bin)) execFileSync("cargo", ["build", "-p", "ctxlens-cli", "--quiet"], { cwd: repo, stdio: "inherit" });
  const out = execFileSync(bin, ["stats", "--case", dir, "--env", path.join(dir, "expected/env.json"), "--json"], { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 28 });
  return JSON.parse(out.toString("utf8"));
}

test("assembleCase with tokens: the stats' tokens are the native build's, for every vocabulary the corpus uses", () => {
  const byVocabulary = {};
  let unknown = 0;
  let estimated = 0;
  for (const c of corpus()) {
    const files = readTree(c.dir);
    const r = ctxlens.assembleCase(files, { tokens: true });
    assert.equal(typeof r.tokens, "object", c.name);
    if (!r.tokens.counted) {
      // Not counted: no stats tokenizer, and a note that says why.
      if (r.stats) assert.equal(r.stats.tokenizer, null, c.name);
      assert.match(r.tokens.note, /^tokens not counted: /, c.name);
      if (r.tokens.vocabulary === null) unknown++;
      else assert.ok(!SHIPPED.includes(r.tokens.vocabulary), `${c.name}: ${r.tokens.vocabulary} is shipped but was not counted: ${r.tokens.note}`);
      continue;
    }
    // Claude: no public vocabulary, an estimate (calibrated on the session's usage, else pi's
    // own ratio), as the native command gives it.
    if (r.tokens.vocabulary === null) {
      assert.equal(r.tokens.estimate, "claude", c.name);
      assert.deepEqual(r.stats.tokenizer, { name: "estimate", exact: false }, c.name);
      if (estimated++ < 3) {
        const native = nativeStats(c.dir);
        for (const key of Object.keys(r.stats)) assert.deepEqual(r.stats[key], native[key], `${c.name}: stats.${key}`);
      }
      continue;
    }
    const name = r.tokens.vocabulary;
    assert.deepEqual(r.stats.tokenizer, { name, exact: r.tokens.exact }, c.name);
    // Up to three cases per vocabulary against the native command (each a process).
    byVocabulary[name] ??= 0;
    if (byVocabulary[name] >= 3) continue;
    byVocabulary[name]++;
    const native = nativeStats(c.dir);
    for (const key of Object.keys(r.stats)) assert.deepEqual(r.stats[key], native[key], `${c.name}: stats.${key}`);
    assert.ok(r.stats.systemPrompt.tokens > 0, c.name);
  }
  // The corpus's models cover these (the rules: analysis/data/model-tokenizers.json).
  for (const name of ["o200k_base", "mistral_v3", "glm5", "llama3", "qwen2"]) assert.ok(byVocabulary[name] > 0, `no case counted with ${name}: ${JSON.stringify(byVocabulary)}`);
  assert.ok(unknown > 0, "some models have no vocabulary and no estimate");
  assert.ok(estimated > 0, "the Claude cases are estimated");
});

test("without tokens nothing is counted or loaded; a model without a public vocabulary says so", () => {
  const dir = corpus().find((c) => c.name === "pi-1.6.0/bd-gptoss-xhigh").dir;
  const plain = ctxlens.assembleCase(readTree(dir));
  assert.equal(plain.tokens, undefined);
  assert.equal(plain.stats.tokenizer, null);
  assert.equal(plain.stats.systemPrompt.tokens, undefined);
  const claude = corpus().find((c) => c.name === "pi-1.6.0/an-compaction").dir;
  const r = ctxlens.assembleCase(readTree(claude), { tokens: true });
  const { vocabulary, exact, estimate, counted } = r.tokens;
  assert.deepEqual({ vocabulary, exact, estimate, counted }, { vocabulary: null, exact: false, estimate: "claude", counted: true });
  assert.match(r.tokens.note, /^tokens estimated at [\d.]+ characters per token, pi's own estimate/);
  // Claude's estimate is calibrated on the session's calls, as `ctxlens stats` does: here the
  // stand-in provider's made-up usage gives no tokenizer's ratio, and that is said; pi's own
  // estimate (4 characters per token) stands in, said as one.
  assert.equal(r.tokens.calibration.estimate.plausible, false);
  assert.ok(r.tokens.calibration.calls.length >= 3);
  const said = r.tokens.notes.find((n) => /not a tokenizer's ratio/.test(n));
  const ratio = Number(/^tokens estimated at ([\d.]+) characters per token, pi's own estimate/.exec(said ?? "")?.[1]);
  assert.ok(ratio > 0, JSON.stringify(r.tokens.notes));
  assert.equal(r.stats.systemPrompt.tokens, Math.round(r.stats.systemPrompt.chars / ratio));
  assert.throws(() => ctxlens.assembleCase(readTree(dir), { tokens: "yes" }), /`tokens` must be a boolean/);
});

test("assembleSession with tokens reads the model's vocabulary from the package", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-tokens-home-"));
  const options = { model: "openai/gpt-5", prompt: "hi", env: { HOME: home, OPENAI_API_KEY: "k", PATH: "/usr/bin:/bin" } };
  const session = path.join(repo, "www/demo/session.jsonl");
  const r = ctxlens.assembleSession(session, { ...options, tokens: true });
  assert.equal(r.tokens.vocabulary, "o200k_base");
  assert.equal(r.tokens.counted, true, r.tokens.note);
  assert.deepEqual(r.stats.tokenizer, { name: "o200k_base", exact: true });
  // The same texts as assemble counts them: the history's tokens are its messages'.
  assert.equal(r.stats.history.tokens, r.stats.history.byMessage.reduce((n, m) => n + m.tokens, 0));
  const plain = ctxlens.assembleSession(session, options);
  assert.equal(plain.tokens, undefined);
  assert.equal(plain.stats.tokenizer, null);
  assert.equal(plain.body, r.body);
});

// The browser: a page imports "ctxlens/web"; a call with tokens before the vocabulary is loaded
// names it; `loadVocabulary` fetches that one module, same-origin, reporting progress against
// the Content-Length; then the counts are Node's.
const page = `<!doctype html>
<meta charset="utf-8">
<title>ctxlens tokens</title>
<link rel="icon" href="data:,">
<pre id="out"></pre>
<script type="module">
  import init, { assembleCase, load, loadVocabulary } from "./node_modules/ctxlens/web.js";
  const out = {};
  await init();
  await load("1.6.0");
  const packed = await (await fetch("./case.json")).json();
  const files = Object.fromEntries(Object.entries(packed).map(([k, b64]) => [k, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]));
  const before = assembleCase(files, { tokens: true });
  out.before = { tokens: before.tokens, tokenizer: before.stats.tokenizer };
  out.progress = [];
  const v = await loadVocabulary(before.tokens.vocabulary, { onProgress: (e) => out.progress.push(e) });
  out.name = v.name;
  const after = assembleCase(files, { tokens: true });
  out.tokens = after.tokens;
  out.stats = after.stats;
  document.getElementById("out").textContent = JSON.stringify(out);
</script>
`;

/** A static server of `root` that sends each file's Content-Length (what progress is measured against). */
function serveWithLength(root) {
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
  const server = http.createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return res.writeHead(404).end();
    const body = fs.readFileSync(file);
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream", "content-length": body.length });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) })));
}

let server, browser;
after(async () => {
  await browser?.close();
  await server?.close();
});

test("in Chromium a vocabulary loads lazily, same-origin, with progress, and counts as in Node", async () => {
  const dir = corpus().find((c) => c.name === "pi-1.6.0/bd-gptoss-xhigh").dir;
  const files = readTree(dir);
  fs.writeFileSync(path.join(project, "index.html"), page);
  fs.writeFileSync(path.join(project, "case.json"), JSON.stringify(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.from(v).toString("base64")]))));
  server = await serveWithLength(project);
  browser = await launch();
  const { page: p, seen, errors, context } = await open(browser, server.url + "/index.html");
  await p.waitForFunction(() => document.getElementById("out").textContent !== "", null, { timeout: 60000 });
  const out = JSON.parse(await p.locator("#out").textContent());
  assert.deepEqual(errors, []);
  assert.equal(out.before.tokens.vocabulary, "o200k_base");
  assert.equal(out.before.tokens.counted, false);
  assert.match(out.before.tokens.note, /o200k_base, is not loaded: `await loadVocabulary\("o200k_base"\)` \(from "ctxlens\/web"\)/);
  assert.equal(out.before.tokenizer, null);
  assert.equal(out.name, "o200k_base");
  const size = fs.statSync(path.join(project, "node_modules/ctxlens/tokenizers/o200k_base.wasm")).size;
  assert.ok(out.progress.length >= 2, JSON.stringify(out.progress));
  assert.ok(out.progress.every((e) => e.total === size && e.loaded <= size));
  assert.equal(out.progress.at(-1).loaded, size);
  const wasm = seen.filter((u) => u.endsWith(".wasm"));
  assert.deepEqual(wasm.map((u) => new URL(u).pathname), ["/node_modules/ctxlens/wasm/ctxlens_bg.wasm", "/node_modules/ctxlens/tokenizers/o200k_base.wasm"], "only the vocabulary the model needs");
  assert.deepEqual(seen.filter((u) => !u.startsWith(server.url + "/")), [], "no request leaves the page's origin");
  const node = ctxlens.assembleCase(files, { tokens: true });
  assert.deepEqual(out.tokens, node.tokens);
  assert.deepEqual(out.stats, node.stats);
  await context.close();
});
