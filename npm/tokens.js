// Token counts: one wasm module per vocabulary (crate tokens/wasm, built by
// scripts/build-tokenizers.sh into the package's tokenizers/), loaded only when asked for. Shared
// by every entry (Node, "ctxlens/web", bundlers); each says how a module's bytes are read. The
// modules have no imports and plain exports (docs/tokenizers.md, "The vocabulary modules"):
// memory, ctx_alloc(len), ctx_free(ptr, len), ctx_count(ptr, len), ctx_name(out, cap).
import { CtxlensError } from "./api.js";

/**
 * The vocabularies this package ships: tokenizers/NAME.wasm in the package. Never written as
 * `new URL("<literal>", import.meta.url)`: a bundler would copy all ten (15 MB) into every app's
 * output, used or not. Each entry says where the folder is (Node and "ctxlens/web": beside them
 * in the package; the bundler entry: tokenizers/ beside the page, see the README).
 */
export const vocabularies = Object.freeze(["o200k_base", "cl100k_base", "qwen2", "deepseek_v3", "llama3", "mistral_v3", "kimi_k2", "glm4", "glm5", "minimax_m2"]);

/** Where vocabulary `name`'s module is in the folder `base` (a URL ending in `/`). */
export function vocabularyUrl(name, base) {
  return new URL(`${name}.wasm`, base);
}

const NOT_COUNTED = 0xffffffff;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Loaded vocabularies by name, and those being fetched (name → promise). */
const loaded = new Map();
const loading = new Map();

function checkName(fn, name) {
  if (typeof name !== "string" || !vocabularies.includes(name)) {
    throw new CtxlensError(`ctxlens.${fn}: ${JSON.stringify(name)} is not a vocabulary this package has (it has: ${vocabularies.join(", ")})`);
  }
}

/**
 * A vocabulary over an instantiated module: checks that the module is `name`'s, then builds the
 * vocabulary (its first count), so that counting never waits for it.
 */
function vocabularyOf(fn, name, instance) {
  const ex = instance.exports;
  for (const f of ["ctx_alloc", "ctx_free", "ctx_count", "ctx_name"]) {
    if (typeof ex[f] !== "function" || !(ex.memory instanceof WebAssembly.Memory)) {
      throw new CtxlensError(`ctxlens.${fn}: the ${name} module is not a ctxlens vocabulary module (no ${f} or memory)`);
    }
  }
  const bytes = (ptr, len) => new Uint8Array(ex.memory.buffer, ptr, len);
  const q = ex.ctx_alloc(64) >>> 0;
  const n = ex.ctx_name(q, 64) >>> 0;
  const got = decoder.decode(bytes(q, Math.min(n, 64)));
  ex.ctx_free(q, 64);
  if (got !== name) throw new CtxlensError(`ctxlens.${fn}: the module loaded for ${name} is the ${JSON.stringify(got)} vocabulary's`);

  // One scratch buffer, grown as texts need it (a view is made anew after each call: the
  // module's memory may have grown, which detaches the old one).
  let cap = 0;
  let ptr = 0;
  function room(len) {
    if (len <= cap) return;
    if (cap > 0) ex.ctx_free(ptr, cap);
    cap = Math.max(len, 2 * cap, 4096);
    ptr = ex.ctx_alloc(cap) >>> 0;
    if (ptr === 0) {
      cap = 0;
      throw new CtxlensError(`ctxlens: the ${name} vocabulary has no memory left for a text of ${len} bytes`);
    }
  }
  function counted(n) {
    const c = n >>> 0;
    if (c === NOT_COUNTED) throw new CtxlensError(`ctxlens: the ${name} vocabulary could not count a text (not UTF-8)`);
    return c;
  }
  function countBytes(b) {
    room(b.byteLength);
    bytes(ptr, b.byteLength).set(b);
    return counted(ex.ctx_count(ptr, b.byteLength));
  }
  const vocabulary = Object.freeze({
    name,
    /** Tokens of `text`, encoded on its own (no BOS/EOS, no chat template). */
    count(text) {
      if (typeof text !== "string") throw new CtxlensError(`ctxlens: count takes a string, got ${text === null ? "null" : typeof text}`);
      // At most 3 bytes per UTF-16 unit.
      room(text.length * 3);
      const { written } = encoder.encodeInto(text, bytes(ptr, cap));
      return counted(ex.ctx_count(ptr, written));
    },
    /** Tokens of each UTF-8 text `bytes[ends[i-1]..ends[i]]` (what the core asks for). */
    countTexts(all, ends) {
      room(all.byteLength);
      bytes(ptr, all.byteLength).set(all);
      const out = new Uint32Array(ends.length);
      let start = 0;
      for (let i = 0; i < ends.length; i++) {
        out[i] = counted(ex.ctx_count(ptr + start, ends[i] - start));
        start = ends[i];
      }
      return out;
    },
    countBytes,
  });
  vocabulary.count("");
  return vocabulary;
}

