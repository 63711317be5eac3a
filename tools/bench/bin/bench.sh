#!/usr/bin/env bash
# npm run bench [-- --duration <s> --connections <n>]: builds the services, starts an isolated
# stack and measures the simulator directly and through the gateway (tools/bench/src/bench.ts).
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tools/stack/bin/ensure-deps.sh

build_log="$(mktemp -t gw-bench-build.XXXXXX)"
trap 'rm -f "$build_log"' EXIT
run_quietly() {
  if ! "$@" >"$build_log" 2>&1; then
    cat "$build_log" >&2
    echo "bench: '$*' failed" >&2
    exit 1
  fi
}

echo "==> generating Prisma clients"
run_quietly node tools/db/src/generate.ts
echo "==> building the services"
run_quietly node node_modules/nx/dist/bin/nx.js run-many -t build --output-style=static
rm -f "$build_log"
trap - EXIT
exec node tools/bench/src/bench.ts "$@"
