// `npx ctxlens open` with Node alone: the installed package's bin serves the visualizer the package
// ships (app/: Trunk's build, which scripts/build-npm.sh puts in the tarball), without --app or
// CTXLENS_APP, with the demo case on a node:http server bound to 127.0.0.1, every request answered
// by the command line's own routing in the wasm. The printed URL shows pi's exact body in
// Chromium, every request the page makes goes to that server and is for the package's app or the
// case, and the server refuses what the native one refuses (another Host, a method other than
// GET/HEAD, a path out of the site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { launch } from "../e2e/harness.mjs";
import { installPackage, repo } from "./helpers.mjs";

const demo = path.join(repo, "www/demo");

let project, app, browser, npmCache;
const children = [];
before(async () => {
  project = installPackage();
  app = path.join(project, "node_modules/ctxlens/app");
  npmCache = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-npm-cache-"));
  browser = await launch();
});
after(async () => {
  // npx runs the bin in a process group of its own: end that group (the server lives in it).
  for (const c of children) if (c.exitCode === null) process.kill(-c.pid, "SIGINT");
  await browser?.close();
  fs.rmSync(npmCache, { recursive: true, force: true });
});

/** `npx ctxlens open ARGS`; resolves with the URL it prints. */
function startOpen(args) {
  const env = { ...process.env, npm_config_cache: npmCache, npm_config_update_notifier: "false" };
  delete env.CTXLENS_APP;
  const child = spawn("npx", ["--prefix", project, "--no", "--offline", "ctxlens", "open", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/\S*)\n/);
      if (m) resolve({ url: m[1], stderr: () => err });
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => reject(new Error(`npx ctxlens open exited with ${code} before printing a URL: ${err}`)));
  });
}

/** One raw HTTP request (any Host header, any method) to the server. */
function request(url, { method = "GET", host, path: p = "/" } = {}) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: "127.0.0.1", port: u.port, method, path: p, headers: host ? { host } : {} }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, type: res.headers["content-type"], body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the package ships the visualizer (app/) and nothing of the docs page or the demo case", () => {
  const files = fs.readdirSync(app).sort();
  for (const f of ["index.html", "boot.js", "worker.js", "ctxlens-web.js", "ctxlens-web_bg.wasm", "ctxlens-worker.js", "ctxlens-worker_bg.wasm", "style.css", "views.css", "pi-data"]) {
    assert.ok(files.includes(f), `app/${f} is in the package: ${files.join(", ")}`);
  }
  for (const f of ["docs.html", "docs.css", "ctxlens", "demo"]) assert.ok(!files.includes(f), `app/${f} is not: ${files.join(", ")}`);
  // The vocabularies are in the package once (tokenizers/), not in app/ too: `open` serves them.
  assert.ok(!files.includes("tokenizers"), `app/tokenizers is not: ${files.join(", ")}`);
  for (const v of fs.readdirSync(path.join(repo, "pi/data")).filter((d) => d.startsWith("pi-"))) {
    for (const f of fs.readdirSync(path.join(repo, "pi/data", v))) {
      assert.deepEqual(fs.readFileSync(path.join(app, "pi-data", v, f)), fs.readFileSync(path.join(repo, "pi/data", v, f)), `app/pi-data/${v}/${f}`);
    }
  }
});

