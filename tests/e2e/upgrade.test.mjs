// What an upgrade of pi does to the request, in the app (issue 14): the Protocols view's
// comparison with another pi release. On a 0.85-era session resumed by 1.6.0 (cx-085-cross),
// the request rebuilt under 0.85.1 beside the same inputs under 1.6.0: the first changed byte,
// its JSON path and block are `ctxlens compare --pi 0.85.1 --pi-with 1.6.0`'s, the blocks'
// characters and (once the vocabulary is loaded) tokens are the CLI's, the rules that differ are
// the CLI's; the same release on both sides is identical; the choice is in the URL hash.
// Screenshots in tests/e2e/artifacts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { serve, open, repo, screenshotPath, servedApp, cliBin } from "./harness.mjs";

const dir = path.join(repo, "tests/conformance/pi-1.6.0/cx-085-cross");

const run = servedApp();
const opened = run.opened;
let server, browser;
before(async () => ({ server, browser } = await run.ready));

/** The CLI (the native assembly): the debug build scripts/test.sh makes, else a release build. */
function cli(args) {
  const bin = cliBin();
  return execFileSync(bin, args, { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] }).toString("utf8");
}

const upgrade = (a, b, extra = []) => JSON.parse(cli(["compare", "--case", dir, "--pi", a, "--pi-with", b, ...extra]));

async function until(page, fn, arg, timeout = 120000) {
  await page.waitForFunction(fn, arg, { timeout });
}

/** The app with the case folder loaded and rebuilt under pi `pi`, on the Protocols view. */
async function openCase(pi) {
  const o = await open(browser, server.url + "/");
  opened.push(o);
  const { page } = o;
  await page.getByTestId("stat-system-chars").waitFor({ timeout: 60000 });
  await page.getByTestId("folder-input").setInputFiles(dir);
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, path.basename(dir));
  await page.getByTestId("pi-version").selectOption(pi);
  await until(page, (v) => document.querySelector('[data-testid="pi-version"]')?.getAttribute("data-rebuilt") === v && document.querySelector('.view-area[data-state="ready"]'), pi);
  await page.locator("nav.view-tabs button", { hasText: /^Protocols$/ }).click();
  await page.getByTestId("view-protocols").waitFor({ timeout: 10000 });
  return o;
}

