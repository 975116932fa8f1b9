// The worker dying is survived: a worker that stops in the middle of a what-if (as a trap in its
// wasm would stop it) leaves the request on screen, the what-if says why and is tried again on
// a new worker; a worker that cannot start is not started over and over, the page says why and
// Assemble again starts another. The faults are the browser's own: the worker's script throws
// (served so by the test), no code of the app's is there for them.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { launch, open, repo, serve } from "./harness.mjs";

const realWorker = fs.readFileSync(path.join(repo, "dist/worker.js"), "utf8");

/** The app served with `worker.js` answered by `script(n)` for its n-th request (1-based;
 * `null`: the real one). */
async function served(script) {
  let n = 0;
  const server = await serve(undefined, {
    intercept(pathname, _req, res) {
      if (pathname !== "/worker.js") return false;
      n += 1;
      res.writeHead(200, { "content-type": "text/javascript" }).end(script(n) ?? realWorker);
      return true;
    },
  });
  return { server, requests: () => n };
}

let browser;
const closing = [];
after(async () => {
  await browser?.close();
  for (const c of closing) await c();
});

test("a worker that stops during a what-if: the request stays, the what-if says why and runs again on a new worker", async () => {
  browser ??= await launch();
  // The first worker throws when it is asked for a what-if, as a trap would stop it.
  const trap = `self.addEventListener("message", (e) => { if (e.data?.type === "whatif") throw new Error("RuntimeError: unreachable"); });\n${realWorker}`;
  const { server, requests } = await served((n) => (n === 1 ? trap : null));
  closing.push(server.close);
  const { page, errors } = await open(browser, server.url + "/#view=whatif&whatif=tool:bash");
  const failed = page.getByTestId("whatif-failed");
  await failed.waitFor({ timeout: 60000 });
  assert.match(await page.getByTestId("whatif-error").textContent(), /the worker stopped \(.*unreachable/);
  // What the page had is still there: the request's report, with no failure for it.
  assert.equal(await page.locator(".view-area").getAttribute("data-state"), "ready");
  assert.equal(requests(), 2, "a new worker was started");
  await failed.getByRole("button", { name: "Try again" }).click();
  await page.locator('[data-testid="whatif-view"][data-state="ready"]').waitFor({ timeout: 120000 });
  assert.equal(requests(), 2);
  assert.deepEqual(errors, [], "no page errors");
});

test("a worker that cannot start is not started again and again: the page says why, Assemble again tries once more", async () => {
  browser ??= await launch();
  const broken = `throw new Error("this worker cannot start");\n`;
  const { server, requests } = await served((n) => (n <= 2 ? broken : null));
  closing.push(server.close);
  const { page } = await open(browser, server.url + "/");
  const area = page.locator('.view-area[data-state="failed"]');
  await area.waitFor({ timeout: 60000 });
  assert.equal(requests(), 1, "not restarted in a loop");
  assert.match(await page.locator(".bottom").textContent(), /the worker stopped while it was starting: .*cannot start/);
  // Once more: it fails again, and is not restarted either.
  await page.getByTestId("retry").click();
  await page.waitForFunction(() => document.querySelector(".bottom")?.textContent.includes("while it was starting"));
  await area.waitFor({ timeout: 60000 });
  assert.equal(requests(), 2);
  // The third start is the real worker: the demo's request.
  await page.getByTestId("retry").click();
  await page.locator('.view-area[data-state="ready"]').waitFor({ timeout: 120000 });
  assert.equal(requests(), 3);
});

test("a worker that stops between a report and its session: the request stays, the session's views say the entries did not come, the next protocol brings them", async () => {
  browser ??= await launch();
  // The first worker drops the `session` message that follows its first report, then stops (as
  // a trap would stop it) when the page asks for that report's tokens (it asks once the report
  // is on screen).
  const trap = `{
    const post = self.postMessage.bind(self);
    let dropped = false;
    self.postMessage = (m, ...rest) => {
      if (m?.type === "session") { dropped = true; return; }
      return post(m, ...rest);
    };
    self.addEventListener("message", (e) => { if (dropped && e.data?.type === "tokens") throw new Error("RuntimeError: unreachable"); });
  }\n${realWorker}`;
  const { server, requests } = await served((n) => (n === 1 ? trap : null));
  closing.push(server.close);
  const { page, errors } = await open(browser, server.url + "/#view=session");
  const lost = page.getByTestId("session-lost").first();
  await lost.waitFor({ timeout: 60000 });
  assert.equal(await page.locator(".view-area").getAttribute("data-state"), "ready", "the request's report stays");
  assert.equal(await page.locator(".view-area").getAttribute("data-session"), "ready", "nothing is waited for");
  assert.match(await page.locator(".bottom").textContent(), /the session's entries, calls and usage timeline did not reach the page/);
  assert.equal(requests(), 2, "a new worker was started");
  // The next protocol's report, from the new worker, brings the session with it.
  const api = await page.locator(".view-area").getAttribute("data-api");
  const other = api === "anthropic-messages" ? "openai-completions" : "anthropic-messages";
  await page.getByTestId(`protocol-${other}`).click();
  await page.locator(`.view-area[data-api="${other}"][data-state="ready"][data-session="ready"]`).waitFor({ timeout: 60000 });
  await page.getByTestId("session-view").waitFor({ timeout: 10000 });
  assert.match(await page.getByTestId("session-view").textContent(), /\d+ entries · /);
  assert.deepEqual(errors.filter((e) => !/unreachable/.test(e)), [], "no page errors");
});
