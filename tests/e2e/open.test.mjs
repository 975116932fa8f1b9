// `ctxlens open`: the CLI serves the built app (dist/) on 127.0.0.1 with exactly the inputs it
// read, and the printed URL shows, in Chromium, the request the CLI builds — pi's captured body
// for the demo case, and for a session on a home laid out as pi's (~/.pi/agent and a project)
// the body `ctxlens assemble` prints. Every request the page makes goes to that server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, execFileSync } from "node:child_process";
import { launch, repo, screenshotPath } from "./harness.mjs";

const dist = path.join(repo, "dist");
const demo = path.join(repo, "www/demo");
const bin = path.join(repo, "target/debug/ctxlens");

let browser;
const children = [];
before(async () => {
  assert.ok(fs.existsSync(path.join(dist, "index.html")), "dist/ is missing: run `trunk build --release` (scripts/test.sh does)");
  if (!fs.existsSync(bin)) execFileSync("cargo", ["build", "-p", "ctxlens-cli", "--quiet"], { cwd: repo, stdio: "inherit" });
  browser = await launch();
});
after(async () => {
  for (const c of children) c.kill("SIGINT");
  await browser?.close();
});

/** Starts `ctxlens open ARGS`; resolves with the URL it prints on stdout. */
function startOpen(args, env = process.env) {
  const child = spawn(bin, ["open", ...args, "--app", dist], { env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/\S*)\n/);
      if (m) resolve({ url: m[1], child, stderr: () => err });
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => reject(new Error(`ctxlens open exited with ${code} before printing a URL: ${err}`)));
  });
}

/** Opens `url`, goes to the Request view and resolves with its body and every URL requested. */
async function requestShown(url, expected, shot) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const seen = [];
  const errors = [];
  page.on("request", (r) => seen.push(r.url()));
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.locator('.view-area[data-state="ready"]').waitFor({ state: "attached", timeout: 60000 });
  await page.locator("nav.view-tabs button", { hasText: /^Request$/ }).click();
  await page
    .waitForFunction((x) => document.querySelector('[data-testid="body-json"]')?.textContent === x, expected, { timeout: 60000, polling: 100 })
    .catch(() => {});
  const body = await page.getByTestId("body-json").textContent();
  await page.screenshot({ path: screenshotPath(shot) });
  await context.close();
  return { body, seen, errors };
}

function assertSameOrigin(seen, url) {
  const origin = new URL(url).origin;
  assert.ok(seen.length > 3, `the page loaded: ${seen}`);
  const foreign = seen.filter((u) => !u.startsWith(origin + "/") && !u.startsWith("data:") && !u.startsWith("blob:"));
  assert.deepEqual(foreign, [], "every request goes to the ctxlens server");
}

test("ctxlens open --case: the printed URL shows pi's exact body", async () => {
  const expected = fs.readFileSync(path.join(demo, "expected/request-1.json"), "utf8");
  const { url, child } = await startOpen(["--case", demo]);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?case=/);
  const { body, seen, errors } = await requestShown(url, expected, "open-case.png");
  assert.ok(body === expected, "the Request view holds pi's body");
  assertSameOrigin(seen, url);
  assert.ok(seen.some((u) => u.includes("/_ctxlens/case/session.jsonl")), "the session came from the CLI");
  assert.deepEqual(errors, []);
  child.kill("SIGINT");
});

test("ctxlens open SESSION: a session in a home laid out as pi's, the request the CLI builds", async () => {
  // A home with ~/.pi/agent (models.json with a base URL and a key, AGENTS.md, skills) and the
  // demo's project, and the demo session moved into it.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-open-"));
  const home = path.join(root, "home", "alice");
  const agent = path.join(home, ".pi", "agent");
  const project = path.join(home, "shop");
  fs.mkdirSync(agent, { recursive: true });
  fs.cpSync(path.join(demo, "agent"), agent, { recursive: true });
  fs.cpSync(path.join(demo, "fs", "shop"), project, { recursive: true });
  const models = JSON.parse(fs.readFileSync(path.join(demo, "models.json"), "utf8"));
  for (const p of Object.values(models.providers)) Object.assign(p, { baseUrl: "https://llm.example/v1", apiKey: "key" });
  fs.writeFileSync(path.join(agent, "models.json"), JSON.stringify(models, null, 2));
  const session = path.join(root, "session.jsonl");
  fs.writeFileSync(session, fs.readFileSync(path.join(demo, "session.jsonl"), "utf8").replaceAll("/tmp/pi-ctx-demo/shop", project));
  const env = { HOME: home, PATH: "/usr/bin:/bin", USER: "alice" };
  const args = [session, "--now", "1796000000000", "--tool-set", path.join(demo, "tools.json")];
  const expected = execFileSync(bin, ["assemble", ...args], { env, maxBuffer: 1 << 28 }).toString("utf8");
  assert.ok(expected.includes(project), "the body names the project");

  const { url, child, stderr } = await startOpen(args, env);
  const { body, seen, errors } = await requestShown(url, expected, "open-session.png");
  assert.ok(body === expected, `the Request view holds the CLI's body (${stderr()})`);
  assertSameOrigin(seen, url);
  assert.deepEqual(errors, []);
  child.kill("SIGINT");
  fs.rmSync(root, { recursive: true, force: true });
});
