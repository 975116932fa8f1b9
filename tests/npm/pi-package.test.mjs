// The package as a pi package, with the real pi (0.85.1 and 1.6.0, the installs scripts/setup.sh
// makes): `pi install npm:ctxlens@file:<the packed tarball>` into an agent dir, then
//   - `/ctxlens` in pi (RPC mode: the notification pi's TUI would show) is the `ctxlens summary`
//     the package's bin prints for the same session, files and extension tools, with the
//     context window line under it; `/ctxlens whatif` gives the saving the command line's
//     `whatif` computes, with its take-home; `/ctxlens open` serves the visualizer on 127.0.0.1;
//   - the live check, on scripted runs of captured cases (pi really runs the tools; extension
//     tools from pi's registry; a Codex body pi compresses), counts every request a match;
//   - an extension that alters the payload after the rebuild's inputs were taken makes each
//     request a mismatch: one line with the folder, whose case.zip `ctxlens` opens and rebuilds
//     into ctxlens-body.json, beside pi's real body.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { repo, captureLock, INSTALL_ROOT } from "./helpers.mjs";
import { piInstall, standIn, layCase, rpc, checkCase, unzip, piEnv, pi } from "./pi-run.mjs";

const RELEASES = ["0.85.1", "1.6.0"];
const homes = {};
let scratch;

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-pi-package-"));
  for (const v of RELEASES) {
    homes[v] = path.join(scratch, `home-${v}`);
    fs.mkdirSync(path.join(homes[v], ".pi/agent"), { recursive: true });
    await piInstall(v, homes[v]);
  }
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const agentOf = (v) => path.join(homes[v], ".pi/agent");
const bin = (v) => path.join(agentOf(v), "npm/node_modules/ctxlens/bin/ctxlens.js");

