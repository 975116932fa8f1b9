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
  // Each call's tokens with the changes: its reported usage scaled by what the changes do to its
  // tokens, as the CLI gives them with the model's vocabulary.
  const counted = JSON.parse(execFileSync(cliBin(), ["whatif", "--case", dir, "--pi", "0.85.1", ...specs.flatMap((x) => ["--without", x])], { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] }).toString("utf8"));
  const perCall = await page.getByTestId("whatif-call-tokens-after").allTextContents();
  assert.deepEqual(perCall, counted.session.calls.map((c) => (c.reportedTokensAfter === null ? "–" : Math.round(c.reportedTokensAfter).toLocaleString("en-US"))));
  assert.ok(counted.session.calls.some((c) => c.reportedTokensAfter > 0), "the calls have tokens with the changes");
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

/** `ctxlens report` on case folder `caseDir`: the session's entries with the sizes the view lists. */
function report(caseDir, extra = []) {
  return JSON.parse(execFileSync(cliBin(), ["report", "--case", caseDir, "--no-tokens", ...extra], { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] }).toString("utf8"));
}

/** Opens the app with case folder `caseDir` (rebuilt as pi 0.85.1) on the What-if view. */
async function openCase(caseDir, options, pi = "0.85.1") {
  const o = await open(browser, server.url + "/", options);
  opened.push(o);
  const { page } = o;
  await page.getByTestId("stat-system-chars").waitFor({ timeout: 60000 });
  await page.getByTestId("folder-input").setInputFiles(caseDir);
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, path.basename(caseDir));
  await page.getByTestId("pi-version").selectOption(pi);
  await until(page, (v) => document.querySelector('[data-testid="pi-version"]')?.getAttribute("data-rebuilt") === v && document.querySelector('.view-area[data-state="ready"]'), pi);
  await page.locator("nav.view-tabs button", { hasText: /^What if$/ }).click();
  await page.getByTestId("whatif-view").waitFor({ timeout: 10000 });
  return o;
}

const changesAre = (page, c) => until(page, (x) => document.querySelector('[data-testid="whatif-changes"]')?.dataset.changes === x, c);

test("a tool result cut to N lines: the session's tool results largest first with their sizes, the cut the CLI's `--without tool-result:ID:N`", async () => {
  const pi = ["--pi", "0.85.1"];
  const entries = report(dir, pi).session.entries.filter((e) => e.inContext && e.toolResult && e.toolResult.lines > 0 && e.toolResult.chars > 0);
  const want = [...entries].sort((a, b) => b.toolResult.chars - a.toolResult.chars).map((e) => ({ id: e.id, chars: e.toolResult.chars, lines: e.toolResult.lines }));
  assert.ok(want.length >= 3, "the base case has tool results");
  const o = await openCase(dir);
  const { page, context } = o;
  // Listed largest first, each with its characters and lines; the case has no images: no images group.
  const rows = await page.locator('[data-testid="whatif-tool-results"] li').evaluateAll((lis) => lis.map((li) => ({ id: li.dataset.testid.replace("whatif-tool-result-", ""), chars: Number(li.dataset.chars), lines: Number(li.dataset.lines) })));
  assert.deepEqual(rows, want);
  assert.equal(await page.getByTestId("whatif-images").count(), 0, "no images, no images group");

  const id = "6a1f34a5";
  await page.getByTestId(`whatif-cut-${id}`).fill("3");
  await page.getByTestId(`whatif-cut-apply-${id}`).click();
  await changesAre(page, `tool-result:${id}:3`);
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(dir, [`tool-result:${id}:3`], pi)));
  // Cut again, shorter: the cut replaces the one before.
  await page.getByTestId(`whatif-cut-${id}`).fill("1");
  await page.getByTestId(`whatif-cut-apply-${id}`).click();
  await changesAre(page, `tool-result:${id}:1`);
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(dir, [`tool-result:${id}:1`], pi)));
  // No cut at or past its length (the core refuses one): the button is off.
  await page.getByTestId(`whatif-cut-${id}`).fill(String(want.find((e) => e.id === id).lines));
  assert.equal(await page.getByTestId(`whatif-cut-apply-${id}`).isDisabled(), true);
  await page.getByTestId("whatif-view").screenshot({ path: screenshotPath("view-whatif-tool-result.png") });
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});

