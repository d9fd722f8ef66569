#!/usr/bin/env bash
# `npm test`: lint and type checks, then the suite in lanes chosen by folder (docs/architecture.md,
# "Where a test goes"), each its own mocha process with its own Redis, PostgreSQL and ports:
#   unit      test/unit/**       no engine                                      budget  30 s
#   database  test/database/**   PostgreSQL + Redis (no server, workers, model) budget 180 s
#   stack     every other folder the whole product: real Redis, a throwaway PostgreSQL cluster with
#             pgvector (the production engine; scripts/ensure-postgres.sh installs it), BullMQ
#             workers, the scripted model server; run as two processes split by folder (stack1, stack2)
#   pglite    the suites the `npm start` fallback must pass (tutor, ingestion, admin, web) again on PGlite
# Two streams of lanes run side by side (below). Each lane's time and the whole run's (set-up
# included) are checked against their budgets: one over fails the build, naming the lane, its time
# and its budget.                                                          whole run budget 720 s
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
      test/* | ./test/* | *.ts) files[stack]+="$arg"$'\n' ;;
      *) flags+=("$arg") ;; # a flag's value (--grep words, --timeout 5000)
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

# The whole run: the stack lane in two processes split by folder (about half the time each), and the
# lighter lanes, as two streams side by side (two cores); every process starts its own Redis,
# PostgreSQL, model server and ports, so none sees another's. The crash, outage and failover suites
# run last in their process: what they leave behind while it winds down cannot touch the others.
# The unit lane runs first and alone (seconds; its budget is checked without the others' load), then:
#   stream 1: stack 1/2 (launcher, e2e, reliability), then pglite
#   stream 2: database, then stack 2/2 (every other folder)
# (balanced on a profile of the whole run: each stream about half of it)
stack1_specs=("test/{launcher,e2e}/**/*.test.ts" "test/reliability/**/*.test.ts")
stack2_specs=("test/!(unit|database|reliability|launcher|e2e)/**/*.test.ts")
# The fallback's suites on PGlite: the two pages people use on it (the tutor and the console); the
# other browser suites run on the server only. Left to the server too (their subject is not the
# database): file extraction in its threads (hostile files, OCR, legacy formats, thread failures and warm-up) and
# the confirmation's races across BullMQ hand-backs.
pglite_specs=(
  "test/workers/{tutor,ingestion,admin}/**/*.test.ts" "test/database/workers/{tutor,ingestion,admin}/**/*.test.ts"
  "test/server/routes/documents/**/*.test.ts" "test/server/middleware/rate-limit.test.ts" "test/web/admin.test.ts" "test/web/chat.test.ts"
  --ignore "test/workers/ingestion/{hostile-files,ocr-and-spreadsheets,legacy-formats}.test.ts" --ignore "test/workers/ingestion/isolation/*.test.ts"
  --ignore "test/workers/admin/confirm-guard.test.ts"
)
declare -A budget=([unit]=30 [database]=180 [whole]=720)
engine=${TEST_POSTGRES:-server}
logs=$(mktemp -d "${TMPDIR:-/tmp}/skillnet-test-lanes-XXXXXX")
declare -A took=() outcome=()
trap 'jobs -p | xargs -r kill 2>/dev/null || true' EXIT

# Runs one lane as its own mocha process, its output in $logs/<lane>.log, then records its time and exit status.
run_lane() {
  local lane=$1 db=$2 name
  shift 2
  # A stack shard is the stack lane; the pglite lane mixes folders (.mocharc.cjs then names no lane).
  case "$lane" in stack*) name=stack ;; pglite) name="" ;; *) name=$lane ;; esac
  local from
  from=$(date +%s)
  set +e
  SKILLNET_TEST_LANE=$name TEST_POSTGRES=$db nice -n "${niceness:-0}" "$mocha" "$@" >"$logs/$lane.log" 2>&1
  local status=$?
  set -e
  local seconds=$(($(date +%s) - from))
  echo "$status $seconds" >"$logs/$lane.result"
  echo "› the $lane lane ended in $seconds s ($([ "$status" = 0 ] && echo passed || echo "FAILED, exit $status"))"
}

lanes=(unit database stack1 stack2)
echo "› lanes on $engine$([ "$engine" = server ] && echo " (PostgreSQL $("$(bash scripts/ensure-postgres.sh --check | sed 's/^PG_BINDIR=//')/postgres" --version | sed 's/^postgres (PostgreSQL) //'))"): unit, then two streams side by side:"
echo "  stream 1: stack1$([ "$engine" = server ] && echo ", pglite")    stream 2: database, stack2    (logs follow when all have ended)"
run_lane unit "$engine" "test/unit/**/*.test.ts"
# Stream 1 yields the CPU when both want it: the suites that bound the event loop's delay (hostile
# files and imports, exports, content gaps, outbound requests) are in stream 2, and the run as a
# whole needs about one core, so stream 1 loses little.
(
  niceness=10
  run_lane stack1 "$engine" "${stack1_specs[@]}"
  if [ "$engine" = server ]; then run_lane pglite pglite "${pglite_specs[@]}"; fi
) &
stream1=$!
(
  run_lane database "$engine" "test/database/**/*.test.ts"
  run_lane stack2 "$engine" "${stack2_specs[@]}"
) &
stream2=$!
wait "$stream1" "$stream2" || true
trap - EXIT
[ "$engine" = server ] && lanes+=(pglite)
for lane in "${lanes[@]}"; do
  if [ ! -f "$logs/$lane.result" ]; then echo "1 0" >"$logs/$lane.result"; fi
  read -r "outcome[$lane]" "took[$lane]" <"$logs/$lane.result"
  echo "━━━ the $lane lane ($([ "$lane" = pglite ] && echo pglite || echo "$engine")): ${took[$lane]} s, exit ${outcome[$lane]} ━━━"
  cat "$logs/$lane.log" 2>/dev/null || true
done

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