/** The installed package's `ctxlens ARGS` in the laid case's cwd and environment. */
function ctxlens(v, args, c) {
  const env = { ...c.env, PATH: `${path.dirname(piBinOf(v))}:${c.env.PATH}` };
  const r = spawnSync(process.execPath, [bin(v), ...args], { cwd: c.cwd, env, maxBuffer: 1 << 26 });
  return { code: r.status, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8") };
}

/** The release's `pi` (the installed pi the command line finds on PATH, as pi itself is). */
function piBinOf(v) {
  return `${v === "0.85.1" ? "/opt/pi-oracle" : `/opt/pi-oracle-${v}`}/node_modules/.bin/pi`;
}

test("pi install of the packed tarball writes the package and its settings entry", () => {
  for (const v of RELEASES) {
    const settings = JSON.parse(fs.readFileSync(path.join(agentOf(v), "settings.json"), "utf8"));
    assert.equal(settings.packages.length, 1);
    assert.match(settings.packages[0], /^npm:ctxlens@file:.*ctxlens-.*\.tgz$/);
    const pkg = JSON.parse(fs.readFileSync(path.join(agentOf(v), "npm/node_modules/ctxlens/package.json"), "utf8"));
    assert.deepEqual(pkg.pi, { extensions: ["./pi/extension.js"] });
    assert.ok(pkg.keywords.includes("pi-package"));
  }
});

test("pi install of a folder (the package unpacked) gives /ctxlens too; print mode says it on stderr", async () => {
  for (const v of RELEASES) {
    const home = path.join(scratch, `folder-${v}`);
    fs.mkdirSync(path.join(home, ".pi/agent"), { recursive: true });
    const folder = path.join(agentOf(v), "npm/node_modules/ctxlens");
    const installed = await pi(v, ["install", folder], { env: piEnv(home), cwd: home });
    assert.equal(installed.code, 0, installed.stderr);
    fs.writeFileSync(path.join(home, ".pi/agent/models.json"), JSON.stringify({ providers: { mock: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "k", models: [{ id: "m" }] } } }));
    const r = await pi(v, ["--offline", "-p", "--model", "mock/m", "/ctxlens check"], { env: piEnv(home), cwd: home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
    assert.ok(r.stderr.split("\n").includes("ctxlens live check off: no request checked yet (/ctxlens check on)"), r.stderr);
  }
});

/**
 * pi in RPC mode on a laid case: the case's prompt first (the stand-in answers it, pi writes the
 * session file), then each `/ctxlens …` command; resolves with each command's notification and
 * the session file, after `whileRunning(notifications)` (pi still running) is done.
 */
async function commands(v, c, list, whileRunning = async () => {}) {
  const p = rpc(v, c.piArgs, { env: c.env, cwd: c.cwd });
  try {
    p.send({ type: "prompt", message: c.prompt });
    await p.next((e) => e.type === "agent_end");
    const out = [];
    for (const message of list) {
      const from = p.events.length;
      p.send({ type: "prompt", message });
      out.push(await p.next((e) => e.type === "extension_ui_request" && e.method === "notify", from));
    }
    await whileRunning(out);
    return out;
  } finally {
    await p.close();
  }
}

/** The session file pi wrote for a laid case: the resumed one, or the new one under sessions/. */
function sessionFile(c) {
  if (c.piArgs.includes("--session")) return c.session;
  const dir = path.join(INSTALL_ROOT, "sessions");
  const [f] = fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  return path.join(dir, f);
}

// A new session with extension tools whose prompt snippets pi normalizes (0.85.1); a resumed
// mid-conversation session with pi's flags (1.6.0). Each after one more exchange.
for (const [v, name, change] of [
  ["0.85.1", "pi-0.85.1/oc-extra-tools-snippets", "tool:web_search"],
  ["1.6.0", "pi-1.6.0/an-midconvo", "tool:read"],
]) {
  test(`pi ${v}: /ctxlens is what ctxlens says for the same session; whatif and open`, async () => {
    const lock = await captureLock();
    const provider = await standIn();
    try {
      const c = layCase(path.join(repo, "tests/conformance", name), agentOf(v), provider.port);
      let served;
      // The folder of the session pi writes (a resumed one stays where it was).
      const folder = c.piArgs.includes("--session") ? path.dirname(c.session) : path.join(INSTALL_ROOT, "sessions");
      const [summary, whatif, opened, usage] = await commands(v, c, ["/ctxlens", `/ctxlens whatif ${change}`, "/ctxlens open", `/ctxlens usage --by model ${folder}`], async ([, , o]) => {
        const url = /at (http:\/\/127\.0\.0\.1:\d+\/\S*) /.exec(o.message)?.[1];
        assert.ok(url, o.message);
        served = { url, page: await get(url), manifest: await get(new URL(`/${new URL(url).searchParams.get("case")}`, url).href) };
      });
      assert.equal(provider.requests(), 1, "the commands send nothing to the provider (the one request is the prompt's)");

      // What `ctxlens` says for the session pi wrote, with the case's model, level, flags and tools.
      // The tools as pi's registry has them (none: an empty set); pi runs a case's tools from an
      // extension given with -e: the same flag, the tools that -e extension's (`sourceInfo` "cli").
      const e = c.piArgs.indexOf("-e");
      const registry = path.join(path.dirname(c.session), "registry-tools.json");
      const tools = c.toolSet ? JSON.parse(fs.readFileSync(c.toolSet, "utf8")) : [];
      fs.writeFileSync(registry, JSON.stringify(tools.map((t) => ({ ...t, sourceInfo: { source: "cli" } }))));
      const same = [sessionFile(c), "--prompt", "", "--model", c.caseJson.model, "--thinking", c.caseJson.thinking, "--running-pi", "--tool-set", registry, ...(e >= 0 ? ["-e", c.piArgs[e + 1]] : []), ...(c.caseJson.args ?? [])];
      const want = ctxlens(v, ["summary", ...same], c);
      assert.equal(want.code, 0, want.stderr);
      assert.equal(summary.notifyType, "info");
      const [table, window] = summary.message.split("\n\nContext window: ");
      assert.equal(table, want.stdout.trimEnd(), "/ctxlens shows the summary ctxlens prints");
      assert.match(table, /Where the characters go/);
      // The model and level are pi's own at that moment, not flags the user typed.
      const joined = table.replace(/\s+/g, " ");
      assert.match(joined, / model \S+ \([^)]*, from pi's current model\) thinking .*\(from pi's current level\)/);
      assert.doesNotMatch(joined, /from --model|from --thinking/);
      assert.match(table, /history +[1-9]/, "the exchange is in the history");
      const total = /^\s+total\s+[\d,]+\s+([\d,]+)/m.exec(table)[1];
      assert.match(window, new RegExp(`^≈ ${total} of [\\d,]+ tokens \\(\\d+\\.\\d%\\) by pi's estimate$`));

      const wi = ctxlens(v, ["whatif", ...same, "--without", change], c);
      assert.equal(wi.code, 0, wi.stderr);
      const w = JSON.parse(wi.stdout);
      assert.ok(whatif.message.startsWith(`What if: ${change} — `), whatif.message);
      assert.ok(whatif.message.includes(`to make it for real: ${w.changes[0].takeHome.text}`), whatif.message);
      const n = (x) => x.toLocaleString("en-US");
      assert.ok(whatif.message.includes(`Each request: ${n(w.before.chars)} → ${n(w.after.chars)} characters`), whatif.message);

      // Every call of every session in the folder: what `ctxlens usage` prints there.
      const u = ctxlens(v, ["usage", "--by", "model", folder], c);
      assert.equal(u.code, 0, u.stderr);
      assert.equal(usage.notifyType, "info");
      assert.equal(usage.message, u.stdout.trimEnd(), "/ctxlens usage shows what ctxlens usage prints");
      assert.match(usage.message, /^pi usage: [1-9][\d,]* calls? in/);

      // The visualizer's page and this session's case, from pi's process on 127.0.0.1; gone with pi.
      assert.match(opened.message, /^ctxlens: the visualizer of this session is at http:\/\/127\.0\.0\.1:/);
      assert.equal(served.page.status, 200);
      assert.match(served.page.body, /<html/i);
      assert.equal(served.manifest.status, 200, served.manifest.body);
      assert.ok(JSON.parse(served.manifest.body).files.includes("case.json"), served.manifest.body);
      await assert.rejects(get(served.url));
    } finally {
      provider.stop();
      fs.rmSync(INSTALL_ROOT, { recursive: true, force: true });
      await lock.release();
    }
  });
}

function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode, body }));
      })
      .on("error", reject);
  });
}

