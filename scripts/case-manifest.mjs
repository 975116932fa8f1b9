#!/usr/bin/env node
// case-manifest.mjs DIR: prints the case manifest of a case folder — the JSON listing of its
// files that <ctxlens-view case="DIR/ctxlens-case.json"> and the app's `?case=` read:
//   {"ctxlens": "case", "files": ["case.json", "expected/env.json", ...]}
// Paths are relative to the manifest (put it in the case folder). Dot-files and the manifest
// itself are left out.
import fs from "node:fs";
import path from "node:path";

const NAME = "ctxlens-case.json";
const dir = process.argv[2];
if (!dir || !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
  console.error("usage: node scripts/case-manifest.mjs CASE_DIR > CASE_DIR/ctxlens-case.json");
  process.exit(2);
}
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith(".")) continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.isFile() && !(d === dir && e.name === NAME)) files.push(path.relative(dir, p).split(path.sep).join("/"));
  }
})(dir);
process.stdout.write(JSON.stringify({ ctxlens: "case", files }, null, 1) + "\n");
