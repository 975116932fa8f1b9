// "ctxlens": Node (ready on import) and bundlers (ready once `ready` resolves).
export * from "./types.js";

/**
 * Resolves when the calls can run: at once in Node; in a bundled app, once the wasm and every
 * release's data are loaded (a call before that throws a `CtxlensError`). Rejects with why
 * they did not load.
 */
export declare const ready: Promise<void>;

/** Options of {@link assembleSession}: the `ctxlens` command line's, as data. */
export interface AssembleSessionOptions {
  /** `--prompt`: the next prompt. Without it (and `call`): the session's last call. */
  prompt?: string | null;
  /** `--call`: a past model call (1-based on the active branch), an assistant entry's id, or "next". */
  call?: number | string | null;
  /** `--model provider/id` (default: the session's). */
  model?: string;
  /** `--thinking` (default: the session's). */
  thinking?: import("./types.js").ThinkingLevel | (string & {});
  /** `--tool-set`: a file of extension tools, in any shape `assemble`'s `tools` takes. */
  toolSet?: string;
  /** pi's own flags (`--tools`, `--no-context-files`, `--skill`, `@file`, ...). */
  args?: string[];
  /** `--pi`: the release to rebuild (default: the installed pi's, else the session's, else the newest). */
  piVersion?: import("./types.js").PiVersion;
  /** `--pi-dir`: pi's package folder instead of the `pi` on PATH. */
  piDir?: string;
  /** `--now`: `Date.now()` when the prompt is sent (default: now). */
  now?: number;
  /** `--api`: switch the protocol. */
  api?: import("./types.js").Api;
  /** `--with`: also assemble under this protocol (`result.comparison`), or `{piVersion}`: under that release (`result.upgrade`). */
  compareWith?: import("./types.js").Api | { api: import("./types.js").Api } | { piVersion: import("./types.js").PiVersion };
  /** The environment the machine is read with. Default `process.env`. */
  env?: { [name: string]: string };
  /** The directory it runs in. Default `process.cwd()`. */
  cwd?: string;
  /** Count tokens with the model's vocabulary (read from the package on first use): see `AssembleOptions.tokens`. */
  tokens?: boolean;
  /** `--without`: what if something were off (see `AssembleOptions.without`); `set ["pi=…"]` reads the session again as that release reads it. */
  without?: string[];
  /** `--set KEY=VALUE` (see `AssembleOptions.set`). */
  set?: string[];
  /** `--rebuild-calls` with `without`/`set`: see `AssembleOptions.rebuildCalls`. */
  rebuildCalls?: number | "all";
}

/**
 * Node only: the session at `path` as pi would resume it on this machine — the agent dir
 * (`PI_CODING_AGENT_DIR` or `~/.pi/agent`), the project's files from the session's cwd up, the
 * installed pi — read as the `ctxlens` command reads it. In a bundled app it throws.
 * With `null` for the path and a `prompt`: a new session's first request, before anything is said.
 */
export declare function assembleSession(path: string, options?: AssembleSessionOptions): import("./types.js").Assembly;
/** No session: the first request of a new session started in `options.cwd` (default: the current folder). */
export declare function assembleSession(path: null, options: AssembleSessionOptions & { prompt: string }): import("./types.js").Assembly;

/** Options of {@link usage}: `ctxlens usage`'s, as data. */
export interface UsageOptions {
  /** `--by`: how calls are grouped. Default `"day"` (UTC days). */
  by?: "day" | "week" | "month" | "session" | "project" | "model" | "release";
  /** `--since`, `--until`: only the calls of these UTC days (`YYYY-MM-DD` or `YYYYMMDD`). */
  since?: string;
  until?: string;
  /** `false`: the recorded usage alone, no call rebuilt (`--no-rebuild`). Default `true`. */
  rebuild?: boolean;
  /** `--without`, `--set`: what the change, made from each session's start, would have saved (not `pi=`). */
  without?: string[];
  set?: string[];
  /** The environment the machine is read with (`PI_CODING_AGENT_DIR`, ...). Default `process.env`. */
  env?: { [name: string]: string };
  /** The directory relative paths are read from. Default `process.cwd()`. */
  cwd?: string;
}

/**
 * Node only: every call of every session below `paths` (a folder or session file, a list of
 * them, or `null`: pi's sessions folder) as `ctxlens usage --json` reports it (docs/usage.md).
 * Throws a `CtxlensError` on bad options or a folder that cannot be read.
 */
export declare function usage(paths?: string | string[] | null, options?: UsageOptions): import("./types.js").UsageReport;
