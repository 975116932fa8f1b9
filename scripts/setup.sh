#!/usr/bin/env bash
# setup.sh: installs everything the build and the tests need, skipping what is already there.
# Safe to run again. Needs: rustup/cargo, node and npm, apt-get (root) for Chromium.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

# The wasm-bindgen CLI must be exactly the version of the wasm-bindgen crate pinned in Cargo.toml.
WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
TRUNK_VERSION=0.21.14

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    say "rustup component add $component"
    rustup component add "$component"
  fi
done

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if [[ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]]; then
  say "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --locked
fi

if [[ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]]; then
  say "cargo install trunk $TRUNK_VERSION"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

if [[ ! -x /usr/bin/chromium || ! -x /usr/bin/chromedriver ]]; then
  say "apt-get install chromium chromium-driver"
  if [[ $(id -u) -eq 0 ]]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# npm packages: playwright-core (drives Debian's Chromium), binaryen (wasm-opt), typescript (tsc),
# vite and webpack (tests/npm/bundlers.test.mjs builds an app with each).
if [[ ! -d node_modules/playwright-core || ! -d node_modules/binaryen || ! -d node_modules/typescript || ! -d node_modules/vite || ! -d node_modules/webpack || package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
