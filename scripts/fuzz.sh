#!/usr/bin/env bash
# fuzz.sh: runs the coverage-guided fuzz targets (fuzz/, cargo-fuzz and libFuzzer on the nightly
# toolchain; docs/fuzzing.md). Installs cargo-fuzz and the nightly toolchain when missing.
#
#   bash scripts/fuzz.sh TARGET SECONDS   one target for that long (its corpus in fuzz/corpus/TARGET,
#                                         grown from fuzz/seeds/TARGET; a crash in fuzz/artifacts/)
#   bash scripts/fuzz.sh smoke [SECONDS]  every target for a few seconds (default 4) from its seeds
#                                         only; fails when one crashes
#   bash scripts/fuzz.sh list             the targets
#
# Each run ends with a line: target, seconds, executions, coverage (libFuzzer's cov: and ft:).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo/fuzz"

say() { printf '\033[1m[fuzz]\033[0m %s\n' "$*" >&2; }

# The nightly toolchain and cargo-fuzz, as scripts/setup.sh installs them (at its version).
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  say "rustup toolchain install nightly"
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  version=$(sed -n 's/^CARGO_FUZZ_VERSION=//p' "$repo/scripts/setup.sh")
  say "cargo install cargo-fuzz $version"
  cargo install cargo-fuzz --version "$version" --locked
fi

# The fuzz build (sanitizer flags, nightly) in a folder of its own under the build folder.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}/fuzz"
# Release with debug assertions: overflowing arithmetic panics as in a test build.
build_flags=(-O --debug-assertions)
# libFuzzer: an input that runs 10 s is a hang; 2 GB is the memory a crash is called at.
run_flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

targets=$(cargo fuzz list)

# Runs TARGET for SECONDS with the corpus folders given; prints the summary line.
run() {
  local target=$1 seconds=$2 log
  shift 2
  log=$(mktemp)
  local status=0
  cargo +nightly fuzz run "${build_flags[@]}" "$target" "$@" -- \
    -max_total_time="$seconds" "${run_flags[@]}" >"$log" 2>&1 || status=$?
  local execs cov ft
  # A run that stopped before libFuzzer said anything (a build error) has none of these.
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  printf '%-12s %5ss  execs %-10s cov %-6s ft %s\n' "$target" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}"
  if [[ $status -ne 0 ]]; then
    say "$target failed (exit $status); the end of its output:"
    tail -40 "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}

case "${1:-}" in
  list)
    echo "$targets"
    ;;
  smoke)
    seconds=${2:-4}
    cargo +nightly fuzz build "${build_flags[@]}" >&2
    failed=()
    for t in $targets; do
      scratch=$(mktemp -d)
      run "$t" "$seconds" "$scratch" "seeds/$t" || failed+=("$t")
      rm -rf "$scratch"
    done
    if [[ ${#failed[@]} -gt 0 ]]; then
      say "crashed: ${failed[*]} (the input is in fuzz/artifacts/TARGET/)"
      exit 1
    fi
    ;;
  "")
    echo "usage: bash scripts/fuzz.sh TARGET SECONDS | smoke [SECONDS] | list" >&2
    exit 2
    ;;
  *)
    target=$1
    seconds=${2:?"usage: bash scripts/fuzz.sh TARGET SECONDS"}
    if ! grep -qx "$target" <<<"$targets"; then
      echo "no target $target; one of: $(echo $targets)" >&2
      exit 2
    fi
    mkdir -p "corpus/$target"
    run "$target" "$seconds" "corpus/$target" "seeds/$target"
    ;;
esac