/** A loaded vocabulary, or undefined. */
export function loadedVocabulary(name) {
  return loaded.get(name);
}

/**
 * Loads vocabulary `name` synchronously from its module's bytes (Node, which reads the file):
 * compiled, instantiated and built now.
 */
export function loadVocabularySync(fn, name, readBytes) {
  checkName(fn, name);
  let v = loaded.get(name);
  if (!v) {
    const module = new WebAssembly.Module(readBytes(name));
    v = vocabularyOf(fn, name, new WebAssembly.Instance(module, {}));
    loaded.set(name, v);
  }
  return v;
}

/**
 * Fetches a module with progress: `onProgress({name, loaded, total})` as its bytes arrive
 * (`total`: the Content-Length, null when the server gives none or compresses the body, whose
 * Content-Length is then not the bytes read).
 */
async function fetchModule(fn, name, url, onProgress) {
  const r = await fetch(url, { credentials: "same-origin" });
  if (!r.ok) throw new CtxlensError(`ctxlens.${fn}: ${url}: HTTP ${r.status}`);
  const length = Number(r.headers.get("Content-Length"));
  const total = r.headers.get("Content-Encoding") || !Number.isSafeInteger(length) || length <= 0 ? null : length;
  if (!onProgress || !r.body) return new Uint8Array(await r.arrayBuffer());
  const chunks = [];
  let got = 0;
  onProgress({ name, loaded: 0, total });
  const reader = r.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    got += value.byteLength;
    onProgress({ name, loaded: got, total });
  }
  const all = new Uint8Array(got);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return all;
}

function checkLoadOptions(fn, options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options)) throw new CtxlensError(`ctxlens.${fn}: options must be an object`);
  for (const key of Object.keys(options)) {
    if (key !== "onProgress" && key !== "url") throw new CtxlensError(`ctxlens.${fn}: unknown option \`${key}\` (known: onProgress, url)`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") throw new CtxlensError(`ctxlens.${fn}: \`onProgress\` must be a function`);
  return options;
}

/**
 * `loadVocabulary(name, {onProgress, url})` for a browser: fetches the module (by default
 * NAME.wasm in the folder `base()` names; `url` another place), with progress, once.
 */
export const loadVocabularyFetch = (base) => (name, options) => {
  const fn = "loadVocabulary";
  try {
    checkName(fn, name);
    checkLoadOptions(fn, options);
  } catch (e) {
    return Promise.reject(e);
  }
  const v = loaded.get(name);
  if (v) return Promise.resolve(v);
  let p = loading.get(name);
  if (!p) {
    const url = options?.url ?? vocabularyUrl(name, base());
    p = fetchModule(fn, name, url, options?.onProgress)
      .then((bytes) => WebAssembly.instantiate(bytes, {}))
      .then(({ instance }) => {
        const v = vocabularyOf(fn, name, instance);
        loaded.set(name, v);
        return v;
      })
      .finally(() => loading.delete(name));
    loading.set(name, p);
  }
  return p;
};

/** `loadVocabulary` for Node: `readBytes(name, url)` reads the module (`url`: the option). */
export function loadVocabularyNode(readBytes) {
  return (name, options) => {
    const fn = "loadVocabulary";
    try {
      checkName(fn, name);
      const o = checkLoadOptions(fn, options);
      let size = 0;
      const v = loadVocabularySync(fn, name, () => {
        const bytes = readBytes(name, o.url);
        size = bytes.byteLength;
        return bytes;
      });
      // Read at once: one event, all of it (none when it was already loaded).
      if (size > 0) o.onProgress?.({ name, loaded: size, total: size });
      return Promise.resolve(v);
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

/**
 * What the wasm counts through for a call that asks for tokens (`JsVocabularies` in
 * wasm/src/lib.rs): `countTexts(name, bytes, ends)` with the loaded vocabulary, `undefined`
 * when it is not loaded. `autoload(name)` may load it first (Node: synchronously). `shipped` and
 * `entry` (the module the user imports `loadVocabulary` from) are for the note of a call that
 * counted nothing (`result.tokens.note`).
 */
export function hostVocabularies(autoload, entry = "ctxlens") {
  return {
    shipped: vocabularies,
    entry,
    countTexts(name, bytes, ends) {
      let v = loaded.get(name);
      if (!v && autoload && vocabularies.includes(name)) v = autoload(name);
      return v ? v.countTexts(bytes, ends) : undefined;
    },
  };
}
