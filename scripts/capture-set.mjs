// capture-set.mjs VERSION [CASE...]: instantiates the standard case set (tests/case-set/<case>/)
// for pi VERSION into tests/conformance/pi-VERSION/<case>/ and captures each case with the real pi
// of that release (the oracle's capture script, PI_VERSION=VERSION), in dependency order.
//
// A case-set folder is an oracle case (case.json, models.json, session.jsonl?, tools.json?,
// script.json?, agent/, fs/) whose case.json may also say:
//   "releases":      [">=1.6.0", "<1.5.0", "0.85.1", ...]  the releases it applies to (all: absent)
//   "sessionFrom":   "other-case"  the session is the one pi left after capturing that case of
//                                  the same release (its expected/session.after.jsonl)
//   "sessionReplace": [[from, to], ...]  texts replaced in every line of that session (an edited
//                                  stored definition, a changed path)
//   "sessionAppend": [entry, ...]  entries appended to the session; in them "@last" is the id of
//                                  the entry before, "@id:K" a fresh id (the same K, the same id),
//                                  "@ts:K" an ISO time K seconds after the session's last entry
//                                  and "@ms:K" the same in milliseconds
// A template's own session.jsonl may use "@ROOT@" for the oracle's root (/tmp/pi-ctx-demo).
// Without CASE, every case of the set that applies to VERSION. A case where pi sends nothing
// keeps pi's error as expected/pi-error.txt.
//
// Run with any Node (>= 20): node scripts/capture-set.mjs 1.6.0 [CASE...]

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const setDir = path.join(repo, "tests/case-set");
const ROOT = "/tmp/pi-ctx-demo";
const capture = process.env.PI_ORACLE_CAPTURE ?? path.join(repo, "../shared/oracle/capture");
const [version, ...only] = process.argv.slice(2);
if (!version) {
  console.error("usage: node scripts/capture-set.mjs VERSION [CASE...]");
  process.exit(2);
}
const outDir = path.join(repo, "tests/conformance", `pi-${version}`);

const cmp = (a, b) => {
  const pa = a.split(".").map(Number), pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
};
/** Whether `version` satisfies every requirement (">=1.6.0", "<1.5.0", "=0.85.1", "0.85.1"). */
function applies(reqs) {
  if (!reqs) return true;
  return reqs.every((r) => {
    const m = /^(>=|<=|>|<|=)?\s*(\d+\.\d+\.\d+)$/.exec(r.trim());
    if (!m) throw new Error(`bad release requirement ${JSON.stringify(r)}`);
    const c = cmp(version, m[2]);
    return { ">=": c >= 0, "<=": c <= 0, ">": c > 0, "<": c < 0, "=": c === 0 }[m[1] ?? "="];
  });
}

const templates = new Map();
for (const name of fs.readdirSync(setDir).sort()) {
  const f = path.join(setDir, name, "case.json");
  if (fs.existsSync(f)) templates.set(name, JSON.parse(fs.readFileSync(f, "utf8")));
}
const wanted = only.length ? only.map((n) => path.basename(n)) : [...templates.keys()];
for (const n of wanted) if (!templates.has(n)) throw new Error(`no case ${n} in tests/case-set`);

// Dependency order: a case after the case its session comes from.
const order = [];
const seen = new Set();
function visit(name, chain = []) {
  if (seen.has(name)) return;
  if (chain.includes(name)) throw new Error(`sessionFrom cycle: ${[...chain, name].join(" → ")}`);
  const from = templates.get(name).sessionFrom;
  if (from) {
    if (!templates.has(from)) throw new Error(`${name}: sessionFrom ${from} is not in the set`);
    // The upstream case is captured first unless it already is (and was not asked for).
    if (wanted.includes(from) || !fs.existsSync(path.join(outDir, from, "expected/session.after.jsonl"))) visit(from, [...chain, name]);
  }
  seen.add(name);
  order.push(name);
}
for (const n of wanted) if (applies(templates.get(n).releases)) visit(n);

