// The package's default entry in the two bundlers a new user reaches for, with their default
// settings: a minimal app (`import { assemble, assembleCase, ready } from "ctxlens"`, the packed
// tarball installed from pkg/) built with Vite 6 and with webpack 5, served on 127.0.0.1 and run
// in Chromium. Each build must succeed as it comes (Vite's default target rejects top-level
// await), copy the wasm and every release's data as assets of its own, and the app must give
// pi's captured bodies byte for byte: the demo (0.85.1) through `assemble`, a 1.6.0 case through
// `assembleCase`. With the package's tokenizers/ copied beside the page (as its README says), a
// call with `tokens: true` names the vocabulary, `loadVocabulary` fetches that one, and the
// next call counts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { build as viteBuild, createServer as viteServer } from "vite";
import webpack from "webpack";
import { serve, launch, open } from "../e2e/harness.mjs";
import { installPackage, readTree, repo, demoOptions } from "./helpers.mjs";

const CASE_160 = "tests/conformance/pi-1.6.0/an-fresh";
// A case whose model has a shipped vocabulary (openai.gpt-oss: o200k_base).
const CASE_TOKENS = "tests/conformance/pi-1.6.0/bd-gptoss-xhigh";

// The app: plain browser code, no top-level await (it would need a target the defaults do not
// have either). It records the call made before `ready` and both bodies.
const app = `import { assemble, assembleCase, ready, piVersions, loadVocabulary } from "ctxlens";

const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const out = {};
try {
  assemble({ prompt: "hi" });
  out.early = "no error";
} catch (e) {
  out.early = e.name + ": " + e.message;
}
async function main() {
  await ready;
  const inputs = await (await fetch("./inputs.json")).json();
  const o = inputs.demo;
  const r = assemble({ ...o, session: bytes(o.session), files: new Map(Object.entries(o.files).map(([k, v]) => [k, bytes(v)])) });
  out.demo = r.body;
  out.demoPi = r.pi.version;
  const c = assembleCase(Object.fromEntries(Object.entries(inputs.case160).map(([k, v]) => [k, bytes(v)])));
  out.case160 = c.body;
  out.case160Pi = c.pi.version;
  out.releases = piVersions.length;
  const files = Object.fromEntries(Object.entries(inputs.caseTokens).map(([k, v]) => [k, bytes(v)]));
  out.tokensBefore = assembleCase(files, { tokens: true }).tokens;
  const progress = [];
  await loadVocabulary(out.tokensBefore.vocabulary, { onProgress: (p) => progress.push(p.loaded) });
  out.progressEvents = progress.length;
  const t = assembleCase(files, { tokens: true });
  out.tokens = t.tokens;
  out.tokenizer = t.stats.tokenizer;
  out.toolsTokens = t.stats.tools.tokens;
}
main().then(
  () => { document.getElementById("out").textContent = JSON.stringify(out); },
  (e) => { document.getElementById("out").textContent = JSON.stringify({ error: String(e && e.stack || e) }); },
);
`;

const html = (script) => `<!doctype html>
<meta charset="utf-8">
<title>ctxlens in a bundled app</title>
<link rel="icon" href="data:,">
<pre id="out"></pre>
${script}
`;

const b64 = (bytes) => Buffer.from(bytes).toString("base64");

/** The inputs the app fetches: the demo's `assemble` options and a 1.6.0 case folder, bytes as base64. */
function inputsJson() {
  const { options } = demoOptions();
  const demo = { ...options, session: b64(Buffer.from(options.session)), files: Object.fromEntries([...options.files].map(([k, v]) => [k, b64(v)])) };
  const case160 = Object.fromEntries(Object.entries(readTree(path.join(repo, CASE_160))).map(([k, v]) => [k, b64(v)]));
  const caseTokens = Object.fromEntries(Object.entries(readTree(path.join(repo, CASE_TOKENS))).map(([k, v]) => [k, b64(v)]));
  return JSON.stringify({ demo, case160, caseTokens });
}

/** Every file below `dir`, relative, "/"-separated. */
function listTree(dir) {
  return Object.keys(readTree(dir)).sort();
}

