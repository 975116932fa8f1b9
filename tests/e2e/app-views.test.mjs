// The views of issue 12: the transcript (each entry opens in full), the undefined-tool and
// context-window flags, Compare opening the comparison, the doubled URL explained after a
// protocol switch, pi's file paths and stage explanations, one denominator for the shares, the
// status line following the protocol on screen, the keyboard focus ring and the skip link past
// the treemap, and the layout at 800 px (screenshots in tests/e2e/artifacts/).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { cliBin, open, repo, screenshotPath, servedApp } from "./harness.mjs";

const corpus = path.join(repo, "tests/conformance/pi-0.85.1");
const demoSession = fs.readFileSync(path.join(repo, "www/demo/session.jsonl"), "utf8").split("\n");

const run = servedApp();
const opened = run.opened;
let server, browser;
before(async () => ({ server, browser } = await run.ready));

async function openApp(hash = "", opts = {}) {
  const o = await open(browser, server.url + "/" + hash, opts);
  opened.push(o);
  await o.page.locator('.view-area[data-state="ready"]').waitFor({ state: "attached", timeout: 60000 });
  return o;
}

async function showView(page, key, label) {
  await page.locator("nav.view-tabs button", { hasText: new RegExp(`^${label.replace(/[&]/g, "\\$&")}$`) }).click();
  await page.getByTestId(`view-${key}`).waitFor({ timeout: 10000 });
}

async function openFolder(page, dir, name = path.basename(dir)) {
  await page.getByTestId("folder-input").setInputFiles(dir);
  await page.waitForFunction((n) => document.querySelector(".scenario")?.textContent === n && document.querySelector('.view-area[data-state="ready"]'), name, { timeout: 60000 });
}

/**
 * An init script (a wrapped Worker, before the page loads) that holds the worker's messages of
 * `type` on the page until `window.__release()` (which says how many it held), and lists the
 * `api` of each `assemble` message the page sends in `window.__assembles`.
 */
function holding(type) {
  const script = (type) => {
    const held = [];
    let holding = true;
    window.__assembles = [];
    const add = Worker.prototype.addEventListener;
    Worker.prototype.addEventListener = function (kind, fn, opts) {
      if (kind !== "message") return add.call(this, kind, fn, opts);
      return add.call(this, kind, (e) => (holding && e.data?.type === type ? held.push(() => fn.call(this, e)) : fn.call(this, e)), opts);
    };
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (m, ...rest) {
      if (m?.type === "assemble") window.__assembles.push(m.api ?? null);
      return post.call(this, m, ...rest);
    };
    window.__release = () => {
      holding = false;
      const n = held.length;
      for (const f of held.splice(0)) f();
      return n;
    };
  };
  return { content: `(${script})(${JSON.stringify(type)});` };
}

/** The demo's session entry on `line` (1-based), parsed. */
const demoEntry = (line) => JSON.parse(demoSession[line - 1]);

test("the transcript opens each entry in full: whole texts, tool calls with their arguments, results", async () => {
  const { page, context } = await openApp();
  await showView(page, "transcript", "Transcript");
  const list = page.getByTestId("transcript-list");
  assert.equal(await list.getAttribute("data-count"), "15", "the demo's 15 entries");
  // Every assistant entry with a tool call: its arguments in full, as the session stores them.
  const lines = demoSession.map((l, i) => [i + 1, l]).filter(([, l]) => l.includes('"toolCall"')).map(([n]) => n);
  assert.ok(lines.length >= 3, "the demo calls tools");
  for (const line of lines) {
    await list.locator(`.entry[data-line="${line}"]`).click();
    const full = page.locator(`[data-testid="entry-full"][data-line="${line}"]`);
    await full.waitFor();
    const calls = demoEntry(line).message.content.filter((b) => b.type === "toolCall");
    const shown = await full.locator('[data-testid="tool-call"] pre').allTextContents();
    assert.deepEqual(shown.map((t) => JSON.parse(t)), calls.map((c) => c.arguments), `line ${line}: every call's arguments`);
    for (const c of calls) assert.ok((await full.textContent()).includes(c.name));
  }
  // The longest text of the session (a tool result) is shown whole, not as its preview.
  let best = null;
  demoSession.forEach((l, i) => {
    if (!l) return;
    const e = JSON.parse(l);
    for (const b of e.message?.content ?? []) if (b.type === "text" && (!best || b.text.length > best.text.length)) best = { line: i + 1, text: b.text };
  });
  assert.ok(best.text.length > 100);
  await list.locator(`.entry[data-line="${best.line}"]`).click();
  const texts = await page.locator(`[data-testid="entry-full"][data-line="${best.line}"] .entry-text.text`).allTextContents();
  assert.ok(texts.includes(best.text), "the whole text, byte for byte");
  // The keyboard opens one too.
  await list.locator('.entry[data-line="2"]').focus();
  await page.keyboard.press("Enter");
  await page.locator('[data-testid="entry-full"][data-line="2"]').waitFor();
  await page.getByTestId("view-transcript").screenshot({ path: screenshotPath("view-transcript.png") });
  await context.close();
});