/** Holds the worker's messages to the page while `window.__ctxlensHold` is true, and hands them
 * on in order on `window.__ctxlensRelease()`: the test's way to toggle while a what-if is still
 * in the worker, whatever the machine's speed. */
/** Holds the worker's messages on the page while `window.__ctxlensHold` is set (its whole-session
 * what-if answers alone while `window.__ctxlensHoldSessions` is), until `__ctxlensRelease()`. */
function holdWorkerMessages() {
  const held = [];
  window.__ctxlensHold = false;
  window.__ctxlensHoldSessions = false;
  const add = Worker.prototype.addEventListener;
  Worker.prototype.addEventListener = function (type, fn, opts) {
    if (type !== "message") return add.call(this, type, fn, opts);
    return add.call(this, type, (e) => {
      const whole = e.data?.type === "whatif" && e.data.session === true;
      return window.__ctxlensHold || (whole && window.__ctxlensHoldSessions) ? held.push(() => fn.call(this, e)) : fn.call(this, e);
    }, opts);
  };
  window.__ctxlensRelease = () => {
    window.__ctxlensHold = false;
    window.__ctxlensHoldSessions = false;
    for (const f of held.splice(0)) f();
  };
}

test("quick toggles: one what-if in the worker at a time, so four tools switched off while the first is computed cost two computations (the first and the last), and the last is the CLI's", async () => {
  const pi = ["--pi", "0.85.1"];
  const o = await openCase(dir, { init: holdWorkerMessages });
  const { page, context } = o;
  const counts = () => page.evaluate(() => {
    const v = document.querySelector(".view-area");
    return { sent: Number(v.dataset.whatifSent), computed: Number(v.dataset.whatifComputed) };
  });
  // One what-if first, so the worker's count is on the page.
  await page.getByTestId("whatif-thinking:old").uncheck();
  await ready(page);
  await page.getByTestId("whatif-reset").click();
  await until(page, () => document.querySelector('[data-testid="whatif-view"]')?.dataset.state === "idle");
  const before = await counts();
  assert.ok(before.sent >= 1 && before.computed >= 1, JSON.stringify(before));
  const tools = (await page.locator('[data-testid="whatif-tools"] input[type="checkbox"]').evaluateAll((xs) => xs.map((x) => x.dataset.spec))).slice(0, 4);
  assert.equal(tools.length, 4);
  // The worker's answers held: each toggle comes while the first what-if is still in the worker.
  await page.evaluate(() => { window.__ctxlensHold = true; });
  for (const [i, spec] of tools.entries()) {
    await page.getByTestId(`whatif-${spec}`).uncheck();
    await changesAre(page, tools.slice(0, i + 1).join(","));
  }
  assert.equal((await counts()).sent - before.sent, 1, "the first toggle's what-if is in the worker; the others wait on the page");
  await page.evaluate(() => window.__ctxlensRelease());
  await ready(page);
  await until(page, (n) => Number(document.querySelector(".view-area").dataset.whatifComputed) >= n, before.computed + 2);
  const after = await counts();
  assert.deepEqual({ sent: after.sent - before.sent, computed: after.computed - before.computed }, { sent: 2, computed: 2 }, "the first toggle's what-if and the last one's; the two between were never sent");
  assert.deepEqual(await shown(page), expected(whatif(dir, tools, pi)));
  // Back to the first toggle's changes, answered meanwhile: kept, not asked again.
  await page.getByTestId("whatif-reset").click();
  await until(page, () => document.querySelector('[data-testid="whatif-view"]')?.dataset.state === "idle");
  await page.getByTestId(`whatif-${tools[0]}`).uncheck();
  await ready(page);
  assert.deepEqual(await counts(), after, "the first toggle's answer was kept");
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});

