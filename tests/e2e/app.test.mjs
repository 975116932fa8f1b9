// The shell: case folders opened through the folder chooser give pi's exact bytes; every protocol
// tab gives a body or a diagnostic saying why; malformed files are reported with file and line;
// deep links; the export; nothing leaves the page's origin. Screenshots in light and dark.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { serve, launch, open, repo, screenshotPath } from "./harness.mjs";

const APIS = [
  "openai-completions", "anthropic-messages", "openai-responses", "azure-openai-responses", "openai-codex-responses",
  "google-generative-ai", "bedrock-converse-stream", "mistral-conversations", "pi-messages",
];
const corpus = path.join(repo, "tests/conformance/pi-0.85.1");

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

/** Opens the app (by default on the Request view, which holds `body-json`) with the demo on screen. */
async function openApp(hash = "#view=request", opts = {}) {
  const o = await open(browser, server.url + "/" + hash, opts);
  pages.push(o);
  await o.page.locator('.view-area[data-state="ready"]').waitFor({ state: "attached", timeout: 30000 });
  return o;
}

/** Waits until `fn()` (run in the page) returns a truthy value; returns it. */
async function until(page, fn, arg, timeout = 30000) {
  const h = await page.waitForFunction(fn, arg, { timeout, polling: 50 });
  return h.jsonValue();
}

const bodyText = (page) => page.getByTestId("body-json").textContent();

/** The demo's models.json as a user has it: with a base URL and a key. */
function userModelsJson() {
  const m = JSON.parse(fs.readFileSync(path.join(repo, "www/demo/models.json"), "utf8"));
  for (const p of Object.values(m.providers)) Object.assign(p, { baseUrl: "https://llm.example/v1", apiKey: "key" });
  return JSON.stringify(m, null, 2);
}

