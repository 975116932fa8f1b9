// "ctxlens" for bundlers and browsers resolving the package root (tested: Vite 6 and webpack 5
// with their default settings, tests/npm/bundlers.test.mjs). No top-level await (Vite's default
// build target rejects it): importing starts loading the wasm and every release's data, and `ready`
// resolves when the calls can run; a call before that throws. Every file is referenced as
// `new URL("<literal path>", import.meta.url)` (the wasm in ./wasm/ctxlens.js, the data in
// ./data.js, which scripts/build-npm.sh writes), the form bundlers copy as an asset.
import { init, loadFrom, bindBrowser } from "./browser.js";
import { dataFiles } from "./data.js";
import { protocols, piVersion, piVersions, CtxlensError } from "./api.js";
import { loadVocabularyFetch, vocabularies } from "./tokens.js";

let failed = null;

/** Resolves when the wasm and every release's data are loaded; rejects with why they were not. */
export const ready = init()
  .then(() => Promise.all(piVersions.map((v) => loadFrom("ready", v, (name) => dataFiles[v]?.[name]))))
  .then(
    () => {},
    (e) => {
      failed = e;
      throw e;
    },
  );

function notReady(fn) {
  if (failed) return new CtxlensError(`ctxlens.${fn}: the wasm or a release's data did not load: ${failed.message}`, { cause: failed });
  return new CtxlensError(`ctxlens.${fn}: ctxlens is still loading; \`await ready\` (import { ready } from "ctxlens") before the first call`);
}

export const { assemble, assembleCase, parseSession, createWorkspace } = bindBrowser(notReady, (fn) => notReady(fn), "ctxlens");

/**
 * Fetches vocabulary `name`'s module with progress, once: by default tokenizers/NAME.wasm beside
 * the page (copy the package's tokenizers/ folder to the app's public files: bundlers do not copy
 * modules that may never be used), or `url`.
 */
export const loadVocabulary = loadVocabularyFetch(() => new URL("tokenizers/", globalThis.document?.baseURI ?? globalThis.location?.href));

/** Node only: a page has no machine to read. */
export function assembleSession() {
  throw new CtxlensError("ctxlens.assembleSession reads the machine pi runs on: it is in Node only (in a page, `assemble` takes the files)");
}
/** Node only: a page has no sessions folder to read. */
export function usage() {
  throw new CtxlensError("ctxlens.usage reads the sessions folder pi writes on this machine: it is in Node only");
}
export { protocols, piVersion, piVersions, CtxlensError, vocabularies };
