// The types of the `ctxlens` package, shared by its entry points ("ctxlens" and "ctxlens/web").
// Hand-written beside npm/api.js, except the report's types generated from its Rust types
// (report.d.ts); checked by `tsc --noEmit` in tests/npm/.

import type { AssemblyResult, Comparison, EntryNode, JsonValue, PiVersion, SessionTree, TokensInfo, Upgrade, WhatIf } from "./report.js";
export * from "./report.js";

/** The protocols (pi-ai "apis") pi 0.85.1 has adapters for. */
export type Api =
  | "openai-completions"
  | "anthropic-messages"
  | "openai-responses"
  | "azure-openai-responses"
  | "openai-codex-responses"
  | "google-generative-ai"
  | "bedrock-converse-stream"
  | "mistral-conversations"
  | "pi-messages";

/** pi's thinking levels (`--thinking`). Other strings are accepted and reported as pi reports them. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** A file's content: text (stored as UTF-8) or bytes (images and other binary files). */
export type FileContent = string | Uint8Array | ArrayBuffer;

/** Files by path: a plain object or a Map. */
export type FileTree = Record<string, FileContent> | ReadonlyMap<string, FileContent>;

/** An extension tool as pi's `registerTool` takes it (the shape of a case's tools.json). */
export interface ExtensionTool {
  name: string;
  label?: string;
  description: string;
  /** The JSON Schema of the tool's arguments. */
  parameters: { [key: string]: JsonValue };
  promptSnippet?: string;
  promptGuidelines?: string[];
  /** As pi's registry has it (`getAllTools()`): `source` names the package that registered the tool (its settings source, or "cli" for `-e`). */
  sourceInfo?: { source?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** One provider of pi's models.json (`~/.pi/agent/models.json`). */
export interface ProviderConfig {
  baseUrl?: string;
  api?: Api | string;
  apiKey?: string;
  headers?: { [name: string]: string };
  models?: Array<{ id: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

/** pi's models.json. */
export interface ModelsJson {
  providers?: { [provider: string]: ProviderConfig };
  [key: string]: unknown;
}

/** What pi would read, for {@link assemble}. Every field is optional. */
export interface AssembleOptions {
  /** The pi session to resume (JSONL text). Absent: pi starts a new session. */
  session?: string | Uint8Array | null;
  /** The session file's path, used in diagnostics. Default "session.jsonl". */
  sessionPath?: string;
  /**
   * Every file pi could read, by absolute POSIX path: the project tree (AGENTS.md, CLAUDE.md,
   * `.pi/`), the agent dir (settings.json, SYSTEM.md, skills/), `@file` attachments.
   */
  files?: FileTree;
  /** `$HOME`. Default "/home/user". */
  home?: string;
  /** pi's agent dir. Default `${home}/.pi/agent`. */
  agentDir?: string;
  /** The working directory pi runs in (a resumed session uses its header's cwd). Default "/home/user/project". */
  cwd?: string;
  /** Where the pi-coding-agent package is installed (docs paths in the system prompt). */
  piPackageDir?: string;
  /** models.json (text or object), laid at `${agentDir}/models.json`. */
  models?: string | ModelsJson;
  /** `--model`: `provider/id` or `id`, optionally with a `:thinking` suffix. */
  model?: string;
  /** `--thinking`. */
  thinking?: ThinkingLevel | (string & {});
  /** `model` and `thinking` are what a running pi uses now, not flags typed at its start (said as "pi's current model" and "pi's current level"). */
  runningPi?: boolean;
  /**
   * Extension tools, appended after the built-in tools: a tool set as JSON text or as the value,
   * in pi's shape (`ExtensionTool[]`), OpenAI's (Chat Completions, Responses), Anthropic's,
   * Google's (`functionDeclarations`) or Bedrock's (`toolSpec`), or a captured request body with
   * `tools`. Built-in names keep pi's definitions; a set naming built-ins, or from a request
   * body, makes its names the active tools unless `args` choose them.
   */
  tools?: string | ExtensionTool[] | Array<{ [key: string]: JsonValue }> | { [key: string]: JsonValue };
  /** A placeholder key for the provider of the model pi takes when it has none (a key never changes the body). */
  placeholderKey?: boolean;
  /** The rest of pi's command line: `--tools`, `--system-prompt`, `@file`, ... */
  args?: string[];
  /** Environment variables pi reads (`PI_CACHE_RETENTION`, `PI_EXPERIMENTAL`, `OPENAI_BASE_URL`, ...). */
  env?: { [name: string]: string };
  /**
   * The next prompt. Absent or null: the session's last call when its active branch ends with an
   * answer (see `call`), else pi's continue after the last tool results (no new user message).
   */
  prompt?: string | null;
  /**
   * A model call of the session to rebuild as pi sent it (the branch up to that answer's parent,
   * no new prompt, the model and thinking level of that call): its number on the active branch
   * (1, 2, ...; `result.calls` lists them), the entry id of an assistant message on any branch,
   * or "next" for the next request (pi's continue, refused after an answer as pi refuses it).
   */
  call?: CallRef;
  /** `Date.now()` when the prompt is sent, in ms. Default 0 (the same inputs always give the same bytes). */
  now?: number;
  /** Switch the protocol: the same model with its `api` replaced. */
  api?: Api;
  /**
   * Also assemble under this protocol (`"openai-responses"` or `{api}`) and compare the two bodies:
   * `result.comparison`; or under another pi release (`{piVersion}`): `result.upgrade`, what
   * upgrading pi does to this request.
   */
  compareWith?: Api | { api: Api } | { piVersion: PiVersion };
  /** The id of a new session (pi makes a random uuidv7); a resumed session uses its header's id. */
  sessionId?: string;
  /** The `User-Agent` pi sends, which it derives from the machine. Default: the release's on linux x64 (0.85: "pi (linux 6.1.0; x64)"; 1.6.0: "pi/1.6.0 (linux; node/v22.23.5; x64)"). */
  userAgent?: string;
  /** `Date.now()` when pi created this run's system message (0.86 on: a few ms after `now`). Default: `now`. */
  systemNow?: number;
  /**
   * What `npm root -g` prints on the machine: pi looks there for a user's npm package that is not
   * in its own folder (`<agent>/npm/node_modules`). Default: `NPM_CONFIG_PREFIX/lib/node_modules`
   * when `env` sets that, else unknown (said with the package's settings line).
   */
  npmGlobalRoot?: string;
  /** The pi release to rebuild. Default: the one the session proves (its system messages, entry types, texts, dates), else the newest. */
  piVersion?: PiVersion;
  /**
   * Count tokens with the model's own vocabulary (`result.tokens` says which; `stats` then carry
   * `tokenizer` and `tokens` beside `chars`). In Node the vocabulary is read from the package on
   * first use; in a browser it must be loaded first (`await loadVocabulary(name)`), else nothing
   * is counted and `result.tokens.note` names it. Default false: no vocabulary is loaded.
   */
  tokens?: boolean;
  /**
   * What if: switch something off, as the CLI's `--without` specs — `"tool:NAME"`,
   * `"skill:NAME"`, `"skill-invocation:NAME"` (its `disable-model-invocation`), `"context:PATH"`,
   * `"append-prompt"`, `"entry:ID"`, `"turn:ID"` (a user message and its exchange),
   * `"tool-result:ID[:N]"`, `"thinking:old"`, `"image:all"` or
   * `"image:ID"`. The result is then the changed request, and `result.whatif` says what changed
   * against the request as it is. A spec that names nothing present throws.
   */
  without?: string[];
  /** What if: change a value, as the CLI's `--set` specs — `"model=P/ID"`, `"thinking=LEVEL"`, `"api=API"`, `"pi=VERSION"`. */
  set?: string[];
  /** With `without`/`set`: rebuild this many of the session's calls with usage (evenly spaced, the last included; or `"all"`) with the change made at the start, for `result.whatif.session`. Default: none. */
  rebuildCalls?: number | "all";
  /** `false`: the request without the accounting of its body (`result.stats` null; no provenance is made) — the fast path for a host that needs only the bytes. Not with `tokens`, `compareWith`, `without` or `set`, which measure it. Default true. */
  stats?: boolean;
}

/** Options of {@link assembleCase}. */
export interface AssembleCaseOptions {
  /** `Date.now()` for the prompt. Default: the prompt's timestamp in the capture's session.after.jsonl, else 0. */
  now?: number;
  /** Switch the protocol. */
  api?: Api;
  /**
   * Also assemble under this protocol (`"openai-responses"` or `{api}`) and compare the two bodies:
   * `result.comparison`; or under another pi release (`{piVersion}`): `result.upgrade`, what
   * upgrading pi does to this request.
   */
  compareWith?: Api | { api: Api } | { piVersion: PiVersion };
  /** The folder (relative to the case) holding the capture's env.json. Default: `expected/`, else the shallowest env.json. */
  envDir?: string;
  /** A placeholder key for the provider of the model pi takes when it has none (a key never changes the body). */
  placeholderKey?: boolean;
  /** A call to rebuild, counted on the capture's session.after.jsonl (request N of the run is call "calls before the run + N"); see {@link AssembleOptions.call}. */
  call?: CallRef;
  /** The pi release to rebuild. Default: the capture's (env.json `piVersion`), else the one the session proves, else the newest. */
  piVersion?: PiVersion;
  /** Count tokens: see {@link AssembleOptions.tokens}. */
  tokens?: boolean;
  /** What if: see {@link AssembleOptions.without}. */
  without?: string[];
  /** What if: see {@link AssembleOptions.set}. */
  set?: string[];
  /** See {@link AssembleOptions.rebuildCalls}. */
  rebuildCalls?: number | "all";
  /** `false`: the request without the accounting of its body (`result.stats` null; no provenance is made) — the fast path for a host that needs only the bytes. Not with `tokens`, `compareWith`, `without` or `set`, which measure it. Default true. */
  stats?: boolean;
}

/** Options of {@link parseSession}. */
export interface ParseSessionOptions {
  /** The session file's path, used in diagnostics. Default "session.jsonl". */
  path?: string;
  /** The pi release that reads it. Default: the one the session proves, else the newest. */
  piVersion?: PiVersion;
}

/** Which call: a 1-based number on the active branch, an assistant entry id, or "next". */
export type CallRef = number | string;

/** Everything one assembly produced: the body beside the {@link AssemblyResult} the core returns. `body`, `method` and `url` are null when pi would not send a request (see `diagnostics`). */
export interface Assembly extends AssemblyResult {
  /** Exactly the request body pi would send (decoded from `bodyBytes` when first read). */
  readonly body: string | null;
  /** The body's UTF-8 bytes, as they go on the wire: what a caller writing the request needs. */
  bodyBytes: Uint8Array | null;
  /** Present when `compareWith` named a protocol. */
  comparison?: Comparison;
  /** Present when `compareWith` named a release (`{piVersion}`). */
  upgrade?: Upgrade;
  /** Present with `without` or `set`: the changed request (this result) against the request as it is. */
  whatif?: WhatIf;
  /** Present when `tokens` was asked for: what the model's tokens are counted with, and whether they were. */
  tokens?: TokensInfo;
}

/** The vocabularies this package ships, one wasm module each (tokenizers/NAME.wasm). */
export type VocabularyName = "o200k_base" | "cl100k_base" | "qwen2" | "deepseek_v3" | "llama3" | "mistral_v3" | "kimi_k2" | "glm4" | "glm5" | "minimax_m2";

/** A loaded vocabulary. */
export interface Vocabulary {
  name: VocabularyName;
  /** The tokens of `text` encoded on its own (no BOS/EOS, no chat template), as `ctxlens stats` counts each text. */
  count(text: string): number;
}

/** The progress of a vocabulary's load: bytes read of `total` (null when the server does not say). */
export interface VocabularyProgress {
  name: VocabularyName;
  loaded: number;
  total: number | null;
}

export interface LoadVocabularyOptions {
  /** Called as the module's bytes arrive (in Node: once, when the file is read). */
  onProgress?: (progress: VocabularyProgress) => void;
  /** Where the module is instead of the package's tokenizers/NAME.wasm (a URL; in Node also a path). */
  url?: string | URL;
}

/** The names of the vocabularies this package ships. */
export declare const vocabularies: readonly VocabularyName[];

/**
 * Loads a vocabulary's wasm module (the package's tokenizers/NAME.wasm, 0.7–1.2 MB gzipped),
 * once: in a browser fetched same-origin with progress, in Node read from the package. Calls with
 * `tokens: true` then count with it. Rejects for a name the package does not ship, or a module
 * that is not that vocabulary's.
 */
export declare function loadVocabulary(name: VocabularyName, options?: LoadVocabularyOptions): Promise<Vocabulary>;

/** One entry of a session file, in file order: the report's `session.entries` entry. */
export type SessionEntry = EntryNode;


/** The protocols pi has adapters for. */
export declare const protocols: readonly Api[];

/** The pi releases this package rebuilds, oldest first. */
export declare const piVersions: readonly PiVersion[];

/** The newest of them: what a call rebuilds when nothing says otherwise. */
export declare const piVersion: PiVersion;

/** An error the API throws for misuse; `piVersion` names a release whose data must be loaded first ("ctxlens/web"). */
export declare class CtxlensError extends Error {
  piVersion?: PiVersion;
}

/**
 * Rebuilds the request pi would send next. Never throws on bad input (that is `diagnostics`);
 * throws an `Error` when the options themselves are wrong (a field of the wrong type, an
 * unknown option, an unknown `api`).
 */
export declare function assemble(options: AssembleOptions): Assembly;

/**
 * Assembles a case folder in the layout of pi's capture oracle (case.json, models.json,
 * session.jsonl, tools.json, agent/, fs/, expected/env.json), given its files by relative path.
 * Throws an `Error` when the files are not a case (no case.json or env.json).
 */
export declare function assembleCase(files: FileTree, options?: AssembleCaseOptions): Assembly;

/**
 * A workspace: `options` (those of {@link assemble}) read once; `assemble(overrides)` returns
 * what `assemble({...options, ...overrides})` returns. The model, thinking level, prompt, call,
 * time, protocol, release, comparison, tokens and what-if options are changed inside the
 * workspace (a result asked for again without tokens is the one kept; the last nine are kept);
 * any other option is assembled from scratch. `free()` lets the wasm's copy of the inputs go; a
 * freed workspace throws.
 */
export interface Workspace {
  assemble(overrides?: Partial<AssembleOptions>): Assembly;
  free(): void;
}

/** Makes a {@link Workspace} of `assemble`'s options. */
export declare function createWorkspace(options: AssembleOptions): Workspace;

/** Reads a session file as pi does: the entries, the active branch and what it selects. */
export declare function parseSession(text: string | Uint8Array, options?: ParseSessionOptions): SessionTree;

