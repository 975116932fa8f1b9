// The types of the report ctxlens gives (`--json`, the npm package, the visualizer's worker).
// Generated from analysis/src/report/types.rs: do not edit. `CTXLENS_BLESS=1 cargo test -p
// ctxlens --test report_types` writes it again.

/** A JSON value, as `JSON.parse` returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A pi release ctxlens rebuilds, oldest first. */
export type PiVersion = "0.85.1" | "0.86.1" | "0.87.0" | "0.87.1" | "1.3.0" | "1.4.0" | "1.5.0" | "1.5.2" | "1.6.0";

/**
 * Why this release was rebuilt: given (`piVersion`), captured (the case's env.json),
 * installed (the `pi` on this machine), detected (from the session), call (a past call of a
 * session a later pi continued, rebuilt by the release that made it: see `callRun`), default
 * (the newest).
 */
export type ReleaseReason = "given" | "captured" | "installed" | "detected" | "call" | "default";

/**
 * How sure a detection is: certain (the facts rule out every other release), likely (they
 * fit this one best), assumed (no fact points anywhere).
 */
export type Certainty = "certain" | "likely" | "assumed";

/** One fact of a session about the release that wrote it. */
export interface Evidence {
  /** The 1-based line, when it is one line's. */
  line: number | null;
  fact: string;
}

/** What a session proves about the release that wrote it. */
export interface Detection {
  version: PiVersion;
  certainty: Certainty;
  /** The oldest release that writes what the session holds, when a fact says so. */
  atLeast: string | null;
  evidence: Evidence[];
}

/**
 * For `reason: "call"`: the session as the call's release left it ends at `lastLine`; the
 * system message on `nextRunLine` begins a later run, whose calls are rebuilt by `later`.
 */
export interface CallRun {
  lastLine: number;
  nextRunLine: number;
  later: PiVersion;
}

/** Which pi release was rebuilt, and why. */
export interface PiRelease {
  version: PiVersion;
  /** `YYYY-MM-DD`. */
  released: string;
  reason: ReleaseReason;
  /** One sentence: the release and why. */
  explanation: string | null;
  /**
   * What the session proves (for a `call`: as the session stood then), when there is a
   * session.
   */
  detection: Detection | null;
  callRun: CallRun | null;
  /**
   * Set when the session was written by a newer pi than the one rebuilt (also the first
   * diagnostic).
   */
  newerSession: string | null;
  /** The release's built-in tools, in pi's order. */
  builtinTools: string[];
  /** Every release ctxlens rebuilds. */
  supported: PiVersion[];
}

/** A stage of pi's request assembly. */
export type StageId =
  | "session-read"
  | "agent-messages"
  | "agent-context"
  | "input-appended"
  | "transform-context"
  | "convert-to-llm"
  | "transform-messages"
  | "convert-messages"
  | "build-params"
  | "on-payload"
  | "http-body";

/** What a stage did to one thing. */
export type EventKind =
  | "dropped"
  | "inserted"
  | "converted"
  | "renamed"
  | "moved"
  | "clamped"
  | "replaced"
  | "note";

/** What a stage did to one thing. */
export interface StageEvent {
  kind: EventKind;
  message: string;
  /** pi's source location of the rule (`AI/api/transform-messages.js:127`), when known. */
  piSource?: string;
}

/**
 * The events of a stage after its first ones (a message's conversion is one event each: a
 * long session's build-params has tens of thousands), grouped by kind and rule.
 */
export interface EventsLeft {
  count: number;
  /** By kind and pi's rule (its source location), in the order each first occurs. */
  groups: EventGroup[];
}

/** One stage of pi's request assembly. */
export interface Stage {
  id: StageId;
  /** The stage in a pi user's words ("Your session file", "Request parameters"). */
  title: string;
  /** The function of pi that does it (`buildSessionContext`, `buildParams`). */
  piFunction: string;
  /** What the stage is, in one line for a pi user. */
  explanation: string;
  /** Where the stage lives in pi (file:line). */
  piSource: string;
  summary: string;
  /** Named counts after the stage (`messages`, `tools`, `bytes`, ...). */
  counts: { [name: string]: number };
  events: StageEvent[];
  /**
   * The events after `events` that the report leaves out, when a host asked for only a
   * stage's first ones (the app's worker sends a stage's first 200), grouped.
   */
  eventsLeft?: EventsLeft;
}

/** A vocabulary a host can count with: its name and whether its counts are the provider's. */
export interface TokenizerInfo {
  name: string;
  /** The model's own vocabulary (not an estimate by a neighbour's). */
  exact: boolean;
}

/** A section of the system prompt as the body sends it. */
export interface Section {
  name: string;
  /** Where pi took it from (a file's path, `pi`, `settings`, ...). */
  source: string;
  /** Its offset in the system prompt, in UTF-16 units. */
  offset: number;
  chars: number;
  tokens?: number;
  /** pi 0.86 on: which stored system message set the span (`session line 4`, `the compaction's checkpoint, line 9`, `this run`). */
  stored?: string;
}

/** The system prompt's characters, by section. */
export interface SystemPromptStats {
  chars: number;
  /** With a `tokenizer`: tokens of the texts, each encoded on its own (no chat-template framing). */
  tokens?: number;
  sections: Section[];
}

/**
 * A tool the body sends: its description and its parameters' schema as the body writes them
 * (tokens: the description's plus the parameters' JSON's).
 */
export interface ToolSize {
  name: string;
  chars: number;
  tokens?: number;
  descriptionChars: number;
  parametersChars: number;
  descriptionTokens?: number;
  parametersTokens?: number;
}

/** The tools' characters, by tool. */
export interface ToolsStats {
  chars: number;
  tokens?: number;
  byTool: ToolSize[];
}

/** The messages of one role on the wire. */
export interface RoleSize {
  role: string;
  count: number;
  chars: number;
  tokens?: number;
}

