#!/usr/bin/env bash
# build-npm.sh [--no-app | --repack]: builds the `ctxlens` npm package from the repo into pkg/ and packs it.
#   cargo (wasm/, lto; once without features at the wasm profile, opt-level z: the browser
#   wasm, small; once with `node` at the release-fast profile, opt-level s: Node's wasm — the API in
#   Node, assembleSession and the bin — faster) → wasm-bindgen --target web (the pinned CLI) →
#   wasm-opt (npm binaryen; -Oz --converge, or -Os for Node's) → each vocabulary's wasm
#   module (scripts/build-tokenizers.sh) → pkg/ctxlens/ (npm/ template + wasm/ + tokenizers/) →
#   the visualizer: `trunk build --release` (dist/; its post_build hook,
#   scripts/embed-assets.sh, copies the browser files just written into dist/) → pkg/ctxlens/app/
#   (the app's files from dist/, which `npx ctxlens open` serves) → npm pack → pkg/*.tgz
# --no-app: pkg/ctxlens/ without app/, not packed (what embed-assets.sh runs when the package's
# browser files are stale: the order above without a cycle).
# --repack: the npm/ templates (the JS, the types, the pi extension in npm/pi/, package.json)
# copied again over an existing pkg/ctxlens/ and packed, with no cargo, wasm or app build: for
# a change to the templates alone.
# Prints each .wasm's size, raw and gzipped (the browser's target: ≤ 350 KB gzipped), and the
# tarball's size, packed and unpacked.
# Incremental: cargo builds incrementally, wasm-opt is skipped when wasm-bindgen's output did
# not change, and so is npm pack when no file of the package changed.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
app=1
repack=0
case ${1:-} in
  --no-app) app=0 ;;
  --repack) repack=1 ;;
  "") ;;
  *) echo "usage: build-npm.sh [--no-app | --repack]" >&2; exit 2 ;;
esac

say() { printf '\033[1m[build-npm]\033[0m %s\n' "$*" >&2; }
out="$repo/pkg/ctxlens"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

# The package's own files from npm/ (everything but the wasm, the data, the vocabularies and the
# app, which the build writes).
templates() {
  mkdir -p "$out/bin" "$out/pi"
  cp npm/bin/ctxlens.js "$out/bin/ctxlens.js"
  chmod +x "$out/bin/ctxlens.js"
  cp npm/index.js npm/index.d.ts npm/web.js npm/web.d.ts npm/element.js npm/element.d.ts npm/bundler.js npm/browser.js npm/node-host.js npm/node.js npm/api.js npm/tokens.js npm/node-tokens.js npm/types.d.ts npm/report.d.ts npm/README.md "$out/"
  rm -f "$out"/pi/*.js
  cp npm/pi/*.js "$out/pi/"
  sed "s/\"0.0.0-set-by-build\"/\"$version\"/" npm/package.json >"$out/package.json"
}

# npm pack only when a file of the package changed since the last pack (the tarball is written
# anew each time, so its bytes alone would not say; the sum lives in pkg/, the checkout's own).
pack() {
  local sum tarball packed unpacked app_bytes
  sum=$(cd "$out" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
  tarball=$(ls "$repo"/pkg/ctxlens-*.tgz 2>/dev/null || true)
  if [[ $tarball == "$repo/pkg/ctxlens-$version.tgz" && "$(cat "$repo/pkg/.pack.sum" 2>/dev/null)" == "$sum" ]]; then
    say "pkg/$(basename "$tarball"): unchanged, not packed again"
  else
    rm -f "$repo"/pkg/ctxlens-*.tgz
    tarball="$repo/pkg/$(cd "$out" && npm pack --pack-destination "$repo/pkg" --loglevel=error --silent)"
    echo "$sum" >"$repo/pkg/.pack.sum"
    say "packed pkg/$(basename "$tarball")"
  fi
  packed=$(wc -c <"$tarball")
  unpacked=$(tar -xzOf "$tarball" | wc -c)
  app_bytes=$(tar -xzOf "$tarball" --wildcards 'package/app/*' | wc -c)
  say "$(printf 'tarball: %d bytes (%.1f KB), unpacked %d bytes (%.1f KB), of which app/ %d bytes' "$packed" "$(awk "BEGIN{print $packed/1024}")" "$unpacked" "$(awk "BEGIN{print $unpacked/1024}")" "$app_bytes")"
  echo "$tarball"
}

if ((repack)); then
  [[ -f $out/wasm/ctxlens_node_bg.wasm && -d $out/app ]] || { echo "build-npm: --repack needs a built pkg/ctxlens/ (run build-npm.sh once)" >&2; exit 1; }
  templates
  pack
  exit 0
fi

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
if [[ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $want" ]]; then
  echo "build-npm: wasm-bindgen $want is required (run scripts/setup.sh)" >&2
  exit 1
fi
wasm_opt="$repo/node_modules/.bin/wasm-opt"
[[ -x $wasm_opt ]] || { echo "build-npm: $wasm_opt is missing (npm ci)" >&2; exit 1; }

source "$repo/scripts/shared-target.sh"
claim_shared_target "$repo"

work="$repo/target/npm"
mkdir -p "$work"

# build NAME PROFILE [FEATURES]: cargo (cargo keeps each profile's and feature set's build, so
# switching is a copy), wasm-bindgen into $work/NAME/, then wasm-opt into $work/NAME.wasm only
# when wasm-bindgen's output changed: -Oz --converge for the wasm profile (size), -Os for
# release-fast (speed, Cargo.toml says why).
build() {
  local name=$1 profile=$2 features=${3:-} opt
  say "cargo build -p ctxlens-wasm --profile $profile --target wasm32-unknown-unknown${features:+ --features $features}"
  cargo build -p ctxlens-wasm --profile "$profile" --target wasm32-unknown-unknown --quiet ${features:+--features "$features"}
  mkdir -p "$work/$name"
  wasm-bindgen --target web --no-typescript --out-name "$name" --out-dir "$work/$name" \
    "$repo/target/wasm32-unknown-unknown/$profile/ctxlens_wasm.wasm"
  local sum
  sum=$(sha256sum "$work/$name/${name}_bg.wasm" | cut -d' ' -f1)
  if [[ ! -f "$work/$name.wasm" || "$(cat "$work/$name.sum" 2>/dev/null)" != "$sum" ]]; then
    # --converge repeats -Oz until the size stops shrinking; --low-memory-unused lets loads and
    # stores fold constant offsets (Rust's wasm never uses the first KB: the stack starts at 1 MB).
    if [[ $profile == wasm ]]; then opt=(-Oz --converge); else opt=(-Os); fi
    say "wasm-opt ${opt[*]} --low-memory-unused ($name)"
    "$wasm_opt" "${opt[@]}" --low-memory-unused --strip-debug --strip-producers \
      --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals \
      --enable-reference-types --enable-multivalue \
      "$work/$name/${name}_bg.wasm" -o "$work/$name.wasm"
    echo "$sum" >"$work/$name.sum"
  fi
}
# The browser wasm (the browser and bundler entries: small), then the Node one (feature `node`:
# the API in Node, assembleSession and the bin, which read the real filesystem: faster, for 1.3×
# the size).
build ctxlens wasm
build ctxlens_node release-fast node
# The vocabularies (one wasm module each, loaded when a call counts tokens with it).
say "scripts/build-tokenizers.sh"
list=$(bash scripts/build-tokenizers.sh)
mapfile -t vocabularies <<<"$list"

rm -rf "$out"
mkdir -p "$out/wasm" "$out/tokenizers"
templates
cp "$work/ctxlens/ctxlens.js" "$out/wasm/ctxlens.js"
cp "$work/ctxlens.wasm" "$out/wasm/ctxlens_bg.wasm"
cp "$work/ctxlens_node/ctxlens_node.js" "$out/wasm/ctxlens_node.js"
cp "$work/ctxlens_node.wasm" "$out/wasm/ctxlens_node_bg.wasm"
cp "${vocabularies[@]}" "$out/tokenizers/"
# Each pi release's data, loaded on first use (Node reads it, the browser fetches it), and
# data.js: every file as `new URL("<literal path>", import.meta.url)`, the form a bundler copies
# as an asset (the bundler entry fetches them from there).
{
  echo "// Written by scripts/build-npm.sh: each release's data files, where a bundler put them."
  echo "export const dataFiles = {"
  for d in pi/data/pi-*/; do
    v=$(basename "$d")
    mkdir -p "$out/data/$v"
    cp "$d"*.json "$out/data/$v/"
    echo "  \"${v#pi-}\": {"
    for f in "$d"*.json; do
      echo "    \"$(basename "$f")\": new URL(\"./data/$v/$(basename "$f")\", import.meta.url),"
    done
    echo "  },"
  done
  echo "};"
} >"$out/data.js"

