// extract/sources.mjs: where the code ctxlens cites lives in this release (sources.json).
//
// ctxlens cites pi's code by *keys*: `PREFIX/path.js:LINE` in the release the rule was ported
// from, written with that release first when it is not 0.85.1 (`1.6.0/AI/utils/transcript.js:40`).
// PREFIX is CA (pi-coding-agent/dist), AI (pi-ai/dist) or CORE (pi-agent-core/dist); any other
// path is a file of an installed npm package (`openai/client.js`). The keys are collected from the
// string literals of core/src. For each, the line is looked up in this release: the same file, a
// line with the same text (several: the one whose neighbours match best) → `"PREFIX/path.js:N"`;
// else the function that holds the line in the base release, found by its declaration →
// `{"function": "PREFIX/path.js:N", "name": "..."}`; else `null`.

import fs from "node:fs";
import path from "node:path";
import { INSTALLS, NM, PI_VERSION, REPO, fail } from "./lib.mjs";

const BASE = "0.85.1";
const PREFIXES = {
  CA: "@earendil-works/pi-coding-agent/dist",
  AI: "@earendil-works/pi-ai/dist",
  CORE: "@earendil-works/pi-agent-core/dist",
};
export const prefixes = PREFIXES;

const KEY = /"((?:(\d+\.\d+\.\d+)\/)?([A-Za-z@][\w@.\/-]*\.js)):(\d+)"/g;

function collectKeys() {
  const keys = new Map();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".rs")) {
        for (const m of fs.readFileSync(p, "utf8").matchAll(KEY)) {
          const key = `${m[1]}:${m[4]}`;
          keys.set(key, { base: m[2] ?? BASE, file: m[3], line: Number(m[4]) });
        }
      }
    }
  };
  walk(path.join(REPO, "core/src"));
  return new Map([...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function fileIn(nm, rel) {
  const slash = rel.indexOf("/");
  const pre = PREFIXES[rel.slice(0, slash)];
  return pre ? path.join(nm, pre, rel.slice(slash + 1)) : path.join(nm, rel);
}

const linesCache = new Map();
function lines(file) {
  if (!linesCache.has(file)) linesCache.set(file, fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n") : null);
  return linesCache.get(file);
}

const DECL = [
  /^\s*(?:export\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)\s*\(/,
  /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/,
  /^\s*(?:static\s+|async\s+|get\s+|set\s+)*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*\{\s*$/,
];
const KEYWORDS = new Set(["if", "for", "while", "switch", "catch", "return", "function"]);
function declName(line) {
  for (const re of DECL) {
    const m = re.exec(line);
    if (m && !KEYWORDS.has(m[1])) return m[1];
  }
  return null;
}

/** The line of `base` (0-based index `i`) in `target`, by text and neighbours. */
function findLine(base, i, target) {
  const text = base[i].trim();
  if (!text) return null;
  const cands = [];
  target.forEach((l, j) => {
    if (l.trim() === text) cands.push(j);
  });
  if (cands.length === 1) return cands[0];
  if (cands.length === 0) return null;
  const score = (j) => {
    let s = 0;
    for (let d = 1; d <= 6; d++) {
      if (base[i - d] !== undefined && target[j - d] !== undefined && base[i - d].trim() === target[j - d].trim()) s++;
      if (base[i + d] !== undefined && target[j + d] !== undefined && base[i + d].trim() === target[j + d].trim()) s++;
    }
    return s;
  };
  const scored = cands.map((j) => [j, score(j)]).sort((a, b) => b[1] - a[1]);
  return scored[0][1] > 0 && scored[0][1] > scored[1][1] ? scored[0][0] : null;
}

/** The function declaration that holds line `i` of `base`, and its line in `target`. */
function findFunction(base, i, target) {
  for (let k = i; k >= 0; k--) {
    const name = declName(base[k]);
    if (!name) continue;
    const j = target.findIndex((l) => declName(l) === name);
    return j >= 0 ? { line: j, name } : null;
  }
  return null;
}

export function extractSources() {
  const keys = collectKeys();
  const table = {};
  const counts = { line: 0, function: 0, missing: 0 };
  for (const [key, k] of keys) {
    const baseNm = k.base === PI_VERSION ? NM : INSTALLS[k.base];
    if (!baseNm) fail(`sources: ${key} is cited from pi ${k.base}, which is not installed (EXTRACT_INSTALLS)`);
    const base = lines(fileIn(baseNm, k.file));
    if (!base || k.line < 1 || k.line > base.length) fail(`sources: ${key}: no such line in pi ${k.base}`);
    const target = lines(fileIn(NM, k.file));
    const at = (n) => `${k.file}:${n + 1}`;
    if (k.base === PI_VERSION) {
      table[key] = at(k.line - 1);
      counts.line++;
      continue;
    }
    const j = target && findLine(base, k.line - 1, target);
    if (j !== null && j !== undefined) {
      table[key] = at(j);
      counts.line++;
      continue;
    }
    const f = target && findFunction(base, k.line - 1, target);
    if (f) {
      table[key] = { function: at(f.line), name: f.name };
      counts.function++;
    } else {
      table[key] = null;
      counts.missing++;
    }
  }
  return { table, counts };
}
