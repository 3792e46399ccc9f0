#!/usr/bin/env bash
# Runs every test: the formatting and lint checks, unit and integration tests (real PostgreSQL),
# then the browser tests (the release build, hydrated, in Debian's Chromium). Installs what is
# missing first.
# Usage: scripts/test.sh
source "$(dirname "$0")/lib.sh"
export RUST_LOG="${RUST_LOG:-warn}"
# The model tests must run here (they skip only on machines without models), and so must the
# export test of `paracrowd models install paper` (setup.sh --test installs its tools).
export PARACROWD_REQUIRE_MODELS=1 PARACROWD_REQUIRE_EXPORT=1
# The replica test behind HAProxy must run here (setup.sh --test installs HAProxy).
export PARACROWD_REQUIRE_HAPROXY=1
# The remote scorer's tests start Triton (setup.sh --test installs it) and must not skip.
export PARACROWD_REQUIRE_TRITON=1
# Tests that start the binary score with the stand-ins, whatever this machine's model cache holds
# (the resolver's own tests, and the clone without ../shared, set their sources themselves).
export PARACROWD_MODELS="${PARACROWD_MODELS:-standin}"
# Tests that read ../shared/data skip without it (a user's clone); here it must be read.
if [ -d "$ROOT/../shared/data" ]; then export PARACROWD_REQUIRE_DATA=1; fi
# Integration tests run in parallel on two cores; each sqlx::test database needs connections.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-4}"

stage "setup (toolchain, PostgreSQL, Node packages, Chromium, HAProxy)"
"$ROOT/scripts/setup.sh" --test

# The export check with Python's `datasets` runs when Python is here (setup installed it).
if [ -x "$DATASETS_PYTHON" ]; then
  export PARACROWD_DATASETS_PYTHON="$DATASETS_PYTHON" PARACROWD_REQUIRE_DATASETS=1
fi

stage "lint (cargo fmt --check, cargo clippy -D warnings)"
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings

stage "test database"
source "$ROOT/scripts/test-db.sh"

stage "checked SQL (.sqlx/ matches the queries and migrations/)"
"$ROOT/scripts/sqlx-prepare.sh" --check

source "$ROOT/scripts/build.sh"

stage "unit and integration tests (cargo test --release)"
cargo test --release --workspace --no-fail-fast 2>&1 | tee "$CARGO_TARGET_DIR/cargo-test.log"

stage "browser tests (end2end, Chromium)"
# Each test file gets its own server and a fresh database (the first start creates the admin).
PGBIN="$(pg_bin_dir)"
E2E_STATUS=0
: > "$CARGO_TARGET_DIR/e2e.log"
for file in end2end/tests/*.test.mjs; do
  db="paracrowd_e2e_$$_$(basename "$file" .test.mjs | tr -c 'a-z0-9\n' '_')"
  "$PGBIN/psql" -q "$DATABASE_URL" -c "drop database if exists $db with (force)" -c "create database $db" >/dev/null
  set +e
  (cd end2end && PARACROWD_BIN="$CARGO_TARGET_DIR/release/paracrowd" E2E_DATABASE_URL="${DATABASE_URL%/*}/$db" \
    LEPTOS_SITE_ROOT="$SITE" node --test --test-reporter=spec "tests/$(basename "$file")") \
    2>&1 | tee -a "$CARGO_TARGET_DIR/e2e.log"
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" = 0 ] || E2E_STATUS=$status
  "$PGBIN/psql" -q "$DATABASE_URL" -c "drop database if exists $db with (force)" >/dev/null || true
done

print_timings
read -r CP CF < <(grep -E '^test result:' "$CARGO_TARGET_DIR/cargo-test.log" | awk '{p+=$4; f+=$6} END {print p+0, f+0}')
EP=$(grep -E '^. pass [0-9]+' "$CARGO_TARGET_DIR/e2e.log" | awk '{s+=$3} END {print s+0}')
EF=$(grep -E '^. fail [0-9]+' "$CARGO_TARGET_DIR/e2e.log" | awk '{s+=$3} END {print s+0}')
EP=${EP:-0}; EF=${EF:-0}
if [ "$E2E_STATUS" != 0 ] && [ "$EF" = 0 ]; then EF=1; fi
echo "cargo test: $CP passed, $CF failed; browser tests: $EP passed, $EF failed"
echo "total: $((CP + EP)) passed, $((CF + EF)) failed"
exit "$E2E_STATUS"
