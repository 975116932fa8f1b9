// The package on a real install, with Node alone: captured cases laid out exactly as the oracle
// laid them for the capture (the fixed root /tmp/pi-ctx-demo, held under the capture lock; a home
// with its agent dir; the oracle's pi release first on PATH), then
//   - `npx ctxlens assemble SESSION --prompt … [pi's flags]` run in the case's cwd, from the
//     installed tarball, must print pi's body byte for byte;
//   - `assembleSession(SESSION, {prompt, …, env, cwd})` must give the same body.
// Both read the machine (the agent dir, the project's files from the session's cwd up, the
// installed pi) through the package's second wasm; the cases are ones the native CLI's
// cli/tests/install.rs runs too.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { installPackage, repo, captureLock, layInstall, INSTALL_ROOT } from "./helpers.mjs";

// Context files at several depths (AGENTS.override.md, shadowed CLAUDE.md), skills, extension
// tools through --tool-set, an @file; 1.6.0: a mid-conversation resume and its native tools; pi
// packages installed with npm, given with -e (a path, npm:, git with a ref) and in npm's global
// root (NPM_CONFIG_PREFIX).
const CASES = [
  "pi-0.85.1/oc-context-shadowing",
  "pi-0.85.1/an-skills",
  "pi-0.85.1/oc-extra-tools-snippets",
  "pi-1.6.0/an-midconvo",
  "pi-1.6.0/an-native-tools",
  "pi-1.6.0/pkg-npm",
  "pi-1.6.0/pkg-cli",
  "pi-0.85.1/pkg-cli",
  "pi-0.85.1/pkg-npm-global",
];

let project, ctxlens, npmCache;
before(async () => {
  project = installPackage();
  fs.writeFileSync(path.join(project, "entry.mjs"), 'export * as ctxlens from "ctxlens";\n');
  ({ ctxlens } = await import(pathToFileURL(path.join(project, "entry.mjs")).href));
  npmCache = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-npm-cache-"));
});
after(() => fs.rmSync(npmCache, { recursive: true, force: true }));

/** `npx ctxlens ARGS` from the installed package, in `cwd`, with exactly `env`. */
function npx(args, { cwd, env }) {
  const r = spawnSync("npx", ["--prefix", project, "--no", "--offline", "ctxlens", ...args], {
    cwd,
    env: { ...env, npm_config_cache: npmCache, npm_config_update_notifier: "false" },
    maxBuffer: 1 << 28,
  });
  return { stdout: r.stdout, stderr: r.stderr.toString("utf8"), code: r.status };
}

/** The ctxlens command line for a laid case: what a user would type. */
function cliArgs(c) {
  const a = ["assemble", c.session];
  if (c.prompt !== undefined) a.push("--prompt", c.prompt);
  if (c.model !== undefined) a.push("--model", c.model);
  if (c.thinking !== undefined) a.push("--thinking", c.thinking);
  a.push("--now", String(c.now));
  if (c.toolSet) a.push("--tool-set", c.toolSet);
  return [...a, ...c.args];
}

for (const name of CASES) {
  test(`${name} as a real install: npx ctxlens and assembleSession give pi's body`, async () => {
    const lock = await captureLock();
    try {
      const c = layInstall(path.join(repo, "tests/conformance", name));
      const run = npx(cliArgs(c), { cwd: c.cwd, env: c.env });
      assert.equal(run.code, 0, `${name}: exit ${run.code}\n${run.stderr}`);
      assert.ok(run.stdout.equals(c.want), `${name}: npx ctxlens printed another body\n${run.stderr}\n${run.stdout.toString("utf8").slice(0, 400)}`);
      // The release rebuilt is the installed pi's, and stderr says so.
      assert.match(run.stderr, new RegExp(`rebuilding pi ${c.version.replace(/\./g, "\\.")}`), run.stderr);

      const r = ctxlens.assembleSession(c.session, {
        prompt: c.prompt,
        model: c.model,
        thinking: c.thinking,
        now: c.now,
        toolSet: c.toolSet,
        args: c.args,
        env: c.env,
        cwd: c.cwd,
      });
      assert.ok(r.bodyBytes && Buffer.from(r.bodyBytes).equals(c.want), `${name}: assembleSession's body differs\n${JSON.stringify(r.diagnostics, null, 1).slice(0, 1500)}`);
      assert.equal(r.pi.version, c.version);
      assert.equal(r.cwd, c.cwd);
    } finally {
      fs.rmSync(INSTALL_ROOT, { recursive: true, force: true });
      await lock.release();
    }
  });
}

// A new session's first request, with no session file: `npx ctxlens assemble --prompt …` in the
// project folder and `assembleSession(null, {prompt, cwd})` give pi's body (these cases' bodies
// do not carry the session id pi draws at random).
for (const name of ["pi-0.85.1/an-skills", "pi-1.6.0/an-fresh"]) {
  test(`${name} as a new session: no session file, pi's first request`, async () => {
    const lock = await captureLock();
    try {
      const c = layInstall(path.join(repo, "tests/conformance", name));
      const argv = cliArgs(c).filter((a) => a !== c.session);
      const run = npx(argv, { cwd: c.cwd, env: c.env });
      assert.equal(run.code, 0, `${name}: exit ${run.code}\n${run.stderr}`);
      assert.ok(run.stdout.equals(c.want), `${name}: npx ctxlens printed another body\n${run.stderr}`);
      const r = ctxlens.assembleSession(null, { prompt: c.prompt, model: c.model, thinking: c.thinking, now: c.now, args: c.args, env: c.env, cwd: c.cwd });
      assert.ok(r.bodyBytes && Buffer.from(r.bodyBytes).equals(c.want), `${name}: assembleSession's body differs`);
      assert.ok(r.diagnostics.some((d) => d.message.startsWith(`a new session in ${c.cwd}`)), JSON.stringify(r.diagnostics));
      assert.throws(() => ctxlens.assembleSession(null, { cwd: c.cwd, env: c.env }), /with a prompt, for a new session/);
    } finally {
      fs.rmSync(INSTALL_ROOT, { recursive: true, force: true });
      await lock.release();
    }
  });
}
