// The accounting against an independent count. For every captured body of the corpus, this file
// reads the body pi sent with Node's own JSON.parse and measures it with JSON.stringify and
// String.length (UTF-16 units, as JS counts), each protocol's layout read by its own paths, with
// no ctxlens code: the system texts, each tool's description and JSON.stringify(parameters), and
// the conversation by kind. The package's statistics (`assembleCase(...).stats`, sums over the
// spans the body's writer recorded) must equal it exactly.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { installPackage, corpus, readTree } from "./helpers.mjs";

let ctxlens;
before(async () => {
  const project = installPackage();
  fs.writeFileSync(path.join(project, "accounting-entry.mjs"), 'export * as ctxlens from "ctxlens";\n');
  ({ ctxlens } = await import(pathToFileURL(path.join(project, "accounting-entry.mjs")).href));
});

const len = (v) => (typeof v === "string" ? v.length : 0);
const json = (v) => (v === undefined ? 0 : JSON.stringify(v).length);
const arr = (v) => (Array.isArray(v) ? v : []);
// A content that is a string or text parts: its texts.
const texts = (v) => (typeof v === "string" ? v.length : arr(v).reduce((n, p) => n + len(p?.text), 0));

function fresh() {
  return { system: 0, tools: {}, user: 0, assistant: 0, reasoning: 0, arguments: 0, results: 0, signatures: 0 };
}

function tool(r, name, description, parameters) {
  const key = String(name ?? "?").toLowerCase();
  const t = (r.tools[key] ??= [0, 0]);
  t[0] += len(description);
  t[1] += json(parameters);
}

function completions(b, r) {
  for (const m of arr(b.messages)) {
    for (const t of arr(m.tools)) tool(r, t.function?.name, t.function?.description, t.function?.parameters);
    const c = m.content;
    switch (m.role) {
      case "system":
      case "developer":
        r.system += texts(c);
        break;
      case "user":
        r.user += texts(c);
        break;
      case "tool":
        r.results += texts(c);
        break;
      case "assistant":
        if (Array.isArray(c)) {
          for (const p of c) {
            // Mistral's thinking chunk holds text chunks.
            if (p.type === "thinking") r.reasoning += texts(p.thinking);
            else r.assistant += len(p.text);
          }
        } else r.assistant += texts(c);
        for (const k of ["reasoning_content", "reasoning", "reasoning_text"]) r.reasoning += len(m[k]);
        for (const d of arr(m.reasoning_details)) {
          r.reasoning += len(d.text);
          r.signatures += len(d.signature) + len(d.data);
        }
        for (const tc of arr(m.tool_calls)) {
          const a = tc.function?.arguments;
          r.arguments += typeof a === "string" ? a.length : json(a);
        }
        break;
    }
  }
  for (const t of arr(b.tools)) tool(r, t.function?.name, t.function?.description, t.function?.parameters);
}

function anthropic(b, r) {
  r.system += texts(b.system);
  for (const m of arr(b.messages)) {
    const user = m.role === "user";
    const c = m.content;
    if (m.role === "system") {
      for (const p of arr(c)) {
        r.system += len(p.text);
        const d = p.tool?.definition;
        if (d) tool(r, d.name, d.description, d.input_schema);
      }
      if (typeof c === "string") r.system += c.length;
      continue;
    }
    if (typeof c === "string") {
      if (user) r.user += c.length;
      else r.assistant += c.length;
      continue;
    }
    for (const p of arr(c)) {
      if (p.type === "text") {
        if (user) r.user += len(p.text);
        else r.assistant += len(p.text);
      } else if (p.type === "thinking") {
        r.reasoning += len(p.thinking);
        r.signatures += len(p.signature);
      } else if (p.type === "redacted_thinking") r.signatures += len(p.data);
      else if (p.type === "tool_use") r.arguments += json(p.input);
      else if (p.type === "tool_result") r.results += texts(p.content);
    }
  }
  for (const t of arr(b.tools)) tool(r, t.name, t.description, t.input_schema);
}

function responses(b, r) {
  r.system += len(b.instructions);
  for (const it of arr(b.input)) {
    for (const t of arr(it.tools)) tool(r, t.name, t.description, t.parameters);
    if (it.role === "system" || it.role === "developer") r.system += texts(it.content);
    else if (it.role === "user") r.user += texts(it.content);
    else if (it.role === "assistant") r.assistant += texts(it.content);
    else if (it.type === "reasoning") {
      r.reasoning += texts(it.summary);
      r.signatures += len(it.encrypted_content);
    } else if (it.type === "function_call") r.arguments += len(it.arguments);
    else if (it.type === "function_call_output") r.results += texts(it.output);
  }
  for (const t of arr(b.tools)) tool(r, t.name, t.description, t.parameters);
}