test("npx ctxlens open --case, without --app: the package's app shows pi's exact body, served by Node on 127.0.0.1", async () => {
  const expected = fs.readFileSync(path.join(demo, "expected/request-1.json"), "utf8");
  const { url, stderr } = await startOpen(["--case", demo]);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?case=_ctxlens\/case\/[^&]+$/);
  assert.match(stderr(), /on 127\.0\.0\.1 only/);
  assert.ok(stderr().includes(`serving ${fs.realpathSync(app)} `) || stderr().includes(`serving ${app} `), `it serves the installed package's app/: ${stderr()}`);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const seen = [];
  const errors = [];
  page.on("request", (r) => seen.push(r.url()));
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.locator('.view-area[data-state="ready"]').waitFor({ state: "attached", timeout: 60000 });
  await page.locator("nav.view-tabs button", { hasText: /^Request$/ }).click();
  await page.waitForFunction((x) => document.querySelector('[data-testid="body-json"]')?.textContent === x, expected, { timeout: 60000, polling: 100 }).catch(() => {});
  const body = await page.getByTestId("body-json").textContent();
  await context.close();
  assert.ok(body === expected, "the Request view holds pi's body");
  assert.deepEqual(errors, []);
  const origin = new URL(url).origin;
  assert.ok(seen.some((u) => u.includes("/_ctxlens/case/session.jsonl")), "the session came from the bin's server");
  assert.deepEqual(seen.filter((u) => !u.startsWith(origin + "/") && !u.startsWith("data:") && !u.startsWith("blob:")), [], "every request goes to the bin's server");
  for (const u of seen.filter((u) => u.startsWith(origin + "/"))) {
    const p = decodeURIComponent(new URL(u).pathname);
    // The vocabularies are the package's own tokenizers/, served as the app's.
    const file = p.startsWith("/tokenizers/") ? path.join(path.dirname(app), p) : path.join(app, p === "/" ? "index.html" : p);
    assert.ok(p.startsWith("/_ctxlens/case/") || fs.existsSync(file), `${p}: a file of the case or of the package's app/ or tokenizers/`);
  }

  // What the server answers, request by request.
  const own = new URL(url).host;
  const manifest = await request(url, { host: own, path: `/${new URL(url).searchParams.get("case")}` });
  assert.equal(manifest.status, 200);
  const files = JSON.parse(manifest.body).files;
  assert.ok(files.includes("session.jsonl"), JSON.stringify(files));
  const session = await request(url, { host: own, path: "/_ctxlens/case/session.jsonl" });
  assert.deepEqual(session.body, fs.readFileSync(path.join(demo, "session.jsonl")), "the case's files as the CLI read them");
  const index = await request(url, { host: own, path: "/" });
  assert.equal(index.status, 200);
  assert.match(index.type, /^text\/html/);
  assert.deepEqual(index.body, fs.readFileSync(path.join(app, "index.html")));
  const worker = await request(url, { host: own, path: "/ctxlens-worker_bg.wasm" });
  assert.equal(worker.status, 200);
  assert.equal(worker.type, "application/wasm");
  assert.deepEqual(worker.body, fs.readFileSync(path.join(app, "ctxlens-worker_bg.wasm")), "the app's files from the package");
  // A vocabulary the page's worker fetches when it counts tokens: the package's tokenizers/,
  // served as the app's /tokenizers/ (the package holds them once); nothing else beside app/.
  const vocabulary = await request(url, { host: own, path: "/tokenizers/o200k_base.wasm" });
  assert.equal(vocabulary.status, 200);
  assert.equal(vocabulary.type, "application/wasm");
  assert.deepEqual(vocabulary.body, fs.readFileSync(path.join(app, "../tokenizers/o200k_base.wasm")));
  assert.equal((await request(url, { host: own, path: "/tokenizers/gemma3.wasm" })).status, 404);
  assert.equal((await request(url, { host: own, path: "/tokenizers/../package.json" })).status, 400);
  assert.equal((await request(url, { host: own, path: "/docs.html" })).status, 404, "the docs page is not in the package");
  assert.equal((await request(url, { host: "evil.example:80", path: "/" })).status, 421, "another Host is refused (DNS rebinding)");
  assert.equal((await request(url, { host: own, method: "POST", path: "/" })).status, 405);
  assert.equal((await request(url, { host: own, path: "/%2e%2e/package.json" })).status, 400, "no path out of the site");
  assert.equal((await request(url, { host: own, path: "/nope.js" })).status, 404);
});

test("npx ctxlens open from a package without its app/: says so and what to pass, serves nothing", async () => {
  const off = `${app}.off`;
  fs.renameSync(app, off);
  try {
    const env = { ...process.env, npm_config_cache: npmCache, npm_config_update_notifier: "false" };
    delete env.CTXLENS_APP;
    const r = spawnSync("npx", ["--prefix", project, "--no", "--offline", "ctxlens", "open", "--case", demo], { env, encoding: "utf8" });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, "", "no URL");
    assert.match(r.stderr, /app: no index\.html there \(this package was built without its visualizer\); pass --app DIST_DIR or set CTXLENS_APP/);
  } finally {
    fs.renameSync(off, app);
  }
});
