// `npx ctxlens usage` against ccusage (`@ccusage/pi`, the release on npm) on the same folder:
// the corpus's sessions laid out as pi keeps them (one folder per project), a forked session's
// copy, a hidden folder, a file that is no session and lines ccusage refuses. The usage pi
// recorded must total exactly what ccusage totals, day by day.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { installPackage, repo } from "./helpers.mjs";

let project, dir, npmCache;
before(() => {
  project = installPackage();
  npmCache = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-npm-cache-"));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-usage-"));
  const sessions = path.join(dir, "sessions");
  let n = 0;
  for (const release of fs.readdirSync(path.join(repo, "tests/conformance")).sort()) {
    const root = path.join(repo, "tests/conformance", release);
    for (const name of fs.readdirSync(root).sort()) {
      const file = path.join(root, name, "expected/session.after.jsonl");
      if (!fs.existsSync(file)) continue;
      const folder = path.join(sessions, `--tmp-${release}-${name}--`);
      fs.mkdirSync(folder, { recursive: true });
      const id = `0000${n++}`.slice(-5);
      fs.copyFileSync(file, path.join(folder, `2026-11-30T10-00-00-000Z_${id}.jsonl`));
      if (n === 1) {
        // A fork: a new file with its parent's answers; a hidden folder neither reads.
        fs.copyFileSync(file, path.join(folder, `2026-11-30T11-00-00-000Z_fork.jsonl`));
        fs.mkdirSync(path.join(sessions, ".trash"), { recursive: true });
        fs.copyFileSync(file, path.join(sessions, ".trash", "old.jsonl"));
      }
    }
  }
  const answer = (ts, usage) =>
    JSON.stringify({ type: "message", id: "x", timestamp: ts, message: { role: "assistant", model: "m", usage } });
  fs.writeFileSync(
    path.join(sessions, "notes.jsonl"),
    [
      '{"type":"message","message":{"role":"assistant","usage":{"input":1', // cut off mid-line
      answer("2026-11-30 10:00", { input: 5, output: 5 }),
      answer("2026-11-30T12:00:00.000Z", { input: "5", output: 5 }),
      answer("2026-11-30T12:00:00.000+05:00", { input: 7, output: 3, cost: { total: 0.5 } }),
    ].join("\n"),
  );
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(npmCache, { recursive: true, force: true });
});

function run(cmd, args) {
  const r = spawnSync(cmd, args, {
    env: { ...process.env, npm_config_cache: npmCache, npm_config_update_notifier: "false" },
    maxBuffer: 1 << 28,
  });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout.toString("utf8"));
}
const ccusage = (report) =>
  run(path.join(repo, "node_modules/.bin/ccusage-pi"), [report, "--json", "--piPath", path.join(dir, "sessions"), "--timezone", "UTC"]);
const ctxlens = (...args) =>
  run("npx", ["--prefix", project, "--no", "--offline", "ctxlens", "usage", path.join(dir, "sessions"), "--json", ...args]);

test("the usage pi recorded totals exactly what ccusage totals, day by day", () => {
  const daily = ccusage("daily");
  const sessions = ccusage("session");
  const ours = ctxlens("--no-rebuild", "--by", "day");
  const t = ours.totals;
  assert.deepEqual(
    [t.input, t.output, t.cacheRead, t.cacheWrite],
    [daily.totals.inputTokens, daily.totals.outputTokens, daily.totals.cacheReadTokens, daily.totals.cacheCreationTokens],
  );
  // The same sums in another order: equal to the last bits a float sum keeps.
  assert.ok(Math.abs(t.cost - daily.totals.totalCost) < 1e-9, `${t.cost} ${daily.totals.totalCost}`);
  // Which file keeps an answer found in two depends on the order the files are read (ccusage
  // reads them in the filesystem's order), so a session whose every answer is also elsewhere
  // may count in one and not the other: each such answer moves the count by one at most.
  assert.ok(Math.abs(t.sessions - sessions.sessions.length) <= ours.read.duplicates, `${t.sessions} ${sessions.sessions.length}`);
  const days = (rows) => rows.map((d) => [d.date ?? d.key, d.inputTokens ?? d.input, d.outputTokens ?? d.output, d.cacheReadTokens ?? d.cacheRead, d.cacheCreationTokens ?? d.cacheWrite]);
  assert.deepEqual(days(ours.groups), days(daily.daily).sort((a, b) => a[0].localeCompare(b[0])));
  // The fork's copies were counted once; the refused lines are said with their file and line.
  assert.ok(ours.read.duplicates > 0);
  const notes = ours.read.skipped.filter((s) => s.file.endsWith("notes.jsonl")).map((s) => s.line);
  assert.deepEqual(notes, [1, 2, 3]);
  assert.ok(!ours.read.skipped.some((s) => s.file.includes(".trash")));
});