size() {
  local raw gz
  raw=$(wc -c <"$out/wasm/$1")
  gz=$(gzip -9 -c "$out/wasm/$1" | wc -c)
  say "$(printf '%s: %d bytes (%.1f KB), gzipped %d bytes (%.1f KB)%s' "$1" "$raw" "$(awk "BEGIN{print $raw/1024}")" "$gz" "$(awk "BEGIN{print $gz/1024}")" "$2")"
  if [[ -n $2 ]] && ((gz > 350 * 1024)); then
    say "warning: $1 is over the 350 KB gzipped target"
  fi
}
size ctxlens_bg.wasm "; target ≤ 350 KB (the browser's)"
size ctxlens_node_bg.wasm ""

((app)) || exit 0

# The visualizer, built after the package's browser files it embeds (dist/ctxlens/, for the docs
# page), then its own files into app/: the page, its worker, their wasm and JS, the CSS, the
# snippets, each release's data (pi-data/, which the worker fetches). Not docs.html, the embeds'
# copy of the package (ctxlens/), the demo case (demo/: the app holds its demo itself) or the
# vocabularies (tokenizers/: the package has them once, and `open` serves the package's
# tokenizers/ as the app's, wasm/src/node.rs).
say "trunk build --release (the visualizer, for app/)"
trunk build --release >"$work/trunk.log" 2>&1 || { cat "$work/trunk.log" >&2; exit 1; }
[[ -f dist/index.html ]] || { echo "build-npm: trunk wrote no dist/index.html" >&2; exit 1; }
mkdir -p "$out/app"
for f in dist/*; do
  case $(basename "$f") in
    ctxlens | demo | docs.html | docs.css | tokenizers) ;;
    *) cp -r "$f" "$out/app/" ;;
  esac
done
for f in index.html boot.js worker.js ctxlens-web.js ctxlens-web_bg.wasm ctxlens-worker.js ctxlens-worker_bg.wasm; do
  [[ -f $out/app/$f ]] || { echo "build-npm: dist/$f is missing: the app in the package would not run" >&2; exit 1; }
done

pack
