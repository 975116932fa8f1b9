// All your sessions in the app: a sessions folder chosen, every call read and rebuilt in the
// worker, the report drawn as it grows — and the same report as `ctxlens usage --json` on the
// same folder (the totals ccusage reports, the blocks, tools, sections, cache breaks and
// costliest calls); a click on a call opens it in the request views; a run can be cancelled
// and keeps what it read.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { cliBin, open, repo, screenshotPath, servedApp } from "./harness.mjs";

const run = servedApp();
let server, browser;
before(async () => ({ server, browser } = await run.ready));

const conformance = path.join(repo, "tests/conformance");

/** A sessions folder as pi lays one out: the corpus sessions of `releases`, one project folder
 * each; a forked copy (its calls counted once), a file that is no session, a hidden folder and
 * a stray file (not read). Returns its path. The sessions' folders are moved where nothing is
 * (the oracle's capture folders may be on this machine): the CLI reads the files pi read from
 * the machine, the page has the sessions folder alone, so both are to find none. */
function sessionsFolder(name, releases) {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-e2e-usage-")), "sessions");
  let n = 0;
  let first = null;
  for (const release of releases) {
    for (const c of fs.readdirSync(path.join(conformance, release)).sort()) {
      const file = path.join(conformance, release, c, "expected/session.after.jsonl");
      if (!fs.existsSync(file)) continue;
      const folder = path.join(dir, `--tmp-${release}-${c}--`);
      fs.mkdirSync(folder, { recursive: true });
      const to = path.join(folder, `2026-11-30T10-00-00-000Z_${String(n++).padStart(5, "0")}.jsonl`);
      fs.writeFileSync(to, fs.readFileSync(file, "utf8").replaceAll("/tmp/", "/nonexistent-ctxlens-e2e/"));
      first ??= to;
    }
  }
  const fork = path.join(dir, "--tmp-fork--");
  fs.mkdirSync(fork);
  fs.copyFileSync(first, path.join(fork, "2026-12-01T10-00-00-000Z_fork.jsonl"));
  fs.writeFileSync(path.join(fork, "2026-12-01T11-00-00-000Z_notes.jsonl"), '{"message": "usage", truncated\n');
  fs.mkdirSync(path.join(dir, ".trash"));
  fs.copyFileSync(first, path.join(dir, ".trash", "old.jsonl"));
  fs.writeFileSync(path.join(dir, "README.txt"), "not a session\n");
  return dir;
}

/** `ctxlens usage DIR --json ARGS…`'s text, run with an empty home (no agent folder). */
function cliText(dir, ...args) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-e2e-home-"));
  const env = { PATH: process.env.PATH, HOME: home };
  return execFileSync(cliBin(), ["usage", dir, "--json", ...args], { encoding: "utf8", env, maxBuffer: 1 << 28 });
}

const cliUsage = (dir, ...args) => JSON.parse(cliText(dir, ...args));

async function openSessions() {
  const o = await open(browser, server.url + "/", { viewport: { width: 1280, height: 1000 } });
  run.opened.push(o);
  await o.page.locator('.view-area[data-state="ready"]').waitFor({ state: "attached", timeout: 60000 });
  await o.page.getByTestId("sessions-toggle").click();
  await o.page.getByTestId("all-sessions").waitFor();
  return o;
}

/** The report once the folder is read, as the page saves it (Save as JSON): its text and parsed. */
async function savedReport(page) {
  await page.locator('[data-testid="all-sessions"][data-state="done"]').waitFor({ timeout: 240000 });
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("usage-download").click()]);
  assert.equal(download.suggestedFilename(), "usage.json");
  const text = fs.readFileSync(await download.path(), "utf8");
  return { text, report: JSON.parse(text) };
}