test("a newer toggle does not wait for the session of the one before: it is sent while that session is being rebuilt; back to the first, its session comes; both the CLI's", async () => {
  const pi = ["--pi", "0.85.1"];
  const o = await openCase(dir, { init: holdWorkerMessages });
  const { page, context } = o;
  await page.evaluate(() => { window.__ctxlensHoldSessions = true; });
  const sent = () => page.evaluate(() => Number(document.querySelector(".view-area").dataset.whatifSent));
  const tools = (await page.locator('[data-testid="whatif-tools"] input[type="checkbox"]').evaluateAll((xs) => xs.map((x) => x.dataset.spec))).slice(0, 2);
  assert.equal(tools.length, 2);
  // The first tool off: its request's answer, then its whole session asked for (its answer held,
  // so on the page it is still in the worker).
  await page.getByTestId(`whatif-${tools[0]}`).uncheck();
  await ready(page);
  await page.getByTestId("whatif-session-pending").waitFor({ timeout: 10000 });
  const before = await sent();
  // The second: sent at once, and its request answered, while the first's session is out.
  await page.getByTestId(`whatif-${tools[1]}`).uncheck();
  await changesAre(page, tools.join(","));
  await until(page, (n) => Number(document.querySelector(".view-area").dataset.whatifSent) === n, before + 1);
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(dir, tools, pi)), "the newer what-if, the CLI's");
  // Back to the first: its request's answer is kept; its session (dropped in the worker if the
  // newer what-if came before it was done) comes once the answers are released.
  await page.getByTestId(`whatif-${tools[1]}`).check();
  await changesAre(page, tools[0]);
  await page.evaluate(() => window.__ctxlensRelease());
  const want = whatif(dir, [tools[0]], pi);
  await until(page, () => document.querySelector('[data-testid="whatif-session"]'));
  assert.deepEqual(await shown(page), expected(want), "the first what-if, the CLI's");
  assert.equal(Number(await page.getByTestId("whatif-session").getAttribute("data-calls")), want.session.callsRebuilt);
  assert.equal(Number((await page.getByTestId("whatif-session-saved-chars").textContent()).replace(/,/g, "")), want.session.saved.chars);
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});

test("images switched off per entry or all at once: the entries with images largest first, each the CLI's `--without image:ID`", async () => {
  const images = path.join(repo, "tests/whatif/pi-0.85.1/base-images");
  const pi = ["--pi", "0.85.1"];
  const entries = report(images, pi).session.entries.filter((e) => e.inContext && e.images);
  const want = [...entries].sort((a, b) => b.images.chars - a.images.chars).map((e) => `image:${e.id}`);
  assert.ok(want.length >= 2, "the images case has two entries with images");
  const o = await openCase(images);
  const { page, context } = o;
  const listed = await page.locator('[data-testid="whatif-images"] input[type="checkbox"]').evaluateAll((xs) => xs.map((x) => x.dataset.spec));
  assert.deepEqual(listed, ["image:all", ...want]);
  await page.getByTestId(`whatif-${want[0]}`).uncheck();
  await changesAre(page, want[0]);
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(images, [want[0]], pi)));
  await page.getByTestId(`whatif-${want[1]}`).uncheck();
  await changesAre(page, want.slice(0, 2).join(","));
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(images, want.slice(0, 2), pi)));
  // All of them: pi's own setting; the entries' switches are off meanwhile.
  await page.getByTestId("whatif-reset").click();
  await page.getByTestId("whatif-image:all").uncheck();
  await changesAre(page, "image:all");
  await ready(page);
  assert.deepEqual(await shown(page), expected(whatif(images, ["image:all"], pi)));
  assert.equal(await page.getByTestId(`whatif-${want[0]}`).isDisabled(), true);
  await page.getByTestId("whatif-view").screenshot({ path: screenshotPath("view-whatif-images.png") });
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});

