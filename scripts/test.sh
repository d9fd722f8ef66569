#!/usr/bin/env bash
# `npm test`: lint and type checks, then the suite in lanes chosen by folder (docs/architecture.md,
# "Where a test goes"), each its own mocha process with its own Redis, PostgreSQL and ports:
#   unit      test/unit/**       no engine                                      budget  45 s
#   database  test/database/**   PostgreSQL + Redis (no server, workers, model) budget 180 s
#   stack     every other folder the whole product: real Redis, a throwaway PostgreSQL cluster with
#             pgvector (the production engine; scripts/ensure-postgres.sh installs it), BullMQ
#             workers, the scripted model server; run as three processes split by folder:
#             stack1 (reliability), stack2 (launcher, e2e, web, ops, scripts), stack3 (the rest)
#   pglite    the suites the `npm start` fallback must pass (tutor, ingestion, admin, web) again on PGlite
# Three streams of lanes run side by side (below). Each lane's wall and CPU time and the whole
# run's (set-up included) are printed; a lane or the run over its budget fails the build, naming
# the lane, its time and its budget.                                       whole run budget 720 s
# A new suite goes in the lightest lane its assertions survive in (docs/architecture.md, "Where a
# test goes"): whatever needs no server, worker or model belongs in test/unit or test/database,
# which cost seconds; each stack suite adds its full length to a stream.
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
# Lint first (Biome rules, the layer directions, no raw table access outside db/), the format, both
# type checks and the browser build, side by side (each is one process on one core): any that
# fails fails the build, its output shown; the others' output follows too.
checks=$(mktemp -d "${TMPDIR:-/tmp}/skillnet-checks-XXXXXX")
check() {
  local name=$1
  shift
  set +e
  "$@" >"$checks/$name.log" 2>&1
  echo $? >"$checks/$name.status"
}
check lint npm run --silent lint &
check format npm run --silent format:check &
check tsc node_modules/.bin/tsc --noEmit -p . &
check tsc-web node_modules/.bin/tsc --noEmit -p web &
check build-web node --import tsx scripts/build-web.ts &
wait
checks_failed=0
for name in lint format tsc tsc-web build-web; do
  cat "$checks/$name.log"
  if [ "$(cat "$checks/$name.status")" != 0 ]; then
    echo "✘ $name failed (exit $(cat "$checks/$name.status")): its output is above" >&2
    checks_failed=1
  fi
done
rm -rf "$checks"
[ "$checks_failed" = 0 ] || exit 1
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

# The whole run: the stack lane in three processes split by folder, the pglite lane and the database
# lane, as three streams side by side on the two cores. The stack lanes mostly wait (for a crashed
# worker's lock to expire, a launcher to boot, a model to stream at its scripted pace): each process
# uses far less than a core, so a third stream turns that waiting into progress. Every process starts
# its own Redis, PostgreSQL, model server and ports, so none sees another's. The crash, outage and
# failover suites (test/reliability) have a process of their own: what they leave behind while it
# winds down cannot touch the others. The unit lane runs first and alone (seconds; its budget is
# checked without the others' load), then:
#   stream 1: stack1 (reliability), then pglite           niced: yields the CPU to stream 3
#   stream 2: stack2 (launcher, e2e, web, ops, scripts)   niced
#   stream 3: database, then stack3 (every other folder: workers, server, db, queues, lib, lint)
# Balanced on a per-file profile of a whole run (each stream about a third of the lanes' time; the
# summary prints each lane's wall and CPU time, to balance again from). Stream 3 holds the suites
# that bound the event loop (hostile files and imports, exports, content gaps, outbound requests);
# their bound counts the main thread's own CPU time (test/support/event-loop-block.ts), not the load.
stack1_specs=("test/reliability/**/*.test.ts")
stack2_specs=("test/{launcher,e2e}/**/*.test.ts" "test/{web,ops,scripts}/**/*.test.ts")
stack3_specs=("test/!(unit|database|reliability|launcher|e2e|web|ops|scripts)/**/*.test.ts")
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
declare -A budget=([unit]=45 [database]=180 [whole]=720)
engine=${TEST_POSTGRES:-server}
logs=$(mktemp -d "${TMPDIR:-/tmp}/skillnet-test-lanes-XXXXXX")
declare -A took=() outcome=() cpu=()
trap 'jobs -p | xargs -r kill 2>/dev/null || true' EXIT