test("0.85.1 beside 1.6.0: the first changed byte, its path and block, the blocks and rules are the CLI's", async () => {
  const want = upgrade("0.85.1", "1.6.0", ["--no-tokens"]);
  assert.equal(want.identical, false, "the case changes between the two releases");
  assert.ok(want.firstChange.byte > 0);
  const start = server.requests.length;
  const { page, context } = await openCase("0.85.1");
  await page.getByTestId("compare-mode-pi").click();
  const view = page.locator('[data-testid="upgrade-view"][data-from="0.85.1"][data-to="1.6.0"]');
  await view.waitFor({ timeout: 10000 });
  await until(page, () => document.querySelector('[data-testid="upgrade-view"]')?.dataset.state === "ready");
  // The choice is in the URL hash (and so reachable from a link).
  await until(page, () => location.hash.includes("with=pi-1.6.0") && location.hash.includes("view=protocols"));

  const first = page.getByTestId("upgrade-first-change");
  assert.equal(Number(await first.getAttribute("data-byte")), want.firstChange.byte, "the CLI's first changed byte");
  assert.equal(await page.getByTestId("upgrade-first-path").textContent(), want.firstChange.path);
  assert.equal(await page.getByTestId("upgrade-first-block").textContent(), want.firstChange.block);
  // Each side's value there, as text.
  assert.equal(await page.getByTestId("upgrade-first-from").textContent(), want.firstChange.from ?? "(nothing)");
  assert.equal(await page.getByTestId("upgrade-first-to").textContent(), want.firstChange.to ?? "(nothing)");
  const cache = await page.getByTestId("upgrade-cache").textContent();
  assert.ok(cache.includes(`The first ${want.firstChange.byte.toLocaleString("en-US")} bytes stay the same`), cache);
  assert.match(cache, /still reused on the first call after upgrading; everything after is written to the cache again/);

  // Every block with characters on either side, with the CLI's numbers.
  const rows = await page.locator('[data-testid="upgrade-blocks"] tbody tr').evaluateAll((trs) => trs.map((tr) => ({
    name: tr.dataset.block,
    from: Number(tr.children[1].textContent.replace(/,/g, "")),
    to: Number(tr.children[2].textContent.replace(/,/g, "")),
  })));
  const blocks = want.blocks.filter((b) => b.fromChars > 0 || b.toChars > 0);
  assert.deepEqual(rows, blocks.map((b) => ({ name: b.name, from: b.fromChars, to: b.toChars })));
  assert.ok(rows.some((r) => r.from !== r.to), "a block changes size");

  // The headers that differ, and the URL when it does.
  assert.equal(await page.locator('[data-testid="upgrade-headers"] tbody tr').count(), want.headers.length);
  assert.equal(await page.getByTestId("upgrade-url").count(), want.url ? 1 : 0);

  // The rules: this protocol's by default, all with the toggle; each with its version-table doc.
  const applying = want.rules.filter((r) => r.appliesToThisProtocol);
  assert.ok(applying.length > 0 && applying.length < want.rules.length, "some rules are another protocol's");
  const shownRules = () => page.locator('[data-testid="upgrade-rules"] > li').evaluateAll((lis) => lis.map((li) => li.dataset.rule));
  assert.deepEqual(await shownRules(), applying.map((r) => r.rule));
  const firstDoc = await page.locator('[data-testid="upgrade-rules"] > li .rule-doc').first().textContent();
  assert.equal(firstDoc, applying.find((r) => r.doc).doc);
  await page.getByTestId("view-protocols").screenshot({ path: screenshotPath("view-protocols-upgrade-0.85.1-1.6.0.png") });
  await page.getByTestId("upgrade-rules-all").click();
  assert.deepEqual(await shownRules(), want.rules.map((r) => r.rule));
  await page.getByTestId("upgrade-rules-all").click();
  assert.deepEqual(await shownRules(), applying.map((r) => r.rule), "back to this protocol's");
  // Each rule's changelog lines and pi's release notes between the two (fetched by the worker
  // before its first comparison) are the CLI's.
  assert.equal(await page.getByTestId("upgrade-no-changelog").count(), 0, "the release notes loaded");
  const ruleLines = await page.locator('[data-testid="upgrade-rules"] > li').evaluateAll((lis) =>
    lis.map((li) => [...li.querySelectorAll("ul.changelog > li")].map((l) => l.textContent)));
  assert.deepEqual(ruleLines, applying.map((r) => r.changelog.map((l) => `pi ${l.pi} ${l.text}`)));
  assert.ok(ruleLines.some((l) => l.length > 0), "some rule cites a changelog line");
  const notes = page.getByTestId("upgrade-changelog");
  assert.equal(Number(await notes.getAttribute("data-releases")), want.changelog.length);
  const releases = await notes.locator("section").evaluateAll((ss) => ss.map((x) => [x.dataset.release, x.querySelectorAll("li").length]));
  assert.deepEqual(releases, want.changelog.map((r) => [r.pi, r.sections.reduce((n, x) => n + x.items.length, 0)]));
  // No release's data was fetched twice for the comparison.
  const fetched = server.requests.slice(start).filter((p) => p.includes("pi-data/"));
  assert.ok(fetched.some((p) => p.endsWith("pi-data/changelog.json")) && fetched.some((p) => p.endsWith("pi-data/rule-docs.json")), "the notes are fetched for the comparison");
  assert.equal(new Set(fetched).size, fetched.length, `each data file fetched once: ${fetched.join(", ")}`);

  // Once the model's vocabulary has counted the report, the blocks get tokens: the CLI's.
  const withTokens = upgrade("0.85.1", "1.6.0");
  const sp = withTokens.blocks.find((b) => b.name === "system prompt");
  if (sp.fromTokens != null) {
    await until(page, () => document.querySelector('[data-testid="upgrade-blocks"]')?.dataset.tokens === "true");
    const tok = await page.locator('[data-testid="upgrade-blocks"] tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      name: tr.dataset.block,
      from: tr.children[4].textContent.replace(/,/g, ""),
      to: tr.children[5].textContent.replace(/,/g, ""),
    })));
    const wantTok = withTokens.blocks.filter((b) => b.fromChars > 0 || b.toChars > 0)
      // A block the core does not count on its own (0 tokens on both sides) shows "–".
      .map((b) => (b.fromTokens === 0 && b.toTokens === 0 ? { name: b.name, from: "–", to: "–" } : { name: b.name, from: String(b.fromTokens ?? "–"), to: String(b.toTokens ?? "–") }));
    assert.deepEqual(tok, wantTok, "tokens under both, as the CLI counts them");
    await page.getByTestId("view-protocols").screenshot({ path: screenshotPath("view-protocols-upgrade-tokens.png") });
  }

  // The same release on both sides: identical.
  await page.getByTestId("compare-pi-0.85.1").click();
  await until(page, () => document.querySelector('[data-testid="upgrade-view"][data-to="0.85.1"]')?.dataset.state === "ready");
  assert.match(await page.getByTestId("upgrade-identical").textContent(), /^Identical under pi 0\.85\.1 and pi 0\.85\.1\./);
  assert.equal(await page.getByTestId("upgrade-first-change").count(), 0);
  assert.equal(upgrade("0.85.1", "0.85.1", ["--no-tokens"]).identical, true, "the CLI says the same");
  await until(page, () => location.hash.includes("with=pi-0.85.1"));

  // Back to another protocol: the protocol comparison, as before.
  await page.getByTestId("compare-mode-protocol").click();
  await page.getByTestId("mapping-table").waitFor({ timeout: 120000 });
  await context.close();
});

