// The npm package's what-if (`without`, `set`, `rebuildCalls`) and its workspace
// (`createWorkspace`), installed from the tarball: each what-if body is the one the native CLI
// gives (`ctxlens assemble --without …`, itself proved against pi's captures with the take-home
// made: cli/tests/whatif.rs), `result.whatif` is the CLI's `whatif` JSON, and a workspace's
// `assemble(overrides)` is `assemble({...options, ...overrides})`, byte for byte.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { installPackage, readTree, demoOptions, repo } from "./helpers.mjs";

let ctxlens;
before(async () => {
  const project = installPackage();
  fs.writeFileSync(path.join(project, "entry.mjs"), 'export * as ctxlens from "ctxlens";\n');
  ({ ctxlens } = await import(pathToFileURL(path.join(project, "entry.mjs")).href));
});

const base = path.join(repo, "tests/whatif/pi-1.6.0/base");
const variants = JSON.parse(fs.readFileSync(path.join(repo, "tests/whatif/variants.json"), "utf8"));

function cli(args) {
  const bin = path.join(repo, "target/debug/ctxlens");
  if (!fs.existsSync(bin)) execFileSync("cargo", ["build", "-p", "ctxlens-cli", "--quiet"], { cwd: repo, stdio: "inherit" });
  return execFileSync(bin, args, { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 28 }).toString("utf8");
}

const flags = (v) => [...(v.without ?? []).flatMap((s) => ["--without", s]), ...(v.set ?? []).flatMap((s) => ["--set", s])];

test("every what-if of the corpus gives the CLI's body, and result.whatif is the CLI's whatif", () => {
  const files = readTree(base);
  let checked = 0;
  for (const v of variants.filter((x) => !x.template && (!x.releases || x.releases.includes("1.6.0")))) {
    const opts = { without: v.without, set: v.set };
    const got = ctxlens.assembleCase(files, opts);
    const want = cli(["assemble", "--case", base, ...flags(v)]);
    assert.equal(got.body, want, `${v.name}: the body with ${flags(v).join(" ")}`);
    const w = JSON.parse(cli(["whatif", "--case", base, "--no-tokens", ...flags(v)]));
    assert.deepEqual(got.whatif.changes, w.changes, `${v.name}: the changes and take-homes`);
    assert.deepEqual([got.whatif.identical, got.whatif.firstChange, got.whatif.cache], [w.identical, w.firstChange, w.cache], `${v.name}: the cache consequence`);
    assert.deepEqual(got.whatif.blocks.map((b) => [b.name, b.fromChars, b.toChars]), w.blocks.map((b) => [b.name, b.fromChars, b.toChars]), v.name);
    assert.deepEqual([got.whatif.before.chars, got.whatif.after.chars], [w.before.chars, w.after.chars], v.name);
    checked++;
  }
  assert.ok(checked >= 10, `only ${checked} variants`);
  // Without a what-if there is no `whatif`; a spec that names nothing present throws, saying so.
  assert.equal(ctxlens.assembleCase(files).whatif, undefined);
  assert.throws(() => ctxlens.assembleCase(files, { without: ["tool:no_such_tool"] }), /no_such_tool/);
  assert.throws(() => ctxlens.assembleCase(files, { without: ["colour:red"] }), /without/);
  assert.throws(() => ctxlens.assembleCase(files, { without: "tool:bash" }), /`without` must be a list of strings/);
  assert.throws(() => ctxlens.assembleCase(files, { rebuildCalls: 2 }), /rebuildCalls/);
});