test("a sessions folder gives the report ctxlens usage gives, and a call opens in the request views", async () => {
  const dir = sessionsFolder("main", ["pi-0.85.1", "pi-0.87.1", "pi-1.6.0"]);
  const cli = cliUsage(dir);
  assert.ok(cli.totals.calls > 50 && cli.rebuilt > 0 && cli.read.duplicates > 0, "the folder has calls, rebuilds and a fork");
  const { page } = await openSessions();
  await page.getByTestId("usage-folder").setInputFiles(dir);
  const { text, report } = await savedReport(page);
  // The same bytes, but for where the folder is (a browser only knows the chosen folder's name).
  assert.deepEqual(report.read.roots, ["sessions"]);
  // The CLI names the files by their absolute paths, the page by their paths below the chosen folder.
  const cliRelative = cliText(dir).split(JSON.stringify(dir).slice(1, -1)).join("sessions");
  fs.writeFileSync(screenshotPath("usage-app.json"), text);
  fs.writeFileSync(screenshotPath("usage-cli.json"), cliRelative);
  assert.ok(text === cliRelative, "the app's report is ctxlens usage --json's, byte for byte (tests/e2e/artifacts/usage-{app,cli}.json)");
  // The calls of models with a public vocabulary are split by it (the page loads each one), the
  // others (Claude, the stand-in models) by characters; the page says which.
  const vocabularies = Object.keys(cli.splitBy).filter((k) => k !== "characters");
  assert.ok(vocabularies.length > 0 && cli.splitBy.characters > 0, JSON.stringify(cli.splitBy));
  const split = await page.getByTestId("usage-split-by").textContent();
  assert.ok(vocabularies.every((v) => split.includes(v)) && split.includes("by characters"), split);
  const totals = page.getByTestId("usage-totals");
  for (const [attr, key] of [["data-calls", "calls"], ["data-sessions", "sessions"], ["data-input", "input"], ["data-output", "output"], ["data-cache-read", "cacheRead"], ["data-cache-write", "cacheWrite"], ["data-cost", "cost"]]) {
    assert.equal(Number(await totals.getAttribute(attr)), cli.totals[key], `the totals' ${key}`);
  }
  // Every day is a column and a row; the tools and sections are ranked as the CLI ranks them.
  assert.equal(await page.locator('[data-testid="usage-periods"] g.col').count(), cli.groups.length);
  assert.deepEqual(await page.locator('[data-testid="usage-groups"] tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.key)), cli.groups.map((g) => g.key));
  assert.deepEqual(await page.locator('[data-testid="usage-tools"] tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.name)), cli.tools.slice(0, 12).map((t) => t.name));
  // Not a session, and the hidden folder's file: said or not read, as the CLI does.
  assert.ok((await page.getByTestId("usage-read").textContent()).includes("notes.jsonl"));
  await page.screenshot({ path: screenshotPath("usage-all-sessions.png"), fullPage: true });
  await page.screenshot({ path: screenshotPath("all-sessions-light-1280.png") });

  // Grouped by month, and a date range: the CLI's --by month --since.
  await page.getByTestId("usage-by").selectOption("month");
  const byMonth = cliUsage(dir, "--by", "month", "--since", "2026-01-01");
  await page.getByTestId("usage-since").fill("2026-01-01");
  await page.getByTestId("usage-since").dispatchEvent("change");
  await page.waitForFunction((keys) => {
    const rows = [...document.querySelectorAll('[data-testid="usage-groups"] tbody tr')].map((r) => r.dataset.key);
    return rows.join() === keys.join();
  }, byMonth.groups.map((g) => g.key));
  const month = (await savedReport(page)).report;
  assert.equal(month.groupBy, "month");
  assert.deepEqual(month.groups, byMonth.groups);
  assert.deepEqual(month.totals, byMonth.totals);

  // The costliest call opens in the request views, rebuilt as that call.
  const top = cli.costliest[0];
  assert.ok(top && top.entryId, "a costliest call with an entry");
  await page.getByTestId("usage-costliest").getByTestId("open-call").first().click();
  const bar = page.getByTestId("call-bar");
  await bar.waitFor({ timeout: 60000 });
  assert.ok((await bar.textContent()).includes(`line ${top.line}`), await bar.textContent());
  assert.equal(await page.getByTestId("sessions-toggle").getAttribute("aria-pressed"), "false");
  // Back to the report: it is still there.
  await page.getByTestId("sessions-toggle").click();
  assert.equal(Number(await page.getByTestId("usage-totals").getAttribute("data-calls")), cli.totals.calls);
});

test("a run can be cancelled: the report keeps the sessions read before", async () => {
  // Many small sessions: the run is long enough to stop midway.
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-e2e-usage-")), "sessions");
  const src = fs.readFileSync(path.join(conformance, "pi-1.6.0/an-scripted/expected/session.after.jsonl"), "utf8");
  for (let k = 0; k < 400; k++) {
    const folder = path.join(dir, `--p${k % 7}--`);
    fs.mkdirSync(folder, { recursive: true });
    // Each its own calls: the timestamps shifted by k days (not a fork's copies).
    const text = src.replace(/"timestamp":"2026-(\d\d)-(\d\d)T/g, (_, m, d) => `"timestamp":"2027-${m}-${String(1 + ((Number(d) + k) % 28)).padStart(2, "0")}T`);
    fs.writeFileSync(path.join(folder, `s_${String(k).padStart(4, "0")}.jsonl`), text);
  }
  const { page } = await openSessions();
  await page.getByTestId("usage-folder").setInputFiles(dir);
  await page.getByTestId("usage-cancel").waitFor({ timeout: 60000 });
  await page.locator('[data-testid="usage-progress"]:not([data-files-done="0"])').waitFor({ timeout: 60000 });
  await page.getByTestId("usage-cancel").click();
  const { report } = await savedReport(page);
  assert.ok((await page.getByTestId("usage-status").textContent()).startsWith("Cancelled"));
  assert.ok(report.read.files > 0 && report.read.files < 400, `read ${report.read.files} of 400 files`);
  // What was read is whole: each file's calls all counted.
  const perFile = cliUsage(path.join(dir, "--p0--", "s_0000.jsonl")).totals.calls;
  assert.equal(report.totals.calls % perFile, 0);
});

test("a folder of 20,000 sessions is read with progress, in a bounded memory", async () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-e2e-usage-")), "sessions");
  const N = 20000;
  const header = (k) => ({ type: "session", version: 3, id: `s${k}`, timestamp: "2026-11-30T10:00:00.000Z", cwd: "/home/u/proj" });
  for (let k = 0; k < N; k++) {
    const folder = path.join(dir, `--home-u-proj${k % 50}--`);
    if (k < 50) fs.mkdirSync(folder, { recursive: true });
    const t = new Date(Date.UTC(2026, 10, 1) + k * 60000).toISOString();
    const lines = [
      header(k),
      { type: "message", id: `u${k}`, parentId: null, timestamp: t, message: { role: "user", content: [{ type: "text", text: `question ${k}` }], timestamp: 1 } },
      { type: "message", id: `a${k}`, parentId: `u${k}`, timestamp: t, message: { role: "assistant", content: [{ type: "text", text: `answer ${k}` }], provider: "anthropic", model: "claude-sonnet-4-5", api: "anthropic-messages",
        usage: { input: 100 + (k % 7), output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120 + (k % 7), cost: { input: 0.0003, output: 0.0003, cacheRead: 0, cacheWrite: 0, total: 0.0006 } }, stopReason: "stop", timestamp: 2 } },
    ];
    fs.writeFileSync(path.join(folder, `${t.replace(/:/g, "-")}_s${k}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  }
  const { page } = await openSessions();
  const started = Date.now();
  await page.getByTestId("usage-folder").setInputFiles(dir);
  await page.locator('[data-testid="usage-progress"]:not([data-files-done="0"])').waitFor({ timeout: 120000 });
  const { report } = await savedReport(page);
  const seconds = (Date.now() - started) / 1000;
  assert.equal(report.read.files, N);
  assert.equal(report.totals.calls, N);
  assert.equal(report.rebuilt, N, JSON.stringify(report.read.notRebuilt.slice(0, 3)));
  const memory = Number(await page.getByTestId("usage-status").getAttribute("data-memory"));
  console.log(`20,000 sessions: ${seconds.toFixed(1)} s, worker ${(memory / 2 ** 20).toFixed(0)} MB`);
  // The bound docs/usage.md states: the worker holds every call's accounting (a few hundred
  // bytes each) and one session at a time.
  assert.ok(memory < 128 * 2 ** 20, `worker memory ${memory}`);
});
