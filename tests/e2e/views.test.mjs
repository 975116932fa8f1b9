// The views on the bundled demo: every pipeline stage, every view with its real numbers, the
// collapsible JSON tree and its sources, Copy / Download / cURL, the compare mode, findings, the
// virtualized session list on a large session; screenshots of every main view in light and dark.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { open, repo, screenshotPath, servedApp, cliBin } from "./harness.mjs";

const expectedBody = fs.readFileSync(path.join(repo, "www/demo/expected/request-1.json"), "utf8");
const VIEWS = [
  ["overview", "Overview"], ["session", "Session"], ["prompt", "System prompt"], ["tools", "Tools"], ["history", "History"],
  ["request", "Request"], ["protocols", "Protocols"], ["usage", "Usage & cache"], ["findings", "Findings"],
];

const run = servedApp();
const opened = run.opened;
let server, browser;
before(async () => ({ server, browser } = await run.ready));

async function openDemo(opts = {}) {
  const o = await open(browser, server.url + "/", opts);
  opened.push(o);
  await o.page.getByTestId("stat-system-chars").waitFor({ timeout: 60000 });
  await o.page.locator('[data-testid^="view-"]').first().waitFor({ timeout: 60000 });
  return o;
}

async function showView(page, key, label) {
  await page.locator("nav.view-tabs button", { hasText: new RegExp(`^${label.replace(/[&]/g, "\\$&")}$`) }).click();
  await page.getByTestId(`view-${key}`).waitFor({ timeout: 10000 });
}

/** Picks the Protocols view's second protocol, once every protocol's report is in (a chip
 * added while the test clicks shifts the others under the pointer), and waits for the pick. */
async function chooseCompareB(page, api) {
  await page.waitForFunction(() => document.querySelectorAll(".proto-tab").length > 0 && document.querySelectorAll(".proto-tab.pending").length === 0, null, { timeout: 120000 });
  await page.getByTestId(`compare-b-${api}`).click({ timeout: 60000 });
  await page.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute("aria-pressed") === "true", `compare-b-${api}`, { timeout: 10000 });
}

const num = (s) => Number(String(s).replace(/[^0-9.-]/g, ""));

/** The CLI (the native assembly): the debug build scripts/test.sh makes, else a release build. */
function cli(args) {
  const bin = cliBin();
  return execFileSync(bin, args, { maxBuffer: 1 << 28 }).toString("utf8");
}

test("stepping through every pipeline stage shows each stage's data and changes", async () => {
  const { page, context } = await openDemo();
  const stage = page.getByTestId("stage-view");
  await stage.waitFor();
  const seen = [];
  for (let i = 0; i < 30; i++) {
    const id = await stage.getAttribute("data-stage");
    seen.push(id);
    const title = await page.getByTestId("stage-title").textContent();
    assert.match(title, new RegExp(`^${i + 1}/\\d+ `), "the title numbers the stage");
    assert.ok((await page.getByTestId("stage-summary").textContent()).length > 0);
    assert.ok((await stage.locator(".pi-source").first().textContent()).length > 0, "pi's source location is shown");
    if (id === "agent-context") {
      assert.equal(await page.getByTestId("thinking-clamp").textContent(), "low → high", "the clamp from X to Y");
      assert.match(await page.getByTestId("stage-changes").textContent(), /1 clamped/);
    }
    if (id === "session-read") assert.match(await page.getByTestId("stage-changes").textContent(), /dropped/);
    const next = page.getByTestId("stage-next");
    if (await next.isDisabled()) break;
    await next.click();
    await page.waitForFunction((prev) => document.querySelector('[data-testid="stage-view"]')?.getAttribute("data-stage") !== prev, id);
  }
  assert.deepEqual(seen, [
    "session-read", "agent-messages", "agent-context", "input-appended", "transform-context", "convert-to-llm",
    "transform-messages", "convert-messages", "build-params", "on-payload", "http-body",
  ]);
  // And back with the keyboard.
  await page.keyboard.press("ArrowLeft");
  await page.waitForFunction(() => document.querySelector('[data-testid="stage-view"]')?.getAttribute("data-stage") === "on-payload");
  await context.close();
});

