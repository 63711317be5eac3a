#!/usr/bin/env bash
# npm test: every test (unit, integration against real PostgreSQL and NATS, end to end
# through the gateway), ending with one plain line "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tools/stack/bin/ensure-deps.sh
exec node tools/test-runner/src/run.ts "$@"