test("a long session: the transcript renders only the visible rows and opens an entry in the middle in full", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-transcript-"));
  const n = 20000;
  const lines = [JSON.stringify({ type: "session", version: 3, id: "01a228d3-c51b-77ee-9b97-000000000000", timestamp: "2026-11-29T19:41:36.924Z", cwd: "/tmp/pi-ctx-demo/shop" })];
  let parent = null;
  for (let i = 0; i < n; i++) {
    const id = i.toString(16).padStart(8, "0");
    const ts = new Date(1795981297000 + i * 1000);
    const text = `${i % 2 === 0 ? "question" : "answer"} ${i} ` + "lorem ipsum ".repeat(40) + `end ${i}`;
    const message = i % 2 === 0
      ? { role: "user", content: [{ type: "text", text }], timestamp: ts.getTime() }
      : { role: "assistant", content: [{ type: "text", text }], api: "openai-completions", provider: "mock", model: "qwen3.8-flash",
          usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 }, stopReason: "stop", timestamp: ts.getTime() };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: ts.toISOString(), message }));
    parent = id;
  }
  const file = path.join(dir, "long.jsonl");
  fs.writeFileSync(file, lines.join("\n") + "\n");
  const { page, context } = await openApp();
  await page.getByTestId("file-input").setInputFiles(file);
  await page.waitForFunction(() => document.querySelector(".scenario")?.textContent.startsWith("long"), null, { timeout: 120000 });
  await showView(page, "transcript", "Transcript");
  await page.waitForFunction((n) => document.querySelector('[data-testid="transcript-list"]')?.dataset.count === String(n), n, { timeout: 120000 });
  const rows = await page.locator('[data-testid="transcript-list"] .vrow').count();
  assert.ok(rows > 10 && rows < 100, `only the visible rows are in the DOM (${rows})`);
  await page.getByTestId("transcript-list").evaluate((el) => { el.scrollTop = el.scrollHeight / 2; el.dispatchEvent(new Event("scroll")); });
  const row = page.locator('[data-testid="transcript-list"] .entry').nth(10);
  await row.waitFor();
  const line = Number(await row.getAttribute("data-line"));
  assert.ok(line > 9000 && line < 11000, `scrolled to the middle (line ${line})`);
  await row.click();
  const want = JSON.parse(lines[line - 1]).message.content[0].text;
  const shown = await page.locator(`[data-testid="entry-full"][data-line="${line}"] .entry-text.text`).first().textContent();
  assert.equal(shown, want, "the entry in the middle, whole");
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("tool calls to tools the request does not define are flagged, with their session line", async () => {
  const { page, context } = await openApp();
  await openFolder(page, path.join(corpus, "oc-no-tools-history"));
  await showView(page, "findings", "Findings");
  const f = page.locator('[data-testid="findings"] > li[data-id="undefined-tools"]');
  await f.waitFor();
  assert.match(await f.textContent(), /1 tool call to tools the request does not define.*bash \(line 3\); the request defines no tools/);
  await f.getByTestId("finding-subject").click();
  // The subject is the entry: it opens in full where the view shows it.
  const full = page.locator('[data-testid="entry-full"][data-line="3"]');
  await full.waitFor();
  assert.equal(await full.getByTestId("undefined-tool").count(), 1, "the call is flagged in the entry");
  assert.equal(await page.locator('[data-testid="session-tree"] .entry[data-entry="a0000002"] .chip.flag').count(), 1, "and in the session tree");
  await showView(page, "transcript", "Transcript");
  assert.equal(await page.locator('[data-testid="transcript-list"] .entry[data-line="3"] .chip.flag').count(), 1, "and in the transcript's list");
  await page.locator('[data-testid="transcript-list"] .entry[data-line="3"]').click();
  assert.equal(await page.locator('[data-testid="entry-full"][data-line="3"] [data-testid="undefined-tool"]').count(), 1);
  await context.close();
});