test("every view opens on the demo and shows the demo's numbers", async () => {
  const { page, context } = await openDemo();
  const sys = num(await page.getByTestId("stat-system-chars").textContent());
  const tools = num(await page.getByTestId("stat-tools-chars").textContent());
  const hist = num(await page.getByTestId("stat-history-chars").textContent());
  const body = JSON.parse(expectedBody);

  await showView(page, "overview", "Overview");
  assert.ok((await page.locator('[data-testid="treemap"] .tm-item').count()) > 20, "the treemap has every part");

  await showView(page, "prompt", "System prompt");
  const chars = await page.locator('[data-testid="prompt-sections"] tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.dataset.chars)));
  assert.equal(chars.length, 29);
  assert.equal(chars.reduce((a, b) => a + b, 0), sys, "the section table sums to stat-system-chars");
  assert.equal(await page.getByTestId("prompt-text").textContent(), body.messages[0].content, "the coloured text is exactly the system prompt");
  assert.equal(await page.locator('[data-testid="context-files"] li').count(), 2);
  await page.locator('[data-testid="prompt-sections"] tbody tr').nth(21).click();
  assert.equal(await page.locator('[data-testid="prompt-text"] .sec.sel').count(), 1, "selecting a row marks its span");

  await showView(page, "tools", "Tools");
  const rows = await page.locator('[data-testid="tools-bars"] tbody tr').evaluateAll((rs) => rs.map((r) => [r.dataset.key, Number(r.dataset.value)]));
  assert.equal(rows.length, 7, "the demo's 7 tools");
  assert.equal(rows[0][0], "tool:edit", "edit is the largest");
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1][1] >= rows[i][1], "sorted by size");
  assert.equal(rows.reduce((a, r) => a + r[1], 0), tools, "the bars sum to stat-tools-chars");
  await page.locator('[data-testid="tools-bars"] tbody tr').first().click();
  await page.getByTestId("tool-detail").waitFor();
  assert.ok((await page.locator('[data-testid="tool-params"] .jt-row').count()) > 5, "the schema as a tree");

  await showView(page, "history", "History");
  const kinds = await page.locator('[data-testid="history-kinds"] .legend .num').allTextContents();
  assert.equal(kinds.map(num).reduce((a, b) => a + b, 0), hist, "the kinds sum to stat-history-chars");
  assert.equal(await page.locator('[data-testid="history-results"] tbody tr').count(), 4, "read, bash, edit, todo results");

  await showView(page, "session", "Session");
  assert.equal(await page.getByTestId("session-tree").getAttribute("data-count"), "15");
  assert.equal(await page.getByTestId("session-messages").getAttribute("data-count"), "13");
  assert.equal(await page.locator('[data-testid="session-tree"] .entry.active').count(), 15, "all on the active branch");

  await showView(page, "usage", "Usage & cache");
  assert.equal(await page.locator('[data-testid="usage-chart"] g.col').count(), 6, "six calls with usage");
  assert.equal(await page.getByTestId("cache-read-share").textContent(), "50.0%");

  await showView(page, "findings", "Findings");
  const findings = page.locator('[data-testid="findings"] > li');
  assert.ok((await findings.count()) > 0, "the findings list is non-empty on the demo");
  const subject = findings.first().getByTestId("finding-subject");
  await subject.click();
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes("sel=tool:edit"));
  await context.close();
});

