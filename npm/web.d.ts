// "ctxlens/web" (plain browser ESM): `await init()` before calling the API.
export * from "./types.js";

/** What `init` can load the wasm from. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** Fetches and instantiates the wasm (by default ./wasm/ctxlens_bg.wasm beside web.js). Safe to call more than once. */
export default function init(input?: InitInput | Promise<InitInput>): Promise<void>;

/** Instantiates the wasm synchronously from its bytes or a compiled module. */
export function initSync(module: BufferSource | WebAssembly.Module): void;

/** Fetches pi `version`'s data (./data/pi-<version>/ beside web.js, or under `base`), once. A call that rebuilds a release not loaded yet throws a `CtxlensError` whose `piVersion` names it. */
export function load(version: import("./types.js").PiVersion, base?: string | URL): Promise<void>;

/** Installs pi `version`'s data from its files (`{name: bytes or text}`), without fetching. */
export function install(version: import("./types.js").PiVersion, files: Record<string, Uint8Array | string>): void;
