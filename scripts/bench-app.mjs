// bench-app.mjs: times the visualizer in a real browser (Debian's Chromium, headless, driven by
// playwright-core as the e2e tests do) on generated sessions of about 4 and 40 MB, for issue 15's
// app targets. A benchmark, not a test: it prints numbers and asserts nothing about them.
//
//   node scripts/bench-app.mjs [--sizes 4,40] [--dist dist] [--sessions /tmp/bench] [--runs 3]
//                              [--phases switch,back,whatif] [--switches 8] [--json]
//                              [--trace FILE.json] [--table SAVED.json]
//
// Needs the app built (`trunk build --release`, as scripts/test.sh does it, into dist/). The
// sessions are bench-npm.mjs's (`node scripts/bench-npm.mjs --generate DIR --sizes 4,40`): read
// from --sessions DIR when there (session-<mb>MB.jsonl), else generated there. With a models.json
// for their model `bench/m` (as bench-npm.mjs defines it) chosen with the session.
//
// Measured, for each size, from the user's action (the file input's files set; a click) to a DOM
// condition (page.waitForFunction polling on animation frames), both in the page's clock:
//  (a) first view: the session and its models.json chosen with the file input → the overview
//      with the request's numbers (`.view-area` ready, a request, the new scenario); a fresh page
//      each run (--runs, the median), with the longest main-thread task and the number over 50 ms
//      (a `longtask` PerformanceObserver installed before the page loads) and whether the
//      progress bar showed; then until the session's entries, calls and usage timeline, which
//      the worker sends after a scenario's first report, are in too (`.view-area` data-session);
//  (b) a protocol switch: each protocol not yet assembled (the eight besides the model's own),
//      then back to one already assembled (three times, the median) → `.view-area` of that
//      protocol no longer loading;
//  (c) a what-if toggle in the What-if view: each built-in tool's box unchecked (bash, read,
//      edit, write; the first two above 20 MB: each takes a minute or more there) → the view's
//      `data-state` ready for that change (the median over the tools), and checked again → idle;
//  (d) the worker's wasm memory (the `memoryBytes` of its last report) over the session's size,
//      the page's JS heap (CDP Performance.getMetrics) and the page's wasm memory.
// Before every action the worker is idle (every request the page sent is answered, counted from
// the messages themselves, and neither side has said anything for 300 ms) so one phase's work
// (e.g. the token estimate after a report) does not land in the next one's time.
//
// Where the time goes: /worker.js is served with a shim in front of the worker's module (the
// page's files are not changed) that stamps each message the worker posts with its send time and
// the times it received the page's messages; the page's side of the worker is observed through a
// wrapped `Worker` (an init script). With the mark the page sets when it has read a report
// (`ctxlens:report-joined:<api>`, web/src/worker.rs), each action splits into: the page before it
// posts to the worker, waiting in the worker's queue, the worker's compute (receipt → post), the
// transfer (post → the page's message event), the page reading the report's parts, the page's
// rendering (→ the DOM condition) and the frame after it (→ the next task: layout and paint).
// --trace FILE: a Chrome trace (CDP Tracing) of the first protocol switch of the smallest size,
// written to FILE and summarised per thread (the worker, the page's main thread: self time by
// event, in buckets — script (wasm and JS), message (de)serialization, style, layout, paint and
// compositing, GC), and the page's main thread alone while it waits for the worker, reads the
// report and renders it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve, launch } from "../tests/e2e/harness.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const sizes = arg("--sizes", "4,40").split(",").map(Number);
const dist = path.resolve(arg("--dist", path.join(repo, "dist")));
const sessionsDir = path.resolve(arg("--sessions", "/tmp/bench"));
const runs = Number(arg("--runs", "3"));
const asJson = process.argv.includes("--json");
const traceFile = arg("--trace", null);
// --phases: which actions after the first view (switch: the protocols not assembled; back: to the
// assembled ones; whatif); --switches N: only the first N protocols not assembled.
const phases = new Set(arg("--phases", "switch,back,whatif").split(","));
const switches = Number(arg("--switches", "8"));
// --table FILE: print the tables of a run saved with --json (nothing is run).
const tableFrom = arg("--table", null);
const log = (...a) => (asJson ? console.error : console.log)(...a);

