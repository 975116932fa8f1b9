// The inputs as a new user has them: a session and a normal ~/.pi/agent. A session on a catalog
// provider without a key gets a placeholder key (said in the inputs panel, never shown); the agent
// dir and the project are dropped on their own targets and the list says where each file was laid
// and what pi made of it (read, shadowed, replaced by a later drop, not used and why); any file can
// be removed; bad drops say why and never replace good inputs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { serve, launch, open, repo, screenshotPath } from "./harness.mjs";

let server, browser;
const pages = [];
before(async () => {
  server = await serve();
  browser = await launch();
});
after(async () => {
  for (const p of pages) {
    const foreign = p.seen.filter((u) => !u.startsWith(server.url + "/") && !u.startsWith("data:") && !u.startsWith("blob:"));
    assert.deepEqual(foreign, [], "no request leaves the page's origin");
  }
  await browser?.close();
  await server?.close();
});

async function openApp(hash = "#view=request") {
  const o = await open(browser, server.url + "/" + hash);
  pages.push(o);
  await o.page.locator('.view-area[data-state="ready"]').waitFor({ state: "attached", timeout: 30000 });
  return o;
}

async function until(page, fn, arg, timeout = 30000) {
  const h = await page.waitForFunction(fn, arg, { timeout, polling: 50 });
  return h.jsonValue();
}

const CWD = "/home/ann/shop";

/** A session pi 0.85.1 would write on anthropic: a prompt and its answer. */
function anthropicSession() {
  const lines = [
    { type: "session", version: 3, id: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", timestamp: "2026-11-30T09:00:00.000Z", cwd: CWD },
    { type: "model_change", id: "m0000001", parentId: null, timestamp: "2026-11-30T09:00:00.100Z", provider: "anthropic", modelId: "claude-sonnet-4-5" },
    { type: "thinking_level_change", id: "t0000001", parentId: "m0000001", timestamp: "2026-11-30T09:00:00.200Z", thinkingLevel: "off" },
    { type: "message", id: "u0000001", parentId: "t0000001", timestamp: "2026-11-30T09:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "Why does the cart total drift?" }], timestamp: 1796029201000 } },
    { type: "message", id: "a0000001", parentId: "u0000001", timestamp: "2026-11-30T09:00:05.000Z", message: { role: "assistant", content: [{ type: "text", text: "Floating point: use integer cents." }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 120, output: 9, cacheRead: 0, cacheWrite: 0, totalTokens: 129, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 1796029205000 } },
  ];
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

/** A home as pi leaves it: ~/.pi/agent (with sessions and keys) and the project. */
function home() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-inputs-"));
  const w = (rel, text) => { fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true }); fs.writeFileSync(path.join(dir, rel), text); };
  w("agent/AGENTS.md", "Agent rules: answer in English.\n");
  w("agent/settings.json", "{\n  \"defaultThinkingLevel\": \"off\"\n}\n");
  w("agent/auth.json", "{\"anthropic\": {\"type\": \"api_key\", \"key\": \"sk-ant-api03-secret\"}}\n");
  w("agent/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lints the shop.\n---\nRun npm run lint.\n");
  w("agent/skills/lint/run.sh", "npm run lint\n");
  w("agent/skills/notes/ideas.md", "Not a skill: no SKILL.md here.\n");
  w("agent/sessions/--home-ann-shop--/2026-11-30T09-00-00-000Z_0199a1b2.jsonl", anthropicSession());
  w("shop/AGENTS.md", "Project rules: run the tests.\n");
  w("shop/CLAUDE.md", "Claude rules: never used, AGENTS.md wins.\n");
  w("shop/sub/CLAUDE.md", "Sub-folder rules: below the cwd.\n");
  w("shop/src/cart.js", "export const total = (items) => items.reduce((a, b) => a + b, 0);\n");
  w("shop/.pi/settings.json", "{}\n");
  w("session.jsonl", anthropicSession());
  return dir;
}

const rows = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid="placement"] [data-testid="placed-row"]')].map((li) => ({
  path: li.dataset.path, at: li.dataset.at ?? null, status: li.dataset.status,
  what: li.querySelector('[data-testid="placed-what"]').textContent, target: li.querySelector(".target-badge").textContent,
})));
const row = (list, p) => list.find((r) => r.path === p) ?? assert.fail(`no row for ${p}: ${JSON.stringify(list, null, 1)}`);
const request = (page) => until(page, () => {
  const a = document.querySelector(".view-area");
  return a?.dataset.state === "ready" ? a.dataset.request : null;
});