test("with rebuildCalls, the whole session rebuilt with the change: the CLI's totals", () => {
  // The oracle's scripted run (six turns pi really ran), with a tool it never calls off.
  const dir = path.join(repo, "tests/whatif/pi-0.85.1/base-scripted");
  const files = readTree(dir);
  // Its last call (the session pi wrote, with the six answers and their usage).
  const got = ctxlens.assembleCase(files, { call: 6, without: ["tool:subagent"], rebuildCalls: "all" }).whatif.session;
  const want = JSON.parse(cli(["whatif", "--case", dir, "--call", "6", "--no-tokens", "--without", "tool:subagent", "--rebuild-calls", "all"])).session;
  assert.ok(want && want.calls.length > 1, "the CLI rebuilds several calls");
  assert.deepEqual(got.calls.map((c) => [c.call, c.beforeChars, c.afterChars]), want.calls.map((c) => [c.call, c.beforeChars, c.afterChars]));
  assert.deepEqual([got.before.chars, got.after.chars, got.saved.chars], [want.before.chars, want.after.chars, want.saved.chars]);
  assert.ok(got.saved.chars > 0 && got.saved.cost > 0, "the tool's definition was sent on every call");
});

test("a workspace's assemble(overrides) is assemble({...options, ...overrides}), for every protocol and a what-if", () => {
  const { options } = demoOptions();
  const ws = ctxlens.createWorkspace(options);
  for (const api of ctxlens.protocols) {
    const want = ctxlens.assemble({ ...options, api });
    const got = ws.assemble({ api });
    assert.equal(got.body, want.body, api);
    assert.deepEqual(got.stats, want.stats, api);
    assert.deepEqual(got.diagnostics, want.diagnostics, api);
    // Asked again: the result the workspace kept, the same bytes.
    assert.equal(ws.assemble({ api }).body, want.body, `${api} again`);
  }
  const tool = ctxlens.assemble(options).stats.tools.byTool[0].name;
  const w = ws.assemble({ without: [`tool:${tool}`] });
  assert.equal(w.body, ctxlens.assemble({ ...options, without: [`tool:${tool}`] }).body);
  assert.ok(w.whatif.after.chars < w.whatif.before.chars, "a tool off makes the request smaller");
  // An override the workspace does not make itself (the files) is assembled from scratch.
  const files = new Map(options.files);
  assert.equal(ws.assemble({ files }).body, ctxlens.assemble({ ...options, files }).body);
  // An override set to null is the option left out.
  assert.equal(ws.assemble({ prompt: null }).body, ctxlens.assemble({ ...options, prompt: null }).body);
  assert.throws(() => ws.assemble({ colour: "red" }), /unknown option `colour`/);
  ws.free();
  assert.throws(() => ws.assemble({}), /freed/);
  ws.free();
});

test("stats: false gives the same request without the accounting, in assemble, assembleCase and a workspace; it refuses what measures it", () => {
  const files = readTree(base);
  const full = ctxlens.assembleCase(files, {});
  const bare = ctxlens.assembleCase(files, { stats: false });
  assert.equal(bare.body, full.body);
  assert.deepEqual(bare.headers, full.headers);
  assert.equal(bare.url, full.url);
  assert.ok(full.stats !== null, "the accounting by default");
  assert.equal(bare.stats, null);
  const { options: o } = demoOptions();
  const a = ctxlens.assemble({ ...o, stats: false });
  assert.equal(a.body, ctxlens.assemble(o).body);
  assert.equal(a.stats, null);
  const ws = ctxlens.createWorkspace(o);
  try {
    const w = ws.assemble({ api: "anthropic-messages", stats: false });
    assert.equal(w.body, ctxlens.assemble({ ...o, api: "anthropic-messages" }).body);
    assert.equal(w.stats, null);
    assert.ok(ws.assemble({ api: "anthropic-messages" }).stats !== null, "the next call with the accounting has it");
  } finally {
    ws.free();
  }
  for (const extra of [{ tokens: true }, { without: ["tool:bash"] }, { compareWith: { api: "openai-responses" } }]) {
    assert.throws(() => ctxlens.assemble({ ...o, ...extra, stats: false }), /stats: false/, JSON.stringify(extra));
  }
  assert.throws(() => ctxlens.assemble({ ...o, stats: "no" }), /`stats` must be a boolean/);
});
