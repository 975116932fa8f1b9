// The live check: on each request pi sends, ctxlens rebuilds it from the session and the files
// and compares the bytes with the body pi hands to `fetch` (for Bedrock, whose requests the AWS
// SDK sends with its own HTTP client, with the body pi's own copy of the SDK makes of the
// command input pi hands it, serialized without being sent). A match is counted; a mismatch
// writes a redacted case (`ctxlens export --redact`) with pi's real body beside it into a local
// folder and says one line. Nothing leaves the machine: pi's own request goes out unchanged
// and nothing else is sent.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { cliArgs } from "./live.js";
import { readStoredZip } from "./zip.js";

/** The check's state: off until switched on; its counts; the requests waiting for their body. */
export function createCheck({ run, files, say }) {
  const state = { on: false, dir: null, requests: 0, matched: 0, differed: 0, unchecked: 0, refreshes: 0, refreshDue: false, saved: [], waiting: [] };
  let wrapped = false;

  /**
   * `before_provider_request`: the inputs as they are now, kept until pi's body reaches fetch.
   * A cache refresh (pi re-sending the last request with a one-token cap to keep a prompt cache
   * warm) is counted apart: it is not the request the session makes.
   */
  function onRequest(snap, payload) {
    if (!state.on) return;
    if (state.refreshDue) {
      state.refreshDue = false;
      state.refreshes += 1;
      return;
    }
    for (const w of state.waiting.splice(0)) notCompared(w);
    state.requests += 1;
    if (snap.api === BEDROCK) {
      const numbered = { ...snap, number: state.requests };
      bedrockBody(payload, snap.pi?.dir).then(
        (body) => (body === null ? notCompared(numbered) : compare(numbered, body)),
        () => notCompared(numbered),
      );
      return;
    }
    state.waiting.push({ ...snap, number: state.requests });
    wrapFetch();
  }

  /** A request whose body never reached `fetch` (a provider with its own HTTP client): counted, not compared. */
  function notCompared() {
    state.unchecked += 1;
  }

  /** The requests still waiting for their body (pi is exiting): not compared. */
  function flush() {
    for (const w of state.waiting.splice(0)) notCompared(w);
  }

  /**
   * pi's fetch, wrapped once: the first POST with a body to the model's origin after a
   * request's hook is that request's body (anything else passes untouched).
   */
  function wrapFetch() {
    if (wrapped || typeof globalThis.fetch !== "function") return;
    wrapped = true;
    const original = globalThis.fetch;
    globalThis.fetch = function ctxlensCheckedFetch(input, init) {
      let w = null;
      try {
        if (state.waiting.length && sameOrigin(input, state.waiting[0].baseUrl)) w = bodyOf(input, init);
      } catch {
        w = null; // a body it cannot read is left to pi, untouched
      }
      const response = original.apply(this, arguments);
      if (w !== null) {
        const snap = state.waiting.shift();
        setImmediate(() => compare(snap, w));
      }
      return response;
    };
  }

  /** The rebuild against pi's body: counted, or saved as a case with one line said. */
  function compare(snap, piBody) {
    let rebuilt;
    try {
      rebuilt = run(cliArgs(snap, files, "assemble"));
    } catch (e) {
      rebuilt = { code: 1, stdoutBytes: Buffer.alloc(0), stderr: String(e?.message ?? e) };
    }
    const mine = rebuilt.code === 0 ? rebuilt.stdoutBytes : null;
    if (mine && mine.equals(piBody)) {
      state.matched += 1;
      return;
    }
    state.differed += 1;
    const at = mine ? firstDifference(mine, piBody) : null;
    try {
      const where = save(snap, piBody, mine, rebuilt.stderr);
      state.saved.push(where);
      const what = mine ? `differs from ctxlens's rebuild at byte ${at.toLocaleString("en-US")}` : "could not be rebuilt by ctxlens";
      say(`ctxlens: request ${snap.number} ${what}; the case is saved in ${where}`, "warning");
    } catch (e) {
      say(`ctxlens: request ${snap.number} differs from ctxlens's rebuild, and the case could not be saved: ${e.message}`, "error");
    }
  }

  /**
   * The case folder: case.zip (redacted, pi's body in it as the body to rebuild), the body
   * ctxlens rebuilds from that case (what whoever opens it gets), pi's body as the case holds it
   * (redacted with the case's own stand-ins, so the two bodies differ only where the rebuild
   * does), and a note.
   */
  function save(snap, piBody, mine, why) {
    const stamp = new Date(snap.now).toISOString().replace(/[:.]/g, "-");
    const where = path.join(state.dir, `${stamp}-${snap.sessionId.slice(0, 8) || "session"}-request-${snap.number}`);
    fs.mkdirSync(where, { recursive: true, mode: 0o700 });
    const exportSnap = { ...snap, flags: keyless(snap.flags) };
    const zip = path.join(where, "case.zip");
    const sent = files.write("pi-body.json", piBody);
    const exported = run(cliArgs(exportSnap, files, "export", ["-o", zip, "--redact", "--sent", sent]));
    files.clear("pi-body.json");
    if (exported.code !== 0 || !fs.existsSync(zip)) throw new Error(lastLine(exported.stderr) || "export failed");
    const { body, piSent } = fromCase(zip, files, run);
    if (piSent === null) throw new Error("the case holds no expected/request-1.json");
    fs.writeFileSync(path.join(where, "pi-body.json"), piSent, { mode: 0o600 });
    if (body !== null) fs.writeFileSync(path.join(where, "ctxlens-body.json"), body, { mode: 0o600 });
    fs.writeFileSync(path.join(where, "README.txt"), note(snap, body !== null, mine ? null : why));
    return where;
  }

  /** `cache_warming_decision` said "warm": the next request is a cache refresh; a turn starting says it is not. */
  const refreshDue = (due) => {
    state.refreshDue = due;
  };

  return { state, onRequest, wrapFetch, flush, refreshDue };
}

