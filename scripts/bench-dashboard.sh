#!/usr/bin/env bash
# Dashboard benchmark: a judging campaign of PAIRS pairs x 6 judgments by 200 workers (filled by
# SQL), served by the real release binary on loopback; times the researcher's dashboard
# (POST /api/research/judge_report, and the server-rendered page) cold, cached, right after new
# judgments (stale, recomputed in the background) and caught up.
# Usage: scripts/bench-dashboard.sh [PAIRS]     (default 125000)
source "$(dirname "$0")/lib.sh"
PAIRS="${1:-125000}"
"$ROOT/scripts/setup.sh" >/dev/null
source "$ROOT/scripts/build.sh" >/dev/null
source "$ROOT/scripts/test-db.sh"
PSQL="$(pg_bin_dir)/psql"
DB=paracrowd_bench_dashboard
"$PSQL" -q "$DATABASE_URL" -c "drop database if exists $DB" -c "create database $DB"
URL="${DATABASE_URL%/*}/$DB"
BIN="$CARGO_TARGET_DIR/release/paracrowd"
CAMPAIGN=0000d0d0-0000-4000-8000-00000000d0d0
DATABASE_URL="$URL" "$BIN" migrate >/dev/null
echo "bench-dashboard-password" | DATABASE_URL="$URL" "$BIN" create-admin bench_admin >/dev/null
start=$(python3 -c "import time; print(time.time())")
"$PSQL" -q "$URL" -v pairs="$PAIRS" -v campaign="$CAMPAIGN" -f "$ROOT/scripts/bench/seed_dashboard.sql"
printf 'seeded %s pairs, %s judgments in %.1f s\n' "$PAIRS" $((PAIRS * 6)) "$(python3 -c "import time; print(time.time() - $start)")"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
WORK=$(mktemp -d)
DATABASE_URL="$URL" PARACROWD_ADDR="127.0.0.1:$PORT" LEPTOS_SITE_ROOT="$SITE" RUST_LOG=warn \
  "$BIN" serve >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 120); do curl -fs "$BASE/health" >/dev/null && break; sleep 0.5; done
curl -fs -c "$WORK/jar" -H 'Accept: application/json' -d username=bench_admin \
  -d password=bench-dashboard-password "$BASE/api/login" >/dev/null

# report: prints the request's seconds; the JSON body goes to $WORK/report.json
report() {
  curl -fs -b "$WORK/jar" -o "$WORK/report.json" -w '%{time_total}' -H 'Accept: application/json' \
    -d campaign_id=$CAMPAIGN "$BASE/api/research/judge_report"
}
field() { python3 -c "import json,sys; r=json.load(open('$WORK/report.json')); print($1)"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

cold=$(report)
echo "cold (reads and computes everything): ${cold} s; statistics computed in $(field 'round(r["compute_ms"])') ms over $(field 'r["agreement"]["judgments"]') judgments"
warm=$(for _ in $(seq 1 9); do report; echo; done | median)
echo "cached (nothing new), median of 9: ${warm} s"
page=$(for _ in $(seq 1 5); do curl -fs -b "$WORK/jar" -o "$WORK/page.html" -w '%{time_total}\n' "$BASE/research/judge/$CAMPAIGN"; done | median)
echo "page /research/judge/<id> (server-rendered, cached statistics), median of 5: ${page} s, $(wc -c <"$WORK/page.html") bytes"

# Six new judgments by one worker, as the server would write them (counters included).
"$PSQL" -q "$URL" <<SQL
insert into judge_pair (pair_id, campaign_id, sentence1, sentence2, open_slots, n_judgments, n_paraphrase)
values (md5('bench-new')::uuid, '$CAMPAIGN', 'A new pair.', 'A new pair, again.', 0, 6, 6);
insert into judge_assignment (assignment_id, campaign_id, pair_id, app_user_id, is_test, lease_expires_at, status)
select md5('bench-new-' || w)::uuid, '$CAMPAIGN', md5('bench-new')::uuid, md5('bench-worker-' || w)::uuid, false, now(), 'judged'
from generate_series(0, 5) w;
insert into judge_judgment (assignment_id, campaign_id, pair_id, app_user_id, is_paraphrase, is_test, seconds)
select md5('bench-new-' || w)::uuid, '$CAMPAIGN', md5('bench-new')::uuid, md5('bench-worker-' || w)::uuid, true, false, 5
from generate_series(0, 5) w;
SQL
stale=$(report)
echo "right after new judgments (stale statistics served, recomputed in the background): ${stale} s, stale=$(field 'r["stale"]')"
start=$(python3 -c "import time; print(time.time())")
while [ "$(report >/dev/null; field 'r["stale"]')" = True ]; do sleep 0.1; done
printf 'caught up after %.2f s: %s judgments\n' "$(python3 -c "import time; print(time.time() - $start)")" "$(field 'r["agreement"]["judgments"]')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