// Anthropic with thinking and parallel tool runs, extension tools from pi's registry (oc-demo),
// Mistral (whose SDK renames the payload's keys on the wire), Codex (a zstd body), Responses.
const LIVE = {
  "0.85.1": ["pi-0.85.1/an-scripted", "pi-0.85.1/oc-demo", "pi-0.85.1/ms-scripted-multiturn", "pi-0.85.1/cx-scripted-multiturn"],
  "1.6.0": ["pi-1.6.0/an-scripted", "pi-1.6.0/rs-scripted", "pi-1.6.0/ms-scripted-tools", "pi-1.6.0/cx-cfgupdate-scripted"],
};

// Bedrock, whose requests the AWS SDK sends with its own HTTP client: images (bytes as base64,
// the SDK's key order), thinking replayed, tool results.
const BEDROCK = {
  "0.85.1": ["pi-0.85.1/bd-nova-images", "pi-0.85.1/bd-same-model-claude-thinking"],
  "1.6.0": ["pi-1.6.0/bd-error-image-claude", "pi-1.6.0/bd-history-opus48"],
};

for (const v of RELEASES) {
  test(`pi ${v}: Bedrock requests are compared with the body pi's AWS SDK makes of them`, async () => {
    for (const name of BEDROCK[v]) {
      const r = await checkCase(name, agentOf(v), path.join(scratch, "mismatches"));
      assert.ok(r.sent >= 1, `${name}: ${r.stderr}`);
      assert.deepEqual(r.lines, [`ctxlens live check on: ${r.sent}/${r.sent} requests matched ctxlens's rebuild byte for byte`], `${name}\n${r.stderr}`);
    }
  });

  test(`pi ${v}: the live check counts every request of scripted runs a match`, async () => {
    let all = 0;
    for (const name of LIVE[v]) {
      const r = await checkCase(name, agentOf(v), path.join(scratch, "mismatches"));
      assert.equal(r.code, 0, `${name}: pi exited ${r.code}\n${r.stderr}`);
      assert.ok(r.sent >= 2, `${name}: a scripted run sends several requests (${r.sent})`);
      assert.deepEqual(r.lines, [`ctxlens live check on: ${r.sent}/${r.sent} requests matched ctxlens's rebuild byte for byte`], `${name}\n${r.stderr}`);
      all += r.sent;
    }
    assert.ok(all >= 12);
  });
}