test("a context beyond the model's window is flagged (pi's estimate against contextWindow)", async () => {
  // oc-maxtokens-clamp-estimate: pi's estimate is 20000 - 4096 - max_completion_tokens of the
  // captured body; its window made one token smaller than that.
  const src = path.join(corpus, "oc-maxtokens-clamp-estimate");
  const body = JSON.parse(fs.readFileSync(path.join(src, "expected/request-1.json"), "utf8"));
  const estimate = 20000 - 4096 - body.max_completion_tokens;
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-window-")), "small-window");
  fs.cpSync(src, dir, { recursive: true });
  const models = JSON.parse(fs.readFileSync(path.join(dir, "models.json"), "utf8"));
  models.providers.mock.models[0].contextWindow = estimate - 1;
  fs.writeFileSync(path.join(dir, "models.json"), JSON.stringify(models, null, 1));
  const { page, context } = await openApp();
  // Under its own window first: no flag.
  await openFolder(page, src);
  await showView(page, "overview", "Overview");
  assert.equal(await page.getByTestId("context-card").getAttribute("data-over"), "false");
  assert.match(await page.getByTestId("context-card").textContent(), new RegExp(`≈ ${estimate.toLocaleString("en-US")} tokens`));
  await openFolder(page, dir);
  await showView(page, "overview", "Overview");
  await page.waitForFunction(() => document.querySelector('[data-testid="context-card"]')?.dataset.over === "true", null, { timeout: 30000 });
  assert.match(await page.getByTestId("context-card").textContent(), new RegExp(`over the model's window of ${(estimate - 1).toLocaleString("en-US")} tokens`));
  await showView(page, "findings", "Findings");
  const f = page.locator('[data-testid="findings"] > li[data-id="context-over-window"]');
  await f.waitFor();
  assert.match(await f.textContent(), /larger than the model's window.*mock\/small-ctx.*\(1 over\)/);
  await context.close();
});

/** A share as the page writes it: one decimal and a percent sign. */
function pct(n, of) {
  return `${((n / of) * 100).toFixed(1)}%`;
}

test("a request over the window while pi's estimate is under it: the Context card says both, as the finding does", async () => {
  // The scripted run's last call: the stand-in provider reported a few hundred tokens, so pi's
  // estimate (that usage plus what followed) is far under the body's size.
  const src = path.join(corpus, "an-scripted");
  const lay = (window) => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-body-window-")), "my-session");
    fs.cpSync(src, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "session.jsonl"), fs.readFileSync(path.join(src, "expected/session.after.jsonl")));
    for (const f of fs.readdirSync(path.join(dir, "expected"))) if (f !== "env.json") fs.rmSync(path.join(dir, "expected", f));
    if (window) {
      const models = JSON.parse(fs.readFileSync(path.join(dir, "models.json"), "utf8"));
      for (const p of Object.values(models.providers)) for (const m of p.models ?? []) m.contextWindow = window;
      fs.writeFileSync(path.join(dir, "models.json"), JSON.stringify(models, null, 1));
    }
    return dir;
  };
  const { page, context } = await openApp("#view=overview");
  const lastCall = async (dir) => {
    await openFolder(page, dir);
    await showView(page, "usage", "Usage & cache");
    const n = await page.locator('[data-testid^="call-pick-"]').count();
    await page.getByTestId(`call-pick-${n}`).click();
    await page.waitForFunction((k) => document.querySelector('[data-testid="call-bar"]')?.dataset.call === String(k) && document.querySelector('.view-area[data-state="ready"]'), n, { timeout: 60000 });
    await showView(page, "overview", "Overview");
    const card = await page.getByTestId("context-card").textContent();
    const estimate = Number(/≈ ([\d,]+) tokens/.exec(card)[1].replace(/,/g, ""));
    const chars = Number(/([\d,]+) chars/.exec(await page.locator(".card", { hasText: "Body" }).textContent())[1].replace(/,/g, ""));
    return { estimate, bodyTokens: Math.ceil(chars / 4) };
  };
  const first = await lastCall(lay(null));
  assert.ok(first.estimate < first.bodyTokens, JSON.stringify(first));
  assert.equal(await page.getByTestId("context-card").getAttribute("data-over"), "false");
  assert.equal(await page.getByTestId("body-over-window").count(), 0);
  // A window between the two.
  const window = Math.floor((first.estimate + first.bodyTokens) / 2);
  const then = await lastCall(lay(window));
  assert.equal(await page.getByTestId("context-card").getAttribute("data-over"), "true");
  assert.match(await page.getByTestId("context-card").textContent(), new RegExp(`${pct(then.estimate, window)} of the model's`));
  assert.equal(await page.getByTestId("body-over-window").textContent(),
    `but this request itself is ≈ ${then.bodyTokens.toLocaleString("en-US")} tokens (its characters at 4 per token): it does not fit, and pi's compaction, which watches its estimate, would not start`);
  await showView(page, "findings", "Findings");
  const f = page.locator('[data-testid="findings"] > li[data-id="context-over-window"]');
  await f.waitFor();
  assert.match(await f.textContent(), new RegExp(`≈ ${then.bodyTokens.toLocaleString("en-US")} tokens`));
  await context.close();
});

test("Compare opens the comparison", async () => {
  const { page, context } = await openApp();
  await page.getByTestId("compare-toggle").click();
  await page.getByTestId("view-protocols").waitFor({ timeout: 10000 });
  assert.equal(await page.getByTestId("compare-toggle").getAttribute("aria-pressed"), "true");
  await page.locator('[data-testid="protocols-view"][data-state="ready"] [data-testid="mapping-table"]').waitFor({ timeout: 120000 });
  assert.ok((await page.locator('[data-testid="mapping-table"] tbody tr').count()) >= 5, "two protocols side by side");
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes("view=protocols") && location.hash.includes("compare=1"));
  await context.close();
});