/** The package's vocabulary modules copied to `dir`/tokenizers/, as an app puts them beside its page. */
function copyTokenizers(dir) {
  fs.cpSync(path.join(project, "node_modules/ctxlens/tokenizers"), path.join(dir, "tokenizers"), { recursive: true });
}

let project, browser, inputs;
const timings = {};
before(async () => {
  project = installPackage();
  inputs = inputsJson();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  console.log(`bundler builds: ${JSON.stringify(timings)}`);
});

/** Runs the app at `origin`; returns its output and what the page fetched. */
async function runAt(origin) {
  const { page, seen, errors, context } = await open(browser, origin + "/index.html");
  await page.waitForFunction(() => document.getElementById("out").textContent !== "", null, { timeout: 30000 });
  const out = JSON.parse(await page.locator("#out").textContent());
  await context.close();
  return { out, seen, errors, origin };
}

/** Serves `dist` (with inputs.json beside the app) and runs it. */
async function run(dist) {
  fs.writeFileSync(path.join(dist, "inputs.json"), inputs);
  copyTokenizers(dist);
  const server = await serve(dist);
  try {
    return await runAt(server.url);
  } finally {
    await server.close();
  }
}

/** The app's output: pi's bodies, the call before `ready` refused, nothing fetched off the origin. */
function checkApp(name, { out, seen, errors, origin }) {
  assert.equal(out.error, undefined, `${name}: the app failed: ${out.error}`);
  assert.deepEqual(errors, [], `${name}: page errors`);
  assert.match(out.early, /^CtxlensError: ctxlens\.assemble: ctxlens is still loading; `await ready`/, `${name}: a call before ready says what to do`);
  assert.equal(out.demoPi, "0.85.1");
  assert.equal(out.demo, fs.readFileSync(path.join(repo, "www/demo/expected/request-1.json"), "utf8"), `${name}: the demo's body`);
  assert.equal(out.case160Pi, "1.6.0");
  assert.equal(out.case160, fs.readFileSync(path.join(repo, CASE_160, "expected/request-1.json"), "utf8"), `${name}: ${CASE_160}'s body`);
  // Every release the package ships a data folder for (pi/data/pi-*).
  assert.equal(out.releases, fs.readdirSync(path.join(repo, "pi/data")).filter((d) => d.startsWith("pi-")).length);
  assert.equal(out.tokensBefore.vocabulary, "o200k_base");
  assert.equal(out.tokensBefore.counted, false);
  assert.match(out.tokensBefore.note, /`await loadVocabulary\("o200k_base"\)` \(from "ctxlens"\)/);
  assert.ok(out.progressEvents >= 2, `${name}: progress as the module's bytes arrive`);
  assert.equal(out.tokens.counted, true, out.tokens.note);
  assert.deepEqual(out.tokenizer, { name: "o200k_base", exact: true });
  assert.ok(out.toolsTokens > 0);
  const vocab = seen.filter((u) => u.includes("/tokenizers/"));
  assert.deepEqual(vocab, [`${origin}/tokenizers/o200k_base.wasm`], `${name}: only the vocabulary the model needs, beside the page`);
  assert.deepEqual(seen.filter((u) => !u.startsWith(origin + "/") && !u.startsWith("data:")), [], `${name}: no request leaves the page's origin`);
}