function google(b, r) {
  r.system += texts(b.systemInstruction?.parts);
  for (const c of arr(b.contents)) {
    const user = c.role === "user";
    for (const p of arr(c.parts)) {
      if (p.thought) r.reasoning += len(p.text);
      else if (user) r.user += len(p.text);
      else r.assistant += len(p.text);
      r.signatures += len(p.thoughtSignature);
      if (p.functionCall) r.arguments += json(p.functionCall.args);
      const response = p.functionResponse?.response;
      if (response && typeof response === "object") for (const v of Object.values(response)) r.results += len(v);
    }
  }
  for (const t of arr(b.tools)) for (const d of arr(t.functionDeclarations)) tool(r, d.name, d.description, d.parametersJsonSchema ?? d.parameters);
}

function bedrock(b, r) {
  for (const p of arr(b.system)) r.system += len(p.text);
  for (const m of arr(b.messages)) {
    const user = m.role === "user";
    for (const p of arr(m.content)) {
      if (user) r.user += len(p.text);
      else r.assistant += len(p.text);
      const rc = p.reasoningContent;
      if (rc) {
        r.reasoning += len(rc.reasoningText?.text);
        r.signatures += len(rc.reasoningText?.signature) + len(rc.redactedContent);
      }
      if (p.toolUse) r.arguments += json(p.toolUse.input);
      if (p.toolResult) r.results += texts(p.toolResult.content);
    }
  }
  for (const t of arr(b.toolConfig?.tools)) tool(r, t.toolSpec?.name, t.toolSpec?.description, t.toolSpec?.inputSchema);
}

function piMessages(b, r) {
  const c = b.context ?? {};
  r.system += texts(c.systemPrompt);
  for (const m of arr(c.messages)) {
    if (m.sections && typeof m.sections === "object") for (const v of Object.values(m.sections)) r.system += len(v);
    for (const t of arr(m.toolsAdded)) tool(r, t.name, t.description, t.parameters);
    if (typeof m.content === "string") {
      if (m.role === "system") r.system += m.content.length;
      else if (m.role === "toolResult") r.results += m.content.length;
      else r.user += m.content.length;
      continue;
    }
    for (const p of arr(m.content)) {
      if (m.role === "system") r.system += len(p.text);
      else if (p.type === "text") {
        if (m.role === "assistant") {
          r.assistant += len(p.text);
          r.signatures += len(p.textSignature);
        } else if (m.role === "toolResult") r.results += len(p.text);
        else r.user += len(p.text);
      } else if (p.type === "thinking") {
        r.reasoning += len(p.thinking);
        r.signatures += len(p.thinkingSignature);
      } else if (p.type === "toolCall") {
        r.arguments += json(p.arguments);
        r.signatures += len(p.thoughtSignature);
      }
    }
  }
  for (const t of arr(c.tools)) tool(r, t.name, t.description, t.parameters);
}

const byApi = {
  "openai-completions": completions,
  "mistral-conversations": completions,
  "anthropic-messages": anthropic,
  "openai-responses": responses,
  "azure-openai-responses": responses,
  "openai-codex-responses": responses,
  "google-generative-ai": google,
  "bedrock-converse-stream": bedrock,
  "pi-messages": piMessages,
};

function accounted(stats) {
  const k = stats.history.byKind;
  const tools = {};
  for (const t of stats.tools.byTool) tools[t.name.toLowerCase()] = [t.descriptionChars, t.parametersChars];
  return {
    system: stats.systemPrompt.chars,
    tools,
    user: k.userText,
    assistant: k.assistantText,
    reasoning: k.reasoning,
    arguments: k.toolArguments,
    results: k.toolResults,
    signatures: k.signatures,
  };
}

const sorted = (r) => ({ ...r, tools: Object.fromEntries(Object.entries(r.tools).sort(([a], [b]) => a.localeCompare(b))) });

test("every statistic equals an independent count over the body pi sent", () => {
  const failures = [];
  let checked = 0;
  for (const c of corpus()) {
    const file = path.join(c.dir, "expected/request-1.json");
    if (!fs.existsSync(file)) continue;
    const sent = fs.readFileSync(file, "utf8");
    let body;
    try {
      body = JSON.parse(sent);
    } catch {
      continue;
    }
    const result = ctxlens.assembleCase(readTree(c.dir));
    if (result.body !== sent || !result.stats) continue;
    const count = byApi[result.model?.api];
    assert.ok(count, `${c.name}: a protocol this test knows (${result.model?.api})`);
    const want = fresh();
    count(body, want);
    const got = accounted(result.stats);
    checked++;
    try {
      assert.deepEqual(sorted(got), sorted(want));
    } catch {
      failures.push(`${c.name} (${result.model.api}):\n  got  ${JSON.stringify(sorted(got))}\n  want ${JSON.stringify(sorted(want))}`);
    }
    // The parts add up to the body: system + tools + history + parameters + structure.
    const s = result.stats;
    const parts = s.systemPrompt.chars + s.tools.chars + s.history.chars + s.parameters.chars + s.structure.chars;
    if (parts !== sent.length) failures.push(`${c.name}: the parts add up to ${parts}, the body is ${sent.length} UTF-16 units`);
  }
  console.log(`accounting: ${checked - failures.length} of ${checked} captured bodies counted exactly as an independent count gives`);
  assert.ok(checked > 1500, `only ${checked} bodies`);
  assert.deepEqual(failures, []);
});
