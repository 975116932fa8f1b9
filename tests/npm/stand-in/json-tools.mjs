// A copy of the capture harness's tools extension (the oracle's json-tools.mjs), kept in the
// repository for the pi package tests (tests/npm/pi-run.mjs).
// A pi extension that registers the tools listed in the JSON file named by ORACLE_TOOLS_JSON,
// so that a captured request carries exactly those definitions.
import fs from "node:fs";

export default function (pi) {
  const file = process.env.ORACLE_TOOLS_JSON;
  if (!file || !fs.existsSync(file)) return;
  for (const t of JSON.parse(fs.readFileSync(file, "utf8"))) {
    const def = {
      name: t.name,
      label: t.label ?? t.name,
      description: t.description,
      parameters: t.parameters ?? { type: "object", properties: {} },
      async execute() {
        return { content: [{ type: "text", text: t.result ?? "ok" }] };
      },
    };
    if (t.promptSnippet !== undefined) def.promptSnippet = t.promptSnippet;
    if (t.promptGuidelines !== undefined) def.promptGuidelines = t.promptGuidelines;
    pi.registerTool(def);
  }
}