test("after a protocol switch, a URL that doubles /v1 says why beside it", async () => {
  const { page, context } = await openApp("#view=request");
  assert.equal(await page.getByTestId("url-note").count(), 0, "the model's own protocol: no note");
  await page.getByTestId("protocol-anthropic-messages").click();
  await page.waitForFunction(() => document.querySelector('.view-area[data-api="anthropic-messages"][data-state="ready"]'), null, { timeout: 60000 });
  const url = await page.getByTestId("request-view-url").textContent();
  assert.match(url, /\/v1\/v1\/messages/);
  const note = await page.getByTestId("url-note").textContent();
  assert.match(note, /^\/v1\/v1 in the URL: the model's base URL http:\/\/127\.0\.0\.1:35261\/v1 was made for openai-completions, and the anthropic-messages adapter adds \/v1\/messages to it/);
  await page.getByTestId("protocol-openai-responses").click();
  await page.waitForFunction(() => document.querySelector('.view-area[data-api="openai-responses"][data-state="ready"]'), null, { timeout: 60000 });
  assert.equal(await page.getByTestId("url-note").count(), 0, "no doubled segment, no note");
  await context.close();
});

test("words a pi user knows: pi's file paths, stage names explained, no jargon in the header", async () => {
  const { page, context } = await openApp();
  const stage = page.getByTestId("stage-view");
  await stage.waitFor();
  const src = await stage.locator(".pi-source").first().textContent();
  assert.match(src, /^pi's parseSessionEntryLine · pi-coding-agent\/dist\/core\/session-manager\.js:\d+$/, "pi's function and its own file path, not CA/…");
  // The list names each stage in a pi user's words; pi's function is the secondary line.
  const names = await page.locator(".stages .stage-name").allTextContents();
  assert.equal(names.length, 11, "a name for each stage");
  assert.equal(names[0], "Your session file");
  assert.ok(names.every((n) => /^[A-Z][A-Za-z', ]+$/.test(n) && !/[a-z][A-Z]/.test(n)), `plain words, no function names: ${names.join(" | ")}`);
  const whys = await page.getByTestId("stage-why").allTextContents();
  assert.equal(whys.length, 11, "pi's function under each stage");
  assert.ok(whys.includes("transformContext") && whys.includes("buildParams"), whys.join(", "));
  assert.ok((await page.getByTestId("stage-explanation").textContent()).length > 20, "the stage shown explains itself");
  assert.ok(!/(^|[\s(])(CA|AI|CORE)\//.test(await page.locator(".stepper").textContent()), "no CA/ prefixes left in the stepper");
  assert.ok(!/scenario|case folder/i.test(await page.locator("header.top").evaluate((h) => h.innerText + [...h.querySelectorAll("[title]")].map((e) => e.title).join(" "))));
  await context.close();
});

test("one denominator: the header's shares and the overview's agree", async () => {
  const { page, context } = await openApp();
  await showView(page, "overview", "Overview");
  const header = {};
  for (const k of ["system", "tools", "history"]) header[k] = await page.getByTestId(`stat-${k}-chars-share`).textContent();
  const legend = await page.locator('[data-testid="overview-shares"] .legend .share').allTextContents();
  const line = await page.getByTestId("overview-share-line").textContent();
  const m = line.match(/System prompt ([\d.]+)% · tools ([\d.]+)% · history ([\d.]+)%/);
  assert.ok(m, line);
  const overview = [m[1], m[2], m[3]].map(Number);
  const headerN = [header.system, header.tools, header.history].map((s) => Number(s.replace("%", "")));
  for (let i = 0; i < 3; i++) {
    assert.equal(Math.round(overview[i]), headerN[i], `share ${i}: ${overview[i]} vs ${headerN[i]}`);
    assert.equal(Number(legend[i].replace("%", "")), overview[i], "the bar's legend says the same");
  }
  assert.equal(Math.round(overview.reduce((a, b) => a + b, 0)), 100, "of one total");
  await context.close();
});

test("the status line follows the protocol on screen", async () => {
  const { page, context } = await openApp();
  const status = page.getByTestId("status");
  await status.waitFor();
  assert.match(await status.textContent(), /^OpenAI Chat/);
  await page.getByTestId("protocol-anthropic-messages").click();
  await page.waitForFunction(() => /^Anthropic/.test(document.querySelector('[data-testid="status"]')?.textContent ?? ""), null, { timeout: 60000 });
  await page.getByTestId("protocol-openai-completions").click();
  await page.waitForFunction(() => /^OpenAI Chat/.test(document.querySelector('[data-testid="status"]')?.textContent ?? ""), null, { timeout: 10000 });
  await context.close();
});

test("keyboard: the focus ring is on the control that has focus, and a skip link passes the treemap", async () => {
  const { page, context } = await openApp();
  await showView(page, "overview", "Overview");
  // Tab through the page: every focused control draws a visible ring.
  const seen = [];
  await page.locator("body").focus();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    const f = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const cs = getComputedStyle(el);
      const r = el.getBoundingClientRect();
      return { tag: el.tagName, cls: el.className?.baseVal ?? el.className, testid: el.dataset?.testid ?? null, outline: cs.outlineStyle, width: parseFloat(cs.outlineWidth), box: cs.boxShadow, visible: r.width > 0 && r.height > 0, focusVisible: el.matches(":focus-visible") };
    });
    if (!f) continue;
    seen.push(f);
    assert.ok(f.focusVisible, `${f.tag}.${f.cls} matches :focus-visible`);
    assert.ok(f.visible, `${f.tag}.${f.cls} is on screen`);
    const ringed = (f.outline !== "none" && f.width >= 2) || (f.tag === "g" || f.tag === "rect");
    assert.ok(ringed, `${f.tag}.${f.cls} (${f.testid}) draws a ring: ${f.outline} ${f.width}`);
    if (i === 6) await page.screenshot({ path: screenshotPath("keyboard-focus.png") });
  }
  assert.ok(seen.length > 20, "the tab order reaches the controls");
  // The skip link: hidden until focused, then it moves the focus past every part of the treemap.
  const skip = page.getByTestId("skip-treemap");
  await page.evaluate(() => document.activeElement?.blur());
  assert.ok(((await skip.boundingBox())?.width ?? 0) <= 1, "out of sight until focused");
  await skip.focus();
  assert.ok((await skip.boundingBox()).width > 20, "shown when it has the focus");
  await page.getByTestId("view-overview").screenshot({ path: screenshotPath("skip-link.png") });
  const parts = await page.locator('[data-testid="treemap"] [tabindex="0"]').count();
  assert.ok(parts > 20, "the treemap has many stops to skip");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "after-treemap");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="treemap"]')), false, "the next stop is past the treemap");
  await context.close();
});

test("the layout works at 800 px: no horizontal overflow in any view", async () => {
  const { page, context } = await openApp("", { viewport: { width: 800, height: 1000 } });
  const views = [["overview", "Overview"], ["session", "Session"], ["transcript", "Transcript"], ["prompt", "System prompt"], ["tools", "Tools"], ["history", "History"], ["request", "Request"], ["protocols", "Protocols"], ["usage", "Usage & cache"], ["findings", "Findings"], ["whatif", "What if"]];
  for (const [key, label] of views) {
    await showView(page, key, label);
    if (key === "transcript") await page.locator('[data-testid="transcript-list"] .entry').nth(2).click();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    const { scroll, client, wide } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      wide: [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && getComputedStyle(e).position !== "absolute" && !e.closest(".vlist,.view-area pre,.body,.skip-link,svg")).slice(0, 5).map((e) => `${e.tagName}.${e.className?.baseVal ?? e.className}`),
    }));
    assert.ok(scroll <= client, `${key}: the page is ${scroll} px wide in ${client} (${wide.join(", ")})`);
    if (["overview", "transcript", "request"].includes(key)) await page.screenshot({ path: screenshotPath(`layout-800-${key}.png`), fullPage: true });
  }
  await context.close();
});

