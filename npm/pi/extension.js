// ctxlens as a pi extension (the package's `pi` key): `/ctxlens`, `/ctxlens open`, `/ctxlens
// whatif SPEC…` and `/ctxlens check [on|off]`, and the live check on `before_provider_request`.
// Each runs the `ctxlens` command line (the package's Node wasm) on what pi holds now: the
// session in memory, the tools in pi's registry, pi's own flags and package folder (live.js).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCliCaptured } from "../node.js";
import { piVersions } from "../api.js";
import { snapshot, cliArgs, scratch, runningPi } from "./live.js";
import { createCheck, defaultDir } from "./check.js";
import { safe, windowLine, whatifText, USAGE } from "./show.js";

/** The first release with the hooks the extension uses (`before_provider_request`, `before_agent_start`'s prompt options). */
const FIRST_WITH_HOOKS = "0.85.1";

export default function ctxlens(pi) {
  const files = scratch();
  const release = runningPi();
  const support = supportOf(release);
  let promptOptions = null;
  let lastCtx = null;
  let server = null;
  const say = (text, level = "info") => tell(lastCtx, text, level);
  const check = createCheck({ run: runCliCaptured, files, say });
  const settings = readSettings();
  check.state.dir = settings.checkDir ?? defaultDir();
  if (settings.check === true && support.check) enableCheck(check);

  pi.on("before_agent_start", (event) => {
    promptOptions = event?.systemPromptOptions ?? promptOptions;
  });
  pi.on("session_start", (_event, ctx) => {
    lastCtx = ctx;
    if (support.note) tell(ctx, support.note, "warning");
  });
  pi.on("before_provider_request", (event, ctx) => {
    lastCtx = ctx;
    try {
      if (check.state.on) check.onRequest(snapshot(pi, ctx, promptOptions), event?.payload);
    } catch (e) {
      tell(ctx, `ctxlens: the live check could not take this request's inputs: ${e?.message ?? e}`, "error");
    }
    return undefined;
  });
  // pi 0.86+ keeps prompt caches warm by re-sending the last request (a one-token cap): the
  // decision comes first, and a real request comes with a turn.
  pi.on("cache_warming_decision", (event) => {
    check.refreshDue(event?.action === "warm");
  });
  pi.on("turn_start", () => check.refreshDue(false));
  pi.on("session_shutdown", (_event, ctx) => {
    server?.close();
    server = null;
    check.flush();
    const s = check.state;
    if (s.on && ctx && !ctx.hasUI && s.requests > 0) process.stderr.write(`${checkStatus(s)}\n`);
    files.remove();
  });

  pi.registerCommand("ctxlens", {
    description: "What the request pi sends is made of (ctxlens): summary, open, whatif, usage, check",
    getArgumentCompletions: (prefix) => {
      const items = ["open", "whatif ", "usage", "usage --by week", "check", "check on", "check off"].filter((v) => v.startsWith(prefix ?? ""));
      return items.length ? items.map((v) => ({ value: v, label: v.trim() })) : null;
    },
    handler: async (args, ctx) => {
      lastCtx = ctx;
      try {
        command(ctx, String(args ?? "").trim().split(/\s+/).filter(Boolean));
      } catch (e) {
        tell(ctx, `ctxlens: ${e?.message ?? e}`, "error");
      }
    },
  });

  function command(ctx, [sub, ...rest]) {
    const snap = () => snapshot(pi, ctx, promptOptions ?? ctx.getSystemPromptOptions?.());
    if (!sub) return summary(ctx, snap());
    if (sub === "open") return open(ctx, snap());
    if (sub === "whatif") return whatif(ctx, snap(), rest);
    if (sub === "usage") return usage(ctx, rest);
    if (sub === "check") return checkCommand(ctx, rest[0]);
    tell(ctx, USAGE, sub === "help" ? "info" : "warning");
  }

  /** `/ctxlens`: the command line's summary of the next request (the prompt left empty), and the window. */
  function summary(ctx, snap) {
    const r = runCliCaptured(cliArgs(snap, files, "summary", ["--prompt", ""]), { cwd: snap.cwd });
    if (r.code !== 0 && !r.stdout) return tell(ctx, failure(r), "error");
    const window = windowLine(r.stdout, ctx.model?.contextWindow);
    tell(ctx, `${r.stdout.trimEnd()}${window ? `\n\n${window}` : ""}`, "info");
  }

  /** `/ctxlens open`: `ctxlens open` on this session, served from this process on 127.0.0.1. */
  function open(ctx, snap) {
    server?.close();
    server = null;
    const r = runCliCaptured(cliArgs(snap, files, "open", ["--prompt", ""]), {
      cwd: snap.cwd,
      onListening: (url, s, error) => {
        if (!url) return tell(ctx, `ctxlens: cannot serve the visualizer: ${error?.message ?? "unknown error"}`, "error");
        server = s;
        tell(ctx, `ctxlens: the visualizer of this session is at ${url} (this machine only; it stops when pi exits)`, "info");
      },
    });
    if (r.code !== 0) tell(ctx, failure(r), "error");
  }

  /** `/ctxlens whatif SPEC…`: `KEY=VALUE` specs are `--set`, the others `--without`. */
  function whatif(ctx, snap, specs) {
    if (specs.length === 0) return tell(ctx, USAGE, "warning");
    const extra = ["--prompt", ""];
    for (const s of specs) extra.push(/^[a-z]+=/.test(s) ? "--set" : "--without", s);
    const r = runCliCaptured(cliArgs(snap, files, "whatif", extra), { cwd: snap.cwd });
    if (r.code !== 0) return tell(ctx, failure(r), "error");
    let w;
    try {
      w = JSON.parse(r.stdout);
    } catch {
      return tell(ctx, failure(r), "error");
    }
    tell(ctx, whatifText(w).join("\n"), "info");
  }

  /** `/ctxlens usage [--by …] [--since …] [DIR…]`: `ctxlens usage` — every call of every
   * session in pi's sessions folder (or the folders given): the usage pi recorded and what each
   * call's prompt was spent on. */
  function usage(ctx, args) {
    // Each call rebuilt with this pi's files (its docs paths), as `/ctxlens` is.
    const r = runCliCaptured(["usage", ...args, ...(release ? ["--pi-dir", release.dir] : [])]);
    if (r.code !== 0) return tell(ctx, failure(r), "error");
    tell(ctx, r.stdout.trimEnd(), "info");
  }

  /** `/ctxlens check [on|off]`. */
  function checkCommand(ctx, arg) {
    if (arg === "on") {
      if (!support.check) return tell(ctx, support.note ?? "ctxlens: the live check is not available on this pi", "warning");
      enableCheck(check);
    } else if (arg === "off") {
      check.state.on = false;
    } else if (arg !== undefined) {
      return tell(ctx, USAGE, "warning");
    }
    tell(ctx, checkStatus(check.state), "info");
  }
}