# Runs one lane as its own mocha process, its output in $logs/<lane>.log, then records its time and exit status.
run_lane() {
  local lane=$1 db=$2 name
  shift 2
  # A stack shard is the stack lane; the pglite lane mixes folders (.mocharc.cjs then names no lane).
  case "$lane" in stack*) name=stack ;; pglite) name="" ;; *) name=$lane ;; esac
  local from status TIMEFORMAT="%U %S"
  from=$(date +%s)
  set +e
  # `time` (bash's) reports the CPU the lane used, its engines and children included, to $logs/<lane>.cpu.
  { time SKILLNET_TEST_LANE=$name TEST_POSTGRES=$db nice -n "${niceness:-0}" "$mocha" "$@" >"$logs/$lane.log" 2>&1; } 2>"$logs/$lane.cpu"
  status=$?
  set -e
  local seconds=$(($(date +%s) - from)) cpu
  cpu=$(awk '{ printf "%d", $1 + $2 }' "$logs/$lane.cpu" 2>/dev/null || echo "?")
  echo "$status $seconds $cpu" >"$logs/$lane.result"
  echo "› the $lane lane ended in $seconds s, $cpu s of CPU ($([ "$status" = 0 ] && echo passed || echo "FAILED, exit $status"))"
}

lanes=(unit database stack1 stack2 stack3)
echo "› lanes on $engine$([ "$engine" = server ] && echo " (PostgreSQL $("$(bash scripts/ensure-postgres.sh --check | sed 's/^PG_BINDIR=//')/postgres" --version | sed 's/^postgres (PostgreSQL) //'))"): unit, then three streams side by side:"
echo "  stream 1: stack1$([ "$engine" = server ] && echo ", pglite")    stream 2: stack2    stream 3: database, stack3    (logs follow when all have ended)"
run_lane unit "$engine" "test/unit/**/*.test.ts"
# Streams 1 and 2 yield the CPU when it is short: stream 3 holds the suites that bound the event
# loop and the heaviest CPU work (hostile imports, extraction), and the others mostly wait.
(
  niceness=10
  run_lane stack1 "$engine" "${stack1_specs[@]}"
  if [ "$engine" = server ]; then run_lane pglite pglite "${pglite_specs[@]}"; fi
) &
stream1=$!
(
  niceness=10
  run_lane stack2 "$engine" "${stack2_specs[@]}"
) &
stream2=$!
(
  run_lane database "$engine" "test/database/**/*.test.ts"
  run_lane stack3 "$engine" "${stack3_specs[@]}"
) &
stream3=$!
wait "$stream1" "$stream2" "$stream3" || true
trap - EXIT
[ "$engine" = server ] && lanes+=(pglite)
for lane in "${lanes[@]}"; do
  if [ ! -f "$logs/$lane.result" ]; then echo "1 0 0" >"$logs/$lane.result"; fi
  read -r "outcome[$lane]" "took[$lane]" "cpu[$lane]" <"$logs/$lane.result"
  echo "━━━ the $lane lane ($([ "$lane" = pglite ] && echo pglite || echo "$engine")): ${took[$lane]} s, exit ${outcome[$lane]} ━━━"
  cat "$logs/$lane.log" 2>/dev/null || true
done

total=$(($(date +%s) - started))
failed=0
echo "━━━ lanes (budgets: unit ${budget[unit]} s, database ${budget[database]} s, whole run ${budget[whole]} s) ━━━"
for lane in "${lanes[@]}"; do
  line="  $lane: ${took[$lane]} s"
  [ -n "${budget[$lane]:-}" ] && line+=" of ${budget[$lane]} s"
  line+=" (CPU ${cpu[$lane]} s)"
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
# A CI page often keeps only the tail of a run: a failed lane's failures are repeated last, so the
# test that failed is never cut off (mocha's "N failing" section, or the log's end when it has none).
for lane in "${lanes[@]}"; do
  [ "${outcome[$lane]}" = 0 ] && continue
  echo "━━━ what failed in the $lane lane ━━━"
  if grep -qE '^ +[0-9]+ failing' "$logs/$lane.log" 2>/dev/null; then
    # head leaves early on a long section: sed's SIGPIPE must not end the script (pipefail) before the clean-up.
    { sed -n '/^ \+[0-9]\+ failing/,$p' "$logs/$lane.log" | head -n 150; } || true
  else
    tail -n 60 "$logs/$lane.log" 2>/dev/null || true
  fi
done
rm -rf "$logs"
exit "$failed"