const APIS = ["openai-completions", "anthropic-messages", "openai-responses", "azure-openai-responses", "openai-codex-responses", "google-generative-ai", "bedrock-converse-stream", "mistral-conversations", "pi-messages"];
const NATIVE = "openai-completions";
const TOOLS = ["bash", "read", "edit", "write"];
// openai-codex-responses needs a ChatGPT OAuth token (a JWT carrying the account id); any other
// protocol takes it as any key (a key never changes the body).
const KEY = ["e30", Buffer.from(JSON.stringify({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_bench" } })).toString("base64url"), "sig"].join(".");
const MODELS = { providers: { bench: { baseUrl: "https://bench.example/v1", api: NATIVE, apiKey: KEY, models: [{ id: "m", name: "m", reasoning: true, input: ["text", "image"], contextWindow: 1000000, maxTokens: 64000, cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } }] } } };


// ---------------------------------------------------------------------------------------------
// Instrumentation (the bench's, not the app's).
// ---------------------------------------------------------------------------------------------

/** In front of the worker's module: stamps what it posts with the send time and the times it
 * received the page's messages since its last post (epoch ms: performance.timeOrigin + now). */
const WORKER_SHIM = `
const __now = () => performance.timeOrigin + performance.now();
const __recv = [];
self.addEventListener("message", (e) => { __recv.push([e.data && e.data.type, __now()]); });
const __post = self.postMessage.bind(self);
self.postMessage = function (m, t) {
  if (m && typeof m === "object" && !Array.isArray(m)) { m.__sentAt = __now(); m.__recv = __recv.splice(0); }
  return t === undefined ? __post(m) : __post(m, t);
};
`;

/** Before the page's scripts: long tasks, the progress bar, and the page's side of the worker. */
function pageInit() {
  const b = (window.__bench = { long: [], progress: [], posts: [], msgs: [], pending: { assemble: 0, whatif: 0, tokens: 0, compare: 0, upgrade: 0, provenance: 0, catalog: 0 } });
  new PerformanceObserver((l) => { for (const e of l.getEntries()) b.long.push([e.startTime, e.duration]); }).observe({ type: "longtask", buffered: true });
  new MutationObserver(() => {
    const p = document.querySelector('[data-testid="progress"]');
    const v = p?.getAttribute("value") ?? null;
    const last = b.progress.at(-1);
    if (p && (!last || last[1] !== v)) b.progress.push([performance.now(), v, document.querySelector('[data-testid="progress-label"]')?.textContent ?? ""]);
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["value"] });
  // The DOM conditions the bench waits for (here, not sent as source: the page's CSP forbids eval).
  b.conds = {
    firstView: (name) => {
      const a = document.querySelector(".view-area");
      return document.querySelector(".scenario")?.textContent === name && a?.dataset.state === "ready" && a.dataset.request === "true"
        && !!document.querySelector('[data-testid="overview"]') && b.msgs.some((m) => m.type === "report" && m.at > b.t0);
    },
    // The session's entries, calls and usage timeline, which follow a scenario's first report.
    // (An app that sends them with the report has no data-session.)
    sessionIn: () => { const a = document.querySelector(".view-area"); return a?.dataset.state === "ready" && a.dataset.session !== "pending"; },
    protocol: (api) => {
      const v = document.querySelector(`.view-area[data-api="${api}"]`);
      return !!v && v.dataset.state !== "loading" && !document.querySelector('[data-testid="progress"]');
    },
    whatifOff: (spec) => document.querySelector('[data-testid="whatif-changes"]')?.dataset.changes === spec && ["ready", "failed"].includes(document.querySelector('[data-testid="whatif-view"]')?.dataset.state),
    whatifOn: () => document.querySelector('[data-testid="whatif-view"]')?.dataset.state === "idle",
  };
  // The user's action: t0 (also a user-timing mark, which a Chrome trace shows), then a click.
  b.click = (selector) => {
    const t0 = (b.t0 = performance.now());
    performance.mark("bench:t0");
    document.querySelector(selector).click();
    return t0;
  };
  const origin = performance.timeOrigin;
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(url, opts) {
      super(url, opts);
      const post = W.prototype.postMessage;
      this.postMessage = (m, t) => {
        const type = m?.type;
        if (type in b.pending) b.pending[type]++;
        b.posts.push({ type, api: m?.api ?? null, t: performance.now() });
        b.last = performance.now();
        return t === undefined ? post.call(this, m) : post.call(this, m, t);
      };
      this.addEventListener("message", (e) => {
        const d = e.data ?? {};
        const type = d.type;
        b.last = performance.now();
        const done = type === "report" || (type === "failed" && "gen" in d) ? "assemble"
          : type === "tokens" ? (d.phase === "loading" || d.phase === "counting" ? null : "tokens")
          : type in b.pending ? type : null;
        if (done && b.pending[done] > 0) b.pending[done]--;
        const bytes = ["partsBytes", "body"].reduce((s, k) => s + (d[k]?.byteLength ?? 0), 0) + (typeof d.json === "string" ? d.json.length : 0);
        b.msgs.push({ type, api: d.api ?? null, phase: d.phase ?? null, stage: d.stage ?? null, at: performance.now(), sent: d.__sentAt ? d.__sentAt - origin : null, recv: (d.__recv ?? []).map(([k, t]) => [k, t - origin]), ms: d.ms ?? null, memoryBytes: d.memoryBytes ?? null, bytes });
      });
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Tracing (the first 4 MB protocol switch).
// ---------------------------------------------------------------------------------------------

const BUCKETS = [
  [/^(MajorGC|MinorGC|V8\.GC|BlinkGC|GCEvent|V8\.GCScavenger|V8\.GCFinalizeMC|V8\.GCIncremental)/, "GC"],
  [/^(UpdateLayoutTree|RecalculateStyles|ScheduleStyleRecalculation|ParseAuthorStyleSheet)$/, "style"],
  [/Layout|InlineNode|Shape|LayoutObject|LayoutNG|IntersectionObserver/, "layout (incl. text shaping)"],
  [/^(Paint|PaintImage|PrePaint|Layerize|UpdateLayer|UpdateLayerTree|CompositeLayers|Commit|RasterTask|PaintSetup|Decode Image|WebFrameWidgetImpl::BeginMainFrame|Blink\.CompositingInputs|ProxyMain::BeginMainFrame|LocalFrameView::RunPaintLifecyclePhase|LocalFrameView::RunPrePaintLifecyclePhase)/, "paint/composite"],
  [/^(HandlePostMessage|MessagePort|WorkerGlobalScope::postMessage|v8\.deserialize|v8\.serialize|SerializedScriptValue|ReceiveMessage|PostMessage)/i, "message (de)serialize"],
  [/^(FunctionCall|EvaluateScript|v8\.callFunction|v8\.run|V8\.Execute|RunMicrotasks|TimerFire|FireAnimationFrame|EventDispatch|v8\.compile|v8\.compileModule|V8\.CompileCode|v8\.evaluateModule|WebAssembly|v8\.wasm)/, "script (wasm, JS)"],
];
const bucketOf = (name) => BUCKETS.find(([re]) => re.test(name))?.[1] ?? "other";

/** Self time per (thread, event name) inside [from, to] (µs in the trace's clock) for complete
 * events, and each thread's busy time (its top-level tasks). */
function summariseTrace(events, fromUs, toUs) {
  const names = new Map();
  for (const e of events) if (e.ph === "M" && e.name === "thread_name") names.set(`${e.pid}:${e.tid}`, e.args.name);
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== "X" || e.dur === undefined) continue;
    if (e.ts + e.dur < fromUs || e.ts > toUs) continue;
    const k = `${e.pid}:${e.tid}`;
    if (!byThread.has(k)) byThread.set(k, []);
    byThread.get(k).push(e);
  }
  const out = [];
  for (const [k, evs] of byThread) {
    const thread = names.get(k) ?? k;
    if (!/CrRendererMain|DedicatedWorker/.test(thread)) continue;
    evs.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const self = new Map();
    const stack = [];
    let busy = 0;
    let longest = 0;
    const clip = (e) => Math.max(0, Math.min(e.ts + e.dur, toUs) - Math.max(e.ts, fromUs));
    for (const e of evs) {
      while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
      const parent = stack.at(-1);
      if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - clip(e));
      else if (e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask" || e.cat?.includes("toplevel")) {
        busy += clip(e);
        longest = Math.max(longest, e.dur);
      }
      self.set(e.name, (self.get(e.name) ?? 0) + clip(e));
      stack.push(e);
    }
    const buckets = {};
    for (const [n, us] of self) {
      if (n === "RunTask" || n === "ThreadControllerImpl::RunTask") continue;
      const bk = bucketOf(n);
      buckets[bk] = (buckets[bk] ?? 0) + us;
    }
    const top = [...self].filter(([n]) => n !== "RunTask" && n !== "ThreadControllerImpl::RunTask").sort((a, b) => b[1] - a[1]).slice(0, 8).map(([n, us]) => [n, +(us / 1000).toFixed(1)]);
    out.push({ thread: thread.startsWith("DedicatedWorker") ? "worker" : "page main", busyMs: +(busy / 1000).toFixed(1), longestTaskMs: +(longest / 1000).toFixed(1), bucketsMs: Object.fromEntries(Object.entries(buckets).map(([b, us]) => [b, +(us / 1000).toFixed(1)]).sort((a, b) => b[1] - a[1])), topEventsMs: top });
  }
  return out.sort((a, b) => b.busyMs - a.busyMs);
}

const median = (xs) => {
  const s = xs.filter((x) => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : null;
};
const medianOf = (rows, k) => median(rows.map((r) => r?.[k] ?? null));

// ---------------------------------------------------------------------------------------------
// The runs.
// ---------------------------------------------------------------------------------------------

/** Runs everything in the browser; returns what it measured. */
async function bench() {
  if (!fs.existsSync(path.join(dist, "index.html")) || !fs.existsSync(path.join(dist, "worker.js"))) {
    console.error(`bench-app: no built app in ${dist} (trunk build --release)`);
    process.exit(1);
  }
  // The sessions, and the models.json of their model.
  fs.mkdirSync(sessionsDir, { recursive: true });
  const sessions = sizes.map((mb) => {
    const file = path.join(sessionsDir, `session-${mb}MB.jsonl`);
    if (!fs.existsSync(file)) {
      log(`generating ${file}`);
      execFileSync(process.execPath, [path.join(repo, "scripts/bench-npm.mjs"), "--generate", sessionsDir, "--sizes", String(mb)], { stdio: "inherit" });
    }
    return { mb, file, bytes: fs.statSync(file).size };
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ctxlens-bench-app-"));
  const modelsFile = path.join(tmp, "models.json");
  fs.writeFileSync(modelsFile, JSON.stringify(MODELS, null, 2));

  // Driving the page.
  const server = await serve(dist, {
    intercept: (pathname, _req, res) => {
      if (pathname !== "/worker.js") return false;
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(WORKER_SHIM + fs.readFileSync(path.join(dist, "worker.js"), "utf8"));
      return true;
    },
  });
  const browser = await launch();

  async function freshPage() {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.addInitScript(pageInit);
    await page.goto(server.url + "/#view=overview");
    await page.locator('.view-area[data-state="ready"]').waitFor({ state: "attached", timeout: 60000 });
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    await idle(page);
    return { page, context, cdp, errors };
  }

  /** Until every request the page sent the worker is answered and neither side has said anything
   * for 300 ms (the page asks for the next report, e.g. a prefetch or the tokens, only once it has
   * read the last one). */
  async function idle(page, timeout = 600000) {
    await page.waitForFunction(() => Object.values(window.__bench.pending).every((n) => n === 0) && performance.now() - (window.__bench.last ?? 0) > 300, null, { timeout, polling: 50 });
  }

  /**
   * Does the user's action — `click` (a selector; t0 is taken in the page right before the click)
   * or `before()` (returns t0) — then waits for the DOM condition `cond` (a name in
   * window.__bench.conds) over `arg`; returns the times and what the bench saw in between, all
   * relative to t0.
   */
  async function measure(page, { click, cond, arg, before, timeout = 600000 }) {
    const mark = await page.evaluate(() => ({ posts: window.__bench.posts.length, msgs: window.__bench.msgs.length, progress: window.__bench.progress.length }));
    let t0;
    if (before) t0 = await before();
    else t0 = await page.evaluate((sel) => window.__bench.click(sel), click);
    const shown = await (await page.waitForFunction(
      ([c, a]) => {
        if (!window.__bench.conds[c](a)) return false;
        const t = performance.now();
        // The next task runs after this frame's style, layout and paint (a message, not a timer:
        // timers can be throttled).
        const ch = new MessageChannel();
        ch.port1.onmessage = () => { window.__bench.painted = performance.now(); ch.port1.close(); };
        ch.port2.postMessage(null);
        return t;
      },
      [cond, arg],
      { timeout, polling: "raf" },
    )).jsonValue();
    await page.waitForFunction((t) => window.__bench.painted > t, shown, { polling: 10, timeout });
    const seen = await page.evaluate(([m, t0]) => {
      const b = window.__bench;
      const marks = performance.getEntriesByType("mark").filter((e) => e.name.startsWith("ctxlens:") && e.startTime >= t0).map((e) => [e.name, e.startTime]);
      return { painted: b.painted, posts: b.posts.slice(m.posts), msgs: b.msgs.slice(m.msgs), progress: b.progress.slice(m.progress), long: b.long, marks };
    }, [mark, t0]);
    const end = seen.painted;
    const inside = seen.long.filter(([s, d]) => s + d > t0 && s < end);
    const long = inside.map(([, d]) => d);
    // Each long task: its start after t0 and its length.
    const longTasks = inside.map(([s, d]) => [s - t0, d]);
    return { t0, shownMs: shown - t0, paintedMs: end - t0, longest: long.length ? Math.max(...long) : 0, over50: long.length, longTasks, progress: seen.progress.length, seen };
  }

  /** The phases of one measured action, from what the page and the worker stamped (ms). */
  function breakdown(m, replyType) {
    const { t0, seen } = m;
    const reply = seen.msgs.filter((x) => x.type === replyType).at(-1);
    if (!reply) return null;
    const firstPost = seen.posts.find((p) => p.type === "load" || p.type === "assemble" || p.type === "whatif");
    // The worker's receipts of the page's messages (`load` of a dropped session, then the request
    // answered: `assemble` or `whatif`).
    const recvs = seen.msgs.flatMap((x) => x.recv);
    // The last receipt before the reply was sent: a what-if's page asks for the whole session
    // once the request's answer is in, and that later `whatif` is not the one answered.
    const recvOf = (type) => recvs.filter(([k, t]) => k === type && (reply.sent === null || t <= reply.sent)).map(([, t]) => t).at(-1) ?? null;
    const loadAt = recvOf("load");
    const recv = recvOf(replyType === "report" ? "assemble" : replyType);
    const joined = seen.marks.filter(([n]) => n.startsWith("ctxlens:report-joined")).at(-1)?.[1] ?? null;
    const shown = t0 + m.shownMs;
    const r = {};
    r.page_before_post = firstPost ? firstPost.t - t0 : null;
    r.worker_queue = firstPost && (loadAt ?? recv) !== null ? (loadAt ?? recv) - firstPost.t : null;
    r.worker_load = loadAt !== null && recv !== null ? recv - loadAt : null;
    r.worker_compute = recv !== null && reply.sent !== null ? reply.sent - recv : null;
    r.worker_ms_reported = reply.ms;
    r.transfer = reply.sent !== null ? reply.at - reply.sent : null;
    r.page_read = joined !== null ? joined - reply.at : null;
    r.page_render = (joined ?? reply.at) < shown ? shown - (joined ?? reply.at) : 0;
    r.frame_after = m.paintedMs - m.shownMs;
    // Where the long tasks fell: before the page posted, while the worker worked, while the page
    // read the report, or while it rendered it.
    const edges = [["page before post", firstPost?.t ?? t0], ["while the worker works", reply.at], ["page read", joined ?? reply.at], ["page render", Infinity]];
    r.longByPhase = {};
    for (const [start, d] of m.longTasks) {
      const at = t0 + start;
      const phase = edges.find(([, edge]) => at < edge)[0];
      r.longByPhase[phase] = [...(r.longByPhase[phase] ?? []), Math.round(d)];
    }
    r.bytes = reply.bytes;
    // The worker's own stages (its progress messages, by their send times): each stage's name and
    // its time until the next stage or the reply.
    const steps = seen.msgs.filter((x) => x.type === "progress" && x.sent !== null && x.sent <= reply.sent && (recv === null || x.sent >= recv - 1));
    r.stages = steps.map((x, i) => [x.stage, (steps[i + 1]?.sent ?? reply.sent) - x.sent]);
    if (steps.length && recv !== null) r.stages.unshift(["(before its first progress message)", steps[0].sent - recv]);
    return r;
  }


  async function firstView(o, s) {
    const { page } = o;
    const name = path.basename(s.file);
    return measure(page, {
      before: async () => {
        const t0 = await page.evaluate(() => (window.__bench.t0 = performance.now()));
        await page.getByTestId("file-input").setInputFiles([s.file, modelsFile]);
        return t0;
      },
      cond: "firstView",
      arg: name,
    });
  }

  /** After a first view measured from `t0`: ms from t0 until its session's parts are in too. */
  async function sessionIn(page, t0) {
    const at = await (await page.waitForFunction(() => window.__bench.conds.sessionIn() && performance.now(), null, { timeout: 600000, polling: "raf" })).jsonValue();
    return at - t0;
  }

  async function metrics(o) {
    const { metrics: ms } = await o.cdp.send("Performance.getMetrics");
    const get = (n) => ms.find((x) => x.name === n)?.value ?? null;
    const pageWasm = Number(await o.page.getByTestId("status").getAttribute("data-page-memory").catch(() => 0)) || 0;
    const workerMem = await o.page.evaluate(() => window.__bench.msgs.filter((m) => m.memoryBytes).at(-1)?.memoryBytes ?? null);
    return { jsHeapUsed: get("JSHeapUsedSize"), jsHeapTotal: get("JSHeapTotalSize"), pageWasm, workerWasm: workerMem };
  }

  async function switchTo(page, api) {
    return measure(page, { click: `[data-testid="protocol-${api}"]`, cond: "protocol", arg: api });
  }

  async function toggle(page, tool, on) {
    const spec = `tool:${tool}`;
    return measure(page, { click: `[data-testid="whatif-${spec}"]`, cond: on ? "whatifOn" : "whatifOff", arg: spec });
  }

  async function tracedSwitch(o, api) {
    const { page } = o;
    await browser.startTracing(page, { categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel", "v8", "v8.execute", "blink.user_timing", "disabled-by-default-v8.gc", "blink", "loading"] });
    const m = await switchTo(page, api);
    const buf = await browser.stopTracing();
    if (traceFile) fs.writeFileSync(traceFile, buf);
    const { traceEvents } = JSON.parse(buf.toString("utf8"));
    // t0 in the trace's clock: the user-timing mark the click sets (else the click's dispatch).
    const mark = traceEvents.find((e) => e.name === "bench:t0") ?? traceEvents.find((e) => e.name === "EventDispatch" && e.args?.data?.type === "click");
    if (!mark) throw new Error("bench-app: the trace has neither the t0 mark nor the click");
    const from = mark.ts;
    const to = from + m.paintedMs * 1000;
    // The page's main thread in three windows: until the report's message event, while the page
    // reads the report (→ the joined mark), and its rendering (→ the frame after the DOM
    // condition).
    const us = (pageMs) => from + (pageMs - m.t0) * 1000;
    const arrival = m.seen.msgs.find((x) => x.type === "report")?.at;
    const joined = m.seen.marks.find(([n]) => n.startsWith("ctxlens:report-joined"))?.[1];
    const windows = arrival !== undefined && joined !== undefined
      ? [["until the report arrives", from, us(arrival)], ["reading the report", us(arrival), us(joined)], ["rendering it (→ painted)", us(joined), to]]
      : [];
    const mainIn = (a, b) => summariseTrace(traceEvents, a, b).find((t) => t.thread === "page main");
    return { m, summary: summariseTrace(traceEvents, from, to), mainByPhase: windows.map(([name, a, b]) => ({ phase: name, ms: +((b - a) / 1000).toFixed(1), ...mainIn(a, b) })) };
  }

  // Each size on fresh pages.
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
  const results = { machine: { cpus: os.cpus().length, cpu: os.cpus()[0].model, chromium: browser.version(), loadBefore: load() }, sizes: [] };
  log(`bench-app: Chromium ${browser.version()}, ${os.cpus().length}× ${os.cpus()[0].model}; load average before: ${results.machine.loadBefore}`);

  for (const s of sessions) {
    const r = { mb: s.mb, bytes: s.bytes, firstView: [], sessionIn: [], switches: [], back: [], whatifOff: [], whatifOn: [], loadStart: load() };
    log(`\n== ${(s.bytes / 1e6).toFixed(2)} MB (${path.basename(s.file)}), load ${r.loadStart}`);
    let o;
    for (let i = 0; i < runs; i++) {
      o?.context && (await o.context.close());
      o = await freshPage();
      if (i === 0) r.beforeDrop = await metrics(o);
      const m = await firstView(o, s);
      const sessionMs = await sessionIn(o.page, m.t0);
      r.firstView.push({ ...m, seen: undefined, parts: breakdown(m, "report") });
      r.sessionIn.push({ ...m, seen: undefined, shownMs: sessionMs, paintedMs: sessionMs });
      log(`first view run ${i + 1}: ${m.shownMs.toFixed(0)} ms (painted ${m.paintedMs.toFixed(0)}), longest task ${m.longest.toFixed(0)} ms, ${m.over50} over 50 ms, progress updates ${m.progress}; the session's entries and calls in at ${sessionMs.toFixed(0)} ms`);
      await idle(o.page);
    }
    r.afterLoad = await metrics(o);
    // (b) each protocol not assembled yet, then back to ones already assembled.
    const traced = traceFile && s.mb === Math.min(...sizes);
    for (const api of phases.has("switch") ? APIS.filter((a) => a !== NATIVE).slice(0, switches) : []) {
      await idle(o.page);
      let m;
      if (traced && !r.trace) {
        const t = await tracedSwitch(o, api);
        m = t.m;
        r.trace = { api, summary: t.summary, mainByPhase: t.mainByPhase };
      } else m = await switchTo(o.page, api);
      const state = await o.page.evaluate((a) => document.querySelector(`.view-area[data-api="${a}"]`)?.dataset.state, api);
      const assembled = m.seen.msgs.some((x) => x.type === "report" || x.type === "failed");
      r.switches.push({ api, state, assembled, ...m, seen: undefined, parts: breakdown(m, "report") });
      log(`switch to ${api}: ${m.shownMs.toFixed(0)} ms (painted ${m.paintedMs.toFixed(0)}), ${state}${assembled ? "" : " (already assembled ahead: no report came)"}, longest task ${m.longest.toFixed(0)} ms, ${m.over50} over 50 ms`);
    }
    for (const api of phases.has("back") ? [NATIVE, "anthropic-messages", NATIVE] : []) {
      await idle(o.page);
      const m = await switchTo(o.page, api);
      r.back.push({ api, ...m, seen: undefined });
      log(`back to ${api} (assembled): ${m.shownMs.toFixed(0)} ms (painted ${m.paintedMs.toFixed(0)}), longest task ${m.longest.toFixed(0)} ms`);
    }
    r.afterSwitches = await metrics(o);
    // (c) the What-if view, on the model's own protocol.
    if (!phases.has("whatif")) {
      r.end = await metrics(o);
      r.errors = o.errors;
      await o.context.close();
      results.sizes.push(r);
      continue;
    }
    await idle(o.page);
    await o.page.locator("nav.view-tabs button", { hasText: /^What if$/ }).click();
    await o.page.getByTestId("whatif-view").waitFor({ timeout: 60000 });
    await idle(o.page);
    // Each what-if rebuilds the session's calls: two tools at 40 MB, the four built-ins below.
    for (const tool of s.bytes > 20e6 ? TOOLS.slice(0, 2) : TOOLS) {
      if ((await o.page.getByTestId(`whatif-tool:${tool}`).count()) === 0) continue;
      const off = await toggle(o.page, tool, false);
      const state = await o.page.evaluate(() => document.querySelector('[data-testid="whatif-view"]')?.dataset.state);
      r.whatifOff.push({ tool, state, ...off, seen: undefined, parts: breakdown(off, "whatif") });
      log(`what-if tool:${tool} off: ${off.shownMs.toFixed(0)} ms (painted ${off.paintedMs.toFixed(0)}), ${state}, longest task ${off.longest.toFixed(0)} ms, ${off.over50} over 50 ms`);
      await idle(o.page);
      const on = await toggle(o.page, tool, true);
      r.whatifOn.push({ tool, ...on, seen: undefined });
      log(`what-if tool:${tool} on again: ${on.shownMs.toFixed(0)} ms (painted ${on.paintedMs.toFixed(0)}), longest task ${on.longest.toFixed(0)} ms`);
      await idle(o.page);
    }
    r.end = await metrics(o);
    r.errors = o.errors;
    r.loadEnd = load();
    await o.context.close();
    results.sizes.push(r);
  }
  results.machine.loadAfter = load();
  await browser.close();
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
  return results;
}


// ---------------------------------------------------------------------------------------------
// The table.
// ---------------------------------------------------------------------------------------------

const results = tableFrom ? JSON.parse(fs.readFileSync(tableFrom, "utf8")) : await bench();
if (asJson) {
  process.stdout.write(JSON.stringify(results, null, 2) + "\n");
  process.exit(0);
}
const f = (x) => (x === null || x === undefined || !Number.isFinite(x) ? "–" : x < 10 ? x.toFixed(1) : x.toFixed(0));
const mbf = (b) => (b / 1048576).toFixed(1) + " MiB";
console.log(`\n${results.machine.cpus}× ${results.machine.cpu}, Chromium ${results.machine.chromium}, headless; load average (1, 5, 15 min) before: ${results.machine.loadBefore}`);
console.log("ms from the user's action to the DOM condition (median; painted: the task after that frame); longest task: the longest main-thread long task (a task of 50 ms or more) during it\n");
console.log("| session | action | runs | ms (median) | min–max | painted ms | longest main-thread task ms | tasks > 50 ms (median) | progress bar updates (median) | notes |");
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
for (const r of results.sizes) {
  const size = `${(r.bytes / 1e6).toFixed(1)} MB`;
  const row = (label, ms, extra = "") => {
    if (!ms.length) return;
    const shown = ms.map((m) => m.shownMs);
    console.log(`| ${size} | ${label} | ${ms.length} | ${f(median(shown))} | ${f(Math.min(...shown))}–${f(Math.max(...shown))} | ${f(median(ms.map((m) => m.paintedMs)))} | ${Math.max(...ms.map((m) => m.longest)) > 0 ? f(Math.max(...ms.map((m) => m.longest))) : "< 50"} | ${median(ms.map((m) => m.over50))} | ${median(ms.map((m) => m.progress))} | ${extra} |`);
  };
  row("drop → first view", r.firstView);
  row("drop → the session's entries and calls (after the first view)", r.sessionIn, "longest task and tasks: the first view's");
  const fresh = r.switches.filter((m) => m.assembled);
  row("switch to a protocol not assembled", fresh, fresh.filter((m) => m.state !== "ready").map((m) => `${m.api}: ${m.state}`).join(", "));
  row("switch to a protocol assembled ahead (prefetch)", r.switches.filter((m) => !m.assembled));
  for (const m of r.switches) row(`  ${m.api}`, [m]);
  row("switch back to an assembled protocol", r.back);
  row("what-if: a tool off", r.whatifOff, r.whatifOff.filter((m) => m.state !== "ready").map((m) => `${m.tool}: ${m.state}`).join(", "));
  row("what-if: the tool on again", r.whatifOn);
}
console.log("\nMemory (wasm memory only grows: each is the peak so far). Worker: the `memoryBytes` of its last report; page: its wasm memory (the status's data-page-memory) and JS heap (CDP Performance.getMetrics JSHeapUsedSize)\n");
console.log("| session | when | worker wasm memory | × session | page wasm memory | × session | page JS heap used |");
console.log("|---|---|---:|---:|---:|---:|---:|");
for (const r of results.sizes) {
  for (const [when, m] of [["the demo, before the drop", r.beforeDrop], ["after the first view", r.afterLoad], [`after ${r.switches.length + 1} protocols`, r.afterSwitches], ["after the what-ifs", r.whatifOff.length ? r.end : null]]) {
    if (!m) continue;
    console.log(`| ${(r.bytes / 1e6).toFixed(1)} MB | ${when} | ${mbf(m.workerWasm)} | ${(m.workerWasm / r.bytes).toFixed(1)}× | ${mbf(m.pageWasm)} | ${(m.pageWasm / r.bytes).toFixed(1)}× | ${mbf(m.jsHeapUsed)} |`);
  }
}
console.log("\nWhere the time goes (medians, ms): page before it posts to the worker; the worker's queue (post → its receipt); for a drop, the worker's handling of `load` (→ its receipt of `assemble`); its compute (receipt → post; its own `ms`); the transfer (post → the page's message event); the page reading the report's parts (→ the joined mark); the page's render (→ the DOM condition); the frame after it (layout, paint)\n");
console.log("| session | action | page before post | worker queue | worker load | worker compute | worker `ms` | transfer | page read | page render | frame after | reply MB |");
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of results.sizes) {
  const size = `${(r.bytes / 1e6).toFixed(1)} MB`;
  for (const [label, ms] of [["drop → first view", r.firstView], ["switch, not assembled", r.switches], ["what-if off", r.whatifOff]]) {
    const p = ms.map((m) => m.parts).filter(Boolean);
    if (!p.length) continue;
    const k = (n) => f(medianOf(p, n));
    console.log(`| ${size} | ${label} | ${k("page_before_post")} | ${k("worker_queue")} | ${k("worker_load")} | ${k("worker_compute")} | ${k("worker_ms_reported")} | ${k("transfer")} | ${k("page_read")} | ${k("page_render")} | ${k("frame_after")} | ${(medianOf(p, "bytes") / 1e6).toFixed(1)} |`);
  }
}
console.log("\nThe worker's stages (its progress messages' send times; the run nearest the median), ms\n");
for (const r of results.sizes) {
  const size = `${(r.bytes / 1e6).toFixed(1)} MB`;
  for (const [label, ms] of [["drop → first view", r.firstView], ["switch, not assembled", r.switches.filter((m) => m.assembled)], ["what-if off", r.whatifOff]]) {
    const withParts = ms.filter((m) => m.parts?.stages?.length);
    if (!withParts.length) continue;
    const mid = median(withParts.map((m) => m.shownMs));
    const m = withParts.reduce((a, b) => (Math.abs(b.shownMs - mid) < Math.abs(a.shownMs - mid) ? b : a));
    console.log(`- ${size} ${label}${m.api ? ` (${m.api})` : m.tool ? ` (tool:${m.tool})` : ""}: ${m.parts.stages.map(([st, t]) => `${st} ${f(t)}`).join(" → ")}`);
    const lp = Object.entries(m.parts.longByPhase ?? {});
    if (lp.length) console.log(`  its main-thread tasks over 50 ms, by phase: ${lp.map(([ph, ds]) => `${ph}: ${ds.join(", ")} ms`).join("; ")}`);
  }
}
for (const r of results.sizes) {
  if (!r.trace) continue;
  console.log(`\nChrome trace of the ${(r.bytes / 1e6).toFixed(1)} MB switch to ${r.trace.api} (self time by thread, click → painted)${traceFile ? `: ${traceFile}` : ""}`);
  for (const t of r.trace.summary) {
    console.log(`- ${t.thread}: busy ${t.busyMs} ms, longest task ${t.longestTaskMs} ms; ${Object.entries(t.bucketsMs).map(([b, ms]) => `${b} ${ms}`).join(", ")}`);
    console.log(`  top events: ${t.topEventsMs.map(([n, ms]) => `${n} ${ms}`).join(", ")}`);
  }
  for (const p of r.trace.mainByPhase ?? []) {
    console.log(`- page main, ${p.phase} (${p.ms} ms): busy ${p.busyMs} ms, longest task ${p.longestTaskMs} ms; ${Object.entries(p.bucketsMs ?? {}).map(([b, ms]) => `${b} ${ms}`).join(", ")}`);
  }
}
const errs = results.sizes.flatMap((r) => r.errors);
if (errs.length) console.log(`\npage errors: ${errs.join(" | ")}`);
console.log(`\nload average after: ${results.machine.loadAfter}`);