test("a link with with=pi-… opens the release comparison; the other release's data is fetched first, with progress", async () => {
  // The demo (a 0.85.1 capture) beside 1.6.0, whose data the page has not fetched yet: its
  // requests are held until the comparison says it is fetching them.
  const demo = path.join(repo, "www/demo");
  const want = JSON.parse(cli(["compare", "--case", demo, "--pi", "0.85.1", "--pi-with", "1.6.0", "--no-tokens"]));
  const held = [];
  let hold = true;
  const dist = path.join(repo, "dist");
  const serveFile = (pathname, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    fs.createReadStream(path.join(dist, decodeURIComponent(pathname))).pipe(res);
  };
  const own = await serve(dist, {
    intercept: (pathname, req, res) => {
      if (!pathname.startsWith("/pi-data/pi-1.6.0/")) return false;
      if (hold) held.push([pathname, res]);
      else serveFile(pathname, res);
      return true;
    },
  });
  try {
    const o = await open(browser, own.url + "/#view=protocols&with=pi-1.6.0");
    const { page, context } = o;
    await until(page, () => document.querySelector('[data-testid="upgrade-view"][data-from="0.85.1"][data-to="1.6.0"]'));
    await until(page, () => /pi 1\.6\.0: fetching pi 1\.6\.0's data/.test(document.querySelector('[data-testid="compare-pending"]')?.textContent ?? ""));
    // The worker says it is fetching before its request reaches this server (the same process as
    // the test): wait for the request itself.
    for (let i = 0; i < 200 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(held.length > 0, "1.6.0's data is asked for by the comparison");
    hold = false;
    for (const [p, res] of held.splice(0)) serveFile(p, res);
    await until(page, () => document.querySelector('[data-testid="upgrade-view"]')?.dataset.state === "ready");
    assert.equal(Number(await page.getByTestId("upgrade-first-change").getAttribute("data-byte")), want.firstChange.byte);
    assert.equal(await page.getByTestId("upgrade-first-block").textContent(), want.firstChange.block);
    // 1.6.0's data came from the page's own origin, each file once.
    const data = own.requests.filter((p) => p.startsWith("/pi-data/pi-1.6.0/"));
    assert.ok(data.length > 0 && new Set(data).size === data.length, data.join(", "));
    const foreign = o.seen.filter((u) => !u.startsWith(own.url + "/") && !u.startsWith("data:") && !u.startsWith("blob:"));
    assert.deepEqual(foreign, [], "no request leaves the page's origin");
    assert.deepEqual(o.errors, [], "no page errors");
    await page.getByTestId("view-protocols").screenshot({ path: screenshotPath("view-protocols-upgrade-demo.png") });
    await context.close();
  } finally {
    hold = false;
    for (const [p, res] of held.splice(0)) serveFile(p, res);
    await own.close();
  }
});
