#!/usr/bin/env bash
# npm run keys:create -- --management|--standard [--name N] [--workspace UUID --user UUID] [--json]
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tools/stack/bin/ensure-deps.sh
node node_modules/nx/dist/bin/nx.js run management:build --output-style=static >/dev/null
exec node apps/management/dist/cli/create-key.js "$@"
