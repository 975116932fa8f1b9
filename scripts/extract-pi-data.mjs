// extract-pi-data.mjs: run by extract-pi-data.sh with pi's Node 22 binary.
//
// Writes into $EXTRACT_OUT_DIR one release's data folder: tools.json, prompt.json, strings.json,
// defaults.json, models.json (pi's literal facts, each taken from pi itself and checked against
// pi's own output: extract/pi-<family>.mjs), sdks.json (the SDK versions its requests name:
// extract/sdks.mjs), sources.json (where the code ctxlens cites lives in this release:
// extract/sources.mjs) and manifest.json (package versions, hashes of the other files, notes).
// Anything not found or not matching aborts the run with a non-zero exit.

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { CA, OUT, PI_VERSION, assertEq, J, pretty } from "./extract/lib.mjs";
import { extractSdks } from "./extract/sdks.mjs";
import { extractSources, prefixes } from "./extract/sources.mjs";

// The family of a release: how its system prompt is built. 0.85.x build it as one text; later
// releases store it in the session as named sections.
const sectioned = /export function buildSystemPromptSections\b/.test(fs.readFileSync(`${CA}/core/system-prompt.js`, "utf8"));
const family = sectioned ? "pi-1.6.mjs" : "pi-0.85.mjs";
const part = await import(`./extract/${family}`);
const sdks = extractSdks();
const sources = extractSources();
console.error(`sources.json: ${J(sources.counts)}`);

fs.mkdirSync(OUT, { recursive: true });
const files = {
  ...Object.fromEntries(Object.entries(part.files).map(([n, v]) => [n, pretty(v)])),
  "models.json": "[\n" + part.models.map((m) => JSON.stringify(m)).join(",\n") + "\n]\n",
  "sdks.json": pretty(sdks),
  "sources.json": pretty(sources.table),
};
for (const [name, text] of Object.entries(files)) {
  assertEq(J(JSON.parse(text)), J(JSON.parse(J(JSON.parse(text)))), `${name} round-trips`);
  fs.writeFileSync(path.join(OUT, name), text);
}
const sha256 = (name) => crypto.createHash("sha256").update(fs.readFileSync(path.join(OUT, name))).digest("hex");
const manifest = {
  piVersion: PI_VERSION,
  packages: part.packages,
  extractedWith: family,
  extractedWithNode: process.version,
  modelCatalogGeneratedAt: part.catalogManifest.generatedAt ?? null,
  modelCatalogStructureHash: part.catalogManifest.structureHash ?? null,
  modelCount: part.models.length,
  providerCount: new Set(part.models.map((m) => m.provider)).size,
  providers: [...new Set(part.models.map((m) => m.provider))],
  sourcePrefixes: prefixes,
  sources: sources.counts,
  notes: part.notes,
  files: Object.fromEntries(Object.keys(files).map((n) => [n, { sha256: sha256(n), bytes: fs.statSync(path.join(OUT, n)).size }])),
};
fs.writeFileSync(path.join(OUT, "manifest.json"), pretty(manifest));
console.error(`wrote ${[...Object.keys(files), "manifest.json"].join(", ")} to ${OUT}`);
