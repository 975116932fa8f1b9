#!/usr/bin/env bash
# recapture.sh [CASE...]: re-captures the conformance cases (all, or only the named ones) with the
# real pi through the oracle's capture script, replacing each case's expected/ folder. A case
# where pi sends nothing keeps pi's error message as expected/pi-error.txt.
# The oracle lays its files at a fixed root, so captures are serialized with flock.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
capture=${PI_ORACLE_CAPTURE:-$repo/../shared/oracle/capture}
conf=$repo/tests/conformance
[[ -x $capture ]] || { echo "capture script not found or not executable: $capture" >&2; exit 1; }
names=()
if (($# > 0)); then
  for arg in "$@"; do names+=("$(basename "$arg")"); done
else
  for d in "$conf"/*/; do [[ -f $d/case.json ]] && names+=("$(basename "$d")"); done
fi
(( ${#names[@]} > 0 )) || { echo "no cases found under $conf" >&2; exit 0; }
mapfile -t names < <(printf '%s\n' "${names[@]}" | LC_ALL=C sort -u)
for name in "${names[@]}"; do
  dir=$conf/$name
  [[ -f $dir/case.json ]] || { echo "no such case: $name" >&2; exit 1; }
  echo "== $name" >&2
  rm -rf "$dir/expected"
  # A case where pi sends nothing keeps pi's error instead of a body (expected/pi-error.txt).
  if ! flock /tmp/pi-capture.lock "$capture" "$dir" "$dir/expected"; then
    [[ -s $dir/expected/pi.stderr && ! -e $dir/expected/request-1.json ]] || exit 1
    mv "$dir/expected/pi.stderr" "$dir/expected/pi-error.txt"
  fi
  rm -f "$dir/expected/pi.stdout" "$dir/expected/pi.stderr"
done
