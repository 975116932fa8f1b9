// "ctxlens": Node (ready on import) and bundlers (ready once `ready` resolves).
export * from "./types.js";

/**
 * Resolves when the calls can run: at once in Node; in a bundled app, once the wasm and every
 * release's data are loaded (a call before that throws a `CtxlensError`). Rejects with why
 * they did not load.
 */
export declare const ready: Promise<void>;
