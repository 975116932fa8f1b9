// pi 1.6.0 cases in the built app: the system prompt view names 1.6.0's sections and says which
// stored system message set each (the same as the core's report), a prompt kept in place shows
// message by message, the session view shows system messages as what they are, and the input
// stage shows the run's system message. Screenshots in tests/e2e/artifacts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { open, repo, screenshotPath, servedApp, cliBin } from "./harness.mjs";

const corpus = path.join(repo, "tests/conformance/pi-1.6.0");

const run = servedApp();
const opened = run.opened;
let server, browser;
before(async () => ({ server, browser } = await run.ready));

/** The CLI (the native assembly): the debug build scripts/test.sh makes, else a release build. */
function report(name) {
  const bin = cliBin();
  const dir = path.join(corpus, name);
  return JSON.parse(execFileSync(bin, ["report", "--case", dir, "--env", path.join(dir, "expected/env.json")], { maxBuffer: 1 << 28 }).toString("utf8"));
}

/** Opens the app with the case folder `name` loaded. */
async function openCase(name, opts = {}) {
  const o = await open(browser, server.url + "/", opts);
  opened.push(o);
  await o.page.getByTestId("stat-system-chars").waitFor({ timeout: 60000 });
  await o.page.getByTestId("folder-input").setInputFiles(path.join(corpus, name));
  await o.page.waitForFunction((n) => document.querySelector(".scenario")?.textContent === n, name, { timeout: 60000 });
  return o;
}

async function showView(page, key, label) {
  await page.locator("nav.view-tabs button", { hasText: new RegExp(`^${label}$`) }).click();
  await page.getByTestId(`view-${key}`).waitFor({ timeout: 10000 });
}

/** `tools · read`, as the view labels a span. */
const label = (x) => (x.source === "pi" || x.source === "" ? x.name : `${x.name} · ${x.source.split("/").pop()}`);

test("the system prompt view names 1.6.0's sections and the stored system message of each", async () => {
  const name = "sp-resume-append";
  const r = report(name);
  const want = r.systemPrompt.sections;
  assert.ok(want.every((x) => x.stored), "the core says where each span was stored");
  const { page, context } = await openCase(name);
  await showView(page, "prompt", "System prompt");
  const rows = page.locator('[data-testid="prompt-sections"] tbody tr');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="prompt-sections"] tbody tr').length === n, want.length, { timeout: 30000 });
  const got = await rows.evaluateAll((trs) => trs.map((tr) => ({
    section: tr.children[2].textContent.trim(),
    stored: tr.querySelector('[data-testid="section-stored"]')?.textContent.trim(),
    help: tr.children[2].getAttribute("title"),
  })));
  assert.deepEqual(got.map((g) => g.section), want.map(label), "the sections by their 1.6.0 names");
  assert.deepEqual(got.map((g) => g.stored), want.map((x) => x.stored.label), "each span's stored system message");
  // pi's section names, and both origins of this resumed session: the session's first system
  // message and the patch this run stores.
  const names = new Set(want.map((x) => x.name));
  for (const n of ["preamble", "tools", "rules", "docs", "project_context", "cwd", "addendum"]) assert.ok(names.has(n), n);
  const stored = new Set(got.map((g) => g.stored));
  assert.ok(stored.has("this run") && [...stored].some((s) => /^session line \d+$/.test(s)), [...stored].join(", "));
  // Jargon explained where shown.
  const tools = got.find((g) => g.section === "tools");
  assert.match(tools.help, /tools the model may call/);
  assert.match(await page.locator('[data-testid="section-stored"]').first().getAttribute("title"), /stored at line \d+ of the session file/);
  assert.match(await page.getByTestId("prompt-placement").textContent(), /one system prompt at the start/);
  // The text's spans say the same, and the text is the one sent.
  const spanTitle = await page.locator('[data-testid="prompt-text"] .sec').last().getAttribute("title");
  assert.match(spanTitle, /stored: this run$/);
  assert.equal(await page.getByTestId("prompt-text").textContent(), r.systemPrompt.text);
  await page.getByTestId("view-prompt").screenshot({ path: screenshotPath("view-prompt-1.6-resume-append.png") });
  await context.close();
});

