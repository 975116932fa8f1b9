// What if, in the app (issue 15): the What-if view switches a tool and a skill off on the what-if
// proofs' base case (tests/whatif/pi-0.85.1/base) and shows what the worker rebuilt: the first
// changed byte, each block's characters before and after, the cache consequence, the take-home
// and the whole-session totals are `ctxlens whatif --case DIR --without …`'s; the changes are in
// the URL hash and a link with them reproduces the same what-if (on the demo, the CLI's too); a
// change that names nothing present shows the core's error; a session entry and old reasoning off, a
// finding's action and the settings (protocol, another release) are the CLI's too; no request leaves the origin.
// Screenshots in tests/e2e/artifacts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { open, repo, screenshotPath, servedApp, cliBin } from "./harness.mjs";

const dir = path.join(repo, "tests/whatif/pi-0.85.1/base");
const demo = path.join(repo, "www/demo");

const run = servedApp();
const opened = run.opened;
let server, browser;
before(async () => ({ server, browser } = await run.ready));

/** `ctxlens whatif` on case folder `caseDir` (characters only: the app has not loaded a vocabulary). */
function whatif(caseDir, specs, extra = []) {
  const args = ["whatif", "--case", caseDir, "--no-tokens", ...extra];
  for (const s of specs) args.push(...(s.includes("=") ? ["--set", s] : ["--without", s]));
  return JSON.parse(execFileSync(cliBin(), args, { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] }).toString("utf8"));
}

