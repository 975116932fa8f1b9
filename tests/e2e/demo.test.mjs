// The visualizer with its bundled demo: the body it shows is exactly pi's captured body.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { serve, launch, open, repo, screenshotPath } from "./harness.mjs";

let server, browser;
before(async () => {
  server = await serve();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("the demo's body is byte-identical to pi's captured request", async () => {
  // The raw body is on the Request view.
  const { page, seen, errors, context } = await open(browser, server.url + "/#view=request");
  const body = page.getByTestId("body-json");
  await body.waitFor({ timeout: 30000 });
  const shown = await body.textContent();
  const expected = fs.readFileSync(path.join(repo, "www/demo/expected/request-1.json"), "utf8");
  assert.equal(shown, expected);
  for (const id of ["stat-system-chars", "stat-tools-chars", "stat-history-chars"]) {
    const n = Number(await page.getByTestId(id).textContent());
    assert.ok(n > 0, `${id} is a positive number`);
  }
  await page.screenshot({ path: screenshotPath("demo.png"), fullPage: false });
  assert.deepEqual(errors, []);
  const foreign = seen.filter((u) => !u.startsWith(server.url + "/") && !u.startsWith("data:") && !u.startsWith("blob:"));
  assert.deepEqual(foreign, [], "no request leaves the page's origin");
  await context.close();
});