test("with every call rebuilt, the recorded usage is the same and each rebuilt call's blocks are said", () => {
  const ours = ctxlens("--by", "release");
  const bare = ctxlens("--no-rebuild");
  assert.deepEqual(ours.totals, bare.totals);
  assert.ok(ours.rebuilt > 0, JSON.stringify(ours.read.notRebuilt.slice(0, 3)));
  assert.equal(ours.rebuilt + ours.read.notRebuilt.length, ours.totals.calls);
  // The file with no session header is counted, not rebuilt, and says why.
  assert.ok(ours.read.notRebuilt.some((c) => c.file.endsWith("notes.jsonl") && /no session header/.test(c.reason)));
  const rebuiltByRelease = ours.groups.filter((g) => g.key.startsWith("pi ")).reduce((n, g) => n + g.rebuilt, 0);
  assert.equal(rebuiltByRelease, ours.rebuilt);
  for (const g of ours.groups) {
    const sum = Object.values(g.blocks).reduce((n, b) => n + b.chars, 0);
    if (g.rebuilt > 0) assert.ok(sum > 0, g.key);
  }
});

test("usage() in Node gives the command's report, and says what is wrong with its options", async () => {
  fs.writeFileSync(path.join(project, "entry.mjs"), 'export * as ctxlens from "ctxlens";\n');
  const { usage, CtxlensError } = (await import(pathToFileURL(path.join(project, "entry.mjs")).href)).ctxlens;
  const sessions = path.join(dir, "sessions");
  const viaApi = usage(sessions, { rebuild: false, by: "month" });
  assert.deepEqual(viaApi, ctxlens("--no-rebuild", "--by", "month"));
  assert.equal(viaApi.groupBy, "month");
  const one = usage([sessions], { rebuild: false, since: "2026-12-01", until: "20261201" });
  assert.ok(one.totals.calls > 0 && one.totals.calls < viaApi.totals.calls);
  assert.ok(one.groups.every((g) => g.key === "2026-12-01"));
  assert.throws(() => usage(sessions, { by: "year" }), CtxlensError);
  assert.throws(() => usage(sessions, { since: "yesterday" }), /since/);
  assert.throws(() => usage(sessions, { rebuild: false, without: ["tool:bash"] }), /no-rebuild/);
  assert.throws(() => usage(sessions, { colour: true }), /unknown option/);
});

test("a session byte that is not UTF-8 is read as U+FFFD, as pi and ccusage read it", () => {
  const bad = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-usage-bytes-"));
  try {
    const line = (model) =>
      Buffer.concat([
        Buffer.from('{"type":"message","id":"a1","timestamp":"2026-11-30T10:00:00.000Z","message":{"role":"assistant","model":"'),
        model,
        Buffer.from('","usage":{"input":5,"output":5}}}\n'),
      ]);
    fs.writeFileSync(path.join(bad, "bytes.jsonl"), line(Buffer.from([0x6d, 0xff])));
    const r = spawnSync("npx", ["--prefix", project, "--no", "--offline", "ctxlens", "usage", bad, "--json", "--no-rebuild", "--by", "model"], {
      env: { ...process.env, npm_config_cache: npmCache, npm_config_update_notifier: "false" },
    });
    assert.equal(r.status, 0, r.stderr.toString());
    const report = JSON.parse(r.stdout.toString("utf8"));
    assert.deepEqual(report.groups.map((g) => g.key), ["m\uFFFD"]);
    assert.equal(report.totals.calls, 1);
  } finally {
    fs.rmSync(bad, { recursive: true, force: true });
  }
});
