// extract/pi-1.6.mjs: the data of a release whose system prompt is a map of named sections built by
// `buildSystemPromptSections` and stored in the session as system messages (1.6.x): tools.json,
// prompt.json, strings.json, defaults.json and the chat model catalog. As in pi-0.85.mjs, every
// value comes from pi itself: by calling its exported functions with sentinel inputs and splitting
// the output, or, where a literal is only reachable in source, by a precise regex on the dist JS
// that must match. Every derived piece is checked: a reference rebuild from the pieces must
// reproduce pi's own output for many sample inputs, and the CLI bundle (dist/bundle, what `pi`
// really runs) must agree with dist/*.js. Anything not found or not matching aborts the run.

import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import {
  AI, CA, CHECK_BODY, CORE, NM, PI_VERSION, TMP, assert, assertEq, evalLiteral, evalTemplate, fail, imp,
  apiKeyEnvVars, lcp, lit, lits, matchAll, pkgVersion, splitOn, src, stripPrefix, stripSuffix, J,
} from "./lib.mjs";

/** Catalog sizes per release, as first extracted: [chat models, providers with chat models, catalog providers]. */
const CATALOG_COUNTS = { "0.86.1": [1443, 41, 41], "0.87.0": [1445, 41, 41], "0.87.1": [1495, 41, 41], "1.3.0": [1614, 41, 42], "1.4.0": [1599, 41, 42], "1.5.0": [1592, 41, 42], "1.5.2": [1643, 42, 43], "1.6.0": [1698, 42, 43] };

// ---------------------------------------------------------------------------------------------
// Load pi
// ---------------------------------------------------------------------------------------------
const piPkg = (dir) => pkgVersion(NM, `@earendil-works/${dir}`);
const versions = {
  "@earendil-works/pi-coding-agent": piPkg("pi-coding-agent"),
  "@earendil-works/pi-ai": piPkg("pi-ai"),
  "@earendil-works/pi-agent-core": piPkg("pi-agent-core"),
};
// pi-coding-agent is the release; it depends on `^` its own version of the others, so an
// install can hold a later patch of them (0.87.0 installs pi-agent-core 0.87.1): the data is
// that install's, and the manifest says which.
const piNotes = [];
for (const [name, v] of Object.entries(versions)) {
  if (name === "@earendil-works/pi-coding-agent" || v === PI_VERSION) {
    assertEq(v, PI_VERSION, `${name} version`);
    continue;
  }
  const [a, b] = [v, PI_VERSION].map((x) => x.split(".").map(Number));
  assert(a[0] === b[0] && a[1] === b[1] && a[2] >= b[2], `${name} ${v} satisfies ^${PI_VERSION}`);
  piNotes.push(`packages: ${name} ${v} (pi-coding-agent ${PI_VERSION} depends on ^${PI_VERSION}; the registry's newest match when installed)`);
}

const TOOLS = await imp(`${CA}/core/tools/index.js`);
const SYSTEM_PROMPT = await imp(`${CA}/core/system-prompt.js`);
const SKILLS = await imp(`${CA}/core/skills.js`);
const CONFIG = await imp(`${CA}/config.js`);
const MESSAGES = await imp(`${CA}/core/messages.js`);
const SESSION = await imp(`${CA}/core/agent-session.js`);
const SETTINGS = await imp(`${CA}/core/settings-manager.js`);
const CA_DEFAULTS = await imp(`${CA}/core/defaults.js`);
const MODEL_RESOLVER = await imp(`${CA}/core/model-resolver.js`);
const COMPOSER = await imp(`${CA}/core/provider-composer.js`);
const AI_TEXT = await imp(`${AI}/utils/text.js`);
const AI_TRANSCRIPT = await imp(`${AI}/utils/transcript.js`);
const AI_ESTIMATE = await imp(`${AI}/utils/estimate.js`);
// pi-ai's client identity from 1.4.0; before it the OS User-Agent (utils/pi-user-agent.js) and
// the coding agent's attribution headers, which need no data.
const HAS_IDENTITY = fs.existsSync(`${AI}/utils/identity.js`);
const AI_IDENTITY = HAS_IDENTITY ? await imp(`${AI}/utils/identity.js`) : null;
const AI_TRANSFORM = await imp(`${AI}/api/transform-messages.js`);
const AI_SIMPLE = await imp(`${AI}/api/simple-options.js`);
const AI_CONSTRAINED = await imp(`${AI}/api/constrained-sampling.js`);
const AI_ALL = await imp(`${AI}/providers/all.js`);
// The CLI (dist/bundle/cli.js) runs bundled copies of the same code; its library entry exports
// some of the same functions, and its chunks export others under their own names.
const BUNDLE = await imp(`${CA}/bundle/index.js`);
const bundleChunks = (() => {
  const dir = `${CA}/bundle/chunks`;
  return fs.readdirSync(dir).filter((f) => f.endsWith(".js")).sort().map((f) => path.join(dir, f));
})();
/** The bundle chunk's export of `name` (a chunk whose `export{…}` list names it as is). */
async function bundleExport(name) {
  const found = bundleChunks.filter((f) => {
    const m = /export\{([^}]*)\}\s*;?\s*$/.exec(src(f).trimEnd());
    return m && m[1].split(",").includes(name);
  });
  assertEq(found.length, 1, `one bundle chunk exports ${name}`);
  const mod = await imp(found[0]);
  assert(typeof mod[name] === "function", `bundle export ${name} is a function`);
  return mod[name];
}

const F = {
  systemPrompt: `${CA}/core/system-prompt.js`,
  skills: `${CA}/core/skills.js`,
  resourceLoader: `${CA}/core/resource-loader.js`,
  sdk: `${CA}/core/sdk.js`,
  agentSession: `${CA}/core/agent-session.js`,
  settingsManager: `${CA}/core/settings-manager.js`,
  providerComposer: `${CA}/core/provider-composer.js`,
  imageResize: `${CA}/utils/image-resize.js`,
  imageResizeCore: `${CA}/utils/image-resize-core.js`,
  imageProcess: `${CA}/utils/image-process.js`,
  fileProcessor: `${CA}/cli/file-processor.js`,
  text: `${AI}/utils/text.js`,
  transcript: `${AI}/utils/transcript.js`,
  estimate: `${AI}/utils/estimate.js`,
  identity: `${AI}/utils/identity.js`,
  transform: `${AI}/api/transform-messages.js`,
  simpleOptions: `${AI}/api/simple-options.js`,
  constrained: `${AI}/api/constrained-sampling.js`,
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
  awsClient: `${NM}/@aws-sdk/client-bedrock-runtime/dist-cjs/index.js`,
};