test("a prompt kept in place shows message by message; the session and input stage show system messages", async () => {
  const name = "sp-midconvo-kept";
  const r = report(name);
  const msgs = r.systemPrompt.messages;
  assert.equal(r.systemPrompt.placement, "in-place");
  const { page, context } = await openCase(name);
  await showView(page, "prompt", "System prompt");
  const heads = page.getByTestId("prompt-message");
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="prompt-message"]').length === n, msgs.length, { timeout: 30000 });
  const texts = await heads.allTextContents();
  msgs.forEach((m, i) => assert.ok(texts[i].endsWith(m.stored.label), `${texts[i]} / ${m.stored.label}`));
  assert.match(texts[1], /an update/);
  assert.match(await page.getByTestId("prompt-placement").textContent(), /kept where they are stored/);
  await page.getByTestId("view-prompt").screenshot({ path: screenshotPath("view-prompt-1.6-midconvo-kept.png") });

  // The session: each stored system message is a `system` entry, with its changes.
  await showView(page, "session", "Session");
  const sys = r.session.entries.filter((e) => e.type === "system");
  assert.ok(sys.length >= 2);
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="session-tree"] .t-system').length === n, sys.length, { timeout: 30000 });
  const patch = sys[sys.length - 1];
  await page.locator(`[data-testid="session-tree"] [data-entry="${patch.id}"]`).click();
  const detail = page.getByTestId("entry-detail");
  await detail.waitFor({ timeout: 10000 });
  const chips = await detail.locator(".chip").allTextContents();
  for (const s of patch.system.sections) assert.ok(chips.some((c) => c.startsWith(s.name)), `${s.name} in ${chips}`);
  for (const t of patch.system.toolsAdded) assert.ok(chips.includes(`+${t}`), `+${t} in ${chips}`);
  for (const t of patch.system.toolsRemoved) assert.ok(chips.includes(`−${t}`), `−${t} in ${chips}`);
  await page.getByTestId("view-session").screenshot({ path: screenshotPath("view-session-1.6-midconvo-kept.png") });

  // The input stage: this run's system message (it removes the addendum).
  const input = r.stages.findIndex((s) => s.id === "input-appended");
  for (let i = 0; i < input; i++) await page.getByTestId("stage-next").click();
  await page.waitForFunction(() => document.querySelector('[data-testid="stage-view"]')?.getAttribute("data-stage") === "input-appended", null, { timeout: 10000 });
  const run = page.getByTestId("run-system-message");
  await run.waitFor({ timeout: 10000 });
  const runChips = await run.locator(".chip").allTextContents();
  assert.deepEqual(runChips, r.newSystemMessages.flatMap((m) => [
    ...m.sections.map((s) => (s.removed ? s.name : `${s.name} · ${s.chars.toLocaleString("en-US")} ch`)),
    ...m.toolsAdded.map((t) => `+${t}`),
    ...m.toolsRemoved.map((t) => `−${t}`),
  ]));
  assert.ok(runChips.length > 0);
  await page.getByTestId("stage-view").screenshot({ path: screenshotPath("stage-input-1.6-midconvo-kept.png") });
  await context.close();
});

test("context edits and usage records in the session view; the tools view lists the declarations sent", async () => {
  const name = "sp-context-edit-usage";
  const r = report(name);
  const { page, context } = await openCase(name);
  await showView(page, "session", "Session");
  const edit = r.session.entries.find((e) => e.type === "context_edit");
  const usage = r.session.entries.find((e) => e.type === "usage");
  assert.ok(edit && usage, "the core names both");
  await page.locator('[data-testid="session-tree"] .t-edit').waitFor({ timeout: 30000 });
  assert.equal(await page.locator('[data-testid="session-tree"] .t-usage').count(), 1);
  assert.match(await page.locator('[data-testid="session-tree"] .t-edit').getAttribute("title"), /leaves one message out of what it sends/);
  await page.locator(`[data-testid="session-tree"] [data-entry="${edit.id}"]`).click();
  const detail = page.getByTestId("entry-detail");
  await detail.waitFor({ timeout: 10000 });
  assert.match(await detail.textContent(), new RegExp(`Replaces the content of entry ${edit.edit.targetId} with ${edit.edit.chars} chars`));
  await page.locator(`[data-testid="session-tree"] [data-entry="${usage.id}"]`).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-detail"]')?.textContent.includes("Usage record"), null, { timeout: 10000 });
  assert.match(await detail.textContent(), new RegExp(`cache_warm · mock/qwen3.8-flash · ${usage.usage.input} input, ${usage.usage.cacheRead.toLocaleString("en-US")} read from the cache`));
  assert.equal(await page.locator('[data-testid="session-messages"] .chip.edited').count(), 1, "the edited message is marked");
  await page.getByTestId("view-session").screenshot({ path: screenshotPath("view-session-1.6-context-edit-usage.png") });

  // The tools sent are the session's declarations, each with the line that declared it.
  const redefine = report("sp-resume-redefine");
  await page.getByTestId("folder-input").setInputFiles(path.join(corpus, "sp-resume-redefine"));
  await page.waitForFunction((n) => document.querySelector(".scenario")?.textContent === n, "sp-resume-redefine", { timeout: 60000 });
  await showView(page, "tools", "Tools");
  await page.getByTestId("tools-declared-note").waitFor({ timeout: 30000 });
  const rows = await page.locator('[data-testid="tools-bars"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent.trim())));
  const declared = Object.fromEntries(redefine.declaredTools.map((t) => [t.name, t.stored.label]));
  assert.equal(rows.length, redefine.declaredTools.length);
  for (const row of rows) {
    const tool = row.find((c) => c in declared);
    assert.ok(tool, row.join(" | "));
    assert.equal(row[row.length - 1], declared[tool], `${tool}: declared by`);
  }
  // read was declared again by this run (its stored definition differs).
  assert.equal(declared.read, "this run");
  await page.getByTestId("view-tools").screenshot({ path: screenshotPath("view-tools-1.6-resume-redefine.png") });
  await context.close();
});

test("pi-messages sends the system messages as stored: the prompt view shows each with its sections", async () => {
  const name = "pm-resume-append";
  const r = report(name);
  assert.equal(r.systemPrompt.placement, "raw");
  const { page, context } = await openCase(name);
  await showView(page, "prompt", "System prompt");
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="prompt-message"]').length === n, r.systemPrompt.messages.length, { timeout: 30000 });
  assert.match(await page.getByTestId("prompt-placement").textContent(), /as the session stores them/);
  const heads = await page.getByTestId("prompt-message").allTextContents();
  r.systemPrompt.messages.forEach((m, i) => assert.ok(heads[i].includes("sent as stored") && heads[i].endsWith(m.stored.label), heads[i]));
  await page.getByTestId("view-prompt").screenshot({ path: screenshotPath("view-prompt-1.6-pi-messages.png") });
  await context.close();
});
