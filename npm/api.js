// The JS API of the `ctxlens` package, over the raw wasm exports (wasm/src/lib.rs). Shared by
// the entry points: index.js (Node), web.js (browsers), bundler.js. Turns the options object
// into what the wasm takes (JSON text, the session string, one byte buffer of files) and the
// result back into plain objects. Misuse of the API throws an Error here, before the wasm runs.
import { hostVocabularies } from "./tokens.js";

export const protocols = Object.freeze([
  "openai-completions",
  "anthropic-messages",
  "openai-responses",
  "azure-openai-responses",
  "openai-codex-responses",
  "google-generative-ai",
  "bedrock-converse-stream",
  "mistral-conversations",
  "pi-messages",
]);

/** The pi releases ctxlens rebuilds, oldest first. */
export const piVersions = Object.freeze(["0.85.1", "0.86.1", "0.87.0", "0.87.1", "1.3.0", "1.4.0", "1.5.0", "1.5.2", "1.6.0"]);
/** The newest: what a call rebuilds when nothing (option, capture, session) says otherwise. */
export const piVersion = piVersions[piVersions.length - 1];

const STRING_OPTIONS = ["sessionPath", "home", "agentDir", "cwd", "piPackageDir", "model", "thinking", "sessionId", "userAgent"];
// What-if options (every entry point): `without` (the CLI's --without specs), `set` (--set
// KEY=VALUE specs), `rebuildCalls` (how many of the session's calls with usage are rebuilt with
// the change for the whole-session totals: a number or "all").
const WHATIF_OPTIONS = ["without", "set", "rebuildCalls"];
const ASSEMBLE_OPTIONS = new Set([...STRING_OPTIONS, "session", "files", "models", "tools", "args", "env", "placeholderKey", "prompt", "call", "now", "systemNow", "api", "compareWith", "piVersion", "tokens", "stats", ...WHATIF_OPTIONS]);
// A workspace's `assemble(overrides)`: these are made inside the workspace (its inputs read
// once); any other option assembles the workspace's options with the overrides from scratch.
const WORKSPACE_OVERRIDES = new Set(["model", "thinking", "placeholderKey", "prompt", "call", "now", "systemNow", "api", "compareWith", "piVersion", "tokens", "stats", ...WHATIF_OPTIONS]);
const CASE_OPTIONS = new Set(["now", "api", "envDir", "compareWith", "piVersion", "call", "placeholderKey", "tokens", "stats", ...WHATIF_OPTIONS]);
const SESSION_OPTIONS = new Set(["path", "piVersion"]);
const MACHINE_OPTIONS = new Set(["prompt", "call", "model", "thinking", "toolSet", "piVersion", "piDir", "now", "api", "compareWith", "args", "env", "cwd", "tokens", ...WHATIF_OPTIONS]);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

class CtxlensError extends Error {}
export { CtxlensError };
Object.defineProperty(CtxlensError.prototype, "name", { value: "CtxlensError" });

function fail(fn, message) {
  throw new CtxlensError(`ctxlens.${fn}: ${message}`);
}

function typeName(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function isPlainObject(v) {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function checkOptions(fn, options, allowed, required) {
  if (options === undefined && !required) return {};
  if (!isPlainObject(options)) fail(fn, `options must be an object, got ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) fail(fn, `unknown option \`${key}\` (known: ${[...allowed].join(", ")})`);
  }
  return options;
}

function optString(fn, o, key) {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") fail(fn, `\`${key}\` must be a string, got ${typeName(v)}`);
  return v;
}

function optNow(fn, o) {
  const v = o.now;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) fail(fn, `\`now\` must be a finite number of milliseconds, got ${typeName(v)}`);
  return v;
}

function optPi(fn, o) {
  const v = optString(fn, o, "piVersion");
  if (v !== undefined && !piVersions.includes(v)) fail(fn, `\`piVersion\` must be one of ${piVersions.join(", ")}; got ${JSON.stringify(v)}`);
  return v;
}