/** The history's texts by their place on the wire (thinking sent as text is assistant text). */
export interface KindSizes {
  userText: number;
  assistantText: number;
  reasoning: number;
  toolArguments: number;
  toolResults: number;
  /** Thinking and text signatures, encrypted reasoning. */
  signatures: number;
  /** The images' data (base64) as sent. */
  imageData: number;
  /** How many images the body sends. */
  images: number;
}

/** The history's texts by kind, in tokens (images: none). */
export interface KindTokens {
  userText: number;
  assistantText: number;
  reasoning: number;
  toolArguments: number;
  toolResults: number;
  signatures: number;
  imageData: number;
}

/** The results of one tool in the history. */
export interface ToolResultSize {
  name: string;
  count: number;
  chars: number;
  tokens?: number;
}

/**
 * A message of the body's conversation: its path in the body, its role on the wire, the LLM
 * messages it renders and their session lines (none for one pi inserted).
 */
export interface MessageSize {
  path: string;
  role: string;
  messages: number[];
  lines: number[];
  chars: number;
  tokens?: number;
}

/** The history's characters: by role, by kind, by tool for the tool results, by message. */
export interface HistoryStats {
  /** The sum of `byKind`'s characters (images counted, not measured: their data is `imageData`). */
  chars: number;
  tokens?: number;
  byRole: RoleSize[];
  byKind: KindSizes;
  /** With a `tokenizer`. */
  byKindTokens?: KindTokens;
  toolResultsByTool: ToolResultSize[];
  byMessage: MessageSize[];
  /**
   * How many of the body's messages `byMessage` leaves out, when a host asked for only
   * the largest (the app's worker sends the 200 largest): it then holds those, in the body's
   * order.
   */
  messagesLeft?: number;
}

/** A parameter's value. */
export interface ParameterSize {
  name: string;
  chars: number;
}

/** The parameters' values (model, max tokens, stream, thinking, cache markers). */
export interface ParametersStats {
  chars: number;
  byName: ParameterSize[];
}

/** A number of characters. */
export interface Chars {
  chars: number;
}

/** Shares of system prompt, tools and history in their total, 0..1. */
export interface Shares {
  systemPrompt: number;
  tools: number;
  history: number;
}

/** The body's size: UTF-8 bytes, UTF-16 units. */
export interface BodySize {
  bytes: number;
  chars: number;
}

/**
 * The character accounting of the body as sent (after the adapter), in UTF-16 units:
 * `systemPrompt.chars + tools.chars + history.chars + parameters.chars + structure.chars`
 * is `body.chars`.
 */
export interface Stats {
  /** The vocabulary the `tokens` fields were counted with (the option `tokens`); null: no `tokens` fields. */
  tokenizer: TokenizerInfo | null;
  systemPrompt: SystemPromptStats;
  tools: ToolsStats;
  history: HistoryStats;
  parameters: ParametersStats;
  /** The rest: JSON punctuation, keys, quotes and escapes, roles, types, ids, tool names. */
  structure: Chars;
  shares: Shares;
  body: BodySize;
}

/** How much a finding matters. */
export type FindingSeverity = "info" | "notice" | "warning";

/** A notable property of the request: where the characters go, what breaks caching, ... */
export interface Finding {
  /** Stable id (`tool-schemas`, `context-file-shadowed`, ...). */
  id: string;
  /** 1-based position in the list. */
  number: number;
  severity: FindingSeverity;
  title: string;
  /** The numbers behind it. */
  detail: string;
  stage: StageId | null;
  /** A selection key: `tool:<name>`, `section:<i>`, `entry:<id>`, `path:<json path>`. */
  subject: string | null;
}

/** The model the assembly used, and the thinking level pi runs it at. */
export interface ModelInfo {
  provider: string;
  id: string;
  name: string;
  /** The protocol its requests speak (pi-ai's `api`). */
  api: string;
  /** Whether the model thinks (pi sends a thinking level only then). */
  reasoning: boolean;
  /** Whether the model takes images (pi replaces them with a placeholder otherwise). */
  images: boolean;
  contextWindow: number;
  maxTokens: number;
  /**
   * Where pi took the model from: `--model`, `session`, `settings.defaultModel`,
   * `available` (the first with auth).
   */
  source: string;
  /** The thinking level asked for, before pi's clamp. */
  thinkingRequested: string;
  /** Where it was asked: `--thinking`, `session`, `settings.defaultThinkingLevel`, `default`. */
  thinkingSource: string;
  /** The thinking level after pi's clamp to what the model supports. */
  thinking: string;
}

/**
 * pi's own estimate of the context beside the model's window (what its compaction and
 * its context-overflow checks watch).
 */
export interface ContextEstimate {
  /** The release's characters per token (its `estimateTokens`). */
  charsPerToken: number | null;
  /**
   * The estimate: the last reported usage plus the messages after it, else the
   * characters at `charsPerToken` (null without a model window).
   */
  tokens: number | null;
  /** The part of `tokens` the provider reported. */
  usageTokens: number | null;
  contextWindow: number | null;
}

/** A tool call the request sends to a tool it does not define. */
export interface UndefinedToolCall {
  name: string;
  callId: string;
  /** The session line of the assistant message that made it (null: this run's). */
  line: number | null;
  entryId: string | null;
}

/** What the provider reported for a call, as pi recorded it on the answer. */
export interface CallUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number | null;
  /** `{input, output, cacheRead, cacheWrite, total}` as recorded, or null. */
  cost: { [k: string]: number } | null;
}

