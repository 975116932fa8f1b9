// The packed package in a browser: a plain HTML page served on 127.0.0.1 imports the installed
// package's web build ("ctxlens/web", async init) and its bundler entry (`await ready`), and
// assembles the demo case; the body is pi's captured body. (tests/npm/bundlers.test.mjs builds
// the bundler entry with Vite and webpack.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { serve, launch, open } from "../e2e/harness.mjs";
import { installPackage, readTree, repo } from "./helpers.mjs";

const page = `<!doctype html>
<meta charset="utf-8">
<title>ctxlens npm</title>
<link rel="icon" href="data:,">
<pre id="out"></pre>
<script type="module">
  import init, { assembleCase, parseSession, protocols, load } from "./node_modules/ctxlens/web.js";
  const out = {};
  try { parseSession(""); } catch (e) { out.beforeInit = e.message; }
  await init();
  const packed = await (await fetch("./case.json")).json();
  const files = Object.fromEntries(Object.entries(packed).map(([k, b64]) => [k, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]));
  // A release's data is fetched on first use; the call names the release to load.
  try { assembleCase(files); } catch (e) { out.needs = e.piVersion; }
  await load(out.needs);
  const r = assembleCase(files);
  out.body = r.body;
  out.url = r.url;
  out.stages = r.stages.length;
  out.protocols = protocols.length;
  // The bundler entry, unbundled: its data files resolve beside it too.
  const bundled = await import("./node_modules/ctxlens/bundler.js");
  await bundled.ready;
  out.bundlerBody = bundled.assembleCase(files).body;
  document.getElementById("out").textContent = JSON.stringify(out);
</script>
`;

let server, browser, project;
before(async () => {
  project = installPackage();
  fs.writeFileSync(path.join(project, "index.html"), page);
  const demo = readTree(path.join(repo, "www/demo"));
  fs.writeFileSync(path.join(project, "case.json"), JSON.stringify(Object.fromEntries(Object.entries(demo).map(([k, v]) => [k, Buffer.from(v).toString("base64")]))));
  server = await serve(project);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("the web build assembles the demo case in Chromium", async () => {
  const { page: p, seen, errors, context } = await open(browser, server.url + "/index.html");
  const out = p.locator("#out");
  await p.waitForFunction(() => document.getElementById("out").textContent !== "", null, { timeout: 30000 });
  const result = JSON.parse(await out.textContent());
  const expected = fs.readFileSync(path.join(repo, "www/demo/expected/request-1.json"), "utf8");
  assert.equal(result.body, expected);
  assert.equal(result.bundlerBody, expected);
  assert.match(result.beforeInit, /call `await init\(\)`/);
  assert.equal(result.needs, "0.85.1");
  assert.ok(seen.some((u) => u.endsWith("/node_modules/ctxlens/data/pi-0.85.1/models.json")), "the release's data is fetched beside the package");
  assert.equal(result.stages, 11);
  assert.equal(result.protocols, 9);
  assert.deepEqual(errors, []);
  assert.ok(seen.some((u) => u.endsWith("/node_modules/ctxlens/wasm/ctxlens_bg.wasm")), "the wasm is fetched beside the glue");
  assert.deepEqual(seen.filter((u) => !u.startsWith(server.url + "/")), [], "no request leaves the page's origin");
  await context.close();
});