/**
 * The saved case's body as `ctxlens assemble --case` rebuilds it (null when it builds none), the
 * case unpacked into the scratch folder, and pi's body as the case holds it (redacted).
 */
function fromCase(zip, files, run) {
  const entries = readStoredZip(fs.readFileSync(zip));
  files.clear("case");
  for (const [name, bytes] of Object.entries(entries)) files.write(`case/${name}`, bytes);
  const r = entries["case.json"] ? run(["assemble", "--case", files.path("case")]) : { code: 1 };
  files.clear("case");
  const sent = entries["expected/request-1.json"];
  return { body: r.code === 0 ? r.stdoutBytes : null, piSent: sent ? Buffer.from(sent) : null };
}

/** The protocol whose requests the AWS SDK sends (not through `fetch`). */
const BEDROCK = "bedrock-converse-stream";

/** pi's copy of the AWS SDK's Bedrock client, by pi's folder (null: none found). */
const sdks = new Map();

function bedrockSdk(piDir) {
  if (!sdks.has(piDir)) {
    let sdk = null;
    // The SDK is pi-ai's dependency: beside pi's package, or in pi-ai's own node_modules.
    const from = [path.join(piDir, "package.json"), path.join(piDir, "node_modules/@earendil-works/pi-ai/package.json")];
    for (const f of from) {
      try {
        sdk = createRequire(f)("@aws-sdk/client-bedrock-runtime");
        break;
      } catch {
        // not there: the next place
      }
    }
    sdks.set(piDir, sdk);
  }
  return sdks.get(piDir);
}

/**
 * The body pi's copy of the AWS SDK makes of a Converse command input (the SDK orders each
 * object's keys by its own schema, leaves `modelId` to the URL and writes bytes as base64): the
 * command is serialized by a client whose HTTP handler keeps the body and sends nothing. Null
 * when pi's SDK is not found.
 */
