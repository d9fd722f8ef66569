#!/usr/bin/env bash
# `npm start`: the whole product on embedded defaults (see launcher/start.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
node --import tsx scripts/build-web.ts
exec node --import tsx launcher/start.ts "$@"