test("a shadowed context file becomes an action, in Findings and in the What-if view: the file pi reads there removed, the CLI's `--without context:PATH`", async () => {
  const shadowing = path.join(repo, "tests/conformance/pi-0.85.1/oc-context-shadowing");
  const files = report(shadowing).resources.contextFiles.filter((f) => f.shadowed.length > 0);
  assert.ok(files.length >= 2, "the case has context files shadowing others");
  const o = await openCase(shadowing);
  const { page, context } = o;
  // The What-if view: one suggestion per folder with a shadowed file, in pi's words.
  const suggested = await page.getByTestId("whatif-suggest-shadowed").evaluateAll((bs) => bs.map((b) => ({ file: b.dataset.file, changes: b.dataset.changes, text: b.textContent })));
  assert.deepEqual(suggested.map((x) => x.changes), files.map((f) => `context:${f.path}`));
  const team = files.find((f) => f.path.endsWith("/ws/team/AGENTS.md"));
  const dirOf = (p) => p.slice(0, p.lastIndexOf("/"));
  const words = suggested.find((x) => x.file === team.path).text;
  assert.ok(words.startsWith(`CLAUDE.md in ${dirOf(team.path)} is shadowed by AGENTS.md — pi reads only AGENTS.md there.`), words);
  // Findings: the shadowing finding's button applies the same what-if.
  await page.locator("nav.view-tabs button", { hasText: /^Findings$/ }).click();
  const buttons = page.locator('[data-testid="finding-whatif"][data-changes^="context:"]');
  await buttons.first().waitFor({ timeout: 10000 });
  assert.deepEqual(await buttons.evaluateAll((bs) => bs.map((b) => b.dataset.changes)), files.map((f) => `context:${f.path}`));
  await page.locator(`[data-testid="finding-whatif"][data-changes="context:${team.path}"]`).click();
  await page.getByTestId("whatif-view").waitFor({ timeout: 10000 });
  await changesAre(page, `context:${team.path}`);
  await ready(page);
  const want = whatif(shadowing, [`context:${team.path}`]);
  assert.deepEqual(await shown(page), expected(want));
  assert.match(want.changes[0].takeHome.text, /CLAUDE\.md in the same folder, which it shadowed, is then read in its place/);
  await page.getByTestId("whatif-view").screenshot({ path: screenshotPath("view-whatif-shadowed.png") });
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});

test("a whole turn switched off: the context's turns listed with their exchanges, the request the CLI's `--without turn:ID` (pi 1.6.0's resumed session: the stored system message between the turns stays)", async () => {
  const caseDir = path.join(repo, "tests/whatif/pi-1.6.0/base-resumed");
  const pi = ["--pi", "1.6.0"];
  const o = await openCase(caseDir, undefined, "1.6.0");
  const { page, context } = o;
  // The two turns, in order, each with the messages of its exchange.
  const turns = await page.locator('[data-testid="whatif-turns"] input[type="checkbox"]').evaluateAll((xs) => xs.map((x) => ({ spec: x.dataset.spec, text: x.closest("label").textContent })));
  assert.deepEqual(turns.map((t) => t.spec), ["turn:44e3f427", "turn:908db8b9"]);
  assert.match(turns[0].text, /and 12 messages of its exchange/);
  assert.match(turns[1].text, /and 1 message of its exchange/);
  await page.getByTestId("whatif-turn:44e3f427").uncheck();
  await changesAre(page, "turn:44e3f427");
  await ready(page);
  const want = whatif(caseDir, ["turn:44e3f427"], pi);
  assert.equal(want.identical, false);
  assert.deepEqual(await shown(page), expected(want));
  // The take-home: the session edit, the lines removed and the system message's new parent.
  const text = await page.getByTestId("whatif-takehome-text").allTextContents();
  assert.deepEqual(text, [want.changes[0].takeHome.text]);
  assert.match(text[0], /lines 4, 5, .*16 removed .*entry 7fa812fc: parentId 24fb1670 → "f89838af"/s);
  await page.getByTestId("whatif-view").screenshot({ path: screenshotPath("view-whatif-turn.png") });
  assert.deepEqual(o.errors, [], "no page errors");
  await context.close();
});
