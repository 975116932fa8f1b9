// What the extension says in pi: the command line's text made safe to show (untrusted text —
// file names, tool names, session text — may hold terminal control characters), the context
// window line under the summary, and a what-if's saving with its take-home.

/** Terminal control characters (C0 but tab and newline, DEL, C1) shown as U+FFFD. */
export function safe(text) {
  return String(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "\ufffd");
}

const n = (v) => Math.round(v).toLocaleString("en-US");
const pct = (v) => `${(v * 100).toFixed(1)}%`;
const signed = (v) => (v > 0 ? `+${n(v)}` : v < 0 ? `−${n(-v)}` : "0");

/**
 * The summary's total (≈ tokens by pi's estimate) against the model's context window, as one
 * line; null when either is unknown.
 */
export function windowLine(summary, contextWindow) {
  const m = /^\s+total\s+([\d,]+)\s+([\d,]+)/m.exec(summary);
  if (!m || !contextWindow) return null;
  const tokens = Number(m[2].replace(/,/g, ""));
  return `Context window: ≈ ${n(tokens)} of ${n(contextWindow)} tokens (${pct(tokens / contextWindow)}) by pi's estimate`;
}

/** A what-if's result (the command line's `whatif` JSON) as lines: each change and its take-home, the saving, the blocks that change, the cache. */
export function whatifText(w) {
  const lines = [];
  for (const c of w.changes ?? []) {
    lines.push(`What if: ${c.change} — ${c.did}`);
    lines.push(`  to make it for real: ${takeHome(c.takeHome)}`);
  }
  if (w.identical) {
    lines.push("The request does not change.");
    return lines;
  }
  const { before: b, after: a, delta: d } = w;
  const tokens = d.tokens === null || d.tokens === undefined ? "" : `, ≈ ${signed(d.tokens)} tokens${b.tokensBy ? ` by ${b.tokensBy}` : ""}`;
  lines.push(`Each request: ${n(b.chars)} → ${n(a.chars)} characters (${signed(d.chars)})${tokens}`);
  if (b.windowShare !== null && a.windowShare !== null && b.contextWindow) {
    lines.push(`Context window: ${pct(b.windowShare)} → ${pct(a.windowShare)} of ${n(b.contextWindow)} tokens`);
  }
  const cost = (c) => (c === null || c === undefined ? "unknown" : `$${c.toFixed(4)}`);
  if (b.costPerCall?.input !== null && (b.pricesPerMillion?.input ?? 0) > 0) {
    lines.push(`Input cost per call: ${cost(b.costPerCall.input)} → ${cost(a.costPerCall.input)}`);
  }
  for (const blk of (w.blocks ?? []).filter((x) => x.charsDelta && x.name !== "body")) {
    lines.push(`  ${blk.name.padEnd(24)} ${n(blk.fromChars).padStart(10)} → ${n(blk.toChars).padStart(10)}  (${signed(blk.charsDelta)})`);
  }
  if (w.cache?.note) lines.push(`Cache: ${w.cache.note}`);
  lines.push(...sessionLines(w.session));
  return lines;
}

/** The session's past calls rebuilt with the change made at the start: what they would have saved. */
function sessionLines(s) {
  if (!s || !s.callsRebuilt) return [];
  const saved = s.saved ?? {};
  const parts = [`${n(saved.chars ?? 0)} characters`];
  if (typeof saved.reportedTokens === "number") parts.push(`${n(saved.reportedTokens)} reported input tokens`);
  if (typeof saved.cost === "number" && saved.cost > 0) parts.push(`$${saved.cost.toFixed(4)}`);
  const lines = [`This session's ${s.callsRebuilt} past call(s) rebuilt with the change: ${parts.join(", ")} saved`];
  for (const note of s.notes ?? []) lines.push(`  ${note}`);
  return lines;
}

function takeHome(t) {
  if (!t) return "pi has no way to make it";
  return t.text ?? (t.kind === "none" ? "pi has no way to make it" : JSON.stringify(t));
}


/** `/ctxlens`'s usage. */
export const USAGE = [
  "/ctxlens                 what the request pi sends with your next prompt is made of",
  "/ctxlens open            the ctxlens visualizer on this session, on 127.0.0.1",
  "/ctxlens whatif SPEC…    what a change saves: tool:NAME, skill:NAME, context:PATH,",
  "                         turn:ID, thinking:old, model=P/ID, thinking=LEVEL, …",
  "/ctxlens usage [--by week]  every call of every session: where the tokens and cost went",
  "/ctxlens check [on|off]  the live check: each request pi sends, rebuilt and compared",
].join("\n");
