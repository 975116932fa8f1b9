// Embedding (issue 6): the docs example page (dist/docs.html) renders its four <ctxlens-view>s
// with the CLI's numbers and frames the app; the embedding guide's snippets (docs/embedding.md) run as written; several
// elements share one wasm fetch; attributes changed at runtime re-render; the element's whatif=
// shows the CLI's what-if; the app's URL parameters (iframe mode) are each honoured; another
// origin is refused; a hostile session stays inert; nothing leaves the page's origin. Screenshots in tests/e2e/artifacts/embed-*.png, the
// sizes one embed loads in tests/e2e/artifacts/embed-sizes.json.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import zlib from "node:zlib";
import { execFileSync } from "node:child_process";
import { launch, repo, screenshotPath } from "./harness.mjs";

const dist = path.join(repo, "dist");
const demo = path.join(repo, "www/demo");
const WASM = "/ctxlens/wasm/ctxlens_bg.wasm";

// ---------------------------------------------------------------------------------------------
// The CLI's numbers (the native assembly) for the demo and variants of it.

const bin = path.join(repo, "target/debug/ctxlens");
function cli(args) {
  if (!fs.existsSync(bin)) execFileSync("cargo", ["build", "-p", "ctxlens-cli", "--quiet"], { cwd: repo, stdio: "inherit" });
  return execFileSync(bin, args, { maxBuffer: 1 << 28 }).toString("utf8");
}
const caseArgs = (dir) => ["--case", dir, "--env", path.join(dir, "expected/env.json")];
const cliStats = (dir, api) => JSON.parse(cli(["stats", ...caseArgs(dir), ...(api ? ["--api", api] : [])]));
const cliReport = (dir, api) => JSON.parse(cli(["report", ...caseArgs(dir), ...(api ? ["--api", api] : [])]));
const cliBody = (dir, api) => cli(["assemble", ...caseArgs(dir), ...(api ? ["--api", api] : [])]);

/** A copy of the demo case, changed by `change(dir)`. */
function demoVariant(change) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-embed-"));
  fs.cpSync(demo, dir, { recursive: true });
  change(dir);
  return dir;
}
const editJson = (file, f) => fs.writeFileSync(file, JSON.stringify(f(JSON.parse(fs.readFileSync(file, "utf8"))), null, 2));

// ---------------------------------------------------------------------------------------------
// Files served beside dist/ (test pages, test data), a server that records every request.

const extra = new Map();
function page(name, html) {
  extra.set(`/t/${name}`, { type: "text/html", body: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>${name}</title>${html}` });
  return `/t/${name}`;
}
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css", ".json": "application/json", ".jsonl": "application/x-ndjson", ".md": "text/markdown" };

let server, browser, base, otherOrigin;
const requests = [];
before(async () => {
  assert.ok(fs.existsSync(path.join(dist, "docs.html")), "dist/docs.html is missing: run `trunk build --release` (scripts/test.sh does)");
  server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    requests.push(url.pathname);
    const x = extra.get(url.pathname);
    if (x) {
      res.writeHead(200, { "content-type": x.type }).end(x.body);
      return;
    }
    let file = path.join(dist, decodeURIComponent(url.pathname));
    if (!file.startsWith(dist)) return void res.writeHead(403).end();
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
    if (!fs.existsSync(file)) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}`;
  // The same server under another name is another origin.
  otherOrigin = `http://localhost:${server.address().port}`;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r) ?? r());
});

/** Opens `url`, recording the page's requests (other origins are recorded and aborted). */
async function open(url, { viewport = { width: 1400, height: 1000 }, colorScheme = "light" } = {}) {
  const context = await browser.newContext({ viewport, colorScheme });
  const seen = [];
  await context.route("**/*", (route) => {
    const u = route.request().url();
    seen.push(u);
    if (u.startsWith(base + "/") || u.startsWith("data:")) route.continue();
    else route.abort();
  });
  const p = await context.newPage();
  const errors = [];
  p.on("pageerror", (e) => errors.push(String(e)));
  p.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await p.goto(base + url);
  const foreign = () => seen.filter((u) => !u.startsWith(base + "/") && !u.startsWith("data:"));
  return { page: p, context, seen, errors, foreign };
}

/** Waits for every <ctxlens-view> on the page (or those matching `sel`) to be ready or in error. */
async function settled(p, sel = "ctxlens-view", count = 1) {
  await p.waitForFunction(
    ([s, n]) => {
      const els = [...document.querySelectorAll(s)];
      return els.length >= n && els.every((e) => e.state === "ready" || e.state === "error");
    },
    [sel, count],
    { timeout: 60000, polling: 50 },
  );
}
const shadowText = (p, sel, inner) => p.locator(`${sel} ${inner}`).first().textContent();
const num = (s) => Number(String(s).replace(/[^\d.]/g, ""));
const wasmFetches = (seen) => seen.filter((u) => new URL(u).pathname === WASM).length;