/** One model call: the assistant message that answered it. */
export interface Call {
  /** 1-based among the calls of its branch. */
  index: number;
  entryId: string | null;
  /** The entry the request ended with (pi's leaf when it sent it). */
  parentId: string | null;
  /** 1-based line in the session file. */
  line: number;
  /** When pi stored the answer (ISO). */
  timestamp: string | null;
  /**
   * The answer's `timestamp` (ms): `Date.now()` as the stream started, just before the
   * request.
   */
  messageTimestamp: number | null;
  provider: string | null;
  model: string | null;
  api: string | null;
  /** The level the call was made with, as pi records it from 0.86 on. */
  thinkingLevel: string | null;
  stopReason: string | null;
  errorMessage: string | null;
  usage: CallUsage | null;
  onActiveBranch: boolean;
}

/** The call whose request was rebuilt. */
export interface RebuiltCall extends Call {
  /** `index` / `entry`: the `call` option; `last`: no prompt, and the branch ends with an answer. */
  chosen: "index" | "entry" | "last";
  /** Where the model came from: `given` (the `model` option), `call` (the answer's), `session`. */
  modelFrom: "given" | "call" | "session";
  thinkingFrom: "given" | "call" | "session";
  /** Failed answers pi took out of its context before this retry (their entry ids). */
  retried: string[];
}

/** How much a problem in the inputs matters. */
export type Severity = "info" | "warning" | "error";

/**
 * A problem in the inputs. Bad input never throws: it is reported here and the rest is still
 * used.
 */
export interface Diagnostic {
  severity: Severity;
  /** The input: the session path, a file's absolute path, "tools", "args", "model", ... */
  file: string;
  /** 1-based line, when the problem has one. */
  line?: number;
  /**
   * The line's span in that input, in UTF-16 code units (JS string indices), when the host
   * holds its text (the npm package).
   */
  start?: number;
  end?: number;
  message: string;
  /** What was left out because of it, if anything. */
  skipped?: string;
}

/** The request pi would send. */
export interface RequestInfo {
  method: string;
  url: string;
  /** The protocol's own headers, in order, as `[name, value]` (credentials as `<redacted>`). */
  headers: Array<[string, string]>;
  /** The headers the provider's SDK adds at run time, which ctxlens leaves out (`x-stainless-*`, ...). */
  runtimeHeaders: string[];
  /** The body, byte for byte. */
  body: string;
  /** Why the URL looks wrong, when it does (a path segment doubled after a protocol switch). */
  urlNote: string | null;
}

/** A tool the run has active, as pi defines it. */
export interface ToolInfo {
  name: string;
  /** Where its definition comes from: pi's own, an extension's (a tool set), the session's declaration. */
  source: "builtin" | "extension" | "session";
  description: string;
  /** Its parameters' JSON schema, in pi's key order. */
  parameters: JsonValue;
  /** Its definition's size in the request (description and parameters, as the body writes them). */
  chars: number;
  /** The one line it adds to the system prompt's tool list, as the definition gives it. */
  promptSnippet: string | null;
  promptGuidelines: string[];
  /** It asks for constrained (strict) sampling. */
  strict: boolean;
  /** The pi package whose extension registered it. */
  package: string | null;
}

/** pi 0.86 on: where a system message is stored. */
export interface StoredAt {
  kind: "session" | "checkpoint" | "this-run";
  /** `session line 4`, `the compaction's checkpoint, line 9`, `this run`. */
  label: string;
  line: number | null;
  entryId: string | null;
}

/** A section of the system prompt, by its UTF-16 range in the prompt's text. */
export interface PromptSection {
  name: string;
  /** Where pi took it from (a file's path, `pi`, `settings`, ...). */
  source: string;
  start: number;
  end: number;
  /** pi 0.86 on: the stored system message that set it. */
  stored?: StoredAt;
}

/** pi 0.86 on: a system message as the request sends it, by its range in the prompt's text. */
export interface SentSystemMessage {
  start: number;
  end: number;
  /** It updates the prompt before it (sent where it is stored, after the first). */
  update: boolean;
  /** The LLM message it is sent as (`null`: the system prompt itself). */
  llmIndex: number | null;
  stored: StoredAt | null;
}

/** The system prompt as sent, with its sections. */
export interface SystemPromptInfo {
  text: string;
  sections: PromptSection[];
  /** pi 0.86 on: `leading` (one system prompt first: the replay of all the system messages), `in-place` (each where it is stored: the first as the prompt, later ones as updates) or `raw` (pi-messages: each as stored). */
  placement?: "leading" | "in-place" | "raw";
  /** pi 0.86 on: each system message sent. */
  messages?: SentSystemMessage[];
}

/** A section a system message sets or removes. */
export interface SectionPatch {
  name: string;
  removed: boolean;
  /** The text it sets (0 when removed). */
  chars: number;
}

/** pi 0.86 on: a system message: the sections it sets or removes, the tools it adds or removes. */
export interface SystemMessageInfo {
  sections: SectionPatch[];
  toolsAdded: string[];
  toolsRemoved: string[];
  /** The text it adds (`getSystemMessageText`). */
  chars: number;
}

/** A tool result's text: what a `tool-result:ID:N` what-if cuts. */
export interface ToolResultText {
  toolName: string | null;
  /** Its text blocks' UTF-16 characters. */
  chars: number;
  lines: number;
}

/** A message's images. */
export interface ImagesSize {
  count: number;
  /** Their base64 data's characters. */
  chars: number;
}

/** pi 0.86 on: a context edit. */
export interface ContextEditInfo {
  targetId: string;
  /** It leaves the target out of the context (else it replaces its content). */
  omitted: boolean;
  /** The replacement's text. */
  chars: number;
}

