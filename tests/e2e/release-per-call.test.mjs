// Which pi release the app rebuilds, as the CLI chooses it with no --pi (issue 25): a session
// dropped after the demo is detected from what it holds (not the demo capture's release); Clear
// and a new session forget the release and call picked before; the picker says why it chose,
// in the page's words (the pi menu, never a CLI flag). A session that lived through upgrades
// (0.85.1 → 1.4.0 → 1.6.0): each past call is rebuilt by the release that made it, byte for
// byte, and the usage view and the what-if's whole session count each call under its own
// release. Screenshots in tests/e2e/artifacts.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { open, repo, screenshotPath, servedApp, cliBin } from "./harness.mjs";

const run = servedApp();
let server, browser;
before(async () => ({ server, browser } = await run.ready));

const corpus16 = path.join(repo, "tests/conformance/pi-1.6.0");
const corpus085 = path.join(repo, "tests/conformance/pi-0.85.1");
const upgrade = path.join(repo, "tests/upgrades/an-085-140-160");

async function openApp(hash = "#view=request") {
  const o = await open(browser, server.url + "/" + hash);
  run.opened.push(o);
  await o.page.locator('.view-area[data-state="ready"]').waitFor({ state: "attached", timeout: 60000 });
  return o;
}

async function until(page, fn, arg, timeout = 60000) {
  await page.waitForFunction(fn, arg, { timeout, polling: 50 });
}

/** The release on screen once the report for it is ready: `{version, reason, why}`. */
async function rebuilt(page, version, reason) {
  await until(page, ([v, r]) => {
    const p = document.querySelector('[data-testid="pi-version"]');
    return document.querySelector('.view-area[data-state="ready"]') && p?.dataset.rebuilt === v && p?.dataset.reason === r;
  }, [version, reason]);
  return {
    version,
    reason,
    why: await page.getByTestId("pi-why").textContent(),
    auto: await page.locator('[data-testid="pi-version"] option[value="auto"]').textContent(),
  };
}

async function showView(page, key, label) {
  await page.locator("nav.view-tabs button", { hasText: new RegExp(`^${label}$`) }).click();
  await page.getByTestId(`view-${key}`).waitFor({ timeout: 10000 });
}

const bodyText = (page) => page.getByTestId("body-json").textContent();

/** What the CLI chooses for a session alone (no pi installed, a home with only `models`, when
 * given, as its agent dir's models.json): `report.pi`. */
function cliChoice(session, models) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-home-"));
  if (models) {
    fs.mkdirSync(path.join(home, ".pi/agent"), { recursive: true });
    fs.copyFileSync(models, path.join(home, ".pi/agent/models.json"));
  }
  const out = execFileSync(cliBin(), ["report", session], {
    cwd: home, env: { HOME: home, PATH: "/usr/bin:/bin" }, maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"],
  }).toString("utf8");
  return JSON.parse(out).pi;
}

/** A user's models.json for a capture's mock provider (the oracle's has no base URL or key:
 * it points the provider at its stand-in). */
function userModels(caseDir) {
  const m = JSON.parse(fs.readFileSync(path.join(caseDir, "models.json"), "utf8"));
  for (const p of Object.values(m.providers)) {
    p.baseUrl ??= "http://127.0.0.1:4000";
    p.apiKey ??= "test-key";
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-models-"));
  const file = path.join(dir, "models.json");
  fs.writeFileSync(file, JSON.stringify(m, null, 2));
  return file;
}

/** Drops `files` on the page and waits for the scenario named `name`. */
async function drop(page, files, name) {
  await page.getByTestId("file-input").setInputFiles(files);
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, name);
}

/** The page's explanation of the release is the CLI's, up to where the CLI names `--pi`
 * (the page names its pi menu there). */
function sameExplanation(why, cli) {
  const cut = cli.indexOf(", --pi ");
  if (cut < 0) return assert.equal(why, cli, "the CLI's explanation");
  assert.ok(why.startsWith(cli.slice(0, cut)), `${why}\n  vs the CLI's\n${cli}`);
  assert.match(why, /in the pi menu at the top for another/);
}

/** The page says nothing of a CLI flag where it explains the release. */
function noCliFlags(text, what) {
  assert.doesNotMatch(text, /--pi\b|--call\b/, `${what} speaks of the page's controls: ${text}`);
}