/** A build's output: the app works, and the wasm and data are assets of the build. */
function check(name, dist, run) {
  checkApp(name, run);
  const { seen, origin } = run;
  // The wasm is an asset of the build (its own file in dist/, fetched from the page's origin),
  // and so is each release's models.json; nothing is fetched from node_modules or elsewhere.
  // Bundlers copy no vocabulary (tokenizers/ is the copy this test made, as an app does).
  const files = listTree(dist).filter((f) => !f.startsWith("tokenizers/"));
  const wasm = files.filter((f) => f.endsWith(".wasm"));
  assert.equal(wasm.length, 1, `${name}: one .wasm in the output: ${files.join(", ")}`);
  assert.deepEqual(fs.readFileSync(path.join(dist, wasm[0])), fs.readFileSync(path.join(project, "node_modules/ctxlens/wasm/ctxlens_bg.wasm")), `${name}: the package's wasm, copied`);
  assert.ok(seen.some((u) => u === `${origin}/${wasm[0]}`), `${name}: the page fetched ${wasm[0]}: ${seen.join(", ")}`);
  for (const v of ["0.85.1", "1.6.0"]) {
    const models = fs.readFileSync(path.join(project, `node_modules/ctxlens/data/pi-${v}/models.json`));
    const copy = files.find((f) => f.endsWith(".json") && f !== "inputs.json" && fs.statSync(path.join(dist, f)).size === models.length && fs.readFileSync(path.join(dist, f)).equals(models));
    assert.ok(copy, `${name}: pi ${v}'s models.json is an asset of the build`);
    assert.ok(seen.includes(`${origin}/${copy}`), `${name}: the page fetched pi ${v}'s models.json from the build (${copy})`);
  }
  assert.ok(!seen.some((u) => u.includes("/node_modules/")), `${name}: nothing is fetched from node_modules`);
}

test("Vite 6 with its defaults builds an app that imports ctxlens, and the app gives pi's bodies", async () => {
  const root = fs.mkdtempSync(path.join(project, "vite-"));
  fs.writeFileSync(path.join(root, "index.html"), html('<script type="module" src="./main.js"></script>'));
  fs.writeFileSync(path.join(root, "main.js"), app);
  const t0 = performance.now();
  // No config file: `vite build` as it comes (root, quiet logs and no config lookup are all
  // this sets).
  await viteBuild({ root, configFile: false, logLevel: "error" });
  timings.vite = `${Math.round(performance.now() - t0)} ms`;
  const dist = path.join(root, "dist");
  check("vite", dist, await run(dist));
});

test("webpack 5 with its defaults builds an app that imports ctxlens, and the app gives pi's bodies", async () => {
  const root = fs.mkdtempSync(path.join(project, "webpack-"));
  fs.mkdirSync(path.join(root, "src"));
  fs.writeFileSync(path.join(root, "src/index.js"), app);
  const t0 = performance.now();
  // The defaults as `npx webpack` run in the app's folder has them: entry ./src, output
  // ./dist/main.js (the API resolves that against the process's cwd, so it is spelled out);
  // `mode` only silences the warning that it is not set (production is the default).
  const config = { context: root, mode: "production", output: { path: path.join(root, "dist") } };
  const stats = await new Promise((resolve, reject) => webpack(config, (err, s) => (err ? reject(err) : resolve(s))));
  timings.webpack = `${Math.round(performance.now() - t0)} ms`;
  assert.ok(!stats.hasErrors(), stats.toString({ all: false, errors: true }));
  const dist = path.join(root, "dist");
  fs.writeFileSync(path.join(dist, "index.html"), html('<script src="./main.js"></script>'));
  check("webpack", dist, await run(dist));
});

test("Vite's dev server runs the app with ctxlens left out of its dependency pre-bundling, as the README says", async () => {
  // Vite's dev server pre-bundles dependencies into node_modules/.vite/deps/, where
  // `new URL("ctxlens_bg.wasm", import.meta.url)` no longer finds the file: the package README
  // tells Vite users to exclude ctxlens from it (`vite build` needs nothing).
  const root = fs.mkdtempSync(path.join(project, "vite-dev-"));
  fs.writeFileSync(path.join(root, "index.html"), html('<script type="module" src="./main.js"></script>'));
  fs.writeFileSync(path.join(root, "main.js"), app);
  fs.writeFileSync(path.join(root, "inputs.json"), inputs);
  copyTokenizers(root);
  const server = await viteServer({ root, configFile: false, logLevel: "error", optimizeDeps: { exclude: ["ctxlens"] }, server: { host: "127.0.0.1", port: 0, strictPort: false } });
  await server.listen();
  try {
    const r = await runAt(server.resolvedUrls.local[0].replace(/\/$/, ""));
    checkApp("vite dev", r);
    assert.ok(r.seen.some((u) => u.endsWith("/node_modules/ctxlens/wasm/ctxlens_bg.wasm")), "the wasm is served from the package");
  } finally {
    await server.close();
  }
});
