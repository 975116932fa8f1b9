// capture-whatif.mjs [VERSION...]: the what-if proofs. For each pi release (default 0.85.1 and
// 1.6.0) it captures, with the real pi (the oracle's capture script, PI_VERSION=VERSION), the
// base case tests/whatif/template/ into tests/whatif/pi-VERSION/base/ (and the scripted run
// tests/whatif/scripted/, the oracle's demo, into base-scripted/) and, for each variant of
// tests/whatif/variants.json, the base with that what-if's take-home made for real — pi's flags
// added to case.json's args, files removed, a SKILL.md frontmatter line added, the session file
// edited (an entry removed and its children reparented, a turn — a user message and its
// exchange — removed the same way, a tool result cut, old reasoning dropped), the thinking level set — into tests/whatif/pi-VERSION/VARIANT/. cli/tests/whatif.rs
// then checks that ctxlens's what-if of the base case gives each variant's captured body byte
// for byte, and that its take-home is the edit made here.
//
// The edits are made here in Node, independently of ctxlens (JSON.parse / JSON.stringify, as pi
// writes its session lines).
//
// Run with any Node (>= 20): node scripts/capture-whatif.mjs [VERSION...] [--only VARIANT...]
// (--only: those variants again, the others and the base kept)

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const dir = path.join(repo, "tests/whatif");
const capture = process.env.PI_ORACLE_CAPTURE ?? path.join(repo, "../shared/oracle/capture");
const argv = process.argv.slice(2);
const onlyAt = argv.indexOf("--only");
const only = onlyAt < 0 ? null : argv.slice(onlyAt + 1);
const given = onlyAt < 0 ? argv : argv.slice(0, onlyAt);
const versions = given.length ? given : ["0.85.1", "1.6.0"];
const variants = JSON.parse(fs.readFileSync(path.join(dir, "variants.json"), "utf8"));

function copyTree(src, dst) {
  fs.mkdirSync(dst, { recursive: true });
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, e.name), d = path.join(dst, e.name);
    if (e.isDirectory()) copyTree(s, d);
    else fs.copyFileSync(s, d);
  }
}

function editSession(caseDir, f) {
  const p = path.join(caseDir, "session.jsonl");
  const lines = fs.readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  f(lines);
  fs.writeFileSync(p, lines.map((e) => JSON.stringify(e)).join("\n") + "\n");
}