function copyTree(src, dst) {
  fs.mkdirSync(dst, { recursive: true });
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, e.name), d = path.join(dst, e.name);
    if (e.isDirectory()) copyTree(s, d);
    else fs.copyFileSync(s, d);
  }
}

/** The session of a case: its template's (with @ROOT@), or its upstream case's, plus appends. */
function sessionOf(name, t) {
  let lines = [];
  if (t.sessionFrom) {
    const after = path.join(outDir, t.sessionFrom, "expected/session.after.jsonl");
    if (!fs.existsSync(after)) throw new Error(`${name}: ${t.sessionFrom} left no session (captured?)`);
    lines = fs.readFileSync(after, "utf8").split("\n").filter((l) => l.trim());
  } else if (fs.existsSync(path.join(setDir, name, "session.jsonl"))) {
    lines = fs.readFileSync(path.join(setDir, name, "session.jsonl"), "utf8").replaceAll("@ROOT@", ROOT).split("\n").filter((l) => l.trim());
  }
  for (const [from, to] of t.sessionReplace ?? []) {
    if (!lines.some((l) => l.includes(from))) throw new Error(`${name}: sessionReplace ${JSON.stringify(from)} is not in the session`);
    lines = lines.map((l) => l.replaceAll(from, to));
  }
  if (t.sessionAppend?.length) {
    const entries = lines.map((l) => JSON.parse(l));
    const last = entries.at(-1);
    const base = Date.parse(last?.timestamp ?? "2026-01-01T00:00:00.000Z");
    const ids = new Map();
    let n = 0;
    const fresh = (k) => {
      if (!ids.has(k)) ids.set(k, `c5${String(++n).padStart(6, "0")}`);
      return ids.get(k);
    };
    let prev = last?.type === "session" ? null : last?.id ?? null;
    const fill = (v, self) => {
      if (typeof v === "string") {
        if (v === "@last") return prev;
        let m;
        if ((m = /^@id:(\w+)$/.exec(v))) return fresh(m[1]);
        if ((m = /^@ts:(\d+(?:\.\d+)?)$/.exec(v))) return new Date(base + Number(m[1]) * 1000).toISOString();
        if ((m = /^@ms:(\d+(?:\.\d+)?)$/.exec(v))) return base + Number(m[1]) * 1000;
        return v.replaceAll("@ROOT@", ROOT);
      }
      if (Array.isArray(v)) return v.map((x) => fill(x, self));
      if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, self)]));
      return v;
    };
    for (const e of t.sessionAppend) {
      const filled = fill(e);
      lines.push(JSON.stringify(filled));
      if (filled.id) prev = filled.id;
    }
  }
  return lines.length ? lines.join("\n") + "\n" : null;
}

let failed = 0;
for (const name of order) {
  const t = templates.get(name);
  const dir = path.join(outDir, name);
  fs.rmSync(dir, { recursive: true, force: true });
  copyTree(path.join(setDir, name), dir);
  const session = sessionOf(name, t);
  if (session !== null) fs.writeFileSync(path.join(dir, "session.jsonl"), session);
  console.error(`== pi-${version}/${name}`);
  try {
    execFileSync("flock", ["/tmp/pi-capture.lock", capture, dir, path.join(dir, "expected")], {
      env: { ...process.env, PI_VERSION: version },
      stdio: ["ignore", "inherit", "inherit"],
    });
  } catch {
    const err = path.join(dir, "expected/pi.stderr");
    if (fs.existsSync(err) && fs.statSync(err).size > 0 && !fs.existsSync(path.join(dir, "expected/request-1.json"))) {
      fs.renameSync(err, path.join(dir, "expected/pi-error.txt"));
    } else {
      console.error(`capture of ${name} failed`);
      failed++;
    }
  }
  for (const f of ["pi.stdout", "pi.stderr"]) fs.rmSync(path.join(dir, "expected", f), { force: true });
}
console.error(`captured ${order.length - failed} of ${order.length} cases for pi ${version}`);
process.exit(failed ? 1 : 0);
