// The package's TypeScript types: a program using every input and output type checks with
// `tsc --noEmit --strict` against the installed package, and misuse is a type error.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { installPackage, repo } from "./helpers.mjs";

const tsc = path.join(repo, "node_modules/.bin/tsc");

const program = `
import { assemble, assembleCase, parseSession, protocols, piVersion, piVersions, CtxlensError, ready, assembleSession, createWorkspace } from "ctxlens";
import type { AssembleSessionOptions, UsageReport } from "ctxlens";
import { usage } from "ctxlens";
import type { Api, Assembly, AssembleOptions, Diagnostic, Finding, Stage, StageEvent, Stats, SessionTree, SessionEntry, ExtensionTool, ModelsJson, Call, RebuiltCall } from "ctxlens";
import init, { initSync, assemble as webAssemble, load, install } from "ctxlens/web";
import { mount, loadWasm, parseContext, parseWhatif, TAG, VIEWS, CtxlensView } from "ctxlens/element";
import type { ViewOptions, ViewName, ContextFile } from "ctxlens/element";
import type { Comparison, Loss, MappingRow, Upgrade } from "ctxlens";
import { loadVocabulary, vocabularies } from "ctxlens";
import { loadVocabulary as webLoadVocabulary } from "ctxlens/web";
import type { Vocabulary, VocabularyName, VocabularyProgress, TokensInfo } from "ctxlens";
import type { PiVersion, ModelInfo } from "ctxlens";

const tools: ExtensionTool[] = [{ name: "web_search", description: "Search", parameters: { type: "object", properties: { q: { type: "string" } } } }];
const models: ModelsJson = { providers: { mock: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions", apiKey: "k", models: [{ id: "m", reasoning: true }] } } };
const options: AssembleOptions = {
  session: "{}\\n", sessionPath: "/p/s.jsonl", files: { "/p/AGENTS.md": "be brief", "/p/img.png": new Uint8Array([137, 80]) },
  agentDir: "/h/.pi/agent", home: "/h", cwd: "/p", piPackageDir: "/pi", models, model: "mock/m", thinking: "high",
  tools, args: ["--tools", "read,bash"], env: { PI_CACHE_RETENTION: "long" }, prompt: "hi", now: 1, api: "anthropic-messages",
  sessionId: "s", userAgent: "pi (linux; x64)",
};
const r: Assembly = assemble(options);
const body: string | null = r.body;
const url: string | null = r.url;
const headers: Array<[string, string]> = r.headers;
const stages: Stage[] = r.stages;
const events: StageEvent[] = stages.flatMap((s) => s.events);
const kinds: string[] = events.map((e) => e.kind + (e.piSource ?? ""));
const stats: Stats | null = r.stats;
const toolChars: number = stats ? stats.tools.byTool[0].descriptionChars + stats.history.byKind.images + stats.shares.history : 0;
const findings: Finding[] = r.findings;
const titles: string[] = findings.map((f) => f.title + f.detail + (f.stage ?? "") + (f.subject ?? "") + f.number);
const diagnostics: Diagnostic[] = r.diagnostics;
const spans: Array<[number, number] | null> = diagnostics.map((d) => (d.start !== undefined && d.end !== undefined ? [d.start, d.end] : null));
const api: Api | undefined = r.model?.api === "pi-messages" ? "pi-messages" : protocols[0];
const fromCase: Assembly = assembleCase(new Map([["case.json", "{}"]]), { now: 0, api: "openai-responses", envDir: "expected" });
const tree: SessionTree = parseSession("", { path: "/s.jsonl" });
const entries: SessionEntry[] = tree.entries.filter((e) => e.onActiveBranch && e.inContext);
const treeCalls: Call[] = tree.calls;
void treeCalls;
const version: PiVersion = piVersion;
const all: readonly PiVersion[] = piVersions;
const older = assemble({ prompt: "hi", piVersion: "0.85.1" });
const between = assemble({ prompt: "hi", piVersion: "1.5.2" });
const model: ModelInfo | null = between.model;
const thinking: string = model ? model.thinking + model.thinkingRequested + model.maxTokens : "";
void thinking;
const evidence: number | null | undefined = between.pi?.detection?.evidence[0]?.line;
void evidence;
const why: "given" | "captured" | "installed" | "detected" | "call" | "default" | undefined = older.pi?.reason;
const certainty: string | undefined = older.pi?.detection?.certainty;
const needs: string | undefined = new CtxlensError("x").piVersion;
function machine(): string | null {
  const o: AssembleSessionOptions = { prompt: "hi", call: 2, model: "anthropic/claude-sonnet-4-5", thinking: "high", toolSet: "tools.json", args: ["--no-skills"], piVersion: "1.6.0", piDir: "/pi", now: 1, api: "openai-responses", compareWith: "anthropic-messages", env: { HOME: "/h" }, cwd: "/p" };
  return assembleSession("/h/s.jsonl", o).body ?? assembleSession("s.jsonl").body;
}
async function bundled(): Promise<string | null> {
  await ready;
  return assemble({ prompt: "hi" }).body;
}
async function web(): Promise<string | null> {
  await init();
  await init(new URL("https://example.test/ctxlens_bg.wasm"));
  await load("1.6.0");
  await load("0.85.1", new URL("https://example.test/data/"));
  install("1.6.0", { "manifest.json": "{}" });
  initSync(new Uint8Array(0));
  return webAssemble({ model: "m" }).body;
}
void [titles, body, url, headers, kinds, toolChars, findings, spans, api, fromCase, entries, version, web, bundled, machine];

// compareWith and the comparison.
const compared: Assembly = assemble({ model: "m", compareWith: "anthropic-messages" });
const cmp: Comparison | undefined = compared.comparison;
const rows: MappingRow[] = cmp ? cmp.mapping : [];
const losses: Loss[] = cmp ? cmp.losses.filter((l) => l.side !== "both") : [];
const aBytes: number = cmp ? cmp.a.bodyBytes + cmp.b.bodyChars + rows[0].a.chars + (rows[0].b.value ?? "").length : 0;
void [losses, aBytes];

// compareWith a release: the upgrade.
const upgraded: Assembly = assemble({ model: "m", piVersion: "0.85.1", compareWith: { piVersion: "1.6.0" } });
const up: Upgrade | undefined = upgraded.upgrade;
const prefix: number = up?.firstChange?.cachedPrefixBytes ?? 0;
const ruleNames: string[] = up ? up.rules.filter((r) => r.appliesToThisProtocol).map((r) => r.rule) : [];
const grew: number | null = up ? up.blocks[0].tokensDelta : null;
const byApi: Assembly = assemble({ model: "m", compareWith: { api: "pi-messages" } });
void [prefix, ruleNames, grew, byApi];
// What if, and a workspace.
const w: Assembly = assemble({ model: "m", without: ["tool:bash"], set: ["thinking=low"], rebuildCalls: "all" });
const stable: number = w.whatif?.cache?.stablePrefixBytes ?? 0;
const takeHome: string = w.whatif ? w.whatif.changes[0].takeHome.text : "";
const ws = createWorkspace({ model: "m" });
const again: Assembly = ws.assemble({ api: "pi-messages", without: ["skill:x"] });
ws.free();
void [stable, takeHome, again];

// Calls: by number, by entry id, the next request; their usage.
const byNumber: Assembly = assemble({ session: "", call: 2 });
const byId: Assembly = assemble({ session: "", call: "ab12cd34", prompt: null });
const caseCall: Assembly = assembleCase(new Map([["case.json", "{}"]]), { call: "next" });
const calls: Call[] = byNumber.calls;
const rebuilt: RebuiltCall | null = byId.call;
const cacheRead: number = calls[0]?.usage?.cacheRead ?? 0;
const chosen: "index" | "entry" | "last" | undefined = rebuilt?.chosen;
void [caseCall, cacheRead, chosen];
// @ts-expect-error: a call is a number or a string
assemble({ call: true });

// Every call of every session: the report's cache breaks and costliest calls name their entries.
const report: UsageReport = usage(["/h/.pi/agent/sessions"], { by: "month" });
const opened: string | null = report.costliest[0]?.entryId ?? report.breaks[0]?.entryId ?? null;
const broke: "systemPrompt" | "tools" | "history" | undefined = report.breaks[0]?.block;
const again2: number | null = report.cacheBreaks[0]?.cost ?? null;
const unusedSkill: string | undefined = report.neverInvoked[0]?.source;
const sentTwice: string | undefined = report.shadowedFiles[0]?.heldBy;
const pkgChars: number = byNumber.packages.reduce((n, p) => n + p.chars, 0);
const pkgSkill: number | null = byNumber.packages[0]?.skills[0]?.tokens ?? null;
void [opened, broke, again2, unusedSkill, sentTwice, pkgChars, pkgSkill];

// Tokens: a vocabulary loaded, then counted with; what the result says of them.
async function counted(): Promise<number> {
  const names: readonly VocabularyName[] = vocabularies;
  const v: Vocabulary = await loadVocabulary("o200k_base", { onProgress: (p: VocabularyProgress) => void (p.loaded + (p.total ?? 0) + p.name.length) });
  await webLoadVocabulary(names[0], { url: "https://example.test/tokenizers/o200k_base.wasm" });
  const t = assemble({ model: "openai/gpt-5", tokens: true });
  const info: TokensInfo | undefined = t.tokens;
  const exact: boolean = t.stats?.tokenizer?.exact ?? false;
  const sys: number = (t.stats?.systemPrompt.tokens ?? 0) + (t.stats?.tools.byTool[0]?.parametersTokens ?? 0) + (t.stats?.history.byKindTokens?.toolResults ?? 0);
  const c: Assembly = assembleCase(new Map([["case.json", "{}"]]), { tokens: true });
  const s: Assembly = assembleSession("s.jsonl", { tokens: true });
  void [info?.note, info?.vocabulary, exact, c, s];
  return v.count("hi") + sys;
}
void counted;
// @ts-expect-error: a vocabulary the package does not ship
loadVocabulary("gemma3");
// @ts-expect-error: tokens is a boolean
assemble({ tokens: "yes" });

// The element.
const ctx: ContextFile[] = [{ url: "docs/AGENTS.md", folder: "sub" }, { url: "AGENTS.md" }];
const opts: ViewOptions = { src: "s.jsonl", case: "c/ctxlens-case.json", tools: "tools.json", context: ctx, model: "anthropic/claude-sonnet-4-5",
  thinking: "high", protocol: "anthropic-messages", view: "compare", with: "openai-responses", stage: "convert-messages", compact: true, app: "index.html", prompt: "hi" };
async function element(host: HTMLElement): Promise<void> {
  await loadWasm();
  const view: CtxlensView = mount(host, opts);
  const same: CtxlensView = view.update({ view: "stats", compact: false, context: "a/AGENTS.md=sub,b/CLAUDE.md" });
  const state: "idle" | "loading" | "ready" | "error" = same.state;
  const result: Assembly | null = view.result;
  const fromTag: CtxlensView = document.createElement("ctxlens-view");
  view.addEventListener("ctxlens-ready", (e) => { const v: ViewName = e.detail.view; void v; });
  view.addEventListener("ctxlens-error", (e) => { const m: string = e.detail.message; void m; });
  const tag: "ctxlens-view" = TAG;
  const views: readonly ViewName[] = VIEWS;
  const parsed: Array<{ url: string; folder: string }> = parseContext("a=b");
  const whatifView: CtxlensView = view.update({ view: "whatif", whatif: "tool:bash,thinking=low" }).update({ whatif: ["skill:a", "model=p/m"] });
  const specs: string[] = parseWhatif("tool:bash,context:a%2Cb/AGENTS.md");
  const changes: string | undefined = whatifView.result?.whatif?.changes[0].change;
  void [state, result, fromTag, tag, views, parsed, specs, changes];
}
void element;
// @ts-expect-error: an unknown view
mount(document.body, { view: "tree" });
// @ts-expect-error: an unknown protocol to compare with
mount(document.body, { with: "openai" });

// Misuse is a type error.
// @ts-expect-error: an unknown protocol
assemble({ api: "openai" });
// @ts-expect-error: an unknown option
assemble({ modle: "x" });
// @ts-expect-error: args is a list
assemble({ args: "--tools bash" });
// @ts-expect-error: file contents are text or bytes
assemble({ files: { "/a": 5 } });
// @ts-expect-error: options are required
assemble();
// @ts-expect-error: a release ctxlens does not rebuild
assemble({ piVersion: "2.0.0" });
// @ts-expect-error: the model's window is a number
const window: string | undefined = r.model?.contextWindow;
void window;
// @ts-expect-error: the body may be null
const len: number = r.body.length;
void len;
`;

test("the types check with tsc --noEmit --strict", () => {
  const project = installPackage();
  fs.writeFileSync(path.join(project, "use.ts"), program);
  fs.writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom"], skipLibCheck: false, types: [] }, files: ["use.ts"] }),
  );
  const r = spawnSync(tsc, ["--noEmit", "-p", project], { cwd: project, encoding: "utf8" });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
  // The package's declarations never fall back to \`any\`.
  for (const f of ["types.d.ts", "index.d.ts", "web.d.ts", "element.d.ts"]) {
    const text = fs.readFileSync(path.join(project, "node_modules/ctxlens", f), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
    assert.doesNotMatch(text, /\bany\b/, `${f} mentions any`);
  }
});