/** `call`: a 1-based call index (a number), an assistant entry id, or "next" (strings). */
function optCall(fn, o) {
  const v = o.call;
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 1) return v;
  if (typeof v === "string" && v !== "") return v;
  fail(fn, `\`call\` must be a call's number (1, 2, ...), an assistant entry id or "next", got ${typeof v === "number" ? v : typeName(v)}`);
}

function optApi(fn, o, key = "api") {
  const v = optString(fn, o, key);
  if (v !== undefined && !protocols.includes(v)) fail(fn, `\`${key}\` must be one of ${protocols.join(", ")}; got ${JSON.stringify(v)}`);
  return v;
}

/**
 * `compareWith`: a protocol (`"openai-responses"` or `{api}`: `result.comparison`) or a release
 * (`{piVersion}`: `result.upgrade`, what upgrading pi does to the request). Returns `{api}` or
 * `{piVersion}`, or undefined.
 */
function optCompare(fn, o) {
  const v = o.compareWith;
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return { api: optApi(fn, o, "compareWith") };
  if (!isPlainObject(v)) fail(fn, `\`compareWith\` must be a protocol, {api} or {piVersion}, got ${typeName(v)}`);
  const keys = Object.keys(v).filter((k) => v[k] !== undefined);
  if (keys.length !== 1 || !["api", "piVersion"].includes(keys[0])) fail(fn, "`compareWith` must be {api: PROTOCOL} or {piVersion: VERSION}, one of them");
  if (keys[0] === "api") {
    if (!protocols.includes(v.api)) fail(fn, `\`compareWith.api\` must be one of ${protocols.join(", ")}; got ${JSON.stringify(v.api)}`);
    return { api: v.api };
  }
  if (!piVersions.includes(v.piVersion)) fail(fn, `\`compareWith.piVersion\` must be one of ${piVersions.join(", ")}; got ${JSON.stringify(v.piVersion)}`);
  return { piVersion: v.piVersion };
}

function compareJson(json, c) {
  if (c?.api !== undefined) json.compareWith = c.api;
  if (c?.piVersion !== undefined) json.compareWithPi = c.piVersion;
}

/** `stats: false` (the request without the accounting), checked: it leaves nothing for tokens,
 * a comparison or a what-if to measure. */
function optStats(fn, o) {
  const v = o.stats;
  if (v === undefined || v === null || v === true) return {};
  if (v !== false) fail(fn, `\`stats\` must be a boolean, got ${typeName(v)}`);
  for (const k of ["tokens", "compareWith", "without", "set"]) {
    const x = o[k];
    if (x !== undefined && x !== null && x !== false && !(Array.isArray(x) && x.length === 0)) fail(fn, `\`stats: false\` leaves no statistics for \`${k}\``);
  }
  return { noStats: true };
}

/** `without`, `set` (lists of the CLI's specs) and `rebuildCalls` (a number or "all"), checked. */
function optWhatif(fn, o) {
  const out = {};
  for (const key of ["without", "set"]) {
    const v = o[key];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) fail(fn, `\`${key}\` must be a list of strings (${key === "without" ? '"tool:NAME", "skill:NAME", …' : '"model=P/ID", "thinking=LEVEL", …'}), got ${typeName(v)}`);
    if (v.length) out[key] = v;
  }
  const r = o.rebuildCalls;
  if (r !== undefined && r !== null) {
    if (!(r === "all" || (Number.isSafeInteger(r) && r >= 0))) fail(fn, `\`rebuildCalls\` must be a whole number or "all", got ${JSON.stringify(r)}`);
    out.rebuildCalls = r;
  }
  return out;
}

function bytesOf(fn, path, content) {
  if (typeof content === "string") return encoder.encode(content);
  if (content instanceof Uint8Array) return content;
  if (content instanceof ArrayBuffer) return new Uint8Array(content);
  if (ArrayBuffer.isView(content)) return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  fail(fn, `file ${JSON.stringify(path)} must be a string, Uint8Array or ArrayBuffer, got ${typeName(content)}`);
}

