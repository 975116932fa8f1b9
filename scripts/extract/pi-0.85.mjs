// extract/pi-0.85.mjs: the data of a release whose system prompt is one text built by
// `buildSystemPrompt` (0.85.x): tools.json, prompt.json, strings.json, defaults.json and the model
// catalog. Every value comes from pi itself: by calling its exported functions with sentinel
// inputs and splitting the output, or, where a literal is only reachable in source, by a precise
// regex on the dist JS that must match. Every derived piece is checked: re-concatenating the
// pieces must reproduce pi's own output for sample inputs, and the functions of the CLI bundle
// (dist/bundle, what `pi` really runs) must agree with dist/*.js. Anything not found or not
// matching aborts the run with a non-zero exit.

import fs from "node:fs";
import path from "node:path";
import {
  AI, CA, CHECK_BODY, CORE, NM, PI_VERSION, TMP, assert, assertEq, evalLiteral, evalTemplate, fail, imp,
  apiKeyEnvVars, lcp, lcs, lit, lits, matchAll, pkgVersion, splitOn, src, stripPrefix, stripSuffix, J,
} from "./lib.mjs";

// ---------------------------------------------------------------------------------------------
// Load pi
// ---------------------------------------------------------------------------------------------
const piPkg = (dir) => pkgVersion(NM, `@earendil-works/${dir}`);
const versions = {
  "@earendil-works/pi-coding-agent": piPkg("pi-coding-agent"),
  "@earendil-works/pi-ai": piPkg("pi-ai"),
  "@earendil-works/pi-agent-core": piPkg("pi-agent-core"),
};
for (const [name, v] of Object.entries(versions)) assertEq(v, PI_VERSION, `${name} version`);

const TOOLS = await imp(`${CA}/core/tools/index.js`);
const SYSTEM_PROMPT = await imp(`${CA}/core/system-prompt.js`);
const SKILLS = await imp(`${CA}/core/skills.js`);
const CONFIG = await imp(`${CA}/config.js`);
const MESSAGES = await imp(`${CA}/core/messages.js`);
const SESSION = await imp(`${CA}/core/agent-session.js`);
const CA_DEFAULTS = await imp(`${CA}/core/defaults.js`);
const MODEL_RESOLVER = await imp(`${CA}/core/model-resolver.js`);
const COMPOSER = await imp(`${CA}/core/provider-composer.js`);
const AI_TRANSFORM = await imp(`${AI}/api/transform-messages.js`);
const AI_SIMPLE = await imp(`${AI}/api/simple-options.js`);
const AI_ALL = await imp(`${AI}/providers/all.js`);
// The CLI (dist/bundle/cli.js) runs bundled copies of the same code; its library entry exports
// the same functions, used below to confirm that dist/*.js and the bundle agree.
const BUNDLE = await imp(`${CA}/bundle/index.js`);

const F = {
  systemPrompt: `${CA}/core/system-prompt.js`,
  skills: `${CA}/core/skills.js`,
  resourceLoader: `${CA}/core/resource-loader.js`,
  sdk: `${CA}/core/sdk.js`,
  agentSession: `${CA}/core/agent-session.js`,
  providerComposer: `${CA}/core/provider-composer.js`,
  transform: `${AI}/api/transform-messages.js`,
  simpleOptions: `${AI}/api/simple-options.js`,
  estimate: `${AI}/utils/estimate.js`,
  completions: `${AI}/api/openai-completions.js`,
  anthropic: `${AI}/api/anthropic-messages.js`,
  responsesShared: `${AI}/api/openai-responses-shared.js`,
  codex: `${AI}/api/openai-codex-responses.js`,
  googleShared: `${AI}/api/google-shared.js`,
  googleGenAi: `${AI}/api/google-generative-ai.js`,
  googleVertex: `${AI}/api/google-vertex.js`,
  bedrock: `${AI}/api/bedrock-converse-stream.js`,
  mistral: `${AI}/api/mistral-conversations.js`,
  agentLoop: `${CORE}/agent-loop.js`,
  manifest: `${AI}/providers/data/.manifest.json`,
};

const notes = [];

// =============================================================================================
// 1. tools.json
// =============================================================================================
const TOOL_ORDER = ["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"];
assertEq(J([...TOOLS.allToolNames].sort()), J([...TOOL_ORDER].sort()), "pi's allToolNames");

function defsFor(lib, cwd, options) {
  const make = {
    read: lib.createReadToolDefinition,
    bash: lib.createBashToolDefinition,
    edit: lib.createEditToolDefinition,
    write: lib.createWriteToolDefinition,
    grep: lib.createGrepToolDefinition,
    find: lib.createFindToolDefinition,
    ls: lib.createLsToolDefinition,
    powershell: lib.createPowerShellToolDefinition,
  };
  return Object.fromEntries(TOOL_ORDER.map((n) => [n, make[n](cwd, options?.[n])]));
}
/** The JSON-visible facts of a definition (what adapters and JSON.stringify see). */
function toolFacts(d) {
  return {
    name: d.name,
    label: d.label,
    description: d.description,
    parameters: JSON.parse(JSON.stringify(d.parameters)),
    promptSnippet: d.promptSnippet ?? null,
    promptGuidelines: d.promptGuidelines === undefined ? null : [...d.promptGuidelines],
    constrainedSampling: d.constrainedSampling === undefined ? null : JSON.parse(JSON.stringify(d.constrainedSampling)),
    executionMode: d.executionMode ?? null,
  };
}
const factsOf = (defs) => Object.fromEntries(Object.entries(defs).map(([n, d]) => [n, toolFacts(d)]));

const baseFacts = factsOf(defsFor(TOOLS, "/work/cwd-a"));
for (const n of TOOL_ORDER) {
  assertEq(baseFacts[n].name, n, "tool name");
  assertEq(baseFacts[n].constrainedSampling, null, `${n}: constrainedSampling without PI_EXPERIMENTAL`);
  assertEq(baseFacts[n].executionMode, null, `${n}: executionMode (not modelled in tools.json)`);
  assert(typeof baseFacts[n].description === "string" && baseFacts[n].description.length > 20, `${n}: description`);
  assert(!baseFacts[n].description.includes("/work/cwd-a"), `${n}: description embeds the cwd`);
}
// Independence from cwd, platform and the settings-driven options AgentSession passes.
const variants = [
  ["another cwd", factsOf(defsFor(TOOLS, "C:\\Users\\x\\proj"))],
  ["read.autoResizeImages=false, bash.commandPrefix/shellPath", factsOf(defsFor(TOOLS, "/x", { read: { autoResizeImages: false }, bash: { commandPrefix: "set -e", shellPath: "/bin/zsh" } }))],
  ["the CLI bundle", factsOf(defsFor(BUNDLE, "/work/cwd-a"))],
];
const realPlatform = process.platform;
for (const platform of ["win32", "darwin"]) {
  Object.defineProperty(process, "platform", { value: platform });
  try {
    variants.push([`process.platform=${platform}`, factsOf(defsFor(TOOLS, "/work/cwd-a"))]);
  } finally {
    Object.defineProperty(process, "platform", { value: realPlatform });
  }
}
for (const [what, facts] of variants) {
  for (const n of TOOL_ORDER) assertEq(J(facts[n]), J(baseFacts[n]), `${n}: definition differs with ${what}`);
}
// bash/powershell: promptGuidelines are dropped when exposeSessionEnvironment === false.
{
  const off = factsOf(defsFor(TOOLS, "/x", { bash: { exposeSessionEnvironment: false }, powershell: { exposeSessionEnvironment: false } }));
  for (const n of TOOL_ORDER) {
    const expected = n === "bash" || n === "powershell" ? { ...baseFacts[n], promptGuidelines: null } : baseFacts[n];
    assertEq(J(off[n]), J(expected), `${n}: with exposeSessionEnvironment=false`);
  }
  assert(baseFacts.bash.promptGuidelines?.length === 1 && baseFacts.powershell.promptGuidelines?.length === 1, "shell guidelines present by default");
  // AgentSession (the CLI path) builds the built-ins with only {read:{autoResizeImages}, bash:{commandPrefix, shellPath}}.
  const m = matchAll(F.agentSession, /createAllToolDefinitions\(this\._cwd, \{\s*read: \{ autoResizeImages \},\s*bash: \{ commandPrefix: shellCommandPrefix, shellPath \},\s*\}\)/g);
  assertEq(m.length, 1, "agent-session builds built-in tools without exposeSessionEnvironment");
  assert(!/exposeSessionEnvironment/.test(src(F.agentSession)) && !/exposeSessionEnvironment/.test(src(F.sdk)), "exposeSessionEnvironment is not set by agent-session/sdk");
  notes.push(
    "tools.json: no description or parameters depend on cwd, platform or settings (checked: two cwds, win32/darwin, read.autoResizeImages, bash.commandPrefix/shellPath, and the CLI bundle's own definitions).",
    "tools.json: bash and powershell promptGuidelines are stored as pi builds them by default. createShellToolDefinition sets promptGuidelines = exposeSessionEnvironment && config.promptGuidelines ? [...] : undefined, with exposeSessionEnvironment = options.exposeSessionEnvironment ?? true. The CLI (AgentSession._buildRuntime) never passes that option, so the guideline is always present there; only SDK callers passing their own tools can turn it off (then: null).",
  );
}
// PI_EXPERIMENTAL=1: constrainedSampling on some tools.
const experimental = (() => {
  process.env.PI_EXPERIMENTAL = "1";
  try {
    const facts = factsOf(defsFor(TOOLS, "/work/cwd-a"));
    const bundleFacts = factsOf(defsFor(BUNDLE, "/work/cwd-a"));
    for (const n of TOOL_ORDER) {
      assertEq(J(bundleFacts[n]), J(facts[n]), `${n}: bundle vs dist with PI_EXPERIMENTAL=1`);
      assertEq(J({ ...facts[n], constrainedSampling: null }), J(baseFacts[n]), `${n}: only constrainedSampling changes with PI_EXPERIMENTAL=1`);
    }
    return Object.fromEntries(TOOL_ORDER.map((n) => [n, facts[n].constrainedSampling]));
  } finally {
    delete process.env.PI_EXPERIMENTAL;
  }
})();
{
  const withSampling = TOOL_ORDER.filter((n) => experimental[n] !== null);
  notes.push(
    `tools.json: experimentalConstrainedSampling is the constrainedSampling value with PI_EXPERIMENTAL=1 (CA/core/experimental.js; exactly "1"); tools that get it: ${withSampling.join(", ")}. Without PI_EXPERIMENTAL it is undefined on every tool.`,
  );
}