test("the call picker: a call clicked in the usage timeline or the session tree rebuilds that call's request, byte for byte", async () => {
  // A scripted capture as a user has it: the session pi left after the run (every call of it)
  // with the run's files and environment; request-K of the capture is call K of that session.
  const src = path.join(corpus, "oc-scripted-multiturn");
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-calls-")), "my-session");
  fs.cpSync(src, dir, { recursive: true });
  const after = fs.readFileSync(path.join(src, "expected/session.after.jsonl"), "utf8");
  fs.writeFileSync(path.join(dir, "session.jsonl"), after);
  for (const f of fs.readdirSync(path.join(dir, "expected"))) if (f !== "env.json") fs.rmSync(path.join(dir, "expected", f));
  const requests = fs.readdirSync(path.join(src, "expected")).filter((f) => /^request-\d+\.json$/.test(f)).length;
  const want = (k) => fs.readFileSync(path.join(src, `expected/request-${k}.json`), "utf8");
  const answers = after.split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.type === "message" && e.message.role === "assistant");
  assert.equal(answers.length, requests, "one answer per captured request");

  const { page, context } = await openApp("#view=request");
  await openFolder(page, dir);
  assert.equal(await page.getByTestId("call-bar").count(), 0, "the next request (the prompt) first");
  const bodyOf = async (k) => {
    await page.waitForFunction((k) => document.querySelector('[data-testid="call-bar"]')?.dataset.call === String(k) && document.querySelector('.view-area[data-state="ready"]'), k, { timeout: 60000 });
    await showView(page, "request", "Request");
    return page.getByTestId("body-json").textContent();
  };
  // The usage timeline: one column per call.
  await showView(page, "usage", "Usage & cache");
  assert.equal(await page.locator('[data-testid="usage-chart"] g.col').count(), requests);
  await page.locator('[data-testid="usage-chart"] g.col[data-col="1"]').click();
  assert.equal(await bodyOf(2), want(2), "call 2 from the usage timeline: request-2, byte-identical");
  const usage = answers[1].message.usage;
  assert.equal(await page.getByTestId("call-usage").textContent(),
    `reported: ${usage.input.toLocaleString("en-US")} input · ${usage.cacheRead.toLocaleString("en-US")} cache read · ${usage.cacheWrite.toLocaleString("en-US")} cache write · ${usage.output.toLocaleString("en-US")} output`,
    "the call's reported usage beside it");
  await page.screenshot({ path: screenshotPath("call-picker-usage.png") });
  // The session tree.
  await showView(page, "session", "Session");
  await page.getByTestId("tree-call-3").click();
  assert.equal(await bodyOf(3), want(3), "call 3 from the session tree: request-3, byte-identical");
  // Every call of the run, from the usage view's list.
  for (let k = 1; k <= requests; k++) {
    await showView(page, "usage", "Usage & cache");
    await page.getByTestId(`call-pick-${k}`).click();
    assert.equal(await bodyOf(k), want(k), `call ${k}: request-${k}`);
  }
  // And back to the next request.
  await page.getByTestId("call-bar-next").click();
  await page.waitForFunction(() => !document.querySelector('[data-testid="call-bar"]') && document.querySelector('.view-area[data-state="ready"]'), null, { timeout: 60000 });
  await context.close();
});

test("after a protocol switch, the session tree, the calls and the usage timeline are the session's, taken from the report the page already has", async () => {
  // The worker leaves the session, its calls and its usage timeline out of every report after
  // the first of a scenario (the same under every protocol); the page puts them back from it.
  const src = path.join(corpus, "oc-scripted-multiturn");
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-shared-")), "shared-session");
  fs.cpSync(src, dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "session.jsonl"), fs.readFileSync(path.join(src, "expected/session.after.jsonl")));
  for (const f of fs.readdirSync(path.join(dir, "expected"))) if (f !== "env.json") fs.rmSync(path.join(dir, "expected", f));
  const requests = fs.readdirSync(path.join(src, "expected")).filter((f) => /^request-\d+\.json$/.test(f)).length;
  // What each report from the worker says it shares (a wrapped Worker, before the page loads).
  const init = () => {
    window.__sharedFrom = [];
    const W = window.Worker;
    window.Worker = class extends W {
      constructor(...a) {
        super(...a);
        this.addEventListener("message", (e) => { if (e.data?.type === "report") window.__sharedFrom.push([e.data.gen, e.data.api ?? null, e.data.sharedFrom ?? null]); });
      }
    };
  };
  const { page, context } = await openApp("#view=session", { init });
  await openFolder(page, dir);
  const seen = async () => {
    await showView(page, "session", "Session");
    const calls = await page.locator('[data-testid^="tree-call-"]').count();
    const text = await page.getByTestId("session-tree").textContent();
    await showView(page, "usage", "Usage & cache");
    const picks = await page.locator('[data-testid^="call-pick-"]').count();
    const columns = await page.locator('[data-testid="usage-chart"] g.col').count();
    return { calls, picks, columns, text };
  };
  const native = await seen();
  assert.equal(native.picks, requests, "every call of the run");
  assert.equal(native.columns, requests, "the usage timeline: a column per call");
  assert.ok(native.calls > 0);
  for (const api of ["anthropic-messages", "google-generative-ai"]) {
    await page.getByTestId(`protocol-${api}`).click();
    await page.waitForFunction((a) => document.querySelector(`.view-area[data-api="${a}"][data-state="ready"]`), api, { timeout: 60000 });
    assert.deepEqual(await seen(), native, `${api}: the same session tree and calls`);
  }
  // The folder's reports: the first carried the session, each switch's took it from a report
  // the page held.
  const shared = await page.evaluate(() => window.__sharedFrom);
  const gen = shared.filter(([, a]) => a === null).at(-1)[0]; // the folder's (its model's own protocol)
  const mine = shared.filter(([g]) => g === gen);
  assert.equal(mine[0][2], null, `the first report carries the session: ${JSON.stringify(shared)}`);
  const switched = mine.filter(([, a]) => a === "anthropic-messages" || a === "google-generative-ai");
  assert.equal(switched.length, 2, JSON.stringify(shared));
  for (const [, a, from] of switched) assert.ok(from, `${a} shares its session: ${JSON.stringify(shared)}`);
  await context.close();
});