/** Files → `[[path, byteLength], ...]` and one buffer holding them all, in that order. */
function packFiles(fn, files, absolute) {
  if (files === undefined || files === null) return { list: [], blob: new Uint8Array(0) };
  let entries;
  if (files instanceof Map) entries = [...files.entries()];
  else if (isPlainObject(files)) entries = Object.entries(files);
  else fail(fn, `files must be an object or a Map of path → content, got ${typeName(files)}`);
  const list = [];
  const parts = [];
  let total = 0;
  for (const [path, content] of entries) {
    if (typeof path !== "string" || path === "") fail(fn, `file paths must be non-empty strings`);
    if (absolute && !path.startsWith("/")) fail(fn, `file paths must be absolute POSIX paths; got ${JSON.stringify(path)}`);
    const bytes = bytesOf(fn, path, content);
    list.push([path, bytes.byteLength]);
    parts.push(bytes);
    total += bytes.byteLength;
  }
  const blob = parts.length === 1 ? parts[0] : new Uint8Array(total);
  if (parts.length !== 1) {
    let at = 0;
    for (const p of parts) {
      blob.set(p, at);
      at += p.byteLength;
    }
  }
  return { list, blob };
}

function textOf(fn, key, v) {
  if (typeof v === "string") return v;
  if (v instanceof Uint8Array) return decoder.decode(v);
  fail(fn, `\`${key}\` must be a string or Uint8Array, got ${typeName(v)}`);
}

const byteLength = typeof Buffer === "function" && typeof Buffer.byteLength === "function" ? (s) => Buffer.byteLength(s, "utf8") : null;

/**
 * Writes the session's UTF-8 bytes into a wasm buffer of exactly their size (`textBuffer`), which
 * the next `assembleRaw` parses in place: no second copy inside the wasm, and no buffer sized for
 * the worst case (3 bytes per UTF-16 unit), which the wasm memory would never give back. Where the
 * byte length is cheap to know (Node's `Buffer.byteLength`) the text is encoded straight into the
 * wasm memory; elsewhere it is encoded once and copied in.
 */
function sessionInto(raw, session) {
  if (typeof session === "string" && byteLength !== null) {
    const n = byteLength(session);
    const ptr = raw.textBuffer(n);
    const { read, written } = encoder.encodeInto(session, new Uint8Array(raw.wasmMemory().buffer, ptr, n));
    if (read === session.length && written === n) return;
    // Never expected (both count unpaired surrogates as U+FFFD's 3 bytes); the slow way is exact.
  }
  const bytes = typeof session === "string" ? encoder.encode(session) : session;
  const ptr = raw.textBuffer(bytes.byteLength);
  new Uint8Array(raw.wasmMemory().buffer, ptr, bytes.byteLength).set(bytes);
}

/** Calls the wasm; its errors (misuse the wasm itself caught) are rethrown with the function's name. */
function call(fn, f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof CtxlensError) throw e;
    if (typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError) {
      throw new Error(`ctxlens.${fn}: internal error (a bug in ctxlens, please report it with the inputs): ${e.message}`, { cause: e });
    }
    throw new CtxlensError(`ctxlens.${fn}: ${e && e.message ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * The wasm's metadata JSON and body bytes as the result object. `bodyBytes` are the exact bytes
 * pi would send; `body` is their text, decoded when first read (a large body's decoding is
 * much of the call's cost, and a caller writing the request out needs only the bytes).
 */
function toAssembly(metaJson, bytes) {
  const meta = JSON.parse(metaJson);
  const bodyBytes = bytes ?? null;
  let body = bodyBytes === null ? null : undefined;
  return {
    get body() {
      if (body === undefined) body = decoder.decode(bodyBytes);
      return body;
    },
    bodyBytes,
    method: meta.method,
    url: meta.url,
    headers: meta.headers,
    model: meta.model,
    thinkingLevel: meta.thinkingLevel,
    sessionId: meta.sessionId,
    cwd: meta.cwd,
    pi: meta.pi,
    stages: meta.stages,
    sourcePrefixes: meta.sourcePrefixes,
    stats: meta.stats,
    packages: meta.packages,
    findings: meta.findings,
    diagnostics: meta.diagnostics,
    calls: meta.calls,
    call: meta.call,
    ...(meta.comparison ? { comparison: meta.comparison } : {}),
    ...(meta.upgrade ? { upgrade: meta.upgrade } : {}),
    ...(meta.whatif ? { whatif: meta.whatif } : {}),
    ...(meta.tokens ? { tokens: meta.tokens } : {}),
  };
}

/** The `tokens` option: a boolean (true: count tokens with the model's vocabulary). */
export function optTokens(fn, o) {
  const v = o.tokens;
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") fail(fn, `\`tokens\` must be a boolean, got ${typeName(v)}`);
  return v;
}

