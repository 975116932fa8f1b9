// extract-changelog.mjs [NODE_MODULES] [OUT]: pi's CHANGELOG.md (the newest install's: it
// holds every release's notes) as JSON, from 0.85.1 on — pi/data/changelog.json, read by the
// upgrade comparison (`ctxlens compare --pi-with`) to show what each release between two says.
//
// Default NODE_MODULES: the newest oracle install (/opt/pi-oracle-X, highest X). Each entry:
// {version, date, sections: [{title, items: [text, ...]}]}, newest first; an item's text is the
// changelog's Markdown line without its "- ".
import fs from "node:fs";
import path from "node:path";

const cmp = (a, b) => {
  const x = a.split(".").map(Number), y = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
};
let nm = process.argv[2];
if (!nm) {
  const dirs = fs.readdirSync("/opt").filter((d) => /^pi-oracle-\d+\.\d+\.\d+$/.test(d));
  dirs.sort((a, b) => cmp(a.slice(10), b.slice(10)));
  if (!dirs.length) throw new Error("no /opt/pi-oracle-X install: give NODE_MODULES");
  nm = path.join("/opt", dirs[dirs.length - 1], "node_modules");
}
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const out = process.argv[3] || path.join(repo, "pi/data/changelog.json");
const text = fs.readFileSync(path.join(nm, "@earendil-works/pi-coding-agent/CHANGELOG.md"), "utf8");
const entries = [];
let entry = null, section = null, item = null;
for (const line of text.split("\n")) {
  let m;
  if ((m = /^## \[(\d+\.\d+\.\d+)\](?: - (\S+))?/.exec(line))) {
    entry = { version: m[1], date: m[2] || null, sections: [] };
    entries.push(entry);
    section = item = null;
  } else if (entry && (m = /^### (.+)/.exec(line))) {
    section = { title: m[1].trim(), items: [] };
    entry.sections.push(section);
    item = null;
  } else if (section && (m = /^- (.*)/.exec(line))) {
    section.items.push(m[1]);
    item = section.items.length - 1;
  } else if (section && item !== null && /^\s+\S/.test(line)) {
    // A wrapped item continues.
    section.items[item] += " " + line.trim();
  } else if (line.trim() === "") {
    item = null;
  }
}
const kept = entries.filter((e) => cmp(e.version, "0.85.1") >= 0);
const pkg = JSON.parse(fs.readFileSync(path.join(nm, "@earendil-works/pi-coding-agent/package.json"), "utf8"));
fs.writeFileSync(out, JSON.stringify({ from: `@earendil-works/pi-coding-agent@${pkg.version} CHANGELOG.md`, releases: kept }, null, 1) + "\n");
console.error(`extract-changelog: ${kept.length} releases (${kept[kept.length - 1]?.version} … ${kept[0]?.version}) → ${out}`);
