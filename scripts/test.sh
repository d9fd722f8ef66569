#!/usr/bin/env bash
# `npm test`: the full suite against real Redis, PGlite with pgvector, real BullMQ workers and
# the scripted model server. The suite starts and stops those parts itself (test/support).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh --browser
unset REDIS_URL DATABASE_URL LLM_BASE_URL EMBEDDING_BASE_URL
# Lint first (Biome rules, the layer directions, no raw table access outside db/): drift fails the build.
npm run --silent lint
npm run --silent format:check
node_modules/.bin/tsc --noEmit -p .
node_modules/.bin/tsc --noEmit -p web
node --import tsx scripts/build-web.ts
exec node_modules/.bin/mocha "test/**/*.test.ts" "$@"
