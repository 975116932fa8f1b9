#!/usr/bin/env bash
# bench-usage.sh [MB] [openai]: `ctxlens usage` beside ccusage (`@ccusage/pi`, the repository's dev
# dependency) on a generated sessions folder of about MB megabytes (default 120): sessions of
# 10 KB, 100 KB, 1 MB, 10 MB and one of 40 MB (scaled), each a pi session of tool calls and results (numbered
# lines of source, as `read` gives them) with a built-in provider's model, so that every call can be rebuilt. Prints one line per run: wall
# time and peak memory, best of three (RUNS=N: of N). Needs the release CLI (cargo build --release)
# and npm ci.
# With `openai`, the sessions' model is OpenAI's gpt-5 (a public vocabulary, o200k_base, that
# every request's parts are counted with) instead of Claude's (split by characters), and the
# run is also timed with --no-tokens.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mb=${1:-120}
vendor=${2:-anthropic}
dir=${TMPDIR:-/tmp}/ctxlens-bench-usage-$mb${2:+-$2}
ctxlens=$repo/target/release/ctxlens
ccusage=$repo/node_modules/.bin/ccusage-pi
[[ -x $ctxlens ]] || { echo "build the CLI first: cargo build --release -p ctxlens-cli" >&2; exit 1; }
[[ -x $ccusage ]] || { echo "npm ci first (it installs @ccusage/pi)" >&2; exit 1; }

if [[ ! -d $dir/sessions ]]; then
  python3 - "$dir/sessions" "$mb" "$repo/www/demo/session.jsonl" "$vendor" <<'EOF'
import json, os, sys
out, mb, demo, vendor = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
model = {"anthropic": ("anthropic", "claude-sonnet-4-5", "anthropic-messages"),
         "openai": ("openai", "gpt-5", "openai-responses")}[vendor]
header = json.loads(open(demo).readline())
# (sessions, calls, result bytes) per size class, scaled to about `mb` megabytes in all.
plan = [(100, 1, 8_000), (50, 10, 10_000), (20, 50, 20_000), (5, 200, 50_000), (1, 400, 100_000)]
scale = mb / 120
# What a `read` returns: numbered lines of source (newlines and tabs, which JSON escapes; words,
# which a vocabulary splits as it splits code).
listing = "".join(f"{i:6}\tlet value_{i} = read(&path, offset + {i * 7});\n" for i in range(3000))
n = 0
for count, calls, size in plan:
    for _ in range(max(1, round(count * scale))):
        n += 1
        folder = os.path.join(out, f"--home-u-proj{n % 7}--")
        os.makedirs(folder, exist_ok=True)
        h = dict(header, id=f"bench-{n:04}", timestamp=f"2026-11-{1 + n % 28:02}T10:00:00.000Z")
        lines = [json.dumps(h, separators=(",", ":"))]
        parent = None
        user = {"type": "message", "id": f"u{n:04}0000", "parentId": None, "timestamp": h["timestamp"],
                "message": {"role": "user", "content": [{"type": "text", "text": "Read the files."}], "timestamp": 1}}
        lines.append(json.dumps(user, separators=(",", ":")))
        parent = user["id"]
        for k in range(calls):
            t = f"2026-11-{1 + n % 28:02}T{10 + k // 3600 % 10:02}:{k // 60 % 60:02}:{k % 60:02}.{n % 1000:03}Z"
            a = {"type": "message", "id": f"a{n:04}{k:04}", "parentId": parent, "timestamp": t,
                 "message": {"role": "assistant", "content": [{"type": "toolCall", "id": f"c{n}-{k}", "name": "read", "arguments": {"path": f"f{k}.txt"}}],
                             "provider": model[0], "model": model[1], "api": model[2],
                             "usage": {"input": 3, "output": 40, "cacheRead": 1000 + k * size // 4, "cacheWrite": size // 4, "totalTokens": 1043 + k * size // 4 + size // 4,
                                       "cost": {"input": 0.00001, "output": 0.0006, "cacheRead": 0.0003, "cacheWrite": 0.0001, "total": 0.00101}},
                             "stopReason": "toolUse", "timestamp": 1}}
            r = {"type": "message", "id": f"r{n:04}{k:04}", "parentId": a["id"], "timestamp": t,
                 "message": {"role": "toolResult", "toolCallId": f"c{n}-{k}", "toolName": "read",
                             "content": [{"type": "text", "text": f"{k} " + listing[:size]}], "isError": False, "timestamp": 1}}
            lines += [json.dumps(a, separators=(",", ":")), json.dumps(r, separators=(",", ":"))]
            parent = r["id"]
        open(os.path.join(folder, f"2026-11-01T10-00-00-000Z_bench-{n:04}.jsonl"), "w").write("\n".join(lines) + "\n")
EOF
fi
du -sh "$dir/sessions" | sed 's/^/folder: /'
find "$dir/sessions" -name '*.jsonl' | wc -l | sed 's/^/sessions: /'

best() {
  local label=$1; shift
  local best_t="" best_m=""
  for _ in $(seq "${RUNS:-3}"); do
    local out
    /usr/bin/time -f "%e %M" -o "$dir/time" "$@" >/dev/null 2>&1
    out=$(tail -1 "$dir/time")
    local t=${out% *} m=${out#* }
    if [[ -z $best_t ]] || awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t best_m=$m; fi
  done
  printf '%-44s %8s s %8s MB\n' "$label" "$best_t" "$((best_m / 1024))"
}
best "ccusage-pi session --json" "$ccusage" session --json --piPath "$dir/sessions" --timezone UTC
best "ctxlens usage --json --no-rebuild" "$ctxlens" usage "$dir/sessions" --json --no-rebuild
best "ctxlens usage --json (every call rebuilt)" "$ctxlens" usage "$dir/sessions" --json
if [[ $vendor != anthropic ]]; then
  best "ctxlens usage --json --no-tokens" "$ctxlens" usage "$dir/sessions" --json --no-tokens
fi
"$ctxlens" usage "$dir/sessions" --json | python3 -c "import json,sys; d=json.load(sys.stdin); print(f\"calls {d['totals']['calls']}, rebuilt {d['rebuilt']}, split by {d['splitBy']}\")"