test("the session tree: an answer on another branch is a call too, rebuilt on its own branch as the CLI's --call ENTRY does", async () => {
  const dir = path.join(corpus, "oc-session-leaf-other-branch");
  const { page, context } = await openApp("#view=session");
  await openFolder(page, dir);
  await showView(page, "session", "Session");
  const chips = page.locator('button.call.off-branch[data-testid^="tree-call-"]');
  assert.ok((await chips.count()) >= 1, "the tree offers the answers off the active branch");
  const chip = chips.first();
  const id = (await chip.getAttribute("data-testid")).slice("tree-call-".length);
  assert.match(id, /^[0-9a-f]{8}$/, "named by the answer's entry id");
  await chip.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="call-bar"]') && document.querySelector('.view-area[data-state="ready"]'), null, { timeout: 60000 });
  await showView(page, "request", "Request");
  const got = await page.getByTestId("body-json").textContent();
  const bin = path.join(repo, "target/debug/ctxlens");
  if (!fs.existsSync(bin)) execFileSync("cargo", ["build", "-p", "ctxlens-cli", "--quiet"], { cwd: repo, stdio: "inherit" });
  const want = execFileSync(bin, ["assemble", "--case", dir, "--call", id], { maxBuffer: 1 << 28 }).toString("utf8");
  assert.ok(want.length > 0, "the CLI rebuilds that call");
  assert.equal(got, want, "the app's body for the off-branch call is the CLI's, byte for byte");
  const active = execFileSync(bin, ["assemble", "--case", dir], { maxBuffer: 1 << 28 }).toString("utf8");
  assert.notEqual(got, active, "not the active branch's request");
  await context.close();
});

test("in a capture (the demo), a chosen call is read from the session pi left: the run's own call rebuilds request-1", async () => {
  const { page, context } = await openApp("#view=usage");
  const before = await page.locator('[data-testid^="call-pick-"]').count();
  assert.equal(before, 6, "the six calls of the demo's session");
  await page.getByTestId("call-pick-2").click();
  await page.waitForFunction(() => document.querySelector('[data-testid="call-bar"]')?.dataset.call === "2" && document.querySelector('.view-area[data-state="ready"]'), null, { timeout: 60000 });
  const n = await page.locator('[data-testid^="call-pick-"]').count();
  assert.equal(n, before + 1, "session.after.jsonl holds the run's call too");
  await page.getByTestId(`call-pick-${n}`).click();
  await page.waitForFunction((n) => document.querySelector('[data-testid="call-bar"]')?.dataset.call === String(n) && document.querySelector('.view-area[data-state="ready"]'), n, { timeout: 60000 });
  await showView(page, "request", "Request");
  assert.equal(await page.getByTestId("body-json").textContent(), fs.readFileSync(path.join(repo, "www/demo/expected/request-1.json"), "utf8"));
  await context.close();
});

test("a report is on screen before its body's tree: the Request view says it is reading the body, then shows the tree of the same bytes", async () => {
  // The worker sends the parsed body (the tree's) after the report; its `body` messages are
  // held on the page until `window.__release()`.
  const { page, context } = await openApp("#view=request", { init: holding("body") });
  // The report is here (its raw body, the CLI's bytes) while the tree waits for its body.
  await page.getByTestId("body-reading").waitFor({ timeout: 10000 });
  assert.equal(await page.getByTestId("json-tree").count(), 0, "no tree before the body comes");
  const bin = path.join(repo, "target/debug/ctxlens");
  if (!fs.existsSync(bin)) execFileSync("cargo", ["build", "-p", "ctxlens-cli", "--quiet"], { cwd: repo, stdio: "inherit" });
  const demo = path.join(repo, "www/demo");
  const want = execFileSync(bin, ["assemble", "--case", demo, "--env", path.join(demo, "expected/env.json")], { maxBuffer: 1 << 28 }).toString("utf8");
  assert.equal(await page.getByTestId("body-json").textContent(), want, "the raw body is the CLI's");
  assert.ok((await page.evaluate(() => window.__release())) >= 1, "the body came after the report");
  // Then the tree: every top-level member of the body.
  const tree = page.getByTestId("json-tree");
  await tree.locator('[data-path="messages"]').first().waitFor({ timeout: 10000 });
  assert.equal(await page.getByTestId("body-reading").count(), 0);
  for (const k of Object.keys(JSON.parse(want))) assert.ok((await tree.locator(`[data-path="${k}"]`).count()) >= 1, `the tree has ${k}`);
  await context.close();
});

