#!/usr/bin/env bash
# Load benchmark: the release server with the real default models on loopback, JUDGES judging
# and WRITERS APT workers (Check + Submit) for SECONDS, then pgbench's single-row inserts on the
# same PostgreSQL. Prints p50/p95/p99 per endpoint, judgments/s, errors, the server's memory, and
# checks in the database that every acknowledged judgment and attempt is there exactly once.
# Usage: scripts/bench-load.sh [SECONDS] [JUDGES] [WRITERS]     (default 60 200 20)
#   THINK_MS=3000   each worker pauses an exponentially distributed time of this mean between
#                   tasks (default 0: saturation); starts are spread over max(THINK_MS, 1 s)
#   RATE=60         open loop: judgments start at this rate on whichever judge is free, latency
#                   counted from each judgment's intended start (JUDGES is the pool)
#   TEST_PAIRS=100  hidden test pairs in the judging campaign, one served in every 5 (default 0)
#   BENCH_BIN=path  the server binary to run (default: this checkout's release build), to
#                   compare two builds in turns on the same machine
#   BENCH_LOAD_BIN=path  the load tool to run (default: this checkout's); with BENCH_BIN, the
#                   one of the same build when its database lacks what this one verifies
#   PG_PROFILE=1    also time PostgreSQL's functions (`track_functions = pl` on the benchmark's
#                   database) and print each one's calls and total and own time at the end
#   HISTORY=2000    instead: JUDGES judges (say 6) each make this many judgments side by side,
#                   and an answer at the worker's 10th judgment is compared with one at the last
#                   (scripts/bench-load.sh 0 6 0 with HISTORY=2000)
source "$(dirname "$0")/lib.sh"
SECONDS_RUN="${1:-60}"
JUDGES="${2:-200}"
WRITERS="${3:-20}"
"$ROOT/scripts/setup.sh" >/dev/null
source "$ROOT/scripts/build.sh" >/dev/null
source "$ROOT/scripts/test-db.sh"
PSQL="$(pg_bin_dir)/psql"
DB=paracrowd_bench_load
"$PSQL" -q "$DATABASE_URL" -c "drop database if exists $DB with (force)" -c "create database $DB"
if [ "${PG_PROFILE:-0}" = 1 ]; then
  "$PSQL" -q "$DATABASE_URL" -c "alter database $DB set track_functions = 'pl'"
fi
URL="${DATABASE_URL%/*}/$DB"
BIN="${BENCH_BIN:-$CARGO_TARGET_DIR/release/paracrowd}"

# A user's PostgreSQL runs autovacuum; this machine's may not. Without it the judging tables'
# dead rows (every lease and answer updates a pair, the gate's change queue is inserted into and
# emptied) pile up and every scan slows with the run's length. Then do what autovacuum would.
VACUUMER=
if [ "$("$PSQL" -XAtq "$URL" -c 'show autovacuum')" = off ]; then
  echo "autovacuum is off on this PostgreSQL: vacuuming the judging tables every 10 s instead"
  (while sleep 10; do
    "$PSQL" -Xq "$URL" -c "vacuum (analyze) judge_pair, judge_assignment, judge_gate_change, judge_worker" \
      >/dev/null 2>&1 || true
  done) &
  VACUUMER=$!
fi

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
WORK=$(mktemp -d)
DATABASE_URL="$URL" PARACROWD_ADDR="127.0.0.1:$PORT" LEPTOS_SITE_ROOT="$SITE" RUST_LOG=warn \
  PARACROWD_MAX_DB_CONNECTIONS="${PARACROWD_MAX_DB_CONNECTIONS:-20}" \
  PARACROWD_CONNECTION_SHARE_EXEMPT=127.0.0.0/8 PARACROWD_RATE_REGISTRATIONS=100000/60 PARACROWD_RATE_CALLS=100000000/60 \
  PARACROWD_RATE_ANONYMOUS_CALLS=100000000/60 \
  "$BIN" serve >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER $VACUUMER 2>/dev/null || true; rm -rf "$WORK"' EXIT
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 240); do curl -fs "$BASE/health" >/dev/null && break; sleep 0.5; done
curl -fs "$BASE/health" >/dev/null || { cat "$WORK/server.log"; exit 1; }
kb() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$SERVER/status"; }
echo "server RSS before: $(($(kb VmRSS) / 1024)) MiB"
PG_BIN_DIR="$(pg_bin_dir)" DATABASE_URL="$URL" "${BENCH_LOAD_BIN:-$CARGO_TARGET_DIR/release/paracrowd-load}" --url "$BASE" \
  --judges "$JUDGES" --writers "$WRITERS" --seconds "$SECONDS_RUN" --think-ms "${THINK_MS:-0}" \
  ${RATE:+--rate "$RATE"} ${HISTORY:+--history "$HISTORY"} ${TEST_PAIRS:+--test-pairs "$TEST_PAIRS"}
STATUS=$?
echo "server RSS after: $(($(kb VmRSS) / 1024)) MiB, peak $(($(kb VmHWM) / 1024)) MiB"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
if [ "${PG_PROFILE:-0}" = 1 ]; then
  "$PSQL" -X "${DATABASE_URL%/*}/$DB" -c "select funcname, calls, round(total_time::numeric) as total_ms,
      round(self_time::numeric) as self_ms, round((self_time / calls * 1000)::numeric, 1) as self_us_a_call
    from pg_stat_user_functions order by self_time desc"
fi
exit $STATUS