// ---------------------------------------------------------------------------------------------

test("the docs example page renders its four embeds with the CLI's numbers, and frames the app", async () => {
  const stats = cliStats(demo);
  const report = cliReport(demo);
  const compare = JSON.parse(cli(["compare", ...caseArgs(demo), "--api", "anthropic-messages", "--with", "openai-completions"]));
  const whatif = JSON.parse(cli(["whatif", ...caseArgs(demo), "--no-tokens", "--without", "tool:bash", "--without", "skill:release-notes"]));
  const { page: p, context, seen, errors, foreign } = await open("/docs.html", { viewport: { width: 1440, height: 1100 } });
  await settled(p, "ctxlens-view", 4);
  for (const id of ["embed-stats", "embed-findings", "embed-compare", "embed-whatif"]) {
    assert.equal(await p.evaluate((i) => document.getElementById(i).state, id), "ready", id);
  }
  // Stats.
  assert.equal(num(await shadowText(p, "#embed-stats", '[data-testid="stat-system-chars"]')), stats.systemPrompt.chars);
  assert.equal(num(await shadowText(p, "#embed-stats", '[data-testid="stat-tools-chars"]')), stats.tools.chars);
  assert.equal(num(await shadowText(p, "#embed-stats", '[data-testid="stat-history-chars"]')), stats.history.chars);
  assert.equal(num(await shadowText(p, "#embed-stats", '[data-testid="stat-body-bytes"]')), stats.body.bytes);
  // Findings: the same list, in order.
  const titles = await p.locator('#embed-findings [data-testid="finding"] strong').allTextContents();
  assert.deepEqual(titles, report.findings.map((f) => f.title));
  // The protocol comparison: anthropic-messages vs openai-completions.
  assert.equal(await shadowText(p, "#embed-compare", '[data-testid="compare-a"]'), "anthropic-messages");
  assert.equal(await shadowText(p, "#embed-compare", '[data-testid="compare-b"]'), "openai-completions");
  assert.equal(num(await shadowText(p, "#embed-compare", '[data-testid="compare-a-bytes"]')), compare.a.bodyBytes);
  assert.equal(num(await shadowText(p, "#embed-compare", '[data-testid="compare-b-bytes"]')), compare.b.bodyBytes);
  assert.equal(await p.locator('#embed-compare [data-testid="losses"] li').count(), compare.losses.length);
  // The what-if: the CLI's first changed byte and characters after.
  assert.equal(Number(await p.locator('#embed-whatif [data-testid="whatif-first-change"]').getAttribute("data-byte")), whatif.firstChange.byte);
  assert.equal(num((await p.locator('#embed-whatif [data-testid="whatif-totals"] tr[data-row="chars"] td').allTextContents())[1]), whatif.after.chars);
  // The link out carries the state.
  const href = await p.locator('#embed-compare [data-testid="open-app"]').getAttribute("href");
  const link = new URL(href);
  assert.equal(link.pathname, "/index.html");
  assert.equal(link.searchParams.get("case"), "/demo/ctxlens-case.json");
  assert.match(link.hash, /api=anthropic-messages/);
  assert.match(link.hash, /view=protocols/);
  // Four elements, one wasm.
  assert.equal(wasmFetches(seen), 1, "the element's wasm is fetched once for the page");
  // The framed app: embed mode, the demo's exact body.
  await p.locator("#embed-app").scrollIntoViewIfNeeded();
  const frame = p.frameLocator("#embed-app");
  await frame.getByTestId("embed-bar").waitFor({ timeout: 60000 });
  const expected = fs.readFileSync(path.join(demo, "expected/request-1.json"), "utf8");
  const fh = await p.locator("#embed-app").elementHandle();
  const f = await fh.contentFrame();
  await f.waitForFunction((x) => document.querySelector('[data-testid="body-json"]')?.textContent === x, expected, { timeout: 60000, polling: 100 });
  assert.equal(await f.locator(".app > .top").isVisible(), false, "no header in embed mode");
  await p.screenshot({ path: screenshotPath("embed-docs.png"), fullPage: true });
  for (const [name, id] of [["stats", "embed-stats"], ["findings", "embed-findings"], ["compare", "embed-compare"], ["whatif", "embed-whatif"]]) {
    await p.locator(`#${id}`).screenshot({ path: screenshotPath(`embed-element-${name}.png`) });
  }
  assert.deepEqual(errors, []);
  assert.deepEqual(foreign(), [], "no request leaves the page's origin");
  // Dark mode: the page and the elements follow prefers-color-scheme.
  const dark = await open("/docs.html", { viewport: { width: 1440, height: 1100 }, colorScheme: "dark" });
  await settled(dark.page, "ctxlens-view", 4);
  await dark.page.screenshot({ path: screenshotPath("embed-docs-dark.png") });
  await dark.context.close();
  await context.close();
});