test("a scenario's first report is on screen before its session: the session's views say they are reading it, no other protocol is asked for meanwhile, then the entries come", async () => {
  // The worker sends the session's parts (entries, calls, usage timeline) after the first
  // report; its `session` messages are held on the page until `window.__release()`, and the
  // page's `assemble` messages are listed.
  const { page, context } = await openApp("#view=session", { init: holding("session") });
  // The request's numbers are on screen; the Session view waits for its entries.
  await page.getByTestId("session-pending").first().waitFor({ timeout: 10000 });
  assert.equal(await page.locator('.view-area[data-state="ready"][data-request="true"]').count(), 1);
  assert.equal(await page.getByTestId("session-view").count(), 0, "no entries before the session comes");
  // The page asks for the next protocol right after a report (its prefetch); not while that
  // report's session is on its way, since the next report shares it.
  assert.deepEqual(await page.evaluate(() => window.__assembles), [null], "only the model's own protocol asked for");
  assert.equal(await page.evaluate(() => window.__release()), 1, "the session came after the report");
  // Then the entries, as ctxlens report counts them, and the prefetch goes on.
  const demo = path.join(repo, "www/demo");
  const report = JSON.parse(execFileSync(cliBin(), ["report", "--case", demo, "--env", path.join(demo, "expected/env.json")], { maxBuffer: 1 << 28 }).toString("utf8"));
  const view = page.getByTestId("session-view");
  await view.waitFor({ timeout: 10000 });
  assert.match(await view.textContent(), new RegExp(`${report.session.entries.length} entries · `));
  assert.equal(await page.getByTestId("session-pending").count(), 0);
  await page.waitForFunction(() => window.__assembles.length >= 2, null, { timeout: 10000 });
  // A protocol the page fetched after it shares the same session: its Session view has the entries at once.
  const other = await page.evaluate(() => window.__assembles[1]);
  await page.evaluate((api) => { location.hash = `#view=session&api=${api}`; }, other);
  await page.waitForFunction((api) => document.querySelector(`.view-area[data-api="${api}"][data-state="ready"]`), other, { timeout: 30000 });
  assert.match(await page.getByTestId("session-view").textContent(), new RegExp(`${report.session.entries.length} entries · `));
  await context.close();
});

test("the System prompt view lists each pi package with what it brings, as ctxlens stats prices them", async () => {
  const caseDir = path.join(repo, "tests/conformance/pi-0.85.1/pkg-npm");
  const stats = JSON.parse(execFileSync(cliBin(), ["stats", "--no-tokens", "--case", caseDir], { encoding: "utf8" }));
  const { page } = await openApp();
  await openFolder(page, caseDir);
  await showView(page, "prompt", "System prompt");
  const rows = page.locator('[data-testid="prompt-packages"] tbody tr');
  assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => r.dataset.source)), stats.packages.map((p) => p.source));
  for (const [i, p] of stats.packages.entries()) {
    const text = await rows.nth(i).textContent();
    if (p.installed === null) assert.ok(text.includes("not loaded"), text);
    else {
      assert.ok(text.includes(p.chars.toLocaleString("en-US")), `${p.source}: ${text}`);
      for (const s of p.skills) assert.ok(text.includes(s.name), `${p.source}: ${s.name}`);
    }
  }
});

test("the Tools view groups the tools a pi package registered under it, as ctxlens stats prices them", async () => {
  // pkg-ext-resume: the session declares jira_lookup, which npm:jira-kit's extension registered.
  const caseDir = path.join(repo, "tests/conformance/pi-1.6.0/pkg-ext-resume");
  const stats = JSON.parse(execFileSync(cliBin(), ["stats", "--no-tokens", "--case", caseDir], { encoding: "utf8" }));
  const pkg = stats.packages.find((p) => p.tools.length > 0);
  assert.deepEqual(pkg.tools.map((t) => t.name), ["jira_lookup"]);
  const { page } = await openApp();
  await openFolder(page, caseDir);
  await showView(page, "tools", "Tools");
  const group = page.locator(`[data-testid="tools-packages"] [data-package="${pkg.source}"]`);
  const chars = pkg.tools.reduce((n, t) => n + t.chars, 0);
  assert.match(await group.textContent(), new RegExp(`1 tool\\(s\\) · ${chars.toLocaleString("en-US")} chars`));
  // pi's own tools first, the package's last, with the package named in its row.
  const rows = page.locator('[data-testid="tools-bars"] tbody tr');
  const last = rows.nth((await rows.count()) - 1);
  assert.ok((await last.textContent()).includes("jira_lookup") && (await last.textContent()).includes(pkg.source));
  await page.getByTestId("tools-view").screenshot({ path: screenshotPath("tools-by-package.png") });
  await showView(page, "prompt", "System prompt");
  const row = page.locator(`[data-testid="prompt-packages"] tbody tr[data-source="${pkg.source}"]`);
  assert.ok((await row.textContent()).includes("tools: jira_lookup"));
});

