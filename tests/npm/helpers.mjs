// Shared by the npm package tests: the packed tarball installed into a temporary project (as a
// user would: `npm install <tarball>`, offline — the package has no dependencies), and the
// conformance corpus read as case folders.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The tarball scripts/build-npm.sh left in pkg/. */
export function tarball() {
  const dir = path.join(repo, "pkg");
  const found = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^ctxlens-.*\.tgz$/.test(f)) : [];
  if (found.length !== 1) throw new Error(`expected one pkg/ctxlens-*.tgz (run scripts/build-npm.sh), found ${found.length}`);
  return path.join(dir, found[0]);
}

/** A temporary project with the tarball installed; returns its directory. */
export function installPackage() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-npm-"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "ctxlens-npm-test", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball()], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  return dir;
}

/** Every file below `dir`, by path relative to it ("/"-separated) → bytes. */
export function readTree(dir, base = dir, out = {}) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) readTree(p, base, out);
    else if (e.isFile()) out[path.relative(base, p).split(path.sep).join("/")] = new Uint8Array(fs.readFileSync(p));
  }
  return out;
}

/** The conformance corpus (tests/conformance/pi-<version>/* with expected/request-1.json) and www/demo, by release and name. */
export function corpus() {
  const root = path.join(repo, "tests/conformance");
  const cases = fs
    .readdirSync(root)
    .filter((r) => r.startsWith("pi-"))
    .sort()
    .flatMap((release) =>
      fs
        .readdirSync(path.join(root, release))
        .filter((n) => fs.existsSync(path.join(root, release, n, "case.json")) && fs.existsSync(path.join(root, release, n, "expected/request-1.json")))
        .sort()
        .map((n) => ({ name: `${release}/${n}`, dir: path.join(root, release, n) })),
    );
  cases.push({ name: "www/demo", dir: path.join(repo, "www/demo") });
  return cases;
}

/** The native CLI's body for a case (the Rust assembly), or null when it builds none. */
export function nativeBody(dir) {
  const bin = path.join(repo, "target/debug/ctxlens");
  if (!fs.existsSync(bin)) execFileSync("cargo", ["build", "-p", "ctxlens-cli", "--quiet"], { cwd: repo, stdio: "inherit" });
  try {
    return execFileSync(bin, ["assemble", "--case", dir, "--env", path.join(dir, "expected/env.json")], { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 28 }).toString("utf8");
  } catch {
    return null;
  }
}

/**
 * The demo case (www/demo) as `assemble` options, laid out by hand the way the oracle laid it
 * (case.js does this for assembleCase): its files by absolute path, the models pointed at the
 * captured port, the prompt's timestamp from the session pi wrote.
 */
export function demoOptions() {
  const dir = path.join(repo, "www/demo");
  const env = JSON.parse(fs.readFileSync(path.join(dir, "expected/env.json"), "utf8"));
  const meta = JSON.parse(fs.readFileSync(path.join(dir, "expected/request-1.meta.json"), "utf8"));
  const port = meta.headers.host.split(":")[1];
  const models = pointedAt(JSON.parse(fs.readFileSync(path.join(dir, "models.json"), "utf8")), port);
  const files = new Map();
  for (const [rel, bytes] of Object.entries(readTree(path.join(dir, "fs")))) files.set(`${env.root}/${rel}`, bytes);
  for (const [rel, bytes] of Object.entries(readTree(path.join(dir, "agent")))) files.set(`${env.agentDir}/${rel}`, bytes);
  const session = fs.readFileSync(path.join(dir, "session.jsonl"), "utf8");
  const now = promptTime(fs.readFileSync(path.join(dir, "expected/session.after.jsonl"), "utf8"), session);
  const options = {
    session,
    sessionPath: `${env.root}/session.jsonl`,
    files,
    home: env.home,
    agentDir: env.agentDir,
    cwd: env.cwd,
    piPackageDir: env.piPackageDir,
    models,
    model: env.model,
    thinking: env.thinking,
    tools: JSON.parse(fs.readFileSync(path.join(dir, "tools.json"), "utf8")),
    args: env.args,
    env: { HOME: env.home, PI_OFFLINE: "1" },
    prompt: env.prompt,
    now,
    userAgent: meta.headers["user-agent"],
  };
  return { dir, env, meta, options, expected: fs.readFileSync(path.join(dir, "expected/request-1.json")) };
}

/**
 * A case's models.json as the oracle rewrote it for its capture: each provider's base URL on the
 * stand-in's port (the path kept), `test-key` where it has no key.
 */
export function pointedAt(models, port) {
  for (const p of Object.values(models.providers ?? {})) {
    p.baseUrl = p.baseUrl ? p.baseUrl.replace(/^https?:\/\/[^/]+/, `http://127.0.0.1:${port}`) : `http://127.0.0.1:${port}/v1`;
    p.apiKey ??= "test-key";
  }
  return models;
}

