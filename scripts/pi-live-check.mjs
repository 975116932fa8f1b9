// node scripts/pi-live-check.mjs [--all] [RELEASE/CASE | RELEASE…]: the pi package's live check on
// captured cases with the real pi. The packed tarball (pkg/ctxlens-*.tgz) is installed with
// `pi install` once per release; each case is laid out as its capture laid it, pi runs its
// prompt against the stand-in provider (answering the case's script) with the check on, and
// the check's own count is printed: "pi-1.6.0/an-scripted 5/5". A mismatch prints the check's
// line with the saved case's folder (kept under $TMPDIR/ctxlens-live-check). Default: every
// scripted case of every release (--all: every case; a release alone, `pi-1.6.0`: its cases).
// One case at a time (the capture lock).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repo } from "../tests/npm/helpers.mjs";
import { piInstall, checkCase } from "../tests/npm/pi-run.mjs";

/** The cases to run: those named, else the scripted ones (or all) of every release. */
function cases(argv) {
  const named = argv.filter((a) => !a.startsWith("--"));
  if (named.some((n) => n.includes("/"))) return named;
  const root = path.join(repo, "tests/conformance");
  const all = argv.includes("--all");
  return fs
    .readdirSync(root)
    .filter((r) => r.startsWith("pi-") && (named.length === 0 || named.includes(r)))
    .sort()
    .flatMap((r) =>
      fs
        .readdirSync(path.join(root, r))
        .filter((n) => fs.existsSync(path.join(root, r, n, "expected/request-1.json")) && (all || fs.existsSync(path.join(root, r, n, "script.json"))))
        .sort()
        .map((n) => `${r}/${n}`),
    );
}

async function main() {
  const list = cases(process.argv.slice(2));
  const homes = new Map();
  // Mismatches are saved here, out of the laid root (the next case clears that).
  const saved = path.join(os.tmpdir(), "ctxlens-live-check");
  let matched = 0;
  let sent = 0;
  let compared = 0;
  for (const name of list) {
    const version = name.split("/")[0].slice(3);
    if (!homes.has(version)) {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-pi-home-"));
      fs.mkdirSync(path.join(home, ".pi/agent"), { recursive: true });
      await piInstall(version, home);
      homes.set(version, home);
    }
    let r;
    try {
      r = await checkCase(name, path.join(homes.get(version), ".pi/agent"), saved);
    } catch (e) {
      console.log(`${name} not run: ${e.message.split("\n")[0]}`);
      continue;
    }
    matched += r.matched;
    sent += r.sent;
    compared += r.compared;
    // The check's count (matched of compared) against what the stand-in received; a request pi
    // sent with its provider's own HTTP client (Bedrock) is not compared, and said.
    const flag = r.matched === r.compared && r.sent > 0 ? "" : "  <-";
    const apart = r.sent - r.compared;
    console.log(`${name} ${r.matched}/${r.compared}${apart ? ` (${apart} of ${r.sent} sent by the provider's own HTTP client: not compared)` : ""}${flag}`);
    for (const l of r.lines.filter((l) => !l.startsWith("ctxlens live check"))) console.log(`    ${l}`);
  }
  for (const home of homes.values()) fs.rmSync(home, { recursive: true, force: true });
  console.log(`${matched}/${compared} requests compared matched (${sent} sent, ${sent - compared} not compared), ${list.length} cases`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
