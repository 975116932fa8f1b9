// Shared by the npm package tests: the packed tarball installed into a temporary project (as a
// user would: `npm install <tarball>`, offline — the package has no dependencies), and the
// conformance corpus read as case folders.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
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
  const models = JSON.parse(fs.readFileSync(path.join(dir, "models.json"), "utf8"));
  for (const p of Object.values(models.providers)) {
    p.baseUrl = p.baseUrl ? p.baseUrl.replace(/^https?:\/\/[^/]+/, `http://127.0.0.1:${port}`) : `http://127.0.0.1:${port}/v1`;
    p.apiKey ??= "test-key";
  }
  const files = new Map();
  for (const [rel, bytes] of Object.entries(readTree(path.join(dir, "fs")))) files.set(`${env.root}/${rel}`, bytes);
  for (const [rel, bytes] of Object.entries(readTree(path.join(dir, "agent")))) files.set(`${env.agentDir}/${rel}`, bytes);
  const after = fs.readFileSync(path.join(dir, "expected/session.after.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const session = fs.readFileSync(path.join(dir, "session.jsonl"), "utf8");
  const known = new Set(session.trim().split("\n").map((l) => JSON.parse(l).id));
  const now = after.find((e) => !known.has(e.id) && e.type === "message" && e.message.role === "user").message.timestamp;
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
