#!/usr/bin/env bash
# Export benchmark: a judging campaign of PAIRS pairs x 6 judgments (750,000 judgments by
# default, filled by SQL as in bench-dashboard.sh), served by the real release binary on
# loopback. Downloads every judgment as CSV and as JSON lines, and the pairs labelled by vote
# and by Dawid-Skene, printing rows/s, the server's resident memory before, after and at its
# peak (VmHWM, the whole process's life), and /health latency measured during each export.
# Usage: scripts/bench-export.sh [PAIRS]     (default 125000)
source "$(dirname "$0")/lib.sh"
PAIRS="${1:-125000}"
"$ROOT/scripts/setup.sh" >/dev/null
source "$ROOT/scripts/build.sh" >/dev/null
source "$ROOT/scripts/test-db.sh"
PSQL="$(pg_bin_dir)/psql"
DB=paracrowd_bench_export
"$PSQL" -q "$DATABASE_URL" -c "drop database if exists $DB" -c "create database $DB"
URL="${DATABASE_URL%/*}/$DB"
BIN="$CARGO_TARGET_DIR/release/paracrowd"
CAMPAIGN=0000d0d0-0000-4000-8000-00000000d0d0
DATABASE_URL="$URL" "$BIN" migrate >/dev/null
echo "bench-export-password" | DATABASE_URL="$URL" "$BIN" create-admin bench_admin >/dev/null
"$PSQL" -q "$URL" -v pairs="$PAIRS" -v campaign="$CAMPAIGN" -f "$ROOT/scripts/bench/seed_dashboard.sql"
echo "seeded $PAIRS pairs, $((PAIRS * 6)) judgments"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
WORK=$(mktemp -d)
DATABASE_URL="$URL" PARACROWD_ADDR="127.0.0.1:$PORT" LEPTOS_SITE_ROOT="$SITE" RUST_LOG=warn \
  "$BIN" serve >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 120); do curl -fs "$BASE/health" >/dev/null && break; sleep 0.5; done
curl -fs -c "$WORK/jar" -H 'Accept: application/json' -d username=bench_admin \
  -d password=bench-export-password "$BASE/api/login" >/dev/null
# The server's pid (the binary may run PostgreSQL's children; we want the listener itself).
kb() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$SERVER/status"; }

for query in "rows=judgments&format=csv" "rows=judgments&format=jsonl" \
  "rows=pairs&format=csv&unresolved=keep" "rows=pairs&format=csv&labels=dawid_skene"; do
  before=$(kb VmRSS)
  ( while kill -0 $SERVER 2>/dev/null; do curl -s -o /dev/null -w '%{time_total}\n' "$BASE/health"; sleep 0.05; done ) >"$WORK/health" &
  PROBE=$!
  format=${query##*format=}; format=${format%%&*}
  took=$(curl -fs -b "$WORK/jar" -o "$WORK/out.$format" -w '%{time_total}' "$BASE/export/judge/$CAMPAIGN?$query")
  kill $PROBE 2>/dev/null || true
  rows=$(($(wc -l <"$WORK/out.$format") - $([ "$format" = csv ] && echo 1 || echo 0)))
  p99=$(sort -n "$WORK/health" | awk '{a[NR]=$1} END {i=int(NR*0.99); if (i<1) i=1; printf "%.1f", a[i]*1000}')
  printf '%-40s %d rows, %s bytes in %.2f s (%.0f rows/s); server RSS before %d MiB, after %d MiB, process peak %d MiB; /health during the export: %d probes, p99 %s ms\n' \
    "$query" "$rows" "$(wc -c <"$WORK/out.$format")" "$took" "$(python3 -c "print($rows / $took)")" \
    $((before / 1024)) $(($(kb VmRSS) / 1024)) $(($(kb VmHWM) / 1024)) "$(wc -l <"$WORK/health")" "$p99"
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
