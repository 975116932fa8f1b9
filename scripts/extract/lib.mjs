// extract/lib.mjs: what every part of the extraction shares: the run's settings (from the
// environment extract-pi-data.sh sets), pi's package folders, and precise access to pi's dist JS
// (regexes that must match, string literals evaluated exactly, sentinel splitting).

import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";

export const NM = need(process.env.EXTRACT_NODE_MODULES, "EXTRACT_NODE_MODULES");
export const OUT = need(process.env.EXTRACT_OUT_DIR, "EXTRACT_OUT_DIR");
export const PI_VERSION = need(process.env.EXTRACT_PI_VERSION, "EXTRACT_PI_VERSION");
export const TMP = need(process.env.EXTRACT_TMP, "EXTRACT_TMP");
export const CHECK_BODY = process.env.CHECK_BODY || "";
/** Where other releases are installed: `{"0.85.1": "/opt/pi-oracle/node_modules", ...}`. */
export const INSTALLS = JSON.parse(process.env.EXTRACT_INSTALLS || "{}");
export const REPO = need(process.env.EXTRACT_REPO, "EXTRACT_REPO");
// pi reads PI_* variables (PI_EXPERIMENTAL, PI_PACKAGE_DIR, ...): start from none of them.
for (const k of Object.keys(process.env)) if (k.startsWith("PI_")) delete process.env[k];

export const CA = path.join(NM, "@earendil-works/pi-coding-agent/dist");
export const AI = path.join(NM, "@earendil-works/pi-ai/dist");
export const CORE = path.join(NM, "@earendil-works/pi-agent-core/dist");
export const imp = (file) => import(new URL(`file://${file}`).href);

export function need(v, name) {
  if (!v) throw new Error(`missing environment variable ${name}`);
  return v;
}
export function fail(msg) {
  throw new Error(`extract-pi-data: ${msg}`);
}
export function assert(cond, msg) {
  if (!cond) fail(`assertion failed: ${msg}`);
}
export function assertEq(actual, expected, msg) {
  if (actual !== expected) {
    fail(`${msg}\n  expected: ${JSON.stringify(expected)}\n  actual:   ${JSON.stringify(actual)}`);
  }
}
export const J = (v) => JSON.stringify(v);
export const pretty = (v) => JSON.stringify(v, null, 2) + "\n";
export const pkgVersion = (nm, pkg) => JSON.parse(fs.readFileSync(path.join(nm, pkg, "package.json"), "utf8")).version;

