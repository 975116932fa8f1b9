// "ctxlens/web" (plain browser ESM): `await init()` before calling the API.
export * from "./types.js";

/** What `init` can load the wasm from. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** Fetches and instantiates the wasm (by default ./wasm/ctxlens_bg.wasm beside web.js). Safe to call more than once. */
export default function init(input?: InitInput | Promise<InitInput>): Promise<void>;

/** Instantiates the wasm synchronously from its bytes or a compiled module. */
export function initSync(module: BufferSource | WebAssembly.Module): void;
