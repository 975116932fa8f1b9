#!/usr/bin/env bash
# add-pi-release.sh VERSION: adds pi VERSION (an `@earendil-works/pi-coding-agent` release on npm)
# to ctxlens, as far as a script can, and prints which rules changed.
#
#   1. installs it through the oracle (PI_VERSION=VERSION capture: /opt/pi-oracle-VERSION);
#   2. extracts its data folder (scripts/extract-pi-data.sh VERSION → pi/data/pi-VERSION/) and
#      pi's release notes (scripts/extract-changelog.mjs → pi/data/changelog.json);
#   3. when it is not yet a `PiVersion`, adds it (scripts/add-pi-release.mjs): the variant with
#      its npm publication date, its data folder in the embedded list, npm's `piVersions`, and a
#      version-table entry equal to the nearest supported release's (newer first) — the starting
#      point that step 5 corrects; and the release detection's fingerprints
#      (pi/data/release-fingerprints.json);
#   4. captures the standard case set for it (scripts/capture-set.mjs VERSION: every template of
#      tests/case-set/ whose `releases` admit VERSION) into tests/conformance/pi-VERSION/;
#   5. runs the conformance suite on that folder only and prints the failing cases grouped by
#      the JSON body path of their first difference (then url path, headers): each group is one
#      rule that differs from the entry it started from.
#
# Then, per group: read the release's dist code and CHANGELOG.md (diff it with the neighbouring
# supported releases), set the switch in the version table (pi/src/rules.rs) or add one,
# and rerun step 5 alone with `add-pi-release.sh --check VERSION`. A release whose dependencies
# are not all published cannot be installed (1.0.3): step 1 says so and nothing is changed.
#
# Options: --check VERSION  only step 5;  --no-capture  skip step 4 (keep the folder as it is).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
capture=${PI_ORACLE_CAPTURE:-$repo/../shared/oracle/capture}
check_only="" no_capture=""
while [[ ${1:-} == --* ]]; do
  case $1 in
    --check) check_only=1 ;;
    --no-capture) no_capture=1 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
version=${1:?usage: add-pi-release.sh [--check] [--no-capture] VERSION}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "not a version: $version" >&2; exit 2; }
cd "$repo"

if [[ -z $check_only ]]; then
  echo "== 1. install pi $version through the oracle" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # Any case without a session installs the release; its bodies are thrown away.
  if ! PI_VERSION=$version flock /tmp/pi-capture.lock "$capture" tests/case-set/an-fresh "$tmp/out" >"$tmp/log" 2>&1; then
    if [[ ! -f $tmp/out/request-1.json ]]; then
      echo "pi $version could not be installed or run through the oracle:" >&2
      tail -20 "$tmp/log" >&2
      exit 1
    fi
  fi
  echo "== 2. extract pi/data/pi-$version/" >&2
  if ! scripts/extract-pi-data.sh "$version"; then
    echo "add-pi-release: the extraction of pi $version failed (above): its package differs where a reader" >&2
    echo "in scripts/extract/ expects a shape; extend that reader for this shape, then run this again" >&2
    exit 1
  fi
  # pi's release notes up to the newest install (the upgrade comparison's changelog lines).
  node scripts/extract-changelog.mjs
  echo "== 3. the version seam" >&2
  released=$(npm view "@earendil-works/pi-coding-agent@$version" time --json 2>/dev/null \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const t=JSON.parse(s);process.stdout.write((t[process.argv[1]]||"").slice(0,10))})' "$version")
  [[ -n $released ]] || { echo "npm gives no publication date for $version" >&2; exit 1; }
  node scripts/add-pi-release.mjs "$version" "$released"
  cargo fmt --all
  # What tells its sessions from the others' (the release detection's compiled-in fingerprints).
  UPDATE_EXPECT=1 cargo test -q -p ctxlens-pi --lib fingerprints >/dev/null
  if [[ -z $no_capture ]]; then
    echo "== 4. capture the standard case set" >&2
    node scripts/capture-set.mjs "$version" || echo "(some captures failed: see above)" >&2
  fi
fi

n=$(find "tests/conformance/pi-$version" -mindepth 2 -maxdepth 2 -name case.json 2>/dev/null | wc -l)
echo "== 5. conformance of pi-$version ($n cases)" >&2
(( n >= 20 )) || echo "warning: fewer than 20 cases apply to $version: widen the \`releases\` of the templates in tests/case-set/ that hold for it" >&2
out=$(mktemp)
set +e
CTXLENS_CASE="pi-$version/" cargo test -q -p ctxlens-cli --test conformance -- \
  every_case_is_byte_identical every_call_is_byte_identical every_case_has_the_captured_url_and_headers \
  every_refused_case_is_refused --nocapture --test-threads=1 >"$out" 2>&1
rc=$?
set -e
# The summary lines and the groups (the full failure messages stay in $out).
grep -E '^\.*(conformance|calls|headers|refused):|^  (body|no request|url|headers)|first differences by body path|^test result' "$out" || true
if ((rc == 0)); then
  echo "pi $version: every case byte-identical" >&2
else
  echo "pi $version: cases differ; the first difference of each (byte, JSON path, source) is in $out" >&2
fi
exit $rc