// ---------------------------------------------------------------------------------------------
// Source access: precise regexes on dist JS, each required to match.
// ---------------------------------------------------------------------------------------------
const srcCache = new Map();
export function src(file) {
  if (!srcCache.has(file)) srcCache.set(file, fs.readFileSync(file, "utf8"));
  return srcCache.get(file);
}
export const STRING_LIT = /^("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\[\s\S]|\$(?!\{))*`)$/;
/** Evaluate one JS string literal (no interpolation) taken from source. */
export function evalLiteral(lit) {
  if (!STRING_LIT.test(lit)) fail(`not a plain JS string literal: ${lit}`);
  return vm.runInNewContext(lit);
}
/** Evaluate a template literal whose ${...} parts are replaced by {name} placeholders. */
export function evalTemplate(lit, placeholders) {
  assert(lit.startsWith("`") && lit.endsWith("`"), `template literal expected: ${lit}`);
  const parts = [];
  let rest = lit.slice(1, -1);
  const names = [];
  const used = new Set();
  for (;;) {
    const i = rest.indexOf("${");
    if (i < 0) break;
    let depth = 0;
    let j = i + 2;
    for (; j < rest.length; j++) {
      if (rest[j] === "{") depth++;
      else if (rest[j] === "}") {
        if (depth === 0) break;
        depth--;
      }
    }
    const expr = rest.slice(i + 2, j);
    if (!(expr in placeholders)) fail(`no placeholder given for \${${expr}} in ${lit}`);
    parts.push(rest.slice(0, i));
    names.push(placeholders[expr]);
    used.add(expr);
    rest = rest.slice(j + 1);
  }
  parts.push(rest);
  // Every placeholder is used (a placeholder may occur more than once: `<${name}>…</${name}>`).
  assertEq(used.size, Object.keys(placeholders).length, `placeholder count in ${lit}`);
  const texts = parts.map((p) => evalLiteral("`" + p + "`"));
  let out = texts[0];
  for (let k = 0; k < names.length; k++) out += `{${names[k]}}` + texts[k + 1];
  return { text: out, parts: texts, names };
}
/** All matches of a global regex in a file; at least `min`. */
export function matchAll(file, re, min = 1) {
  assert(re.global, `regex must be global: ${re}`);
  const ms = [...src(file).matchAll(re)];
  if (ms.length < min) fail(`${path.relative(NM, file)}: expected >= ${min} match(es) of ${re}, found ${ms.length}`);
  return ms;
}
/** Exactly one match (or several identical ones) of a regex; returns the evaluated capture groups. */
export function lits(file, re, { count } = {}) {
  const ms = matchAll(file, new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g"));
  if (count !== undefined && ms.length !== count) {
    fail(`${path.relative(NM, file)}: expected ${count} match(es) of ${re}, found ${ms.length}`);
  }
  const vals = ms.map((m) => m.slice(1).map(evalLiteral));
  for (const v of vals) assertEq(J(v), J(vals[0]), `all matches of ${re} must be equal`);
  return vals[0];
}
export const lit = (file, re, opts) => {
  const v = lits(file, re, opts);
  assertEq(v.length, 1, `one capture group expected in ${re}`);
  return v[0];
};

// ---------------------------------------------------------------------------------------------
// Sentinel splitting helpers
// ---------------------------------------------------------------------------------------------
/** Split `text` on the given sentinels, which must occur once each, in this order. */
export function splitOn(text, sentinels, what) {
  const pieces = [];
  let rest = text;
  for (const s of sentinels) {
    const i = rest.indexOf(s);
    if (i < 0) fail(`${what}: sentinel ${J(s)} not found in ${J(rest)}`);
    pieces.push(rest.slice(0, i));
    rest = rest.slice(i + s.length);
    if (rest.includes(s)) fail(`${what}: sentinel ${J(s)} occurs more than once`);
  }
  pieces.push(rest);
  return pieces;
}
export function lcp(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}
export function lcs(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
  return a.slice(a.length - i);
}
export function stripSuffix(s, suffix, what) {
  assert(s.endsWith(suffix), `${what}: ${J(s)} should end with ${J(suffix)}`);
  return s.slice(0, s.length - suffix.length);
}
export function stripPrefix(s, prefix, what) {
  assert(s.startsWith(prefix), `${what}: ${J(s)} should start with ${J(prefix)}`);
  return s.slice(prefix.length);
}


// The env vars that give a built-in provider an API key (`getApiKeyEnvVars`, AI/env-api-keys.js):
// every name `findEnvKeys(provider, env)` reads, in its order (the first set one wins), recorded
// through an env object that answers nothing. Providers without a list are left out. `aiAll` is
// the release's AI/providers/all.js; the note on the data goes to `notes`.
export async function apiKeyEnvVars(aiAll, notes) {
  const ENV_KEYS = await imp(`${AI}/env-api-keys.js`);
  const ids = [...new Set([...aiAll.getBuiltinProviders(), ...aiAll.builtinProviders().map((p) => p.id)])];
  const out = {};
  for (const id of ids) {
    const read = [];
    const env = new Proxy({}, { get: (_, name) => { if (typeof name === "string") read.push(name); return undefined; } });
    ENV_KEYS.findEnvKeys(id, env);
    if (read.length > 0) out[id] = read;
  }
  assert(Object.keys(out).length >= 30, "apiKeyEnvVars for the built-in providers");
  assertEq(J(out.anthropic), J(["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]), "anthropic env vars");
  notes.push(
    "defaults.json apiKeyEnvVars: per built-in provider, the env vars getApiKeyEnvVars lists (AI/env-api-keys.js), in the order findEnvKeys reads them; any of them set (non-empty) configures the provider, and the first set one is its key (anthropic skips ANTHROPIC_AUTH_TOKEN, which is a Bearer token). Bedrock's AWS credentials, Vertex's ADC and Anthropic's workload identity federation are rules of their own.",
  );
  return out;
}