export { toAssembly as assemblyOf, call as callWasm };

/**
 * `assembleSession`'s options as the command line they stand for (the CLI's flags, then pi's
 * own), the machine they run on (`env`, `cwd`: undefined for the process's own), and whether
 * tokens are counted.
 */
const USAGE_OPTIONS = new Set(["by", "since", "until", "rebuild", "without", "set", "env", "cwd"]);
const USAGE_GROUPS = ["day", "week", "month", "session", "project", "model", "release"];

/** `usage`'s options as the command line's arguments after `usage PATHS…`. */
export function usageArgv(fn, paths, options) {
  const o = checkOptions(fn, options, USAGE_OPTIONS, false);
  const list = paths === undefined || paths === null ? [] : typeof paths === "string" ? [paths] : paths;
  if (!Array.isArray(list) || !list.every((p) => typeof p === "string" && p !== ""))
    fail(fn, `the paths must be a folder or session file, a list of them, or null (pi's sessions folder), got ${typeName(paths)}`);
  const argv = ["usage", ...list, "--json"];
  if (o.by !== undefined && o.by !== null) {
    if (!USAGE_GROUPS.includes(o.by)) fail(fn, `\`by\` must be one of ${USAGE_GROUPS.join(", ")}, got ${JSON.stringify(o.by)}`);
    argv.push("--by", o.by);
  }
  for (const key of ["since", "until"]) {
    const v = optString(fn, o, key);
    if (v !== undefined) {
      if (!/^\d{4}-?\d{2}-?\d{2}$/.test(v)) fail(fn, `\`${key}\` must be a date, YYYY-MM-DD or YYYYMMDD, got ${JSON.stringify(v)}`);
      argv.push(`--${key}`, v);
    }
  }
  if (o.rebuild !== undefined && typeof o.rebuild !== "boolean") fail(fn, `\`rebuild\` must be a boolean, got ${typeName(o.rebuild)}`);
  if (o.rebuild === false) argv.push("--no-rebuild");
  for (const key of ["without", "set"]) {
    const v = o[key];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) fail(fn, `\`${key}\` must be a list of strings`);
    for (const spec of v) argv.push(`--${key}`, spec);
  }
  let env;
  if (o.env !== undefined && o.env !== null) {
    if (!isPlainObject(o.env)) fail(fn, `\`env\` must be an object of strings, got ${typeName(o.env)}`);
    for (const [k, v] of Object.entries(o.env)) if (typeof v !== "string") fail(fn, `\`env.${k}\` must be a string, got ${typeName(v)}`);
    env = o.env;
  }
  return { argv, env, cwd: optString(fn, o, "cwd") };
}

