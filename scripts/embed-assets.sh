#!/usr/bin/env bash
# embed-assets.sh: Trunk's post_build hook (Trunk.toml) — adds the embedding example to the build
# output, all same-origin assets:
#   docs.html, docs.css         the docs example page (www/)
#   ctxlens/                    the npm package's browser files (web.js, browser.js, api.js, tokens.js,
#                               element.js, wasm/, data/: each pi release's data, fetched on first use)
#   tokenizers/NAME.wasm        each vocabulary's wasm module (scripts/build-tokenizers.sh, incremental),
#                               fetched by the app's worker when the model's tokens are counted
#   demo/ + ctxlens-case.json   the demo case (www/demo) and its case manifest
#   pi-data/                    each pi release's data (pi/data), fetched by the app's worker the
#                               first time a scenario needs that release; changelog.json and
#                               rule-docs.json (pi's release notes, the version table's docs),
#                               fetched the first time the app compares two releases
# The package comes from pkg/ctxlens (scripts/build-npm.sh, which runs this build itself once it
# has written them, then puts the app into the package); when they are missing or differ from npm/
# (a `trunk build` run alone), they are written first with `build-npm.sh --no-app`: the package
# without the app, so no cycle.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
out=${TRUNK_STAGING_DIR:-${1:?usage: embed-assets.sh OUT_DIR (or run by trunk)}}

pkg=pkg/ctxlens
stale=0
[[ -f $pkg/wasm/ctxlens_bg.wasm ]] || stale=1
for f in web.js browser.js api.js tokens.js element.js; do cmp -s "npm/$f" "$pkg/$f" || stale=1; done
for d in pi/data/pi-*/; do
  for f in "$d"*.json; do cmp -s "$f" "$pkg/data/$(basename "$d")/$(basename "$f")" || stale=1; done
done
if ((stale)); then
  bash scripts/build-npm.sh --no-app >/dev/null
fi

mkdir -p "$out/ctxlens/wasm"
cp "$pkg/web.js" "$pkg/browser.js" "$pkg/api.js" "$pkg/tokens.js" "$pkg/element.js" "$out/ctxlens/"
cp "$pkg/wasm/ctxlens.js" "$pkg/wasm/ctxlens_bg.wasm" "$out/ctxlens/wasm/"
rm -rf "$out/ctxlens/data"
cp -r "$pkg/data" "$out/ctxlens/data"
cp www/docs.html www/docs.css "$out/"
rm -rf "$out/pi-data"
mkdir -p "$out/pi-data"
cp -r pi/data/pi-* "$out/pi-data/"
cp pi/data/changelog.json pi/data/rule-docs.json "$out/pi-data/"
rm -rf "$out/tokenizers"
mkdir -p "$out/tokenizers"
list=$(bash scripts/build-tokenizers.sh)
mapfile -t vocabularies <<<"$list"
cp "${vocabularies[@]}" "$out/tokenizers/"
rm -rf "$out/demo"
cp -r www/demo "$out/demo"
node scripts/case-manifest.mjs www/demo >"$out/demo/ctxlens-case.json"