test("the request view: JSON tree, sources, raw body, Copy, Download, cURL", async () => {
  const { page, context, seen } = await openDemo();
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  await showView(page, "request", "Request");
  assert.equal(await page.locator('[data-testid="body-json"]').count(), 1, "exactly one body-json on the page");
  assert.equal(await page.getByTestId("body-json").textContent(), expectedBody, "the raw body is pi's bytes");

  const tree = page.getByTestId("json-tree");
  const before = await tree.locator(".jt-row").count();
  const closed = tree.locator('[data-path="messages.1"] > .jt-toggle');
  await closed.click();
  const after = await tree.locator(".jt-row").count();
  assert.ok(after > before, "a node expands");
  await tree.locator('[data-path="messages.1"] > .jt-toggle').first().click();
  assert.equal(await tree.locator(".jt-row").count(), before, "and collapses");

  await tree.locator('[data-path="model"]').hover();
  assert.match(await page.getByTestId("provenance").textContent(), /parameter model/, "hovering names the source");
  await tree.locator('[data-path="messages.0"] > .jt-toggle').click();
  await tree.locator('[data-path="messages.0.content"]').click();
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes("sel=path:messages.0.content"));
  await page.mouse.move(0, 0);
  assert.match(await page.getByTestId("provenance").textContent(), /system prompt/, "the selection names its source");

  await page.getByTestId("copy-body").click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expectedBody, "Copy puts the body on the clipboard");

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download-body").click()]);
  assert.equal(fs.readFileSync(await download.path(), "utf8"), expectedBody, "Download saves the body");
  assert.match(await page.getByTestId("download-body").getAttribute("href"), /^blob:/);

  await page.getByTestId("curl-toggle").click();
  const curl = await page.getByTestId("curl").textContent();
  assert.match(curl, /^curl 'http:\/\/127\.0\.0\.1:35261\/v1\/chat\/completions'/);
  assert.match(curl, /-H 'content-type: application\/json'/);
  assert.ok(curl.includes(`--data-raw '${expectedBody.replaceAll("'", "'\\''")}'`), "the body, shell-quoted");
  assert.ok(!seen.some((u) => u.includes(":35261")), "the request's URL is never fetched");
  await context.close();
});

test("the compare mode maps each block of two protocols and reports losses", async () => {
  const { page, context } = await openDemo();
  await showView(page, "protocols", "Protocols");
  await chooseCompareB(page, "anthropic-messages");
  const table = page.getByTestId("mapping-table");
  const sysRow = table.locator("tr", { hasText: "System prompt" }).first();
  // The table re-renders for the protocol just chosen.
  await page.waitForFunction(() => {
    const row = [...document.querySelectorAll('[data-testid="mapping-table"] tr')].find((r) => r.textContent.includes("System prompt"));
    return row && /system\[[*0]\]\.text/.test(row.querySelectorAll("td")[1]?.textContent ?? "");
  }, null, { timeout: 30000 });
  const cells = await sysRow.locator("td").allTextContents();
  assert.match(cells[0], /messages\[\*?0?\]\.content/);
  assert.match(cells[1], /system\[[*0]\]\.text/);
  assert.ok((await page.locator('[data-testid="loss-report"] li').count()) > 0);
  await context.close();
});

test("the compare table, loss report and adapter events are `ctxlens compare`'s, from the worker", async () => {
  const demo = path.join(repo, "www/demo");
  const want = JSON.parse(cli(["compare", "--case", demo, "--env", path.join(demo, "expected/env.json"), "--with", "anthropic-messages"]));
  // pi's source locations are shown as pi's file paths (the report's sourcePrefixes, without the npm scope).
  const prefixes = JSON.parse(cli(["report", "--case", demo, "--env", path.join(demo, "expected/env.json")])).sourcePrefixes;
  const piPath = (src) => {
    const i = (src ?? "").indexOf("/");
    const dir = i > 0 ? prefixes[src.slice(0, i)] : undefined;
    return dir ? `${dir.replace(/^@earendil-works\//, "")}${src.slice(i)}` : src;
  };
  const { page, context } = await openDemo();
  await showView(page, "protocols", "Protocols");
  await chooseCompareB(page, "anthropic-messages");
  const view = page.locator('[data-testid="protocols-view"][data-b="anthropic-messages"]');
  await view.locator('[data-testid="mapping-table"]').waitFor({ timeout: 60000 });
  assert.equal(await view.getAttribute("data-state"), "ready");
  assert.equal(await view.getAttribute("data-a"), want.a.api);
  const shown = await page.evaluate(() => {
    const cell = (td) => ({
      paths: [...td.querySelectorAll(".mono")].map((d) => d.textContent),
      note: td.querySelector(".muted")?.textContent ?? null,
      notSent: !!td.querySelector(".badge.dropped"),
    });
    const events = (side) => [...document.querySelectorAll(`[data-testid="compare-events-${side}"] li`)].map((li) => li.textContent.trim());
    return {
      rows: [...document.querySelectorAll('[data-testid="mapping-table"] tbody tr')].map((tr) => {
        const td = tr.querySelectorAll("td");
        return { kind: tr.dataset.kind, title: tr.querySelector("th").textContent, a: cell(td[0]), b: cell(td[1]) };
      }),
      losses: [...document.querySelectorAll('[data-testid="loss-report"] li')].map((li) => ({ side: li.dataset.side, kind: li.querySelector(".badge").classList[1], detail: li.querySelector(".loss-detail").textContent })),
      events: { a: events("a"), b: events("b") },
    };
  });
  const side = (x) => ({
    paths: x.paths,
    note: x.paths.length === 0 ? null : x.value ?? (x.chars > 0 ? `${x.chars.toLocaleString("en-US")} chars in ${x.leaves} part${x.leaves === 1 ? "" : "s"}` : null),
    notSent: x.paths.length === 0,
  });
  const rows = want.mapping.filter((m) => m.a.paths.length || m.b.paths.length);
  assert.ok(rows.length >= 5, "the demo has blocks to map");
  assert.deepEqual(shown.rows, rows.map((m) => ({ kind: m.kind, title: m.title, a: side(m.a), b: side(m.b) })));
  assert.ok(want.losses.length > 0, "the demo loses something between the two");
  assert.deepEqual(shown.losses, want.losses.map((l) => ({ side: l.side, kind: l.kind, detail: l.detail })));
  for (const s of ["a", "b"]) {
    assert.deepEqual(shown.events[s], want.events[s].map((e) => `${e.kind} ×${e.count} ${e.example} ${e.piSource ? piPath(e.piSource) : ""}`.trim()));
  }
  await page.getByTestId("view-protocols").screenshot({ path: screenshotPath("view-protocols-compare-cli.png") });
  await context.close();
});