function enableCheck(check) {
  check.state.on = true;
  check.wrapFetch();
}

/** One line: whether the check is on, and its counts. */
export function checkStatus(s) {
  const head = `ctxlens live check ${s.on ? "on" : "off"}`;
  if (s.requests === 0) return `${head}: no request checked yet${s.on ? "" : " (/ctxlens check on)"}`;
  const compared = s.matched + s.differed;
  const parts = [`${head}: ${s.matched}/${compared} requests matched ctxlens's rebuild byte for byte`];
  if (s.differed) parts.push(`${s.differed} differed (saved in ${s.dir})`);
  if (s.unchecked) parts.push(`${s.unchecked} not compared (sent by the provider's own HTTP client)`);
  if (s.refreshes) parts.push(`${s.refreshes} cache-warming request(s) not compared`);
  return parts.join("; ");
}

/** Whether this pi has the hooks, and what to say at load when it lacks them or is not a release ctxlens rebuilds. */
function supportOf(release) {
  if (!release) return { check: false, note: "ctxlens: cannot tell which pi this is; /ctxlens rebuilds the newest release, and the live check is off" };
  if (olderThan(release.version, FIRST_WITH_HOOKS)) {
    return { check: false, note: `ctxlens: pi ${release.version} has no before_provider_request hook; /ctxlens works, the live check needs pi ${FIRST_WITH_HOOKS} or newer` };
  }
  if (!piVersions.includes(release.version)) {
    return { check: false, note: `ctxlens: pi ${release.version} is not a release ctxlens rebuilds (${piVersions[0]} to ${piVersions.at(-1)}); /ctxlens shows the nearest one, and the live check is off` };
  }
  return { check: true, note: null };
}

function olderThan(a, b) {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] || 0) !== (pb[i] || 0)) return (pa[i] || 0) < (pb[i] || 0);
  return false;
}

/** The agent dir's settings.json `ctxlens` key: `{"check": true, "checkDir": "…"}`. */
function readSettings(env = process.env) {
  const agent = env.PI_CODING_AGENT_DIR || path.join(os.homedir(), ".pi", "agent");
  try {
    const s = JSON.parse(fs.readFileSync(path.join(agent, "settings.json"), "utf8"))?.ctxlens;
    return s && typeof s === "object" ? { check: s.check, checkDir: typeof s.checkDir === "string" ? s.checkDir : undefined } : {};
  } catch {
    return {};
  }
}

/** Shows text in pi: a notification in the TUI and RPC; stderr in print and JSON mode (pi keeps stdout for the answer). */
function tell(ctx, text, level) {
  const t = safe(text);
  if (ctx?.hasUI && ctx.ui?.notify) ctx.ui.notify(t, level);
  else process.stderr.write(`${t}\n`);
}

function failure(r) {
  const lines = String(r.stderr ?? "").trim().split("\n").filter((l) => !l.startsWith("ctxlens: rebuilding"));
  return `ctxlens: ${lines.pop()?.replace(/^ctxlens: /, "") || `the command failed (exit ${r.code})`}`;
}
