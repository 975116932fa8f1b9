// "ctxlens/web": plain browser ESM. `await init()` fetches and instantiates the wasm (by default
// from ./wasm/ctxlens_bg.wasm beside this file); the API throws until it has. Each pi release's
// data (./data/pi-<version>/ beside this file) is fetched by `await load(version)`, on first use:
// a call that rebuilds a release whose data is not loaded throws a CtxlensError whose
// `piVersion` names it (load it, then call again).
import wbgInit, * as raw from "./wasm/ctxlens.js";
import { bind, dataBlob, protocols, piVersion, piVersions, CtxlensError } from "./api.js";

let ready = false;
let pending = null;

/** Loads the wasm: from `input` (a URL, Response, bytes or WebAssembly.Module) or its default URL. */
export default function init(input) {
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

/**
 * Fetches pi `version`'s data (its JSON files, from `base`, by default ./data/ beside this
 * module), once; resolves when the calls can rebuild that release.
 */
export function load(version, base) {
  if (!piVersions.includes(version)) {
    return Promise.reject(new CtxlensError(`ctxlens.load: pi ${version} is not a release ctxlens rebuilds (supported: ${piVersions.join(", ")})`));
  }
  if (loaded.has(version)) return Promise.resolve();
  let p = fetching.get(version);
  if (!p) {
    const dir = new URL(`pi-${version}/`, base ?? new URL("./data/", import.meta.url));
    p = init()
      .then(() =>
        Promise.all(
          raw.dataFilesRaw().map(async (name) => {
            const url = new URL(name, dir);
            const r = await fetch(url, { credentials: "same-origin" });
            if (!r.ok) throw new CtxlensError(`ctxlens.load: ${url}: HTTP ${r.status}`);
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

/**
 * Installs pi `version`'s data from files you already have (`{name: bytes or text}`, the files of
 * the package's data/pi-<version>/), for environments without `fetch` of the package's own URL.
 */
export function install(version, files) {
  if (!piVersions.includes(version)) throw new CtxlensError(`ctxlens.install: pi ${version} is not a release ctxlens rebuilds (supported: ${piVersions.join(", ")})`);
  const map = new Map();
  for (const [name, content] of Object.entries(files ?? {})) {
    map.set(name, typeof content === "string" ? new TextEncoder().encode(content) : content);
  }
  loaded.set(version, map);
}

/** The files of a loaded release, for a call that needs them; else what to do. */
function need(fn, version) {
  const files = loaded.get(version);
  if (!files) {
    const e = new CtxlensError(`ctxlens.${fn}: pi ${version}'s data is not loaded: \`await load("${version}")\` (from "ctxlens/web") first, then call again`);
    e.piVersion = version;
    throw e;
  }
  return dataBlob(raw, (name) => files.get(name));
}

const bound = bind(
  raw,
  (fn) => {
    if (!ready) throw new Error(`ctxlens.${fn}: the wasm is not loaded; call \`await init()\` (from "ctxlens/web") first`);
  },
  need,
);

export const { assemble, assembleCase, parseSession } = bound;
export { protocols, piVersion, piVersions, CtxlensError };