test("branches, labels and compactions in the session tree", async () => {
  const { page, context } = await openDemo();
  for (const [name, check] of [
    ["an-branch-summary", async () => {
      assert.ok((await page.locator('[data-testid="session-tree"] .node.fork').count()) > 0, "a branch point indents");
      assert.ok((await page.locator('[data-testid="session-tree"] .entry:not(.active)').count()) > 0, "entries off the active branch");
      assert.ok((await page.locator('[data-testid="session-tree"] .t-branch').count()) > 0, "branch summaries are marked");
    }],
    ["an-compaction-kept-range", async () => {
      assert.ok((await page.locator('[data-testid="session-tree"] .t-compaction').count()) > 0, "compactions are marked");
      assert.ok((await page.locator('[data-testid="session-tree"] .entry.active.cut').count()) > 0, "entries cut by the compaction");
    }],
  ]) {
    await page.getByTestId("folder-input").setInputFiles(path.join(repo, "tests/conformance/pi-0.85.1", name));
    await page.waitForFunction((n) => document.querySelector(".scenario")?.textContent === n, name, { timeout: 60000 });
    await showView(page, "session", "Session");
    await page.waitForFunction((n) => document.querySelector('[data-testid="session-view"] h3')?.textContent.includes("session"), null, { timeout: 30000 });
    await check();
    await page.getByTestId("view-session").screenshot({ path: screenshotPath(`view-session-${name}.png`) });
  }
  await context.close();
});