export function sessionArgv(fn, options) {
  const o = checkOptions(fn, options, MACHINE_OPTIONS, false);
  const argv = [];
  const flag = (name, v) => {
    if (v !== undefined) argv.push(name, v);
  };
  if (o.prompt !== undefined && o.prompt !== null) flag("--prompt", textOf(fn, "prompt", o.prompt));
  if (o.call !== undefined && o.call !== null) {
    const ok = (Number.isInteger(o.call) && o.call >= 1) || (typeof o.call === "string" && o.call !== "");
    if (!ok) fail(fn, `\`call\` must be a call number from 1, an entry id or "next", got ${typeof o.call === "number" ? o.call : typeName(o.call)}`);
    flag("--call", String(o.call));
  }
  flag("--model", optString(fn, o, "model"));
  flag("--thinking", optString(fn, o, "thinking"));
  flag("--tool-set", optString(fn, o, "toolSet"));
  flag("--pi", optPi(fn, o));
  flag("--pi-dir", optString(fn, o, "piDir"));
  const now = optNow(fn, o);
  if (now !== undefined) flag("--now", String(now));
  flag("--api", optApi(fn, o));
  const compare = optCompare(fn, o);
  flag("--with", compare?.api);
  flag("--pi-with", compare?.piVersion);
  const w = optWhatif(fn, o);
  for (const spec of w.without ?? []) flag("--without", spec);
  for (const spec of w.set ?? []) flag("--set", spec);
  if (w.rebuildCalls !== undefined) flag("--rebuild-calls", String(w.rebuildCalls));
  if (o.args !== undefined && o.args !== null) {
    if (!Array.isArray(o.args) || !o.args.every((a) => typeof a === "string")) fail(fn, "`args` must be a list of strings");
    argv.push(...o.args);
  }
  let env;
  if (o.env !== undefined && o.env !== null) {
    if (!isPlainObject(o.env)) fail(fn, `\`env\` must be an object of strings, got ${typeName(o.env)}`);
    for (const [k, v] of Object.entries(o.env)) if (typeof v !== "string") fail(fn, `\`env.${k}\` must be a string, got ${typeName(v)}`);
    env = o.env;
  }
  return { argv, env, cwd: optString(fn, o, "cwd"), tokens: optTokens(fn, o) };
}

/**
 * The API over the raw exports. `ready()` throws when the wasm is not initialized (the web
 * entry before `await init()`).
 */
/**
 * The data files of a release (`data/pi-<version>/`), in the order the wasm takes them, as
 * `{list, blob}`.
 */
export function dataBlob(raw, fileText) {
  const files = {};
  for (const name of raw.dataFilesRaw()) files[name] = fileText(name);
  return packFiles("load", files, false);
}

/**
 * Runs a wasm call that may stop for a release's data (`{"needsData": version}`, once per release
 * it needs): `load(version)` hands the release's files over (synchronously: the Node entry reads them from the package;
 * the web entry has them once `await load(version)` fetched them, else it throws), then the call
 * resumes as it was.
 */
function withData(fn, raw, load, first, tokens) {
  let meta = first();
  // One release at a time: a past call of a session a later pi continued needs the session's
  // release (to find the call) and then the call's own.
  for (let tries = 0; tries < piVersions.length; tries++) {
    const need = meta.startsWith('{"needsData"') ? JSON.parse(meta).needsData : null;
    if (need === null) return meta;
    const { list, blob } = load(fn, need);
    raw.installDataRaw(need, JSON.stringify({ files: list }), blob);
    meta = raw.resumeRaw(tokens);
  }
  throw new CtxlensError(`ctxlens.${fn}: a release's data did not install`);
}

/**
 * `tokens`: how a call with `tokens: true` counts — `host()` is what the wasm counts through
 * (tokens.js `hostVocabularies`: the vocabularies loaded, and in Node the model's loaded on
 * demand; with the module a note tells the user to import `loadVocabulary` from).
 */