/** The CLI's error for `specs` (its exit is not 0; the message on stderr). */
function whatifError(caseDir, specs) {
  try {
    execFileSync(cliBin(), ["whatif", "--case", caseDir, ...specs.flatMap((s) => ["--without", s])], { stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    return e.stderr.toString("utf8").trim().replace(/^ctxlens: /, "");
  }
  assert.fail("the CLI accepted " + specs.join(", "));
}

async function until(page, fn, arg, timeout = 120000) {
  await page.waitForFunction(fn, arg, { timeout });
}

const ready = (page) => until(page, () => document.querySelector('[data-testid="whatif-view"]')?.dataset.state === "ready");

/** What the view shows, in the CLI's terms. */
async function shown(page) {
  const first = await page.getByTestId("whatif-first-change").getAttribute("data-byte");
  const blocks = await page.locator('[data-testid="whatif-blocks"] tbody tr').evaluateAll((trs) => trs.map((tr) => ({
    name: tr.dataset.block,
    from: Number(tr.children[1].textContent.replace(/,/g, "")),
    to: Number(tr.children[2].textContent.replace(/,/g, "")),
    delta: Number(tr.dataset.delta),
  })));
  const takeHome = await page.locator('[data-testid="whatif-takehome"] > li').evaluateAll((lis) => lis.map((li) => ({
    change: li.dataset.change,
    kind: li.dataset.kind,
    text: li.querySelector("pre").textContent,
  })));
  return { first: Number(first), blocks, takeHome };
}

function expected(want) {
  return {
    first: want.firstChange.byte,
    blocks: want.blocks.filter((b) => b.fromChars > 0 || b.toChars > 0).map((b) => ({ name: b.name, from: b.fromChars, to: b.toChars, delta: b.charsDelta })),
    takeHome: want.changes.map((c) => ({ change: c.change, kind: c.takeHome.kind, text: c.takeHome.text })),
  };
}

test("a tool and a skill switched off: the first changed byte, the blocks, the cache, the take-home and the session totals are the CLI's; the hash holds the changes", async () => {
  const specs = ["tool:bash", "skill:release-notes"];
  const want = whatif(dir, specs, ["--pi", "0.85.1"]);
  assert.equal(want.identical, false);
  const o = await open(browser, server.url + "/");
  opened.push(o);
  const { page, context } = o;
  await page.getByTestId("stat-system-chars").waitFor({ timeout: 60000 });
  await page.getByTestId("folder-input").setInputFiles(dir);
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, path.basename(dir));
  await page.getByTestId("pi-version").selectOption("0.85.1");
  await until(page, () => document.querySelector('[data-testid="pi-version"]')?.getAttribute("data-rebuilt") === "0.85.1" && document.querySelector('.view-area[data-state="ready"]'));
  await page.locator("nav.view-tabs button", { hasText: /^What if$/ }).click();
  await page.getByTestId("whatif-view").waitFor({ timeout: 10000 });
  assert.equal(await page.getByTestId("whatif-view").getAttribute("data-state"), "idle");

  // The tools largest first, each on; bash off, then the skill.
  const sizes = await page.locator('[data-testid="whatif-tools"] input[type="checkbox"]').evaluateAll((xs) => xs.map((x) => Number(x.closest("label").textContent.match(/([\d,]+) characters/)[1].replace(/,/g, ""))));
  assert.ok(sizes.length >= 2 && sizes.every((n, i) => i === 0 || sizes[i - 1] >= n), `largest first: ${sizes}`);
  await page.getByTestId("whatif-tool:bash").uncheck();
  await ready(page);
  await page.getByTestId("whatif-skill:release-notes").uncheck();
  await until(page, () => document.querySelector('[data-testid="whatif-changes"]')?.dataset.changes === "tool:bash,skill:release-notes");
  await ready(page);
  await until(page, () => location.hash.includes("whatif=tool:bash,skill:release-notes") && location.hash.includes("view=whatif"));

  assert.deepEqual(await shown(page), expected(want));
  assert.equal(await page.getByTestId("whatif-first-block").textContent(), want.firstChange.block);
  // The flags and the file to remove, as the CLI says them.
  assert.deepEqual((await page.getByTestId("whatif-takehome-text").allTextContents()), ["pi --exclude-tools bash", want.changes[1].takeHome.text]);
  // The cache consequence.
  assert.equal(Number(await page.getByTestId("whatif-cache").getAttribute("data-stable")), want.cache.stablePrefixBytes);
  assert.equal(await page.getByTestId("whatif-cache-note").textContent(), want.cache.note);
  // The totals per call (characters).
  const chars = await page.locator('[data-testid="whatif-totals"] tr[data-row="chars"] td').allTextContents();
  assert.deepEqual(chars.slice(0, 2).map((t) => Number(t.replace(/,/g, ""))), [want.before.chars, want.after.chars]);
  // The whole session, had the changes been made at the start.
  assert.ok(want.session && want.session.callsRebuilt > 0, "the case has calls with usage");
  const sess = page.getByTestId("whatif-session");
  assert.equal(Number(await sess.getAttribute("data-calls")), want.session.callsRebuilt);
  assert.equal(Number((await page.getByTestId("whatif-session-saved-chars").textContent()).replace(/,/g, "")), want.session.saved.chars);
  await page.getByTestId("whatif-view").screenshot({ path: screenshotPath("view-whatif.png") });

  // Switched on again: back to the request as it is.
  await page.getByTestId("whatif-tool:bash").check();
  await until(page, () => document.querySelector('[data-testid="whatif-changes"]')?.dataset.changes === "skill:release-notes");
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(dir, ["skill:release-notes"], ["--pi", "0.85.1"])));
  await page.getByTestId("whatif-reset").click();
  await until(page, () => document.querySelector('[data-testid="whatif-view"]')?.dataset.state === "idle" && !location.hash.includes("whatif="));

  // The suggestion: the three largest extension tools off at once.
  await page.getByTestId("whatif-suggest-extension-tools").click();
  await ready(page);
  const ext = await page.getByTestId("whatif-changes").getAttribute("data-changes");
  assert.equal(ext.split(",").length, 3, ext);
  assert.deepEqual(await shown(page), expected(whatif(dir, ext.split(","), ["--pi", "0.85.1"])));

  const foreign = o.seen.filter((u) => !u.startsWith(server.url + "/") && !u.startsWith("data:") && !u.startsWith("blob:"));
  assert.deepEqual(foreign, [], "no request leaves the page's origin");
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});