test("a session on anthropic with no key: a placeholder key stands in, said in the inputs panel, never shown", async () => {
  const { page, errors, context } = await openApp();
  const dir = home();
  await page.getByTestId("file-input").setInputFiles(path.join(dir, "session.jsonl"));
  await until(page, () => document.querySelector(".scenario")?.textContent === "session.jsonl");
  assert.equal(await request(page), "true", "pi's request is built");
  await until(page, () => /anthropic/.test(document.querySelector('[data-testid="placeholder-key"]')?.textContent ?? ""));
  const note = await page.getByTestId("placeholder-key").textContent();
  assert.match(note, /No key for anthropic was dropped: a placeholder API key stands in\. An API key never changes the body/);
  const body = JSON.parse(await page.getByTestId("body-json").textContent());
  assert.equal(body.model, "claude-sonnet-4-5");
  assert.doesNotMatch(await page.locator("body").innerText(), /ctxlens-placeholder-key/, "the key itself is never shown");
  // The session by its name, first prompt and cwd; where pi keeps sessions.
  const name = await page.getByTestId("session-name").textContent();
  assert.match(name, /session\.jsonl/);
  assert.match(name, /Why does the cart total drift\?/);
  assert.match(name, /\/home\/ann\/shop/);
  assert.match(await page.getByTestId("sessions-hint").textContent(), /~\/\.pi\/agent\/sessions\/--home-ann-shop--\//);
  assert.doesNotMatch(await page.getByTestId("diagnostics").textContent(), /--model|no auth configured/, "no CLI wording on the page");
  await page.getByTestId("placeholder-key").screenshot({ path: screenshotPath("inputs-placeholder-key.png") });
  assert.deepEqual(errors, []);
  await context.close();
});

test("a session on a custom provider with no models.json: no request, and the page says what to drop or pick (no CLI flags)", async () => {
  const { page, errors, context } = await openApp();
  const custom = anthropicSession().replaceAll('"anthropic"', '"acme"').replaceAll("claude-sonnet-4-5", "acme-1").replaceAll("anthropic-messages", "openai-completions");
  await page.getByTestId("file-input").setInputFiles({ name: "acme.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(custom) });
  await until(page, () => document.querySelector(".scenario")?.textContent === "acme.jsonl");
  assert.equal(await request(page), "false", "pi sends nothing without the model's definition");
  assert.match(await page.getByTestId("no-request").textContent(), /drop your agent dir's models\.json/);
  const diags = await page.getByTestId("diagnostics").textContent();
  assert.match(diags, /pick a model in the settings \(Model\), or drop your agent dir's models\.json on the Agent dir target/);
  assert.doesNotMatch(diags, /pass --model|--prompt gives|--call a past/, "no CLI flags on the page");
  assert.equal(await page.getByTestId("placeholder-key").count(), 0, "no placeholder for a model pi does not know");
  assert.deepEqual(errors, []);
  await context.close();
});

test("the agent dir and the project on their targets: where each file was laid, which copy wins, what is ignored and why", async () => {
  const { page, errors, context } = await openApp();
  const dir = home();
  await page.getByTestId("file-input").setInputFiles(path.join(dir, "session.jsonl"));
  await until(page, () => document.querySelector(".scenario")?.textContent === "session.jsonl");
  await page.getByTestId("agent-folder-input").setInputFiles(path.join(dir, "agent"));
  await until(page, () => document.querySelector('[data-path="agent/AGENTS.md"]'));
  await page.getByTestId("project-folder-input").setInputFiles(path.join(dir, "shop"));
  await until(page, () => document.querySelector('[data-path="shop/AGENTS.md"]') && !document.querySelector('[data-testid="placed-row"][data-status="pending"]'));
  let list = await rows(page);
  const agents = row(list, "agent/AGENTS.md");
  assert.equal(agents.at, "~/.pi/agent/AGENTS.md", "the agent's AGENTS.md stays in the agent dir");
  assert.equal(agents.status, "read");
  assert.match(agents.what, /context file 1 of 2 \(the agent dir's, first\)/);
  assert.equal(agents.target, "agent dir");
  const project = row(list, "shop/AGENTS.md");
  assert.equal(project.at, "~/shop/AGENTS.md");
  assert.match(project.what, /context file 2 of 2 \(the cwd's\)/);
  assert.equal(project.target, "project");
  const claude = row(list, "shop/CLAUDE.md");
  assert.equal(claude.status, "shadowed");
  assert.match(claude.what, /~\/shop\/AGENTS\.md wins \(pi reads one context file per folder/);
  const below = row(list, "shop/sub/CLAUDE.md");
  assert.equal(below.status, "unused");
  assert.match(below.what, /below the cwd \(\/home\/ann\/shop\)/);
  assert.match(row(list, "agent/skills/lint/SKILL.md").what, /read: skill lint/);
  assert.match(row(list, "agent/skills/lint/run.sh").what, /part of skill lint/);
  assert.match(row(list, "agent/skills/notes/ideas.md").what, /skills\/notes has no SKILL\.md/);
  assert.match(row(list, "agent/settings.json").what, /read: settings/);
  // A project .pi/ folder needs trust, which print mode cannot ask for: pi ignores it.
  assert.match(row(list, "shop/.pi/settings.json").what, /not used: the project is not trusted \(no trust decision \(print mode cannot ask\)\): pi ignores its settings/);
  // auth.json is read with its keys replaced (same kind: a key, a login) as it came.
  assert.equal(row(list, "agent/auth.json").status, "read");
  assert.match(row(list, "agent/auth.json").what, /read: stored credentials/);
  assert.doesNotMatch(await page.locator("body").innerText(), /sk-ant-api03-secret/);
  assert.match(row(list, "shop/src/cart.js").what, /not used: pi does not read this file/);
  assert.ok(!list.some((r) => r.path.includes("sessions/")), "the agent dir's sessions are not read");
  assert.match(await page.getByTestId("diagnostics").textContent(), /agent\/sessions\/.*not read/);
  // Both context files reach the prompt, the agent's first.
  await until(page, () => {
    const t = document.querySelector('[data-testid="body-json"]')?.textContent ?? "";
    return t.includes("Agent rules") && t.includes("Project rules") && t.indexOf("Agent rules") < t.indexOf("Project rules") && !t.includes("Claude rules");
  });
  await page.locator(".panel.inputs").screenshot({ path: screenshotPath("inputs-placement.png") });

  // The project's AGENTS.md dropped again, alone, by a drop on the project target (not the page).
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(["Newer project rules.\n"], "AGENTS.md", { type: "text/markdown" }));
    document.querySelector('[data-testid="drop-project"]').dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await until(page, () => document.querySelector('[data-testid="placed-row"][data-path="AGENTS.md"][data-status="read"]'));
  list = await rows(page);
  assert.equal(row(list, "AGENTS.md").target, "project", "a drop on the project target is the project's");
  assert.equal(list.filter((r) => r.path === "AGENTS.md").length, 1, "the page's own drop handler does not take it again");
  assert.equal(row(list, "AGENTS.md").at, "~/shop/AGENTS.md");
  assert.equal(row(list, "shop/AGENTS.md").status, "replaced");
  assert.match(row(list, "shop/AGENTS.md").what, /replaced by AGENTS\.md, dropped later at the same path/);
  await until(page, () => (document.querySelector('[data-testid="body-json"]')?.textContent ?? "").includes("Newer project rules."));

  // Per-file remove: the agent's AGENTS.md goes, and the request is rebuilt without it.
  await page.getByRole("button", { name: "Remove agent/AGENTS.md" }).click();
  await until(page, () => !document.querySelector('[data-path="agent/AGENTS.md"]'));
  await until(page, () => {
    const t = document.querySelector('[data-testid="body-json"]')?.textContent ?? "";
    return t.includes("Newer project rules.") && !t.includes("Agent rules");
  });
  await until(page, () => /context file 1 of 1/.test(document.querySelector('[data-testid="placed-row"][data-path="AGENTS.md"]')?.textContent ?? ""));
  // The session itself can be removed too.
  await page.getByRole("button", { name: "Remove session.jsonl" }).click();
  await until(page, () => /No session/.test(document.querySelector('[data-testid="session-name"]')?.textContent ?? ""));
  assert.deepEqual(errors, []);
  await context.close();
});

test("bad drops say what the file was taken for or why it was not used, and never replace good inputs", async () => {
  const { page, errors, context } = await openApp();
  const demoBody = await page.getByTestId("body-json").textContent();
  const demoName = await page.locator(".scenario").textContent();
  const bad = [
    { name: "empty.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from("") },
    { name: "shot.png", mimeType: "image/png", buffer: Buffer.from("not a png at all") },
    { name: "photo.bin", mimeType: "application/octet-stream", buffer: Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x00]) },
    { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("remember the milk\n") },
    { name: "package.json", mimeType: "application/json", buffer: Buffer.from('{"name": "shop", "version": "1.0.0"}\n') },
  ];
  await page.getByTestId("file-input").setInputFiles(bad);
  await until(page, () => document.querySelectorAll('[data-testid="placed-row"][data-status="refused"]').length === 5);
  assert.equal(await page.locator(".scenario").textContent(), demoName, "the demo stays");
  assert.equal(await page.getByTestId("body-json").textContent(), demoBody, "the demo's body stays");
  const list = await rows(page);
  assert.match(row(list, "empty.jsonl").what, /not used: an empty session/);
  assert.match(row(list, "shot.png").what, /not used: named as an image, but its bytes are not PNG/);
  assert.match(row(list, "photo.bin").what, /not used: a binary file pi does not read/);
  assert.match(row(list, "notes.txt").what, /not used: not an input pi reads \(txt\)/);
  assert.match(row(list, "package.json").what, /not used: JSON that is neither a tool set, models\.json nor settings\.json/);
  await page.locator(".panel.inputs").screenshot({ path: screenshotPath("inputs-bad-drops.png") });

  // A good session, then an empty one and a JSONL that is not a session: the good one stays.
  const dir = home();
  await page.getByTestId("file-input").setInputFiles(path.join(dir, "session.jsonl"));
  await until(page, () => document.querySelector(".scenario")?.textContent === "session.jsonl");
  assert.equal(await request(page), "true");
  const good = await page.getByTestId("body-json").textContent();
  await page.getByTestId("file-input").setInputFiles([
    { name: "empty.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from("\n\n") },
    { name: "other.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from('{"hello": "world"}\n') },
  ]);
  await until(page, () => document.querySelector('[data-testid="placed-row"][data-path="other.jsonl"]'));
  const after = await rows(page);
  assert.match(row(after, "other.jsonl").what, /not a pi session: its first line is not a session header/);
  assert.equal(row(after, "session.jsonl").status, "read");
  assert.equal(await page.locator(".scenario").textContent(), "session.jsonl");
  assert.equal(await page.getByTestId("body-json").textContent(), good, "the good session's body stays");
  // A refused file can be removed from the list.
  await page.getByRole("button", { name: "Remove other.jsonl" }).click();
  await until(page, () => !document.querySelector('[data-path="other.jsonl"]'));
  assert.deepEqual(errors, []);
  await context.close();
});
