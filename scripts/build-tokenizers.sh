#!/usr/bin/env bash
# build-tokenizers.sh [NAME...]: builds each vocabulary's wasm module (crate tokens/wasm,
# `ctxlens-tokenizer-wasm`, with that one vocabulary's feature) into target/tokenizers/NAME.wasm,
# then prints their sizes, raw and gzipped (-9), on stderr, and their paths on stdout. Default:
# all ten.
#   cargo (wasm profile: opt-level z, lto; the 16 MB wasm stack comes from the crate's build.rs,
#   so no RUSTFLAGS: the workspace's target dir is shared and regex etc. compile once)
#   → wasm-opt -Oz --low-memory-unused (npm binaryen, as scripts/build-npm.sh runs it, without
#   --converge: see below), two modules at a time
# Incremental: cargo keeps each feature's build apart (switching is a copy), and wasm-opt runs
# only when cargo's output changed (its sha256 is kept in target/tokenizers/NAME.sum).
# The modules: target/tokenizers/NAME.wasm; the app serves them as /tokenizers/NAME.wasm
# (scripts/embed-assets.sh), the npm package ships them as tokenizers/NAME.wasm.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

# The vocabularies of ctxlens_tokens::builtin (tokens/src/lib.rs BUILTINS) that the browser gets;
# Gemma's tokenizer.json (33 MB, HF tokenizers) is not among them.
all=(o200k_base cl100k_base qwen2 deepseek_v3 llama3 mistral_v3 kimi_k2 glm4 glm5 minimax_m2)
names=("$@")
((${#names[@]})) || names=("${all[@]}")
for n in "${names[@]}"; do
  [[ " ${all[*]} " == *" $n "* ]] || { echo "build-tokenizers: unknown vocabulary $n (known: ${all[*]})" >&2; exit 2; }
done

say() { printf '\033[1m[build-tokenizers]\033[0m %s\n' "$*" >&2; }
wasm_opt="$repo/node_modules/.bin/wasm-opt"
[[ -x $wasm_opt ]] || { echo "build-tokenizers: $wasm_opt is missing (npm ci)" >&2; exit 1; }

out="$repo/target/tokenizers"
mkdir -p "$out"
built="${CARGO_TARGET_DIR:-$repo/target}/wasm32-unknown-unknown/wasm/ctxlens_tokenizer_wasm.wasm"
# cargo one feature at a time (they share the target dir's lock); each output is kept as
# NAME.cargo.wasm, and wasm-opt runs on those that changed, two at a time.
todo=()
for n in "${names[@]}"; do
  cargo build -p ctxlens-tokenizer-wasm --profile wasm --target wasm32-unknown-unknown --quiet --features "$n"
  sum=$(sha256sum "$built" | cut -d' ' -f1)
  if [[ ! -f "$out/$n.wasm" || "$(cat "$out/$n.sum" 2>/dev/null)" != "$sum" ]]; then
    cp "$built" "$out/$n.cargo.wasm"
    echo "$sum" >"$out/$n.cargo.sum"
    todo+=("$n")
  fi
done
# No --converge (scripts/build-npm.sh uses it): here it took 30 s a module instead of 18 and the
# result was 900 bytes larger gzipped.
opt() {
  "$wasm_opt" -Oz --low-memory-unused --strip-debug --strip-producers \
    --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals \
    "$out/$1.cargo.wasm" -o "$out/$1.wasm.tmp"
  mv "$out/$1.wasm.tmp" "$out/$1.wasm"
  mv "$out/$1.cargo.sum" "$out/$1.sum"
  rm "$out/$1.cargo.wasm"
}
if ((${#todo[@]})); then
  say "wasm-opt -Oz: ${todo[*]}"
  export -f opt
  export wasm_opt out
  printf '%s\n' "${todo[@]}" | xargs -P 2 -I{} bash -c 'opt {}'
fi

{
  printf '%-12s %10s %10s\n' vocabulary raw gzip-9
  traw=0 tgz=0
  for n in "${names[@]}"; do
    raw=$(wc -c <"$out/$n.wasm")
    gz=$(gzip -9 -c "$out/$n.wasm" | wc -c)
    traw=$((traw + raw)) tgz=$((tgz + gz))
    printf '%-12s %10d %10d\n' "$n" "$raw" "$gz"
  done
  printf '%-12s %10d %10d\n' total "$traw" "$tgz"
} >&2
for n in "${names[@]}"; do echo "$out/$n.wasm"; done
