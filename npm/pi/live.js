// What pi holds at this moment, as the inputs of the `ctxlens` command line: the session as pi
// has it in memory (its header and entries, written out as the JSONL pi writes), the extension
// tools from pi's own tool registry, the pi flags that shape the request, and the running pi's
// package folder. Everything is written into a private scratch folder (mode 0700) that is
// removed when pi exits; nothing is sent anywhere.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const PI_PACKAGE = "@earendil-works/pi-coding-agent";

/** pi's flags that change the request and take a value (as `ctxlens` passes them to the rebuilt pi). */
const VALUE_FLAGS = new Set(["--tools", "-t", "--exclude-tools", "-xt", "--system-prompt", "--append-system-prompt", "--skill", "--prompt-template", "--api-key", "--extension", "-e"]);
/** pi's flags that change the request and take none. */
const SWITCHES = new Set(["--no-tools", "-nt", "--no-builtin-tools", "-nbt", "--no-context-files", "-nc", "--no-skills", "-ns", "--no-prompt-templates", "-np", "--approve", "-a", "--no-approve", "-na", "--no-extensions", "-ne", "--offline"]);
/** pi's flags whose value is left out: the model and level come from the session, the rest do not shape the request. */
const SKIPPED_WITH_VALUE = new Set(["--model", "--thinking", "--provider", "--models", "--mode", "--session", "--session-id", "--fork", "--session-dir", "--export", "--theme", "--name", "-n", "--use-theme"]);

/**
 * The flags of pi's command line (`argv`, without node and the script) that shape the request:
 * the tool selection, system prompt files, context files, skills, prompt templates, the packages
 * given with `-e`, trust, `--offline` and `--api-key`. Messages, `@file` arguments (already in the session) and the rest are left out.
 */
export function requestFlags(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    const eq = a.indexOf("=");
    const name = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
    if (VALUE_FLAGS.has(name)) {
      if (eq > 0 && a.startsWith("--")) out.push(name, a.slice(eq + 1));
      else if (i + 1 < argv.length) out.push(a, argv[++i]);
    } else if (SWITCHES.has(a)) {
      out.push(a);
    } else if (SKIPPED_WITH_VALUE.has(a)) {
      i++;
    }
  }
  return out;
}

const found = new Map();

/** The running pi's package folder and release, found from its script (`process.argv[1]`) up (once per script). */
export function runningPi(script = process.argv[1]) {
  if (!found.has(script)) found.set(script, findPi(script));
  return found.get(script);
}

function findPi(script) {
  let dir;
  try {
    dir = path.dirname(fs.realpathSync(script));
  } catch {
    return null;
  }
  for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (!fs.existsSync(file)) continue;
    try {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
      if (pkg.name === PI_PACKAGE) return { dir, version: String(pkg.version) };
    } catch {
      // not a package.json we can read: keep going up
    }
  }
  return null;
}

/**
 * The session as pi holds it now: its header and every entry, one JSON a line, as pi writes the
 * file. An entry too deep for JSON.stringify (pi could not have written it either: it came in
 * the file) falls back to the file pi keeps.
 */
export function sessionText(sessionManager) {
  const header = sessionManager.getHeader?.();
  try {
    const lines = header ? [JSON.stringify(header)] : [];
    for (const e of sessionManager.getEntries()) lines.push(JSON.stringify(e));
    return `${lines.join("\n")}\n`;
  } catch (e) {
    const file = sessionManager.getSessionFile?.();
    if (file && fs.existsSync(file)) return fs.readFileSync(file, "utf8");
    throw e;
  }
}

/**
 * The extension tools pi would declare now, from its tool registry (`getAllTools`: the active
 * ones that are not pi's own), each with its prompt snippet from the last system prompt pi
 * built (`before_agent_start`'s `systemPromptOptions.toolSnippets`).
 */
export function extensionTools(pi, promptOptions) {
  const active = new Set(pi.getActiveTools?.() ?? []);
  const snippets = promptOptions?.toolSnippets ?? {};
  const tools = [];
  for (const t of pi.getAllTools?.() ?? []) {
    const source = t.sourceInfo?.source;
    if (source === "builtin" || source === "sdk" || !active.has(t.name)) continue;
    const tool = { name: t.name, description: t.description ?? "", parameters: t.parameters ?? { type: "object", properties: {} } };
    if (typeof snippets[t.name] === "string") tool.promptSnippet = snippets[t.name];
    if (Array.isArray(t.promptGuidelines)) tool.promptGuidelines = t.promptGuidelines;
    // The package that registered it (its settings source, or "cli" for -e), for the per-package cost.
    if (typeof source === "string") tool.sourceInfo = { source };
    tools.push(tool);
  }
  return tools;
}

/** A private folder for the files the command line reads (mode 0700), removed with `remove()` or when the process exits. */
export function scratch() {
  let dir = null;
  const remove = () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = null;
  };
  process.once("exit", remove);
  const root = () => (dir ??= fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-pi-")));
  return {
    /** Writes `name` (a relative path, "/"-separated) in the folder; returns its path. */
    write(name, bytes) {
      const p = path.join(root(), ...name.split("/").filter((s) => s && s !== ".." && s !== "."));
      fs.mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
      fs.writeFileSync(p, bytes, { mode: 0o600 });
      return p;
    },
    path: (name) => path.join(root(), name),
    clear: (name) => fs.rmSync(path.join(root(), name), { recursive: true, force: true }),
    remove,
  };
}

/**
 * A snapshot of what the request is built from, taken now (pi moves on: the answer is appended
 * while the request is out): the session's text and file name, the extension tools, the flags,
 * the time, and the running pi.
 */
export function snapshot(pi, ctx, promptOptions) {
  const sm = ctx.sessionManager;
  const file = sm.getSessionFile?.();
  return {
    session: sessionText(sm),
    sessionName: file ? path.basename(file) : "session.jsonl",
    sessionId: sm.getSessionId?.() ?? "",
    tools: extensionTools(pi, promptOptions),
    flags: requestFlags(process.argv.slice(2)),
    model: ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : null,
    baseUrl: typeof ctx.model?.baseUrl === "string" ? ctx.model.baseUrl : "",
    api: typeof ctx.model?.api === "string" ? ctx.model.api : "",
    thinking: typeof pi.getThinkingLevel === "function" ? pi.getThinkingLevel() : null,
    now: Date.now(),
    pi: runningPi(),
    cwd: ctx.cwd ?? process.cwd(),
  };
}

/**
 * The command line for a snapshot: `[COMMAND] SESSION [--tool-set FILE] --now MS --pi-dir DIR
 * [extra] [pi's flags]`, its files written into `files` (a scratch folder). The tool set is pi's
 * registry as it is: an empty list when no extension registered a tool.
 */
export function cliArgs(snap, files, command, extra = []) {
  const session = files.write(snap.sessionName, snap.session);
  const argv = [...(command ? [command] : []), session];
  argv.push("--tool-set", files.write("extension-tools.json", JSON.stringify(snap.tools)));
  argv.push("--now", String(snap.now));
  // The model and thinking level pi uses now: a resumed session's entries need not say them
  // (pi started with --model or --thinking records no change for a resumed session).
  if (snap.model) argv.push("--model", snap.model);
  if (snap.thinking) argv.push("--thinking", snap.thinking);
  if (snap.model || snap.thinking) argv.push("--running-pi");
  if (snap.pi) argv.push("--pi-dir", snap.pi.dir);
  return [...argv, ...extra, ...snap.flags];
}
