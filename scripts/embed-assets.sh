#!/usr/bin/env bash
# embed-assets.sh: Trunk's post_build hook (Trunk.toml) — adds the embedding example to the build
# output, all same-origin assets:
#   docs.html, docs.css         the docs example page (www/)
#   ctxlens/                    the npm package's browser files (web.js, api.js, element.js, wasm/)
#   demo/ + ctxlens-case.json   the demo case (www/demo) and its case manifest
# The package comes from pkg/ctxlens (scripts/build-npm.sh); it is rebuilt first only when it is
# missing or its JS differs from npm/ (scripts/test.sh builds it before trunk, so this is a copy).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
out=${TRUNK_STAGING_DIR:-${1:?usage: embed-assets.sh OUT_DIR (or run by trunk)}}

pkg=pkg/ctxlens
stale=0
[[ -f $pkg/wasm/ctxlens_bg.wasm ]] || stale=1
for f in web.js api.js element.js; do cmp -s "npm/$f" "$pkg/$f" || stale=1; done
if ((stale)); then
  bash scripts/build-npm.sh >/dev/null
fi

mkdir -p "$out/ctxlens/wasm"
cp "$pkg/web.js" "$pkg/api.js" "$pkg/element.js" "$out/ctxlens/"
cp "$pkg/wasm/ctxlens.js" "$pkg/wasm/ctxlens_bg.wasm" "$out/ctxlens/wasm/"
cp www/docs.html www/docs.css "$out/"
rm -rf "$out/demo"
cp -r www/demo "$out/demo"
node scripts/case-manifest.mjs www/demo >"$out/demo/ctxlens-case.json"
