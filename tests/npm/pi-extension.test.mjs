// The pi extension's parts that need no pi run, from the installed package (pi/): what it says at
// load on a pi without the hooks or one ctxlens does not rebuild (a stand-in pi package folder
// and a stand-in extension API), the pi flags it passes on, how it pairs pi's fetch with a
// request and reads its body, the redaction of a saved body, and the zip reader against a zip
// `ctxlens export` wrote.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { pathToFileURL } from "node:url";
import { installPackage, repo } from "./helpers.mjs";

let project, pi, scratch;
before(async () => {
  project = installPackage();
  const dir = path.join(project, "node_modules/ctxlens/pi");
  const load = (f) => import(pathToFileURL(path.join(dir, f)).href);
  pi = { extension: (await load("extension.js")).default, live: await load("live.js"), check: await load("check.js"), zip: await load("zip.js") };
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-pi-ext-"));
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A pi package folder of `version` with a cli.js, as pi's script path. */
function fakePi(version) {
  const dir = path.join(scratch, `pi-${version}/node_modules/@earendil-works/pi-coding-agent`);
  fs.mkdirSync(path.join(dir, "dist"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "@earendil-works/pi-coding-agent", version }));
  fs.writeFileSync(path.join(dir, "dist/cli.js"), "");
  return path.join(dir, "dist/cli.js");
}

/** The extension loaded by a stand-in of pi `version`; returns its handlers, its command and what it notified. */
function load(version) {
  const argv1 = process.argv[1];
  process.argv[1] = fakePi(version);
  const handlers = {};
  const commands = {};
  try {
    pi.extension({ on: (name, fn) => (handlers[name] = fn), registerCommand: (name, def) => (commands[name] = def), getAllTools: () => [], getActiveTools: () => [] });
  } finally {
    process.argv[1] = argv1;
  }
  const said = [];
  const ctx = { hasUI: true, ui: { notify: (message, level) => said.push({ message, level }) } };
  return { handlers, commands, said, ctx };
}

test("at load: a pi without the request hook, or one ctxlens does not rebuild, is said; a supported one is not", async () => {
  const old = load("0.84.0");
  old.handlers.session_start({}, old.ctx);
  assert.deepEqual(old.said, [{ message: "ctxlens: pi 0.84.0 has no before_provider_request hook; /ctxlens works, the live check needs pi 0.85.1 or newer", level: "warning" }]);
  await old.commands.ctxlens.handler("check on", old.ctx);
  assert.equal(old.said[1].level, "warning");
  assert.match(old.said[1].message, /no before_provider_request hook/);

  const newer = load("1.7.0");
  newer.handlers.session_start({}, newer.ctx);
  assert.deepEqual(newer.said, [{ message: "ctxlens: pi 1.7.0 is not a release ctxlens rebuilds (0.85.1 to 1.6.0); /ctxlens shows the nearest one, and the live check is off", level: "warning" }]);

  for (const v of ["0.85.1", "1.6.0"]) {
    const ok = load(v);
    ok.handlers.session_start({}, ok.ctx);
    assert.deepEqual(ok.said, []);
    assert.equal(typeof ok.handlers.before_provider_request, "function");
    await ok.commands.ctxlens.handler("check", ok.ctx);
    assert.deepEqual(ok.said, [{ message: "ctxlens live check off: no request checked yet (/ctxlens check on)", level: "info" }]);
    await ok.commands.ctxlens.handler("nonsense", ok.ctx);
    assert.match(ok.said[1].message, /^\/ctxlens {17}what the request pi sends/);
  }
});

test("the pi flags passed on are those that shape the request", () => {
  const argv = ["--offline", "-p", "--model", "a/b", "--thinking", "high", "--tools", "read,bash", "-e", "x.mjs", "--session", "s.jsonl", "--no-context-files", "--append-system-prompt=more", "--skill", "./s", "@file.png", "the prompt", "--", "--no-skills"];
  assert.deepEqual(pi.live.requestFlags(argv), ["--offline", "--tools", "read,bash", "-e", "x.mjs", "--no-context-files", "--append-system-prompt", "more", "--skill", "./s"]);
});

test("pi's fetch is paired by the model's origin, and its body read as sent (a zstd body decompressed)", () => {
  assert.equal(pi.check.sameOrigin("http://127.0.0.1:9/v1/messages?beta=true", "http://127.0.0.1:9/v1"), true);
  assert.equal(pi.check.sameOrigin(new URL("https://api.example/v1/x"), "https://api.example/v1"), true);
  assert.equal(pi.check.sameOrigin("https://other.example/v1", "https://api.example/v1"), false);
  assert.equal(pi.check.sameOrigin({ url: "https://api.example/y" }, ""), true);

  const body = '{"model":"m","input":[]}';
  assert.equal(pi.check.bodyOf("u", { method: "POST", body }).toString(), body);
  assert.equal(pi.check.bodyOf("u", { method: "POST", body: new TextEncoder().encode(body) }).toString(), body);
  assert.equal(pi.check.bodyOf("u", { method: "GET" }), null);
  assert.equal(pi.check.bodyOf("u", { method: "POST", body: new ReadableStream() }), null);
  assert.equal(pi.check.bodyOf("u", { method: "POST", body: zlib.gzipSync(body), headers: { "Content-Encoding": "gzip" } }).toString(), body);
  if (typeof zlib.zstdCompressSync === "function") {
    assert.equal(pi.check.bodyOf("u", { method: "POST", body: new Uint8Array(zlib.zstdCompressSync(body)), headers: new Headers({ "content-encoding": "zstd" }) }).toString(), body);
  }
  assert.equal(pi.check.firstDifference(Buffer.from("abcd"), Buffer.from("abxd")), 2);
});

test("a Bedrock body is the one pi's own AWS SDK makes: the SDK's key order, bytes as base64, modelId left to the URL", async () => {
  const payload = {
    modelId: "anthropic.claude-x",
    messages: [{ role: "user", content: [{ image: { source: { bytes: new Uint8Array([1, 2, 3]) }, format: "png" } }, { text: "hi" }] }],
    system: [{ text: "s" }],
    inferenceConfig: { maxTokens: 5 },
    toolConfig: { tools: [{ toolSpec: { name: "read", description: "d", inputSchema: { json: { type: "object", properties: {} } } } }] },
  };
  const want = '{"messages":[{"role":"user","content":[{"image":{"format":"png","source":{"bytes":"AQID"}}},{"text":"hi"}]}],"system":[{"text":"s"}],"inferenceConfig":{"maxTokens":5},"toolConfig":{"tools":[{"toolSpec":{"name":"read","inputSchema":{"json":{"type":"object","properties":{}}},"description":"d"}}]}}';
  for (const dir of ["/opt/pi-oracle/node_modules/@earendil-works/pi-coding-agent", "/opt/pi-oracle-1.6.0/node_modules/@earendil-works/pi-coding-agent"]) {
    const body = await pi.check.bedrockBody(payload, dir);
    assert.equal(body?.toString("utf8"), want, dir);
  }
  // No SDK where pi is said to be: not compared, rather than guessed.
  assert.equal(await pi.check.bedrockBody(payload, scratch), null);
});

test("the zip reader reads what ctxlens export writes", async () => {
  const { runCliCaptured } = await import(pathToFileURL(path.join(project, "node_modules/ctxlens/node.js")).href);
  const zip = path.join(scratch, "demo.zip");
  const r = runCliCaptured(["export", "--case", path.join(repo, "www/demo"), "-o", zip]);
  assert.equal(r.code, 0, r.stderr);
  const files = pi.zip.readStoredZip(fs.readFileSync(zip));
  assert.ok(files["case.json"] && files["expected/env.json"] && files["session.jsonl"], Object.keys(files).join(", "));
  assert.deepEqual(Buffer.from(files["session.jsonl"]), fs.readFileSync(path.join(repo, "www/demo/session.jsonl")));
});

test("export --sent keeps pi's body in the case, redacted with the case's own stand-ins", async () => {
  const { runCliCaptured } = await import(pathToFileURL(path.join(project, "node_modules/ctxlens/node.js")).href);
  const demo = path.join(repo, "www/demo");
  const env = JSON.parse(fs.readFileSync(path.join(demo, "expected/env.json"), "utf8"));
  // pi's body, with the home path and a key in it: the zip's stand-ins replace both.
  const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz";
  const sent = path.join(scratch, "sent.json");
  fs.writeFileSync(sent, JSON.stringify({ system: `cwd ${env.home}/x`, key }));
  const zip = path.join(scratch, "sent.zip");
  const r = runCliCaptured(["export", "--case", demo, "-o", zip, "--redact", "--sent", sent]);
  assert.equal(r.code, 0, r.stderr);
  const files = pi.zip.readStoredZip(fs.readFileSync(zip));
  const body = JSON.parse(Buffer.from(files["expected/request-1.json"]).toString("utf8"));
  const home = JSON.parse(Buffer.from(files["expected/env.json"]).toString("utf8")).home;
  assert.notEqual(home, env.home);
  assert.equal(body.system, `cwd ${home}/x`, "the home as the case's env.json has it");
  assert.notEqual(body.key, key);
  assert.equal(body.key.length, key.length);
  assert.ok(body.key.startsWith("sk-ant-api03-"), body.key);
  // --sent belongs to export.
  assert.equal(runCliCaptured(["summary", "--case", demo, "--sent", sent]).code, 2);
});