/** pi 0.86 on: a `usage` entry (a model call outside the conversation: a compaction's summary, ...). */
export interface UsageEntryInfo {
  kind: string;
  provider: string | null;
  model: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** One entry of the session file, in file order. */
export interface EntryNode {
  id: string | null;
  parentId: string | null;
  /** The entry type (`message`, `compaction`, ...; 0.86 on a system message is `system`). */
  type: string;
  /** A message entry's role. */
  role: string | null;
  /** 1-based line in the file. */
  line: number;
  /** The role or kind, then up to 80 characters of text. */
  preview: string;
  label: string | null;
  /** On the path from the leaf to the root. */
  onActiveBranch: boolean;
  /** Selected for the context (on the branch and not cut by a compaction). */
  inContext: boolean;
  toolResult?: ToolResultText;
  images?: ImagesSize;
  /** pi 0.86 on, a system message's patch. */
  system?: SystemMessageInfo;
  /** pi 0.86 on, a compaction's checkpoint (its system message). */
  checkpoint?: SystemMessageInfo;
  edit?: ContextEditInfo;
  usage?: UsageEntryInfo;
}

/** The session entry an agent message of the context came from. */
export interface MessageSourceInfo {
  entryId: string | null;
  line: number;
  /** `message`, `compaction`, `branch_summary`, `custom_message`. */
  entryType: string;
  role: string | null;
  /** pi 0.86 on: a context edit in the context changes it. */
  edited?: boolean;
}

/** The session tree and the context it yielded. */
export interface SessionInfo {
  name: string;
  sessionId: string | null;
  cwd: string | null;
  /** The version the file declared before migration. */
  version: number;
  leafId: string | null;
  /** The compaction in effect, if any. */
  compactionId: string | null;
  entries: EntryNode[];
  /** Each agent message of the context, by its source entry. */
  messageSources: MessageSourceInfo[];
}

/** A call the session recorded (an assistant message with usage), in file order. */
export interface UsagePointInfo {
  entryId: string | null;
  /** 1-based line in the session file. */
  line: number;
  /** The entry's `timestamp`, as pi wrote it. */
  timestamp: string | null;
  provider: string | null;
  model: string | null;
  api: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** `usage.totalTokens`, or the sum of the four counts when pi recorded none. */
  totalTokens: number;
  stopReason: string | null;
  /** On the path from the root to the leaf (compacted-away calls included). */
  onBranch: boolean;
  /** Still in the context sent now (on the branch and not cut by a compaction). */
  inContext: boolean;
}

/** A call whose cache read dropped below the previous call of the same model on the branch. */
export interface CacheDrop {
  /** Its index in the timeline. */
  index: number;
  entryId: string | null;
  line: number;
  /** The previous call of the same provider and model: its index and cache read. */
  previousIndex: number;
  previousCacheRead: number;
  cacheRead: number;
  /** The call just before it used another model / provider. */
  modelChanged: boolean;
  providerChanged: boolean;
  /** A compaction sits between the previous call of this model and this one. */
  compactionBetween: boolean;
}

/** The cache facts of this request and the session's branch. */
export interface CacheFactsInfo {
  systemPromptChars: number;
  toolsChars: number;
  /** System prompt and tools: what every call repeats first. */
  prefixChars: number;
  /** The prefix by the release's estimate (characters per token). */
  prefixTokensEstimate: number;
  /** The conversation in this request. */
  historyChars: number;
  historyTokensEstimate: number;
  /** Calls on the branch. */
  calls: number;
  totalInput: number;
  totalOutput: number;
  totalCacheRead: number;
  totalCacheWrite: number;
  /** Cache read over input, cache read and cache write on the branch (0 when nothing was read), to four places. */
  cacheReadShare: number;
  breaks: CacheDrop[];
}

/** The session's recorded usage and this request's cache facts. */
export interface SessionUsage {
  /** Every call the session recorded (left out where a host has it from another report of the same inputs). */
  timeline?: UsagePointInfo[];
  cache: CacheFactsInfo;
}

/** pi 0.86 on: a tool as the transcript's system messages declare it (`getCurrentTools`, replay order). */
export interface DeclaredToolInfo {
  name: string;
  description: string;
  parameters: JsonValue;
  chars: number;
  constrainedSampling: JsonValue | null;
  /** The system message that added it (`null`: none did). */
  stored: StoredAt | null;
  /** The request sends it (it is among the run's active tools). */
  active: boolean;
}

/** A context file (AGENTS.md, CLAUDE.md) in the system prompt. */
export interface ContextFileInfo {
  path: string;
  chars: number;
  /** Other candidates in its folder that lost to it. */
  shadowed: string[];
}

/** A skill pi found. */
export interface SkillInfo {
  name: string;
  description: string;
  /** Its SKILL.md. */
  path: string;
  /** `disable-model-invocation`: not listed in the system prompt. */
  hidden: boolean;
  /** Where it was found (`user`, `project`, `path`, a package). */
  source: string;
}

/** A prompt piece (`--system-prompt`, `--append-system-prompt`, SYSTEM.md, APPEND_SYSTEM.md) and its file. */
export interface PromptText {
  text: string;
  /** `null`: given literally on the command line. */
  path: string | null;
}

/** What the system prompt is built from besides the tools. */
export interface ResourcesInfo {
  /** In prompt order. */
  contextFiles: ContextFileInfo[];
  skills: SkillInfo[];
  customPrompt: PromptText | null;
  appendPrompts: PromptText[];
}

/** A package's skill, with its entry's size in the system prompt. */
export interface PackageSkill {
  name: string;
  file: string;
  chars: number;
  /** When a vocabulary counted the request. */
  tokens: number | null;
}

/** A package's prompt template. */
export interface PackageTemplate {
  name: string;
  file: string;
  /** The prompt this run's `/name` expanded to (`null`: this prompt did not call it). */
  usedChars: number | null;
}

/** A tool a package's extension registered, with its definition's size in the request. */
export interface PackageTool {
  name: string;
  chars: number;
  tokens: number | null;
}

/** A pi package (settings `packages`) and what it brings to the request. */
export interface PackageCost {
  /** As the settings (or `-e`) give it: `npm:NAME`, `git:…`, a path. */
  source: string;
  /** Which settings file lists it; "temporary": given with `-e` on pi's command line (`settingsFile` is "args"). */
  scope: "user" | "project" | "temporary";
  settingsFile: string;
  line: number | null;
  /** Where it is installed; `null`: pi does not load it (not installed, not there). */
  installed: string | null;
  /** Its skills, each with its entry's size in the system prompt (tokens when counted). */
  skills: PackageSkill[];
  /** Its prompt templates; `usedChars`: the prompt this run's `/name` expanded to. */
  promptTemplates: PackageTemplate[];
  /** Its extensions: code ctxlens does not run. */
  extensions: string[];
  /** The tools its extensions registered, where a tool set (`sourceInfo`) or the session shows them, each with its definition's size in the request. */
  tools: PackageTool[];
  chars: number;
  tokens: number | null;
}

/**
 * Which vocabulary the model needs: a public one (`name`, `exact`), or none (`name` null,
 * `kind` the estimate that applies).
 */
export interface VocabularyInfo {
  /** The vocabulary (`o200k_base`, `claude`, ...); null: no public one. */
  name: string | null;
  /** Whether its counts are the provider's (false: a stand-in, e.g. Gemini on Gemma's). */
  exact?: boolean;
  /** With no public vocabulary, the estimate that applies (`claude`), if any. */
  kind?: string | null;
  why: string | null;
}

/**
 * pi's automatic compaction for this model (`getCompactionSettings`): the numbers are null
 * when pi refuses the settings (`error`).
 */
export interface CompactionInfo {
  enabled: boolean;
  reserveTokens: number | null;
  /** `contextWindow - reserveTokens`: pi compacts above it. */
  threshold: number | null;
  /** `threshold - tokens`: negative when pi would compact before this request. */
  distance: number | null;
  /** pi's error for compaction settings it refuses (1.x validates them). */
  error?: string;
}

/** The model's window and how much of it the request takes. */
export interface WindowInfo {
  /** The model's `contextWindow` (0 when the catalog gives none). */
  contextWindow: number;
  /** The request's tokens (system prompt, tools and history, counted or estimated). */
  tokens: number;
  /** `tokens / contextWindow`, rounded to 4 places (more than 1 when over). */
  share: number;
  compaction: CompactionInfo;
}

/** The release a past call is rebuilt by, and why. */
export interface CallRelease {
  version: PiVersion;
  reason: ReleaseReason;
}

/**
 * One assembly's request and what the accounting found, as the npm package returns it
 * (its body comes beside, as bytes). `method` and `url` are null when pi would not send a
 * request (see `diagnostics`).
 */
export interface AssemblyResult {
  method: "POST" | null;
  url: string | null;
  /**
   * The protocol's own headers in order (credentials as `<redacted>`; SDK runtime
   * headers left out).
   */
  headers: Array<[name: string, value: string]>;
  model: ModelInfo | null;
  /** The thinking level after pi's clamp ("off" when there is no model). */
  thinkingLevel: string;
  /** The pi release rebuilt and why. */
  pi: PiRelease | null;
  sessionId: string | null;
  /** The cwd pi runs in. */
  cwd: string;
  /**
   * The stages in pi's order; each `piSource` is where that code lives in the release
   * rebuilt.
   */
  stages: Stage[];
  /**
   * What the prefixes of `piSource` locations stand for: `{"AI":
   * "@earendil-works/pi-ai/dist", ...}`.
   */
  sourcePrefixes: Record<string, string>;
  /**
   * The pi packages the settings list: what each brings to this request and what it
   * costs.
   */
  packages: PackageCost[];
  stats: Stats | null;
  /** Notable properties of the request, most important first. */
  findings: Finding[];
  diagnostics: Diagnostic[];
  /**
   * The model calls on the session's active branch, each with the usage the provider
   * reported.
   */
  calls: Call[];
  /**
   * The call rebuilt (the `call` option, or the last call when there is no prompt);
   * null: the next request.
   */
  call: RebuiltCall | null;
}

/** A model by its provider and id. */
export interface ModelRef {
  provider: string;
  id: string;
}

/** The release that read a session file, and why. */
export interface ReleaseChoice {
  version: PiVersion;
  reason: ReleaseReason;
  explanation: string;
}

/** A session file as pi reads it (`parseSession`). */
export interface SessionTree {
  /** The release that read it, and why. */
  pi: ReleaseChoice;
  sessionId: string | null;
  cwd: string | null;
  /** The version the file declared before migration. */
  version: number;
  /** Every entry, in file order. */
  entries: EntryNode[];
  leafId: string | null;
  /** Entry ids on the active branch, root → leaf. */
  branch: string[];
  /** How many agent messages the branch yields. */
  messages: number;
  /** The last model on the branch. */
  model: ModelRef | null;
  thinkingLevel: string;
  /** The compaction in effect, if any. */
  compactionId: string | null;
  /**
   * The model calls on the active branch (its assistant messages), each with its
   * recorded usage: `call` in `assemble` rebuilds one.
   */
  calls: Call[];
  diagnostics: Diagnostic[];
}

/**
 * `result.tokens` (a call with `tokens: true`): what the model's tokens are counted with,
 * and whether they were.
 */
export interface TokensInfo {
  /**
   * The vocabulary the model's provider counts with (ctxlens's rules, by provider and
   * model id); null: none public or none known. It may be one the package does not ship
   * (`gemma3`).
   */
  vocabulary: string | null;
  /**
   * Whether that vocabulary's counts are the provider's (false: an estimate, e.g. Gemini
   * on Gemma's vocabulary, or a vocabulary no reference tokenizer confirmed).
   */
  exact: boolean;
  /**
   * Without a vocabulary, the estimate that applies (`claude`: calibrated on the
   * session's usage, its calls rebuilt); else null.
   */
  estimate: string | null;
  /**
   * Whether `stats` carry `tokens` (counted with `vocabulary`, or `estimate`d:
   * `stats.tokenizer.exact` is then false).
   */
  counted: boolean;
  /**
   * Why nothing was counted and what to do (`tokens not counted: ...`), or a remark on
   * the counts; null when there is none.
   */
  note: string | null;
  /**
   * The request against the model's `contextWindow` and pi's compaction threshold
   * (`contextWindow - compaction.reserveTokens`); null without tokens.
   */
  window: WindowInfo | null;
  /**
   * For an estimate: every call with usage rebuilt beside the provider's count, and the
   * characters per token fitted on them with the error measured by leaving each call
   * out; as `ctxlens stats`' `calibration`.
   */
  calibration: CalibrationInfo | null;
  /**
   * The core's notes on the tokens (why not counted, how estimated), as `ctxlens stats`'
   * `tokenNotes`.
   */
  notes: string[];
}

/** One call with usage, rebuilt beside the tokens the provider reported. */
export interface CalibratedCall {
  /** 1-based index on its branch. */
  index: number;
  entryId: string | null;
  /** The answer's line in the session file. */
  line: number;
  provider: string | null;
  model: string | null;
  /** The provider's prompt tokens: `input + cacheRead + cacheWrite`. */
  reportedTokens: number;
  /** System prompt, tools and history of the rebuilt request, in characters. */
  rebuiltChars: number;
  /** The same in tokens (with a vocabulary). */
  rebuiltTokens: number | null;
  /** `reportedTokens - rebuiltTokens`. */
  difference: number | null;
  /** Messages on the wire (framing is paid per message). */
  messages: number;
  images: number;
  /** Used in the fit (same model, rebuilt, no images, a non-zero usage). */
  used: boolean;
  /** Why not used, or what to know about it. */
  note: string | null;
  /**
   * The app's: the release this call is rebuilt by (a past call of a session a later pi
   * continued, the release that made it).
   */
  pi?: CallRelease;
}

/** With a vocabulary: the tokens a chat template adds, reported − counted. */
export interface FramingInfo {
  mean: number;
  min: number;
  max: number;
  /** Per call and per message, where the calls' message counts differ enough to fit them. */
  perCall: number | null;
  perMessage: number | null;
  calls: number;
}

/** The relative error of a fit, each call left out in turn. */
export interface FitErrorInfo {
  /** Mean and largest |predicted − reported| / reported, in percent. */
  meanAbsPct: number;
  maxAbsPct: number;
  calls: number;
}

/** Characters per token for the system prompt and tools, and for the history. */
export interface BlockRatios {
  systemPromptAndTools: number;
  history: number;
}

/** Without a vocabulary: characters per token fitted on the calls' usage. */
export interface EstimateInfo {
  charsPerToken: number;
  /** Whether the ratio is one a tokenizer gives (1 to 10 characters per token). */
  plausible: boolean;
  error: FitErrorInfo | null;
  /** Each block's own ratio, where the calls tell them apart. */
  blocks: BlockRatios | null;
  blocksError: FitErrorInfo | null;
  /** The ratios the estimate applies. */
  applied: BlockRatios;
}

/** The session's calls rebuilt against the usage they recorded, and the fit. */
export interface CalibrationInfo {
  /** The model the fit is for: `provider/id`. */
  model: string;
  calls: CalibratedCall[];
  /** With a vocabulary: the framing. */
  framing: FramingInfo | null;
  /** Without one: the estimate. */
  estimate: EstimateInfo | null;
  /** What could not be measured, and why. */
  notes: string[];
}

/** One body of a {@link Comparison}. */
export interface ComparisonSide {
  api: string;
  /** `provider/id`. */
  model: string;
  bodyBytes: number;
  bodyChars: number;
}

/** Where one kind of block lives in one body. */
export interface Placement {
  /** JSON paths (`messages[*].content[*].text`), in order of first appearance. */
  paths: string[];
  /** How many leaves. */
  leaves: number;
  /** UTF-16 units of its string leaves. */
  chars: number;
  /** For parameters: `path=value` (`max_tokens=64000`). */
  value: string | null;
}

/** The mapping table's row for one kind of block (system prompt, tool definitions, thinking, ...). */
export interface MappingRow {
  kind: string;
  title: string;
  a: Placement;
  b: Placement;
}

/** The body a loss happens in. */
export type LossSide = "a" | "b" | "both";

/** Something one body drops, converts, renames or adds that the other does not. */
export interface Loss {
  /** The body it happens in. */
  side: LossSide;
  kind: "dropped" | "converted" | "renamed" | "inserted" | "replaced" | "size" | "shape" | (string & {});
  /** A mapping row's `kind`, or `messages`. */
  what: string;
  count: number;
  detail: string;
}

/** Trace events of one body, grouped. */
export interface EventGroup {
  kind: EventKind;
  piSource: string | null;
  count: number;
  example: string;
}

/** Each body's trace events, grouped. */
export interface ComparisonEvents {
  a: EventGroup[];
  b: EventGroup[];
}

/** The same inputs under two protocols side by side (`compareWith`): `a` is the result's own body. */
export interface Comparison {
  a: ComparisonSide;
  b: ComparisonSide;
  mapping: MappingRow[];
  losses: Loss[];
  events: ComparisonEvents;
}

/**
 * The first changed byte of the body: the bytes before it (`cachedPrefixBytes`) are the
 * prefix a provider's cache still reuses; its JSON path, each side's value there and the
 * block it is in.
 */
export interface FirstChange {
  byte: number;
  utf16: number;
  cachedPrefixBytes: number;
  path: string | null;
  from: string | null;
  to: string | null;
  block: string | null;
}

/** A release that builds no request, and why. */
export interface NotBuilt {
  pi: PiVersion;
  why: string;
}

/** The URL under each side. */
export interface UrlChange {
  from: string;
  to: string;
}

/** A header whose value differs, or that one side lacks (null). */
export interface HeaderChange {
  name: string;
  from: string | null;
  to: string | null;
}

/** One block under both sides. */
export interface UpgradeBlock {
  /** `system prompt`, `tools`, `history`, `user text`, ..., `body`, `tool NAME`. */
  name: string;
  fromChars: number;
  toChars: number;
  charsDelta: number;
  /** With tokens counted on both sides (the `tokens` option), else null. */
  fromTokens: number | null;
  toTokens: number | null;
  tokensDelta: number | null;
}

/** A changelog line citing an issue a rule's entry cites. */
export interface ChangelogLine {
  pi: string;
  text: string;
}

/** A switch of the version table that differs between the releases. */
export interface RuleChange {
  rule: string;
  from: string;
  to: string;
  /** Whether it belongs to this request's protocol (or to every protocol). */
  appliesToThisProtocol: boolean;
  /** Its entry in the version table (the CLI's; null in the npm package). */
  doc: string | null;
  changelog: ChangelogLine[];
}

/** A section of a release's notes (`Added`, `Changed`, `Fixed`, ...). */
export interface ReleaseNotesSection {
  title: string;
  items: string[];
}

/** pi's notes for one release. */
export interface ReleaseNotes {
  pi: string;
  date: string | null;
  sections: ReleaseNotesSection[];
}

/** What upgrading pi does to the request (`compareWith: {piVersion}`). */
export interface Upgrade {
  /** The result's release. */
  from: PiVersion;
  /** The release compared with. */
  to: PiVersion;
  /** Body, URL and headers byte-identical. */
  identical: boolean;
  firstChange: FirstChange | null;
  notBuilt: NotBuilt[];
  url: UrlChange | null;
  headers: HeaderChange[];
  blocks: UpgradeBlock[];
  /**
   * The version table's switches that differ, and whether each belongs to this
   * request's protocol. Their entries and the changelog lines citing the same issues
   * are the CLI's (`ctxlens compare --pi-with`): `doc` is null and `changelog` empty in
   * the npm package.
   */
  rules: RuleChange[];
  /** pi's release notes between the two; null in the npm package (the CLI has them). */
  changelog: ReleaseNotes[] | null;
}

/** What to change in pi to get the changed request; `text` says it in words. */
export type TakeHome =
  | { kind: "flags"; flags: string[]; args: string[]; text: string }
  | { kind: "removeFiles"; paths: string[]; text: string }
  | { kind: "editFile"; path: string; line: string; content: string; text: string }
  | { kind: "editSession"; edits: string[]; content: string; text: string }
  | { kind: "install"; command: string; text: string }
  | { kind: "none"; why: string; text: string };

/** A change of a what-if, what it did, and how to make it in pi. */
export interface WhatIfChange {
  /** As given (`tool:bash`, `thinking=off`). */
  change: string;
  did: string;
  takeHome: TakeHome;
}

/** The model's prices, dollars per million tokens. */
export interface PricesPerMillion {
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What one call costs (dollars): all uncached, all read from the cache, all written to it. */
export interface CostPerCall {
  input: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
}

/** One side of a what-if: the request's size, its share of the model's context window, and what one call costs at the catalog's prices (dollars). */
export interface WhatIfSide {
  chars: number;
  images: number;
  tokens: number | null;
  tokensExact: boolean;
  tokensBy: string | null;
  contextWindow: number | null;
  windowShare: number | null;
  pricesPerMillion: PricesPerMillion | null;
  costPerCall: CostPerCall;
}

/** What the changes do to the request's size, window share and cost per call. */
export interface WhatIfDelta {
  chars: number;
  tokens: number | null;
  windowShare: number | null;
  costPerCall: CostPerCall;
}

/** What the changes do to the provider's prompt cache. */
export interface WhatIfCache {
  firstChangedByte: number | null;
  stablePrefixBytes: number;
  stableShare: number;
  nextCallCachedTokens: number | null;
  nextCallUncachedTokens: number | null;
  nextCallCost: number | null;
  warmCallCost: number | null;
  note: string;
}

/** A call of the session rebuilt as it was and with the changes made at the start. */
export interface WhatIfCall {
  /** 1-based among the session's calls. */
  call: number;
  entryId: string | null;
  line: number;
  beforeChars: number;
  afterChars: number | null;
  beforeTokens: number | null;
  afterTokens: number | null;
  /** The input tokens the provider reported for it. */
  reportedTokens: number | null;
  /** Those scaled by what the changes do to its request. */
  reportedTokensAfter: number | null;
  reportedCost: number | null;
  note: string | null;
}

/** The rebuilt calls summed, on one side. */
export interface WhatIfSessionSide {
  chars: number;
  tokens: number | null;
  reportedTokens: number | null;
}

/** What the changes would have saved over the rebuilt calls. */
export interface WhatIfSaved {
  chars: number;
  tokens: number | null;
  reportedTokens: number | null;
  cost: number | null;
}

/** The whole session rebuilt with the changes made at the start (`rebuildCalls`). */
export interface WhatIfSession {
  calls: WhatIfCall[];
  callsWithUsage: number;
  callsRebuilt: number;
  before: WhatIfSessionSide;
  after: WhatIfSessionSide;
  saved: WhatIfSaved;
  notes: string[];
}

/** What a what-if did: each change and its take-home, the body's first change (the cache), each block's delta, the request's size, window share and cost per call before and after, and the whole session rebuilt with it (with `rebuildCalls`). */
export interface WhatIf {
  changes: WhatIfChange[];
  identical: boolean;
  firstChange: FirstChange | null;
  url: UrlChange | null;
  headers: HeaderChange[];
  blocks: UpgradeBlock[];
  before: WhatIfSide;
  after: WhatIfSide;
  delta: WhatIfDelta;
  cache: WhatIfCache | null;
  session: WhatIfSession | null;
}

/** How the calls are grouped. */
export type UsageGroupBy = "day" | "week" | "month" | "session" | "project" | "model" | "release";

/** The usage pi recorded, summed: tokens as the provider counted them, `cost` as pi recorded it (`cost.total`). */
export interface UsageTotals {
  sessions: number;
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

/** Characters of the rebuilt requests, and the recorded prompt tokens and prompt cost split to them by share. */
export interface UsageShare {
  chars: number;
  tokens: number;
  cost: number;
}

/** The request's blocks over the rebuilt calls. */
export interface UsageBlocks {
  systemPrompt: UsageShare;
  tools: UsageShare;
  history: UsageShare;
  parameters: UsageShare;
  structure: UsageShare;
}

/** What `without`/`set`, made from each session's start, would have saved. */
export interface UsageSaved {
  /** Calls rebuilt with the change. */
  calls: number;
  /** Of those, the calls it found something in. */
  applied: number;
  tokens: number;
  cost: number;
}

/**
 * A group of calls (a day, a week, a month, a session, a project, a model or a pi release):
 * its recorded usage, and its rebuilt calls by block.
 */
export interface UsageGroup {
  key: string;
  sessions: number;
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  /** Of its calls, those rebuilt (the blocks are over these). */
  rebuilt: number;
  blocks: UsageBlocks;
  saved: UsageSaved | null;
}

/** A tool, a kind of history or a tool's results. */
export interface UsageItem {
  name: string;
  /** In how many rebuilt requests it was. */
  requests: number;
  chars: number;
  tokens: number;
  cost: number;
}

/** A system-prompt section or a skill, with the file it comes from. */
export interface UsageSourcedItem {
  name: string;
  /** Its file (a context file, a skill's `SKILL.md`), or what made it (`pi`, `settings`). */
  source: string;
  /** In how many rebuilt requests it was. */
  requests: number;
  chars: number;
  tokens: number;
  cost: number;
}

/**
 * A context file whose whole text another context file of the same request already holds
 * (pi sends both), counted over the requests where that was so.
 */
export interface UsageShadowedFile {
  /** The copy: what `--without context:PATH` would save. */
  file: string;
  /** The file holding its text. */
  heldBy: string;
  requests: number;
  chars: number;
  tokens: number;
  cost: number;
}

/** The calls whose request broke the previous call's cached prefix for one reason. */
export interface UsageCacheBreaks {
  reason: string;
  calls: number;
  /** The tokens sent again. */
  tokens: number;
  /** Those tokens at the input price less the cache-read price; `null`: no prices. */
  cost: number | null;
}

/** A call whose request broke the previous call's cached prefix (`ctxlens FILE --call ENTRY` opens it). */
export interface UsageBreak {
  file: string;
  line: number;
  entryId: string | null;
  timestamp: string;
  model: string | null;
  /** The pi release that rebuilt it; `null`: not rebuilt. */
  pi: string | null;
  /** Where the prompt stopped extending the previous one's. */
  block: "systemPrompt" | "tools" | "history";
  reason: string;
  /** The characters sent again. */
  chars: number;
  tokens: number;
  cost: number | null;
}

/** A call with its usage as pi recorded it (`ctxlens FILE --call ENTRY` opens it). */
export interface UsageCostlyCall {
  file: string;
  line: number;
  entryId: string | null;
  timestamp: string;
  model: string | null;
  /** The pi release that rebuilt it; `null`: not rebuilt. */
  pi: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

/** A file (or a line of one) left out, and why. */
export interface UsageSkipped {
  file: string;
  line: number | null;
  reason: string;
}

/**
 * A file that changed between its reading and its calls' rebuild (pi appending to the
 * session it runs): its calls are those of the first reading.
 */
export interface UsageChangedFile {
  file: string;
  reason: string;
}

/** A call counted but not rebuilt, and why. */
export interface UsageNotRebuilt {
  file: string;
  line: number;
  reason: string;
}

/** What was read to make the report. */
export interface UsageRead {
  /** The folders or files asked for. */
  roots: string[];
  files: number;
  /** Calls found twice (the same time and tokens: a forked session's copy), counted once. */
  duplicates: number;
  skipped: UsageSkipped[];
  changed: UsageChangedFile[];
  notRebuilt: UsageNotRebuilt[];
}

/** `usage()`, as `ctxlens usage --json` writes it (docs/usage.md). */
export interface UsageReport {
  groupBy: UsageGroupBy;
  since: string | null;
  until: string | null;
  /** Over every call read (those within `since`..`until`). */
  totals: UsageTotals;
  /** Calls rebuilt (the blocks and items are over these). */
  rebuilt: number;
  /**
   * How the rebuilt calls' prompt tokens were split over their parts: by each vocabulary
   * (its name: `o200k_base`, …) or by `characters` (Claude's vocabulary is not public),
   * with how many calls each.
   */
  splitBy: Record<string, number>;
  blocks: UsageBlocks;
  groups: UsageGroup[];
  tools: UsageItem[];
  sections: UsageSourcedItem[];
  history: UsageItem[];
  toolResults: UsageItem[];
  saved: UsageSaved | null;
  /** The calls whose request broke the previous call's cached prefix, by reason. */
  cacheBreaks: UsageCacheBreaks[];
  /** Each such call, most tokens sent again first. */
  breaks: UsageBreak[];
  /** The ten calls pi recorded the most cost for, largest first, with their usage as recorded. */
  costliest: UsageCostlyCall[];
  /** Tools sent in the rebuilt requests but never called in them, largest cost first. */
  neverCalled: UsageItem[];
  /**
   * Skills offered in the rebuilt requests that no call used (no tool call named the
   * skill's file, no prompt asked for it), largest cost first: `name` is the skill's folder.
   */
  neverInvoked: UsageSourcedItem[];
  /** Context files sent twice, largest cost first. */
  shadowedFiles: UsageShadowedFile[];
  read: UsageRead;
}
