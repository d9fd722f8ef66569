#!/usr/bin/env bash
# `npm test`: lint and type checks, then the suite in lanes chosen by folder (docs/architecture.md,
# "Where a test goes"), each its own mocha process with its own Redis, PostgreSQL and ports:
#   unit      test/unit/**       no engine                                      budget  30 s
#   database  test/database/**   PostgreSQL + Redis (no server, workers, model) budget 180 s
#   stack     every other folder the whole product: real Redis, a throwaway PostgreSQL cluster with
#             pgvector (the production engine; scripts/ensure-postgres.sh installs it), BullMQ
#             workers, the scripted model server; the crash/outage/failover suites last
#   pglite    the suites the `npm start` fallback must pass (tutor, ingestion, admin, web) again on PGlite
# The stack lane runs from the start; the others run beside it, one after another (two cores).
# Each lane's time and the whole run's (set-up included) are checked against their budgets: one
# over fails the build, naming the lane.                                   whole run budget 720 s
#   TEST_POSTGRES=pglite npm test   every lane on PGlite only (no PostgreSQL server needed)
#   npm test -- <files or flags>    only those, each file in its folder's lane, on TEST_POSTGRES
#                                   (default: the real server); no budgets
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
if [ "${TEST_POSTGRES:-server}" = "pglite" ]; then
  bash scripts/ensure-deps.sh --browser --sentinel --prometheus
else
  bash scripts/ensure-deps.sh --browser --sentinel --prometheus --postgres-required
fi
unset REDIS_URL DATABASE_URL LLM_BASE_URL EMBEDDING_BASE_URL SKILLNET_TEST_LANE
# Lint first (Biome rules, the layer directions, no raw table access outside db/): drift fails the build.
npm run --silent lint
npm run --silent format:check
node_modules/.bin/tsc --noEmit -p .
node_modules/.bin/tsc --noEmit -p web
node --import tsx scripts/build-web.ts
mocha=node_modules/.bin/mocha

# `npm test -- <files or flags>`: each file to its folder's lane (flags go to every lane), lanes one after another.
if [ "$#" -gt 0 ]; then
  declare -A files=([unit]="" [database]="" [stack]="")
  flags=()
  for arg in "$@"; do
    case "$arg" in
      -*) flags+=("$arg") ;;
      test/unit/* | ./test/unit/*) files[unit]+="$arg"$'\n' ;;
      test/database/* | ./test/database/*) files[database]+="$arg"$'\n' ;;
      *) files[stack]+="$arg"$'\n' ;;
    esac
  done
  status=0
  for lane in unit database stack; do
    [ -n "${files[$lane]}" ] || continue
    mapfile -t specs < <(printf '%s' "${files[$lane]}")
    echo "› the $lane lane: ${specs[*]}"
    SKILLNET_TEST_LANE=$lane "$mocha" "${flags[@]}" "${specs[@]}" || status=$?
  done
  exit "$status"
fi

# The lanes of the whole run: name, budget in seconds, engine, mocha arguments.
stack_specs=("test/!(unit|database|reliability)/**/*.test.ts" "test/reliability/**/*.test.ts")
# The fallback's suites: the two pages people use on it (the tutor and the console); the other browser
# suites run on the server only. Left to the server too (their subject is not the database): file
# extraction in its threads (hostile files, OCR, thread failures and warm-up) and the confirmation's
# races across BullMQ hand-backs.
pglite_specs=(
  "test/workers/{tutor,ingestion,admin}/**/*.test.ts" "test/database/workers/{tutor,ingestion,admin}/**/*.test.ts"
  "test/server/routes/documents/**/*.test.ts" "test/server/middleware/rate-limit.test.ts" "test/web/{admin,chat}.test.ts"
  --ignore "test/workers/ingestion/{hostile-files,ocr-and-spreadsheets}.test.ts" --ignore "test/workers/ingestion/isolation/*.test.ts"
  --ignore "test/workers/admin/confirm-guard.test.ts"
)
declare -A budget=([unit]=30 [database]=180 [whole]=720)
engine=${TEST_POSTGRES:-server}
logs=$(mktemp -d "${TMPDIR:-/tmp}/skillnet-test-lanes-XXXXXX")
declare -A took=() outcome=()
trap 'jobs -p | xargs -r kill 2>/dev/null || true' EXIT

# Runs one lane (as its own mocha process, its log in $logs), then records its time and exit status.
run_lane() {
  local lane=$1 db=$2
  shift 2
  local from
  from=$(date +%s)
  set +e
  # The pglite lane mixes folders: .mocharc.cjs then names no lane, and each helper starts what its suite asks for.
  SKILLNET_TEST_LANE=$([ "$lane" = pglite ] || echo "$lane") TEST_POSTGRES=$db "$mocha" "$@" >"$logs/$lane.log" 2>&1
  echo "$? $(($(date +%s) - from))" >"$logs/$lane.result"
  set -e
}

report_lane() {
  local lane=$1
  read -r outcome[$lane] took[$lane] <"$logs/$lane.result"
  echo "━━━ the $lane lane ($engine): ${took[$lane]} s, exit ${outcome[$lane]} ━━━"
  cat "$logs/$lane.log"
}

echo "› lanes: stack ($engine; PostgreSQL $(
  [ "$engine" = server ] && "$(bash scripts/ensure-postgres.sh --check | sed 's/^PG_BINDIR=//')/postgres" --version | sed 's/^postgres (PostgreSQL) //' || echo "n/a"
)) beside unit, database$([ "$engine" = server ] && echo ", pglite"); logs in $logs"
run_lane stack "$engine" "${stack_specs[@]}" &
stack_pid=$!
lanes=(unit database)
run_lane unit "$engine" "test/unit/**/*.test.ts"
report_lane unit
run_lane database "$engine" "test/database/**/*.test.ts"
report_lane database
if [ "$engine" = server ]; then
  lanes+=(pglite)
  run_lane pglite pglite "${pglite_specs[@]}"
  report_lane pglite
fi
wait "$stack_pid" || true
report_lane stack
lanes+=(stack)
trap - EXIT

total=$(($(date +%s) - started))
failed=0
echo "━━━ lanes (budgets: unit ${budget[unit]} s, database ${budget[database]} s, whole run ${budget[whole]} s) ━━━"
for lane in "${lanes[@]}"; do
  line="  $lane: ${took[$lane]} s"
  [ -n "${budget[$lane]:-}" ] && line+=" of ${budget[$lane]} s"
  echo "$line"
  if [ "${outcome[$lane]}" != 0 ]; then
    echo "✘ the $lane lane failed (exit ${outcome[$lane]}): its log is above" >&2
    failed=1
  fi
  if [ -n "${budget[$lane]:-}" ] && [ "${took[$lane]}" -gt "${budget[$lane]}" ]; then
    echo "✘ the $lane lane took ${took[$lane]} s, over its budget of ${budget[$lane]} s: move what does not need its engines to a lighter lane, or make it faster (docs/architecture.md, \"Where a test goes\")" >&2
    failed=1
  fi
done
echo "  whole run (set-up, lint and type checks included): $total s of ${budget[whole]} s"
if [ "$total" -gt "${budget[whole]}" ]; then
  echo "✘ the whole run took $total s, over its budget of ${budget[whole]} s: see each lane's time above" >&2
  failed=1
fi
rm -rf "$logs"
exit "$failed"
