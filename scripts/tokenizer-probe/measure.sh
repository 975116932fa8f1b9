#!/usr/bin/env bash
# Rebuilds the wasm probes of docs/tokenizers.md and prints their sizes (release profile as
# ctxlens's, wasm-opt as scripts/build-npm.sh runs it, gzip -9) and their speed in Node on the
# text parts of a generated 4 MB session. Needs scripts/fetch-vocabularies.sh first.
#   bash scripts/tokenizer-probe/measure.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$repo/target/tokenizer-probe"
mkdir -p "$out"
wasm_opt() {
  "$repo/node_modules/.bin/wasm-opt" -Oz --converge --low-memory-unused --enable-bulk-memory \
    --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --enable-reference-types "$1" -o "$2"
  echo "$(basename "$2"): $(stat -c%s "$2") B, gzipped $(gzip -9c "$2" | wc -c) B"
}
session="$out/session-4MB.jsonl"
[[ -f "$session" ]] || node "$repo/scripts/bench-npm.mjs" --generate "$out" --sizes 4 >/dev/null
cd "$here"
# The tiktoken crate: one module per vocabulary. The default 1 MB wasm stack is too small for it.
for vocab in o200k cl100k qwen; do
  RUSTFLAGS="-C link-arg=-zstack-size=16777216" CARGO_TARGET_DIR="$out/target" \
    cargo build -q --release --target wasm32-unknown-unknown -p tk --features "$vocab"
  wasm_opt "$out/target/wasm32-unknown-unknown/release/tk.wasm" "$out/tk-$vocab.wasm"
  node run.mjs "$out/tk-$vocab.wasm" "$session"
done
# HF tokenizers: the code, then a tokenizer.json read at run time.
CARGO_TARGET_DIR="$out/target" cargo build -q --release --target wasm32-unknown-unknown -p hf
wasm-bindgen --target web --no-typescript --out-dir "$out/hf" "$out/target/wasm32-unknown-unknown/release/hf.wasm"
echo '{"type":"module"}' >"$out/hf/package.json"
wasm_opt "$out/hf/hf_bg.wasm" "$out/hf.wasm"
node runhf.mjs "$out/hf/hf.js" "$out/hf.wasm" "$repo/target/vocab-cache/hf/qwen2.json" "$session"