const toolsJson = TOOL_ORDER.map((n) => {
  const f = baseFacts[n];
  return {
    name: f.name,
    label: f.label,
    description: f.description,
    parameters: f.parameters,
    promptSnippet: f.promptSnippet,
    promptGuidelines: f.promptGuidelines,
    experimentalConstrainedSampling: experimental[n],
  };
});

// =============================================================================================
// 2. prompt.json
// =============================================================================================
const PKG = "/XPKGDIRX";
const CWD = "/XCWDX";
process.env.PI_PACKAGE_DIR = PKG;
const readmePath = CONFIG.getReadmePath();
const docsPath = CONFIG.getDocsPath();
const examplesPath = CONFIG.getExamplesPath();
const packagePaths = {
  readmeSuffix: stripPrefix(readmePath, PKG, "getReadmePath"),
  docsSuffix: stripPrefix(docsPath, PKG, "getDocsPath"),
  examplesSuffix: stripPrefix(examplesPath, PKG, "getExamplesPath"),
};
const build = (o) => SYSTEM_PROMPT.buildSystemPrompt({ cwd: CWD, ...o });

// --- literal structure taken from the source (resolves where one list item's prefix starts) ---
const [toolItemTpl, toolsJoinLit] = matchAll(F.systemPrompt, /visibleTools\.map\(\(name\) => (`[^`]*`)\)\.join\(("[^"]*")\)/g).map((m) => [m[1], m[2]])[0];
const toolItem = evalTemplate(toolItemTpl, { name: "name", "toolSnippets[name]": "snippet" });
const [guidelineItemTpl, guidelinesJoinLit] = matchAll(F.systemPrompt, /guidelinesList\.map\(\(g\) => (`[^`]*`)\)\.join\(("[^"]*")\)/g).map((m) => [m[1], m[2]])[0];
const guidelineItem = evalTemplate(guidelineItemTpl, { g: "guideline" });
assertEq(guidelineItem.parts[1], "", "guideline item has no suffix");
assertEq(toolItem.parts[2], "", "tool item has no suffix");
const addGuidelineLits = matchAll(F.systemPrompt, /addGuideline\(("[^"]*")\)/g).map((m) => evalLiteral(m[1]));
assertEq(addGuidelineLits.length, 5, "literal addGuideline(...) calls in system-prompt.js");
const instrTpls = matchAll(F.systemPrompt, /for \(const \{ path: filePath, content \} of contextFiles\) \{\s*prompt \+= (`[^`]*`);/g, 2).map((m) => m[1]);
assertEq(instrTpls.length, 2, "project_instructions templates (custom and default branch)");
assertEq(instrTpls[0], instrTpls[1], "both branches use the same project_instructions template");
const instr = evalTemplate(instrTpls[0], { filePath: "path", content: "content" });

const P = {};
P.defaultSelectedTools = JSON.parse(
  matchAll(F.systemPrompt, /const tools = selectedTools \|\| (\["[a-z]+"(?:, "[a-z]+")*\]);/g)[0][1],
);
P.skillFileReadToolPreference = JSON.parse(matchAll(F.systemPrompt, /const skillFileReadTool = (\["[a-z]+"(?:, "[a-z]+")*\])\.find\(/g)[0][1]);

// --- default branch ---
const G1 = "XG1X", G2 = "XG2X", T1 = "XT1X", T2 = "XT2X", S1 = "XS1X", S2 = "XS2X";
const sentinelGuidelines = [G1, G2];
const oTwo = build({ selectedTools: [T1, T2], toolSnippets: { [T1]: S1, [T2]: S2 }, promptGuidelines: sentinelGuidelines });
const oNone = build({ selectedTools: [], toolSnippets: {}, promptGuidelines: sentinelGuidelines });
const introPlusPrefix = oTwo.slice(0, oTwo.indexOf(T1));
P.toolsListItemPrefix = toolItem.parts[0];
P.toolsListItemSeparator = toolItem.parts[1];
P.toolsListJoin = evalLiteral(toolsJoinLit);
P.defaultIntro = stripSuffix(introPlusPrefix, P.toolsListItemPrefix, "intro");
assertEq(lcp(oNone, oTwo), P.defaultIntro, "no-tools and two-tools prompts share exactly the intro");
const tail = lcs(oNone, oTwo);
P.noTools = oNone.slice(P.defaultIntro.length, oNone.length - tail.length);
{
  const [, sep1, mid, sep2, afterS2] = splitOn(oTwo.slice(P.defaultIntro.length + P.toolsListItemPrefix.length), [T1, S1, T2, S2], "tools list");
  assertEq(sep1, P.toolsListItemSeparator, "tool item separator");
  assertEq(mid, P.toolsListJoin + P.toolsListItemPrefix, "tool join");
  assertEq(sep2, P.toolsListItemSeparator, "tool item separator (2)");
  assertEq(afterS2, tail, "text after the tools list");
}
P.guidelineItemPrefix = guidelineItem.parts[0];
P.guidelinesJoin = evalLiteral(guidelinesJoinLit);
{
  const [beforeG1, betweenG, afterG2] = splitOn(tail, [G1, G2], "guidelines");
  P.afterToolsList = stripSuffix(beforeG1, P.guidelineItemPrefix, "afterToolsList");
  assertEq(betweenG, P.guidelinesJoin + P.guidelineItemPrefix, "guideline join");
  // The always-present guidelines follow the tool guidelines.
  const [bashAndPs, psOnly, bashOnly, concise, filePaths] = addGuidelineLits;
  Object.assign(P, {
    guidelineBashAndPowerShell: bashAndPs,
    guidelinePowerShell: psOnly,
    guidelineBash: bashOnly,
    guidelineConcise: concise,
    guidelineFilePaths: filePaths,
  });
  let rest = stripPrefix(afterG2, P.guidelinesJoin + P.guidelineItemPrefix + concise + P.guidelinesJoin + P.guidelineItemPrefix + filePaths, "always-present guidelines");
  const [afterGuidelines, betweenReadmeAndDocs, betweenDocsAndExamples, afterExamples] = splitOn(rest, [readmePath, docsPath, examplesPath], "docs paths");
  P.afterGuidelines = afterGuidelines;
  P.betweenReadmeAndDocs = betweenReadmeAndDocs;
  P.betweenDocsAndExamples = betweenDocsAndExamples;
  rest = afterExamples;
  // custom branch gives the cwd line
  const oCustom = build({ customPrompt: "XCPX", selectedTools: [] });
  const [c0, cwdPrefix, cwdSuffix] = splitOn(oCustom, ["XCPX", CWD], "custom prompt cwd line");
  assertEq(c0, "", "custom prompt starts the prompt");
  P.cwdLinePrefix = cwdPrefix;
  P.customPromptCwdLineSuffix = cwdSuffix;
  P.docsTail = stripSuffix(rest, P.cwdLinePrefix + CWD, "default prompt ends with the cwd line");
  // which exploration guideline goes with which tool set
  const firstGuideline = (tools) => {
    const o = build({ selectedTools: tools, toolSnippets: {}, promptGuidelines: [] });
    const g = splitOn(o, [P.afterToolsList], "guidelines start")[1];
    return stripPrefix(g, P.guidelineItemPrefix, "first guideline").split(P.guidelinesJoin)[0];
  };
  assertEq(firstGuideline(["bash", "powershell"]), bashAndPs, "guideline for bash+powershell");
  assertEq(firstGuideline(["powershell"]), psOnly, "guideline for powershell");
  assertEq(firstGuideline(["bash"]), bashOnly, "guideline for bash");
  assertEq(firstGuideline(["bash", "grep"]), concise, "no exploration guideline with grep");
  assertEq(firstGuideline([]), concise, "no exploration guideline without shells");
}
// --- append, project context, skills (custom branch: nothing else around them) ---
{
  const o = build({ customPrompt: "XCPX", appendSystemPrompt: "XAPX", selectedTools: [] });
  const [, sep, after] = splitOn(o, ["XCPX", "XAPX"], "append");
  P.appendSeparator = sep;
  assertEq(after, P.cwdLinePrefix + CWD + P.customPromptCwdLineSuffix, "after append");
}
P.projectInstructionsOpenPrefix = instr.parts[0];
P.projectInstructionsOpenSuffix = instr.parts[1];
P.projectInstructionsClose = instr.parts[2];
{
  const files = [{ path: "XP1X", content: "XC1X" }, { path: "XP2X", content: "XC2X" }];
  const o = build({ customPrompt: "XCPX", selectedTools: [], contextFiles: files });
  const [, open, s1, c1, s2, close] = splitOn(o, ["XCPX", "XP1X", "XC1X", "XP2X", "XC2X"], "project context");
  P.projectContextOpen = stripSuffix(open, P.projectInstructionsOpenPrefix, "projectContextOpen");
  assertEq(s1, P.projectInstructionsOpenSuffix, "instructions open suffix");
  assertEq(s2, P.projectInstructionsOpenSuffix, "instructions open suffix (2)");
  assertEq(c1, P.projectInstructionsClose + P.projectInstructionsOpenPrefix, "between two context files");
  P.projectContextClose = stripSuffix(stripPrefix(close, P.projectInstructionsClose, "close"), P.cwdLinePrefix + CWD + P.customPromptCwdLineSuffix, "projectContextClose");
}
// --- skills block (formatSkillsForPrompt) ---
const S = {};
{
  const arr = matchAll(F.skills, /const lines = \[\s*(("[^"]*"),\s*fileReadTool === "read"\s*\?\s*("[^"]*")\s*:\s*("[^"]*"),\s*("[^"]*"),\s*("[^"]*"),\s*("[^"]*"),)\s*\];/g)[0];
  const [header, readLine, bashLine, relLine, blank, open] = arr.slice(2, 8).map(evalLiteral);
  const pushes = matchAll(F.skills, /lines\.push\(((?:"[^"\n]*"|`[^`\n]*`))\);/g).map((m) => m[1]);
  assertEq(pushes.length, 6, "lines.push calls in formatSkillsForPrompt");
  const skillOpen = evalLiteral(pushes[0]);
  const nameT = evalTemplate(pushes[1], { "escapeXml(skill.name)": "name" });
  const descT = evalTemplate(pushes[2], { "escapeXml(skill.description)": "description" });
  const locT = evalTemplate(pushes[3], { "escapeXml(skill.filePath)": "location" });
  const skillClose = evalLiteral(pushes[4]);
  const close = evalLiteral(pushes[5]);
  const joinLit = matchAll(F.skills, /lines\.push\("<\/available_skills>"\);\s*return lines\.join\(("[^"]*")\);/g)[0][1];
  const escapes = matchAll(F.skills, /\.replace\(\/(&|<|>|"|')\/g, ("[^"]*")\)/g).map((m) => [m[1], evalLiteral(m[2])]);
  assertEq(escapes.length, 5, "escapeXml replacements");
  Object.assign(S, {
    header,
    readToolLine: readLine,
    bashToolLine: bashLine,
    relativePathLine: relLine,
    separatorLine: blank,
    listOpen: open,
    skillOpen,
    namePrefix: nameT.parts[0],
    nameSuffix: nameT.parts[1],
    descriptionPrefix: descT.parts[0],
    descriptionSuffix: descT.parts[1],
    locationPrefix: locT.parts[0],
    locationSuffix: locT.parts[1],
    skillClose,
    listClose: close,
    lineJoin: evalLiteral(joinLit),
    xmlEscapes: escapes,
  });
}
P.skills = S;
P.contextFileCandidates = JSON.parse(
  matchAll(F.resourceLoader, /const candidates = (\["[^"\]]+"(?:, "[^"\]]+")*\]);/g)[0][1],
);
{
  const sdkDefault = JSON.parse(matchAll(F.sdk, /const defaultActiveToolNames = (\["[a-z]+"(?:, "[a-z]+")*\]);/g)[0][1]);
  const sessionDefault = JSON.parse(matchAll(F.agentSession, /: (\["[a-z]+"(?:, "[a-z]+")*\]);\s*const baseActiveToolNames = options\.activeToolNames \?\? defaultActiveToolNames;/g)[0][1]);
  assertEq(J(sdkDefault), J(sessionDefault), "default active tools in sdk.js and agent-session.js");
  assertEq(J(sdkDefault), J(P.defaultSelectedTools), "default active tools vs buildSystemPrompt's fallback");
  P.defaultActiveTools = sdkDefault;
}

// --- the reference rebuild (what the Rust side does), checked against pi ---
function escapeXmlFrom(pieces, s) {
  let out = "";
  for (const ch of s) {
    const e = pieces.skills.xmlEscapes.find(([c]) => c === ch);
    out += e ? e[1] : ch;
  }
  return out;
}
function rebuildSkills(p, skills, fileReadTool) {
  const k = p.skills;
  const visible = skills.filter((s) => !s.disableModelInvocation);
  if (visible.length === 0) return "";
  const lines = [k.header, fileReadTool === "read" ? k.readToolLine : k.bashToolLine, k.relativePathLine, k.separatorLine, k.listOpen];
  for (const s of visible) {
    lines.push(
      k.skillOpen,
      k.namePrefix + escapeXmlFrom(p, s.name) + k.nameSuffix,
      k.descriptionPrefix + escapeXmlFrom(p, s.description) + k.descriptionSuffix,
      k.locationPrefix + escapeXmlFrom(p, s.filePath) + k.locationSuffix,
      k.skillClose,
    );
  }
  lines.push(k.listClose);
  return lines.join(k.lineJoin);
}
function rebuildPrompt(p, o, packageDir) {
  const promptCwd = o.cwd.replace(/\\/g, "/");
  const tools = o.selectedTools || p.defaultSelectedTools;
  const skillTool = p.skillFileReadToolPreference.find((t) => tools.includes(t));
  const append = o.appendSystemPrompt ? p.appendSeparator + o.appendSystemPrompt : "";
  const files = o.contextFiles ?? [];
  const ctx = files.length
    ? p.projectContextOpen +
      files.map((f) => p.projectInstructionsOpenPrefix + f.path + p.projectInstructionsOpenSuffix + f.content + p.projectInstructionsClose).join("") +
      p.projectContextClose
    : "";
  const skills = skillTool && (o.skills ?? []).length > 0 ? rebuildSkills(p, o.skills, skillTool) : "";
  if (o.customPrompt) return o.customPrompt + append + ctx + skills + p.cwdLinePrefix + promptCwd + p.customPromptCwdLineSuffix;
  const visible = tools.filter((n) => !!o.toolSnippets?.[n]);
  const toolsList = visible.length ? visible.map((n) => p.toolsListItemPrefix + n + p.toolsListItemSeparator + o.toolSnippets[n]).join(p.toolsListJoin) : p.noTools;
  const g = [];
  const add = (x) => {
    if (!g.includes(x)) g.push(x);
  };
  const has = (n) => tools.includes(n);
  if ((has("bash") || has("powershell")) && !has("grep") && !has("find") && !has("ls")) {
    add(has("bash") && has("powershell") ? p.guidelineBashAndPowerShell : has("powershell") ? p.guidelinePowerShell : p.guidelineBash);
  }
  for (const x of o.promptGuidelines ?? []) if (x.trim().length > 0) add(x.trim());
  add(p.guidelineConcise);
  add(p.guidelineFilePaths);
  const guidelines = g.map((x) => p.guidelineItemPrefix + x).join(p.guidelinesJoin);
  return (
    p.defaultIntro + toolsList + p.afterToolsList + guidelines + p.afterGuidelines +
    packageDir + p.packagePaths.readmeSuffix + p.betweenReadmeAndDocs +
    packageDir + p.packagePaths.docsSuffix + p.betweenDocsAndExamples +
    packageDir + p.packagePaths.examplesSuffix + p.docsTail +
    append + ctx + skills + p.cwdLinePrefix + promptCwd
  );
}
P.packagePaths = packagePaths;
{
  // pi's own normalization of snippets and guidelines (AgentSession), used to feed the samples
  const norm = SESSION.AgentSession.prototype;
  const snippetsOf = (names) => Object.fromEntries(names.map((n) => [n, norm._normalizePromptSnippet(toolsJson.find((t) => t.name === n)?.promptSnippet)]).filter(([, s]) => s));
  const guidelinesOf = (names) => names.flatMap((n) => norm._normalizePromptGuidelines(toolsJson.find((t) => t.name === n)?.promptGuidelines ?? undefined));
  const skillSets = [
    [],
    [{ name: "pdf", description: "Work with PDFs", filePath: "/h/.pi/agent/skills/pdf/SKILL.md" }],
    [
      { name: "a&b<c>", description: `says "hi" & it's <ok>; &amp; stays escaped twice — ünï`, filePath: "/p/it's/SKILL.md" },
      { name: "hidden", description: "x", filePath: "/h/SKILL.md", disableModelInvocation: true },
      { name: "two", description: " raw description\nwith newline ", filePath: "C:\\skills\\two\\SKILL.md" },
    ],
    [{ name: "only-hidden", description: "x", filePath: "/s", disableModelInvocation: true }],
  ];
  const fileSets = [[], [{ path: "/r/AGENTS.md", content: "root rules\n" }], [{ path: "/a/CLAUDE.md", content: "" }, { path: "/a/b/AGENTS.override.md", content: "x\n\ny" }, { path: "/h/AGENTS.md", content: "<b>&</b>" }]];
  const toolSets = [undefined, [], ["read"], ["bash"], ["powershell"], ["bash", "powershell"], ["bash", "grep"], ["read", "bash", "edit", "write"], TOOL_ORDER, ["ls", "powershell"], ["bash", "mytool", "nosnippet"], ["write", "edit"]];
  const pkgDirs = ["/opt/pi-oracle/node_modules/@earendil-works/pi-coding-agent", "/nix/store/abc-pi"];
  let n = 0;
  for (const pkg of pkgDirs) {
    process.env.PI_PACKAGE_DIR = pkg;
    for (const tools of toolSets) {
      const names = tools ?? P.defaultSelectedTools;
      const toolSnippets = { ...snippetsOf(names), mytool: "My   tool\ndoes things" };
      const promptGuidelines = [...guidelinesOf(names), "  Be concise in your responses  ", "", "   ", "custom guideline", "custom guideline"];
      for (const customPrompt of [undefined, "", "You are a test.", "Custom\nmulti-line\n"]) {
        for (const appendSystemPrompt of [undefined, "", "APPENDED\ntext"]) {
          for (const contextFiles of fileSets) {
            for (const skills of skillSets) {
              for (const cwd of ["/tmp/pi-ctx-demo/a/b/c", "C:\\Users\\me\\proj"]) {
                const o = { customPrompt, appendSystemPrompt, selectedTools: tools, toolSnippets, promptGuidelines, contextFiles, skills, cwd };
                const expected = SYSTEM_PROMPT.buildSystemPrompt(o);
                const actual = rebuildPrompt(P, o, pkg);
                if (actual !== expected) fail(`prompt rebuild mismatch for ${J({ ...o, pkg })}\n--- pi:\n${expected}\n--- rebuilt:\n${actual}`);
                n++;
                if (tools !== undefined) {
                  // The same through the CLI bundle's AgentSession._rebuildSystemPrompt (its own buildSystemPrompt).
                  const names = [...new Set(tools)];
                  const fakeSession = {
                    _cwd: cwd,
                    _toolRegistry: new Set(names),
                    _toolPromptSnippets: new Map(Object.entries(toolSnippets).map(([k, v]) => [k, norm._normalizePromptSnippet(v)]).filter(([, v]) => v)),
                    _toolPromptGuidelines: new Map(names.length ? [[names[0], norm._normalizePromptGuidelines(promptGuidelines)]] : []),
                    _resourceLoader: {
                      getSystemPrompt: () => customPrompt,
                      getAppendSystemPrompt: () => (appendSystemPrompt === undefined ? [] : [appendSystemPrompt]),
                      getSkills: () => ({ skills }),
                      getAgentsFiles: () => ({ agentsFiles: contextFiles }),
                    },
                  };
                  const viaBundle = BUNDLE.AgentSession.prototype._rebuildSystemPrompt.call(fakeSession, names);
                  const opts = fakeSession._baseSystemPromptOptions;
                  assertEq(viaBundle, SYSTEM_PROMPT.buildSystemPrompt(opts), "bundle _rebuildSystemPrompt vs dist buildSystemPrompt");
                  assertEq(rebuildPrompt(P, opts, pkg), viaBundle, "rebuild vs bundle _rebuildSystemPrompt");
                  n++;
                }
              }
            }
          }
        }
      }
    }
  }
  // formatSkillsForPrompt directly, in dist and in the CLI bundle, both wordings, hostile strings
  const hostile = ["&<>\"'", "&lt;&amp;", "plain", "", "a'b\"c", "\u2028\u{1F600}&"];
  for (const fileReadTool of ["read", "bash"]) {
    for (const skills of [...skillSets, hostile.map((h, i) => ({ name: h, description: h + i, filePath: `/${h}` }))]) {
      const expected = SKILLS.formatSkillsForPrompt(skills, fileReadTool);
      assertEq(BUNDLE.formatSkillsForPrompt(skills, fileReadTool), expected, "bundle formatSkillsForPrompt");
      assertEq(rebuildSkills(P, skills, fileReadTool), expected, `skills rebuild (${fileReadTool})`);
      n++;
    }
  }
  console.error(`prompt.json: rebuilt ${n} sample prompts/skill blocks identically to pi`);
  delete process.env.PI_PACKAGE_DIR;
}
notes.push(
  "prompt.json, default branch (customPrompt empty/absent): defaultIntro + toolsList + afterToolsList + guidelines + afterGuidelines + pkg+packagePaths.readmeSuffix + betweenReadmeAndDocs + pkg+packagePaths.docsSuffix + betweenDocsAndExamples + pkg+packagePaths.examplesSuffix + docsTail + append + projectContext + skills + cwdLinePrefix + cwd. toolsList = for active tools (selectedTools, else defaultSelectedTools) that have a non-empty normalized snippet: toolsListItemPrefix + name + toolsListItemSeparator + snippet, joined by toolsListJoin; none -> noTools. guidelines = ordered de-duplicated list [exploration guideline (bash and/or powershell active and none of grep/find/ls): guidelineBashAndPowerShell | guidelinePowerShell | guidelineBash] + trimmed non-empty tool guidelines + guidelineConcise + guidelineFilePaths, each guidelineItemPrefix + g, joined by guidelinesJoin. pkg = pi's package dir as path.resolve gives it.",
  "prompt.json, custom branch: customPrompt + append + projectContext + skills + cwdLinePrefix + cwd + customPromptCwdLineSuffix. Both branches: append = appendSeparator + text when non-empty; projectContext (only with >= 1 file) = projectContextOpen + per file (projectInstructionsOpenPrefix + path + projectInstructionsOpenSuffix + content + projectInstructionsClose) + projectContextClose; cwd has backslashes replaced by '/'.",
  "prompt.json skills: only when a tool of skillFileReadToolPreference (first active one wins) is active and at least one skill lacks disableModelInvocation; lines [header, readToolLine|bashToolLine, relativePathLine, separatorLine, listOpen] + per visible skill [skillOpen, namePrefix+esc(name)+nameSuffix, descriptionPrefix+esc(description)+descriptionSuffix, locationPrefix+esc(filePath)+locationSuffix, skillClose] + [listClose], joined by lineJoin; esc replaces each character by xmlEscapes (single pass).",
  "strings.json: values with {name} placeholders are templates (the placeholder is not in pi's text); everything else is literal.",
);
const promptJson = {
  defaultActiveTools: P.defaultActiveTools,
  defaultSelectedTools: P.defaultSelectedTools,
  skillFileReadToolPreference: P.skillFileReadToolPreference,
  contextFileCandidates: P.contextFileCandidates,
  defaultIntro: P.defaultIntro,
  toolsListItemPrefix: P.toolsListItemPrefix,
  toolsListItemSeparator: P.toolsListItemSeparator,
  toolsListJoin: P.toolsListJoin,
  noTools: P.noTools,
  afterToolsList: P.afterToolsList,
  guidelineItemPrefix: P.guidelineItemPrefix,
  guidelinesJoin: P.guidelinesJoin,
  guidelineBashAndPowerShell: P.guidelineBashAndPowerShell,
  guidelinePowerShell: P.guidelinePowerShell,
  guidelineBash: P.guidelineBash,
  guidelineConcise: P.guidelineConcise,
  guidelineFilePaths: P.guidelineFilePaths,
  afterGuidelines: P.afterGuidelines,
  betweenReadmeAndDocs: P.betweenReadmeAndDocs,
  betweenDocsAndExamples: P.betweenDocsAndExamples,
  docsTail: P.docsTail,
  packagePaths: P.packagePaths,
  appendSeparator: P.appendSeparator,
  projectContextOpen: P.projectContextOpen,
  projectInstructionsOpenPrefix: P.projectInstructionsOpenPrefix,
  projectInstructionsOpenSuffix: P.projectInstructionsOpenSuffix,
  projectInstructionsClose: P.projectInstructionsClose,
  projectContextClose: P.projectContextClose,
  cwdLinePrefix: P.cwdLinePrefix,
  customPromptCwdLineSuffix: P.customPromptCwdLineSuffix,
  skills: P.skills,
};
assertEq(J(Object.keys(promptJson).sort()), J(Object.keys(P).sort()), "every derived prompt piece is written");

// =============================================================================================
// 3. strings.json
// =============================================================================================
const STR = {};

// --- CA/core/messages.js: convertToLlm wrappers ---
{
  const m = {};
  const base = { command: "XCMDX", output: "XOUTX", exitCode: 0, cancelled: false, truncated: false };
  const t = (o) => MESSAGES.bashExecutionToText({ ...base, ...o });
  const withOut = t({});
  const noOut = t({ output: "" });
  const [ran, afterCmdWith] = splitOn(withOut, ["XCMDX"], "bash text");
  const afterCmdNo = splitOn(noOut, ["XCMDX"], "bash text (no output)")[1];
  m.bashRanPrefix = ran;
  m.bashCommandSuffix = lcp(afterCmdWith, afterCmdNo);
  m.bashNoOutput = stripPrefix(afterCmdNo, m.bashCommandSuffix, "no output");
  const [open, close] = splitOn(stripPrefix(afterCmdWith, m.bashCommandSuffix, "with output"), ["XOUTX"], "bash output fence");
  m.bashOutputOpen = open;
  m.bashOutputClose = close;
  m.bashCancelled = stripPrefix(t({ cancelled: true, exitCode: 9 }), withOut, "cancelled");
  m.bashExitCodePrefix = stripSuffix(stripPrefix(t({ exitCode: 137 }), withOut, "exit code"), "137", "exit code value");
  const [tp, ts] = splitOn(stripPrefix(t({ truncated: true, fullOutputPath: "XPATHX" }), withOut, "truncated"), ["XPATHX"], "truncation note");
  m.bashTruncatedPrefix = tp;
  m.bashTruncatedSuffix = ts;
  m.compactionSummaryPrefix = MESSAGES.COMPACTION_SUMMARY_PREFIX;
  m.compactionSummarySuffix = MESSAGES.COMPACTION_SUMMARY_SUFFIX;
  m.branchSummaryPrefix = MESSAGES.BRANCH_SUMMARY_PREFIX;
  m.branchSummarySuffix = MESSAGES.BRANCH_SUMMARY_SUFFIX;
  const rebuildBash = (x) =>
    m.bashRanPrefix + x.command + m.bashCommandSuffix +
    (x.output ? m.bashOutputOpen + x.output + m.bashOutputClose : m.bashNoOutput) +
    (x.cancelled ? m.bashCancelled : x.exitCode !== null && x.exitCode !== undefined && x.exitCode !== 0 ? m.bashExitCodePrefix + String(x.exitCode) : "") +
    (x.truncated && x.fullOutputPath ? m.bashTruncatedPrefix + x.fullOutputPath + m.bashTruncatedSuffix : "");
  const samples = [];
  for (const output of ["", "line1\nline2\n", "x"]) {
    for (const exitCode of [0, 1, -1, null, undefined, 255]) {
      for (const cancelled of [false, true, undefined]) {
        for (const [truncated, fullOutputPath] of [[false, undefined], [true, "/tmp/pi-bash-1.log"], [true, undefined], [true, ""]]) {
          samples.push({ role: "bashExecution", command: "ls -la `pwd`", output, exitCode, cancelled, truncated, fullOutputPath, timestamp: 1 });
        }
      }
    }
  }
  samples.push({ role: "bashExecution", command: "secret", output: "x", exitCode: 0, excludeFromContext: true, timestamp: 2 });
  samples.push({ role: "branchSummary", summary: "S1\n", fromId: "a", timestamp: 3 });
  samples.push({ role: "compactionSummary", summary: "C1", tokensBefore: 10, timestamp: 4 });
  const conv = MESSAGES.convertToLlm(samples);
  assertEq(J(BUNDLE.convertToLlm(samples)), J(conv), "bundle convertToLlm");
  const expectedConv = samples
    .filter((s) => !s.excludeFromContext)
    .map((s) => ({
      role: "user",
      content: [{ type: "text", text: s.role === "bashExecution" ? rebuildBash(s) : s.role === "branchSummary" ? m.branchSummaryPrefix + s.summary + m.branchSummarySuffix : m.compactionSummaryPrefix + s.summary + m.compactionSummarySuffix }],
      timestamp: s.timestamp,
    }));
  assertEq(J(conv), J(expectedConv), "convertToLlm rebuilt from pieces");
  STR.messages = m;
}
// --- CA/core/sdk.js: blockImages ---
STR.sdk = {
  imageReadingDisabled: lit(F.sdk, /c\.type === "image" \? \{ type: "text", text: ("[^"]*") \} : c/g, { count: 1 }),
};
assertEq(
  matchAll(F.sdk, /c\.text === ("[^"]*") &&/g).map((x) => evalLiteral(x[1]))[0],
  STR.sdk.imageReadingDisabled,
  "blockImages dedupe compares the same text",
);
// --- CA/core/agent-session.js: /skill:name expansion ---
{
  const s = {};
  s.skillCommandPrefix = lit(F.agentSession, /if \(!text\.startsWith\(("[^"]*")\)\)\s*return text;/g);
  const skillFile = path.join(TMP, "skill-sample.md");
  fs.writeFileSync(skillFile, "---\nname: XNAMEX\ndescription: d\n---\n\n  XBODYX  \n\n");
  const fake = (lib) => ({
    resourceLoader: { getSkills: () => ({ skills: [{ name: "XNAMEX", filePath: skillFile, baseDir: "XBASEX" }] }) },
    _extensionRunner: { emitError: (e) => fail(`skill expansion error: ${J(e)}`) },
  });
  const expand = (lib, text) => lib.AgentSession.prototype._expandSkillCommand.call(fake(lib), text);
  const withArgs = expand(SESSION, `${s.skillCommandPrefix}XNAMEX   XARGSX  `);
  assertEq(expand(BUNDLE, `${s.skillCommandPrefix}XNAMEX   XARGSX  `), withArgs, "bundle skill expansion");
  const [open, loc, refs, body, close, end] = splitOn(withArgs, ["XNAMEX", skillFile, "XBASEX", "XBODYX", "XARGSX"], "skill block");
  s.skillBlockOpen = open;
  s.skillBlockLocationPrefix = loc;
  s.skillBlockReferencesPrefix = refs;
  s.skillBlockBodyPrefix = body;
  const noArgs = expand(SESSION, `${s.skillCommandPrefix}XNAMEX`);
  s.skillBlockClose = stripPrefix(noArgs, open + "XNAMEX" + loc + skillFile + refs + "XBASEX" + body + "XBODYX", "skill block close");
  s.skillArgsSeparator = stripPrefix(close, s.skillBlockClose, "skill args separator");
  assertEq(end, "", "nothing after args");
  assertEq(expand(SESSION, `${s.skillCommandPrefix}unknown x`), `${s.skillCommandPrefix}unknown x`, "unknown skill passes through");
  STR.agentSession = s;
}
// --- CA/cli/file-processor.js: @file wrappers (text inlined, images referenced) ---
{
  const FP = await imp(`${CA}/cli/file-processor.js`);
  const dir = fs.mkdtempSync(path.join(TMP, "fp-"));
  const txt = path.join(dir, "XTXTX.txt");
  fs.writeFileSync(txt, "\uFEFFXBODYX");
  const png = path.join(dir, "XIMGX.png");
  fs.writeFileSync(png, Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64"));
  const t = await FP.processFileArguments([txt], { autoResizeImages: false });
  const i = await FP.processFileArguments([png], { autoResizeImages: false });
  const [open, mid, close] = splitOn(t.text, [txt, "XBODYX"], "@file text");
  const [iopen, iclose] = splitOn(i.text, [png], "@file image");
  assertEq(iopen, open, "@file image and text wrappers open alike");
  const f = { nameOpen: open, nameClose: lcp(mid, iclose) };
  f.fileClose = stripPrefix(iclose, f.nameClose, "@file image close");
  f.textBodyPrefix = stripPrefix(mid, f.nameClose, "@file text body prefix");
  f.textBodySuffix = stripSuffix(close, f.fileClose, "@file text body suffix");
  assertEq(t.images.length, 0, "@file text has no images");
  assertEq(J(Object.keys(i.images[0])), J(["type", "mimeType", "data"]), "@file image block key order");
  assertEq(i.images[0].data, fs.readFileSync(png).toString("base64"), "@file image data is the file's base64");
  STR.fileProcessor = f;
}
// --- AI/api/transform-messages.js ---
{
  const t = {
    nonVisionUserImagePlaceholder: lit(F.transform, /const NON_VISION_USER_IMAGE_PLACEHOLDER = ("[^"]*");/g, { count: 1 }),
    nonVisionToolImagePlaceholder: lit(F.transform, /const NON_VISION_TOOL_IMAGE_PLACEHOLDER = ("[^"]*");/g, { count: 1 }),
    missingToolResult: lit(F.transform, /content: \[\{ type: "text", text: ("[^"]*") \}\],\s*isError: true,/g, { count: 1 }),
  };
  // confirm by calling transformMessages on a text-only model
  const model = { id: "m", provider: "p", api: "openai-completions", input: ["text"] };
  const img = { type: "image", data: "AAAA", mimeType: "image/png" };
  const out = AI_TRANSFORM.transformMessages(
    [
      { role: "user", content: [{ type: "text", text: "hi" }, img, img], timestamp: 1 },
      { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: {} }], provider: "p", api: "openai-completions", model: "m", stopReason: "toolUse", timestamp: 2 },
      { role: "user", content: "next", timestamp: 3 },
      { role: "assistant", content: [{ type: "toolCall", id: "c2", name: "read", arguments: {} }], provider: "p", api: "openai-completions", model: "m", stopReason: "toolUse", timestamp: 4 },
      { role: "toolResult", toolCallId: "c2", toolName: "read", content: [img], isError: false, timestamp: 5 },
    ],
    model,
    (id) => id,
  );
  assertEq(out[0].content[1].text, t.nonVisionUserImagePlaceholder, "user image downgrade (call)");
  assertEq(out[0].content.length, 2, "consecutive images collapse");
  assertEq(out[2].role, "toolResult", "synthetic tool result inserted before the next user message");
  assertEq(out[2].content[0].text, t.missingToolResult, "missing tool result text (call)");
  assertEq(out[5].content[0].text, t.nonVisionToolImagePlaceholder, "tool image downgrade (call)");
  STR.transformMessages = t;
}
// --- AI/api/openai-completions.js ---
STR.openaiCompletions = {
  assistantAfterToolResult: lit(F.completions, /role: "assistant",\s*content: ("[^"]*"),\s*\}\);/g, { count: 2 }),
  ...(() => {
    const [imageOnly, empty] = lits(F.completions, /const toolResultText = hasText \? textResult : hasImages \? ("[^"]*") : ("[^"]*");/g, { count: 1 });
    return { toolResultImageOnly: imageOnly, toolResultEmpty: empty };
  })(),
  toolResultImagesUserText: lit(F.completions, /type: "text",\s*text: ("[^"]*"),\s*\},\s*\.\.\.imageBlocks,/g, { count: 1 }),
  toolResultTextJoin: lit(F.completions, /const textResult = toolMsg\.content\s*\.filter\(isTextContentBlock\)\s*\.map\(\(block\) => block\.text\)\s*\.join\(("[^"]*")\);/g, { count: 1 }),
  thinkingAsTextJoin: lit(F.completions, /\.map\(\(block\) => sanitizeSurrogates\(block\.thinking\)\)\s*\.join\(("[^"]*")\);/g, { count: 1 }),
  reasoningFieldJoin: lit(F.completions, /assistantMsg\[signature\] = nonEmptyThinkingBlocks\.map\(\(block\) => block\.thinking\)\.join\(("[^"]*")\);/g, { count: 1 }),
};
// --- AI/api/anthropic-messages.js ---
{
  const a = {};
  a.imageOnlyPlaceholder = lit(F.anthropic, /blocks\.unshift\(\{\s*type: "text",\s*text: ("[^"]*"),\s*\}\);/g, { count: 1 });
  a.textBlocksJoin = lit(F.anthropic, /return sanitizeSurrogates\(content\.map\(\(c\) => c\.text\)\.join\(("[^"]*")\)\);/g, { count: 1 });
  a.claudeCodeSystemPrompt = lit(F.anthropic, /if \(isOAuthToken\) \{\s*params\.system = \[\s*\{\s*type: "text",\s*text: ("[^"]*"),/g, { count: 1 });
  a.claudeCodeVersion = lit(F.anthropic, /const claudeCodeVersion = ("[^"]*");/g, { count: 1 });
  a.claudeCodeUserAgent = evalTemplate(matchAll(F.anthropic, /"user-agent": (`claude-cli\/\$\{claudeCodeVersion\}`),/g)[0][1], { claudeCodeVersion: "claudeCodeVersion" }).text;
  const ccList = matchAll(F.anthropic, /const claudeCodeTools = \[([^\]]*)\];/g)[0][1];
  a.claudeCodeTools = [...ccList.matchAll(/("[^"]*"),/g)].map((x) => evalLiteral(x[1]));
  assertEq(ccList.replace(/\/\/[^\n]*/g, "").replace(/("[^"]*"),/g, "").trim(), "", "claudeCodeTools holds only string literals");
  const betaConsts = Object.fromEntries(matchAll(F.anthropic, /const ([A-Z_]+_BETA) = ("[^"]*");/g).map((x) => [x[1], evalLiteral(x[2])]));
  const camel = (s) => s.toLowerCase().replace(/_beta$/, "").replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  a.betas = Object.fromEntries(Object.entries(betaConsts).map(([k, v]) => [camel(k), v]));
  assertEq(J(Object.keys(a.betas)), J(["fineGrainedToolStreaming", "interleavedThinking", "serverSideFallback", "midConversationOutputConfig", "thinkingBindingControls"]), "anthropic beta constants");
  a.betas.oauth = lits(F.anthropic, /if \(isOAuthToken\)\s*features\.push\(("[^"]*"), ("[^"]*")\);/g, { count: 1 });
  a.redactedThinkingPlaceholder = lit(F.anthropic, /type: "thinking",\s*thinking: ("[^"]*"),\s*thinkingSignature: event\.content_block\.data,\s*redacted: true,/g, { count: 1 });
  a.defaultEffort = lit(F.anthropic, /const activeEffort = options\?\.effort \?\? ("[^"]*");/g, { count: 1 });
  STR.anthropicMessages = a;
}
// --- AI/api/openai-responses-shared.js ---
{
  const [imageOnly, empty] = lits(F.responsesShared, /return sanitizeSurrogates\(hasText \? textResult : images\.length > 0 \? ("[^"]*") : ("[^"]*")\);/g, { count: 1 });
  const [first, next] = matchAll(F.responsesShared, /const fallbackMessageId = textBlockIndex === 0 \? (`[^`]*`) : (`[^`]*`);/g)[0].slice(1);
  STR.openaiResponsesShared = {
    toolResultImageOnly: imageOnly,
    toolResultEmpty: empty,
    toolResultTextJoin: lit(F.responsesShared, /function convertToolResultOutput\(model, content\) \{\s*const textResult = content\s*\.filter\(\(c\) => c\.type === "text"\)\s*\.map\(\(c\) => c\.text\)\s*\.join\(("[^"]*")\);/g, { count: 1 }),
    fallbackMessageIdFirst: evalTemplate(first, { msgIndex: "msgIndex" }).text,
    fallbackMessageIdNext: evalTemplate(next, { msgIndex: "msgIndex", textBlockIndex: "textBlockIndex" }).text,
    longMessageId: evalTemplate(matchAll(F.responsesShared, /msgId = (`msg_\$\{shortHash\(msgId\)\}`);/g)[0][1], { "shortHash(msgId)": "shortHash" }).text,
    foreignItemId: evalTemplate(matchAll(F.responsesShared, /const normalized = (`fc_\$\{shortHash\(itemId\)\}`);/g)[0][1], { "shortHash(itemId)": "shortHash" }).text,
    toolSearchCallId: evalTemplate(matchAll(F.responsesShared, /const searchCallId = (`pi_tool_load_\$\{shortHash\(`\$\{msg\.toolCallId\}:\$\{names\.join\(","\)\}`\)\}`);/g)[0][1].replace(/`\$\{msg\.toolCallId\}:\$\{names\.join\(","\)\}`/, "X"), { "shortHash(X)": "shortHash" }).text,
  };
}
// --- AI/api/openai-codex-responses.js ---
STR.openaiCodexResponses = {
  defaultInstructions: lit(F.codex, /instructions: context\.systemPrompt \|\| ("[^"]*"),/g, { count: 1 }),
  defaultTextVerbosity: lit(F.codex, /text: \{ verbosity: options\?\.textVerbosity \|\| ("[^"]*") \},/g, { count: 1 }),
  include: lits(F.codex, /include: \[("[^"]*")\],/g, { count: 1 }),
};
// --- AI/api/google-shared.js ---
{
  const [imageOnly, empty] = lits(F.googleShared, /const responseValue = hasText \? sanitizeSurrogates\(textResult\) : hasImages \? ("[^"]*") : ("[^"]*");/g, { count: 1 });
  STR.googleShared = {
    toolResultImageOnly: imageOnly,
    toolResultEmpty: empty,
    toolResultImageUserText: lit(F.googleShared, /parts: \[\{ text: ("[^"]*") \}, \.\.\.imageParts\],/g, { count: 1 }),
    toolResultTextJoin: lit(F.googleShared, /const textResult = textContent\.map\(\(c\) => c\.text\)\.join\(("[^"]*")\);/g, { count: 1 }),
  };
}
// --- AI/api/bedrock-converse-stream.js ---
STR.bedrockConverseStream = {
  emptyTextPlaceholder: lit(F.bedrock, /const EMPTY_TEXT_PLACEHOLDER = ("[^"]*");/g, { count: 1 }),
  redactedThinkingPlaceholder: lit(F.bedrock, /const REDACTED_THINKING_PLACEHOLDER = ("[^"]*");/g, { count: 1 }),
  interleavedThinkingBeta: lit(F.bedrock, /result\.anthropic_beta = \[("[^"]*")\];/g, { count: 1 }),
};
// --- AI/api/mistral-conversations.js ---
{
  const x = {};
  x.toolErrorPrefix = lit(F.mistral, /const errorPrefix = isError \? ("[^"]*") : "";/g, { count: 1 });
  x.toolImageOmittedSuffix = lit(F.mistral, /const imageSuffix = hasImages && !supportsImages \? ("[^"]*") : "";/g, { count: 1 });
  const pairs = matchAll(F.mistral, /return isError\s*\? ("\[tool error\] [^"]*")\s*: ("[^"]*");/g).map((m) => [evalLiteral(m[1]), evalLiteral(m[2])]);
  assertEq(pairs.length, 3, "buildToolResultText fallbacks");
  for (const [err, ok] of pairs) assertEq(err, x.toolErrorPrefix + ok, "error fallback = prefix + fallback");
  [x.toolResultImageOnly, x.toolResultImageOmitted, x.toolResultEmpty] = pairs.map((p) => p[1]);
  x.userImageOmitted = lit(F.mistral, /result\.push\(\{ role: "user", content: ("[^"]*") \}\);/g, { count: 1 });
  STR.mistralConversations = x;
}
// --- CORE/agent-loop.js: tool results the agent loop creates (they land in the session) ---
{
  const tplOf = (re, ph) => evalTemplate(matchAll(F.agentLoop, re)[0][1], ph).text;
  STR.agentLoop = {
    lengthStopToolResult: tplOf(/createErrorToolResult\((`Tool call "\$\{toolCall\.name\}" was not executed[^`]*`)\)/g, { "toolCall.name": "name" }),
    toolNotFound: tplOf(/createErrorToolResult\((`Tool \$\{toolCall\.name\} not found`)\)/g, { "toolCall.name": "name" }),
    operationAborted: lit(F.agentLoop, /createErrorToolResult\(("Operation aborted")\)/g, { count: 3 }),
    toolExecutionBlocked: lit(F.agentLoop, /createErrorToolResult\(beforeResult\.reason \|\| ("[^"]*")\)/g, { count: 1 }),
  };
}

// =============================================================================================
// 4. models.json
// =============================================================================================
const manifestData = JSON.parse(fs.readFileSync(F.manifest, "utf8"));
const providers = AI_ALL.getBuiltinProviders();
const models = providers.flatMap((p) => AI_ALL.getBuiltinModels(p));
{
  // The provider objects pi registers serve the same models in the same order.
  const byProvider = new Map(AI_ALL.builtinProviders().map((p) => [p.id, p]));
  for (const p of providers) {
    const prov = byProvider.get(p);
    assert(prov, `builtin provider object for ${p}`);
    assertEq(J(prov.getModels()), J(AI_ALL.getBuiltinModels(p)), `provider ${p}: getModels() vs the catalog`);
  }
  const extra = [...byProvider.keys()].filter((p) => !providers.includes(p));
  for (const p of extra) assertEq(byProvider.get(p).getModels().length, 0, `provider ${p} outside the catalog has no built-in models`);
  const required = ["id", "name", "api", "provider", "baseUrl", "reasoning", "input", "cost", "contextWindow", "maxTokens"];
  const known = new Set([...required, "compat", "thinkingLevelMap", "headers"]);
  const orders = new Set();
  for (const m of models) {
    for (const k of required) assert(k in m, `${m.provider}/${m.id} has ${k}`);
    for (const k of Object.keys(m)) assert(known.has(k), `${m.provider}/${m.id}: unexpected model key ${k}`);
    orders.add(Object.keys(m).join(","));
  }
  notes.push(
    `models.json: pi's catalog order (providers as getBuiltinProviders(), models as each provider's catalog object); each object keeps pi's own key order, which is not uniform (${orders.size} distinct key orders; e.g. openrouter has baseUrl before provider). Keys: ${[...known].join(", ")}.`,
  );
  const ids = new Set(models.map((m) => `${m.provider}/${m.id}`));
  assertEq(ids.size, models.length, "provider/id pairs are unique");
  // pi-coding-agent's ModelRuntime (offline, no models.json) sees exactly this catalog.
  const { ModelRuntime } = await imp(`${CA}/core/model-runtime.js`);
  const { InMemoryCredentialStore } = await imp(`${AI}/auth/credential-store.js`);
  process.env.PI_OFFLINE = "1";
  try {
    const runtime = await ModelRuntime.create({ modelsPath: null, credentials: new InMemoryCredentialStore() });
    const seen = runtime.getModels();
    const key = (m) => `${m.provider}/${m.id}`;
    assertEq(J(seen.map(key)), J(models.map(key)), "ModelRuntime model list (order)");
    assertEq(J(seen), J(models), "ModelRuntime model objects");
  } finally {
    delete process.env.PI_OFFLINE;
  }
}
const modelCount = models.length;
const providerCount = new Set(models.map((m) => m.provider)).size;
console.error(`models.json: ${modelCount} models / ${providerCount} providers`);
assertEq(modelCount, 1354, "model count");
assertEq(providerCount, 39, "provider count");

// =============================================================================================
// 5. defaults.json
// =============================================================================================
const defaults = {};
defaults.defaultThinkingLevel = CA_DEFAULTS.DEFAULT_THINKING_LEVEL;
defaults.thinkingLevels = [...CA_DEFAULTS.THINKING_LEVEL_OPTIONS];
defaults.defaultThinkingBudgets = { ...AI_SIMPLE.DEFAULT_THINKING_BUDGETS };
defaults.minAnswerTokens = AI_SIMPLE.MIN_ANSWER_TOKENS;
const num = (file, re) => {
  const ms = matchAll(file, re);
  assertEq(ms.length, 1, `one match of ${re}`);
  return Number(ms[0][1]);
};
defaults.contextSafetyTokens = num(F.simpleOptions, /const CONTEXT_SAFETY_TOKENS = (\d+);/g);
defaults.minMaxTokens = num(F.simpleOptions, /const MIN_MAX_TOKENS = (\d+);/g);
defaults.estimateCharsPerToken = num(F.estimate, /const CHARS_PER_TOKEN = (\d+(?:\.\d+)?);/g);
defaults.estimateImageChars = num(F.estimate, /const ESTIMATED_IMAGE_CHARS = (\d+);/g);
// The compaction settings pi uses without any in settings.json (getCompactionSettings()):
// pi compacts when the context passes contextWindow - reserveTokens (shouldCompact,
// CA/core/compaction/compaction.js) and keeps about keepRecentTokens of the newest messages.
defaults.compaction = (await imp(`${CA}/core/settings-manager.js`)).SettingsManager.inMemory({}).getCompactionSettings();
assertEq(Object.keys(defaults.compaction).join(), "enabled,reserveTokens,keepRecentTokens", "compaction settings keys");
{
  // A custom model from models.json with only an id: pi's own defaults, in pi's key order.
  const def = { id: "XIDX" };
  const config = { api: "openai-completions", baseUrl: "http://XBASEX", apiKey: "k", models: [def] };
  const provider = COMPOSER.composeModelProvider("XPROVX", undefined, { getProvider: (id) => (id === "XPROVX" ? config : undefined) }, undefined);
  const [m] = provider.getModels();
  assertEq(m.name, def.id, "custom model name defaults to id");
  assertEq(m.api, config.api, "custom model api from provider");
  assertEq(m.baseUrl, config.baseUrl, "custom model baseUrl from provider");
  const fromDef = new Set(["id", "name", "api", "provider", "baseUrl"]);
  defaults.customModel = {
    keyOrder: Object.keys(m),
    defaults: Object.fromEntries(Object.entries(m).filter(([k, v]) => !fromDef.has(k) && v !== undefined)),
    undefinedUnlessSet: Object.entries(m).filter(([, v]) => v === undefined).map(([k]) => k),
    nameDefaultsToId: true,
  };
  assertEq(J(defaults.customModel.defaults), J({ reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 16384 }), "custom model defaults");
}
defaults.compatDeepMergeKeys = JSON.parse(matchAll(F.providerComposer, /for \(const key of (\["[A-Za-z]+"(?:, "[A-Za-z]+")*\])\) \{/g)[0][1]);
defaults.defaultModelPerProvider = { ...MODEL_RESOLVER.defaultModelPerProvider };
// The env vars that give a built-in provider an API key (lib.mjs `apiKeyEnvVars`).
defaults.apiKeyEnvVars = await apiKeyEnvVars(AI_ALL, notes);
{
  const parseBudgetRules = (file) => {
    const fn = matchAll(file, /function getGoogleBudget\(model, level, customBudgets\) \{([\s\S]*?)\n\}/g)[0][1];
    const rules = [...fn.matchAll(/if \(model\.id\.includes\(("[^"]*")\)\) \{\s*const budgets = \{([^}]*)\};\s*return budgets\[level\];\s*\}/g)].map((r) => ({
      idIncludes: evalLiteral(r[1]),
      budgets: Object.fromEntries([...r[2].matchAll(/(\w+): (\d+),/g)].map((b) => [b[1], Number(b[2])])),
    }));
    assert(rules.length >= 2, "google budget rules");
    const fallback = Number(matchAll(file, /return budgets\[level\];\s*\}\s*return (-?\d+);\s*\}/g)[0][1]);
    return { rules, fallback };
  };
  defaults.googleGenerativeAiThinkingBudgets = parseBudgetRules(F.googleGenAi);
  defaults.googleVertexThinkingBudgets = parseBudgetRules(F.googleVertex);
  const b = matchAll(F.bedrock, /const defaultBudgets = \{([^}]*)\};/g)[0][1];
  defaults.bedrockDefaultThinkingBudgets = Object.fromEntries([...b.matchAll(/(\w+): (\d+),/g)].map((x) => [x[1], Number(x[2])]));
  assertEq(J(Object.keys(defaults.bedrockDefaultThinkingBudgets)), J(["minimal", "low", "medium", "high", "xhigh", "max"]), "bedrock default budgets keys");
}

// =============================================================================================
// The CLI bundle (dist/bundle/**, with its own bundled copy of pi-ai and pi-agent-core) must carry
// the same text: every line fragment of every extracted string is looked up in it.
// =============================================================================================
{
  const bundleDir = `${CA}/bundle`;
  const bundleFiles = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith(".js")) bundleFiles.push(path.join(d, e.name));
    }
  };
  walk(bundleDir);
  const bundleText = bundleFiles.map((f) => fs.readFileSync(f, "utf8")).join("\n");
  const leaves = [];
  const collect = (v, at) => {
    if (typeof v === "string") leaves.push([at, v]);
    else if (Array.isArray(v)) v.forEach((x, i) => collect(x, `${at}[${i}]`));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) collect(x, `${at}.${k}`);
  };
  collect({ ...promptJson, packagePaths: undefined }, "prompt"); // packagePaths come from path.join(dir, "README.md") etc.
  collect(STR, "strings");
  let checked = 0;
  for (const [at, v] of leaves) {
    for (const frag of v.split(/\{[A-Za-z]+\}|\n/)) {
      if (frag.length < 4) continue;
      const forms = [frag, frag.replace(/\\/g, "\\\\").replace(/"/g, '\\"'), frag.replace(/'/g, "\\'"), frag.replace(/`/g, "\\`")];
      if (!forms.some((f) => bundleText.includes(f))) fail(`${at}: fragment ${J(frag)} not found in the CLI bundle`);
      checked++;
    }
  }
  console.error(`bundle check: ${checked} text fragments of prompt.json/strings.json found in dist/bundle`);
}

// =============================================================================================
// Optional: check against a captured body (openai-completions)
// =============================================================================================
function checkCapturedBody(bodyPath) {
  const raw = fs.readFileSync(bodyPath, "utf8");
  const body = JSON.parse(raw);
  const envFile = path.join(path.dirname(bodyPath), "env.json");
  const byLower = new Map(toolsJson.map((t) => [t.name.toLowerCase(), t]));
  const report = [];
  // --- tools[] ---
  let names;
  if (Array.isArray(body.tools) && body.tools.every((t) => t.type === "function" && t.function)) {
    // openai-completions: {"type":"function","function":{"name","description","parameters","strict"}}
    names = body.tools.map((t) => t.function.name);
    for (const t of body.tools) {
      const ours = toolsJson.find((x) => x.name === t.function.name);
      if (!ours || t.function.strict === true) continue;
      assertEq(J(t.function.description), J(ours.description), `${bodyPath}: ${ours.name} description`);
      assertEq(J(t.function.parameters), J(ours.parameters), `${bodyPath}: ${ours.name} parameters`);
      const needle = `"name":${J(ours.name)},"description":${J(ours.description)},"parameters":${J(ours.parameters)}`;
      assert(raw.includes(needle), `${bodyPath}: raw bytes of the ${ours.name} tool`);
      report.push(ours.name);
    }
  } else if (Array.isArray(body.tools) && body.tools.every((t) => typeof t.name === "string" && t.input_schema)) {
    // anthropic-messages: names may be in Claude Code casing; non-strict input_schema is {type, properties, required}
    names = body.tools.map((t) => byLower.get(t.name.toLowerCase())?.name ?? t.name);
    for (const t of body.tools) {
      const ours = byLower.get(t.name.toLowerCase());
      if (!ours) continue;
      assertEq(J(t.description), J(ours.description), `${bodyPath}: ${ours.name} description`);
      if (t.strict !== true) {
        const legacy = { type: "object", properties: ours.parameters.properties ?? {}, required: ours.parameters.required ?? [] };
        assertEq(J(t.input_schema), J(legacy), `${bodyPath}: ${ours.name} input_schema`);
      }
      report.push(ours.name);
    }
  } else {
    console.error(`capture check: ${bodyPath}: no tools[] in a known shape, tools not checked`);
    names = null;
  }
  // --- system prompt ---
  let sysText;
  const first = body.messages?.[0];
  if (first && (first.role === "system" || first.role === "developer")) {
    sysText = typeof first.content === "string" ? first.content : first.content?.[0]?.text;
  } else if (Array.isArray(body.system)) {
    sysText = body.system.map((b) => b.text).find((t) => t.startsWith(promptJson.defaultIntro)) ?? body.system.at(-1)?.text;
  }
  const skip = (why) => {
    console.error(`capture check OK: ${bodyPath}: tools ${report.join(",") || "(none)"} match; system prompt not checked (${why})`);
  };
  if (typeof sysText !== "string") return skip("no system prompt found");
  if (!sysText.startsWith(promptJson.defaultIntro)) return skip("custom system prompt");
  if (!names || names.some((n) => !toolsJson.find((t) => t.name === n))) return skip("non-built-in tools");
  const env = JSON.parse(fs.readFileSync(envFile, "utf8"));
  const promptCwd = env.cwd.replace(/\\/g, "/");
  const docsEnd = sysText.indexOf(promptJson.docsTail);
  assert(docsEnd > 0, `${bodyPath}: docsTail found`);
  let mid = stripSuffix(sysText.slice(docsEnd + promptJson.docsTail.length), promptJson.cwdLinePrefix + promptCwd, `${bodyPath}: cwd line`);
  // [append][project context][skills], parsed with the pieces themselves
  const unescape = (x) => [...promptJson.skills.xmlEscapes].reverse().reduce((acc, [c, e]) => acc.split(e).join(c), x);
  const skills = [];
  let skillTool;
  const sk = mid.lastIndexOf(promptJson.skills.header);
  if (sk >= 0) {
    const lines = mid.slice(sk).split(promptJson.skills.lineJoin);
    mid = mid.slice(0, sk);
    skillTool = lines[3] === promptJson.skills.readToolLine ? "read" : "bash";
    for (let i = 7; i + 4 < lines.length; i += 5) {
      const field = (line, pre, suf) => unescape(stripSuffix(stripPrefix(line, pre, "skill line"), suf, "skill line"));
      skills.push({
        name: field(lines[i + 1], promptJson.skills.namePrefix, promptJson.skills.nameSuffix),
        description: field(lines[i + 2], promptJson.skills.descriptionPrefix, promptJson.skills.descriptionSuffix),
        filePath: field(lines[i + 3], promptJson.skills.locationPrefix, promptJson.skills.locationSuffix),
      });
    }
  }
  const files = [];
  const ctxStart = mid.indexOf(promptJson.projectContextOpen);
  if (ctxStart >= 0) {
    let rest = mid.slice(ctxStart + promptJson.projectContextOpen.length);
    mid = mid.slice(0, ctxStart);
    while (rest.startsWith(promptJson.projectInstructionsOpenPrefix)) {
      rest = rest.slice(promptJson.projectInstructionsOpenPrefix.length);
      const i = rest.indexOf(promptJson.projectInstructionsOpenSuffix);
      const p = rest.slice(0, i);
      rest = rest.slice(i + promptJson.projectInstructionsOpenSuffix.length);
      const j = rest.indexOf(promptJson.projectInstructionsClose);
      files.push({ path: p, content: rest.slice(0, j) });
      rest = rest.slice(j + promptJson.projectInstructionsClose.length);
    }
  }
  const appendSystemPrompt = mid ? stripPrefix(mid, promptJson.appendSeparator, `${bodyPath}: append section`) : undefined;
  const norm = SESSION.AgentSession.prototype;
  const toolSnippets = Object.fromEntries(names.map((n) => [n, norm._normalizePromptSnippet(toolsJson.find((t) => t.name === n)?.promptSnippet)]).filter(([, x]) => x));
  const promptGuidelines = names.flatMap((n) => norm._normalizePromptGuidelines(toolsJson.find((t) => t.name === n)?.promptGuidelines ?? undefined));
  const o = { selectedTools: names, toolSnippets, promptGuidelines, appendSystemPrompt, contextFiles: files, skills, cwd: env.cwd };
  if (skills.length) assertEq(P.skillFileReadToolPreference.find((t) => names.includes(t)), skillTool, `${bodyPath}: skill wording`);
  const rebuilt = rebuildPrompt(promptJson, o, env.piPackageDir);
  if (rebuilt !== sysText) fail(`${bodyPath}: system prompt differs\n--- captured:\n${sysText}\n--- rebuilt:\n${rebuilt}`);
  console.error(
    `capture check OK: ${bodyPath}: tools ${report.join(",") || "(none)"} match; system prompt rebuilt byte for byte (tools ${names.join(",") || "none"}, ${files.length} context file(s), ${skills.length} skill(s)${appendSystemPrompt ? ", append" : ""})`,
  );
}
for (const bodyPath of CHECK_BODY.split(":").filter(Boolean)) checkCapturedBody(bodyPath);

export const files = {
  "tools.json": toolsJson,
  "prompt.json": promptJson,
  "strings.json": STR,
  "defaults.json": defaults,
};
export { models, notes, versions as packages, manifestData as catalogManifest };
