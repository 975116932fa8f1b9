// capture-upgrade.mjs [NAME...]: captures the sessions that live through pi upgrades
// (tests/upgrades/<name>/): each stage of case.json's `stages` ([{pi, prompt, script}, ...]) is
// one run of that pi release (the oracle's capture script, PI_VERSION=pi) on the case's
// models.json, agent/ and fs/, resuming the session the stage before left. Each stage's capture
// is kept in captured/<k>-<pi>/ (request-N.json, request-N.meta.json, env.json,
// session.after.jsonl); the last stage's session.after.jsonl holds every call of every stage.
//
// Run with any Node (>= 20): node scripts/capture-upgrade.mjs [NAME...]
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const dir = path.join(repo, "tests/upgrades");
const capture = process.env.PI_ORACLE_CAPTURE ?? path.join(repo, "../shared/oracle/capture");
const names = process.argv.slice(2).length
  ? process.argv.slice(2).map((n) => path.basename(n))
  : fs.readdirSync(dir).filter((n) => fs.existsSync(path.join(dir, n, "case.json")));

for (const name of names) {
  const caseDir = path.join(dir, name);
  const spec = JSON.parse(fs.readFileSync(path.join(caseDir, "case.json"), "utf8"));
  const out = path.join(caseDir, "captured");
  fs.rmSync(out, { recursive: true, force: true });
  let session = null;
  spec.stages.forEach((stage, i) => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-upgrade-"));
    const { stages, about, ...base } = spec;
    fs.writeFileSync(path.join(tmp, "case.json"), JSON.stringify({ ...base, prompt: stage.prompt, args: stage.args ?? [] }));
    fs.writeFileSync(path.join(tmp, "script.json"), JSON.stringify(stage.script ?? []));
    fs.copyFileSync(path.join(caseDir, "models.json"), path.join(tmp, "models.json"));
    for (const d of ["agent", "fs"]) {
      if (fs.existsSync(path.join(caseDir, d))) fs.cpSync(path.join(caseDir, d), path.join(tmp, d), { recursive: true });
    }
    if (session) fs.writeFileSync(path.join(tmp, "session.jsonl"), session);
    const stageOut = path.join(out, `${i + 1}-${stage.pi}`);
    console.error(`== ${name}: stage ${i + 1}, pi ${stage.pi}`);
    // One capture at a time: the oracle lays every case at the same root.
    execFileSync("flock", ["/tmp/pi-capture.lock", capture, tmp, stageOut], {
      env: { ...process.env, PI_VERSION: stage.pi },
      stdio: ["ignore", "inherit", "inherit"],
    });
    for (const f of ["pi.stdout", "pi.stderr"]) fs.rmSync(path.join(stageOut, f), { force: true });
    session = fs.readFileSync(path.join(stageOut, "session.after.jsonl"), "utf8");
    fs.rmSync(tmp, { recursive: true, force: true });
  });
}
