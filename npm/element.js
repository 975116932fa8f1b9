// "ctxlens/element": the <ctxlens-view> custom element and `mount(element, options)`, for
// documentation pages. It fetches the files it is pointed at (same origin only), loads the wasm
// lazily — once per page, shared by every element — assembles, and shows one view in its own
// shadow DOM; with `whatif` (the app's what-if specs) every view shows the request with those
// changes made, and the `whatif` view says what they change against the request as it is.
// Everything from the files is rendered as text (DOM nodes and textContent, never HTML), and the
// element's styles live in its shadow root, so it cannot break the host page.
import init, { assemble as assembleNow, assembleCase as assembleCaseNow, parseSession as parseSessionNow, load, protocols } from "./web.js";

export const TAG = "ctxlens-view";
export const VIEWS = Object.freeze(["stats", "findings", "stage", "body", "compare", "whatif"]);
const ATTRIBUTES = ["src", "case", "tools", "context", "model", "thinking", "protocol", "view", "stage", "with", "compact", "app", "prompt", "whatif"];
// A what-if spec that sets something (`--set KEY=VALUE`); every other one switches something off.
const SET_SPEC = /^(model|thinking|api|pi)=/;
const BODY_LIMIT = 200_000;

// ---------------------------------------------------------------------------------------------
// Shared by every element of the page: the wasm (one promise), fetched files, assemblies.

let wasm = null;
/** Loads the wasm once per page (a module-level promise; a failure is retried on the next call). */
export function loadWasm() {
  wasm ??= init().catch((e) => {
    wasm = null;
    throw e;
  });
  return wasm;
}

/** A call, again after fetching the pi release's data it asked for (once per release). */
async function withRelease(f) {
  const tried = new Set();
  for (;;) {
    try {
      return f();
    } catch (e) {
      if (!e || typeof e.piVersion !== "string" || tried.has(e.piVersion)) throw e;
      tried.add(e.piVersion);
      await load(e.piVersion);
    }
  }
}
const assemble = (o) => withRelease(() => assembleNow(o));
const assembleCase = (files, o) => withRelease(() => assembleCaseNow(files, o));
const parseSession = (t, o) => withRelease(() => parseSessionNow(t, o));

const fetched = new Map();
function fetchBytes(url) {
  let p = fetched.get(url);
  if (!p) {
    // mode "same-origin": the browser itself refuses another origin, redirects included.
    p = fetch(url, { mode: "same-origin", credentials: "same-origin" }).then(async (r) => {
      if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    });
    p.catch(() => fetched.delete(url));
    fetched.set(url, p);
  }
  return p;
}

const decoder = new TextDecoder();
const text = (bytes) => decoder.decode(bytes);

// ---------------------------------------------------------------------------------------------
// Options.

class OptionError extends Error {}

/** A same-origin URL or an OptionError saying why not. */
function sameOrigin(what, value, base = document.baseURI) {
  let u;
  try {
    u = new URL(value, base);
  } catch {
    throw new OptionError(`${what}: ${JSON.stringify(value)} is not a URL`);
  }
  if (u.origin !== location.origin) throw new OptionError(`${what}: ${u.origin} is another origin — ctxlens only loads files from this page's origin (${location.origin})`);
  return u;
}

/** `"a/AGENTS.md=sub, b/CLAUDE.md"` → `[{url, folder}]`. */
export function parseContext(value) {
  if (Array.isArray(value)) return value.map((c) => (typeof c === "string" ? { url: c, folder: "" } : { url: String(c.url), folder: c.folder ? String(c.folder) : "" }));
  return String(value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const i = item.indexOf("=");
      return i < 0 ? { url: item, folder: "" } : { url: item.slice(0, i).trim(), folder: item.slice(i + 1).trim() };
    });
}

/**
 * `"tool:bash, skill:NAME, thinking=low"` (or a list) → the specs: comma-separated as in the
 * app's `whatif=` hash, each percent-decoded (`%2C` is a comma inside a spec).
 */
export function parseWhatif(value) {
  const list = Array.isArray(value) ? value.map(String) : String(value ?? "").split(",");
  return list
    .map((x) => {
      const t = x.trim();
      try {
        return decodeURIComponent(t);
      } catch {
        return t;
      }
    })
    .filter(Boolean);
}

