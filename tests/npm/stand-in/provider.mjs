// A copy of the capture harness's stand-in provider (the oracle's mock-provider.mjs), kept in the
// repository for the pi package tests (tests/npm/pi-run.mjs).
// A loopback HTTP server standing in for an LLM provider. It records every request body it
// receives (request-N.json, with request-N.meta.json for method, path and headers) and answers
// in the protocol that the path implies: with the next turn of the script, when one is given,
// else with a plain "ok". A script is a JSON array of turns:
//   {"thinking": "...", "text": "...", "toolCalls": [{"name": "bash", "arguments": {...}}]}
import http from "node:http";
import fs from "node:fs";
import zlib from "node:zlib";

const [, , portFile, outDir, scriptFile] = process.argv;
const script = scriptFile && fs.existsSync(scriptFile) ? JSON.parse(fs.readFileSync(scriptFile, "utf8")) : [];
let n = 0;

const sse = (events) =>
  events.map(([ev, data]) => (ev ? `event: ${ev}\n` : "") + `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`).join("");

function anthropic(body, turn, k) {
  const ev = [["message_start", { type: "message_start", message: { id: `msg_${k}`, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 100 * k, output_tokens: 1, cache_read_input_tokens: 50 * k, cache_creation_input_tokens: 10 } } }]];
  let i = 0;
  if (turn.thinking) {
    ev.push(["content_block_start", { type: "content_block_start", index: i, content_block: { type: "thinking", thinking: "", signature: "" } }]);
    ev.push(["content_block_delta", { type: "content_block_delta", index: i, delta: { type: "thinking_delta", thinking: turn.thinking } }]);
    ev.push(["content_block_delta", { type: "content_block_delta", index: i, delta: { type: "signature_delta", signature: `sig-${k}-${"x".repeat(40)}` } }]);
    ev.push(["content_block_stop", { type: "content_block_stop", index: i++ }]);
  }
  if (turn.text) {
    ev.push(["content_block_start", { type: "content_block_start", index: i, content_block: { type: "text", text: "" } }]);
    ev.push(["content_block_delta", { type: "content_block_delta", index: i, delta: { type: "text_delta", text: turn.text } }]);
    ev.push(["content_block_stop", { type: "content_block_stop", index: i++ }]);
  }
  (turn.toolCalls || []).forEach((c, j) => {
    ev.push(["content_block_start", { type: "content_block_start", index: i, content_block: { type: "tool_use", id: c.id ?? `toolu_${k}_${j}`, name: c.name, input: {} } }]);
    ev.push(["content_block_delta", { type: "content_block_delta", index: i, delta: { type: "input_json_delta", partial_json: JSON.stringify(c.arguments) } }]);
    ev.push(["content_block_stop", { type: "content_block_stop", index: i++ }]);
  });
  const stop = (turn.toolCalls || []).length ? "tool_use" : "end_turn";
  ev.push(["message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } }]);
  ev.push(["message_stop", { type: "message_stop" }]);
  return sse(ev);
}

function responses(body, turn, k) {
  const output = [];
  if (turn.thinking) output.push({ id: `rs_${k}`, type: "reasoning", summary: [{ type: "summary_text", text: turn.thinking }], encrypted_content: `enc-${k}` });
  if (turn.text) output.push({ id: `msg_${k}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: turn.text, annotations: [] }] });
  (turn.toolCalls || []).forEach((c, j) => output.push({ id: `fc_${k}_${j}`, type: "function_call", status: "completed", call_id: c.id ?? `call_${k}_${j}`, name: c.name, arguments: JSON.stringify(c.arguments) }));
  const resp = { id: `resp_${k}`, object: "response", status: "completed", model: body.model, output, usage: { input_tokens: 100 * k, output_tokens: 20, total_tokens: 100 * k + 20, input_tokens_details: { cached_tokens: 50 * k } } };
  const ev = [["response.created", { type: "response.created", response: { ...resp, status: "in_progress", output: [] } }]];
  output.forEach((item, idx) => {
    ev.push(["response.output_item.added", { type: "response.output_item.added", output_index: idx, item }]);
    if (item.type === "message") ev.push(["response.output_text.delta", { type: "response.output_text.delta", output_index: idx, content_index: 0, item_id: item.id, delta: turn.text }]);
    if (item.type === "function_call") ev.push(["response.function_call_arguments.delta", { type: "response.function_call_arguments.delta", output_index: idx, item_id: item.id, delta: item.arguments }]);
    ev.push(["response.output_item.done", { type: "response.output_item.done", output_index: idx, item }]);
  });
  ev.push(["response.completed", { type: "response.completed", response: resp }]);
  return sse(ev);
}

function completions(body, turn, k) {
  const chunk = (delta, finish, extra = {}) => [null, { id: `c${k}`, object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra }];
  const ev = [];
  if (turn.thinking) ev.push(chunk({ role: "assistant", reasoning_content: turn.thinking }, null));
  if (turn.text) ev.push(chunk({ role: "assistant", content: turn.text }, null));
  (turn.toolCalls || []).forEach((c, j) =>
    ev.push(chunk({ tool_calls: [{ index: j, id: c.id ?? `call_${k}_${j}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } }] }, null)),
  );
  ev.push(chunk({}, (turn.toolCalls || []).length ? "tool_calls" : "stop", { usage: { prompt_tokens: 100 * k, completion_tokens: 20, total_tokens: 100 * k + 20, prompt_tokens_details: { cached_tokens: 50 * k } } }));
  ev.push([null, "[DONE]"]);
  return sse(ev);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let buf = Buffer.concat(chunks);
    if (req.headers["content-encoding"] === "zstd") buf = zlib.zstdDecompressSync(buf);
    else if (req.headers["content-encoding"] === "gzip") buf = zlib.gunzipSync(buf);
    const raw = buf.toString("utf8");
    n += 1;
    const headers = { ...req.headers };
    for (const key of Object.keys(headers)) if (/auth|api-key|cookie/i.test(key)) headers[key] = "<redacted>";
    fs.writeFileSync(`${outDir}/request-${n}.json`, raw);
    fs.writeFileSync(`${outDir}/request-${n}.meta.json`, JSON.stringify({ method: req.method, url: req.url, headers }, null, 2));
    let body = {};
    try { body = JSON.parse(raw); } catch {}
    const turn = script[n - 1] ?? { text: "ok" };
    res.writeHead(200, { "content-type": "text/event-stream" });
    const url = req.url;
    res.end(url.includes("/messages") ? anthropic(body, turn, n) : url.includes("/responses") ? responses(body, turn, n) : completions(body, turn, n));
  });
});
server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
setTimeout(() => process.exit(0), 300000).unref();
