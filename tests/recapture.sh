#!/usr/bin/env bash
# recapture.sh [--pi VERSION] [CASE...]: re-captures conformance cases with the real pi through the
# oracle's capture script, replacing each case's expected/ folder. The corpus has one folder per
# pi release (tests/conformance/pi-<version>/<case>/); each case is captured with its folder's
# release (PI_VERSION for the oracle). A CASE is `pi-<version>/<case>`, a folder path, or a bare
# case name looked up in the release folders (in --pi VERSION's folder only, with --pi). With no
# CASE, every case (of --pi VERSION's folder, with --pi). A case where pi sends nothing keeps
# pi's error message as expected/pi-error.txt. The oracle lays its files at a fixed root, so
# captures are serialized with flock.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
capture=${PI_ORACLE_CAPTURE:-$repo/../shared/oracle/capture}
conf=$repo/tests/conformance
[[ -x $capture ]] || { echo "capture script not found or not executable: $capture" >&2; exit 1; }
only=""
if [[ ${1:-} == --pi ]]; then
  only=pi-${2:?--pi needs a version}
  shift 2
fi
releases=()
for r in "$conf"/pi-*/; do
  r=$(basename "$r")
  [[ -z $only || $r == "$only" ]] && releases+=("$r")
done
(( ${#releases[@]} > 0 )) || { echo "no release folder ${only:-pi-*} under $conf" >&2; exit 1; }
dirs=()
if (($# > 0)); then
  for arg in "$@"; do
    if [[ -f $arg/case.json ]]; then dirs+=("$(cd "$arg" && pwd)"); continue; fi
    if [[ -f $conf/$arg/case.json ]]; then dirs+=("$conf/$arg"); continue; fi
    found=""
    for r in "${releases[@]}"; do
      [[ -f $conf/$r/$(basename "$arg")/case.json ]] && { found=$conf/$r/$(basename "$arg"); break; }
    done
    [[ -n $found ]] || { echo "no such case: $arg" >&2; exit 1; }
    dirs+=("$found")
  done
else
  for r in "${releases[@]}"; do
    for d in "$conf/$r"/*/; do [[ -f $d/case.json ]] && dirs+=("${d%/}"); done
  done
fi
mapfile -t dirs < <(printf '%s\n' "${dirs[@]}" | LC_ALL=C sort -u)
for dir in "${dirs[@]}"; do
  release=$(basename "$(dirname "$dir")")
  [[ $release == pi-* ]] || { echo "$dir: not in a release folder (tests/conformance/pi-<version>/)" >&2; exit 1; }
  echo "== $release/$(basename "$dir")" >&2
  rm -rf "$dir/expected"
  # A case where pi sends nothing keeps pi's error instead of a body (expected/pi-error.txt).
  if ! PI_VERSION=${release#pi-} flock /tmp/pi-capture.lock "$capture" "$dir" "$dir/expected"; then
    [[ -s $dir/expected/pi.stderr && ! -e $dir/expected/request-1.json ]] || exit 1
    mv "$dir/expected/pi.stderr" "$dir/expected/pi-error.txt"
  fi
  rm -f "$dir/expected/pi.stdout" "$dir/expected/pi.stderr"
done
