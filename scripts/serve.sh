#!/usr/bin/env bash
# serve.sh: builds the visualizer and serves it on http://127.0.0.1:8080 with the demo loaded.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
bash scripts/setup.sh
export PATH="$repo/node_modules/.bin:$PATH"
source scripts/shared-target.sh
claim_shared_target "$repo"
exec trunk serve --release --address 127.0.0.1 --port "${PORT:-8080}"
