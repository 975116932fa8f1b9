// The browser runtime shared by "ctxlens/web" (web.js) and the bundler entry (bundler.js): one
// wasm instance per page, each release's data fetched once, and the API bound to them. Internal
// (not in the package's exports); each entry says where its wasm and data come from.
import wbgInit, * as raw from "./wasm/ctxlens.js";
import { bind, dataBlob, piVersions, CtxlensError } from "./api.js";
import { hostVocabularies } from "./tokens.js";

let ready = false;
let pending = null;

/**
 * Loads the wasm: from `input` (a URL, Response, bytes or WebAssembly.Module) or the glue's own
 * `new URL("ctxlens_bg.wasm", import.meta.url)`, which bundlers copy as an asset.
 */
export function init(input) {
  if (ready) return Promise.resolve();
  pending ??= wbgInit(input === undefined ? undefined : { module_or_path: input }).then(
    () => {
      ready = true;
    },
    (e) => {
      pending = null;
      throw e;
    },
  );
  return pending;
}

/** Instantiates the wasm synchronously from its bytes or a compiled module. */
export function initSync(module) {
  if (ready) return;
  raw.initSync({ module });
  ready = true;
}

/** Releases being fetched (version → promise) and fetched (version → their files by name). */
const fetching = new Map();
const loaded = new Map();

function checkVersion(fn, version) {
  if (!piVersions.includes(version)) {
    throw new CtxlensError(`ctxlens.${fn}: pi ${version} is not a release ctxlens rebuilds (supported: ${piVersions.join(", ")})`);
  }
}

/**
 * Fetches pi `version`'s data files, once: `urlOf(name)` is where the file `name` of
 * data/pi-<version>/ is. Resolves when the calls can rebuild that release.
 */
export function loadFrom(fn, version, urlOf) {
  try {
    checkVersion(fn, version);
  } catch (e) {
    return Promise.reject(e);
  }
  if (loaded.has(version)) return Promise.resolve();
  let p = fetching.get(version);
  if (!p) {
    p = init()
      .then(() =>
        Promise.all(
          raw.dataFilesRaw().map(async (name) => {
            const url = urlOf(name);
            if (url === undefined) throw new CtxlensError(`ctxlens.${fn}: pi ${version}'s data has no file ${name} (a broken package: reinstall it)`);
            const r = await fetch(url, { credentials: "same-origin" });
            if (!r.ok) throw new CtxlensError(`ctxlens.${fn}: ${url}: HTTP ${r.status}`);
            return [name, new Uint8Array(await r.arrayBuffer())];
          }),
        ),
      )
      .then((files) => {
        loaded.set(version, new Map(files));
      })
      .finally(() => fetching.delete(version));
    fetching.set(version, p);
  }
  return p;
}

/** Installs pi `version`'s data from files the caller already has (`{name: bytes or text}`). */
export function install(version, files) {
  checkVersion("install", version);
  const map = new Map();
  for (const [name, content] of Object.entries(files ?? {})) {
    map.set(name, typeof content === "string" ? new TextEncoder().encode(content) : content);
  }
  loaded.set(version, map);
}

/**
 * The API over this runtime. `notReady(fn)` is the error a call makes before the wasm is
 * loaded, `notLoaded(fn, version)` the one it makes when a release's data is not (each entry
 * says what its user does about it). A call with `tokens: true` counts with the vocabularies
 * loaded (`loadVocabulary`, from `entry`, which the note of a call without them names).
 */
export function bindBrowser(notReady, notLoaded, entry) {
  return bind(
    raw,
    (fn) => {
      if (!ready) throw notReady(fn);
    },
    (fn, version) => {
      const files = loaded.get(version);
      if (!files) {
        const e = notLoaded(fn, version);
        e.piVersion = version;
        throw e;
      }
      return dataBlob(raw, (name) => files.get(name));
    },
    { host: () => hostVocabularies(undefined, entry) },
  );
}
