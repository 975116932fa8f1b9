// extract/sdks.mjs: the versions of the SDKs whose names and versions pi's requests carry
// (User-Agent values, x-goog-api-client, ...), read from the installed packages (sdks.json).

import fs from "node:fs";
import path from "node:path";
import { NM, pkgVersion } from "./lib.mjs";

const SDKS = ["openai", "@anthropic-ai/sdk", "@aws-sdk/client-bedrock-runtime", "@google/genai", "@mistralai/mistralai"];

export function extractSdks() {
  const out = {};
  for (const p of SDKS) {
    if (fs.existsSync(path.join(NM, p, "package.json"))) out[p] = pkgVersion(NM, p);
  }
  return out;
}