test("a link with whatif= reproduces the what-if; a change that names nothing present shows the core's error", async () => {
  const specs = ["tool:bash", "skill:release-notes"];
  const want = whatif(demo, specs);
  const o = await open(browser, server.url + "/#view=whatif&whatif=" + specs.join(","));
  opened.push(o);
  const { page, context } = o;
  await ready(page);
  assert.equal(await page.getByTestId("whatif-changes").getAttribute("data-changes"), specs.join(","));
  assert.equal(await page.getByTestId("whatif-tool:bash").isChecked(), false);
  assert.equal(await page.getByTestId("whatif-skill:release-notes").isChecked(), false);
  assert.deepEqual(await shown(page), expected(want));

  await page.evaluate(() => { location.hash = "#view=whatif&whatif=tool:nope"; });
  await until(page, () => document.querySelector('[data-testid="whatif-view"]')?.dataset.state === "failed");
  assert.equal(await page.getByTestId("whatif-error").textContent(), whatifError(demo, ["tool:nope"]));

  // A session entry off (from the list of the entries in the context), then old reasoning too.
  await page.evaluate(() => { location.hash = "#view=whatif"; });
  await until(page, () => document.querySelector('[data-testid="whatif-view"]')?.dataset.state === "idle");
  await page.locator('[data-testid="whatif-entries"] > summary').click();
  const box = page.locator('[data-testid="whatif-entries"] input[type="checkbox"]').nth(2);
  const entry = await box.getAttribute("data-spec");
  assert.match(entry, /^entry:/);
  await box.uncheck();
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(demo, [entry])));
  await page.getByTestId("whatif-thinking:old").uncheck();
  await until(page, (c) => document.querySelector('[data-testid="whatif-changes"]')?.dataset.changes === c, entry + ",thinking:old");
  await ready(page);
  const both = whatif(demo, [entry, "thinking:old"]);
  if (both.identical) assert.equal(await page.getByTestId("whatif-identical").count(), 1);
  else assert.deepEqual(await shown(page), expected(both));
  const foreign = o.seen.filter((u) => !u.startsWith(server.url + "/") && !u.startsWith("data:") && !u.startsWith("blob:"));
  assert.deepEqual(foreign, [], "no request leaves the page's origin");
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});

test("a finding becomes an action: its button opens the What-if view with the changes it names, the CLI's numbers", async () => {
  const o = await open(browser, server.url + "/#view=findings");
  opened.push(o);
  const { page, context } = o;
  const button = page.locator('[data-testid="finding-whatif"]').first();
  await button.waitFor({ timeout: 60000 });
  const specs = (await button.getAttribute("data-changes")).split(",");
  assert.ok(specs.length > 0 && specs.every((s) => /^(tool|skill-invocation):/.test(s)), specs.join(","));
  await button.click();
  await page.getByTestId("whatif-view").waitFor({ timeout: 10000 });
  await ready(page);
  assert.equal(await page.getByTestId("whatif-changes").getAttribute("data-changes"), specs.join(","));
  await until(page, (w) => location.hash.includes("view=whatif") && location.hash.includes("whatif=" + w), specs.join(","));
  assert.deepEqual(await shown(page), expected(whatif(demo, specs)));
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});

test("the settings: another protocol, then another pi release (its data fetched by the worker), as `--set api=… --set pi=…`", async () => {
  const o = await open(browser, server.url + "/#view=whatif");
  opened.push(o);
  const { page, context } = o;
  await page.getByTestId("whatif-view").waitFor({ timeout: 60000 });
  await page.getByTestId("whatif-set-api").selectOption("anthropic-messages");
  await until(page, () => document.querySelector('[data-testid="whatif-changes"]')?.dataset.changes === "api=anthropic-messages");
  await ready(page);
  const api = whatif(demo, ["api=anthropic-messages"]);
  assert.deepEqual(await shown(page), expected(api));
  await page.getByTestId("whatif-set-pi").selectOption("1.6.0");
  await until(page, () => document.querySelector('[data-testid="whatif-changes"]')?.dataset.changes === "api=anthropic-messages,pi=1.6.0");
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(demo, ["api=anthropic-messages", "pi=1.6.0"])));
  // Back to the release as it is: the protocol change alone again.
  await page.getByTestId("whatif-set-pi").selectOption("");
  await until(page, () => document.querySelector('[data-testid="whatif-changes"]')?.dataset.changes === "api=anthropic-messages");
  await ready(page);
  assert.deepEqual(await shown(page), expected(api));
  const foreign = o.seen.filter((u) => !u.startsWith(server.url + "/") && !u.startsWith("data:") && !u.startsWith("blob:"));
  assert.deepEqual(foreign, [], "no request leaves the page's origin");
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});
