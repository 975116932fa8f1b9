// add-pi-release.mjs VERSION DATE: adds pi VERSION (published DATE, YYYY-MM-DD) to the version
// seam, in release order: the `PiVersion` variant (pi/src/version.rs: the enum, `ALL`,
// `as_str`, `released`), its data folder in the embedded list (pi/src/data.rs), npm's
// `piVersions` (npm/api.js) and a version-table entry (pi/src/rules.rs) equal to the nearest
// supported release's, newer first (`const R_X: Rules = R_Y;`), for the conformance run to
// correct. A release already in `PiVersion` is left as it is. Run by scripts/add-pi-release.sh.
import fs from "node:fs";
import path from "node:path";

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const [version, date] = process.argv.slice(2);
if (!/^\d+\.\d+\.\d+$/.test(version ?? "") || !/^\d{4}-\d{2}-\d{2}$/.test(date ?? "")) {
  console.error("usage: node scripts/add-pi-release.mjs VERSION YYYY-MM-DD");
  process.exit(2);
}
const file = (p) => path.join(repo, p);
const read = (p) => fs.readFileSync(file(p), "utf8");
const ident = (v) => "V" + v.replaceAll(".", "_");
const cmp = (a, b) => {
  const pa = a.split(".").map(Number), pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
};
function replaceOnce(text, from, to, what) {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`add-pi-release: cannot find one ${what}`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

let versionRs = read("pi/src/version.rs");
const known = [...versionRs.matchAll(/PiVersion::V(\d+)_(\d+)_(\d+) => "\1\.\2\.\3"/g)].map((m) => `${m[1]}.${m[2]}.${m[3]}`);
if (known.includes(version)) {
  console.error(`pi ${version} is already a PiVersion: the seam is left as it is`);
  process.exit(0);
}
const sorted = [...known, version].sort(cmp);
const at = sorted.indexOf(version);
const next = sorted[at + 1], prev = sorted[at - 1];
const like = next ?? prev; // the entry the new one starts from
const V = ident(version);

// version.rs: the enum (before the next release's doc line, or after the last), ALL, as_str, released.
{
  const variant = new RegExp(`    /// [^\\n]*\\n    ${ident(next ?? prev)},\\n`).exec(versionRs);
  if (!variant) throw new Error("add-pi-release: no enum variant to insert beside");
  const line = `    /// ${date}.\n    ${V},\n`;
  const pos = next ? variant.index : variant.index + variant[0].length;
  versionRs = versionRs.slice(0, pos) + line + versionRs.slice(pos);
  if (!next) versionRs = replaceOnce(versionRs, `pub const LATEST: PiVersion = PiVersion::${ident(prev)};`, `pub const LATEST: PiVersion = PiVersion::${V};`, "LATEST");
}
versionRs = versionRs.replace(/pub const ALL: \[PiVersion; \d+\] = \[[^\]]*\];/, `pub const ALL: [PiVersion; ${sorted.length}] = [${sorted.map((v) => `PiVersion::${ident(v)}`).join(", ")}];`);
const anchor = next ?? prev;
for (const [shape, value] of [["as_str", `"${version}"`], ["released", `"${date}"`]]) {
  const re = new RegExp(`( *)PiVersion::${ident(anchor)} => "[^"]*",\\n`, "g");
  const ms = [...versionRs.matchAll(re)];
  const m = shape === "as_str" ? ms[0] : ms[1];
  if (!m) throw new Error(`add-pi-release: no ${shape} arm for ${anchor}`);
  const line = `${m[1]}PiVersion::${V} => ${value},\n`;
  const pos = next ? m.index : m.index + m[0].length;
  versionRs = versionRs.slice(0, pos) + line + versionRs.slice(pos);
}
fs.writeFileSync(file("pi/src/version.rs"), versionRs);

// data.rs: the embedded folder.
let dataRs = read("pi/src/data.rs");
{
  const m = new RegExp(`( *)PiVersion::${ident(anchor)} => folder!\\("${anchor.replaceAll(".", "\\.")}"\\),\\n`).exec(dataRs);
  if (!m) throw new Error("add-pi-release: no folder! arm in data.rs");
  const line = `${m[1]}PiVersion::${V} => folder!("${version}"),\n`;
  const pos = next ? m.index : m.index + m[0].length;
  dataRs = dataRs.slice(0, pos) + line + dataRs.slice(pos);
}
fs.writeFileSync(file("pi/src/data.rs"), dataRs);

// rules.rs: the static and its match arm, and the entry itself (a copy of the nearest one's).
let rulesRs = read("pi/src/rules.rs");
const R = (v) => "R_" + v.replaceAll(".", "_");
{
  const m = new RegExp(`( *)static ${ident(anchor)}: Rules = ${R(anchor)};\\n`).exec(rulesRs);
  if (!m) throw new Error("add-pi-release: no static in rules.rs");
  const line = `${m[1]}static ${V}: Rules = ${R(version)};\n`;
  const pos = next ? m.index : m.index + m[0].length;
  rulesRs = rulesRs.slice(0, pos) + line + rulesRs.slice(pos);
  const a = new RegExp(`( *)PiVersion::${ident(anchor)} => &${ident(anchor)},\\n`).exec(rulesRs);
  const arm = `${a[1]}PiVersion::${V} => &${V},\n`;
  const apos = next ? a.index : a.index + a[0].length;
  rulesRs = rulesRs.slice(0, apos) + arm + rulesRs.slice(apos);
}
rulesRs += `
/// ${version}: so far ${like}'s rules (scripts/add-pi-release.sh); each switch to be checked
/// against ${version}'s code and its cases (\`pi-${version}/\`).
const ${R(version)}: Rules = ${R(like)};
`;
fs.writeFileSync(file("pi/src/rules.rs"), rulesRs);

// npm/api.js: the releases the package rebuilds.
let api = read("npm/api.js");
api = api.replace(/export const piVersions = Object\.freeze\(\[[^\]]*\]\);/, `export const piVersions = Object.freeze([${sorted.map((v) => `"${v}"`).join(", ")}]);`);
fs.writeFileSync(file("npm/api.js"), api);

console.error(`added pi ${version} (${date}) to the version seam, its rules starting as ${like}'s`);
