// "ctxlens/web": plain browser ESM. `await init()` fetches and instantiates the wasm (by default
// from ./wasm/ctxlens_bg.wasm beside this file); the API throws until it has. Each pi release's
// data (./data/pi-<version>/ beside this file) is fetched by `await load(version)`, on first use:
// a call that rebuilds a release whose data is not loaded throws a CtxlensError whose
// `piVersion` names it (load it, then call again). A vocabulary (./tokenizers/NAME.wasm beside
// this file) is fetched by `await loadVocabulary(name)`; a call with `tokens: true` counts with
// the model's when it is loaded, and says which one it needs when it is not.
import { init, initSync, install, loadFrom, bindBrowser } from "./browser.js";
import { protocols, piVersion, piVersions, CtxlensError } from "./api.js";
import { loadVocabularyFetch, vocabularies } from "./tokens.js";

// Read once, not written as `new URL("./data/", import.meta.url)`: a bundler would take that
// for an asset and look for a file named data/ (the bundler entry lists its data files itself).
const here = import.meta.url;

/** Loads the wasm: from `input` (a URL, Response, bytes or WebAssembly.Module) or its default URL. */
export default function (input) {
  return init(input);
}

/**
 * Fetches pi `version`'s data (its JSON files, from `base`, by default ./data/ beside this
 * module), once; resolves when the calls can rebuild that release.
 */
export function load(version, base) {
  const dir = new URL(`pi-${version}/`, base ?? new URL("data/", here));
  return loadFrom("load", version, (name) => new URL(name, dir));
}

/**
 * Fetches vocabulary `name`'s module (./tokenizers/NAME.wasm beside this module, or `url`) with
 * progress, once; resolves to it.
 */
export const loadVocabulary = loadVocabularyFetch(() => new URL("tokenizers/", here));

export const { assemble, assembleCase, parseSession, createWorkspace } = bindBrowser(
  (fn) => new Error(`ctxlens.${fn}: the wasm is not loaded; call \`await init()\` (from "ctxlens/web") first`),
  (fn, version) => new CtxlensError(`ctxlens.${fn}: pi ${version}'s data is not loaded: \`await load("${version}")\` (from "ctxlens/web") first, then call again`),
  "ctxlens/web",
);
export { initSync, install, protocols, piVersion, piVersions, CtxlensError, vocabularies };
