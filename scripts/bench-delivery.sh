#!/usr/bin/env bash
# Delivery benchmark: bytes on the wire and time to interactive of the login and
# judging pages, first and repeat visit, in Chromium on Lighthouse's throttled 4G profile, with
# the bundle compressed and cached as served, against the same pages sent uncompressed in the
# same run (end2end/bench/delivery.mjs). Usage: scripts/bench-delivery.sh  (RUNS=3 by default)
source "$(dirname "$0")/lib.sh"
"$ROOT/scripts/setup.sh" --test >/dev/null
source "$ROOT/scripts/build.sh" >/dev/null
source "$ROOT/scripts/test-db.sh"
PSQL="$(pg_bin_dir)/psql"
DB=paracrowd_bench_delivery
"$PSQL" -q "$DATABASE_URL" -c "drop database if exists $DB" -c "create database $DB"
ls -l "$SITE/pkg"
cd "$ROOT/end2end"
PARACROWD_BIN="$CARGO_TARGET_DIR/release/paracrowd" E2E_DATABASE_URL="${DATABASE_URL%/*}/$DB" \
  LEPTOS_SITE_ROOT="$SITE" node bench/delivery.mjs