/** When the captured prompt was sent: the first user message in `after` that `before` lacks. */
export function promptTime(after, before) {
  // Lines that do not parse (a session with garbage lines) are skipped, as pi skips them.
  const parse = (l) => {
    try {
      return JSON.parse(l);
    } catch {
      return null;
    }
  };
  const known = new Set(before.split("\n").map(parse).filter(Boolean).map((e) => e.id));
  for (const e of after.split("\n").map(parse)) {
    if (e && !known.has(e.id) && e.type === "message" && e.message?.role === "user") return e.message.timestamp;
  }
  return 0;
}

/** The oracle's fixed root and the lock its captures hold while they use it. */
export const INSTALL_ROOT = "/tmp/pi-ctx-demo";
const CAPTURE_LOCK = "/tmp/pi-capture.lock";

/** Holds the capture lock (`flock`) until `release()`; resolves once it is held. */
export function captureLock() {
  return new Promise((resolve, reject) => {
    const child = spawn("flock", [CAPTURE_LOCK, "sh", "-c", "echo held; exec cat"], { stdio: ["pipe", "pipe", "inherit"] });
    child.on("error", reject);
    child.stdout.once("data", () =>
      resolve({
        release: () =>
          new Promise((done) => {
            child.once("exit", done);
            child.stdin.end();
          }),
      }),
    );
  });
}

/** The oracle's pi release's bin folder. */
export function piBin(version) {
  return { "0.85.1": "/opt/pi-oracle/node_modules/.bin", "1.6.0": "/opt/pi-oracle-1.6.0/node_modules/.bin" }[version];
}

/**
 * Lays a captured case out as the oracle laid it for the capture (hold the capture lock): `fs/`
 * at the fixed root, `agent/` at its home's `.pi/agent`, models.json rewritten there, the
 * session at the root (a case without one started a new session: the header pi wrote for it).
 * Returns what a user of that machine would run: the session, the cwd, the environment (HOME,
 * PATH with the release's pi first, the case's variables), pi's prompt, model, thinking and
 * flags, the time, the extension tools' file, and the body pi sent.
 */
export function layInstall(caseDir) {
  const root = INSTALL_ROOT;
  fs.rmSync(root, { recursive: true, force: true });
  const env = JSON.parse(fs.readFileSync(path.join(caseDir, "expected/env.json"), "utf8"));
  const caseJson = JSON.parse(fs.readFileSync(path.join(caseDir, "case.json"), "utf8"));
  const version = env.piVersion ?? "0.85.1";
  const home = `${root}/home`;
  const agent = `${home}/.pi/agent`;
  const put = (p, bytes) => {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, bytes);
  };
  for (const [rel, bytes] of Object.entries(readTree(caseDir))) {
    if (rel.startsWith("fs/")) put(path.join(root, rel.slice(3)), bytes);
    else if (rel.startsWith("agent/")) put(path.join(agent, rel.slice(6)), bytes);
  }
  const metaPath = path.join(caseDir, "expected/request-1.meta.json");
  const meta = fs.existsSync(metaPath) ? JSON.parse(fs.readFileSync(metaPath, "utf8")) : null;
  const port = meta?.headers?.host?.split(":").at(-1) ?? "8080";
  if (fs.existsSync(path.join(caseDir, "models.json"))) {
    put(path.join(agent, "models.json"), JSON.stringify(pointedAt(JSON.parse(fs.readFileSync(path.join(caseDir, "models.json"), "utf8")), port), null, 2));
  }
  const after = fs.readFileSync(path.join(caseDir, "expected/session.after.jsonl"), "utf8");
  const sessionText = fs.existsSync(path.join(caseDir, "session.jsonl")) ? fs.readFileSync(path.join(caseDir, "session.jsonl"), "utf8") : `${after.split("\n")[0]}\n`;
  const session = `${root}/session.jsonl`;
  put(session, sessionText);
  fs.mkdirSync(env.cwd, { recursive: true });
  const vars = {};
  for (const [k, v] of Object.entries(caseJson.env ?? {})) vars[k] = typeof v === "string" ? v : JSON.stringify(v);
  vars.HOME = home;
  // The release's pi first; then node's own folder, for npx.
  vars.PATH = `${piBin(version)}:${path.dirname(process.execPath)}:/usr/bin:/bin`;
  const tools = path.join(caseDir, "tools.json");
  return {
    version,
    session,
    cwd: env.cwd,
    env: vars,
    prompt: env.prompt ?? undefined,
    model: env.model ?? undefined,
    thinking: env.thinking ?? undefined,
    now: promptTime(after, sessionText),
    toolSet: fs.existsSync(tools) ? tools : undefined,
    args: env.args ?? [],
    want: fs.readFileSync(path.join(caseDir, "expected/request-1.json")),
  };
}
