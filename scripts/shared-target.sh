# shared-target.sh, sourced: `claim_shared_target REPO` before building in a checkout whose
# `target` is a link to a build folder other checkouts share (CI links it to
# ~/.cache/ctxlens/target, so a warm run compiles only what changed).
#
# Cargo takes a workspace crate's build as fresh when its sources are older than the build, and
# its crates' builds do not depend on the folder the checkout lies in: a checkout in another
# folder, whose files are older than what a clone built there, would use the clone's build (its
# build scripts' output pointing into the clone, which may be gone). So when the build folder was
# last used by another checkout, the workspace's own crates are cleaned (every profile and
# target built); their dependencies, most of the build, stay. The folder keeps the checkout's
# path in `.checkout`.
claim_shared_target() {
  local repo=$1
  local target="$repo/target"
  # A link whose folder this machine does not have yet (a new machine): make the folder.
  if [[ -L $target && ! -e $target ]]; then
    mkdir -p "$(readlink "$target")"
  fi
  [[ -L $target && -d $target ]] || return 0
  local stamp="$target/.checkout"
  if [[ -f $stamp && $(cat "$stamp") == "$repo" ]]; then
    return 0
  fi
  local last="a checkout before this check"
  [[ -f $stamp ]] && last=$(cat "$stamp")
  printf '\033[1m[target]\033[0m %s\n' "the shared build folder was last used by $last: cleaning the workspace's crates" >&2
  local dir profile triple
  for dir in "$target"/*/; do
    dir=$(basename "$dir")
    case $dir in
      debug) cargo clean -q --workspace --target-dir "$target" ;;
      release | wasm | profiling | profiling-z | release-fast)
        cargo clean -q --workspace --target-dir "$target" --profile "$dir" ;;
      *-*-*)
        triple=$dir
        for profile in "$target/$triple"/*/; do
          profile=$(basename "$profile")
          [[ $profile == debug ]] && profile=dev
          cargo clean -q --workspace --target-dir "$target" --target "$triple" --profile "$profile" 2>/dev/null || true
        done
        ;;
    esac
  done
  # The fuzz targets' own workspace (fuzz/, built by scripts/fuzz.sh in target/fuzz).
  if [[ -d $target/fuzz ]]; then
    for triple in "$target/fuzz"/*-*-*/; do
      [[ -d $triple ]] || continue
      cargo clean -q --manifest-path "$repo/fuzz/Cargo.toml" --target-dir "$target/fuzz" \
        --target "$(basename "$triple")" --release -p ctxlens-js -p ctxlens-pi -p ctxlens-assembly -p ctxlens -p ctxlens-fuzz 2>/dev/null || true
    done
  fi
  printf '%s\n' "$repo" >"$stamp"
}