/** A spec as the app's hash writes it (a comma, `&` or `#` in it percent-encoded). */
const hashSpec = (spec) => encodeURIComponent(spec).replace(/%3A/gi, ":").replace(/%2F/gi, "/");

/** The element's attributes (or `mount`'s options), checked. Throws OptionError. */
function readOptions(get) {
  const o = {};
  for (const k of ["src", "case", "tools", "model", "thinking", "protocol", "stage", "with", "app", "prompt"]) {
    const v = get(k);
    if (v !== null && v !== undefined && String(v).trim() !== "") o[k] = String(v).trim();
  }
  o.context = parseContext(get("context"));
  o.whatif = parseWhatif(get("whatif"));
  o.without = o.whatif.filter((x) => !SET_SPEC.test(x));
  o.set = o.whatif.filter((x) => SET_SPEC.test(x));
  o.compact = get("compact") !== null && get("compact") !== undefined && get("compact") !== false && get("compact") !== "false";
  const view = get("view");
  o.view = view ? String(view).trim() : o.whatif.length ? "whatif" : o.with ? "compare" : o.stage !== undefined ? "stage" : "stats";
  if (!VIEWS.includes(o.view)) throw new OptionError(`view: ${JSON.stringify(o.view)} is not one of ${VIEWS.join(", ")}`);
  for (const k of ["protocol", "with"]) {
    if (o[k] !== undefined && !protocols.includes(o[k])) throw new OptionError(`${k}: ${JSON.stringify(o[k])} is not one of ${protocols.join(", ")}`);
  }
  if (o.view === "compare" && !o.with) throw new OptionError('view "compare" needs with="<protocol>" (the protocol to compare with)');
  if (o.view === "whatif" && !o.whatif.length) throw new OptionError('view "whatif" needs whatif="…" (the changes: tool:NAME, skill:NAME, context:PATH, thinking=LEVEL, …)');
  if (!o.src && !o.case) throw new OptionError("nothing to show: give src (a session.jsonl URL) or case (a case manifest URL)");
  o.urls = {};
  for (const k of ["src", "case", "tools"]) if (o[k]) o.urls[k] = sameOrigin(k, o[k]).href;
  o.context = o.context.map((c) => ({ url: sameOrigin("context", c.url).href, folder: c.folder }));
  o.appUrl = sameOrigin("app", o.app ?? "./index.html");
  if (o.appUrl.protocol !== "http:" && o.appUrl.protocol !== "https:") throw new OptionError("app: not an http(s) URL");
  return o;
}

// ---------------------------------------------------------------------------------------------
// Inputs → an assembly.

const ROOT_NAMES = /^(AGENTS\.md|AGENTS\.override\.md|AGENTS\.MD|CLAUDE\.md|CLAUDE\.MD)$/;

function baseName(url) {
  const p = new URL(url).pathname;
  return decodeURIComponent(p.slice(p.lastIndexOf("/") + 1));
}

/** A POSIX path joined and normalized (`..`, `.`, `//`). */
function joinPath(base, rel) {
  const parts = (rel.startsWith("/") ? rel : `${base}/${rel}`).split("/");
  const out = [];
  for (const p of parts) {
    if (p === "" || p === ".") continue;
    if (p === "..") out.pop();
    else out.push(p);
  }
  return "/" + out.join("/");
}