test("a pi 1.6.0 session dropped after the demo is rebuilt as 1.6.0, detected as the CLI detects it, and its body is pi's", async () => {
  const dir = path.join(corpus16, "an-midconvo");
  const session = path.join(dir, "expected/session.after.jsonl");
  const models = userModels(dir);
  const want = cliChoice(session, models);
  assert.deepEqual([want.version, want.reason], ["1.6.0", "detected"], "the CLI detects 1.6.0");

  const { page, context } = await openApp();
  const demo = await rebuilt(page, "0.85.1", "captured");
  assert.match(demo.why, /^pi 0\.85\.1 \(the release that made this capture/);
  await drop(page, [session, models], "session.after.jsonl");
  const got = await rebuilt(page, "1.6.0", "detected");
  assert.equal(got.auto, "auto: 1.6.0 (from the session)");
  // The CLI's explanation, its evidence first; where it names `--pi`, the page names its menu.
  assert.ok(want.explanation.includes(", --pi "), want.explanation);
  sameExplanation(got.why, want.explanation);
  assert.match(got.why, /\(line \d+\)/, "with the line of its evidence");
  assert.match(got.why, /pick pi 1\.5\.0 or 1\.5\.2 in the pi menu at the top for another/);
  noCliFlags(got.why, "the picker");
  // The session ends with pi's answer: its last call, which is pi's captured request.
  assert.equal(await page.getByTestId("call-bar").getAttribute("data-call"), "2");
  assert.equal(await bodyText(page), fs.readFileSync(path.join(dir, "expected/request-1.json"), "utf8"), "pi's body, byte for byte");
  assert.equal(await page.getByTestId("newer-session").count(), 0, "no banner");
  await page.screenshot({ path: screenshotPath("release-detected-after-demo.png") });

  // Exported, the folder names the release rebuilt: opened again, it is that release's capture
  // (not a 0.85.1 one), with the same body.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export (.zip)" }).click()]);
  const zip = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-export-")), download.suggestedFilename());
  await download.saveAs(zip);
  const before = await bodyText(page);
  await page.getByTestId("file-input").setInputFiles(zip);
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, download.suggestedFilename().replace(/\.zip$/, ""));
  await rebuilt(page, "1.6.0", "captured");
  assert.equal(await bodyText(page), before, "the same body from the exported folder");
  await context.close();
});

test("a new session forgets the release and the call picked for the one before, and so does Clear", async () => {
  const s16 = path.join(corpus16, "an-midconvo/expected/session.after.jsonl");
  const models = userModels(path.join(corpus16, "an-midconvo"));
  const s085 = path.join(corpus085, "oc-scripted-multiturn/expected/session.after.jsonl");
  const models085 = userModels(path.join(corpus085, "oc-scripted-multiturn"));
  const want085 = cliChoice(s085, models085);

  const { page, context } = await openApp();
  await drop(page, [s16, models], "session.after.jsonl");
  await rebuilt(page, "1.6.0", "detected");
  // Picked: 0.85.1 for call 1.
  await page.getByTestId("pi-version").selectOption("0.85.1");
  await rebuilt(page, "0.85.1", "given");
  await showView(page, "usage", "Usage & cache");
  await page.getByTestId("call-pick-1").click();
  await until(page, () => document.querySelector('[data-testid="call-bar"]')?.dataset.call === "1" && document.querySelector('.view-area[data-state="ready"]'));

  // Clear: nothing of it stays.
  await page.getByRole("button", { name: "Clear", exact: true }).click();
  await until(page, () => document.querySelector(".scenario")?.textContent === "empty");
  assert.equal(await page.getByTestId("pi-version").inputValue(), "auto", "the picker is back on auto");

  // Another session: its own release, as the CLI detects it; its own last call.
  await drop(page, [s085, models085], "session.after.jsonl");
  const got = await rebuilt(page, want085.version, want085.reason);
  assert.notEqual(got.reason, "captured");
  sameExplanation(got.why, want085.explanation);
  noCliFlags(got.why, "the picker");

  // A release picked for it, then a session dropped in its place (no Clear): detected again.
  await page.getByTestId("pi-version").selectOption("1.4.0");
  await rebuilt(page, "1.4.0", "given");
  await drop(page, [s16, models], "session.after.jsonl");
  await rebuilt(page, "1.6.0", "detected");
  assert.equal(await page.getByTestId("pi-version").inputValue(), "auto");
  assert.equal(await page.getByTestId("call-bar").getAttribute("data-call"), "2", "its own last call, not a call picked for another session");
  await context.close();
});