// The embedding guide's snippets (docs/embedding.md), exactly as written.
const readme = fs.readFileSync(path.join(repo, "docs", "embedding.md"), "utf8");
function snippet(name) {
  const m = new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(readme);
  assert.ok(m, `docs/embedding.md has the snippet ${name}`);
  return m[1];
}

test("the embedding guide's snippets run: script tag, npm import (mount), iframe", async () => {
  const stats = cliStats(demo);
  const report = cliReport(demo);
  // Script tag: a page holding the snippet as it is.
  // The snippets' relative URLs are written for a page at the site's root, beside index.html.
  extra.set("/readme-script.html", { type: "text/html", body: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body>${snippet("script-tag")}</body>` });
  const script = "/readme-script.html";
  // npm import: the module as a bundler would resolve it (an import map stands in for the bundler).
  extra.set("/readme-npm.js", { type: "text/javascript", body: snippet("npm-import") });
  extra.set("/readme-npm.html", {
    type: "text/html",
    body: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="importmap">{"imports": {"ctxlens/element": "/ctxlens/element.js"}}</script><body><div id="ctxlens"></div><script type="module" src="/readme-npm.js"></script></body>`,
  });
  const npmPage = "/readme-npm.html";
  // The iframe, with `index.html` relative to the page as the snippet has it: the page is at /.
  extra.set("/readme-iframe.html", { type: "text/html", body: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body>${snippet("iframe")}</body>` });

  const a = await open(script);
  await settled(a.page);
  assert.equal(num(await shadowText(a.page, "ctxlens-view", '[data-testid="stat-system-chars"]')), stats.systemPrompt.chars);
  assert.deepEqual(a.errors, []);
  assert.deepEqual(a.foreign(), []);
  await a.context.close();

  const b = await open(npmPage);
  const logs = [];
  b.page.on("console", (m) => logs.push(m.text()));
  await settled(b.page);
  assert.equal(await b.page.locator('#ctxlens ctxlens-view [data-testid="finding"]').count(), report.findings.length);
  assert.equal(await b.page.evaluate(() => document.querySelector("ctxlens-view").hasAttribute("compact")), true);
  assert.deepEqual(b.errors, []);
  assert.deepEqual(b.foreign(), []);
  await b.page.screenshot({ path: screenshotPath("embed-readme-npm.png") });
  await b.context.close();

  const c = await open("/readme-iframe.html", { viewport: { width: 1100, height: 700 } });
  const f = await (await c.page.locator("iframe").elementHandle()).contentFrame();
  const expected = cliBody(demo, "anthropic-messages");
  await f.waitForFunction((x) => document.querySelector('[data-testid="body-json"]')?.textContent === x, expected, { timeout: 60000, polling: 100 });
  assert.equal(await f.locator('[data-testid="embed-api"]').textContent(), "anthropic-messages");
  await c.page.screenshot({ path: screenshotPath("embed-readme-iframe.png") });
  assert.deepEqual(c.errors, []);
  assert.deepEqual(c.foreign(), []);
  await c.context.close();
});

test("two elements on one page load the wasm once; a third added later reuses it", async () => {
  const url = page(
    "two.html",
    `<script type="module" src="/ctxlens/element.js"></script>
     <ctxlens-view id="one" case="/demo/ctxlens-case.json" view="stats"></ctxlens-view>
     <ctxlens-view id="two" src="/demo/session.jsonl" model="anthropic/claude-sonnet-4-5" view="body" compact></ctxlens-view>`,
  );
  const { page: p, context, seen, errors, foreign } = await open(url);
  await settled(p, "ctxlens-view", 2);
  assert.equal(await p.evaluate(() => document.getElementById("two").state), "ready");
  assert.equal(await p.evaluate(() => document.getElementById("two").result.model.api), "anthropic-messages");
  assert.match(await shadowText(p, "#two", '[data-testid="body"]'), /^\{"model":"claude-sonnet-4-5"/);
  await p.evaluate(() => {
    const el = document.createElement("ctxlens-view");
    el.id = "three";
    el.setAttribute("case", "/demo/ctxlens-case.json");
    el.setAttribute("view", "findings");
    document.body.append(el);
  });
  await settled(p, "ctxlens-view", 3);
  assert.equal(wasmFetches(seen), 1);
  // The case's files too are fetched once, though two elements read them.
  assert.equal(seen.filter((u) => u.endsWith("/demo/case.json")).length, 1);
  assert.deepEqual(errors, []);
  assert.deepEqual(foreign(), []);
  await context.close();
});

test("attributes changed at runtime re-render; other origins are refused with a message", async () => {
  const report = cliReport(demo);
  const anth = cliReport(demo, "anthropic-messages");
  const url = page("runtime.html", `<script type="module" src="/ctxlens/element.js"></script><ctxlens-view id="v" case="/demo/ctxlens-case.json" view="stats"></ctxlens-view>`);
  const { page: p, context, seen, errors, foreign } = await open(url);
  const el = p.locator("#v");
  await settled(p);
  const waitFor = (fn, arg) => p.waitForFunction(fn, arg, { timeout: 30000, polling: 50 });
  // view → findings
  await p.evaluate(() => document.getElementById("v").setAttribute("view", "findings"));
  await waitFor(() => document.getElementById("v").shadowRoot.querySelectorAll('[data-testid="finding"]').length > 0);
  assert.equal(await el.locator('[data-testid="finding"]').count(), report.findings.length);
  // view → stage, by id; then by index
  await p.evaluate(() => {
    const v = document.getElementById("v");
    v.setAttribute("view", "stage");
    v.setAttribute("stage", "convert-messages");
  });
  await waitFor(() => document.getElementById("v").shadowRoot.querySelector('[data-testid="stage"]')?.dataset.stage === "convert-messages");
  assert.match(await el.locator('[data-testid="stage"] h3').textContent(), /In the provider's format/);
  await p.evaluate(() => document.getElementById("v").setAttribute("stage", "0"));
  await waitFor(() => document.getElementById("v").shadowRoot.querySelector('[data-testid="stage"]')?.dataset.stage === "session-read");
  // protocol → anthropic-messages, body view: the CLI's body under that protocol
  await p.evaluate(() => {
    const v = document.getElementById("v");
    v.setAttribute("protocol", "anthropic-messages");
    v.setAttribute("view", "body");
  });
  await waitFor((x) => document.getElementById("v").shadowRoot.querySelector('[data-testid="body"]')?.textContent === x, anth.request.body);
  assert.equal(await p.evaluate(() => document.getElementById("v").getAttribute("data-api")), "anthropic-messages");
  await el.screenshot({ path: screenshotPath("embed-element-body.png") });
  // compact, via mount(): the same element updated from data
  await p.evaluate(async () => {
    const { mount } = await import("/ctxlens/element.js");
    mount(document.getElementById("v"), { view: "stats", compact: true, protocol: null });
  });
  await waitFor(() => document.getElementById("v").shadowRoot.querySelector('[data-testid="stat-system-chars"]') !== null && document.getElementById("v").hasAttribute("compact"));
  assert.equal(num(await el.locator('[data-testid="stat-system-chars"]').textContent()), report.stats.systemPrompt.chars);
  // another origin: refused, visibly, and never requested
  for (const [attr, value] of [["src", `${otherOrigin}/demo/session.jsonl`], ["case", `${otherOrigin}/demo/ctxlens-case.json`], ["context", `/demo/fs/shop/AGENTS.md,${otherOrigin}/x/AGENTS.md`], ["app", `${otherOrigin}/index.html`]]) {
    await p.evaluate(([a, v]) => document.getElementById("v").setAttribute(a, v), [attr, value]);
    await waitFor(() => document.getElementById("v").state === "error");
    const msg = await el.locator('[data-testid="error"]').textContent();
    assert.match(msg, /another origin/, `${attr}: ${msg}`);
    assert.equal(await el.locator('[data-testid="error"]').isVisible(), true);
    // Back to the demo: the element recovers.
    await p.evaluate(([a]) => (a === "case" ? document.getElementById("v").setAttribute("case", "/demo/ctxlens-case.json") : document.getElementById("v").removeAttribute(a)), [attr]);
    await waitFor(() => document.getElementById("v").state === "ready");
  }
  await p.evaluate((v) => document.getElementById("v").setAttribute("src", v), `${otherOrigin}/demo/session.jsonl`);
  await waitFor(() => document.getElementById("v").state === "error");
  await el.screenshot({ path: screenshotPath("embed-element-refused.png") });
  // bad options are messages too
  await p.evaluate(() => document.getElementById("v").setAttribute("view", "nope"));
  await waitFor(() => /view: "nope"/.test(document.getElementById("v").shadowRoot.querySelector('[data-testid="error"]')?.textContent ?? ""));
  assert.equal(wasmFetches(seen), 1);
  assert.deepEqual(seen.filter((u) => u.startsWith(otherOrigin)), [], "nothing was requested from the other origin");
  assert.deepEqual(foreign(), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test("whatif=: the element shows the what-if (the CLI's `ctxlens whatif`), every view shows the changed request, the link carries it, and a change that names nothing says so", async () => {
  const specs = ["tool:bash", "skill:release-notes", "thinking=low"];
  const cliArgs = specs.flatMap((x) => (x.includes("=") ? ["--set", x] : ["--without", x]));
  const want = JSON.parse(cli(["whatif", ...caseArgs(demo), "--no-tokens", ...cliArgs]));
  const changed = JSON.parse(cli(["stats", ...caseArgs(demo), ...cliArgs]));
  const url = page("whatif.html", `<script type="module" src="/ctxlens/element.js"></script><ctxlens-view id="w" case="/demo/ctxlens-case.json" whatif="${specs.join(",")}"></ctxlens-view>`);
  const { page: p, context, errors, foreign } = await open(url);
  const el = p.locator("#w");
  const waitFor = (fn, arg) => p.waitForFunction(fn, arg, { timeout: 30000, polling: 50 });
  await settled(p);
  assert.equal(await p.evaluate(() => document.getElementById("w").state), "ready");
  // The what-if view (the default with whatif): the first changed byte, the blocks that change, the take-home.
  assert.equal(Number(await el.locator('[data-testid="whatif-first-change"]').getAttribute("data-byte")), want.firstChange.byte);
  assert.equal(await el.locator('[data-testid="whatif-first-block"]').textContent(), want.firstChange.block);
  const blocks = await el.locator('[data-testid="whatif-blocks"] tbody tr').evaluateAll((trs) => trs.map((tr) => ({ name: tr.dataset.block, from: Number(tr.children[1].textContent.replace(/,/g, "")), to: Number(tr.children[2].textContent.replace(/,/g, "")), delta: Number(tr.dataset.delta) })));
  assert.deepEqual(blocks, want.blocks.filter((b) => b.charsDelta !== 0).map((b) => ({ name: b.name, from: b.fromChars, to: b.toChars, delta: b.charsDelta })));
  const chars = await el.locator('[data-testid="whatif-totals"] tr[data-row="chars"] td').allTextContents();
  assert.deepEqual(chars.slice(0, 2).map(num), [want.before.chars, want.after.chars]);
  const takeHome = await el.locator('[data-testid="whatif-takehome"] > li').evaluateAll((lis) => lis.map((li) => ({ change: li.dataset.change, text: li.querySelector("pre").textContent })));
  assert.deepEqual(takeHome, want.changes.map((c) => ({ change: c.change, text: c.takeHome.text })));
  assert.equal(await el.locator('[data-testid="whatif-cache-note"]').textContent(), want.cache.note);
  assert.deepEqual(await p.evaluate(() => document.getElementById("w").result.whatif.changes.map((c) => c.change)), specs);
  await el.screenshot({ path: screenshotPath("embed-element-whatif.png") });
  // The link opens the app on the same what-if (its hash, as the app writes it).
  const link = new URL(await el.locator('[data-testid="open-app"]').getAttribute("href"));
  assert.match(link.hash, /view=whatif/);
  assert.ok(link.hash.endsWith("&whatif=tool:bash,skill:release-notes,thinking%3Dlow"), link.hash);
  // Another view: the changed request's numbers.
  await p.evaluate(() => document.getElementById("w").setAttribute("view", "stats"));
  await waitFor((x) => document.getElementById("w").shadowRoot.querySelector('[data-testid="stat-tools-chars"]')?.textContent.replace(/,/g, "") === String(x), changed.tools.chars);
  assert.equal(num(await el.locator('[data-testid="stat-system-chars"]').textContent()), changed.systemPrompt.chars);
  // From data (mount): a list; then a change that names nothing present: the core's words.
  await p.evaluate(async () => {
    const { mount } = await import("/ctxlens/element.js");
    mount(document.getElementById("w"), { view: "whatif", whatif: ["tool:bash"] });
  });
  await waitFor(() => document.getElementById("w").state === "ready" && document.getElementById("w").result?.whatif?.changes.length === 1);
  assert.equal(await p.evaluate(() => document.getElementById("w").getAttribute("whatif")), "tool:bash");
  await p.evaluate(() => document.getElementById("w").setAttribute("whatif", "tool:nope"));
  await waitFor(() => document.getElementById("w").state === "error");
  const msg = await el.locator('[data-testid="error"]').textContent();
  const cliMsg = (() => {
    try {
      execFileSync(bin, ["whatif", ...caseArgs(demo), "--without", "tool:nope"], { stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      return e.stderr.toString("utf8").trim().replace(/^ctxlens: /, "");
    }
  })();
  assert.ok(cliMsg && msg.includes(cliMsg), `${msg} / ${cliMsg}`);
  // view="whatif" without changes: said.
  await p.evaluate(() => document.getElementById("w").removeAttribute("whatif"));
  await waitFor(() => /view "whatif" needs whatif=/.test(document.getElementById("w").shadowRoot.querySelector('[data-testid="error"]')?.textContent ?? ""));
  assert.deepEqual(errors, []);
  assert.deepEqual(foreign(), []);
  await context.close();
});

test("a hostile session stays inert inside the element", async () => {
  const huge = "A".repeat(3_000_000);
  const evil = ['<script>window.__pwned = 1</script>', '<img src=x onerror="window.__pwned = 2">', '"><svg onload="window.__pwned=3">', "</pre><iframe src=javascript:window.__pwned=4>"].join(" ");
  const header = { type: "session", version: 3, id: "evil", timestamp: "2025-01-01T00:00:00.000Z", cwd: `/home/u/<img src=x onerror="window.__pwned=5">` };
  const user = { type: "message", id: "u1", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: evil }], timestamp: 1 } };
  const asst = {
    type: "message", id: "a1", parentId: "u1", timestamp: "2025-01-01T00:00:02.000Z",
    message: { role: "assistant", content: [{ type: "text", text: evil + huge }, { type: "toolCall", id: "c<b>1</b>", name: "<script>x</script>", arguments: { q: evil } }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 2 },
  };
  const result = { type: "message", id: "r1", parentId: "a1", timestamp: "2025-01-01T00:00:03.000Z", message: { role: "toolResult", toolCallId: "c<b>1</b>", toolName: "<script>x</script>", content: [{ type: "text", text: evil }], isError: false, timestamp: 3 } };
  const lines = [header, user, asst, result].map((l) => JSON.stringify(l)).join("\n") + "\n" + evil + "\n{not json " + evil + "\n";
  extra.set("/t/evil.jsonl", { type: "application/x-ndjson", body: lines });
  extra.set("/t/AGENTS.md", { type: "text/markdown", body: `# Rules\n${evil}\n` });
  const views = ["stats", "findings", "body", "stage"].map((v, i) => `<ctxlens-view id="e${i}" src="/t/evil.jsonl" context="/t/AGENTS.md" model="anthropic/claude-sonnet-4-5" prompt="${evil.replace(/"/g, "&quot;").replace(/</g, "&lt;")}" view="${v}" ${v === "stage" ? 'stage="session-read"' : ""}></ctxlens-view>`);
  const url = page("evil.html", `<script type="module" src="/ctxlens/element.js"></script>${views.join("")}`);
  const { page: p, context, errors, foreign } = await open(url);
  await settled(p, "ctxlens-view", 4);
  for (let i = 0; i < 4; i++) assert.equal(await p.evaluate((j) => document.getElementById(`e${j}`).state, i), "ready", `e${i}`);
  const probe = await p.evaluate(() => {
    const els = [...document.querySelectorAll("ctxlens-view")];
    return {
      pwned: window.__pwned ?? null,
      injected: els.map((e) => e.shadowRoot.querySelectorAll("script, img, svg, iframe, object, embed").length),
      docInjected: document.querySelectorAll("img, svg, iframe").length,
      bodyHasText: els[2].shadowRoot.querySelector('[data-testid="body"]').textContent.includes("<script>window.__pwned = 1</script>"),
      bodyLength: els[2].result.body.length,
      findings: els[1].shadowRoot.textContent.length,
    };
  });
  assert.equal(probe.pwned, null, "no script ran");
  assert.deepEqual(probe.injected, [0, 0, 0, 0], "no element was injected");
  assert.equal(probe.docInjected, 0);
  assert.ok(probe.bodyHasText, "the markup is shown as text");
  assert.ok(probe.bodyLength > 3_000_000, "the huge string reached the body");
  await p.waitForTimeout(300);
  assert.equal(await p.evaluate(() => window.__pwned ?? null), null);
  await p.screenshot({ path: screenshotPath("embed-hostile.png") });
  assert.deepEqual(errors, []);
  assert.deepEqual(foreign(), []);
  await context.close();
});

// ---------------------------------------------------------------------------------------------
// The app's URL parameters (iframe mode).

/** Opens the app with a query; resolves when body-json (the Request view) holds `expected`. */
async function openApp(query, expected, opts) {
  const o = await open(`/index.html?${query}`, opts);
  await bodyIs(o.page, expected);
  return o;
}
const bodyIs = (p, expected) => p.waitForFunction((x) => document.querySelector('[data-testid="body-json"]')?.textContent === x, expected, { timeout: 60000, polling: 100 });

test("iframe mode: embed=1 and case= (the demo's exact body, no header or settings)", async () => {
  const expected = fs.readFileSync(path.join(demo, "expected/request-1.json"), "utf8");
  const o = await openApp("embed=1&case=/demo/ctxlens-case.json&view=request", expected, { viewport: { width: 900, height: 600 } });
  const p = o.page;
  assert.equal(await p.locator(".app > .top").isVisible(), false);
  assert.equal(await p.locator(".app > .side").isVisible(), false);
  assert.equal(await p.getByTestId("embed-bar").isVisible(), true);
  // It fits its frame: the document does not scroll.
  const size = await p.evaluate(() => [document.documentElement.scrollHeight, window.innerHeight]);
  assert.ok(size[0] <= size[1] + 1, `fits: ${size}`);
  const open = new URL(await p.getByTestId("embed-open").getAttribute("href"), base);
  assert.equal(open.searchParams.get("embed"), null);
  assert.equal(open.searchParams.get("case"), "/demo/ctxlens-case.json");
  await p.screenshot({ path: screenshotPath("embed-iframe-mode.png") });
  assert.deepEqual(o.errors, []);
  assert.deepEqual(o.foreign(), []);
  await o.context.close();
  // Without embed=1 the chrome is there.
  const full = await openApp("case=/demo/ctxlens-case.json&view=request", expected);
  assert.equal(await full.page.locator(".app > .top").isVisible(), true);
  assert.equal(await full.page.getByTestId("embed-bar").count(), 0);
  await full.context.close();
});

test("iframe mode: protocol=, view=, stage= and deep links that survive a reload", async () => {
  const expected = cliBody(demo, "anthropic-messages");
  const anth = cliStats(demo, "anthropic-messages");
  const o = await open("/index.html?embed=1&case=/demo/ctxlens-case.json&protocol=anthropic-messages&view=findings&stage=convert-messages");
  const p = o.page;
  await p.getByTestId("findings-view").waitFor({ timeout: 60000 });
  await p.waitForFunction((n) => document.querySelector('[data-testid="stat-system-chars"]')?.textContent === String(n), anth.systemPrompt.chars, { timeout: 60000, polling: 100 });
  assert.equal(await p.getByTestId("embed-api").textContent(), "anthropic-messages");
  assert.equal((await p.locator(".step-count").textContent()).trim(), "8 / 11");
  await p.locator(".view-tab", { hasText: "Request" }).click();
  await bodyIs(p, expected);
  // Move: another view and stage; the hash records it next to the query.
  await p.getByTestId("stage-next").click();
  await p.locator(".view-tab", { hasText: "Tools" }).click();
  await p.waitForFunction(() => location.hash.includes("view=tools") && location.hash.includes("stage=8"), null, { timeout: 10000 });
  assert.match(await p.evaluate(() => location.search), /case=/);
  await p.reload();
  await p.locator(".view-tab.selected", { hasText: "Tools" }).waitFor({ timeout: 60000 });
  await p.waitForFunction(() => document.querySelector(".step-count")?.textContent.trim() === "9 / 11", null, { timeout: 60000, polling: 100 });
  assert.equal(await p.getByTestId("embed-api").textContent(), "anthropic-messages");
  await p.locator(".view-tab", { hasText: "Request" }).click();
  await bodyIs(p, expected);
  // The element's view names are accepted: compare → the protocols view.
  await p.goto(`${base}/index.html?embed=1&case=/demo/ctxlens-case.json&view=compare`);
  await p.getByTestId("protocols-view").waitFor({ timeout: 60000 });
  assert.deepEqual(o.errors, []);
  assert.deepEqual(o.foreign(), []);
  await o.context.close();
});

test("iframe mode: session=, tools=, context=, model=, thinking=, prompt= each change the request as the CLI says", async () => {
  // session=: a shorter session (the first two turns) replaces the case's.
  const lines = fs.readFileSync(path.join(demo, "session.jsonl"), "utf8").split("\n").filter(Boolean);
  const short = lines.slice(0, Math.ceil(lines.length / 2)).join("\n") + "\n";
  extra.set("/t/short.jsonl", { type: "application/x-ndjson", body: short });
  const vShort = demoVariant((d) => {
    fs.writeFileSync(path.join(d, "session.jsonl"), short);
    fs.rmSync(path.join(d, "expected/session.after.jsonl"));
  });
  // tools=: one extension tool instead of three.
  const tools = JSON.parse(fs.readFileSync(path.join(demo, "tools.json"), "utf8")).slice(0, 1);
  extra.set("/t/tools.json", { type: "application/json", body: JSON.stringify(tools) });
  const vTools = demoVariant((d) => fs.writeFileSync(path.join(d, "tools.json"), JSON.stringify(tools)));
  // context=: the project's AGENTS.md replaced, at the cwd.
  const agents = "# Shop\nAlways run `pytest -q` before you answer. Keep diffs small.\n";
  extra.set("/t/ctx/AGENTS.md", { type: "text/markdown", body: agents });
  const vContext = demoVariant((d) => fs.writeFileSync(path.join(d, "fs/shop/AGENTS.md"), agents));
  // thinking=, prompt=, model=
  const vThinking = demoVariant((d) => editJson(path.join(d, "expected/env.json"), (e) => ({ ...e, thinking: "high" })));
  const prompt = "Explain the fix in one sentence & <b>nothing</b> else.";
  const vPrompt = demoVariant((d) => editJson(path.join(d, "expected/env.json"), (e) => ({ ...e, prompt })));
  const vModel = demoVariant((d) => {
    editJson(path.join(d, "expected/env.json"), (e) => ({ ...e, model: "anthropic/claude-sonnet-4-5" }));
    editJson(path.join(d, "case.json"), (c) => ({ ...c, env: { ANTHROPIC_API_KEY: "ctxlens-placeholder-key" } }));
  });
  const q = "embed=1&case=/demo/ctxlens-case.json&view=request";
  const cases = [
    ["session", `${q}&session=/t/short.jsonl`, vShort, "stat-history-chars", "history"],
    ["tools", `${q}&tools=/t/tools.json`, vTools, "stat-tools-chars", "tools"],
    ["context", `${q}&context=/t/ctx/AGENTS.md`, vContext, "stat-system-chars", "systemPrompt"],
  ];
  for (const [name, query, dir, testid, key] of cases) {
    const want = cliStats(dir)[key].chars;
    assert.notEqual(want, cliStats(demo)[key].chars, `${name}: the variant differs from the demo`);
    const o = await open(`/index.html?${query}`);
    await o.page.waitForFunction(([id, n]) => document.querySelector(`[data-testid="${id}"]`)?.textContent === String(n), [testid, want], { timeout: 60000, polling: 100 });
    assert.deepEqual(o.errors, [], name);
    assert.deepEqual(o.foreign(), [], name);
    await o.context.close();
  }
  for (const [name, query, dir] of [
    ["thinking", `${q}&thinking=high`, vThinking],
    ["prompt", `${q}&prompt=${encodeURIComponent(prompt)}`, vPrompt],
    ["model", `${q}&model=anthropic/claude-sonnet-4-5`, vModel],
  ]) {
    const want = cliBody(dir);
    const o = await openApp(query, want);
    assert.deepEqual(o.errors, [], name);
    await o.context.close();
  }
  // session= on its own (no case): laid out around the session's cwd, with the model asked for.
  const alone = await open(`/index.html?embed=1&session=/demo/session.jsonl&model=anthropic/claude-sonnet-4-5&view=request`);
  await alone.page.waitForFunction(() => document.querySelector('[data-testid="body-json"]')?.textContent.startsWith('{"model":"claude-sonnet-4-5"'), null, { timeout: 60000, polling: 100 });
  await alone.context.close();
  // Another origin: refused with a diagnostic, not requested.
  const o = await open(`/index.html?embed=1&case=/demo/ctxlens-case.json&session=${encodeURIComponent(otherOrigin + "/demo/session.jsonl")}`);
  await o.page.waitForFunction(() => /another origin/.test(document.querySelector('[data-testid="diagnostics"]')?.textContent ?? ""), null, { timeout: 60000, polling: 100 });
  await o.page.screenshot({ path: screenshotPath("embed-iframe-refused.png") });
  assert.deepEqual(o.seen.filter((u) => u.startsWith(otherOrigin)), []);
  await o.context.close();
});

test("the sizes one embed loads (JS + wasm, raw and gzipped)", async () => {
  const url = page("one.html", `<script type="module" src="/ctxlens/element.js"></script><ctxlens-view case="/demo/ctxlens-case.json"></ctxlens-view>`);
  const { page: p, context, seen } = await open(url);
  await settled(p);
  const own = [...new Set(seen.map((u) => new URL(u).pathname))].filter((u) => u.startsWith("/ctxlens/"));
  const sizes = {};
  let raw = 0;
  let gz = 0;
  for (const u of own.sort()) {
    const bytes = fs.readFileSync(path.join(dist, u));
    const z = zlib.gzipSync(bytes, { level: 9 }).length;
    sizes[u] = { raw: bytes.length, gzip: z };
    raw += bytes.length;
    gz += z;
  }
  sizes.total = { raw, gzip: gz };
  fs.writeFileSync(screenshotPath("embed-sizes.json"), JSON.stringify(sizes, null, 2) + "\n");
  console.log(`# one embed loads ${own.length} files: ${(raw / 1024).toFixed(1)} KB raw, ${(gz / 1024).toFixed(1)} KB gzipped`, sizes);
  assert.ok(own.includes(WASM) && own.includes("/ctxlens/element.js"));
  await context.close();
});
