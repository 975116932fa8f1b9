#!/usr/bin/env bash
# test.sh: installs what is missing, then runs every test: the Rust unit tests, the conformance
# corpus (byte-for-byte against pi 0.85.1's captured bodies), the wasm build of the visualizer,
# the browser end-to-end tests (Playwright + Debian Chromium, app served on 127.0.0.1), and the npm
# package (built and packed into pkg/, installed from the tarball, tested in Node, tsc, Chromium).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
bash scripts/setup.sh
export PATH="$repo/node_modules/.bin:$PATH"

echo "== cargo test (core, CLI, conformance corpus)" >&2
cargo test --workspace --exclude ctxlens-web

echo "== trunk build (the visualizer, release)" >&2
trunk build --release

echo "== browser end-to-end tests" >&2
node --test tests/e2e/

echo "== npm package: build (wasm-bindgen, wasm-opt, npm pack) and tests (Node, tsc, Chromium)" >&2
bash scripts/build-npm.sh >/dev/null
node --test tests/npm/
