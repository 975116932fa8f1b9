// "ctxlens" for Node: the package's Node wasm (wasm/ctxlens_node_bg.wasm: the browser's API plus
// the host and the command line, built for speed where the browser's is built for size) is read
// from the package and instantiated synchronously, so the API is ready on import (no init). Each
// pi release's data (data/pi-<version>/ in the package) is read the first time a call rebuilds
// that release, and so is a vocabulary (tokenizers/) the first time a call with `tokens: true`
// needs it. `assembleSession` and the bin read the real machine through the same instance
// (node.js).
import { readFileSync } from "node:fs";
import * as raw from "./wasm/ctxlens_node.js";
import { bind, dataBlob, protocols, piVersion, piVersions, CtxlensError } from "./api.js";
import { vocabularies } from "./tokens.js";
import { loadVocabulary, nodeVocabularies } from "./node-tokens.js";

raw.initSync({ module: readFileSync(new URL("./wasm/ctxlens_node_bg.wasm", import.meta.url)) });

function load(_fn, version) {
  return dataBlob(raw, (name) => readFileSync(new URL(`./data/pi-${version}/${name}`, import.meta.url)));
}

export const { assemble, assembleCase, parseSession, createWorkspace } = bind(raw, undefined, load, { host: nodeVocabularies });
// The real machine (the package's second wasm, loaded on first use): see node.js.
export { assembleSession, usage } from "./node.js";
/** Already resolved: the same code runs here and in the bundler entry, where it waits for the wasm. */
export const ready = Promise.resolve();
export { protocols, piVersion, piVersions, CtxlensError, loadVocabulary, vocabularies };