test("pi 1.6.0: an altered request is caught, and its case zip opens in ctxlens", async () => {
  const alter = path.join(scratch, "alter.mjs");
  // Another extension's hook replaces the payload: what pi sends is not what the session and
  // files make.
  fs.writeFileSync(alter, 'export default (pi) => pi.on("before_provider_request", (e) => ({ ...e.payload, temperature: 0.25 }));\n');
  const saveDir = path.join(scratch, "altered");
  const r = await checkCase("pi-1.6.0/rs-scripted", agentOf("1.6.0"), saveDir, ["-e", alter]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.sent, 4);
  const said = r.lines.filter((l) => l.includes("differs"));
  assert.equal(said.length, 4, r.stderr);
  assert.equal(r.lines.at(-1), `ctxlens live check on: 0/4 requests matched ctxlens's rebuild byte for byte; 4 differed (saved in ${path.join(saveDir, "pi-1.6.0/rs-scripted")})`);

  const m = /^ctxlens: request 1 differs from ctxlens's rebuild at byte ([\d,]+); the case is saved in (\S+)$/.exec(said[0]);
  assert.ok(m, said[0]);
  const folder = m[2];
  assert.deepEqual(fs.readdirSync(folder).sort(), ["README.txt", "case.zip", "ctxlens-body.json", "pi-body.json"]);
  // pi's body is the one the provider received (no home path, key or name in it to redact here).
  const piBody = fs.readFileSync(path.join(folder, "pi-body.json"));
  assert.ok(piBody.equals(r.bodies[0]), "pi-body.json is the body pi sent");
  assert.equal(JSON.parse(piBody).temperature, 0.25);
  const mine = fs.readFileSync(path.join(folder, "ctxlens-body.json"));
  assert.equal(JSON.parse(mine).temperature, undefined);
  assert.equal(Number(m[1].replace(/,/g, "")), firstDifference(mine, piBody));

  // The zip is a case `ctxlens` opens: unpacked, `assemble --case` rebuilds ctxlens-body.json
  // and `summary --case` describes it.
  const unpacked = path.join(scratch, "unpacked");
  unzip(path.join(folder, "case.zip"), unpacked);
  const [top] = fs.readdirSync(unpacked);
  const c = { cwd: scratch, env: { PATH: process.env.PATH, HOME: scratch } };
  const rebuilt = ctxlens("1.6.0", ["assemble", "--case", path.join(unpacked, top)], c);
  assert.equal(rebuilt.code, 0, rebuilt.stderr);
  assert.equal(rebuilt.stdout, mine.toString("utf8"));
  // pi's body is in the case as the body it should rebuild, as a captured case holds it.
  assert.ok(fs.readFileSync(path.join(unpacked, top, "expected/request-1.json")).equals(piBody));
  const summary = ctxlens("1.6.0", ["summary", "--case", path.join(unpacked, top)], c);
  assert.equal(summary.code, 0, summary.stderr);
  assert.match(summary.stdout, /^rebuilds {2}pi 1\.6\.0/);
});

test("pi 1.6.0: a cache-warming request pi sends on its own is counted apart, not as a mismatch", async () => {
  // A model whose prompt cache lives 11 s at prices that make pi keep it warm: once the run
  // settles, pi re-sends the last request with a one-token cap (its cache_warming_decision first).
  const home = path.join(scratch, "warm");
  const agent = path.join(home, ".pi/agent");
  fs.cpSync(agentOf("1.6.0"), agent, { recursive: true });
  const provider = await standIn();
  try {
    const settings = JSON.parse(fs.readFileSync(path.join(agent, "settings.json"), "utf8"));
    fs.writeFileSync(path.join(agent, "settings.json"), JSON.stringify({ ...settings, ctxlens: { check: true } }));
    const model = { id: "m", promptCache: { short: 11 }, cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 1e7 } };
    fs.writeFileSync(path.join(agent, "models.json"), JSON.stringify({ providers: { mock: { baseUrl: `http://127.0.0.1:${provider.port}/v1`, api: "openai-completions", apiKey: "k", models: [model] } } }));
    const p = rpc("1.6.0", ["--offline", "--model", "mock/m", "--session-dir", path.join(home, "sessions")], { env: piEnv(home), cwd: home });
    try {
      p.send({ type: "prompt", message: "hello" });
      await p.next((e) => e.type === "agent_end");
      await provider.received(2);
      const refresh = JSON.parse(provider.bodies()[1]);
      assert.equal(refresh.max_completion_tokens ?? refresh.max_tokens, 1, "the second request is pi's cache refresh");
      const from = p.events.length;
      p.send({ type: "prompt", message: "/ctxlens check" });
      const said = await p.next((e) => e.type === "extension_ui_request" && e.method === "notify", from);
      assert.equal(said.message, "ctxlens live check on: 1/1 requests matched ctxlens's rebuild byte for byte; 1 cache-warming request(s) not compared");
    } finally {
      await p.close();
    }
  } finally {
    provider.stop();
  }
});

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