/** The upgrade case's stages: `[{dir, release, requests}]`, in order. */
function stages() {
  return fs.readdirSync(path.join(upgrade, "captured")).sort((a, b) => parseInt(a) - parseInt(b)).map((d) => ({
    dir: path.join(upgrade, "captured", d),
    release: d.split("-").pop(),
    requests: fs.readdirSync(path.join(upgrade, "captured", d)).filter((f) => /^request-\d+\.json$/.test(f)).length,
  }));
}

test("a session that lived through upgrades: each past call rebuilt by the release that made it, byte for byte", async () => {
  const all = stages();
  assert.deepEqual(all.map((s) => s.release), ["0.85.1", "1.4.0", "1.6.0"]);
  const last = all.at(-1);
  // The case folder laid out (its files where pi read them; one of its captures in force: the
  // case's next request is that capture's), then the session as pi 1.6.0 left it dropped in
  // its place.
  const { page, context } = await openApp();
  await page.getByTestId("folder-input").setInputFiles(upgrade);
  await until(page, () => document.querySelector(".scenario")?.textContent === "an-085-140-160");
  await until(page, () => document.querySelector('[data-testid="pi-version"]')?.dataset.reason === "captured" && document.querySelector('.view-area[data-state="ready"]'));
  await drop(page, [path.join(last.dir, "session.after.jsonl")], "session.after.jsonl");
  // The session's own release (its last run's), not the case capture's.
  await rebuilt(page, "1.6.0", "detected");
  // Each stage's capture ran its own pi package (`piPackageDir`, named in the system prompt's
  // docs paths): the laid-out case has one capture's; the settings' pi package folder gives
  // each stage's, as a user whose pi moved would.
  const envs = all.map((s) => JSON.parse(fs.readFileSync(path.join(s.dir, "env.json"), "utf8")));
  assert.equal(new Set(envs.map((e) => e.piPackageDir)).size, all.length, "a package folder per stage");
  const laidDir = await page.locator("#set-pi-dir").getAttribute("placeholder");
  assert.ok(envs.some((e) => e.piPackageDir === laidDir), `the case's own capture's: ${laidDir}`);
  const piDir = async (dir) => {
    if ((await page.locator("#set-pi-dir").inputValue()) === dir) return;
    await page.locator("#set-pi-dir").fill(dir);
    await page.locator("#set-pi-dir").blur();
    await until(page, (d) => document.querySelector("#set-pi-dir")?.value === d && document.querySelector('.view-area[data-state="ready"]'), dir);
  };
  // Every call, from the usage view's list: call k is request n of stage s.
  let k = 0;
  const chars = [];
  const releases = [];
  for (const [i, stage] of all.entries()) {
    await piDir(envs[i].piPackageDir);
    for (let n = 1; n <= stage.requests; n++) {
      k++;
      await showView(page, "usage", "Usage & cache");
      await page.getByTestId(`call-pick-${k}`).click();
      await until(page, (k) => document.querySelector('[data-testid="call-bar"]')?.dataset.call === String(k) && document.querySelector('.view-area[data-state="ready"]'), k);
      const pi = page.getByTestId("call-pi");
      const v = await pi.getAttribute("data-version");
      const reason = await pi.getAttribute("data-reason");
      const why = await page.getByTestId("pi-why").textContent();
      noCliFlags(why, "the picker");
      // The release that made it, or — where the session cannot tell it from releases that
      // write sessions alike — the newest of those, the others offered in the pi menu (the
      // body is the same: the CLI's test allows the same).
      if (v !== stage.release) {
        assert.match(why, /write sessions alike/, `call ${k}: pi ${v}, not ${stage.release}: ${why}`);
        assert.ok(why.includes(stage.release), `call ${k}: pi ${stage.release} is offered: ${why}`);
      }
      const re = (x) => x.replace(/\./g, "\\.");
      if (stage !== last) {
        assert.equal(reason, "call", `call ${k}: a later pi continued the session`);
        assert.match(await pi.textContent(), new RegExp(`^pi ${re(v)}, the release that made this call \\(a later pi continued the session from line \\d+\\)$`));
        assert.match(why, new RegExp(`^pi ${re(v)} \\(the release that made this call, detected from the session as it stood then \\(lines 1–\\d+\\)`));
        const diags = await page.getByTestId("diagnostics").textContent();
        assert.match(diags, new RegExp(`a later pi release continued this session from line \\d+ .*this call is rebuilt by pi ${re(v)}, the release that made it`));
      } else {
        assert.equal(reason, "detected", `call ${k}: the session's last run`);
      }
      noCliFlags(await page.getByTestId("diagnostics").textContent(), "the diagnostics");
      await showView(page, "request", "Request");
      const want = fs.readFileSync(path.join(stage.dir, `request-${n}.json`), "utf8");
      assert.equal(await bodyText(page), want, `call ${k}: pi ${stage.release}'s request-${n}, byte for byte`);
      const stat = async (id) => Number((await page.getByTestId(id).textContent()).replace(/,/g, ""));
      const c = { system: await stat("stat-system-chars"), tools: await stat("stat-tools-chars"), history: await stat("stat-history-chars") };
      assert.ok(c.system > 0 && c.tools > 0, `call ${k}: a system prompt and tools (${JSON.stringify(c)})`);
      chars.push(c.system + c.tools + c.history);
      releases.push([v, reason]);
      if (k === 2) await page.screenshot({ path: screenshotPath("release-per-call-0.85-call.png") });
    }
  }
  // A release given in the pi menu is never overridden: call 1 under 1.6.0 has no system
  // prompt, and the core's advice to rebuild it with 0.85.1 names the pi menu, not `--pi`.
  await showView(page, "usage", "Usage & cache");
  await page.getByTestId("call-pick-1").click();
  await until(page, () => document.querySelector('[data-testid="call-bar"]')?.dataset.call === "1" && document.querySelector('.view-area[data-state="ready"]'));
  await page.getByTestId("pi-version").selectOption("1.6.0");
  await rebuilt(page, "1.6.0", "given");
  const diags = await page.getByTestId("diagnostics").textContent();
  assert.match(diags, /an older pi \(0\.85\) made this call, so the request has no system prompt or tools here; rebuild it with pi 0\.85\.1 \(pick it in the pi menu at the top\)/, diags);
  noCliFlags(diags, "the diagnostics");
  await page.getByTestId("diagnostics").screenshot({ path: screenshotPath("release-per-call-given-diagnostic.png") });
  await page.getByTestId("pi-version").selectOption("auto");
  await rebuilt(page, "0.85.1", "call");

  // The usage view rebuilds every call with usage: each under its own release, the same
  // characters as the call picked above (under the first stage's package folder, which the
  // 0.85-era calls name; the later calls replay their stored system prompt).
  await piDir(envs[0].piPackageDir);
  await page.getByTestId("call-bar-next").click();
  await until(page, () => !document.querySelector('[data-testid="call-bar"]') && document.querySelector('.view-area[data-state="ready"]'));
  await showView(page, "usage", "Usage & cache");
  await page.getByTestId("usage-rebuilt-table").waitFor({ timeout: 120000 });
  const rows = await page.locator('[data-testid="usage-rebuilt-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => {
    const pi = tr.querySelector('[data-testid="call-pi-version"]');
    return [Number(tr.dataset.call), pi.textContent, pi.dataset.reason, Number(tr.querySelector('[data-testid="call-rebuilt-chars"]').textContent.replace(/,/g, ""))];
  }));
  assert.deepEqual(rows, chars.map((c, i) => [i + 1, ...releases[i], c]), "each call's release and rebuilt characters, as when it is picked");
  await page.screenshot({ path: screenshotPath("release-per-call-usage.png"), fullPage: true });

  // The what-if over the whole session (bash switched off): no call left out of the totals, each call's characters
  // as it was are the ones above.
  await showView(page, "whatif", "What if");
  await page.getByTestId("whatif-tool:bash").uncheck();
  const session = page.getByTestId("whatif-session");
  await session.waitFor({ timeout: 120000 });
  const text = await session.textContent();
  assert.doesNotMatch(text, /left out of the totals/, text);
  const perCall = await session.locator("details table tbody tr").evaluateAll((trs) => trs.map((tr) => [Number(tr.children[0].textContent), Number(tr.children[2].textContent.replace(/,/g, ""))]));
  assert.deepEqual(perCall, chars.map((c, i) => [i + 1, c]), "each call as it was, under its own release");
  await page.screenshot({ path: screenshotPath("release-per-call-whatif.png"), fullPage: true });
  await context.close();
});