const notes = [...piNotes];
const one = (file, re) => {
  const ms = matchAll(file, re);
  assertEq(ms.length, 1, `${path.relative(NM, file)}: one match of ${re}`);
  return ms[0];
};
const jsonList = (file, re) => JSON.parse(one(file, re)[1]);
/** A JS array literal of string literals (one per line or inline), evaluated exactly. */
function stringArray(body, what) {
  const items = [...body.matchAll(/("[^"\n]*")\s*,?/g)].map((m) => evalLiteral(m[1]));
  assertEq(body.replace(/\/\/[^\n]*/g, "").replace(/("[^"\n]*")\s*,?/g, "").trim(), "", `${what} holds only string literals`);
  return items;
}
/** A plain object literal of numbers/strings/booleans/nested literals, evaluated exactly. */
function objectLiteral(text, what) {
  const stripped = text.replace(/\/\/[^\n]*/g, "");
  // Only keys, literals and punctuation: no identifiers other than keys, true, false and null.
  const rest = stripped
    .replace(/"(?:[^"\\\n]|\\.)*"/g, "S")
    .replace(/\b[A-Za-z_$][\w$]*\s*:/g, "K:")
    .replace(/-?\d+(?:\.\d+)?/g, "N")
    .replace(/\b(?:true|false|null)\b/g, "B");
  assert(/^[\sSKNB:,{}[\]]*$/.test(rest), `${what}: not a plain object literal: ${text}`);
  return vm.runInNewContext(`(${stripped})`);
}

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
/** The JSON-visible facts of a definition (what the declaration and the prompt see). */
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

const baseDefs = defsFor(TOOLS, "/work/cwd-a");
const baseFacts = factsOf(baseDefs);
for (const n of TOOL_ORDER) {
  assertEq(baseFacts[n].name, n, "tool name");
  assertEq(baseFacts[n].executionMode, null, `${n}: executionMode (not modelled in tools.json)`);
  assert(typeof baseFacts[n].description === "string" && baseFacts[n].description.length > 20, `${n}: description`);
  assert(!baseFacts[n].description.includes("/work/cwd-a"), `${n}: description embeds the cwd`);
}
// Independence from cwd, platform, PI_EXPERIMENTAL and the settings-driven options AgentSession passes.
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
process.env.PI_EXPERIMENTAL = "1";
try {
  variants.push(["PI_EXPERIMENTAL=1", factsOf(defsFor(TOOLS, "/work/cwd-a"))]);
  variants.push(["PI_EXPERIMENTAL=1 (bundle)", factsOf(defsFor(BUNDLE, "/work/cwd-a"))]);
} finally {
  delete process.env.PI_EXPERIMENTAL;
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
  one(F.agentSession, /: createAllToolDefinitions\(this\._cwd, \{\s*read: \{ autoResizeImages \},\s*bash: \{ commandPrefix: shellCommandPrefix, shellPath \},\s*\}\);/g);
  assert(!/exposeSessionEnvironment/.test(src(F.agentSession)) && !/exposeSessionEnvironment/.test(src(F.sdk)), "exposeSessionEnvironment is not set by agent-session/sdk");
  // constrainedSampling no longer depends on anything: it is a literal in the definitions.
  assert(!/getExperimentalToolSampling|areExperimentalFeaturesEnabled\(\)/.test(TOOL_ORDER.map((n) => src(`${CA}/core/tools/${n}.js`)).join("\n")), "tool definitions do not read PI_EXPERIMENTAL");
}
// The declaration pi stores and sends (toToolDeclaration) is {name, description, parameters, constrainedSampling?}.
for (const n of TOOL_ORDER) {
  const decl = AI_TRANSCRIPT.toToolDeclaration(baseDefs[n]);
  const f = baseFacts[n];
  const expected = { name: f.name, description: f.description, parameters: f.parameters, ...(f.constrainedSampling === null ? {} : { constrainedSampling: f.constrainedSampling }) };
  assertEq(J(decl), J(expected), `${n}: toToolDeclaration`);
}
{
  const withSampling = TOOL_ORDER.filter((n) => baseFacts[n].constrainedSampling !== null);
  assertEq(J(withSampling), J(["read", "bash", "edit", "write", "powershell"]), "tools with constrainedSampling");
  notes.push(
    "tools.json: the built-in tools in the order read, bash, edit, write, grep, find, ls, powershell (not pi's registry order; see prompt.json builtinToolRegistryOrder), each {name, label, description, parameters, promptSnippet, promptGuidelines, constrainedSampling} as pi's definitions have them (null where undefined). The declaration pi stores in system messages (toolsAdded) and sends is toToolDeclaration(def) = {name, description, parameters, constrainedSampling?} in that key order, constrainedSampling omitted when null (checked for every tool).",
    "tools.json: no field depends on cwd, platform, PI_EXPERIMENTAL or settings (checked: two cwds, win32/darwin, read.autoResizeImages, bash.commandPrefix/shellPath, PI_EXPERIMENTAL=1, and the CLI bundle's own definitions).",
    `tools.json: constrainedSampling is always set (a literal in the definitions, no longer PI_EXPERIMENTAL-dependent) on ${withSampling.join(", ")}; null on the others.`,
    "tools.json: bash and powershell promptGuidelines are stored as pi builds them by default. createShellToolDefinition sets promptGuidelines = exposeSessionEnvironment && config.promptGuidelines ? [...] : undefined, with exposeSessionEnvironment = options.exposeSessionEnvironment ?? true. The CLI (AgentSession._buildRuntime) never passes that option, so the guideline is always present there; only SDK callers passing their own tools can turn it off (then: null).",
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
    constrainedSampling: f.constrainedSampling,
  };
});
const toolByName = new Map(toolsJson.map((t) => [t.name, t]));

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
const build = (o) => SYSTEM_PROMPT.buildSystemPromptSections({ cwd: CWD, ...o });
// 1.3.0 on: extensions can hide a tool's declaration (`hiddenTools`: the prompt lists only the
// declared tools, a hidden reader makes the skills line "indirect"); 0.86–0.87 have no such option.
const HIDDEN_TOOLS = /\bhiddenTools\b/.test(src(F.systemPrompt));
const P = {};

// --- tool lists ---
const NAMES = /(\["[a-z]+"(?:, "[a-z]+")*\])/.source;
P.defaultSelectedTools = jsonList(F.systemPrompt, new RegExp(`selectedTools: \\[\\.\\.\\.\\(input\\.selectedTools \\?\\? ${NAMES}\\)\\],`, "g"));
assertEq(J(SYSTEM_PROMPT.normalizeBuildSystemPromptOptions({ cwd: "/" }).selectedTools), J(P.defaultSelectedTools), "normalizeBuildSystemPromptOptions default selectedTools");
{
  const sessionDefault = jsonList(F.agentSession, new RegExp(`\\? Object\\.keys\\(this\\._baseToolsOverride\\)\\s*: ${NAMES};\\s*const baseActiveToolNames = options\\.activeToolNames \\?\\? defaultActiveToolNames;`, "g"));
  let settingsDefault;
  if (SETTINGS.DEFAULT_TOOL_NAMES) {
    // 0.99 on: settings-manager.js exports the defaults (the `+name`/`-name` base).
    settingsDefault = jsonList(F.settingsManager, new RegExp(`export const DEFAULT_TOOL_NAMES = ${NAMES};`, "g"));
    assertEq(J([...SETTINGS.DEFAULT_TOOL_NAMES]), J(settingsDefault), "DEFAULT_TOOL_NAMES");
    // sdk.js: no --tools -> settings defaultTools ?? DEFAULT_TOOL_NAMES
    one(F.sdk, /const defaultToolNames = options\.noTools \? \[\] : \(settingsManager\.getDefaultTools\(\) \?\? DEFAULT_TOOL_NAMES\);/g);
  } else {
    // 0.86–0.87: a literal in sdk.js; no --tools -> settings defaultTools ?? it.
    settingsDefault = jsonList(F.sdk, new RegExp(`const defaultActiveToolNames = ${NAMES};`, "g"));
    one(F.sdk, /\(options\.tools \?\? \(options\.noTools \? \[\] : \(configuredDefaultToolNames \?\? defaultActiveToolNames\)\)\)/g);
  }
  assertEq(J(sessionDefault), J(settingsDefault), "default active tools in agent-session.js and settings-manager.js/sdk.js");
  assertEq(J(P.defaultSelectedTools), J(settingsDefault), "default active tools vs buildSystemPromptSections' fallback");
  P.defaultActiveTools = settingsDefault;
}
P.builtinToolRegistryOrder = [...TOOLS.allToolNames];
assertEq(J(Object.keys(TOOLS.createAllToolDefinitions("/x"))), J(P.builtinToolRegistryOrder), "createAllToolDefinitions key order = allToolNames order");
if (HIDDEN_TOOLS) {
  P.skillFileReadToolPreference = jsonList(F.systemPrompt, new RegExp(`const readers = ${NAMES};`, "g"));
  one(F.systemPrompt, /const skillFileReadTool = readers\.find\(\(tool\) => declaredTools\.includes\(tool\)\) \?\?\s*\(readers\.some\(\(tool\) => selectedTools\.includes\(tool\)\) \? "indirect" : undefined\);/g);
  one(F.systemPrompt, /const declaredTools = selectedTools\.filter\(\(name\) => !hiddenTools\.includes\(name\)\);/g);
} else {
  // 0.86–0.87: no hidden declarations; the first reader among the selected tools.
  P.skillFileReadToolPreference = jsonList(F.systemPrompt, new RegExp(`const skillFileReadTool = ${NAMES}\\.find\\(\\(tool\\) => selectedTools\\.includes\\(tool\\)\\);`, "g"));
}
P.contextFileCandidates = JSON.parse(one(F.resourceLoader, /const candidates = (\["[^"\]]+"(?:, "[^"\]]+")*\]);/g)[1]);
P.appendSystemPromptJoin = lit(F.agentSession, /const appendSystemPrompt = loaderAppendSystemPrompt\.length > 0 \? loaderAppendSystemPrompt\.join\(("[^"]*")\) : "";/g, { count: 1 });

// --- section names, order, wrapper, join ---
const nameOf = (re) => one(F.systemPrompt, re)[1];
const SN = {
  preamble: nameOf(/if \(customPrompt\) \{\s*promptSections\.([a-z_]+) = customPrompt;/g),
  tools: nameOf(/promptSections\.([a-z_]+) = `\$\{tools\}/g),
  rules: nameOf(HIDDEN_TOOLS ? /promptSections\.([a-z_]+) = buildRules\(declaredTools, toolGuidelines, promptGuidelines\);/g : /promptSections\.([a-z_]+) = buildRules\(selectedTools, toolGuidelines, promptGuidelines\);/g),
  docs: nameOf(/promptSections\.([a-z_]+) = `Pi documentation/g),
  addendum: nameOf(/if \(appendSystemPrompt\)\s*promptSections\.([a-z_]+) = appendSystemPrompt;/g),
  projectContext: nameOf(/if \(contextFiles\.length > 0\)\s*promptSections\.([a-z_]+) = renderProjectContext\(contextFiles\);/g),
  skills: nameOf(/if \(skillsPrompt\)\s*promptSections\.([a-z_]+) = skillsPrompt;/g),
  cwd: nameOf(/promptSections\.([a-z_]+) = cwd\.replace\(\/\\\\\/g, "[^"]*"\);/g),
};
P.sectionNames = SN;
{
  const assigned = [...new Set(matchAll(F.systemPrompt, /promptSections\.([a-z_]+) =/g).map((m) => m[1]))];
  assertEq(J(assigned), J(Object.values(SN)), "every promptSections.<name> assignment, in source order");
}
const [, unwrappedName, wrapTpl] = one(F.systemPrompt, /const sections = \{ preamble: promptSections\.preamble \};\s*for \(const \[name, content\] of Object\.entries\(promptSections\)\) \{\s*if \(name !== ("[a-z_]+")\)\s*sections\[name\] = (`[^`]*`);\s*\}\s*return sections;/g);
assertEq(evalLiteral(unwrappedName), SN.preamble, "the unwrapped section is the preamble");
{
  const w = evalTemplate(wrapTpl, { name: "name", content: "content" });
  assertEq(J(w.names), J(["name", "content", "name"]), "section wrapper placeholders");
  P.sectionOpen = w.parts[0] + "{name}" + w.parts[1];
  P.sectionClose = w.parts[2] + "{name}" + w.parts[3];
}
const openOf = (name) => P.sectionOpen.split("{name}").join(name);
const closeOf = (name) => P.sectionClose.split("{name}").join(name);
const wrapAs = (name, content) => openOf(name) + content + closeOf(name);
const unwrap = (name, text) => stripSuffix(stripPrefix(text, openOf(name), `section ${name} open`), closeOf(name), `section ${name} close`);
P.unwrappedSections = [SN.preamble];
{
  const s = build({ customPrompt: "XCPX", sections: { xsecx: "XSECCX" } });
  assertEq(s.xsecx, wrapAs("xsecx", "XSECCX"), "extension section wrapped by the wrapper pieces");
  assertEq(s.preamble, "XCPX", "custom prompt is the preamble, unwrapped and unescaped");
}
P.sectionJoin = lit(F.text, /return parts\.filter\(\(part\) => part\.length > 0\)\.join\(("[^"]*")\);/g, { count: 1 });
const contentTextJoin = lit(F.text, /export function contentText\(content, separator = ("[^"]*")\)/g, { count: 1 });
one(F.systemPrompt, /export function buildSystemPrompt\(input\) \{\s*return getSystemMessageText\(\{ role: "system", \.\.\.buildSystemPromptState\(input\), timestamp: 0 \}\);\s*\}/g);
P.preamble = lit(F.systemPrompt, /promptSections\.preamble =\s*("[^"]*");/g, { count: 1 });
assertEq(build({}).preamble, P.preamble, "default preamble");

// --- extension sections ---
{
  const re = one(F.systemPrompt, /const SYSTEM_PROMPT_SECTION_NAME = \/([^/\n]+)\/;/g)[1];
  P.extensionSectionNamePattern = re;
  const [, reserved, errTpl] = one(F.systemPrompt, /if \(!SYSTEM_PROMPT_SECTION_NAME\.test\(name\) \|\| name === ("[a-z_]+")\) \{\s*throw new Error\((`[^`]*`)\);/g);
  P.reservedSectionNames = [evalLiteral(reserved)];
  P.invalidSectionNameError = evalTemplate(errTpl, { name: "name" }).text;
  for (const bad of ["Bad", "preamble", "9a", "a b", "_x", "a.b", ""]) {
    let msg;
    try {
      build({ sections: { [bad]: "x" } });
    } catch (e) {
      msg = e.message;
    }
    assertEq(msg, P.invalidSectionNameError.replace("{name}", bad), `section name ${J(bad)} rejected`);
    assert(!new RegExp(re).test(bad) || P.reservedSectionNames.includes(bad), `pattern rejects ${J(bad)}`);
  }
  for (const good of ["a", "a-b_9", "mcp_servers", "tools", "cwd"]) build({ sections: { [good]: "x" } });
  one(F.systemPrompt, /for \(const \[name, content\] of Object\.entries\(customSections\)\) \{\s*if \(content\)\s*promptSections\[name\] = content;\s*\}/g);
}

// --- tools section ---
{
  const [, itemTpl, joinLit, noneLit] = one(F.systemPrompt, /const tools = visibleTools\.length > 0 \? visibleTools\.map\(\(name\) => (`[^`]*`)\)\.join\(("[^"]*")\) : ("[^"]*");/g);
  one(F.systemPrompt, HIDDEN_TOOLS ? /const visibleTools = declaredTools\.filter\(\(name\) => !!toolSnippets\[name\]\);/g : /const visibleTools = selectedTools\.filter\(\(name\) => !!toolSnippets\[name\]\);/g);
  const item = evalTemplate(itemTpl, { name: "name", "toolSnippets[name]": "snippet" });
  assertEq(item.parts[2], "", "tool item has no suffix");
  const tail = evalTemplate(one(F.systemPrompt, /promptSections\.[a-z_]+ = (`\$\{tools\}[^`]*`);/g)[1], { tools: "tools" });
  assertEq(tail.parts[0], "", "tools list starts the tools section");
  P.toolsListItemPrefix = item.parts[0];
  P.toolsListItemSeparator = item.parts[1];
  P.toolsListJoin = evalLiteral(joinLit);
  P.noTools = evalLiteral(noneLit);
  P.toolsTail = tail.parts[1];
  const two = unwrap(SN.tools, build({ selectedTools: ["XT1X", "XT2X", "XT3X", ...(HIDDEN_TOOLS ? ["XT4X"] : [])], hiddenTools: ["XT4X"], toolSnippets: { XT1X: "XS1X", XT2X: "XS2X", XT4X: "XS4X" } }).tools);
  assertEq(two, P.toolsListItemPrefix + "XT1X" + P.toolsListItemSeparator + "XS1X" + P.toolsListJoin + P.toolsListItemPrefix + "XT2X" + P.toolsListItemSeparator + "XS2X" + P.toolsTail, "tools section (two listed, one without snippet, one hidden)");
  assertEq(unwrap(SN.tools, build({ selectedTools: ["XT1X"], toolSnippets: {} }).tools), P.noTools + P.toolsTail, "tools section without snippets");
}

// --- rules section ---
{
  const [, itemTpl, joinLit] = one(F.systemPrompt, /return rules\.map\(\(rule\) => (`[^`]*`)\)\.join\(("[^"]*")\);/g);
  const item = evalTemplate(itemTpl, { rule: "rule" });
  assertEq(item.parts[1], "", "rule item has no suffix");
  P.ruleItemPrefix = item.parts[0];
  P.rulesJoin = evalLiteral(joinLit);
  const addRules = matchAll(F.systemPrompt, /addRule\(("[^"]*")\)/g).map((m) => evalLiteral(m[1]));
  assertEq(addRules.length, 5, "literal addRule(...) calls in system-prompt.js");
  [P.ruleFileOpsBashAndPowerShell, P.ruleFileOpsPowerShell, P.ruleFileOpsBash, P.ruleConcise, P.ruleFilePaths] = addRules;
  const has = Object.fromEntries(matchAll(F.systemPrompt, /const has([A-Za-z]+) = selectedTools\.includes\(("[a-z]+")\);/g).map((m) => [m[1], evalLiteral(m[2])]));
  assertEq(J(Object.keys(has)), J(["Bash", "PowerShell", "Grep", "Find", "Ls"]), "buildRules tool checks");
  one(F.systemPrompt, /if \(\(hasBash \|\| hasPowerShell\) && !hasGrep && !hasFind && !hasLs\) \{\s*if \(hasBash && hasPowerShell\) \{\s*addRule\("[^"]*"\);\s*\}\s*else if \(hasPowerShell\) \{\s*addRule\("[^"]*"\);\s*\}\s*else \{\s*addRule\("[^"]*"\);\s*\}\s*\}/g);
  P.ruleFileOpsShellTools = [has.Bash, has.PowerShell];
  P.ruleFileOpsSuppressedBy = [has.Grep, has.Find, has.Ls];
  const rulesOf = (o) => unwrap(SN.rules, build(o).rules).split(P.rulesJoin).map((r) => stripPrefix(r, P.ruleItemPrefix, "rule item"));
  assertEq(
    J(rulesOf({ selectedTools: ["XT1X", "XT2X", ...(HIDDEN_TOOLS ? ["XT3X"] : [])], hiddenTools: ["XT3X"], toolGuidelines: { XT1X: ["XG1X", "  XG1X  "], XT2X: ["XG2X", "XG1X", "   "], XT3X: ["XG9X"] }, promptGuidelines: ["  XG3X", "", "XG2X", P.ruleConcise] })),
    J(["XG1X", "XG2X", "XG3X", P.ruleConcise, P.ruleFilePaths]),
    "rules: tool guidelines in declared order, then prompt guidelines, then the closing rules; trimmed, de-duplicated",
  );
  const first = (tools) => rulesOf({ selectedTools: tools })[0];
  assertEq(first(["bash", "powershell"]), P.ruleFileOpsBashAndPowerShell, "rule for bash+powershell");
  assertEq(first(["powershell"]), P.ruleFileOpsPowerShell, "rule for powershell");
  assertEq(first(["bash"]), P.ruleFileOpsBash, "rule for bash");
  assertEq(first(["bash", "grep"]), P.ruleConcise, "no file-operations rule with grep");
  assertEq(first(["ls", "powershell"]), P.ruleConcise, "no file-operations rule with ls");
  assertEq(first(["read"]), P.ruleConcise, "no file-operations rule without shells");
  if (HIDDEN_TOOLS) assertEq(J(rulesOf({ selectedTools: ["bash"], hiddenTools: ["bash"] })), J([P.ruleConcise, P.ruleFilePaths]), "hidden bash: no file-operations rule");
}

// --- docs section ---
{
  const t = evalTemplate(one(F.systemPrompt, /promptSections\.[a-z_]+ = (`Pi documentation[^`]*`);/g)[1], {
    "getReadmePath()": "readmePath",
    "getDocsPath()": "docsPath",
    "getExamplesPath()": "examplesPath",
  });
  assertEq(J(t.names), J(["readmePath", "docsPath", "examplesPath"]), "docs placeholders in order");
  P.docsTemplate = t.text;
  [P.docsPrefix, P.betweenReadmeAndDocs, P.betweenDocsAndExamples, P.docsTail] = t.parts;
  const docs = unwrap(SN.docs, build({}).docs);
  assertEq(docs, P.docsPrefix + readmePath + P.betweenReadmeAndDocs + docsPath + P.betweenDocsAndExamples + examplesPath + P.docsTail, "docs section from the pieces");
  P.packagePaths = packagePaths;
}

// --- project context section ---
{
  const [, header, itemTpl, joinLit] = one(F.systemPrompt, /function renderProjectContext\(contextFiles\) \{\s*return \[\s*("[^"]*"),\s*\.\.\.contextFiles\.map\(\(\{ path, content \}\) => (`[^`]*`)\),\s*\]\.join\(("[^"]*")\);\s*\}/g);
  const item = evalTemplate(itemTpl, { path: "path", content: "content" });
  P.projectContextHeader = evalLiteral(header);
  P.projectContextJoin = evalLiteral(joinLit);
  [P.projectInstructionsOpenPrefix, P.projectInstructionsOpenSuffix, P.projectInstructionsClose] = item.parts;
  const files = [{ path: "XP1X", content: "XC1X" }, { path: "XP2X", content: "XC2X" }];
  const s = unwrap(SN.projectContext, build({ customPrompt: "XCPX", contextFiles: files }).project_context);
  const [h, s1, c1, s2, close] = splitOn(s, ["XP1X", "XC1X", "XP2X", "XC2X"], "project context");
  assertEq(h, P.projectContextHeader + P.projectContextJoin + P.projectInstructionsOpenPrefix, "project context header");
  assertEq(s1, P.projectInstructionsOpenSuffix, "instructions open suffix");
  assertEq(c1, P.projectInstructionsClose + P.projectContextJoin + P.projectInstructionsOpenPrefix, "between two context files");
  assertEq(s2, P.projectInstructionsOpenSuffix, "instructions open suffix (2)");
  assertEq(close, P.projectInstructionsClose, "last instructions close");
}

// --- skills section (formatSkillsForPrompt) ---
const S = {};
{
  // 1.3.0 on: read, bash or indirect; 0.86–0.87: read, else bash.
  const arr = HIDDEN_TOOLS
    ? one(F.skills, /const lines = \[\s*("[^"]*"),\s*fileReadTool === "read"\s*\?\s*("[^"]*")\s*:\s*fileReadTool === "bash"\s*\?\s*("[^"]*")\s*:\s*("[^"]*"),\s*("[^"]*"),\s*("[^"]*"),\s*("[^"]*"),\s*\];/g)
    : (([all, a, b, c, d, e, f]) => [all, a, b, c, undefined, d, e, f])(one(F.skills, /const lines = \[\s*("[^"]*"),\s*fileReadTool === "read"\s*\?\s*("[^"]*")\s*:\s*("[^"]*"),\s*("[^"]*"),\s*("[^"]*"),\s*("[^"]*"),\s*\];/g));
  const [header, readLine, bashLine, indirectLine, relLine, blank, open] = arr.slice(1, 8).map((x) => (x === undefined ? undefined : evalLiteral(x)));
  const pushes = matchAll(F.skills, /lines\.push\(((?:"[^"\n]*"|`[^`\n]*`))\);/g).map((m) => m[1]);
  assertEq(pushes.length, 6, "lines.push calls in formatSkillsForPrompt");
  const nameT = evalTemplate(pushes[1], { "escapeXml(skill.name)": "name" });
  const descT = evalTemplate(pushes[2], { "escapeXml(skill.description)": "description" });
  const locT = evalTemplate(pushes[3], { "escapeXml(skill.filePath)": "location" });
  const joinLit = one(F.skills, /lines\.push\("<\/available_skills>"\);\s*return lines\.join\(("[^"]*")\);/g)[1];
  const escapes = matchAll(F.skills, /\.replace\(\/(&|<|>|"|')\/g, ("[^"]*")\)/g).map((m) => [m[1], evalLiteral(m[2])]);
  assertEq(J(escapes.map((e) => e[0])), J(["&", "<", ">", '"', "'"]), "escapeXml replacements, & first (so one pass per character is the same)");
  one(F.skills, /const visibleSkills = skills\.filter\(\(s\) => !s\.disableModelInvocation\);\s*if \(visibleSkills\.length === 0\) \{\s*return "";\s*\}/g);
  one(F.systemPrompt, /if \(skillFileReadTool && skills\.length > 0\) \{\s*const skillsPrompt = formatSkillsForPrompt\(skills, skillFileReadTool\)\.trim\(\);/g);
  Object.assign(S, {
    header,
    readToolLine: readLine,
    bashToolLine: bashLine,
    indirectToolLine: indirectLine,
    relativePathLine: relLine,
    separatorLine: blank,
    listOpen: open,
    skillOpen: evalLiteral(pushes[0]),
    namePrefix: nameT.parts[0],
    nameSuffix: nameT.parts[1],
    descriptionPrefix: descT.parts[0],
    descriptionSuffix: descT.parts[1],
    locationPrefix: locT.parts[0],
    locationSuffix: locT.parts[1],
    skillClose: evalLiteral(pushes[4]),
    listClose: evalLiteral(pushes[5]),
    lineJoin: evalLiteral(joinLit),
    xmlEscapes: escapes,
  });
  // The section is the block with JS trim() applied: only the header's leading line breaks go.
  S.sectionStripsLeading = header.slice(0, header.length - header.trimStart().length);
  assert(S.sectionStripsLeading.length > 0 && /^\s+$/.test(S.sectionStripsLeading), "the header starts with the whitespace trim() removes");
  assertEq(S.listClose.trimEnd(), S.listClose, "nothing at the block's end for trim() to remove");
}
P.skills = S;
P.cwdBackslashTo = lit(F.systemPrompt, /promptSections\.[a-z_]+ = cwd\.replace\(\/\\\\\/g, ("[^"]*")\);/g, { count: 1 });
assertEq(unwrap(SN.cwd, build({ cwd: "C:\\a\\b/c" }).cwd), "C:" + P.cwdBackslashTo + "a" + P.cwdBackslashTo + "b/c", "cwd section: backslashes replaced");

// --- the reference rebuild (what the Rust side does), checked against pi ---
function escapeXmlFrom(p, s) {
  let out = "";
  for (const ch of s) {
    const e = p.skills.xmlEscapes.find(([c]) => c === ch);
    out += e ? e[1] : ch;
  }
  return out;
}
function rebuildSkills(p, skills, fileReadTool) {
  const k = p.skills;
  const visible = skills.filter((s) => !s.disableModelInvocation);
  if (visible.length === 0) return "";
  const line = fileReadTool === "read" ? k.readToolLine : fileReadTool === "bash" ? k.bashToolLine : k.indirectToolLine;
  const lines = [k.header, line, k.relativePathLine, k.separatorLine, k.listOpen];
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
function rebuildRules(p, declared, toolGuidelines, promptGuidelines) {
  const rules = [];
  const seen = new Set();
  const add = (r) => {
    const x = r.trim();
    if (!x || seen.has(x)) return;
    seen.add(x);
    rules.push(x);
  };
  const has = (n) => declared.includes(n);
  const [bash, ps] = p.ruleFileOpsShellTools;
  if ((has(bash) || has(ps)) && !p.ruleFileOpsSuppressedBy.some(has)) {
    add(has(bash) && has(ps) ? p.ruleFileOpsBashAndPowerShell : has(ps) ? p.ruleFileOpsPowerShell : p.ruleFileOpsBash);
  }
  for (const n of declared) for (const r of toolGuidelines[n] ?? []) add(r);
  for (const r of promptGuidelines) add(r);
  add(p.ruleConcise);
  add(p.ruleFilePaths);
  return rules.map((r) => p.ruleItemPrefix + r).join(p.rulesJoin);
}
/** buildSystemPromptSections rebuilt from prompt.json: an ordered map name -> section text. */
function rebuildSections(p, o, packageDir) {
  const N = p.sectionNames;
  const selected = o.selectedTools ?? p.defaultSelectedTools;
  const hidden = HIDDEN_TOOLS ? (o.hiddenTools ?? []) : [];
  const ext = o.sections ?? {};
  const nameRe = new RegExp(p.extensionSectionNamePattern);
  for (const name of Object.keys(ext)) {
    if (!nameRe.test(name) || p.reservedSectionNames.includes(name)) throw new Error(p.invalidSectionNameError.split("{name}").join(name));
  }
  const declared = selected.filter((n) => !hidden.includes(n));
  const raw = new Map();
  if (o.customPrompt) {
    raw.set(N.preamble, o.customPrompt);
  } else {
    raw.set(N.preamble, p.preamble);
    const snippets = o.toolSnippets ?? {};
    const visible = declared.filter((n) => !!snippets[n]);
    const list = visible.length ? visible.map((n) => p.toolsListItemPrefix + n + p.toolsListItemSeparator + snippets[n]).join(p.toolsListJoin) : p.noTools;
    raw.set(N.tools, list + p.toolsTail);
    raw.set(N.rules, rebuildRules(p, declared, o.toolGuidelines ?? {}, o.promptGuidelines ?? []));
    raw.set(
      N.docs,
      p.docsPrefix + packageDir + p.packagePaths.readmeSuffix + p.betweenReadmeAndDocs + packageDir + p.packagePaths.docsSuffix +
        p.betweenDocsAndExamples + packageDir + p.packagePaths.examplesSuffix + p.docsTail,
    );
  }
  if (o.appendSystemPrompt) raw.set(N.addendum, o.appendSystemPrompt);
  const files = o.contextFiles ?? [];
  if (files.length > 0) {
    const items = files.map((f) => p.projectInstructionsOpenPrefix + f.path + p.projectInstructionsOpenSuffix + f.content + p.projectInstructionsClose);
    raw.set(N.projectContext, [p.projectContextHeader, ...items].join(p.projectContextJoin));
  }
  const pref = p.skillFileReadToolPreference;
  const reader = pref.find((t) => declared.includes(t)) ?? (pref.some((t) => selected.includes(t)) ? "indirect" : undefined);
  const skills = o.skills ?? [];
  if (reader && skills.length > 0) {
    const block = rebuildSkills(p, skills, reader);
    const s = block.startsWith(p.skills.sectionStripsLeading) ? block.slice(p.skills.sectionStripsLeading.length) : block;
    if (s) raw.set(N.skills, s);
  }
  raw.set(N.cwd, o.cwd.split("\\").join(p.cwdBackslashTo));
  for (const [name, content] of Object.entries(ext)) if (content) raw.set(name, content);
  const out = {};
  for (const [name, content] of raw) out[name] = p.unwrappedSections.includes(name) ? content : wrapAs(name, content);
  return out;
}
const rebuildText = (p, sections) => Object.values(sections).filter((x) => x.length > 0).join(p.sectionJoin);
{
  // Section order: a fresh default build, and a custom-prompt build (no tools/rules/docs).
  const all = { appendSystemPrompt: "XAX", contextFiles: [{ path: "p", content: "c" }], skills: [{ name: "n", description: "d", filePath: "/f" }], selectedTools: ["read"] };
  P.sectionOrderDefault = Object.keys(build(all));
  P.sectionOrderCustom = Object.keys(build({ ...all, customPrompt: "XCPX" }));
  assertEq(J(P.sectionOrderDefault), J(Object.values(SN)), "default section order = source order");
  assertEq(J(P.sectionOrderCustom), J(Object.values(SN).filter((n) => ![SN.tools, SN.rules, SN.docs].includes(n))), "custom-prompt section order");
}
const norm = SESSION.AgentSession.prototype;
let promptSamples = 0;
{
  // pi's own normalization of snippets and guidelines (AgentSession), used to feed the samples
  const registry = [...P.builtinToolRegistryOrder, "mytool", "nosnippet", "extra_tool"];
  const rawSnippets = { ...Object.fromEntries(toolsJson.map((t) => [t.name, t.promptSnippet])), mytool: "My   tool\ndoes\r\nthings ", extra_tool: "Extra <tool> & 'more'" };
  const rawGuidelines = {
    ...Object.fromEntries(toolsJson.map((t) => [t.name, t.promptGuidelines ?? undefined])),
    mytool: ["  custom guideline  ", "custom guideline", "Use read to examine files instead of cat or sed.", "", P.ruleConcise],
    extra_tool: ["Extra rule\nwith a newline"],
  };
  const toolSnippets = Object.fromEntries(registry.map((n) => [n, norm._normalizePromptSnippet(rawSnippets[n])]).filter(([, s]) => s));
  const toolGuidelines = Object.fromEntries(registry.map((n) => [n, norm._normalizePromptGuidelines(rawGuidelines[n])]));
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
  const fileSets = [[], [{ path: "/r/AGENTS.md", content: "root rules\n" }], [{ path: "/a/CLAUDE.md", content: "" }, { path: "/a/b/AGENTS.override.md", content: "x\n\ny" }, { path: "/h/AGENTS.md", content: "<b>&</b>\n\n" }]];
  const toolSets = [
    undefined, [], ["read"], ["bash"], ["powershell"], ["bash", "powershell"], ["bash", "grep"], ["read", "bash", "edit", "write"],
    TOOL_ORDER, ["ls", "powershell"], ["bash", "mytool", "nosnippet", "extra_tool"], ["write", "edit"], ["grep", "read"], ["notregistered", "read"],
  ];
  const hiddenSets = HIDDEN_TOOLS ? [[], ["read"], ["bash", "mytool"]] : [[]];
  const guidelineSets = [[], ["  Be concise in your responses  ", "", "   ", "ext guideline", "ext guideline", "Show file paths clearly when working with files"]];
  const sectionSets = [undefined, { mcp_servers: "MCP <servers>\n- a" }, { tools: "OVERRIDDEN tools", empty: "", "a-b_1": "Z", cwd: "" }];
  const customs = [undefined, "", "You are a test.", "Custom <p> & x\nmulti-line\n"];
  const appendLists = [[], [""], ["APPENDED\ntext"], ["A1", "A2\n"]];
  const pkgDirs = ["/opt/pi-oracle-1.6.0/node_modules/@earendil-works/pi-coding-agent", "/nix/store/abc-pi"];
  const cwds = ["/tmp/pi-ctx-demo/a/b/c", "C:\\Users\\me\\proj"];
  // The bundle's own buildSystemPromptSections, reached through AgentSession._preparePromptAndToolLoadout
  // (a diff against an empty transcript is every section) and its systemPrompt getter.
  const viaPrepare = (lib, o) => {
    // 1.3.0 on: `_applyToolLoadout` and the hidden declarations; 0.86–0.87: the registry filter
    // and `agent.state.tools`.
    const fake = {
      _applyToolLoadout: (names) => names.map((name) => ({ name })),
      _hiddenDeclarations: new Set(o.hiddenTools ?? []),
      _toolRegistry: new Map((o.selectedTools ?? []).map((name) => [name, { name }])),
      agent: { state: {} },
    };
    const msg = lib.AgentSession.prototype._preparePromptAndToolLoadout.call(fake, structuredClone(o), []);
    assertEq(J(Object.keys(msg)), J(["role", "content", "sections", "timestamp"]), "system patch message keys");
    return msg.sections;
  };
  const getter = (lib) => Object.getOwnPropertyDescriptor(lib.AgentSession.prototype, "systemPrompt").get;
  let k = 0;
  for (const pkg of pkgDirs) {
    process.env.PI_PACKAGE_DIR = pkg;
    for (const tools of toolSets) {
      for (const hiddenTools of hiddenSets) {
        for (const promptGuidelines of guidelineSets) {
          for (const customPrompt of customs) {
            for (const appends of appendLists) {
              for (const contextFiles of fileSets) {
                for (const skills of skillSets) {
                  for (const sections of sectionSets) {
                    const cwd = cwds[k++ % 2];
                    const appendSystemPrompt = appends.join(P.appendSystemPromptJoin);
                    const o = { customPrompt, appendSystemPrompt, selectedTools: tools, hiddenTools, toolSnippets, toolGuidelines, promptGuidelines, contextFiles, skills, sections, cwd };
                    const expected = SYSTEM_PROMPT.buildSystemPromptSections(o);
                    const actual = rebuildSections(P, o, pkg);
                    if (J(actual) !== J(expected)) fail(`sections rebuild mismatch for ${J({ ...o, pkg })}\n--- pi:\n${J(expected)}\n--- rebuilt:\n${J(actual)}`);
                    assertEq(rebuildText(P, actual), SYSTEM_PROMPT.buildSystemPrompt(o), "buildSystemPrompt = sections joined");
                    promptSamples++;
                    if (tools !== undefined && k % 3 === 0) {
                      // The bundle's and dist's buildSystemPromptSections via _preparePromptAndToolLoadout.
                      assertEq(J(viaPrepare(BUNDLE, o)), J(expected), "bundle _preparePromptAndToolLoadout sections");
                      assertEq(J(viaPrepare(SESSION, o)), J(expected), "dist _preparePromptAndToolLoadout sections");
                      // The option assembly of _rebuildSystemPrompt (registry filter, append join), dist and bundle.
                      const fake = () => ({
                        _cwd: cwd,
                        _toolRegistry: new Map(registry.map((n) => [n, {}])),
                        _toolPromptSnippets: new Map(Object.entries(toolSnippets)),
                        _toolPromptGuidelines: new Map(Object.entries(toolGuidelines)),
                        _hiddenDeclarations: new Set(hiddenTools),
                        _resourceLoader: {
                          getSystemPrompt: () => customPrompt,
                          getAppendSystemPrompt: () => appends,
                          getSkills: () => ({ skills }),
                          getAgentsFiles: () => ({ agentsFiles: contextFiles }),
                        },
                      });
                      const fd = fake();
                      const fb = fake();
                      SESSION.AgentSession.prototype._rebuildSystemPrompt.call(fd, tools);
                      BUNDLE.AgentSession.prototype._rebuildSystemPrompt.call(fb, tools);
                      const opts = { ...o, selectedTools: tools.filter((n) => registry.includes(n)), promptGuidelines: [], sections: {} };
                      const text = rebuildText(P, rebuildSections(P, opts, pkg));
                      assertEq(getter(SESSION).call(fd), text, "dist _rebuildSystemPrompt + systemPrompt vs rebuild");
                      assertEq(getter(BUNDLE).call(fb), text, "bundle _rebuildSystemPrompt + systemPrompt vs rebuild");
                      promptSamples += 2;
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  // formatSkillsForPrompt directly, in dist and in the CLI bundle, all three wordings, hostile strings
  const hostile = ["&<>\"'", "&lt;&amp;", "plain", "", "a'b\"c", "\u2028\u{1F600}&"];
  for (const fileReadTool of HIDDEN_TOOLS ? ["read", "bash", "indirect"] : ["read", "bash"]) {
    for (const skills of [...skillSets, hostile.map((h, i) => ({ name: h, description: h + i, filePath: `/${h}` }))]) {
      const expected = SKILLS.formatSkillsForPrompt(skills, fileReadTool);
      assertEq(BUNDLE.formatSkillsForPrompt(skills, fileReadTool), expected, "bundle formatSkillsForPrompt");
      assertEq(rebuildSkills(P, skills, fileReadTool), expected, `skills rebuild (${fileReadTool})`);
      promptSamples++;
    }
  }
  console.error(`prompt.json: rebuilt ${promptSamples} sample section maps/prompts/skill blocks identically to pi`);
  process.env.PI_PACKAGE_DIR = PKG;
}

// --- system message rendering (AI/utils/text.js) ---
const T = {};
{
  const [, removedTpl, updatedTpl] = one(F.text, /parts\.push\(value === null\s*\? (`[^`]*`)\s*: (`[^`]*`)\);/g);
  const removed = evalTemplate(removedTpl, { name: "name" });
  const updated = evalTemplate(updatedTpl, { name: "name", value: "value" });
  assertEq(J(updated.names), J(["name", "value"]), "updated section placeholders");
  assertEq(updated.parts[2], "", "the value ends the updated-section text");
  T.systemMessageTextJoin = P.sectionJoin;
  T.contentTextJoin = contentTextJoin;
  T.updatedSectionPrefix = updated.parts[0] + "{name}" + updated.parts[1];
  T.removedSection = removed.text;
  T.updateJoin = lit(F.text, /parts\.push\(value === null[\s\S]*?\);\s*\}\s*return parts\.join\(("[^"]*")\);/g, { count: 1 });
  const bundleRender = await bundleExport("renderSystemMessageUpdate");
  const bundleText = await bundleExport("getSystemMessageText");
  const rebuildUpdate = (m) => {
    const parts = [];
    const t = typeof m.content === "string" ? m.content : m.content.filter((b) => b.type === "text").map((b) => b.text).join(T.contentTextJoin);
    if (t.length > 0) parts.push(t);
    for (const [name, value] of Object.entries(m.sections ?? {})) {
      parts.push(value === null ? T.removedSection.split("{name}").join(name) : T.updatedSectionPrefix.split("{name}").join(name) + value);
    }
    return parts.join(T.updateJoin);
  };
  const rebuildFull = (m) => {
    const t = typeof m.content === "string" ? m.content : m.content.filter((b) => b.type === "text").map((b) => b.text).join(T.contentTextJoin);
    return [t, ...Object.values(m.sections ?? {}).filter((v) => v !== null)].filter((x) => x.length > 0).join(T.systemMessageTextJoin);
  };
  const msgs = [];
  for (const content of ["", "EXTRA", [{ type: "text", text: "A" }, { type: "image", data: "x", mimeType: "image/png" }, { type: "text", text: "B" }], []]) {
    for (const sections of [undefined, {}, { cwd: "<cwd>\n/b\n</cwd>", tools: null, skills: "<skills>\nS\n</skills>" }, { addendum: "" }, { a: null }]) {
      msgs.push({ role: "system", content, ...(sections ? { sections } : {}), timestamp: 1 });
    }
  }
  for (const m of msgs) {
    assertEq(AI_TEXT.renderSystemMessageUpdate(m), rebuildUpdate(m), "renderSystemMessageUpdate rebuilt");
    assertEq(bundleRender(m), AI_TEXT.renderSystemMessageUpdate(m), "bundle renderSystemMessageUpdate");
    assertEq(AI_TEXT.getSystemMessageText(m), rebuildFull(m), "getSystemMessageText rebuilt");
    assertEq(bundleText(m), AI_TEXT.getSystemMessageText(m), "bundle getSystemMessageText");
  }
  P.systemMessage = T;
}
notes.push(
  "prompt.json sections: buildSystemPromptSections gives an ordered map name -> text; pi stores it in the session as system messages and the prompt text is the non-empty values joined by sectionJoin (getSystemMessageText). Section names are sectionNames (preamble, tools, rules, docs, addendum, project_context, skills, cwd). Every section but unwrappedSections (the preamble) is sectionOpen + content + sectionClose with {name} = its name. A fresh default build is in sectionOrderDefault order; with a custom prompt (truthy customPrompt) the preamble is the custom text (not escaped) and tools, rules and docs are absent (sectionOrderCustom). Optional: addendum (appendSystemPrompt truthy; AgentSession joins the loader's appends with appendSystemPromptJoin), project_context (>= 1 file), skills (see below). Extension sections (opts.sections, set by before_agent_start handlers) must match extensionSectionNamePattern and not be a reservedSectionNames entry (else throw invalidSectionNameError); each one with truthy content replaces a section of that name in place or is appended after cwd, in insertion order.",
  "prompt.json tools/rules: declared = selectedTools (default defaultSelectedTools) minus hiddenTools. tools = for declared tools with a truthy snippet: toolsListItemPrefix + name + toolsListItemSeparator + snippet, joined by toolsListJoin, or noTools when none; then toolsTail. rules = ordered list with one global seen-set (each entry trimmed, empty or seen skipped): the file-operations rule when a ruleFileOpsShellTools tool is declared and none of ruleFileOpsSuppressedBy (both shells: ruleFileOpsBashAndPowerShell; only powershell: ruleFileOpsPowerShell; else ruleFileOpsBash), then each declared tool's toolGuidelines, then opts.promptGuidelines, then ruleConcise and ruleFilePaths; each ruleItemPrefix + rule, joined by rulesJoin. AgentSession passes toolSnippets/toolGuidelines for every registry tool (normalized: snippets one line, guidelines trimmed/unique).",
  "prompt.json docs = docsPrefix + pkg+packagePaths.readmeSuffix + betweenReadmeAndDocs + pkg+packagePaths.docsSuffix + betweenDocsAndExamples + pkg+packagePaths.examplesSuffix + docsTail (docsTemplate is the same text with {readmePath}/{docsPath}/{examplesPath}); pkg = pi's package dir as path.resolve gives it (PI_PACKAGE_DIR wins). project_context = [projectContextHeader, ...per file projectInstructionsOpenPrefix + path + projectInstructionsOpenSuffix + content + projectInstructionsClose] joined by projectContextJoin (path and content raw). cwd = the cwd with every backslash replaced by cwdBackslashTo.",
  "prompt.json skills: reader = the first skillFileReadToolPreference tool in declared, else \"indirect\" when one of them is selected but hidden, else none (no section). With a reader and >= 1 skill: lines [header, readToolLine|bashToolLine|indirectToolLine, relativePathLine, separatorLine, listOpen] + per skill without disableModelInvocation [skillOpen, namePrefix+esc(name)+nameSuffix, descriptionPrefix+esc(description)+descriptionSuffix, locationPrefix+esc(filePath)+locationSuffix, skillClose] + [listClose], joined by lineJoin; no visible skill -> no section. The section content is that block with JS trim(), which removes exactly sectionStripsLeading (the header's leading line breaks). esc replaces each character by xmlEscapes.",
  "prompt.json systemMessage (AI/utils/text.js, also in strings.json text): a system message's full text (the leading prompt; getSystemMessageText) = [contentText(content), ...non-null section values] non-empty ones joined by systemMessageTextJoin (= sectionJoin); contentText joins text blocks with contentTextJoin. A later system message rendered in place (renderSystemMessageUpdate) = [contentText if non-empty] + per section (in key order) removedSection or updatedSectionPrefix + value, with {name} = the section name, joined by updateJoin (an empty updated value still gives its prefix).",
  "prompt.json tool lists: defaultActiveTools (settings DEFAULT_TOOL_NAMES = AgentSession's default active list), defaultSelectedTools (buildSystemPromptSections' fallback), builtinToolRegistryOrder (allToolNames / createAllToolDefinitions: the registry's built-in order, which decides the order tools are activated in and so the <tools>/<rules> order); contextFileCandidates as resource-loader looks them up per directory.",
);
const promptJson = {
  defaultActiveTools: P.defaultActiveTools,
  defaultSelectedTools: P.defaultSelectedTools,
  builtinToolRegistryOrder: P.builtinToolRegistryOrder,
  skillFileReadToolPreference: P.skillFileReadToolPreference,
  contextFileCandidates: P.contextFileCandidates,
  appendSystemPromptJoin: P.appendSystemPromptJoin,
  sectionNames: P.sectionNames,
  sectionOrderDefault: P.sectionOrderDefault,
  sectionOrderCustom: P.sectionOrderCustom,
  unwrappedSections: P.unwrappedSections,
  sectionOpen: P.sectionOpen,
  sectionClose: P.sectionClose,
  sectionJoin: P.sectionJoin,
  extensionSectionNamePattern: P.extensionSectionNamePattern,
  reservedSectionNames: P.reservedSectionNames,
  invalidSectionNameError: P.invalidSectionNameError,
  preamble: P.preamble,
  toolsListItemPrefix: P.toolsListItemPrefix,
  toolsListItemSeparator: P.toolsListItemSeparator,
  toolsListJoin: P.toolsListJoin,
  noTools: P.noTools,
  toolsTail: P.toolsTail,
  ruleItemPrefix: P.ruleItemPrefix,
  rulesJoin: P.rulesJoin,
  ruleFileOpsShellTools: P.ruleFileOpsShellTools,
  ruleFileOpsSuppressedBy: P.ruleFileOpsSuppressedBy,
  ruleFileOpsBashAndPowerShell: P.ruleFileOpsBashAndPowerShell,
  ruleFileOpsPowerShell: P.ruleFileOpsPowerShell,
  ruleFileOpsBash: P.ruleFileOpsBash,
  ruleConcise: P.ruleConcise,
  ruleFilePaths: P.ruleFilePaths,
  docsTemplate: P.docsTemplate,
  docsPrefix: P.docsPrefix,
  betweenReadmeAndDocs: P.betweenReadmeAndDocs,
  betweenDocsAndExamples: P.betweenDocsAndExamples,
  docsTail: P.docsTail,
  packagePaths: P.packagePaths,
  projectContextHeader: P.projectContextHeader,
  projectContextJoin: P.projectContextJoin,
  projectInstructionsOpenPrefix: P.projectInstructionsOpenPrefix,
  projectInstructionsOpenSuffix: P.projectInstructionsOpenSuffix,
  projectInstructionsClose: P.projectInstructionsClose,
  skills: P.skills,
  cwdBackslashTo: P.cwdBackslashTo,
  systemMessage: P.systemMessage,
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
  const sys = { role: "system", content: "", sections: { cwd: "<cwd>\n/x\n</cwd>" }, timestamp: 0 };
  samples.push(sys);
  samples.push({ role: "bashExecution", command: "secret", output: "x", exitCode: 0, excludeFromContext: true, timestamp: 2 });
  samples.push({ role: "branchSummary", summary: "S1\n", fromId: "a", timestamp: 3 });
  samples.push({ role: "compactionSummary", summary: "C1", tokensBefore: 10, timestamp: 4 });
  samples.push({ role: "custom", customType: "x", content: "CUSTOM", display: true, timestamp: 5 });
  const conv = MESSAGES.convertToLlm(samples);
  assertEq(J(BUNDLE.convertToLlm(samples)), J(conv), "bundle convertToLlm");
  assert(conv.includes(sys), "convertToLlm passes system messages through as the same object");
  const expectedConv = samples
    .filter((s) => !s.excludeFromContext)
    .map((s) =>
      s.role === "system"
        ? s
        : {
            role: "user",
            content:
              s.role === "custom"
                ? [{ type: "text", text: s.content }]
                : [{ type: "text", text: s.role === "bashExecution" ? rebuildBash(s) : s.role === "branchSummary" ? m.branchSummaryPrefix + s.summary + m.branchSummarySuffix : m.compactionSummaryPrefix + s.summary + m.compactionSummarySuffix }],
            timestamp: s.timestamp,
          },
    );
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
// --- CA/core/agent-session.js: /skill:name expansion, prompt image hints ---
{
  const s = {};
  s.skillCommandPrefix = lit(F.agentSession, /if \(!text\.startsWith\(("[^"]*")\)\)\s*return text;/g);
  const skillFile = path.join(TMP, "skill-sample.md");
  fs.writeFileSync(skillFile, "---\nname: XNAMEX\ndescription: d\n---\n\n  XBODYX  \n\n");
  const fake = () => ({
    resourceLoader: { getSkills: () => ({ skills: [{ name: "XNAMEX", filePath: skillFile, baseDir: "XBASEX" }] }) },
    _extensionRunner: { emitError: (e) => fail(`skill expansion error: ${J(e)}`) },
  });
  const expand = (lib, text) => lib.AgentSession.prototype._expandSkillCommand.call(fake(), text);
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
  // The prompt's image hints (resize notes, failures) follow the prompt text (0.87.0 on, with
  // `_normalizePromptImages`; 0.86 passes the prompt's images as they are).
  if (/\b_normalizePromptImages\(/.test(src(F.agentSession))) {
    // 1.3.0 on: `trigger.prompt`; 0.87: `prompt()`'s `expandedText`.
    const sites = matchAll(F.agentSession, /const (?:text|userText) = normalized\.hints\.length > 0 \? `\$\{(trigger\.prompt|expandedText)\}([^`$]*)\$\{normalized\.hints\.join\(("[^"]*")\)\}` : \1;/g);
    assert(sites.length >= 1 && new Set(sites.map((m) => J([m[2], m[3]]))).size === 1, "the prompt image hints join alike at every site");
    const [, , hintSep, hintJoin] = sites[0];
    s.promptImageHintsSeparator = evalLiteral("`" + hintSep + "`");
    s.promptImageHintsJoin = evalLiteral(hintJoin);
  }
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
  f.imageHintsJoin = lit(F.fileProcessor, /text \+= `<file name="\$\{absolutePath\}">\$\{processed\.hints\.join\(("[^"]*")\)\}<\/file>\\n`;/g, { count: 1 });
  one(F.fileProcessor, /text \+= `<file name="\$\{absolutePath\}">\$\{processed\.message\}<\/file>\\n`;/g);
  // main.js reads @file images without resizing (0.87.0 on: the prompt's images are resized
  // later, per model): only conversion hints can appear inside <file>. 0.86: resized there, as
  // the `images.autoResize` setting says (as in 0.85).
  if (/\b_normalizePromptImages\(/.test(src(F.agentSession))) one(`${CA}/main.js`, /await processFileArguments\(parsed\.fileArgs, \{ autoResizeImages: false \}\);/g);
  else one(`${CA}/main.js`, /await processFileArguments\(parsed\.fileArgs, \{ autoResizeImages \}\);/g);
  STR.fileProcessor = f;
}
// --- CA/utils/image-process.js, image-resize.js: image hints (prompt images, read tool results) ---
{
  const x = {};
  const y = {};
  x.conversionHint = evalTemplate(one(F.imageProcess, /function conversionHint\(from, to\) \{\s*if \(!from \|\| from === to\)\s*return undefined;\s*return (`[^`]*`);\s*\}/g)[1], { from: "from", to: "to" }).text;
  const msgs = matchAll(F.imageProcess, /return \{\s*ok: false,\s*message: ("[^"]*"),\s*\};/g).map((m) => evalLiteral(m[1]));
  assertEq(msgs.length, 2, "processImage failure messages");
  [x.unsupportedImageOmitted, x.oversizedImageOmitted] = msgs;
  const dim = one(F.imageResize, /const scale = result\.originalWidth \/ result\.width;\s*return (`[^`]*`);/g)[1];
  y.dimensionNote = evalTemplate(dim, {
    "result.originalWidth": "originalWidth",
    "result.originalHeight": "originalHeight",
    "result.width": "width",
    "result.height": "height",
    "scale.toFixed(2)": "scale",
  }).text;
  const { formatDimensionNote } = await imp(F.imageResize);
  const r = { wasResized: true, originalWidth: 2400, originalHeight: 4, width: 2000, height: 3 };
  assertEq(formatDimensionNote(r), y.dimensionNote.replace("{originalWidth}", "2400").replace("{originalHeight}", "4").replace("{width}", "2000").replace("{height}", "3").replace("{scale}", (2400 / 2000).toFixed(2)), "dimension note rebuilt");
  assertEq(BUNDLE.formatDimensionNote(r), formatDimensionNote(r), "bundle formatDimensionNote");
  assertEq(formatDimensionNote({ ...r, wasResized: false }), undefined, "no note without a resize");
  STR.imageProcess = x;
  STR.imageResize = y;
}
// --- AI/utils/text.js: system message rendering ---
STR.text = { ...T };
// --- AI/api/transform-messages.js ---
{
  const t = {
    nonVisionUserImagePlaceholder: lit(F.transform, /const NON_VISION_USER_IMAGE_PLACEHOLDER = ("[^"]*");/g, { count: 1 }),
    nonVisionToolImagePlaceholder: lit(F.transform, /const NON_VISION_TOOL_IMAGE_PLACEHOLDER = ("[^"]*");/g, { count: 1 }),
    missingToolResult: lit(F.transform, /content: \[\{ type: "text", text: ("[^"]*") \}\],\s*isError: true,/g, { count: 1 }),
  };
  // 1.3.0 on (#10794): an error tool result's images move after the batch's results.
  const splitsErrorImages = typeof AI_TRANSFORM.splitErrorToolResultImages === "function";
  if (splitsErrorImages) {
    t.errorToolImagePlaceholder = lit(F.transform, /const ERROR_TOOL_IMAGE_PLACEHOLDER = ("[^"]*");/g, { count: 1 });
    t.errorToolImagesCaption = evalTemplate(one(F.transform, /caption: (`[^`]*`),/g)[1], { "msg.toolCallId": "id", "msg.toolName": "toolName" }).text;
  }
  // confirm by calling transformMessages on a text-only model
  const model = { id: "m", provider: "p", api: "openai-completions", input: ["text"] };
  const img = { type: "image", data: "AAAA", mimeType: "image/png" };
  const sysMid = { role: "system", content: "", sections: { x: "y" }, timestamp: 4 };
  const out = AI_TRANSFORM.transformMessages(
    [
      { role: "user", content: [{ type: "text", text: "hi" }, img, img], timestamp: 1 },
      { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: {} }], provider: "p", api: "openai-completions", model: "m", stopReason: "toolUse", timestamp: 2 },
      sysMid,
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
  assert(out[3] === sysMid, "a system message held while tool calls are pending comes after the synthetic result");
  assertEq(out[6].content[0].text, t.nonVisionToolImagePlaceholder, "tool image downgrade (call)");
  // error tool-result images (Anthropic, Claude on Bedrock)
  if (splitsErrorImages) {
  const err = { role: "toolResult", toolCallId: "XIDX", toolName: "XTOOLX", content: [{ type: "text", text: "e" }, img, img, { type: "text", text: "f" }, img], isError: true, timestamp: 1 };
  const split = AI_TRANSFORM.splitErrorToolResultImages(err);
  assertEq(split.caption, t.errorToolImagesCaption.replace("{id}", "XIDX").replace("{toolName}", "XTOOLX"), "error image caption (call)");
  assertEq(J(split.content), J([{ type: "text", text: "e" }, { type: "text", text: t.errorToolImagePlaceholder }, { type: "text", text: "f" }, { type: "text", text: t.errorToolImagePlaceholder }]), "error image placeholders (call)");
  assertEq(split.images.length, 3, "error images kept in order");
  assertEq(AI_TRANSFORM.splitErrorToolResultImages({ ...err, isError: false }), undefined, "no split for a successful result");
  }
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
  assistantTextJoin: lit(F.completions, /const assistantText = assistantTextParts\.map\(\(part\) => part\.text\)\.join\(("[^"]*")\);/g, { count: 1 }),
  inPlaceToolsMessageRole: lit(F.completions, /const kimiToolMessage = \{\s*role: ("[^"]*"),\s*tools: convertTools\(addedTools, compat\),\s*\};/g, { count: 1 }),
};
one(F.completions, /const text = i === 0 \? getSystemMessageText\(msg\) : renderSystemMessageUpdate\(msg\);/g);
// --- AI/api/anthropic-messages.js ---
/** `supportsMessageThreads`' default provider (1.5.x), null when any provider counts (1.6.0). */
let threadsDefaultProvider = null;
{
  const a = {};
  a.imageOnlyPlaceholder = lit(F.anthropic, /blocks\.unshift\(\{\s*type: "text",\s*text: ("[^"]*"),\s*\}\);/g, { count: 1 });
  a.textBlocksJoin = lit(F.anthropic, /return sanitizeSurrogates\(content\.map\(\(c\) => c\.text\)\.join\(("[^"]*")\)\);/g, { count: 1 });
  a.claudeCodeSystemPrompt = lit(F.anthropic, /if \(isOAuthToken\) \{\s*params\.system = \[\s*\{\s*type: "text",\s*text: ("[^"]*"),/g, { count: 1 });
  a.claudeCodeVersion = lit(F.anthropic, /const claudeCodeVersion = ("[^"]*");/g, { count: 1 });
  a.claudeCodeUserAgent = evalTemplate(one(F.anthropic, /"user-agent": (`claude-cli\/\$\{claudeCodeVersion\}`),/g)[1], { claudeCodeVersion: "claudeCodeVersion" }).text;
  a.claudeCodeTools = stringArray(one(F.anthropic, /const claudeCodeTools = \[([^\]]*)\];/g)[1], "claudeCodeTools");
  const betaConsts = Object.fromEntries(matchAll(F.anthropic, /const ([A-Z_]+_BETA) = ("[^"]*");/g).map((x) => [x[1], evalLiteral(x[2])]));
  const camel = (s) => s.toLowerCase().replace(/_beta$/, "").replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  a.betas = Object.fromEntries(Object.entries(betaConsts).map(([k, v]) => [camel(k), v]));
  // messageThreads from 1.5.1 (#11545).
  // The native tool changes' beta: inlineTools from 1.0.1, midConversationToolChanges before.
  const toolChangesBeta = "midConversationToolChanges" in a.betas ? "midConversationToolChanges" : "inlineTools";
  const betaNames = ["fineGrainedToolStreaming", "interleavedThinking", "serverSideFallback", "midConversationOutputConfig", "thinkingBindingControls", toolChangesBeta, "messageThreads"];
  assertEq(J(Object.keys(a.betas)), J(betaNames.slice(0, Object.keys(a.betas).length)), "anthropic beta constants");
  assert(Object.keys(a.betas).length >= 6, "anthropic beta constants (inlineTools at least)");
  a.betas.oauth = lits(F.anthropic, /if \(isOAuthToken\)\s*features\.push\(("[^"]*"), ("[^"]*")\);/g, { count: 1 });
  a.redactedThinkingPlaceholder = lit(F.anthropic, /type: "thinking",\s*thinking: ("[^"]*"),\s*thinkingSignature: event\.content_block\.data,\s*redacted: true,/g, { count: 1 });
  a.defaultEffort = lit(F.anthropic, /const activeEffort = options\?\.effort \?\? ("[^"]*");/g, { count: 1 });
  a.effortMessagesTopLevelEffort = lit(F.anthropic, /params\.output_config = \{ effort: ("[^"]*") \};/g, { count: 1 });
  a.defaultThinkingDisplay = lit(F.anthropic, /display: options\?\.thinkingDisplay \?\? ("[^"]*"),/g, { count: 1 });
  assertEq(lit(F.anthropic, /const display = options\.thinkingDisplay \?\? ("[^"]*");/g, { count: 1 }), a.defaultThinkingDisplay, "both thinking display defaults");
  a.blockBindingPrefixMismatchBehavior = lit(F.anthropic, /block_binding: \{ prefix_mismatch_behavior: ("[^"]*") \},/g, { count: 1 });
  const ph = one(F.anthropic, /const DEFERRED_TOOL_PLACEHOLDER = (\{[^;]*\});/g)[1];
  a.deferredToolPlaceholder = objectLiteral(ph, "DEFERRED_TOOL_PLACEHOLDER");
  assertEq(J(Object.keys(a.deferredToolPlaceholder)), J(["name", "description", "input_schema", "defer_loading"]), "placeholder tool keys");
  if (toolChangesBeta === "inlineTools") one(F.anthropic, /params\.tools = \[\.\.\.convertToolDefinitions\(initialTools, toolCacheControl\), DEFERRED_TOOL_PLACEHOLDER\];/g);
  // 0.86–1.0.0: the later declarations follow the placeholder, deferred (`defer_loading: true`).
  else one(F.anthropic, /params\.tools = \[\s*\.\.\.convertTools\(initialTools, isOAuthToken, compat\.supportsEagerToolInputStreaming, compat\.supportsStrictTools, toolCacheControl\),\s*DEFERRED_TOOL_PLACEHOLDER,\s*\.\.\.convertTools\(laterTools, isOAuthToken, compat\.supportsEagerToolInputStreaming, compat\.supportsStrictTools\)\.map\(\(tool\) => \(\{ \.\.\.tool, defer_loading: true \}\)\),\s*\];/g);
  // The default of `supportsMessageThreads`: a base URL on the host (1.6.0), or also the provider
  // (1.5.x: `model.provider === "anthropic" && ...`; `messageThreadsDefaultProvider`, else null).
  {
    const threads = matchAll(F.anthropic, /supportsMessageThreads: model\.compat\?\.supportsMessageThreads \?\?\s*(?:\(model\.provider === ("[^"]*") && )?model\.baseUrl\.includes\(("[^"]*")\)\)?,/g, a.betas.messageThreads ? 1 : 0);
    assertEq(threads.length, a.betas.messageThreads ? 1 : 0, "one supportsMessageThreads default with message threads");
  }
  if (a.betas.messageThreads) {
    const threads = matchAll(F.anthropic, /supportsMessageThreads: model\.compat\?\.supportsMessageThreads \?\?\s*(?:\(model\.provider === ("[^"]*") && )?model\.baseUrl\.includes\(("[^"]*")\)\)?,/g);
    const [, provider, host] = threads[0];
    assertEq(provider === undefined, !threads[0][0].includes("model.provider"), "supportsMessageThreads default shape");
    a.messageThreadsDefaultHost = evalLiteral(host);
    // A condition, not a text of any body: kept in defaults.json (strings.json holds what bodies carry).
    threadsDefaultProvider = provider === undefined ? null : evalLiteral(provider);
  }
  STR.anthropicMessages = a;
}
// --- AI/api/openai-responses-shared.js ---
{
  const [imageOnly, empty] = lits(F.responsesShared, /return sanitizeSurrogates\(hasText \? textResult : images\.length > 0 \? ("[^"]*") : ("[^"]*")\);/g, { count: 1 });
  const [first, next] = one(F.responsesShared, /const fallbackMessageId = textBlockIndex === 0 \? (`[^`]*`) : (`[^`]*`);/g).slice(1);
  // The incremental and removal notices from 1.4.0 (#10940).
  const notices = /function renderIncrementalToolsNotice\(/.test(src(F.responsesShared));
  const notice = notices ? lit(F.responsesShared, /function renderIncrementalToolsNotice\(unavailable\) \{\s*const notice = ("[^"]*");/g, { count: 1 }) : null;
  const still = notices ? one(F.responsesShared, /return unavailable\.size > 0 \? `\$\{notice\}([^`$]*)\$\{\[\.\.\.unavailable\]\.join\(("[^"]*")\)\}([^`$]*)` : notice;/g) : null;
  const removal = notices ? one(F.responsesShared, /function renderToolRemovalNotice\(names\) \{\s*return `([^`$]*)\$\{names\.map\(\(name\) => `([^`$]*)\$\{name\}`\)\.join\(("[^"]*")\)\}`;\s*\}/g) : null;
  const callIdLit = one(F.responsesShared, /const callId = (`pi_tool_load_\$\{shortHash\((`[^`]*`)\)\}`);/g);
  const callIdOuter = evalTemplate(callIdLit[1].replace(callIdLit[2], "X"), { "shortHash(X)": "shortHash" });
  const callIdInner = evalTemplate(callIdLit[2], { seed: "seed", 'names.join(",")': "names" });
  const namesJoin = evalLiteral(/names\.join\(("[^"]*")\)/.exec(callIdLit[2])[1]);
  const seed = evalTemplate(one(F.responsesShared, /appendSystemToolAdditions\(msg, (`[^`]*`)\);/g)[1], { msgIndex: "msgIndex" });
  const tmpl = (s) => evalLiteral("`" + s + "`");
  STR.openaiResponsesShared = {
    toolResultImageOnly: imageOnly,
    toolResultEmpty: empty,
    toolResultTextJoin: lit(F.responsesShared, /function convertToolResultOutput\(model, content\) \{\s*const textResult = content\s*\.filter\(\(c\) => c\.type === "text"\)\s*\.map\(\(c\) => c\.text\)\s*\.join\(("[^"]*")\);/g, { count: 1 }),
    fallbackMessageIdFirst: evalTemplate(first, { msgIndex: "msgIndex" }).text,
    fallbackMessageIdNext: evalTemplate(next, { msgIndex: "msgIndex", textBlockIndex: "textBlockIndex" }).text,
    longMessageId: evalTemplate(one(F.responsesShared, /msgId = (`msg_\$\{shortHash\(msgId\)\}`);/g)[1], { "shortHash(msgId)": "shortHash" }).text,
    foreignItemId: evalTemplate(one(F.responsesShared, /const normalized = (`fc_\$\{shortHash\(itemId\)\}`);/g)[1], { "shortHash(itemId)": "shortHash" }).text,
    toolSearchCallId: callIdOuter.text,
    toolSearchCallIdHashInput: callIdInner.text,
    toolSearchCallIdNamesJoin: namesJoin,
    toolSearchSeed: seed.text,
    toolSearchQueryJoin: lit(F.responsesShared, /arguments: \{ query: names\.join\(("[^"]*")\), limit: names\.length \},/g, { count: 1 }),
    ...(notices ? {
      incrementalToolsNotice: notice,
      stillUnavailablePrefix: tmpl(still[1]),
      stillUnavailableJoin: evalLiteral(still[2]),
      stillUnavailableSuffix: tmpl(still[3]),
      toolRemovalNoticePrefix: tmpl(removal[1]),
      toolRemovalNoticeItemPrefix: tmpl(removal[2]),
      toolRemovalNoticeJoin: evalLiteral(removal[3]),
      systemPartsJoin: lit(F.responsesShared, /const text = parts\.filter\(\(part\) => part\.length > 0\)\.join\(("[^"]*")\);/g, { count: 1 }),
    } : {}),
  };
}
{
  // Confirm the notices, the tool-search call id and the system-message texts by calling pi-ai's converters.
  const RS = await imp(F.responsesShared);
  const { shortHash } = await imp(`${AI}/utils/hash.js`);
  const R = STR.openaiResponsesShared;
  const decl = (n) => AI_TRANSCRIPT.toToolDeclaration(baseDefs[n]);
  const ctx = {
    messages: [
      { role: "system", content: "BASE", toolsAdded: [decl("read")], timestamp: 1 },
      { role: "user", content: "q1", timestamp: 2 },
      { role: "system", content: "", toolsAdded: [decl("ls")], timestamp: 3 },
      { role: "user", content: "q2", timestamp: 4 },
      { role: "system", content: "NOTE", toolsRemoved: [{ name: "ls" }], timestamp: 5 },
      { role: "user", content: "q3", timestamp: 6 },
      { role: "system", content: "", sections: { cwd: "<cwd>\n/b\n</cwd>" }, toolsAdded: [decl("grep"), decl("find")], timestamp: 7 },
      { role: "user", content: "q4", timestamp: 8 },
    ],
  };
  const model = { id: "m", provider: "p", api: "openai-responses", input: ["text"], reasoning: true, compat: {} };
  const devTexts = (items) => items.filter((i) => i.role === "developer" && typeof i.content === "string").map((i) => i.content);
  const update = T.updatedSectionPrefix.split("{name}").join("cwd") + "<cwd>\n/b\n</cwd>";
  if (R.incrementalToolsNotice) {
    const changes = RS.convertResponsesMessages(model, ctx, new Set(), { supportsMidConvoSystemMessages: true, supportsAdditionalTools: true });
    const notice = R.incrementalToolsNotice;
    assertEq(
      J(devTexts(changes)),
      J(["BASE", notice, "NOTE" + R.systemPartsJoin + R.toolRemovalNoticePrefix + R.toolRemovalNoticeItemPrefix + "ls", notice + R.stillUnavailablePrefix + "ls" + R.stillUnavailableSuffix, update]),
      "responses 'changes' mode texts rebuilt",
    );
    assertEq(changes.filter((i) => i.type === "additional_tools").length, 3, "additional_tools items");
  }
  // Before 1.4.0 a removal anywhere stops the anchoring: the check runs without it.
  const actx = R.incrementalToolsNotice ? ctx : { messages: ctx.messages.filter((m) => !m.toolsRemoved) };
  const additions = RS.convertResponsesMessages(model, actx, new Set(), { supportsMidConvoSystemMessages: true, supportsToolSearch: true });
  const call = additions.filter((i) => i.type === "tool_search_call").at(-1);
  const names = ["grep", "find"];
  const callIdFor = (k) => R.toolSearchCallId.replace("{shortHash}", shortHash(R.toolSearchCallIdHashInput.replace("{seed}", R.toolSearchSeed.replace("{msgIndex}", String(k))).replace("{names}", names.join(R.toolSearchCallIdNamesJoin))));
  assertEq(call.call_id, callIdFor(R.incrementalToolsNotice ? 5 : [...Array(64).keys()].find((k) => callIdFor(k) === call.call_id)), "tool_search_call call_id rebuilt");
  assertEq(call.arguments.query, names.join(R.toolSearchQueryJoin), "tool_search_call query");
  // openai-completions: in-place tool message and the update text (Kimi-style additions).
  const OC = await imp(F.completions);
  const cctx = { messages: ctx.messages.filter((m) => !m.toolsRemoved) };
  const compat = { supportsMidConvoSystemMessages: true, supportsMidConvoToolAdditions: true, supportsDeveloperRole: false, supportsStrictMode: false };
  const params = OC.convertMessages({ ...model, api: "openai-completions" }, cctx, compat);
  const sysParams = params.filter((x) => x.role === STR.openaiCompletions.inPlaceToolsMessageRole || x.role === "system");
  assertEq(J(sysParams.map((x) => Object.keys(x))), J([["role", "content"], ["role", "tools"], ["role", "tools"], ["role", "content"]]), "completions system messages: prompt, in-place tools, in-place tools + update");
  assertEq(sysParams[0].content, "BASE", "completions leading prompt");
  assertEq(sysParams[3].content, update, "completions update text");
}
// --- AI/api/openai-responses.js ---
// `configuration_update` items from 1.3.0 (#10853).
STR.openaiResponses = /\bCONFIGURATION_UPDATE_REQUEST_EFFORT\b/.test(src(`${AI}/api/openai-responses.js`))
  ? { configurationUpdateEffort: lit(`${AI}/api/openai-responses.js`, /const CONFIGURATION_UPDATE_REQUEST_EFFORT = ("[^"]*");/g, { count: 1 }) }
  : {};
// --- AI/api/openai-codex-responses.js ---
// Until 1.6.0 (#12273) the leading system message's text goes to `instructions`, with a default;
// from 1.6.0 there is no instructions field (the prompt is an input item).
const codexInstructions = matchAll(F.codex, /instructions: instructions \|\| ("[^"]*"),/g, 0);
if (codexInstructions.length === 0) assert(!/You are a helpful assistant\./.test(src(F.codex)) && !/\binstructions:/.test(src(F.codex)), "codex: no instructions field any more (the prompt is an input item)");
else assertEq(codexInstructions.length, 1, "codex: one instructions field");
STR.openaiCodexResponses = {
  ...(codexInstructions.length ? { defaultInstructions: evalLiteral(codexInstructions[0][1]) } : {}),
  defaultTextVerbosity: lit(F.codex, /text: \{ verbosity: options\?\.textVerbosity \|\| ("[^"]*") \},/g, { count: 1 }),
  include: lits(F.codex, /include: \[("[^"]*")\],/g, { count: 1 }),
  ...(codexInstructions.length ? {} : { configurationUpdateEffort: lit(F.codex, /const CONFIGURATION_UPDATE_REQUEST_EFFORT = ("[^"]*");/g, { count: 1 }) }),
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
const BLOCK_BINDING = /\bTHINKING_BINDING_CONTROLS_BETA\b/.test(src(F.bedrock));
STR.bedrockConverseStream = {
  emptyTextPlaceholder: lit(F.bedrock, /const EMPTY_TEXT_PLACEHOLDER = ("[^"]*");/g, { count: 1 }),
  redactedThinkingPlaceholder: lit(F.bedrock, /const REDACTED_THINKING_PLACEHOLDER = ("[^"]*");/g, { count: 1 }),
  interleavedThinkingBeta: lit(F.bedrock, /result\.anthropic_beta = \[("[^"]*")\];/g, { count: 1 }),
  // `thinking.block_binding` from 1.0.1 (#10324).
  ...(BLOCK_BINDING ? { thinkingBindingControlsBeta: lit(F.bedrock, /const THINKING_BINDING_CONTROLS_BETA = ("[^"]*");/g, { count: 1 }) } : {}),
  // 1.0.1 on: `isGovCloud`; 0.86–0.87: `isGovCloudBedrockTarget(model, options)`.
  defaultThinkingDisplay: lit(F.bedrock, /const display = (?:isGovCloud|isGovCloudBedrockTarget\(model, options\)) \? undefined : \(options\.thinkingDisplay \?\? ("[^"]*")\);/g, { count: 1 }),
  ...(BLOCK_BINDING ? { blockBindingPrefixMismatchBehavior: lit(F.bedrock, /block_binding: \{ prefix_mismatch_behavior: ("[^"]*") \}/g, { count: 1 }) } : {}),
};
// Error tool-result images split for Claude from 1.3.0 (#10794).
if (/\bsplitErrorToolResultImages\b/.test(src(F.bedrock))) one(F.bedrock, /const split = isAnthropicClaudeModel\(model\) \? splitErrorToolResultImages\(toolMsg\) : undefined;/g);
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
  const tplOf = (re, ph) => evalTemplate(one(F.agentLoop, re)[1], ph).text;
  STR.agentLoop = {
    lengthStopToolResult: tplOf(/createErrorToolResult\((`Tool call "\$\{toolCall\.name\}" was not executed[^`]*`)\)/g, { "toolCall.name": "name" }),
    toolNotFound: tplOf(/createErrorToolResult\((`Tool \$\{toolCall\.name\} not found`)\)/g, { "toolCall.name": "name" }),
    operationAborted: lit(F.agentLoop, /createErrorToolResult\(("Operation aborted")\)/g, { count: 3 }),
    toolExecutionBlocked: lit(F.agentLoop, /createErrorToolResult\(beforeResult\.reason \|\| ("[^"]*")\)/g, { count: 1 }),
  };
}
notes.push(
  "strings.json: texts pi 1.6.0 inserts into request bodies, grouped by pi file (messages, sdk, agentSession, fileProcessor: CA; imageProcess, imageResize: CA/utils; text: AI/utils/text.js; transformMessages, openaiCompletions, anthropicMessages, openaiResponsesShared, openaiResponses, openaiCodexResponses, googleShared, bedrockConverseStream, mistralConversations: AI/api; agentLoop: CORE). Values with {name} placeholders are templates (the placeholder is not in pi's text); everything else is literal. 0.85.1 groups and keys are kept where the text still exists; openaiCodexResponses.defaultInstructions is gone (codex sends no instructions field).",
  "strings.json new in 1.6.0: text (renderSystemMessageUpdate/getSystemMessageText pieces), transformMessages.errorToolImagePlaceholder/errorToolImagesCaption (splitErrorToolResultImages: Anthropic, Claude on Bedrock), imageResize.dimensionNote ({scale} is originalWidth/width with toFixed(2)) and imageProcess (conversionHint, failure messages): the hints of prompt images and read results, agentSession.promptImageHints* (the user text is prompt + promptImageHintsSeparator + hints joined by promptImageHintsJoin when there are hints), fileProcessor.imageHintsJoin, openaiCompletions.inPlaceToolsMessageRole ({role, tools} message for in-place tool additions) and assistantTextJoin, anthropicMessages.deferredToolPlaceholder (the exact tool object appended after the initial tools with native tool changes), betas.inlineTools/messageThreads, messageThreadsDefaultHost (supportsMessageThreads defaults to true when model.baseUrl contains it), effortMessagesTopLevelEffort, defaultThinkingDisplay, blockBindingPrefixMismatchBehavior; openaiResponsesShared tool-change notices (incremental notice + stillUnavailable pieces, removal notice pieces, parts joined by systemPartsJoin) ; openaiResponses/openaiCodexResponses.configurationUpdateEffort (the fixed top-level reasoning.effort when configuration_update items carry the level); and the synthetic tool-search call id: pi_tool_load_{shortHash} of toolSearchCallIdHashInput with {seed} = toolSearchSeed and {names} joined by toolSearchCallIdNamesJoin.",
);

// =============================================================================================
// 4. models (the chat catalog)
// =============================================================================================
const manifestData = JSON.parse(fs.readFileSync(F.manifest, "utf8"));
const providers = AI_ALL.getBuiltinProviders();
const models = providers.flatMap((p) => AI_ALL.getBuiltinModels(p));
// Models carry their `type` (chat, image, classifier) in one catalog from 0.99; 0.86–0.87: the
// chat catalog alone (image models elsewhere), keyed by id.
const TYPED_MODELS = models.some((m) => "type" in m);
{
  // The provider objects pi registers serve the same models in the same order.
  const byProvider = new Map(AI_ALL.builtinProviders().map((p) => [p.id, p]));
  for (const p of providers) {
    const prov = byProvider.get(p);
    assert(prov, `builtin provider object for ${p}`);
    assertEq(J(prov.getModels()), J(AI_ALL.getBuiltinModels(p)), `provider ${p}: getModels() vs the catalog`);
  }
  assertEq(J([...byProvider.keys()].filter((p) => !providers.includes(p))), "[]", "every builtin provider object is in the catalog");
  // The chat models are exactly the data files' entries with type "chat", in file order.
  const dataDir = path.dirname(F.manifest);
  let chatInData = 0;
  for (const p of providers) {
    const file = path.join(dataDir, `${p}.json`);
    const groups = JSON.parse(fs.readFileSync(file, "utf8"));
    const chat = Object.values(groups).flatMap(Object.values).filter((m) => !TYPED_MODELS || m.type === "chat");
    for (const [k, m] of Object.values(groups).flatMap(Object.entries)) assertEq(k, TYPED_MODELS ? `${m.type}:${m.id}` : m.id, `${p}: data key is ${TYPED_MODELS ? "type:id" : "id"}`);
    assertEq(J(chat.map((m) => m.id)), J(AI_ALL.getBuiltinModels(p).map((m) => m.id)), `${p}: chat models of the data file, in order`);
    chatInData += chat.length;
  }
  assertEq(chatInData, models.length, "chat entries in the data files");
  const required = ["id", "name", "api", "provider", "baseUrl", "reasoning", "input", "cost", "contextWindow", "maxTokens", ...(TYPED_MODELS ? ["type"] : [])];
  const known = new Set([...required, "compat", "thinkingLevelMap", "headers", "inputLimits", "promptCache", "lab", "enabled", "providers", "free"]);
  const orders = new Set();
  const seenKeys = new Set();
  for (const m of models) {
    for (const k of required) assert(k in m, `${m.provider}/${m.id} has ${k}`);
    for (const k of Object.keys(m)) {
      assert(known.has(k), `${m.provider}/${m.id}: unexpected model key ${k}`);
      seenKeys.add(k);
    }
    if (TYPED_MODELS) assertEq(m.type, "chat", `${m.provider}/${m.id}: type`);
    orders.add(Object.keys(m).join(","));
  }
  // Keys a later catalog added (free; before 0.99: type, inputLimits) may be absent from an older one.
  const later = TYPED_MODELS ? ["free"] : ["free", "type", "inputLimits"];
  assertEq(J([...known].filter((k) => !seenKeys.has(k) && !later.includes(k))), "[]", "every known model key occurs");
  const ids = new Set(models.map((m) => `${m.provider}/${m.id}`));
  assertEq(ids.size, models.length, "provider/id pairs are unique");
  // pi-coding-agent's ModelRuntime (offline, no models.json) sees exactly this catalog, in dist and in the bundle.
  const { ModelRuntime } = await imp(`${CA}/core/model-runtime.js`);
  const { InMemoryCredentialStore } = await imp(`${AI}/auth/credential-store.js`);
  process.env.PI_OFFLINE = "1";
  try {
    const key = (m) => `${m.provider}/${m.id}`;
    for (const [what, MR] of [["dist", ModelRuntime], ["bundle", BUNDLE.ModelRuntime]]) {
      const runtime = await MR.create({ modelsPath: null, credentials: new InMemoryCredentialStore() });
      const seen = runtime.getModels();
      assertEq(J(seen.map(key)), J(models.map(key)), `${what} ModelRuntime model list (order)`);
      assertEq(J(seen), J(models), `${what} ModelRuntime model objects`);
    }
  } finally {
    delete process.env.PI_OFFLINE;
  }
  const nonChat = TYPED_MODELS ? providers.reduce((n, p) => n + AI_ALL.getBuiltinImageModels(p).length + AI_ALL.getBuiltinClassifierModels(p).length, 0) : 0;
  const withChat = new Set(models.map((m) => m.provider));
  notes.push(
    `models.json: the chat catalog (models with type "chat"; the ${nonChat} image and classifier models of the data files are left out: they never reach the chat adapters) in pi's order (providers as getBuiltinProviders(), models as getBuiltinModels(p)); each object keeps pi's own key order, which is not uniform (${orders.size} distinct key orders; e.g. openrouter starts with type, radius has lab/enabled/providers). Keys: ${[...known].join(", ")}. ${providers.length} catalog providers, ${withChat.size} with chat models (${providers.filter((p) => !withChat.has(p)).join(", ")} has none). Checked against the data files, the provider objects and ModelRuntime (offline, no models.json) in dist and the bundle.`,
  );
  if (CATALOG_COUNTS[PI_VERSION]) assertEq(providers.length, CATALOG_COUNTS[PI_VERSION][2], "getBuiltinProviders count");
}
const modelCount = models.length;
const providerCount = new Set(models.map((m) => m.provider)).size;
console.error(`models.json: ${modelCount} models / ${providerCount} providers`);
// The counts seen when each release was first extracted (models, providers with chat models,
// catalog providers): a later run of the same release must find the same catalog.
if (CATALOG_COUNTS[PI_VERSION]) {
  assertEq(modelCount, CATALOG_COUNTS[PI_VERSION][0], "model count");
  assertEq(providerCount, CATALOG_COUNTS[PI_VERSION][1], "provider count");
}

// =============================================================================================
// 5. defaults.json
// =============================================================================================
const defaults = {};
defaults.anthropicMessageThreadsDefaultProvider = threadsDefaultProvider;
const num = (file, re) => Number(one(file, re)[1]);
defaults.defaultThinkingLevel = CA_DEFAULTS.DEFAULT_THINKING_LEVEL;
defaults.thinkingLevels = [...CA_DEFAULTS.THINKING_LEVEL_OPTIONS];
defaults.defaultThinkingBudgets = { ...AI_SIMPLE.DEFAULT_THINKING_BUDGETS };
defaults.minAnswerTokens = AI_SIMPLE.MIN_ANSWER_TOKENS;
assertEq(num(F.simpleOptions, /export const MIN_ANSWER_TOKENS = (\d+);/g), defaults.minAnswerTokens, "MIN_ANSWER_TOKENS");
// --- clampMaxTokensToContext ---
defaults.contextSafetyTokens = num(F.simpleOptions, /const CONTEXT_SAFETY_TOKENS = (\d+);/g);
// The ratio margin from 1.5.1; before it the 0.85 shape (a fixed safety margin).
const ratioMargin = /const CONTEXT_SAFETY_RATIO = /.test(src(F.simpleOptions));
if (ratioMargin) {
  defaults.contextSafetyRatio = num(F.simpleOptions, /const CONTEXT_SAFETY_RATIO = (\d+(?:\.\d+)?);/g);
  defaults.minOutputWithRatioMargin = num(F.simpleOptions, /const MIN_OUTPUT_WITH_RATIO_MARGIN = (\d+);/g);
} else {
  one(F.simpleOptions, /const available = model\.contextWindow - estimateContextTokens\(context\)\.tokens - CONTEXT_SAFETY_TOKENS;\s*return Math\.min\(maxTokens, Math\.max\(MIN_MAX_TOKENS, available\)\);/g);
}
defaults.minMaxTokens = num(F.simpleOptions, /const MIN_MAX_TOKENS = (\d+);/g);
// --- estimateContextTokens ---
defaults.estimateCharsPerToken = num(F.estimate, /const CHARS_PER_TOKEN = (\d+(?:\.\d+)?);/g);
defaults.estimateImageChars = num(F.estimate, /const ESTIMATED_IMAGE_CHARS = (\d+);/g);
// The compaction settings pi uses without any in settings.json (getCompactionSettings()):
// pi compacts when the context passes contextWindow - reserveTokens (shouldCompact,
// CA/core/compaction/compaction.js) and keeps about keepRecentTokens of the newest messages.
defaults.compaction = SETTINGS.SettingsManager.inMemory({}).getCompactionSettings();
assertEq(Object.keys(defaults.compaction).join(), "enabled,reserveTokens,keepRecentTokens", "compaction settings keys");
{
  // The estimator and the clamp rebuilt from these constants, against pi's own functions.
  const C = defaults.estimateCharsPerToken;
  const tok = (n) => Math.ceil(n / C);
  const contentChars = (c) => (typeof c === "string" ? c.length : c.reduce((n, b) => n + (b.type === "text" ? b.text.length : defaults.estimateImageChars), 0));
  const toolsTok = (l) => (!l || l.length === 0 ? 0 : tok(JSON.stringify(l).length));
  const msgTok = (m) => {
    if (m.role === "system") return tok(AI_TEXT.getSystemMessageText(m).length) + toolsTok(m.toolsAdded) + toolsTok(m.toolsRemoved);
    if (m.role === "user" || m.role === "toolResult") return tok(contentChars(m.content));
    return tok(m.content.reduce((n, b) => n + (b.type === "text" ? b.text.length : b.type === "thinking" ? b.thinking.length : b.name.length + (JSON.stringify(b.arguments) ?? "undefined").length), 0));
  };
  const usageOf = (u) => u.totalTokens || u.input + u.output + u.cacheRead + u.cacheWrite;
  const estimate = (msgs) => {
    let latest = -Infinity;
    let info;
    msgs.forEach((m, i) => {
      if (m.role === "assistant" && m.timestamp >= latest && m.stopReason !== "aborted" && m.stopReason !== "error" && usageOf(m.usage) > 0) info = i;
      latest = Math.max(latest, m.timestamp);
    });
    if (info === undefined) return msgs.reduce((n, m) => n + msgTok(m), 0);
    return usageOf(msgs[info].usage) + msgs.slice(info + 1).reduce((n, m) => n + msgTok(m), 0);
  };
  const clamp = (model, msgs, mt) => {
    if (model.contextWindow <= 0) return Math.max(defaults.minMaxTokens, mt);
    const input = estimate(msgs);
    if (!ratioMargin) return Math.min(mt, Math.max(defaults.minMaxTokens, model.contextWindow - input - defaults.contextSafetyTokens));
    const margin = Math.max(defaults.contextSafetyTokens, Math.ceil(input * defaults.contextSafetyRatio));
    let room = model.contextWindow - input - margin;
    if (room < defaults.minOutputWithRatioMargin) room = Math.min(defaults.minOutputWithRatioMargin, model.contextWindow - input - defaults.contextSafetyTokens);
    return Math.min(mt, Math.max(defaults.minMaxTokens, room));
  };
  const usage = (t) => ({ input: t, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 });
  const sysMsg = (n) => ({ role: "system", content: "x".repeat(n), sections: { a: "b".repeat(n), gone: null }, toolsAdded: [{ name: "a", description: "b", parameters: {} }], toolsRemoved: [{ name: "z" }], timestamp: 10 });
  const contexts = [];
  for (const n of [0, 1, 349, 350, 35_000, 300_000, 3_500_000]) {
    contexts.push([sysMsg(n), { role: "user", content: "u".repeat(n), timestamp: 11 }]);
    contexts.push([
      { role: "user", content: [{ type: "text", text: "q".repeat(n) }, { type: "image", data: "", mimeType: "image/png" }], timestamp: 1 },
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "thinking", thinking: "t".repeat(n) }, { type: "toolCall", id: "c", name: "read", arguments: { path: "p" } }], usage: usage(n), stopReason: "toolUse", timestamp: 2 },
      { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "r".repeat(n) }], isError: false, timestamp: 3 },
      sysMsg(n),
      { role: "assistant", content: [{ type: "text", text: "b" }], usage: usage(n + 7), stopReason: "error", timestamp: 12 },
    ]);
  }
  let checked = 0;
  for (const msgs of contexts) {
    assertEq(AI_ESTIMATE.estimateContextTokens({ messages: msgs }).tokens, estimate(msgs), "estimateContextTokens rebuilt");
    for (const contextWindow of [0, 32768, 36000, 100_000, 262_144, 1_000_000]) {
      for (const mt of [1, 8000, 32000, 128_000]) {
        const model = { contextWindow, maxTokens: mt };
        assertEq(AI_SIMPLE.clampMaxTokensToContext(model, { messages: msgs }, mt), clamp(model, msgs, mt), "clampMaxTokensToContext rebuilt");
        checked++;
      }
    }
  }
  console.error(`defaults.json: estimator and max-token clamp rebuilt for ${contexts.length} contexts / ${checked} clamps`);
}
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
  assert(!("type" in m), "a custom model has no type key (it counts as chat)");
}
defaults.compatDeepMergeKeys = JSON.parse(one(F.providerComposer, /for \(const key of (\["[A-Za-z]+"(?:, "[A-Za-z]+")*\])\) \{/g)[1]);
defaults.defaultModelPerProvider = { ...MODEL_RESOLVER.defaultModelPerProvider };
// The env vars that give a built-in provider an API key (lib.mjs `apiKeyEnvVars`).
defaults.apiKeyEnvVars = await apiKeyEnvVars(AI_ALL, notes);
{
  const parseBudgetRules = (file) => {
    const fn = one(file, /function getGoogleBudget\(model, level, customBudgets\) \{([\s\S]*?)\n\}/g)[1];
    const rules = [...fn.matchAll(/if \(model\.id\.includes\(("[^"]*")\)\) \{\s*const budgets = \{([^}]*)\};\s*return budgets\[level\];\s*\}/g)].map((r) => ({
      idIncludes: evalLiteral(r[1]),
      budgets: Object.fromEntries([...r[2].matchAll(/(\w+): (\d+),/g)].map((b) => [b[1], Number(b[2])])),
    }));
    assert(rules.length >= 2, "google budget rules");
    assertEq((fn.match(/model\.id\.includes/g) ?? []).length, rules.length, "every getGoogleBudget rule parsed");
    const fallback = Number(/return budgets\[level\];\s*\}\s*return (-?\d+);\s*$/.exec(fn)[1]);
    return { rules, fallback };
  };
  defaults.googleGenerativeAiThinkingBudgets = parseBudgetRules(F.googleGenAi);
  defaults.googleVertexThinkingBudgets = parseBudgetRules(F.googleVertex);
  const b = one(F.bedrock, /const defaultBudgets = \{([^}]*)\};/g)[1];
  defaults.bedrockDefaultThinkingBudgets = objectLiteral(`{${b}}`, "bedrock defaultBudgets");
  assertEq(J(Object.keys(defaults.bedrockDefaultThinkingBudgets)), J(["minimal", "low", "medium", "high", "xhigh", "max"]), "bedrock default budgets keys");
  // Bedrock: effort for OpenAI GPT models, Claude id substrings per feature (matched against the id and name candidates).
  // OpenAI models' effort from 1.1.0 (#9331, #10142).
  if (/\bOPENAI_GPT_EFFORT\b/.test(src(F.bedrock))) {
    defaults.bedrockOpenAiGptEffort = objectLiteral(one(F.bedrock, /const OPENAI_GPT_EFFORT = (\{[^}]*\});/g)[1], "OPENAI_GPT_EFFORT");
    defaults.bedrockOpenAiGptOssEffort = objectLiteral(one(F.bedrock, /const OPENAI_GPT_OSS_EFFORT = (\{[^}]*\});/g)[1], "OPENAI_GPT_OSS_EFFORT");
  }
  const substrings = (fn, sig) => {
    const body = one(F.bedrock, new RegExp(`function ${fn}\\(${sig}\\) \\{\\s*const candidates = getModelMatchCandidates\\(model(?:Id|\\.id), model(?:Name|\\.name)\\);\\s*return candidates\\.some\\(\\(s\\) => ([^;]*)\\);\\s*\\}`, "g"))[1];
    const list = [...body.matchAll(/s\.includes\(("[^"]*")\)/g)].map((m) => evalLiteral(m[1]));
    assertEq(body.replace(/s\.includes\("[^"]*"\)/g, "").replace(/\|\|/g, "").trim(), "", `${fn}: only s.includes(...) alternatives`);
    return list;
  };
  defaults.bedrockClaudeAdaptiveThinkingIds = substrings("supportsAdaptiveThinking", "modelId, modelName");
  defaults.bedrockClaudeNativeXhighIds = substrings("supportsNativeXhighEffort", "model");
  // `thinking.block_binding` from 1.0.1 (#10324).
  if (/\bfunction supportsThinkingBlockBinding\(/.test(src(F.bedrock))) defaults.bedrockClaudeThinkingBlockBindingIds = substrings("supportsThinkingBlockBinding", "model");
}
// --- effort by thinking level when the model's thinkingLevelMap has no string for it (a `switch (level)`) ---
{
  const switchTable = (file, pre) => {
    const body = one(file, new RegExp(`function mapThinkingLevelToEffort\\(model, level\\) \\{\\s*${pre}switch \\(level\\) \\{([^}]*)\\}\\s*\\}`, "g"))[1];
    const table = {};
    let pending = [];
    const tok = /\s*(?:case ("[^"]*"):|(default):|return ("[^"]*");)/y;
    let m;
    let end = 0;
    while ((m = tok.exec(body))) {
      end = tok.lastIndex;
      if (m[1]) pending.push(evalLiteral(m[1]));
      else if (m[2]) pending.push("default");
      else {
        assert(pending.length > 0, "a return after its cases");
        for (const k of pending) table[k] = evalLiteral(m[3]);
        pending = [];
      }
    }
    assertEq(body.slice(end).trim(), "", "the whole switch parsed");
    assertEq(pending.length, 0, "every case returns");
    return table;
  };
  const mapped = String.raw`const mapped = level \? model\.thinkingLevelMap\?\.\[level\] : undefined;\s*if \(typeof mapped === "string"\)\s*return mapped;\s*`;
  defaults.anthropicEffortByLevel = switchTable(F.anthropic, mapped);
  defaults.bedrockClaudeEffortByLevel = switchTable(F.bedrock, String.raw`if \(level === "xhigh" && supportsNativeXhighEffort\(model\)\)\s*return "xhigh";\s*` + mapped);
  assertEq(J(Object.keys(defaults.anthropicEffortByLevel)), J(["minimal", "low", "medium", "high", "default"]), "anthropic effort table keys");
}
// --- strict JSON-schema sampling (AI/api/constrained-sampling.js) and Anthropic's extra rejections ---
{
  defaults.strictUnsupportedSchemaKeys = stringArray(one(F.constrained, /const UNSUPPORTED_STRICT_SCHEMA_KEYS = \[([^\]]*)\];/g)[1], "UNSUPPORTED_STRICT_SCHEMA_KEYS");
  // Anthropic's own strict-schema rejections from 0.99.2 (#9953).
  if (/\bANTHROPIC_STRICT_UNSUPPORTED_KEYWORDS\b/.test(src(F.anthropic))) {
  defaults.anthropicStrictUnsupportedKeywords = stringArray(one(F.anthropic, /const ANTHROPIC_STRICT_UNSUPPORTED_KEYWORDS = new Set\(\[([^\]]*)\]\);/g)[1], "ANTHROPIC_STRICT_UNSUPPORTED_KEYWORDS");
  defaults.anthropicStrictStringFormats = stringArray(one(F.anthropic, /const ANTHROPIC_STRICT_STRING_FORMATS = new Set\(\[([^\]]*)\]\);/g)[1], "ANTHROPIC_STRICT_STRING_FORMATS");
  const mi = one(F.anthropic, /if \(key === "minItems"\)\s*return value !== (\d+) && value !== (\d+);/g);
  defaults.anthropicStrictMinItemsAllowed = [Number(mi[1]), Number(mi[2])];
  one(F.anthropic, /if \(key === "format"\)\s*return typeof value !== "string" \|\| !ANTHROPIC_STRICT_STRING_FORMATS\.has\(value\);/g);
  }
  // The strict rewrite of the built-in schemas, checked through pi's own makeStrictJsonSchema.
  for (const t of toolsJson) {
    const strict = AI_CONSTRAINED.makeStrictJsonSchema(t.parameters);
    assertEq(J(Object.keys(strict).slice(0, Object.keys(t.parameters).length)), J(Object.keys(t.parameters)), `${t.name}: strict schema keeps the key order (new keys appended)`);
    assertEq(J(strict.required), J(Object.keys(t.parameters.properties)), `${t.name}: strict required = every property`);
    assertEq(strict.additionalProperties, false, `${t.name}: strict additionalProperties`);
  }
  for (const k of defaults.strictUnsupportedSchemaKeys) {
    let threw = false;
    try {
      AI_CONSTRAINED.makeStrictJsonSchema({ type: "object", properties: { x: { type: "string", [k]: k === "not" ? {} : [] } } });
    } catch {
      threw = true;
    }
    assert(threw, `strict rewrite rejects ${k}`);
  }
}
// --- Gemini const -> enum rewrite (AI/api/google-shared.js) ---
// (1.5.0, #11308; before it no rewrite)
if (/function rewriteConstAsEnum\(/.test(src(F.googleShared))) {
  defaults.googleSchemaNameMaps = stringArray(one(F.googleShared, /const JSON_SCHEMA_NAME_MAPS = new Set\(\[([^\]]*)\]\);/g)[1], "JSON_SCHEMA_NAME_MAPS");
  defaults.googleSchemaSubschemaKeys = stringArray(one(F.googleShared, /const JSON_SCHEMA_SUBSCHEMAS = new Set\(\[([^\]]*)\]\);/g)[1], "JSON_SCHEMA_SUBSCHEMAS");
}
// --- image resize defaults (prompt images, read results; overridden by model.inputLimits.images.resize) ---
{
  const mb = one(F.imageResizeCore, /const DEFAULT_MAX_BYTES = (\d+(?:\.\d+)?) \* 1024 \* 1024;/g);
  const o = one(F.imageResizeCore, /const DEFAULT_OPTIONS = \{\s*maxWidth: (\d+),\s*maxHeight: (\d+),\s*maxBytes: DEFAULT_MAX_BYTES,\s*jpegQuality: (\d+),\s*\};/g);
  defaults.imageResizeDefaults = { maxWidth: Number(o[1]), maxHeight: Number(o[2]), maxBytes: Number(mb[1]) * 1024 * 1024, jpegQuality: Number(o[3]) };
  assert(Number.isInteger(defaults.imageResizeDefaults.maxBytes), "image maxBytes is whole");
}
// --- the AWS SDK version its Bedrock User-Agent names (dist-cjs, not package.json) ---
{
  defaults.awsSdkUserAgentVersion = one(F.awsClient, /^var version = "(\d+\.\d+\.\d+)";$/gm)[1];
  one(F.awsClient, /^var packageInfo = \{\s*version\b/gm);
  const inBundle = bundleChunks.flatMap((f) => [...src(f).matchAll(/version="(\d+\.\d+\.\d+)",packageInfo=\{version\}/g)].map((m) => m[1]));
  assert(inBundle.length >= 1, "the bundle's Bedrock client version");
  for (const v of inBundle) assertEq(v, defaults.awsSdkUserAgentVersion, "bundle's AWS SDK UA version = dist-cjs's");
  const pkgV = pkgVersion(NM, "@aws-sdk/client-bedrock-runtime");
  notes.push(`defaults.json awsSdkUserAgentVersion: ${defaults.awsSdkUserAgentVersion} is what the Bedrock requests' User-Agent names (aws-sdk-js/X, api/bedrock-runtime#X): read from @aws-sdk/client-bedrock-runtime/dist-cjs/index.js (var version = ...), which both the import and the bundle run; its package.json says ${pkgV} (sdks.json keeps the package.json version).`);
}
// --- client identity (User-Agent, attribution headers: AI/utils/identity.js) ---
if (!HAS_IDENTITY) {
  one(`${AI}/utils/pi-user-agent.js`, /return nodeOs \? `pi \(\$\{nodeOs\.platform\(\)\} \$\{nodeOs\.release\(\)\}; \$\{nodeOs\.arch\(\)\}\)` : "pi \(browser\)";/g);
} else {
  const product = evalTemplate(one(F.identity, /const product = (`[^`]*`);/g)[1], { "getClientVersion(identity)": "version" }).text;
  const [, detailedTpl, browserTpl] = one(F.identity, /return runtime \? (`[^`]*`) : (`[^`]*`);/g);
  const detailed = evalTemplate(detailedTpl, { product: "product", "process.platform": "platform", runtime: "runtime", "process.arch": "arch" }).text;
  const browser = evalTemplate(browserTpl, { product: "product" }).text;
  const nodeRuntime = evalTemplate(one(F.identity, /return (`node\/\$\{process\.version\}`);/g)[1], { "process.version": "nodeVersion" }).text;
  const sub = (t, o) => Object.entries(o).reduce((s, [k, v]) => s.split(`{${k}}`).join(v), t);
  const ua = sub(sub(detailed, { product: product, runtime: nodeRuntime }), { version: "9.9.9", platform: process.platform, nodeVersion: process.version, arch: process.arch });
  assertEq(AI_IDENTITY.formatUserAgent({ userAgent: "detailed", version: "9.9.9" }), ua, "detailed User-Agent rebuilt");
  defaults.clientIdentity = {
    userAgentDetailed: sub(detailed, { product, runtime: nodeRuntime }),
    userAgentBrowser: sub(browser, { product }),
    userAgentShort: lit(F.identity, /if \(mode === "short"\)\s*return ("[^"]*");/g, { count: 1 }),
    attribution: JSON.parse(JSON.stringify(AI_IDENTITY.PI_ATTRIBUTION)),
  };
  assertEq(AI_IDENTITY.formatUserAgent({ userAgent: "short" }), defaults.clientIdentity.userAgentShort, "short User-Agent");
  const bundleUa = await bundleExport("formatUserAgent");
  assertEq(bundleUa({ userAgent: "detailed", version: "9.9.9" }), ua, "bundle formatUserAgent");
  assertEq(J((await bundleExport("getAttributionHeaders"))({ provider: "openrouter", baseUrl: "" }, { attribution: defaults.clientIdentity.attribution })), J(AI_IDENTITY.getAttributionHeaders({ provider: "openrouter", baseUrl: "" }, { attribution: AI_IDENTITY.PI_ATTRIBUTION })), "bundle attribution headers");
  // The coding agent's identity: detailed, its own VERSION, attribution while install telemetry is on.
  one(`${CA}/core/client-identity.js`, /userAgent: "detailed",\s*version: VERSION,\s*attribution: isInstallTelemetryEnabled\(settingsManager\) \? PI_ATTRIBUTION : null,/g);
}
notes.push(
  "defaults.json (0.85.1 keys kept): defaultThinkingLevel, thinkingLevels, defaultThinkingBudgets, minAnswerTokens, contextSafetyTokens, minMaxTokens, customModel (a models.json model with only an id: keyOrder, defaults, keys left undefined unless set; no type key), compatDeepMergeKeys, defaultModelPerProvider, googleGenerativeAiThinkingBudgets / googleVertexThinkingBudgets (getGoogleBudget: first rule whose idIncludes is in model.id, else fallback), bedrockDefaultThinkingBudgets.",
  "defaults.json max-token clamp (AI/api/simple-options.js clampMaxTokensToContext): contextWindow <= 0 -> max(minMaxTokens, maxTokens); else input = estimate, margin = max(contextSafetyTokens, ceil(input * contextSafetyRatio)), room = contextWindow - input - margin, and if room < minOutputWithRatioMargin then room = min(minOutputWithRatioMargin, contextWindow - input - contextSafetyTokens); result min(maxTokens, max(minMaxTokens, room)). Estimator (AI/utils/estimate.js): per message ceil(chars / estimateCharsPerToken), an image counts estimateImageChars; a system message is ceil(len(getSystemMessageText)/C) + ceil(len(JSON(toolsAdded))/C) + ceil(len(JSON(toolsRemoved))/C) (0 for an absent/empty list); the last assistant with usage > 0, stopReason not aborted/error and a timestamp >= every earlier message's supplies the base. Both rebuilt from these constants and checked against pi's functions.",
  "defaults.json adapter tables: anthropicEffortByLevel / bedrockClaudeEffortByLevel (mapThinkingLevelToEffort for adaptive-thinking Claude: a string in model.thinkingLevelMap[level] wins, else this table, key default for any other level; Bedrock first sends xhigh as is for bedrockClaudeNativeXhighIds models), bedrockOpenAiGptEffort (reasoning.effort for gpt- models when the thinkingLevelMap has no string), bedrockOpenAiGptOssEffort (reasoning_effort for gpt-oss), bedrockClaudeAdaptiveThinkingIds / NativeXhighIds / ThinkingBlockBindingIds (substrings of the id/name candidates: adaptive thinking, native xhigh effort, block_binding + thinking-binding beta); strictUnsupportedSchemaKeys (any of these in a node makes the strict rewrite fail -> the tool goes non-strict, or throws for strict:\"require\"); anthropicStrictUnsupportedKeywords / anthropicStrictStringFormats / anthropicStrictMinItemsAllowed (Anthropic's extra rejections: any listed key, minItems other than the allowed values, format not in the list); googleSchemaNameMaps / googleSchemaSubschemaKeys (Gemini's const -> enum rewrite recurses into these); imageResizeDefaults (processImage resize defaults, overridden by model.inputLimits.images.resize); clientIdentity (User-Agent templates and the attribution pi passes while install telemetry is on).",
);

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
  collect({ ...promptJson, packagePaths: undefined, extensionSectionNamePattern: undefined }, "prompt"); // packagePaths come from path.join(dir, "README.md") etc.
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
  assert(bundleText.includes(`/${P.extensionSectionNamePattern}/`), "the bundle's section name pattern");
  console.error(`bundle check: ${checked} text fragments of prompt.json/strings.json found in dist/bundle`);
}

// =============================================================================================
// Optional: check against a captured body (openai-completions or anthropic-messages, collapsed
// system prompt): built-in tools byte for byte, and the system prompt parsed into its sections
// and rebuilt from prompt.json.
// =============================================================================================
function checkCapturedBody(bodyPath) {
  const raw = fs.readFileSync(bodyPath, "utf8");
  const body = JSON.parse(raw);
  const env = JSON.parse(fs.readFileSync(path.join(path.dirname(bodyPath), "env.json"), "utf8"));
  const byLower = new Map(toolsJson.map((t) => [t.name.toLowerCase(), t]));
  const report = [];
  let names;
  if (Array.isArray(body.tools) && body.tools.every((t) => t.type === "function" && t.function)) {
    names = body.tools.map((t) => t.function.name);
    for (const t of body.tools) {
      const ours = toolByName.get(t.function.name);
      if (!ours) continue;
      assertEq(J(t.function.description), J(ours.description), `${bodyPath}: ${ours.name} description`);
      const params = t.function.strict === true ? AI_CONSTRAINED.makeStrictJsonSchema(ours.parameters) : ours.parameters;
      assertEq(J(t.function.parameters), J(params), `${bodyPath}: ${ours.name} parameters${t.function.strict === true ? " (strict)" : ""}`);
      assert(raw.includes(`"name":${J(ours.name)},"description":${J(ours.description)},"parameters":${J(params)}`), `${bodyPath}: raw bytes of the ${ours.name} tool`);
      report.push(ours.name);
    }
  } else if (Array.isArray(body.tools) && body.tools.every((t) => typeof t.name === "string" && t.input_schema)) {
    names = body.tools.map((t) => byLower.get(t.name.toLowerCase())?.name ?? t.name).filter((n) => n !== STR.anthropicMessages.deferredToolPlaceholder.name);
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
    if (body.tools !== undefined) console.error(`capture check: ${bodyPath}: no tools[] in a known shape, tools not checked`);
    names = [];
  }
  let sysText;
  const first = body.messages?.[0];
  if (first && (first.role === "system" || first.role === "developer") && typeof first.content === "string") sysText = first.content;
  else if (Array.isArray(body.system)) sysText = body.system.map((b) => b.text).find((t) => t.startsWith(P.preamble)) ?? body.system.at(-1)?.text;
  const skip = (why) => console.error(`capture check OK: ${bodyPath}: tools ${report.join(",") || "(none)"} match; system prompt not checked (${why})`);
  if (typeof sysText !== "string") return skip("no system prompt found");
  if (!sysText.startsWith(P.preamble + P.sectionJoin)) return skip("custom system prompt");
  if (names.some((n) => !toolByName.has(n))) return skip("non-built-in tools");
  // Split the prompt into its sections with the pieces themselves.
  const sections = { [SN.preamble]: P.preamble };
  let rest = sysText.slice(P.preamble.length + P.sectionJoin.length);
  while (rest.length > 0) {
    const name = /^<([a-z][a-z0-9_-]*)>\n/.exec(rest)?.[1];
    assert(name && rest.startsWith(openOf(name)), `${bodyPath}: a section opens at ${J(rest.slice(0, 40))}`);
    let at = openOf(name).length;
    for (;;) {
      const i = rest.indexOf(closeOf(name), at);
      assert(i >= 0, `${bodyPath}: section ${name} closes`);
      const end = i + closeOf(name).length;
      if (end === rest.length || rest.startsWith(P.sectionJoin + "<", end)) {
        sections[name] = rest.slice(0, end);
        rest = end === rest.length ? "" : rest.slice(end + P.sectionJoin.length);
        break;
      }
      at = i + 1;
    }
  }
  const content = (n) => (sections[n] === undefined ? undefined : unwrap(n, sections[n]));
  const files = [];
  if (content(SN.projectContext) !== undefined) {
    let r = stripPrefix(content(SN.projectContext), P.projectContextHeader, "project context header");
    while (r.length > 0) {
      r = stripPrefix(stripPrefix(r, P.projectContextJoin, "context join"), P.projectInstructionsOpenPrefix, "instructions open");
      const i = r.indexOf(P.projectInstructionsOpenSuffix);
      const p = r.slice(0, i);
      r = r.slice(i + P.projectInstructionsOpenSuffix.length);
      let j = r.indexOf(P.projectInstructionsClose);
      while (j >= 0 && !(j + P.projectInstructionsClose.length === r.length || r.startsWith(P.projectContextJoin + P.projectInstructionsOpenPrefix, j + P.projectInstructionsClose.length))) j = r.indexOf(P.projectInstructionsClose, j + 1);
      files.push({ path: p, content: r.slice(0, j) });
      r = r.slice(j + P.projectInstructionsClose.length);
    }
  }
  const skills = [];
  if (content(SN.skills) !== undefined) {
    const unescape = (x) => [...P.skills.xmlEscapes].reverse().reduce((acc, [c, e]) => acc.split(e).join(c), x);
    const lines = content(SN.skills).split(P.skills.lineJoin);
    for (let i = 5; i + 4 < lines.length; i += 5) {
      const field = (line, pre, suf) => unescape(stripSuffix(stripPrefix(line, pre, "skill line"), suf, "skill line"));
      skills.push({
        name: field(lines[i + 1], P.skills.namePrefix, P.skills.nameSuffix),
        description: field(lines[i + 2], P.skills.descriptionPrefix, P.skills.descriptionSuffix),
        filePath: field(lines[i + 3], P.skills.locationPrefix, P.skills.locationSuffix),
      });
    }
  }
  // The active order is the <tools> listing's (every built-in has a snippet); the body's tools[] is
  // the transcript's replay order, which may differ after a resume.
  let selectedTools = names;
  const listed = unwrap(SN.tools, sections[SN.tools]);
  if (!listed.startsWith(P.noTools + P.toolsTail)) {
    selectedTools = stripSuffix(listed, P.toolsTail, "tools tail").split(P.toolsListJoin).map((l) => stripPrefix(l, P.toolsListItemPrefix, "tool item").split(P.toolsListItemSeparator)[0]);
    assertEq(J([...selectedTools].sort()), J([...names].sort()), `${bodyPath}: the listed tools are the body's tools`);
  }
  const o = {
    selectedTools,
    toolSnippets: Object.fromEntries(toolsJson.map((t) => [t.name, norm._normalizePromptSnippet(t.promptSnippet ?? undefined)]).filter(([, s]) => s)),
    toolGuidelines: Object.fromEntries(toolsJson.map((t) => [t.name, norm._normalizePromptGuidelines(t.promptGuidelines ?? undefined)])),
    appendSystemPrompt: content(SN.addendum),
    contextFiles: files,
    skills,
    cwd: env.cwd,
  };
  const rebuilt = rebuildText(P, rebuildSections(P, o, env.piPackageDir));
  if (rebuilt !== sysText) fail(`${bodyPath}: system prompt differs\n--- captured:\n${sysText}\n--- rebuilt:\n${rebuilt}`);
  process.env.PI_PACKAGE_DIR = env.piPackageDir;
  assertEq(SYSTEM_PROMPT.buildSystemPrompt(o), sysText, `${bodyPath}: pi's own buildSystemPrompt on the parsed options`);
  process.env.PI_PACKAGE_DIR = PKG;
  console.error(
    `capture check OK: ${bodyPath}: tools ${report.join(",") || "(none)"} match; system prompt rebuilt byte for byte (sections ${Object.keys(sections).join(",")}; ${files.length} context file(s), ${skills.length} skill(s))`,
  );
}
for (const bodyPath of CHECK_BODY.split(":").filter(Boolean)) checkCapturedBody(bodyPath);
delete process.env.PI_PACKAGE_DIR;

export const files = {
  "tools.json": toolsJson,
  "prompt.json": promptJson,
  "strings.json": STR,
  "defaults.json": defaults,
};
export { models, notes, versions as packages, manifestData as catalogManifest };