export function bind(raw, ready = () => {}, load = (fn, v) => fail(fn, `pi ${v}'s data is not loaded`), tokens = { host: () => hostVocabularies() }) {
  /** `assemble`'s options as the wasm takes them: the JSON, the session, the files' bytes. */
  function assembleInput(fn, o) {
    const json = {};
    for (const key of STRING_OPTIONS) {
      const v = optString(fn, o, key);
      if (v !== undefined) json[key] = v;
    }
    const api = optApi(fn, o);
    if (api !== undefined) json.api = api;
    compareJson(json, optCompare(fn, o));
    const now = optNow(fn, o);
    if (now !== undefined) json.now = now;
    if (o.systemNow !== undefined && o.systemNow !== null) {
      if (typeof o.systemNow !== "number" || !Number.isFinite(o.systemNow)) fail(fn, `\`systemNow\` must be a finite number of milliseconds, got ${typeName(o.systemNow)}`);
      json.systemNow = o.systemNow;
    }
    const pi = optPi(fn, o);
    if (pi !== undefined) json.piVersion = pi;
    Object.assign(json, optWhatif(fn, o), optStats(fn, o));
    if (o.prompt !== undefined && o.prompt !== null) json.prompt = textOf(fn, "prompt", o.prompt);
    const callRef = optCall(fn, o);
    if (callRef !== undefined) json.call = callRef;
    if (o.models !== undefined && o.models !== null) {
      if (typeof o.models === "string") json.models = o.models;
      else if (isPlainObject(o.models)) json.models = JSON.stringify(o.models, null, 2);
      else fail(fn, `\`models\` must be models.json text or an object, got ${typeName(o.models)}`);
    }
    if (o.tools !== undefined && o.tools !== null) {
      if (typeof o.tools === "string") json.tools = o.tools;
      else if (Array.isArray(o.tools) || isPlainObject(o.tools)) json.tools = JSON.stringify(o.tools);
      else fail(fn, `\`tools\` must be a tool set (JSON text, a list of tools, or a request body with tools), got ${typeName(o.tools)}`);
    }
    if (o.args !== undefined && o.args !== null) {
      if (!Array.isArray(o.args) || !o.args.every((a) => typeof a === "string")) fail(fn, "`args` must be a list of strings");
      json.args = o.args;
    }
    if (o.placeholderKey !== undefined && o.placeholderKey !== null) {
      if (typeof o.placeholderKey !== "boolean") fail(fn, `\`placeholderKey\` must be a boolean, got ${typeName(o.placeholderKey)}`);
      json.placeholderKey = o.placeholderKey;
    }
    if (o.env !== undefined && o.env !== null) {
      if (!isPlainObject(o.env)) fail(fn, `\`env\` must be an object of strings, got ${typeName(o.env)}`);
      for (const [k, v] of Object.entries(o.env)) if (typeof v !== "string") fail(fn, `\`env.${k}\` must be a string, got ${typeName(v)}`);
      json.env = o.env;
    }
    const counter = optTokens(fn, o) ? tokens.host() : undefined;
    const session = o.session === undefined || o.session === null ? undefined : o.session;
    if (session !== undefined && typeof session !== "string" && !(session instanceof Uint8Array)) fail(fn, `\`session\` must be a string or Uint8Array, got ${typeName(session)}`);
    const { list, blob } = packFiles(fn, o.files, true);
    json.files = list;
    return { json, session, blob, counter };
  }

  function assemble(options) {
    const fn = "assemble";
    const o = checkOptions(fn, options, ASSEMBLE_OPTIONS, true);
    const { json, session, blob, counter } = assembleInput(fn, o);
    ready(fn);
    return call(fn, () => {
      if (session !== undefined) sessionInto(raw, session);
      const meta = withData(fn, raw, load, () => raw.assembleRaw(JSON.stringify(json), session !== undefined, blob, counter), counter);
      return toAssembly(meta, raw.takeBody());
    });
  }

  function assembleCase(files, options) {
    const fn = "assembleCase";
    const o = checkOptions(fn, options, CASE_OPTIONS, false);
    const json = {};
    const api = optApi(fn, o);
    if (api !== undefined) json.api = api;
    compareJson(json, optCompare(fn, o));
    const now = optNow(fn, o);
    if (now !== undefined) json.now = now;
    const envDir = optString(fn, o, "envDir");
    if (envDir !== undefined) json.envDir = envDir;
    if (o.placeholderKey !== undefined && o.placeholderKey !== null) {
      if (typeof o.placeholderKey !== "boolean") fail(fn, `\`placeholderKey\` must be a boolean, got ${typeName(o.placeholderKey)}`);
      json.placeholderKey = o.placeholderKey;
    }
    const callRef = optCall(fn, o);
    if (callRef !== undefined) json.call = callRef;
    const pi = optPi(fn, o);
    if (pi !== undefined) json.piVersion = pi;
    Object.assign(json, optWhatif(fn, o), optStats(fn, o));
    const counter = optTokens(fn, o) ? tokens.host() : undefined;
    if (files === undefined || files === null) fail(fn, "files are required: the case folder's files by relative path");
    const { list, blob } = packFiles(fn, files, false);
    json.files = list;
    ready(fn);
    return call(fn, () => {
      const meta = withData(fn, raw, load, () => raw.assembleCaseRaw(JSON.stringify(json), blob, counter), counter);
      return toAssembly(meta, raw.takeBody());
    });
  }

  function parseSession(text, options) {
    const fn = "parseSession";
    const o = checkOptions(fn, options, SESSION_OPTIONS, false);
    const json = {};
    const path = optString(fn, o, "path");
    if (path !== undefined) json.path = path;
    const pi = optPi(fn, o);
    if (pi !== undefined) json.piVersion = pi;
    const t = textOf(fn, "text", text);
    ready(fn);
    return JSON.parse(call(fn, () => withData(fn, raw, load, () => raw.parseSessionRaw(JSON.stringify(json), t))));
  }

  /**
   * A workspace: `options` (those of `assemble`) read into the wasm once — the session text, the
   * files, models.json, the tool set —, then `ws.assemble(overrides)` rebuilds with any of
   * `assemble`'s options changed and returns what `assemble({...options, ...overrides})`
   * returns. The model, thinking level, prompt, call, time, protocol, release, comparison,
   * tokens and what-if (`without`, `set`, `rebuildCalls`) are changed inside the workspace, and
   * a result asked for again without tokens is the one kept (the workspace keeps the last nine);
   * any other option is assembled from scratch. `ws.free()` lets the wasm's copy go.
   */
  function createWorkspace(options) {
    const fn = "createWorkspace";
    const o = checkOptions(fn, options, ASSEMBLE_OPTIONS, true);
    const { json, session, blob } = assembleInput(fn, o);
    ready(fn);
    const handle = call(fn, () => {
      if (session !== undefined) sessionInto(raw, session);
      return raw.workspaceRaw(JSON.stringify(json), session !== undefined, blob);
    });
    let freed = false;
    return {
      assemble(overrides) {
        const fn = "workspace.assemble";
        if (freed) fail(fn, "this workspace was freed (`ws.free()`)");
        const ov = checkOptions(fn, overrides, ASSEMBLE_OPTIONS, false);
        const keys = Object.keys(ov).filter((k) => ov[k] !== undefined);
        if (!keys.every((k) => WORKSPACE_OVERRIDES.has(k))) return assemble({ ...o, ...ov });
        const merged = { ...o, ...ov };
        const j = {};
        for (const key of ["model", "thinking"]) {
          const v = optString(fn, merged, key);
          if (v !== undefined) j[key] = v;
        }
        const api = optApi(fn, merged);
        if (api !== undefined) j.api = api;
        compareJson(j, optCompare(fn, merged));
        const now = optNow(fn, merged);
        if (now !== undefined) j.now = now;
        if (merged.systemNow !== undefined && merged.systemNow !== null) {
          if (typeof merged.systemNow !== "number" || !Number.isFinite(merged.systemNow)) fail(fn, `\`systemNow\` must be a finite number of milliseconds, got ${typeName(merged.systemNow)}`);
          j.systemNow = merged.systemNow;
        }
        const pi = optPi(fn, merged);
        if (pi !== undefined) j.piVersion = pi;
        Object.assign(j, optWhatif(fn, merged), optStats(fn, merged));
        if (merged.prompt !== undefined && merged.prompt !== null) j.prompt = textOf(fn, "prompt", merged.prompt);
        const callRef = optCall(fn, merged);
        if (callRef !== undefined) j.call = callRef;
        if (merged.placeholderKey !== undefined && merged.placeholderKey !== null) {
          if (typeof merged.placeholderKey !== "boolean") fail(fn, `\`placeholderKey\` must be a boolean, got ${typeName(merged.placeholderKey)}`);
          j.placeholderKey = merged.placeholderKey;
        }
        const counter = optTokens(fn, merged) ? tokens.host() : undefined;
        return call(fn, () => {
          const meta = withData(fn, raw, load, () => raw.workspaceAssembleRaw(handle, JSON.stringify(j), counter), counter);
          return toAssembly(meta, raw.takeBody());
        });
      },
      free() {
        if (!freed) raw.workspaceFreeRaw(handle);
        freed = true;
      },
    };
  }

  return { assemble, assembleCase, parseSession, createWorkspace };
}
