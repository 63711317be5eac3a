#!/usr/bin/env bash
# npm run up: install what is needed, then bring the stack up (tools/stack/src/up.ts).
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tools/stack/bin/ensure-deps.sh
exec node tools/stack/src/up.ts "$@"