test("a large session: the entry tree renders only the visible rows", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-big-"));
  const n = 20000;
  const lines = [JSON.stringify({ type: "session", version: 3, id: "01a228d3-c51b-77ee-9b97-000000000000", timestamp: "2026-11-29T19:41:36.924Z", cwd: "/tmp/pi-ctx-demo/shop" })];
  let parent = null;
  for (let i = 0; i < n; i++) {
    const id = i.toString(16).padStart(8, "0");
    const ts = new Date(1795981297000 + i * 1000);
    const message = i % 2 === 0
      ? { role: "user", content: [{ type: "text", text: `question ${i}` }], timestamp: ts.getTime() }
      : { role: "assistant", content: [{ type: "text", text: `answer ${i}` }], api: "openai-completions", provider: "mock", model: "qwen3.8-flash",
          usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 }, stopReason: "stop", timestamp: ts.getTime() };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: ts.toISOString(), message }));
    parent = id;
  }
  const file = path.join(dir, "big.jsonl");
  fs.writeFileSync(file, lines.join("\n") + "\n");
  const { page, context } = await openDemo();
  await page.getByTestId("file-input").setInputFiles(file);
  await showView(page, "session", "Session");
  await page.waitForFunction((n) => document.querySelector('[data-testid="session-tree"]')?.dataset.count === String(n), n, { timeout: 120000 });
  const rendered = await page.locator('[data-testid="session-tree"] .vrow').count();
  assert.ok(rendered > 10 && rendered < 100, `only the visible rows are in the DOM (${rendered})`);
  await page.getByTestId("session-tree").evaluate((el) => { el.scrollTop = el.scrollHeight / 2; el.dispatchEvent(new Event("scroll")); });
  // Scrolled to the middle, the rows there are rendered, and still only a window of them.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="session-tree"] .entry')].some((e) => /question 100\d\d|answer 100\d\d/.test(e.textContent)));
  const after = await page.locator('[data-testid="session-tree"] .vrow').count();
  assert.ok(after > 10 && after < 100, `after scrolling, still only the visible rows (${after})`);
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("screenshots of every main view, light and dark, at 1280 and 1920", async () => {
  for (const colorScheme of ["light", "dark"]) {
    for (const width of [1280, 1920]) {
      const { page, context } = await openDemo({ viewport: { width, height: 1000 }, colorScheme });
      for (const [key, label] of VIEWS) {
        await showView(page, key, label);
        if (key === "tools") await page.locator('[data-testid="tools-bars"] tbody tr').first().click();
        if (key === "request") await page.getByTestId("json-tree").locator('[data-path="messages.2"] > .jt-toggle').click();
        if (key === "protocols") await chooseCompareB(page, "anthropic-messages");
        await page.waitForTimeout(150);
        // The view itself (its area), and at 1280 the whole page once.
        const el = page.getByTestId(`view-${key}`);
        await el.screenshot({ path: screenshotPath(`view-${key}-${colorScheme}-${width}.png`) });
      }
      if (width === 1280) await page.screenshot({ path: screenshotPath(`views-page-${colorScheme}.png`), fullPage: false });
      await context.close();
    }
  }
});

// Opt-in (CTXLENS_E2E_LARGE=40): how long each view takes to open on a large session.
const largeMb = Number(process.env.CTXLENS_E2E_LARGE || 0);
test(`each view opens quickly on a ${largeMb} MB session`, { skip: !largeMb && "set CTXLENS_E2E_LARGE=40 to measure" }, async () => {
  const lines = fs.readFileSync(path.join(repo, "www/demo/session.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const entries = lines.slice(1).filter((e) => e.type === "message");
  const out = [JSON.stringify(lines[0])];
  let size = out[0].length, parent = null, n = 0;
  const pad = "x".repeat(2000);
  while (size < largeMb * 1048576) {
    for (const e of entries) {
      const id = (n++).toString(16).padStart(8, "0");
      const c = { ...e, id, parentId: parent };
      if (c.message?.role === "toolResult") c.message = { ...c.message, content: [{ type: "text", text: pad + id }] };
      parent = id;
      const l = JSON.stringify(c);
      out.push(l);
      size += l.length + 1;
    }
  }
  const models = JSON.parse(fs.readFileSync(path.join(repo, "www/demo/models.json"), "utf8"));
  for (const p of Object.values(models.providers)) Object.assign(p, { baseUrl: "https://llm.example/v1", apiKey: "key" });
  const { page, context } = await openDemo();
  // From disk: a buffer would be decoded from base64 in the page by the test harness.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-views-large-"));
  fs.writeFileSync(path.join(dir, "large.jsonl"), out.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "models.json"), JSON.stringify(models));
  await page.getByTestId("file-input").setInputFiles([path.join(dir, "large.jsonl"), path.join(dir, "models.json")]);
  await page.waitForFunction(() => document.querySelector(".scenario")?.textContent.startsWith("large") && document.querySelector('.view-area[data-state="ready"]'), null, { timeout: 300000, polling: 200 });
  const times = {};
  for (const [key, label] of VIEWS) {
    const t0 = Date.now();
    await showView(page, key, label);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    times[key] = Date.now() - t0;
  }
  await showView(page, "request", "Request");
  const t0 = Date.now();
  await page.getByTestId("json-tree").locator('[data-path="messages.3"]').hover();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  times.hoverSource = Date.now() - t0;
  const result = { sessionMB: +(size / 1048576).toFixed(1), lines: out.length, viewOpenMs: times };
  console.log("views on a large session:", JSON.stringify(result));
  fs.writeFileSync(screenshotPath(`views-large-${largeMb}.json`), JSON.stringify(result, null, 2));
  // A measurement, written to artifacts/views-large-40.json: speed is measured, not asserted.
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