test("a package given with -e is listed as given on pi's command line, with what it brings", async () => {
  const caseDir = path.join(repo, "tests/conformance/pi-1.6.0/pkg-cli");
  const stats = JSON.parse(execFileSync(cliBin(), ["stats", "--no-tokens", "--case", caseDir], { encoding: "utf8" }));
  const { page } = await openApp();
  await openFolder(page, caseDir);
  await showView(page, "prompt", "System prompt");
  const rows = page.locator('[data-testid="prompt-packages"] tbody tr');
  assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => r.dataset.source)), stats.packages.map((p) => p.source));
  const kit = rows.first();
  assert.equal(await kit.locator("td").first().getAttribute("title"), "given with -e on pi's command line");
  assert.ok((await kit.textContent()).includes("skills: lint"), await kit.textContent());
  assert.ok((await kit.textContent()).includes("prompt templates: review"), await kit.textContent());
});

test("a pi package folder dropped on an opened case is placed as pi install puts it, and the request is pi's with that package", async () => {
  // sp-resume-same and pkg-resume: the same session resumed, before and after `pi install
  // npm:deploy-kit`. Dropping deploy-kit's folder on the first gives pi's request of the second.
  const want = fs.readFileSync(path.join(repo, "tests/conformance/pi-1.6.0/pkg-resume/expected/request-1.json"), "utf8");
  const { page } = await openApp("#view=request");
  await openFolder(page, path.join(repo, "tests/conformance/pi-1.6.0/sp-resume-same"));
  assert.notEqual(await page.getByTestId("body-json").textContent(), want);
  await page.getByTestId("folder-input").setInputFiles(path.join(repo, "tests/conformance/pi-1.6.0/pkg-resume/agent/npm/node_modules/deploy-kit"));
  await page.waitForFunction((w) => document.querySelector('[data-testid="body-json"]')?.textContent === w, want, { timeout: 60000 });
  await showView(page, "prompt", "System prompt");
  const row = page.locator('[data-testid="prompt-packages"] tbody tr[data-source="npm:deploy-kit"]');
  assert.match(await row.textContent(), /skills: deploy · prompt templates: ship/);
});

test("a long session's per-message events and message sizes: the first and the largest listed, the rest counted, as ctxlens report has them", async () => {
  // 300 turns whose answers came from another model: transformMessages turns each one's
  // thinking into text, an event per message, past what a stage lists one by one.
  const src = path.join(corpus, "oc-no-tools-history");
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-events-")), "many-events");
  fs.cpSync(src, dir, { recursive: true });
  const head = fs.readFileSync(path.join(src, "session.jsonl"), "utf8").split("\n")[0];
  const lines = [head];
  let parent = null;
  for (let i = 0; i < 600; i++) {
    const id = `b${String(i).padStart(7, "0")}`;
    const ts = 1767603601000 + i * 1000;
    const text = `turn ${i} ` + "words ".repeat((i * 37) % 211);
    const message = i % 2 === 0
      ? { role: "user", content: [{ type: "text", text }], timestamp: ts }
      : { role: "assistant", content: [{ type: "thinking", thinking: `thought ${i}` }, { type: "text", text }], api: "openai-completions", provider: "mock", model: "other-model",
          usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: ts };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(ts).toISOString(), message }));
    parent = id;
  }
  fs.writeFileSync(path.join(dir, "session.jsonl"), lines.join("\n") + "\n");
  const report = JSON.parse(execFileSync(cliBin(), ["report", "--case", dir], { maxBuffer: 1 << 28 }).toString("utf8"));
  const stages = report.stages;
  const at = stages.findIndex((s) => s.id === "transform-messages");
  const all = stages[at].events;
  assert.ok(all.length > 250, `an event per answer (${all.length})`);
  const { page, context } = await openApp();
  await openFolder(page, dir);
  await page.locator(".stages .stage-link").nth(at).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="stage-view"]')?.dataset.stage === "transform-messages");
  // The first 200 one by one, as the report has them; the rest counted by kind and rule.
  const shown = await page.locator('[data-testid="stage-events"] > li .msg').allTextContents();
  assert.deepEqual(shown, all.slice(0, 200).map((e) => e.message));
  const left = page.locator('[data-testid="stage-events-left"] li');
  const counts = (await left.evaluateAll((ls) => ls.map((l) => Number(l.dataset.count)))).reduce((a, b) => a + b, 0);
  assert.equal(counts, all.length - 200, "every event left out is counted");
  assert.match(await page.getByTestId("stage-events-left").textContent(), new RegExp(`${(all.length - 200).toLocaleString("en-US")} more events after the first 200, counted by rule`));
  // The stage's counts by kind are the whole stage's.
  const converted = all.filter((e) => e.kind === "converted").length;
  assert.match(await page.getByTestId("stage-changes").textContent(), new RegExp(`${converted} converted`));
  await page.getByTestId("stage-events-left").screenshot({ path: screenshotPath("stage-events-left.png") });
  // The History view lists the largest messages of all the body's, and says how many there are.
  await showView(page, "history", "History");
  const byMessage = report.stats.history.byMessage;
  assert.ok(byMessage.length > 200);
  assert.match(await page.locator('[data-testid="view-history"] h4', { hasText: "By message" }).textContent(), new RegExp(`By message · ${byMessage.length} · the 200 largest`));
  const largest = byMessage.map((m, i) => [m, i]).sort((a, b) => b[0].chars - a[0].chars || a[1] - b[1]).slice(0, 200).map(([m]) => m.path);
  const rows = await page.locator('[data-testid="history-messages"] tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.path));
  assert.deepEqual(rows, largest, "the 200 largest, largest first");
  await context.close();
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
});
