// Shared by the browser tests: a static server for dist/ on 127.0.0.1 and Debian's Chromium
// driven by playwright-core.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const artifacts = path.join(repo, "tests/e2e/artifacts");

const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".css": "text/css", ".json": "application/json", ".png": "image/png", ".svg": "image/svg+xml" };

/** Serves `root` on 127.0.0.1 (a free port); resolves to {url, close, requests}.
 * `intercept(pathname, req, res)`, when given, may answer a request itself (returns true). */
export function serve(root = path.join(repo, "dist"), { intercept } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    requests.push(url.pathname);
    if (intercept?.(url.pathname, req, res)) return;
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
    if (!fs.existsSync(file)) { res.writeHead(404).end("not found"); return; }
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** Launches Debian's Chromium headless with the flags this machine needs. */
export async function launch() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
}

/** Opens `url` in a new page, recording every request the page makes; `init`: a script run in
 * the page before its own (Playwright's `addInitScript`). */
export async function open(browser, url, { viewport = { width: 1400, height: 1000 }, colorScheme = "light", init } = {}) {
  const context = await browser.newContext({ viewport, colorScheme });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const seen = [];
  page.on("request", (r) => seen.push(r.url()));
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(url);
  return { page, context, seen, errors };
}

export function screenshotPath(name) {
  fs.mkdirSync(artifacts, { recursive: true });
  return path.join(artifacts, name);
}

/**
 * The built app served and a browser for one test file (node:test `before`/`after`): `run.server`
 * and `run.browser` once `await run.ready` (node:test does not wait for one root `before` hook
 * before the next: a file's own hook awaits this); pages pushed onto `run.opened` are checked
 * afterwards — no request left the page's origin and no page error.
 */
export function servedApp() {
  let started;
  const run = { server: null, browser: null, opened: [], ready: new Promise((r) => (started = r)) };
  before(async () => {
    run.server = await serve();
    run.browser = await launch();
    started(run);
  });
  after(async () => {
    for (const o of run.opened) {
      const foreign = o.seen.filter((u) => !u.startsWith(run.server.url + "/") && !u.startsWith("data:") && !u.startsWith("blob:"));
      assert.deepEqual(foreign, [], "no request leaves the page's origin");
      assert.deepEqual(o.errors, [], "no page errors");
    }
    await run.browser?.close();
    await run.server?.close();
  });
  return run;
}

/** The CLI (the native assembly): the debug build scripts/test.sh makes, else a release build, else built now. */
export function cliBin() {
  const bin = ["target/debug/ctxlens", "target/release/ctxlens"].map((p) => path.join(repo, p)).find((p) => fs.existsSync(p));
  if (bin) return bin;
  execFileSync("cargo", ["build", "-p", "ctxlens-cli", "--quiet"], { cwd: repo, stdio: "inherit" });
  return path.join(repo, "target/debug/ctxlens");
}