function apply(caseDir, edit) {
  const casePath = path.join(caseDir, "case.json");
  const c = JSON.parse(fs.readFileSync(casePath, "utf8"));
  if (edit.args) c.args = [...(c.args ?? []), ...edit.args];
  if (edit.thinking) c.thinking = edit.thinking;
  if (edit.model) c.model = edit.model;
  fs.writeFileSync(casePath, JSON.stringify(c, null, 1) + "\n");
  for (const r of edit.remove ?? []) {
    const p = path.join(caseDir, r);
    if (!fs.existsSync(p)) throw new Error(`${r}: not in the case`);
    fs.rmSync(p, { recursive: true });
  }
  if (edit.frontmatter) {
    const [file, line] = edit.frontmatter;
    const p = path.join(caseDir, file);
    const text = fs.readFileSync(p, "utf8");
    const end = text.indexOf("\n---", 4);
    fs.writeFileSync(p, text.slice(0, end) + "\n" + line + text.slice(end));
  }
  if (edit.removeEntry) {
    editSession(caseDir, (lines) => {
      const at = lines.findIndex((e) => e.type !== "session" && e.id === edit.removeEntry);
      if (at < 0) throw new Error(`no entry ${edit.removeEntry}`);
      const [gone] = lines.splice(at, 1);
      for (const e of lines) if (e.parentId === gone.id) e.parentId = gone.parentId;
    });
  }
  if (edit.removeTurn) {
    // The user message and its exchange: down the tree from it, through the entries that stay
    // (not messages, or system messages), to the next user message on each branch; each removed
    // as removeEntry removes one, in the file's order.
    editSession(caseDir, (lines) => {
      const start = lines.find((e) => e.type === "message" && e.id === edit.removeTurn);
      if (start?.message?.role !== "user") throw new Error(`no user message ${edit.removeTurn}`);
      const turn = new Set([start.id]);
      const seen = new Set([start.id]);
      const todo = [start.id];
      while (todo.length) {
        const p = todo.pop();
        for (const e of lines) {
          if (e.type === "session" || e.parentId !== p || seen.has(e.id)) continue;
          seen.add(e.id);
          const role = e.type === "message" ? e.message?.role : null;
          if (role === "user") continue;
          if (role && role !== "system") turn.add(e.id);
          todo.push(e.id);
        }
      }
      for (const id of lines.filter((e) => e.type !== "session" && turn.has(e.id)).map((e) => e.id)) {
        const at = lines.findIndex((e) => e.type !== "session" && e.id === id);
        const [gone] = lines.splice(at, 1);
        for (const e of lines) if (e.parentId === gone.id) e.parentId = gone.parentId;
      }
    });
  }
  if (edit.cutToolResult) {
    const [id, n] = edit.cutToolResult;
    editSession(caseDir, (lines) => {
      const m = lines.find((e) => e.id === id).message;
      if (n === null) m.content = m.content.filter((b) => b.type !== "text");
      else {
        let left = n;
        m.content = m.content.filter((b) => {
          if (b.type !== "text") return true;
          if (left === 0) return false;
          const kept = b.text.split("\n").slice(0, left);
          left -= kept.length;
          b.text = kept.join("\n");
          return true;
        });
      }
    });
  }
  if (edit.providerApi) {
    const [provider, api] = edit.providerApi;
    const p = path.join(caseDir, "models.json");
    const m = JSON.parse(fs.readFileSync(p, "utf8"));
    m.providers[provider].api = api;
    fs.writeFileSync(p, JSON.stringify(m));
  }
  if (edit.settings) {
    const p = path.join(caseDir, "agent/settings.json");
    const current = fs.existsSync(p) ? JSON.parse(fs.readFileSync(p, "utf8")) : {};
    for (const [k, v] of Object.entries(edit.settings)) current[k] = { ...(current[k] ?? {}), ...v };
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, JSON.stringify(current, null, 2));
  }
  if (edit.dropImages) {
    editSession(caseDir, (lines) => {
      const m = lines.find((e) => e.id === edit.dropImages).message;
      m.content = m.content.filter((b) => b.type !== "image");
    });
  }
  if (edit.dropThinking) {
    // The case has a prompt: every stored assistant message is before the request's last user
    // message.
    editSession(caseDir, (lines) => {
      for (const e of lines) {
        if (e.message?.role === "assistant") e.message.content = e.message.content.filter((b) => b.type !== "thinking");
      }
    });
  }
}

/** The captured base of a template: "template" → base/, "scripted" → base-scripted/, … */
const baseName = (t) => (t === "template" ? "base" : `base-${t}`);

function run(version, name, caseDir) {
  console.error(`== pi-${version}/${name}`);
  execFileSync("flock", ["/tmp/pi-capture.lock", capture, caseDir, path.join(caseDir, "expected")], {
    env: { ...process.env, PI_VERSION: version },
    stdio: ["ignore", "inherit", "inherit"],
  });
  for (const f of ["pi.stdout", "pi.stderr"]) fs.rmSync(path.join(caseDir, "expected", f), { force: true });
  if (!fs.existsSync(path.join(caseDir, "expected/request-1.json"))) throw new Error(`${name}: pi sent nothing`);
}

for (const version of versions) {
  const out = path.join(dir, `pi-${version}`);
  const applies = (v) => !v.releases || v.releases.includes(version);
  if (!only) {
    fs.rmSync(out, { recursive: true, force: true });
    // Each template's base: "template" → base/, "scripted" → base-scripted/.
    for (const t of new Set(variants.filter(applies).map((v) => v.template ?? "template"))) {
      const name = baseName(t);
      copyTree(path.join(dir, t), path.join(out, name));
      run(version, name, path.join(out, name));
    }
  }
  for (const v of variants) {
    if ((only && !only.includes(v.name)) || !applies(v)) continue;
    const caseDir = path.join(out, v.name);
    fs.rmSync(caseDir, { recursive: true, force: true });
    copyTree(path.join(dir, v.template ?? "template"), caseDir);
    apply(caseDir, v.edit);
    run(version, v.name, caseDir);
  }
}
