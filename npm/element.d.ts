// "ctxlens/element": the <ctxlens-view> custom element and `mount`. Importing the module
// registers the element.
import type { Api, Assembly, StageId, ThinkingLevel } from "./types.js";

/** What an element shows. */
export type ViewName = "stats" | "findings" | "stage" | "body" | "compare" | "whatif";

/** A context file (AGENTS.md, CLAUDE.md, ...) and the folder it stands for. */
export interface ContextFile {
  /** Its URL (same origin as the page). */
  url: string;
  /** The folder it lies in: absolute, `~/…` (the home, e.g. `~/.pi/agent`), or relative to the cwd. Default: the cwd. */
  folder?: string;
}

/**
 * The options of {@link mount}: the element's attributes as data. Every URL must be on the
 * page's own origin; another origin is refused with a message in the element.
 */
export interface ViewOptions {
  /** The pi session (`session.jsonl`) URL. */
  src?: string;
  /** A case manifest URL: `{"files": ["case.json", "session.jsonl", "expected/env.json", ...]}`, paths relative to it. */
  case?: string;
  /** Extension tools (`tools.json`) URL. */
  tools?: string;
  /** Context files: `"docs/AGENTS.md, docs/sub/AGENTS.md=sub"` (URL, then `=folder`), or a list. */
  context?: string | Array<string | ContextFile>;
  /** `--model`: `provider/id`. Default: the session's. */
  model?: string;
  /** `--thinking`. */
  thinking?: ThinkingLevel | (string & {});
  /** The protocol: the same model with its `api` replaced. */
  protocol?: Api;
  /** Default: `whatif` with `whatif`, `compare` with `with`, `stage` with `stage`, else `stats`. */
  view?: ViewName;
  /** For `view="stage"`: a stage id, or its 0-based index. Default: the first stage. */
  stage?: StageId | number | (string & {});
  /** For `view="compare"`: the protocol to compare with. */
  with?: Api;
  /** The next prompt. Default: none (pi continues after the session's last message). */
  prompt?: string;
  /**
   * What if: the app's what-if changes, as its `whatif=` hash holds them — `"tool:bash,
   * skill:NAME, thinking=low"` (comma-separated, each percent-decoded) or a list — `ctxlens
   * whatif`'s specs: `KEY=VALUE` (`model=`, `thinking=`, `api=`, `pi=`) sets, every other one
   * (`tool:NAME`, `skill:NAME`, `skill-invocation:NAME`, `context:PATH`, `append-prompt`,
   * `entry:ID`, `turn:ID`, `tool-result:ID[:N]`, `thinking:old`, `image:all|ID`) switches off (the npm
   * API's `set` and `without`). Every view then shows the changed request; `view="whatif"` (the
   * default with it) what the changes do: `result.whatif`.
   */
  whatif?: string | string[];
  /** A smaller frame. */
  compact?: boolean;
  /** The full app's URL, for the "Open in ctxlens" link (same origin). Default `./index.html`. */
  app?: string;
}

/** `<ctxlens-view>`. Attributes changed at runtime re-render it. */
export declare class CtxlensView extends HTMLElement {
  static readonly observedAttributes: readonly string[];
  /** Where it is: nothing yet, fetching and assembling, on screen, or showing an error. */
  readonly state: "idle" | "loading" | "ready" | "error";
  /** The assembly on screen (null until it is ready). */
  readonly result: Assembly | null;
  /** Sets options as attributes (`false`/`null` removes one); the element re-renders. */
  update(options: ViewOptions): this;
  connectedCallback(): void;
  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void;
}

/** The tag, `"ctxlens-view"`. */
export declare const TAG: "ctxlens-view";
/** The views an element can show. */
export declare const VIEWS: readonly ViewName[];

/** Mounts a view in `target` (itself when it is a <ctxlens-view>, else a new one appended to it). */
export declare function mount(target: Element, options: ViewOptions): CtxlensView;

/** Loads the wasm, once per page (every element shares it). */
export declare function loadWasm(): Promise<void>;

/** Registers the element (importing the module already did). */
export declare function define(): void;

/** `"tool:bash, model=a%2Fb"` (or a list) → the what-if specs, each percent-decoded. */
export declare function parseWhatif(value: string | string[] | null | undefined): string[];

/** `"a/AGENTS.md=sub, b/CLAUDE.md"` → the list. */
export declare function parseContext(value: string | Array<string | ContextFile> | null | undefined): Array<{ url: string; folder: string }>;

declare global {
  interface HTMLElementTagNameMap {
    "ctxlens-view": CtxlensView;
  }
  interface HTMLElementEventMap {
    "ctxlens-loading": CustomEvent<undefined>;
    "ctxlens-ready": CustomEvent<{ view: ViewName }>;
    "ctxlens-error": CustomEvent<{ message: string }>;
  }
}