export async function bedrockBody(payload, piDir) {
  if (!piDir || payload === null || typeof payload !== "object") return null;
  const sdk = bedrockSdk(piDir);
  if (!sdk) return null;
  let body = null;
  const keep = {
    handle: async (request) => {
      body = request.body;
      throw new Error("ctxlens: serialized, not sent");
    },
  };
  const client = new sdk.BedrockRuntimeClient({
    region: "us-east-1",
    credentials: { accessKeyId: "ctxlens", secretAccessKey: "ctxlens" },
    requestHandler: keep,
    maxAttempts: 1,
  });
  try {
    await client.send(new sdk.ConverseStreamCommand(payload));
  } catch {
    // the handler's stop, once the body is kept
  } finally {
    client.destroy();
  }
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return null;
}

/** Whether a fetch goes to the model's origin (any origin when the model has no base URL). */
export function sameOrigin(input, baseUrl) {
  if (!baseUrl) return true;
  try {
    const url = typeof input === "string" || input instanceof URL ? String(input) : input?.url;
    return new URL(url).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

/** pi's body as bytes (decompressed when pi compressed it), or null when this call has no body to compare. */
export function bodyOf(input, init) {
  const method = (init?.method ?? input?.method ?? "GET").toUpperCase();
  const body = init?.body;
  if (method !== "POST" || body === undefined || body === null) return null;
  let bytes;
  if (typeof body === "string") bytes = Buffer.from(body, "utf8");
  else if (body instanceof Uint8Array) bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  else if (body instanceof ArrayBuffer) bytes = Buffer.from(body);
  else return null;
  const encoding = headerOf(init?.headers, "content-encoding");
  if (encoding === "zstd" && typeof zlib.zstdDecompressSync === "function") return zlib.zstdDecompressSync(bytes);
  if (encoding === "gzip") return zlib.gunzipSync(bytes);
  return bytes;
}

function headerOf(headers, name) {
  if (!headers) return null;
  if (typeof headers.get === "function") return headers.get(name);
  if (Array.isArray(headers)) return headers.find(([k]) => k.toLowerCase() === name)?.[1] ?? null;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return null;
}

/** The first byte where two bodies differ. */
export function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

/** `--api-key VALUE` with the value replaced (the prefix pi looks at kept): the case zip never holds it. */
function keyless(flags) {
  const out = [...flags];
  for (let i = 0; i < out.length - 1; i++) {
    if (out[i] === "--api-key") out[i + 1] = out[i + 1].startsWith("sk-ant-oat") ? "sk-ant-oat-redacted" : "redacted-key";
  }
  return out;
}

function lastLine(text) {
  return String(text ?? "").trim().split("\n").pop() ?? "";
}

function note(snap, rebuilt, why) {
  return [
    "A request pi sent that ctxlens did not rebuild byte for byte.",
    "",
    "case.zip           the inputs (session, files, settings, extension tools), redacted:",
    "                   home path, user and host names and keys replaced. Open it in the",
    "                   ctxlens app, or unzip it and run: ctxlens summary --case FOLDER",
    "                   (pi's body is in it too, as expected/request-1.json)",
    "pi-body.json       the body pi sent, redacted with the case's own stand-ins: where it",
    "                   differs from ctxlens-body.json, the rebuild differs from pi",
    rebuilt ? "ctxlens-body.json  the body ctxlens rebuilds from case.zip" : "                   (ctxlens rebuilds no body from case.zip)",
    ...(why ? [`ctxlens built no body here: ${lastLine(why)}`] : []),
    "",
    `pi ${snap.pi?.version ?? "(release unknown)"}, request ${snap.number} of this session, ${new Date(snap.now).toISOString()}`,
    "Nothing was sent anywhere. Look the files over before you share them.",
    "",
  ].join("\n");
}

/** Where mismatches are saved by default: the agent dir's ctxlens/mismatches. */
export function defaultDir(env = process.env) {
  const agent = env.PI_CODING_AGENT_DIR || path.join(os.homedir(), ".pi", "agent");
  return path.join(agent, "ctxlens", "mismatches");
}