for (const name of ["oc-demo", "an-scripted", "oc-session-compaction", "an-cross-provider-history", "sp-trusted-project-files"]) {
  test(`opening the case folder ${name} shows pi's exact body`, async () => {
    const { page, errors, context } = await openApp();
    await page.getByTestId("folder-input").setInputFiles(path.join(corpus, name));
    await until(page, (n) => document.querySelector(".scenario")?.textContent === n, name);
    const expected = fs.readFileSync(path.join(corpus, name, "expected/request-1.json"), "utf8");
    await until(page, (exp) => document.querySelector('[data-testid="body-json"]')?.textContent === exp, expected).catch(() => {});
    assert.equal(await bodyText(page), expected);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test("every protocol tab gives a body or a diagnostic saying why", async () => {
  const { page, errors, context } = await openApp();
  for (const api of APIS) {
    await page.getByTestId(`protocol-${api}`).click();
    assert.equal(await page.getByTestId(`protocol-${api}`).getAttribute("aria-selected"), "true");
    const outcome = await until(page, (a) => {
      const area = document.querySelector(`.view-area[data-api="${a}"]`);
      if (!area || area.dataset.state === "loading") return null;
      return area.dataset.state === "ready" && area.dataset.request === "true" ? "body" : "diagnostic";
    }, api);
    if (outcome === "body") {
      const body = JSON.parse(await bodyText(page));
      assert.ok(body && typeof body === "object", `${api}: the body is a JSON object`);
    } else {
      const errorsShown = await page.locator('[data-testid="diagnostics"] .diag.error').allTextContents();
      assert.ok(errorsShown.length > 0, `${api}: an error diagnostic explains the missing request`);
      console.log(`${api}: no request — ${errorsShown.join(" | ")}`);
    }
    assert.match(page.url(), new RegExp(`#.*api=${api}`), "the protocol is in the hash");
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("a deep link restores protocol, view and stage; ←/→ step through the pipeline", async () => {
  const { page, errors, context } = await openApp("#api=anthropic-messages&view=tools&stage=2");
  assert.equal(await page.getByTestId("protocol-anthropic-messages").getAttribute("aria-selected"), "true");
  await until(page, () => document.querySelector('.view-area[data-api="anthropic-messages"][data-state="ready"]'));
  assert.match(await page.locator(".step-count").textContent(), /^3 \/ \d+$/);
  assert.equal(await page.locator(".view-tab.selected").textContent(), "Tools");
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("ArrowRight");
  await until(page, () => /^4 \//.test(document.querySelector(".step-count").textContent));
  await page.getByTestId("stage-prev").click();
  await page.getByTestId("stage-prev").click();
  await until(page, () => /^2 \//.test(document.querySelector(".step-count").textContent));
  assert.match(page.url(), /stage=1/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("malformed files are reported with file and line, and the rest is still used", async () => {
  const { page, errors, context } = await openApp();
  const demoSession = fs.readFileSync(path.join(repo, "www/demo/session.jsonl"), "utf8").split("\n");
  const broken = [demoSession[0], "this is not json", ...demoSession.slice(1, 4), "{\"type\": \"message\", \"id\": ", ""].join("\n");
  await page.getByTestId("file-input").setInputFiles([
    { name: "broken.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(broken) },
    { name: "models.json", mimeType: "application/json", buffer: Buffer.from('{\n  "providers": {\n    "mock": ,\n  }\n}\n') },
    { name: "tools.json", mimeType: "application/json", buffer: Buffer.from("[\n {\"name\": \"x\",\n") },
  ]);
  await until(page, () => document.querySelector(".scenario")?.textContent === "broken.jsonl");
  const diag = page.getByTestId("diagnostics");
  await until(page, () => /broken\.jsonl:2/.test(document.querySelector('[data-testid="diagnostics"]').textContent));
  const text = await diag.textContent();
  assert.match(text, /broken\.jsonl:2/, "the garbage line of the session, by its file name");
  assert.match(text, /broken\.jsonl:6/, "the cut-off line");
  assert.match(text, /models\.json:\d+/, "the models.json syntax error, with its line");
  assert.match(text, /tools\.json:3/, "the tool set that is not JSON");
  await page.screenshot({ path: screenshotPath("app-diagnostics.png") });
  assert.deepEqual(errors, []);
  await context.close();
});

test("loose files: a session, context files in folders, a skill; the settings change the body", async () => {
  const { page, errors, context } = await openApp();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-loose-"));
  fs.mkdirSync(path.join(dir, "shop/sub"), { recursive: true });
  fs.copyFileSync(path.join(repo, "www/demo/session.jsonl"), path.join(dir, "shop/session.jsonl"));
  fs.writeFileSync(path.join(dir, "shop/models.json"), userModelsJson());
  fs.writeFileSync(path.join(dir, "shop/AGENTS.md"), "Always run the tests. <b>not html</b>\n");
  fs.mkdirSync(path.join(dir, "shop/skills/x"), { recursive: true });
  fs.writeFileSync(path.join(dir, "shop/skills/x/SKILL.md"), "---\nname: deploy\ndescription: Deploys the shop.\n---\nSteps.\n");
  await page.getByTestId("folder-input").setInputFiles(path.join(dir, "shop"));
  await until(page, () => document.querySelectorAll('[data-testid="placement"] [data-status="read"]').length === 4);
  const what = await page.locator('[data-testid="placed-what"]').allTextContents();
  assert.deepEqual(what.map((w) => w.replace(/ \(.*$/, "")).sort(), [
    "read: context file 1 of 1", "read: models.json", "read: skill deploy", "the session pi resumes",
  ]);
  await until(page, () => document.querySelector('[data-testid="body-json"]')?.textContent.includes("Always run the tests. <b>not html</b>"));
  assert.equal(await page.locator("b", { hasText: "not html" }).count(), 0, "untrusted text is rendered as text");
  const body = JSON.parse(await bodyText(page));
  assert.ok(JSON.stringify(body).includes("deploy"), "the skill reached the prompt");
  // A custom system prompt replaces pi's (edits made while reports still arrive: the next test).
  await page.locator("#set-system").fill("You are terse.");
  await page.locator("#set-system").blur();
  await until(page, () => document.querySelector('[data-testid="body-json"]')?.textContent.includes("You are terse."));
  assert.deepEqual(errors, []);
  await context.close();
});

// The other protocols' reports arrive from the worker one by one after the first; each makes the
// page render again. Text typed into a settings field (not yet committed: that is on blur) must
// survive those renders, and the committed edit must reach the body — also a second edit, made
// after the first, while the reports of the first edit's scenario arrive. The ~1 MB session makes
// each assembly take long enough that the edits are made while tabs are still pending, and the
// test asserts that they were (pending only goes down while a scenario stays the same).
test("settings edits made while background reports arrive are kept and change the body", async (t) => {
  const { page, errors, context } = await openApp();
  const { dir, files } = largeSession(1, "ctxlens-edit");
  const pending = () => page.evaluate(() => document.querySelectorAll(".proto-tab.pending").length);
  const bodyHas = (texts) => until(page, (want) => {
    const b = document.querySelector('[data-testid="body-json"]')?.textContent ?? "";
    return want.every((x) => b.includes(x));
  }, texts, 120000);
  /** Types `text` into `sel` while reports are pending, lets one more report arrive, then
   * commits (blur) while others are still pending. */
  const editWhilePending = async (sel, text) => {
    await page.locator(sel).fill(text);
    const atEdit = await pending();
    assert.ok(atEdit > 0, `${sel}: typed while ${atEdit} protocol tab(s) were pending`);
    await until(page, (n) => document.querySelectorAll(".proto-tab.pending").length < n, atEdit, 120000);
    assert.equal(await page.locator(sel).inputValue(), text, `${sel}: the typed text survives a report's arrival`);
    const atCommit = await page.evaluate((s) => {
      const n = document.querySelectorAll(".proto-tab.pending").length;
      document.querySelector(s).blur();
      return n;
    }, sel);
    assert.ok(atCommit > 0, `${sel}: committed while ${atCommit} protocol tab(s) were pending`);
    t.diagnostic(`${sel}: typed with ${atEdit} tabs pending, committed with ${atCommit}`);
  };
  await page.getByTestId("file-input").setInputFiles(files);
  await until(page, () => document.querySelector(".scenario")?.textContent === "ctxlens-edit.jsonl");
  await editWhilePending("#set-system", "You are terse.");
  await bodyHas(["You are terse."]);
  assert.equal(await page.locator("#set-system").inputValue(), "You are terse.");
  await editWhilePending("#set-prompt", "Summarize the changes so far.");
  await bodyHas(["You are terse.", "Summarize the changes so far."]);
  assert.equal(await page.locator("#set-system").inputValue(), "You are terse.", "the first edit is still there");
  assert.equal(await page.locator("#set-prompt").inputValue(), "Summarize the changes so far.");
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("the export is a zip of the case folder", async () => {
  const { page, errors, context } = await openApp();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export (.zip)" }).click()]);
  const file = await download.path();
  const zip = fs.readFileSync(file);
  assert.equal(zip.subarray(0, 4).toString("latin1"), "PK\x03\x04");
  const text = zip.toString("latin1");
  for (const name of ["case.json", "models.json", "session.jsonl", "tools.json", "expected/env.json", "agent/AGENTS.md"]) {
    assert.ok(text.includes(`/${name}`), `the zip holds ${name}`);
  }
  assert.equal(download.suggestedFilename().endsWith(".zip"), true);
  assert.deepEqual(errors, []);
  await context.close();
});

/** CRC-32 as zip uses it (node's own where it has one). */
const crc32 = zlib.crc32 ?? ((data) => {
  let c = ~0;
  for (const b of data) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
});

/** A zip archive of `entries` ({name, data, method}: 8 = deflate with node's zlib, 0 = stored,
 * anything else is written as stored bytes under that method number). */
function makeZip(entries) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const { name, data, method = 8 } of entries) {
    const packed = method === 8 ? zlib.deflateRawSync(data) : data;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(1 << 11, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(1 << 11, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt32LE(crc32(data), 16);
    record.writeUInt32LE(packed.length, 20);
    record.writeUInt32LE(data.length, 24);
    record.writeUInt16LE(nameBytes.length, 28);
    record.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    central.push(record, nameBytes);
    offset += 30 + nameBytes.length + packed.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** Every file below `dir`, as relative paths. */
function filesBelow(dir, rel = "") {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesBelow(dir, path.join(rel, e.name)) : [path.join(rel, e.name)]);
}

test("an exported case zip, chosen again, opens as the same case with the same body", async () => {
  const { page, errors, context } = await openApp();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export (.zip)" }).click()]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-zip-"));
  const file = path.join(dir, download.suggestedFilename());
  await download.saveAs(file);
  await page.getByTestId("file-input").setInputFiles(file);
  const folder = download.suggestedFilename().replace(/\.zip$/, "");
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, folder);
  const expected = fs.readFileSync(path.join(repo, "www/demo/expected/request-1.json"), "utf8");
  await until(page, (exp) => document.querySelector('[data-testid="body-json"]')?.textContent === exp, expected).catch(() => {});
  assert.equal(await bodyText(page), expected);
  assert.doesNotMatch(await page.getByTestId("diagnostics").textContent(), /\.zip/, "no diagnostic about the archive");
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// pi 1.6.0 cases, one per protocol: the worker fetches the release's data on first use (only
// from this origin), the body is pi's, and the picker says which release and why.
const corpus16 = path.join(repo, "tests/conformance/pi-1.6.0");
for (const name of ["sp-resume-after-patch", "an-native-tools", "rs-085-signatures", "gg-history-3flash", "bd-fresh-opus48-high", "ms-midconvo-append", "pm-resume-append", "az-fresh", "cx-custom-fresh"]) {
  const dir = path.join(corpus16, name);
  test(`a pi 1.6.0 case (${name}) shows pi's exact body, rebuilt as 1.6.0`, { skip: !fs.existsSync(dir) && `${name} is not in the corpus` }, async () => {
    const { page, errors, context, seen } = await openApp();
    await page.getByTestId("folder-input").setInputFiles(dir);
    await until(page, (n) => document.querySelector(".scenario")?.textContent === n, name);
    const expected = fs.readFileSync(path.join(dir, "expected/request-1.json"), "utf8");
    await until(page, (exp) => document.querySelector('[data-testid="body-json"]')?.textContent === exp, expected).catch(() => {});
    assert.equal(await bodyText(page), expected);
    const picker = page.getByTestId("pi-version");
    assert.equal(await picker.getAttribute("data-rebuilt"), "1.6.0");
    assert.equal(await picker.getAttribute("data-reason"), "captured");
    assert.ok(seen.some((u) => u.endsWith("/pi-data/pi-1.6.0/models.json")), "the release's data is fetched from the page's own origin");
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test("the pi picker: a 1.6.0 session rebuilt as 0.85.1 says a newer pi wrote it, and back", async () => {
  const { page, errors, context } = await openApp();
  const dir = path.join(corpus16, "sp-resume-after-patch");
  await page.getByTestId("folder-input").setInputFiles(dir);
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, "sp-resume-after-patch");
  const expected = fs.readFileSync(path.join(dir, "expected/request-1.json"), "utf8");
  await until(page, (exp) => document.querySelector('[data-testid="body-json"]')?.textContent === exp, expected);
  assert.equal(await page.getByTestId("newer-session").count(), 0);
  await page.getByTestId("pi-version").selectOption("0.85.1");
  await until(page, () => document.querySelector('[data-testid="pi-version"]')?.getAttribute("data-rebuilt") === "0.85.1");
  const banner = page.getByTestId("newer-session");
  await banner.waitFor({ timeout: 30000 });
  assert.match(await banner.textContent(), /pi 0\.86\.0 or later wrote this session/);
  assert.equal(await page.getByTestId("pi-version").getAttribute("data-reason"), "given");
  assert.notEqual(await bodyText(page), expected);
  await page.screenshot({ path: screenshotPath("pi-picker-newer-session.png") });
  await page.getByTestId("pi-version").selectOption("auto");
  await until(page, (exp) => document.querySelector('[data-testid="body-json"]')?.textContent === exp, expected);
  assert.equal(await page.getByTestId("newer-session").count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a deflated zip of a case folder opens as that folder: pi's exact body", async () => {
  const { page, errors, context } = await openApp();
  const name = "an-cross-provider-history";
  const root = path.join(corpus, name);
  const entries = filesBelow(root).map((rel) => ({ name: `${name}/${rel.split(path.sep).join("/")}`, data: fs.readFileSync(path.join(root, rel)) }));
  const zip = makeZip(entries);
  assert.ok(zip.length < entries.reduce((n, e) => n + e.data.length, 0), "the entries are deflated");
  await page.getByTestId("file-input").setInputFiles({ name: `${name}.zip`, mimeType: "application/zip", buffer: zip });
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, name);
  const expected = fs.readFileSync(path.join(root, "expected/request-1.json"), "utf8");
  await until(page, (exp) => document.querySelector('[data-testid="body-json"]')?.textContent === exp, expected).catch(() => {});
  assert.equal(await bodyText(page), expected);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a damaged zip is reported with its name and what was left out; the rest is used", async () => {
  const { page, errors, context } = await openApp();
  const session = fs.readFileSync(path.join(repo, "www/demo/session.jsonl"));
  const zip = makeZip([
    { name: "shop/session.jsonl", data: session },
    { name: "shop/models.json", data: Buffer.from(userModelsJson()), method: 0 },
    { name: "shop/AGENTS.md", data: Buffer.from("Use bzip2.\n"), method: 12 },
    { name: "shop/sub/CLAUDE.md", data: Buffer.from("The sub folder's rules, a long text. ".repeat(50)) },
  ]);
  // Cut inside the last entry: its data and the central directory are gone.
  const cut = zip.subarray(0, zip.indexOf(Buffer.from("shop/sub/CLAUDE.md")) + 40);
  await page.getByTestId("file-input").setInputFiles({ name: "shop.zip", mimeType: "application/zip", buffer: cut });
  await until(page, () => document.querySelector(".scenario")?.textContent === "session.jsonl" && document.querySelectorAll('[data-testid="placement"] [data-testid="placed-row"]').length === 2);
  await until(page, () => /shop\.zip/.test(document.querySelector('[data-testid="diagnostics"]').textContent));
  const rows = await page.locator('[data-testid="diagnostics"] .diag').allTextContents();
  const about = rows.filter((r) => r.includes("shop.zip"));
  assert.ok(about.some((r) => /shop\/AGENTS\.md: compression method 12 \(bzip2\)/.test(r) && /skipped: shop\/AGENTS\.md/.test(r)), about.join("\n"));
  assert.ok(about.some((r) => /shop\/sub\/CLAUDE\.md: cut off/.test(r) && /skipped: shop\/sub\/CLAUDE\.md/.test(r)), about.join("\n"));
  assert.ok(about.some((r) => /the archive is cut off/.test(r)), about.join("\n"));
  await until(page, () => document.querySelector('[data-testid="body-json"]')?.textContent.length > 1000);
  // Not a zip at all: reported, and what is on screen stays.
  await page.getByTestId("file-input").setInputFiles({ name: "notes.zip", mimeType: "application/zip", buffer: Buffer.from("<b>not a zip</b>") });
  await until(page, () => /notes\.zip/.test(document.querySelector('[data-testid="diagnostics"]').textContent));
  assert.match(await page.getByTestId("diagnostics").textContent(), /notes\.zip.*not opened: not a zip archive.*skipped: notes\.zip/);
  assert.equal(await page.locator(".scenario").textContent(), "session.jsonl");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a pasted session is assembled", async () => {
  const { page, errors, context } = await openApp();
  await page.getByTestId("file-input").setInputFiles({ name: "models.json", mimeType: "application/json", buffer: Buffer.from(userModelsJson()) });
  await until(page, () => document.querySelector(".scenario")?.textContent === "models.json");
  await page.getByRole("button", { name: "Paste a session" }).click();
  await page.getByLabel("session JSONL").fill(fs.readFileSync(path.join(repo, "www/demo/session.jsonl"), "utf8"));
  await page.getByRole("button", { name: "Use this session" }).click();
  await until(page, () => document.querySelectorAll('[data-testid="placement"] [data-testid="placed-row"]').length === 2);
  await until(page, () => document.querySelector('[data-testid="body-json"]')?.textContent.length > 1000);
  assert.deepEqual(errors, []);
  await context.close();
});

// The page's own listeners (gloo-events, gloo-file): a drop is read file by file; a paste on the
// page and ←/→ are taken (the listeners are not passive: preventDefault works); the hash is followed.
test("a dropped zip, a session pasted on the page, the hash and ←/→ reach the app", async () => {
  let { page, errors, context } = await openApp();
  const name = "an-scripted";
  const root = path.join(corpus, name);
  const entries = filesBelow(root).map((rel) => ({ name: `${name}/${rel.split(path.sep).join("/")}`, data: fs.readFileSync(path.join(root, rel)) }));
  const zip = makeZip(entries);
  await page.evaluate(([bytes, file]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], file, { type: "application/zip" }));
    document.querySelector(".app").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [[...zip], `${name}.zip`]);
  await until(page, (n) => document.querySelector(".scenario")?.textContent === n, name);
  const expected = fs.readFileSync(path.join(root, "expected/request-1.json"), "utf8");
  await until(page, (exp) => document.querySelector('[data-testid="body-json"]')?.textContent === exp, expected).catch(() => {});
  assert.equal(await bodyText(page), expected);
  assert.deepEqual(errors, []);
  await context.close();

  // A session pasted anywhere on the page (not in a text field) is taken.
  ({ page, errors, context } = await openApp());
  await page.getByTestId("file-input").setInputFiles({ name: "models.json", mimeType: "application/json", buffer: Buffer.from(userModelsJson()) });
  await until(page, () => document.querySelector(".scenario")?.textContent === "models.json");
  const session = fs.readFileSync(path.join(repo, "www/demo/session.jsonl"), "utf8");
  const taken = await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.setData("text/plain", text);
    return !document.body.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
  }, session);
  assert.equal(taken, true, "the paste's default is prevented");
  await until(page, () => document.querySelectorAll('[data-testid="placement"] [data-testid="placed-row"]').length === 2);
  await until(page, () => document.querySelector('[data-testid="body-json"]')?.textContent.length > 1000);

  // The hash is followed, and → steps through the pipeline (its default prevented).
  await page.evaluate(() => { location.hash = "#view=tools&stage=1"; });
  await until(page, () => document.querySelector(".view-tab.selected")?.textContent === "Tools");
  await until(page, () => /^2 \//.test(document.querySelector(".step-count")?.textContent));
  const stepped = await page.evaluate(() => !document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true, cancelable: true })));
  assert.equal(stepped, true, "→'s default is prevented");
  await until(page, () => /^3 \//.test(document.querySelector(".step-count")?.textContent));
  assert.deepEqual(errors, []);
  await context.close();
});

for (const colorScheme of ["light", "dark"]) {
  for (const [w, h] of [[1280, 800], [1920, 1080]]) {
    test(`screenshot: ${colorScheme} at ${w}px, every view, nothing broken or spilling`, async () => {
      const { page, errors, context } = await openApp("#view=overview", { viewport: { width: w, height: h }, colorScheme });
      await until(page, () => document.querySelector('[data-testid="status"]') && document.querySelector('.view-area[data-state="ready"]'), undefined, 120000);
      await page.screenshot({ path: screenshotPath(`app-${colorScheme}-${w}.png`) });
      // The header's figures on one line; the model's name broken after its provider only.
      const tops = await page.locator(".stats-strip .stat").evaluateAll((xs) => xs.map((x) => x.getBoundingClientRect().top));
      assert.ok(tops.length === 3 && tops.every((t) => Math.abs(t - tops[0]) < 2), `the header's figures on one line: ${tops}`);
      assert.equal(await page.getByTestId("model-name").locator(".model-id").evaluate((x) => x.getClientRects().length), 1, "the model id in one piece");
      for (const tab of await page.locator("nav.view-tabs button").allTextContents()) {
        await page.locator("nav.view-tabs button", { hasText: new RegExp(`^${tab.replace(/[.*+?^${}()|[\]\\&]/g, "\\$&")}$`) }).click();
        await until(page, (t) => document.querySelector(".view-tab.selected")?.textContent === t && document.querySelector('.view-area[data-state="ready"]'), tab, 60000);
        await page.screenshot({ path: screenshotPath(`view-${colorScheme}-${w}-${tab.replace(/\W+/g, "_")}.png`) });
        // No badge or chip spills out of its own box.
        const spilling = await page.locator(".view-area .badge, .view-area .chip, .view-area .sev, header .stat").evaluateAll((xs) => xs.filter((x) => {
          if (!x.offsetParent) return false;
          const r = x.getBoundingClientRect();
          const p = x.parentElement.getBoundingClientRect();
          return x.scrollWidth > x.clientWidth + 1 || r.right > p.right + 1 || r.left < p.left - 1;
        }).map((x) => x.textContent));
        assert.deepEqual(spilling, [], `${tab}: text spilling out of its badge`);
      }
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
}

/** A session made of the demo's messages repeated (tool results padded) until it is `mb` MB,
 * written with a models.json to a temporary folder; returns the two paths and the sizes. */
function largeSession(mb, name = `ctxlens-large-${mb}`) {
  const lines = fs.readFileSync(path.join(repo, "www/demo/session.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const header = lines[0];
  const entries = lines.slice(1).filter((e) => e.type === "message");
  const out = [JSON.stringify(header)];
  let size = out[0].length;
  let parent = null;
  let n = 0;
  const pad = "x".repeat(2000);
  while (size < mb * 1024 * 1024) {
    for (const e of entries) {
      const id = (n++).toString(16).padStart(8, "0");
      const copy = { ...e, id, parentId: parent };
      if (copy.message?.role === "toolResult") copy.message = { ...copy.message, content: [{ type: "text", text: pad + id }] };
      parent = id;
      const line = JSON.stringify(copy);
      out.push(line);
      size += line.length + 1;
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-e2e-"));
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, out.join("\n") + "\n");
  const models = path.join(dir, "models.json");
  fs.writeFileSync(models, userModelsJson());
  return { dir, files: [file, models], size, lines: out.length };
}

// Not timed: a large session is parsed and assembled in the worker with a progress bar, the page
// handles a click while the worker is busy, and Stop terminates the worker.
test("a large session loads with a progress bar; the page stays interactive; Stop stops it", async () => {
  const { page, errors, context } = await openApp("#view=overview");
  const { dir, files } = largeSession(10, "ctxlens-progress");
  await page.evaluate(() => {
    window.__progress = [];
    window.__clicks = [];
    new MutationObserver(() => {
      const p = document.querySelector('[data-testid="progress"]');
      if (p) window.__progress.push(Number(p.getAttribute("value")));
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["value"] });
    document.addEventListener("click", (e) => {
      if (e.target.closest?.(".view-tab")) window.__clicks.push({ busy: !!document.querySelector('[data-testid="progress"]'), state: document.querySelector(".view-area")?.dataset.state });
    }, true);
  });
  await page.getByTestId("file-input").setInputFiles(files);
  await page.getByTestId("progress").waitFor({ timeout: 60000 });
  // While the worker parses and assembles, a click on a view tab is handled.
  await page.locator("nav.view-tabs button", { hasText: /^Session$/ }).click();
  const clicks = await page.evaluate(() => window.__clicks);
  assert.equal(clicks.length, 1);
  assert.ok(clicks[0].busy, "the click came while the assembly was in progress");
  await until(page, () => document.querySelector(".view-tab.selected")?.textContent === "Session");
  await until(page, () => document.querySelector(".scenario")?.textContent === "ctxlens-progress.jsonl" && document.querySelector('.view-area[data-state="ready"]'), undefined, 120000);
  const seen = await page.evaluate(() => window.__progress);
  assert.ok(seen.length > 1, `the progress bar moved (${seen.join(", ")})`);
  assert.ok(seen.every((v) => v >= 0 && v <= 100));
  assert.equal(await page.getByTestId("progress").count(), 0, "the progress bar is gone when the view is ready");
  assert.equal(await page.locator('[data-testid="view-session"]').count(), 1);
  // The body's sources stay in the worker and are looked up path by path.
  await page.locator("nav.view-tabs button", { hasText: /^Request$/ }).click();
  await page.getByTestId("json-tree").locator('[data-path="messages.3"]').first().hover();
  await until(page, () => {
    const panel = document.querySelector('[data-testid="provenance"]');
    return panel && !panel.hasAttribute("aria-busy") && /attributed parts inside|\S/.test(panel.querySelector('[data-testid="provenance-source"], ul')?.textContent ?? "");
  });
  assert.doesNotMatch(await page.getByTestId("provenance").textContent(), /no longer holds/);
  // Thousands of calls: the chart bins them (every call in a column), the picker takes a number
  // or a row of its list, of which only those in view are drawn; so is the table of every call.
  await page.locator("nav.view-tabs button", { hasText: /^Usage & cache$/ }).click();
  const calls = Number(/The session's calls · (\d+)/.exec(await page.getByTestId("call-picker").textContent())[1]);
  assert.ok(calls > 1000, `a long session (${calls} calls)`);
  const cols = await page.locator('[data-testid="usage-chart"] g.col').count();
  assert.ok(cols <= 240 && cols >= calls / Math.ceil(calls / 240) - 1, `${cols} columns for ${calls} calls`);
  const list = page.getByTestId("call-list");
  assert.equal(Number(await list.getAttribute("data-count")), calls);
  const drawn = await list.locator(".call-row").count();
  assert.ok(drawn > 5 && drawn < 60, `${drawn} rows drawn of ${calls}`);
  // Scrolled to its end, the list draws the last calls, and one is picked there.
  await list.evaluate((el) => { el.scrollTop = el.scrollHeight; el.dispatchEvent(new Event("scroll")); });
  await page.getByTestId(`call-pick-${calls - 1}`).waitFor();
  await page.locator("details.calls > summary").click();
  const table = page.getByTestId("every-call-table");
  assert.equal(Number(await table.getAttribute("data-count")), calls);
  assert.ok(await table.locator(".call-grid").count() < 60);
  assert.equal(await table.locator(".call-grid").first().locator("span").first().textContent(), "1");
  await table.evaluate((el) => { el.scrollTop = 999 * 24; el.dispatchEvent(new Event("scroll")); });
  await until(page, () => document.querySelector('[data-testid="every-call-table"] [data-row="1000"]'));
  assert.equal(await table.locator('[data-row="1000"] span').nth(0).textContent(), "1000");
  await table.evaluate((el) => { el.scrollTop = el.scrollHeight; el.dispatchEvent(new Event("scroll")); });
  await until(page, (n) => document.querySelector(`[data-testid="every-call-table"] [data-row="${n}"]`), calls);
  await page.getByTestId("call-pick-number").locator("input").fill("1000");
  await page.getByTestId("call-pick-number").locator("button").click();
  await until(page, () => document.querySelector('[data-testid="call-bar"]')?.dataset.call === "1000" && document.querySelector('.view-area[data-state="ready"]'), undefined, 120000);
  // Back: the session ends with an answer, so without a new prompt it is its last call.
  await page.getByTestId("call-bar-next").click();
  await until(page, (n) => document.querySelector('[data-testid="call-bar"]')?.dataset.call === String(n) && document.querySelector('.view-area[data-state="ready"]'), calls, 120000);
  // Stop: pressed the moment the progress bar shows, the worker is terminated; Assemble again.
  await page.evaluate(() => {
    new MutationObserver((_, obs) => {
      const b = document.querySelector('[data-testid="stop"]');
      if (b) { obs.disconnect(); b.click(); }
    }).observe(document.body, { subtree: true, childList: true });
  });
  await page.getByTestId("protocol-anthropic-messages").click();
  await until(page, () => document.querySelector('.view-area[data-api="anthropic-messages"][data-state="failed"]'));
  assert.match(await page.getByTestId("diagnostics").textContent(), /stopped/);
  // Assemble again: meanwhile the request that was on screen before the switch stays, dimmed,
  // and says so.
  await page.evaluate(() => {
    window.__kept = [];
    new MutationObserver(() => {
      const k = document.querySelector('[data-testid="kept-view"]');
      if (k) window.__kept.push([k.dataset.api, document.querySelector('[data-testid="kept-note"]')?.textContent, k.inert]);
    }).observe(document.body, { subtree: true, childList: true });
  });
  await page.getByTestId("retry").click();
  await until(page, () => document.querySelector('.view-area[data-api="anthropic-messages"][data-state="ready"]'), undefined, 120000);
  const kept = await page.evaluate(() => window.__kept);
  assert.ok(kept.length > 0, "the request on screen stayed while the other was rebuilt");
  assert.deepEqual(kept[0], ["openai-completions", "rebuilding for Anthropic… OpenAI Chat's request is shown meanwhile", true]);
  assert.equal(await page.getByTestId("kept-view").count(), 0, "gone once the new one is in");
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// A huge session (200 MB): read with progress, rebuilt, within the stated memory bound (docs/app.md):
// the worker's WebAssembly memory under 10× the session, the page's under 5×.
test("a 200 MB session loads with progress within its memory bound", async () => {
  const { page, errors, context } = await openApp("#view=overview");
  const { dir, files, size } = largeSession(200, "ctxlens-huge");
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const p = document.querySelector('[data-testid="progress"]');
      if (p) window.__progress.push(Number(p.getAttribute("value")));
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["value"] });
  });
  await page.getByTestId("file-input").setInputFiles(files);
  await until(page, () => document.querySelector(".scenario")?.textContent === "ctxlens-huge.jsonl" && document.querySelector('.view-area[data-state="ready"]') && document.querySelector('[data-testid="status"][data-worker-memory]'), undefined, 300000);
  const seen = await page.evaluate(() => window.__progress);
  assert.ok(seen.length > 1 && seen.some((v) => v > 0), `the progress bar moved (${seen.join(", ")})`);
  const status = page.getByTestId("status");
  const worker = Number(await status.getAttribute("data-worker-memory"));
  const pageMemory = Number(await status.getAttribute("data-page-memory"));
  assert.ok(worker > size, `the worker holds the session (${worker})`);
  assert.ok(worker <= 10 * size, `the worker's memory ${(worker / 1048576).toFixed(0)} MB is under 10× the ${(size / 1048576).toFixed(0)} MB session`);
  assert.ok(pageMemory <= 5 * size, `the page's memory ${(pageMemory / 1048576).toFixed(0)} MB is under 5× the session`);
  // The request is there: the overview's table counts the history.
  assert.equal(await page.locator('[data-testid="view-overview"]').count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// The worker counts a request's tokens in slices of time: a protocol switch made while it counts
// is answered before the count ends (the count goes on after it), and the newer protocol's count
// goes first. Order, not time: the first protocol's tokens are still being counted when the second
// protocol's request is on screen.
test("a protocol switch is answered while the worker counts the tokens of the request on screen", async () => {
  const { page, errors, context } = await openApp("#view=overview");
  const { dir, files } = largeSession(10, "ctxlens-switch-count");
  await page.getByTestId("file-input").setInputFiles(files);
  await until(page, () => document.querySelector(".scenario")?.textContent === "ctxlens-switch-count.jsonl" && document.querySelector('.view-area[data-state="ready"]'), undefined, 120000);
  await until(page, () => document.querySelector('[data-testid="tokens-note"]')?.dataset.state === "counting", undefined, 120000);
  await page.getByTestId("protocol-anthropic-messages").click();
  await until(page, () => document.querySelector('.view-area[data-api="anthropic-messages"][data-state="ready"]'), undefined, 120000);
  await page.getByTestId("protocol-openai-completions").click();
  await until(page, () => document.querySelector('.view-area[data-api="openai-completions"][data-state="ready"]'), undefined, 120000);
  const state = await page.getByTestId("tokens-note").getAttribute("data-state");
  assert.ok(["counting", "loading"].includes(state), `OpenAI Chat's tokens were still being counted when Anthropic's request came (${state})`);
  // The count then ends, with the tokens of both.
  await until(page, () => document.querySelector('[data-testid="tokens-note"]')?.dataset.state === "ready", undefined, 300000);
  await page.getByTestId("protocol-anthropic-messages").click();
  await until(page, () => document.querySelector('.view-area[data-api="anthropic-messages"][data-state="ready"]') && document.querySelector('[data-testid="tokens-note"]')?.dataset.state === "ready", undefined, 300000);
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// A large generated session (CTXLENS_E2E_LARGE=MB, e.g. 40): load time, responsiveness, memory.
const largeMb = Number(process.env.CTXLENS_E2E_LARGE || 0);
test(`a ${largeMb} MB session loads off the main thread`, { skip: !largeMb && "set CTXLENS_E2E_LARGE=40 to measure" }, async () => {
  const { page, errors, context } = await openApp("#view=overview");
  const { dir, files, size, lines } = largeSession(largeMb);
  const out = { length: lines };
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: "longtask", buffered: false });
  });
  const t0 = Date.now();
  // Chosen from disk (a buffer would be decoded from base64 in the page by the test harness, a
  // multi-second task that is not the app's).
  await page.getByTestId("file-input").setInputFiles(files);
  await until(page, () => document.querySelector(".scenario")?.textContent.startsWith("ctxlens-large"), undefined, 120000);
  await until(page, () => document.querySelector('[data-testid="status"]') && document.querySelector('.view-area[data-state="ready"]'), undefined, 300000);
  const loadMs = Date.now() - t0;
  const status = await page.getByTestId("status").textContent();
  const longTasks = await page.evaluate(() => window.__longTasks);
  const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
  const wasmMemory = Number(await page.getByTestId("status").getAttribute("data-page-memory")) || 0;
  const t1 = Date.now();
  await page.getByTestId("protocol-anthropic-messages").click();
  await until(page, () => document.querySelector('.view-area[data-api="anthropic-messages"][data-state="ready"]'), undefined, 300000);
  const switchMs = Date.now() - t1;
  const result = { sessionMB: +(size / 1048576).toFixed(1), lines: out.length, loadMs, switchMs, status, pageHeapMB: +(heap / 1048576).toFixed(1), pageWasmMB: +(wasmMemory / 1048576).toFixed(1), longTasks: longTasks.length, longestTaskMs: Math.round(Math.max(0, ...longTasks)), longTaskMs: longTasks.map(Math.round) };
  console.log("large session:", JSON.stringify(result));
  fs.writeFileSync(screenshotPath(`large-${largeMb}.json`), JSON.stringify(result, null, 2));
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Opt-in with the above: protocol switches on a seed-sized (~1 MB) session, once every report is
// in (they are assembled ahead for sessions this size): click → the view shows the new protocol.
test("switching protocol on a ~1 MB session", { skip: !largeMb && "set CTXLENS_E2E_LARGE=40 to measure" }, async () => {
  const { page, errors, context } = await openApp("#view=request");
  const { dir, files, size } = largeSession(1, "ctxlens-seed");
  await page.getByTestId("file-input").setInputFiles(files);
  await until(page, () => document.querySelector(".scenario")?.textContent === "ctxlens-seed.jsonl" && document.querySelectorAll(".proto-tab.pending").length === 0, undefined, 120000);
  const times = {};
  for (const view of ["request", "overview"]) {
    await page.locator("nav.view-tabs button", { hasText: view === "request" ? /^Request$/ : /^Overview$/ }).click();
    for (const api of [...APIS, APIS[0]]) {
      const t = await page.evaluate(async (a) => {
        const t0 = performance.now();
        document.querySelector(`[data-testid="protocol-${a}"]`).click();
        while (!document.querySelector(`.view-area[data-api="${a}"][data-state]:not([data-state="loading"])`)) await new Promise((r) => setTimeout(r, 0));
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        return performance.now() - t0;
      }, api);
      (times[view] ??= []).push(Math.round(t));
    }
  }
  const result = { sessionMB: +(size / 1048576).toFixed(2), switchMs: times, maxMs: Math.max(...Object.values(times).flat()) };
  console.log("protocol switches on a seed-sized session:", JSON.stringify(result));
  fs.writeFileSync(screenshotPath("switch-1mb.json"), JSON.stringify(result, null, 2));
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
