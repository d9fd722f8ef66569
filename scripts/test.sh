#!/usr/bin/env bash
# `npm test`: the full suite against real Redis, a throwaway PostgreSQL cluster with pgvector
# (the production engine; scripts/ensure-postgres.sh installs it), real BullMQ workers and the
# scripted model server; then the suites the `npm start` fallback must pass (tutor, ingestion,
# admin, web) once more on PGlite. The suite starts and stops those parts itself (test/support).
#   TEST_POSTGRES=pglite npm test   everything on PGlite only (no PostgreSQL server needed)
#   npm test -- <files or flags>    only those, on TEST_POSTGRES (default: the real server)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${TEST_POSTGRES:-server}" = "pglite" ]; then
  bash scripts/ensure-deps.sh --browser --sentinel --prometheus
else
  bash scripts/ensure-deps.sh --browser --sentinel --prometheus --postgres-required
fi
unset REDIS_URL DATABASE_URL LLM_BASE_URL EMBEDDING_BASE_URL
# Lint first (Biome rules, the layer directions, no raw table access outside db/): drift fails the build.
npm run --silent lint
npm run --silent format:check
node_modules/.bin/tsc --noEmit -p .
node_modules/.bin/tsc --noEmit -p web
node --import tsx scripts/build-web.ts
if [ "$#" -gt 0 ] || [ "${TEST_POSTGRES:-server}" = "pglite" ]; then
  exec node_modules/.bin/mocha "${@:-test/**/*.test.ts}"
fi
bindir="$(bash scripts/ensure-postgres.sh --check | sed 's/^PG_BINDIR=//')"
echo "› the whole suite on $("$bindir/postgres" --version | sed "s/^postgres (PostgreSQL) /PostgreSQL /") with pgvector, in a throwaway cluster"
# The crash, outage and failover suites last: what they leave behind while it winds down (a worker
# still reconnecting to a killed Redis node, a restarted database) cannot touch the others.
node_modules/.bin/mocha "test/!(reliability)/**/*.test.ts" "test/reliability/**/*.test.ts"
# The two pages people use on the fallback (the tutor and the console); the other browser suites run on the server only (CI time).
# Left to the server run too (CI time, 75 s): suites whose subject is not the database — file extraction in
# its threads (hostile files, OCR, thread failures and warm-up) and the confirmation's races across BullMQ hand-backs.
echo "› the fallback's suites (tutor, ingestion, admin, web) on PGlite"
TEST_POSTGRES=pglite exec node_modules/.bin/mocha "test/workers/{tutor,ingestion,admin}/**/*.test.ts" "test/server/routes/documents/**/*.test.ts" "test/server/middleware/rate-limit.test.ts" "test/lib/document-formats.test.ts" "test/web/{admin,chat}.test.ts" \
  --ignore "test/workers/ingestion/{hostile-files,hostile-input,ocr-and-spreadsheets}.test.ts" --ignore "test/workers/ingestion/isolation/*.test.ts" --ignore "test/workers/admin/confirm-guard.test.ts"