/** Where a context file lies: its folder (absolute, `~/…`, or relative to the cwd) + its name. */
function contextPath(c, cwd, home) {
  const name = baseName(c.url);
  if (!ROOT_NAMES.test(name)) throw new OptionError(`context: ${name} is not a context file pi reads (AGENTS.md, AGENTS.override.md, CLAUDE.md)`);
  const folder = c.folder === "" ? "." : c.folder;
  const dir = folder === "~" || folder.startsWith("~/") ? joinPath(home, folder.slice(1).replace(/^\//, "") || ".") : joinPath(cwd, folder);
  return joinPath(dir, name);
}

/** The files a case manifest lists, by relative path. */
async function readCase(manifestUrl) {
  let manifest;
  try {
    manifest = JSON.parse(text(await fetchBytes(manifestUrl)));
  } catch (e) {
    throw new OptionError(`case: ${manifestUrl} is not a case manifest (${e.message})`);
  }
  const list = Array.isArray(manifest) ? manifest : manifest && Array.isArray(manifest.files) ? manifest.files : null;
  if (!list || !list.every((f) => typeof f === "string")) throw new OptionError('case: the manifest must be {"files": ["case.json", ...]} (paths relative to it)');
  const files = {};
  await Promise.all(
    list.map(async (rel) => {
      if (rel.startsWith("/") || rel.split("/").includes("..") || /^[a-z][a-z0-9+.-]*:/i.test(rel)) throw new OptionError(`case: ${JSON.stringify(rel)} is not a path inside the case folder`);
      const url = sameOrigin("case", rel, manifestUrl).href;
      files[rel] = await fetchBytes(url);
    }),
  );
  return files;
}

function envPathOf(files) {
  if (files["expected/env.json"]) return "expected/env.json";
  return Object.keys(files).filter((k) => k === "env.json" || k.endsWith("/env.json")).sort((a, b) => a.split("/").length - b.split("/").length)[0];
}

const assemblies = new Map();

/** One assembly per distinct inputs, shared between elements showing different views of it. */
function assemblyFor(o) {
  const key = JSON.stringify([o.urls, o.context, o.model, o.thinking, o.protocol, o.with, o.prompt, o.whatif]);
  let p = assemblies.get(key);
  if (!p) {
    p = build(o);
    p.catch(() => assemblies.delete(key));
    assemblies.set(key, p);
  }
  return p;
}

async function build(o) {
  const [session, tools, contexts, caseFiles] = await Promise.all([
    o.urls.src ? fetchBytes(o.urls.src) : null,
    o.urls.tools ? fetchBytes(o.urls.tools) : null,
    Promise.all(o.context.map(async (c) => ({ ...c, bytes: await fetchBytes(c.url) }))),
    o.urls.case ? readCase(o.urls.case) : null,
    loadWasm(),
  ]);
  const common = {};
  if (o.protocol) common.api = o.protocol;
  if (o.with) common.compareWith = o.with;
  // The what-if: the request with the changes made; `result.whatif` says what they change.
  if (o.without.length) common.without = o.without;
  if (o.set.length) common.set = o.set;
  if (caseFiles) {
    // A whole case; src, tools, context, model, thinking and prompt change it.
    const files = { ...caseFiles };
    const envPath = envPathOf(files);
    if (!envPath) throw new OptionError("case: the manifest lists no env.json (the capture's expected/env.json)");
    const env = JSON.parse(text(files[envPath]));
    if (session) files["session.jsonl"] = session;
    if (tools) files["tools.json"] = tools;
    // A catalog model chosen here may have no key in the case: a placeholder for its provider
    // (a docs page has no key; a key never changes the body), as for a session.
    if (o.model) env.model = o.model;
    if (o.thinking) env.thinking = o.thinking;
    if (o.prompt !== undefined) env.prompt = o.prompt;
    const root = env.root ?? "/";
    for (const c of contexts) {
      const abs = contextPath(c, env.cwd ?? root, env.home ?? "/home/user");
      const rel = root === "/" ? abs.slice(1) : abs.startsWith(root + "/") ? abs.slice(root.length + 1) : null;
      if (rel === null) throw new OptionError(`context: ${abs} is outside the case's root ${root}`);
      files[`fs/${rel}`] = c.bytes;
    }
    files[envPath] = JSON.stringify(env);
    return assembleCase(files, { ...common, placeholderKey: Boolean(o.model) });
  }
  // A session (and tools, context files) on its own: laid out around the session's cwd.
  const sessionText = text(session);
  const tree = await parseSession(sessionText, { path: baseName(o.urls.src) });
  const cwd = tree.cwd ?? "/home/user/project";
  const m = /^\/(home|Users)\/[^/]+/.exec(cwd);
  const home = m ? m[0] : cwd.startsWith("/root") ? "/root" : "/home/user";
  const files = {};
  for (const c of contexts) files[contextPath(c, cwd, home)] = c.bytes;
  // A docs page has no key: a placeholder for the provider of the model pi takes (the body is the same with any key).
  const options = { ...common, session: sessionText, sessionPath: baseName(o.urls.src), files, home, cwd, placeholderKey: true };
  if (tools) options.tools = text(tools);
  if (o.model) options.model = o.model;
  if (o.thinking) options.thinking = o.thinking;
  if (o.prompt !== undefined) options.prompt = o.prompt;
  return assemble(options);
}

// ---------------------------------------------------------------------------------------------
// Rendering: DOM building only; data goes in as text.

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : "–");
const pct = (x) => `${(x * 100).toFixed(1)}%`;

function bar(share, cls) {
  const b = h("span", { class: `bar ${cls}` });
  b.style.width = `${Math.max(0, Math.min(1, share)) * 100}%`;
  return h("span", { class: "track" }, b);
}

function statsView(r) {
  const s = r.stats;
  if (!s) return h("p", { class: "muted", text: "pi would not send a request here: no statistics." });
  const row = (label, key, chars, share, cls) =>
    h("tr", {}, h("th", { scope: "row", text: label }), h("td", { class: "num", "data-testid": key, text: fmt(chars) }), h("td", { class: "num", text: pct(share) }), h("td", { class: "bar-cell" }, bar(share, cls)));
  const tools = [...s.tools.byTool].sort((a, b) => b.chars - a.chars).slice(0, 5);
  return h(
    "div",
    { class: "stats" },
    h(
      "table",
      { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", { text: "part" }), h("th", { class: "num", text: "chars" }), h("th", { class: "num", text: "share" }), h("th", { "aria-hidden": "true" }))),
      h(
        "tbody",
        {},
        row("System prompt", "stat-system-chars", s.systemPrompt.chars, s.shares.systemPrompt, "sys"),
        row("Tool definitions", "stat-tools-chars", s.tools.chars, s.shares.tools, "tools"),
        row("History", "stat-history-chars", s.history.chars, s.shares.history, "hist"),
      ),
    ),
    h("p", { class: "muted" }, "Body: ", h("span", { "data-testid": "stat-body-bytes", text: fmt(s.body.bytes) }), " bytes · largest tools: ", tools.map((t) => `${t.name} ${fmt(t.chars)}`).join(", ") || "none"),
  );
}

function findingsView(r) {
  if (!r.findings.length) return h("p", { class: "muted", text: "No findings." });
  return h(
    "ol",
    { class: "findings", "data-testid": "findings" },
    r.findings.map((f) =>
      h("li", { class: `finding ${f.severity}`, "data-testid": "finding", "data-id": f.id }, h("span", { class: "badge", text: f.severity }), h("strong", { text: f.title }), h("div", { class: "detail", text: f.detail })),
    ),
  );
}

/** The stage named by `stage`: an id (`convert-messages`) or a 0-based index. */
function stageIndex(r, stage) {
  if (stage === undefined) return 0;
  const byId = r.stages.findIndex((s) => s.id === stage);
  if (byId >= 0) return byId;
  if (/^\d+$/.test(stage) && Number(stage) < r.stages.length) return Number(stage);
  throw new OptionError(`stage: ${JSON.stringify(stage)} is not one of ${r.stages.map((s) => s.id).join(", ")}`);
}

/** The tooltip of a pi source location: what its prefix stands for, in which release. */
function sourceTitle(r, src) {
  const prefix = src.split("/")[0];
  const dir = r.sourcePrefixes?.[prefix];
  const release = r.pi?.version ? `pi ${r.pi.version}` : "pi";
  return dir ? `where this lives in ${release}: ${prefix}/ is ${dir}/ in pi's npm packages, then file:line` : `where this lives in ${release} (file:line)`;
}

function stageView(r, o) {
  const i = stageIndex(r, o.stage);
  const s = r.stages[i];
  const counts = Object.entries(s.counts);
  return h(
    "div",
    { class: "stage", "data-testid": "stage", "data-stage": s.id },
    h("h3", {}, h("span", { class: "muted", text: `${i + 1}/${r.stages.length} ` }), s.title),
    h("p", { class: "muted mono", text: s.piSource, title: sourceTitle(r, s.piSource) }),
    h("p", { text: s.summary }),
    counts.length ? h("dl", { class: "counts" }, counts.map(([k, v]) => [h("dt", { text: k }), h("dd", { class: "num", text: fmt(v) })])) : null,
    s.events.length
      ? h(
          "ul",
          { class: "events" },
          s.events.slice(0, 50).map((e) => h("li", {}, h("span", { class: `badge ${e.kind}`, text: e.kind }), " ", e.message, e.piSource ? h("span", { class: "muted mono", text: ` ${e.piSource}`, title: sourceTitle(r, e.piSource) }) : null)),
          s.events.length > 50 ? h("li", { class: "muted", text: `… ${s.events.length - 50} more` }) : null,
        )
      : h("p", { class: "muted", text: "No events in this stage." }),
  );
}

function bodyView(r) {
  if (r.body === null) return h("p", { class: "muted", text: "pi would not send a request here (see the diagnostics in the app)." });
  const shown = r.body.length > BODY_LIMIT ? r.body.slice(0, BODY_LIMIT) : r.body;
  return h(
    "div",
    { class: "request" },
    h("p", { class: "mono url" }, h("strong", { text: r.method }), " ", r.url),
    h("details", {}, h("summary", { text: `${r.headers.length} headers` }), h("pre", { class: "mono", text: r.headers.map(([k, v]) => `${k}: ${v}`).join("\n") })),
    h("pre", { class: "body mono", "data-testid": "body", text: shown }),
    shown.length < r.body.length ? h("p", { class: "muted", text: `… ${fmt(r.body.length - shown.length)} more characters: open it in the app` }) : null,
  );
}

function compareView(r) {
  const c = r.comparison;
  if (!c) return h("p", { class: "muted", text: "No comparison." });
  const place = (p) => h("td", {}, h("span", { class: "num", text: p.leaves ? fmt(p.chars) : "—" }), p.value ? h("div", { class: "mono small", text: p.value }) : p.paths.length ? h("div", { class: "mono small", text: p.paths.slice(0, 2).join(" ") + (p.paths.length > 2 ? " …" : "") }) : null);
  const side = (s) => (s === "a" ? c.a.api : s === "b" ? c.b.api : "both");
  return h(
    "div",
    { class: "compare", "data-testid": "compare" },
    h(
      "table",
      { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", { text: "block" }), h("th", { "data-testid": "compare-a", text: c.a.api }), h("th", { "data-testid": "compare-b", text: c.b.api }))),
      h(
        "tbody",
        {},
        h("tr", { class: "total" }, h("th", { scope: "row", text: "Body bytes" }), h("td", { class: "num", "data-testid": "compare-a-bytes", text: fmt(c.a.bodyBytes) }), h("td", { class: "num", "data-testid": "compare-b-bytes", text: fmt(c.b.bodyBytes) })),
        c.mapping.filter((m) => m.a.leaves || m.b.leaves).map((m) => h("tr", { "data-kind": m.kind }, h("th", { scope: "row", text: m.title }), place(m.a), place(m.b))),
      ),
    ),
    c.losses.length ? h("ul", { class: "losses", "data-testid": "losses" }, c.losses.map((l) => h("li", {}, h("span", { class: `badge ${l.kind}`, text: `${side(l.side)} · ${l.kind}` }), " ", l.detail))) : h("p", { class: "muted", text: "Nothing lost either way." }),
  );
}

/** `−12` / `+5` / `0`. */
const signed = (n) => (n > 0 ? `+${fmt(n)}` : n < 0 ? `−${fmt(-n)}` : "0");
const dollars = (x) => (typeof x !== "number" ? "–" : `${x < 0 ? "−" : ""}$${Math.abs(x) < 0.01 ? Math.abs(x).toFixed(5) : Math.abs(x).toFixed(4)}`);

function whatifView(r) {
  const w = r.whatif;
  if (!w) return h("p", { class: "muted", text: "No what-if." });
  const f = w.firstChange;
  const verdict = w.identical
    ? h("p", { "data-testid": "whatif-identical" }, h("strong", { text: "The request is byte-identical with these changes." }))
    : f
      ? h("p", { "data-testid": "whatif-first-change", "data-byte": f.byte }, h("strong", { text: "The request changes. " }), "First changed byte: ", h("strong", { text: fmt(f.byte) }), " in ", h("strong", { "data-testid": "whatif-first-block", text: f.block ?? "a part ctxlens cannot name" }))
      : h("p", { text: "The body is the same; the URL or headers differ." });
  const cost = (side) => side.costPerCall?.input;
  const totals = h(
    "table",
    { class: "grid", "data-testid": "whatif-totals" },
    h("thead", {}, h("tr", {}, h("th", { text: "" }), h("th", { class: "num", text: "as it is" }), h("th", { class: "num", text: "with the changes" }), h("th", { class: "num", text: "Δ" }))),
    h(
      "tbody",
      {},
      h("tr", { "data-row": "chars" }, h("th", { scope: "row", text: "characters" }), h("td", { class: "num", text: fmt(w.before.chars) }), h("td", { class: "num", text: fmt(w.after.chars) }), h("td", { class: "num", text: signed(w.delta.chars) })),
      typeof w.before.windowShare === "number"
        ? h("tr", { "data-row": "window" }, h("th", { scope: "row", text: "share of the context window" }), h("td", { class: "num", text: pct(w.before.windowShare) }), h("td", { class: "num", text: pct(w.after.windowShare) }), h("td"))
        : null,
      typeof cost(w.before) === "number"
        ? h("tr", { "data-row": "cost-input" }, h("th", { scope: "row", text: "cost per call, uncached input" }), h("td", { class: "num", text: dollars(cost(w.before)) }), h("td", { class: "num", text: dollars(cost(w.after)) }), h("td", { class: "num", text: dollars(w.delta.costPerCall?.input) }))
        : null,
    ),
  );
  const blocks = w.blocks.filter((b) => b.charsDelta !== 0);
  return h(
    "div",
    { class: "whatif", "data-testid": "whatif" },
    verdict,
    totals,
    blocks.length
      ? h(
          "table",
          { class: "grid", "data-testid": "whatif-blocks" },
          h("thead", {}, h("tr", {}, h("th", { text: "block" }), h("th", { class: "num", text: "as it is" }), h("th", { class: "num", text: "with the changes" }), h("th", { class: "num", text: "Δ" }))),
          h("tbody", {}, blocks.map((b) => h("tr", { "data-block": b.name, "data-delta": b.charsDelta }, h("th", { scope: "row", text: b.name }), h("td", { class: "num", text: fmt(b.fromChars) }), h("td", { class: "num", text: fmt(b.toChars) }), h("td", { class: "num", text: signed(b.charsDelta) })))),
        )
      : null,
    w.cache ? h("p", { class: "muted", "data-testid": "whatif-cache-note", text: w.cache.note }) : null,
    h(
      "ul",
      { class: "events", "data-testid": "whatif-takehome" },
      w.changes.map((c) => h("li", { "data-change": c.change, "data-kind": c.takeHome.kind }, h("span", { class: "mono", text: c.change }), ": ", c.did, h("pre", { class: "mono", text: c.takeHome.text }))),
    ),
  );
}

const APP_VIEW = { stats: "overview", findings: "findings", stage: "overview", body: "request", compare: "protocols", whatif: "whatif" };

/** The full app's URL carrying the same state: files in the query (same-origin paths), the view in the hash. */
export function appLink(o, stage = 0) {
  const u = new URL(o.appUrl.href);
  const path = (href) => {
    const x = new URL(href);
    return x.pathname + x.search;
  };
  if (o.urls.case) u.searchParams.set("case", path(o.urls.case));
  if (o.urls.src) u.searchParams.set("session", path(o.urls.src));
  if (o.urls.tools) u.searchParams.set("tools", path(o.urls.tools));
  if (o.context.length) u.searchParams.set("context", o.context.map((c) => path(c.url) + (c.folder ? `=${c.folder}` : "")).join(","));
  if (o.model) u.searchParams.set("model", o.model);
  if (o.thinking) u.searchParams.set("thinking", o.thinking);
  const hash = new URLSearchParams();
  if (o.protocol) hash.set("api", o.protocol);
  hash.set("view", APP_VIEW[o.view]);
  if (stage > 0) hash.set("stage", String(stage));
  if (o.view === "compare") hash.set("compare", "1");
  // The what-if as the app's hash holds it (commas between specs, not encoded).
  u.hash = hash.toString() + (o.whatif.length ? `&whatif=${o.whatif.map(hashSpec).join(",")}` : "");
  return u.href;
}

const TITLES = { stats: "Where the characters go", findings: "Findings", stage: "Pipeline stage", body: "Request body", compare: "Protocols compared", whatif: "What if" };

const CSS = `
:host { display: block; box-sizing: border-box; contain: content; color-scheme: light dark;
  --fg: #1d2330; --muted: #5d6678; --bg: #fff; --line: #d9dde6; --accent: #3558d6; --sys: #6f52d9; --tools: #d97a26; --hist: #2f9a6a; --warn: #b8640b;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 8px; overflow: hidden; text-align: left; }
@media (prefers-color-scheme: dark) { :host { --fg: #e4e7ee; --muted: #9aa3b5; --bg: #171a21; --line: #343a47; --accent: #8aa2ff; --warn: #f0a54a; } }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
header { display: flex; gap: 8px; align-items: baseline; padding: 8px 12px; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header .title { font-weight: 600; }
header .meta { color: var(--muted); font-size: 12px; flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
header a { color: var(--accent); font-size: 12px; text-decoration: none; white-space: nowrap; }
header a:hover { text-decoration: underline; }
.content { padding: 10px 12px; overflow: auto; max-height: 32rem; }
:host([compact]) .content { max-height: 16rem; padding: 6px 10px; }
:host([compact]) header { padding: 5px 10px; }
:host([compact]) { font-size: 13px; }
.muted { color: var(--muted); }
.mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 12px; overflow-wrap: anywhere; }
.small { font-size: 11px; }
.num { font-variant-numeric: tabular-nums; text-align: right; }
table.grid { border-collapse: collapse; width: 100%; }
.grid th, .grid td { padding: 3px 8px 3px 0; border-bottom: 1px solid var(--line); vertical-align: top; text-align: left; }
.grid td.num, .grid th.num { text-align: right; }
.grid tbody th { font-weight: 500; }
.bar-cell { width: 40%; }
.track { display: block; height: 10px; background: color-mix(in srgb, var(--line) 55%, transparent); border-radius: 3px; overflow: hidden; margin-top: 5px; }
.bar { display: block; height: 100%; }
.bar.sys { background: var(--sys); } .bar.tools { background: var(--tools); } .bar.hist { background: var(--hist); }
ol.findings { margin: 0; padding-left: 1.6em; }
.finding { margin: 0 0 8px; }
.finding .detail { color: var(--muted); font-size: 13px; overflow-wrap: anywhere; }
.badge { display: inline-block; font-size: 11px; line-height: 1.5; padding: 0 6px; margin-right: 6px; border-radius: 9px; border: 1px solid var(--line); color: var(--muted); vertical-align: 1px; }
.finding.warning .badge { color: var(--warn); border-color: currentColor; }
.stage h3 { margin: 0 0 4px; font-size: 15px; }
.stage p { margin: 4px 0; }
dl.counts { display: grid; grid-template-columns: max-content max-content; gap: 0 16px; margin: 6px 0; }
dl.counts dd { margin: 0; }
.compare .grid td.num, .compare .grid td .num { text-align: left; }
ul.events, ul.losses { padding-left: 1.2em; margin: 6px 0; }
ul.events li, ul.losses li { margin: 2px 0; overflow-wrap: anywhere; }
pre { margin: 6px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.url { margin: 0 0 6px; }
.state { padding: 12px; color: var(--muted); }
.error { color: #c0392b; }
@media (prefers-color-scheme: dark) { .error { color: #ff8a7a; } }
`;

let sheet = null;
function styleFor(root) {
  // A constructed stylesheet (CSSOM, so a host page's CSP without 'unsafe-inline' allows it),
  // shared by every element; a <style> element where constructed sheets are not supported.
  if (typeof CSSStyleSheet === "function" && "adoptedStyleSheets" in Document.prototype && "replaceSync" in CSSStyleSheet.prototype) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
    return null;
  }
  return h("style", { text: CSS });
}

// ---------------------------------------------------------------------------------------------
// The element.

const Base = typeof HTMLElement === "function" ? HTMLElement : class {};

export class CtxlensView extends Base {
  static get observedAttributes() {
    return ATTRIBUTES;
  }

  #root = null;
  #gen = 0;
  #queued = false;
  #state = "idle";
  #result = null;
  #options = null;

  /** "idle" | "loading" | "ready" | "error". */
  get state() {
    return this.#state;
  }
  /** The assembly on screen (null until ready). */
  get result() {
    return this.#result;
  }

  connectedCallback() {
    if (!this.#root) this.#root = this.attachShadow({ mode: "open" });
    this.#schedule();
  }

  attributeChangedCallback(_name, old, value) {
    if (old !== value && this.isConnected) this.#schedule();
  }

  /** Sets the options (as `mount` takes them) as attributes; the element re-renders. */
  update(options) {
    for (const [k, v] of Object.entries(options ?? {})) {
      if (!ATTRIBUTES.includes(k)) throw new TypeError(`ctxlens-view: unknown option \`${k}\` (known: ${ATTRIBUTES.join(", ")})`);
      if (v === undefined || v === null || v === false) this.removeAttribute(k);
      else if (v === true) this.setAttribute(k, "");
      else if (k === "whatif" && Array.isArray(v)) this.setAttribute(k, v.map(hashSpec).join(","));
      else if (k === "context" && Array.isArray(v)) this.setAttribute(k, parseContext(v).map((c) => c.url + (c.folder ? `=${c.folder}` : "")).join(","));
      else this.setAttribute(k, String(v));
    }
    return this;
  }

  #schedule() {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (this.isConnected) this.#render();
    });
  }

  #setState(state, detail) {
    this.#state = state;
    this.dispatchEvent(new CustomEvent(`ctxlens-${state}`, { detail }));
  }

  #frame(o, content, link) {
    const root = this.#root;
    const style = styleFor(root);
    const header = h(
      "header",
      { part: "header" },
      h("span", { class: "title", text: o ? TITLES[o.view] : "ctxlens" }),
      h("span", { class: "meta", "data-testid": "meta", text: o && this.#result ? [this.#result.model ? `${this.#result.model.provider}/${this.#result.model.id}` : null, this.#result.model?.api].filter(Boolean).join(" · ") : "" }),
      link ? h("a", { href: link, target: "_blank", rel: "noopener", "data-testid": "open-app", text: "Open in ctxlens ↗" }) : null,
    );
    root.replaceChildren(...[style, header, h("div", { class: "content", part: "content" }, content)].filter(Boolean));
  }

  async #render() {
    const gen = ++this.#gen;
    let o = null;
    try {
      o = readOptions((k) => this.getAttribute(k));
      this.#options = o;
      this.#result = null;
      this.#frame(o, h("div", { class: "state", role: "status", text: "Assembling…" }), null);
      this.#setState("loading");
      const r = await assemblyFor(o);
      if (gen !== this.#gen) return;
      this.#result = r;
      let stage = 0;
      const view = o.view === "stats" ? statsView(r) : o.view === "findings" ? findingsView(r) : o.view === "body" ? bodyView(r) : o.view === "compare" ? compareView(r) : o.view === "whatif" ? whatifView(r) : ((stage = stageIndex(r, o.stage)), stageView(r, o));
      this.#frame(o, view, appLink(o, stage));
      this.setAttribute("data-api", r.model?.api ?? "");
      this.#setState("ready", { view: o.view });
    } catch (e) {
      if (gen !== this.#gen) return;
      this.#result = null;
      const message = e instanceof OptionError ? e.message : `could not show this view: ${e && e.message ? e.message : String(e)}`;
      this.#frame(o, h("p", { class: "state error", role: "alert", "data-testid": "error", text: message }), null);
      this.#setState("error", { message });
    }
  }
}

/** Registers <ctxlens-view> (idempotent). Importing this module does it. */
export function define() {
  if (typeof customElements !== "undefined" && !customElements.get(TAG)) customElements.define(TAG, CtxlensView);
}
define();

/**
 * Mounts a view in `target`: `target` itself when it is a <ctxlens-view>, else a new one appended
 * to it. The options are the element's attributes as data. Returns the element.
 */
export function mount(target, options) {
  if (!target || typeof target.appendChild !== "function") throw new TypeError("ctxlens mount: target must be an element");
  const el = target instanceof CtxlensView ? target : target.appendChild(document.createElement(TAG));
  return el.update(options);
}
