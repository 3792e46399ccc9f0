#!/usr/bin/env bash
# Runs every test: the formatting and lint checks, the checked SQL, unit and integration tests
# (real PostgreSQL, real models through ONNX Runtime), then the browser tests (the release
# build, hydrated, in Debian's Chromium). Installs what is missing first.
#
# Every stage runs even when an earlier one failed; the last lines give each stage's result and
# time, the test totals, what was skipped and why, and the exit status (0 only when every stage
# passed).
#
# Beside a development checkout (with ../shared, or PARACROWD_SHARED_DIR) the tests also use the
# development stand-in models and the papers' corpora, and a last stage runs the model and
# start-up tests again as on a user's clone, with that folder out of reach.
# Usage: scripts/test.sh
source "$(dirname "$0")/lib.sh"
set +e
export RUST_LOG="${RUST_LOG:-warn}"
# Integration tests run in parallel on two cores; each sqlx::test database needs connections.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-4}"
LOGS="$CARGO_TARGET_DIR/test-logs"
rm -rf "$LOGS"
mkdir -p "$LOGS"

# What the tests must find here, because setup installs it (a missing one fails its tests
# instead of skipping them): ONNX Runtime and the embedding model, the model export tools,
# Triton, HAProxy, Python's datasets, plpgsql_check.
export PARACROWD_REQUIRE_MODELS=1 PARACROWD_REQUIRE_EXPORT=1 PARACROWD_REQUIRE_TRITON=1
export PARACROWD_REQUIRE_HAPROXY=1 PARACROWD_REQUIRE_DATASETS=1 PARACROWD_REQUIRE_PLPGSQL_CHECK=1
export PARACROWD_DATASETS_PYTHON="$DATASETS_PYTHON"

# with_shared: the development folder's models and corpora, required where it has them; the
# binary scores with the stand-ins there, else with the lite scorer (a user's machine).
# without_shared: as on a user's clone.
with_shared() {
  unset PARACROWD_REQUIRE_STANDINS PARACROWD_REQUIRE_DATA
  if [ -d "$PARACROWD_SHARED_DIR/data" ]; then export PARACROWD_REQUIRE_DATA=1; fi
  if [ -n "${PARACROWD_MODELS_DIR:-}" ] && [ -f "$PARACROWD_MODELS_DIR/mi-standin-minilm-apt/model.onnx" ]; then
    export PARACROWD_REQUIRE_STANDINS=1 PARACROWD_MODELS=standin
  else
    export PARACROWD_MODELS=lite
  fi
}
without_shared() {
  local empty="$LOGS/no-shared"
  mkdir -p "$empty"
  export PARACROWD_SHARED_DIR="$empty" PARACROWD_MODELS=lite
  unset PARACROWD_MODELS_DIR PARACROWD_REQUIRE_STANDINS PARACROWD_REQUIRE_DATA
}

# step NAME COMMAND...: one stage, run to its end whatever the stages before it did; its
# result is kept for the summary.
RESULTS=()
FAILED=0
step() {
  local name="$1"
  shift
  stage "$name"
  local started=$(date +%s)
  ( set -e; "$@" )
  local status=$?
  local took=$(( $(date +%s) - started ))
  stage_end
  if [ "$status" = 0 ]; then
    RESULTS+=("$(printf 'passed  %5ds  %s' "$took" "$name")")
  else
    RESULTS+=("$(printf 'FAILED  %5ds  %s (exit %s)' "$took" "$name" "$status")")
    FAILED=$((FAILED + 1))
  fi
  return 0
}

# rustfmt, then clippy: its compile also checks every query against a database migrated from
# migrations/ and compares the result with .sqlx/ (one compile for both).
lint() {
  local status=0
  cargo fmt --all --check || status=1
  "$ROOT/scripts/sqlx-prepare.sh" --check -- clippy --workspace --all-targets -- -D warnings || status=1
  return "$status"
}


# cargo_tests LOG ARGS...: cargo test in release mode, every test run, output kept in LOG.
cargo_tests() {
  local log="$1"
  shift
  export PARACROWD_SKIP_LOG="$LOGS/skipped-$(basename "$log" .log).txt"
  cargo test --release --no-fail-fast "$@" 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}

# browser_tests LOG FILES...: each test file gets its own server and a fresh database (the
# first start creates the admin).
browser_tests() {
  local log="$1" status=0 file db pgbin
  shift
  pgbin="$(pg_bin_dir)"
  : > "$log"
  for file in "$@"; do
    db="paracrowd_e2e_$$_$(basename "$file" .test.mjs | tr -c 'a-z0-9\n' '_')"
    "$pgbin/psql" -q "$DATABASE_URL" -c "drop database if exists $db with (force)" -c "create database $db" >/dev/null
    if ! (cd end2end && PARACROWD_BIN="$CARGO_TARGET_DIR/release/paracrowd" E2E_DATABASE_URL="${DATABASE_URL%/*}/$db" \
      LEPTOS_SITE_ROOT="$SITE" node --test --test-reporter=spec "tests/$(basename "$file")") \
      2>&1 | tee -a "$log"; then
      status=1
    fi
    "$pgbin/psql" -q "$DATABASE_URL" -c "drop database if exists $db with (force)" >/dev/null || true
  done
  return "$status"
}

# The model tests (every module of tests/ml), and the integration tests that load models or
# start the release binary; by name filters over the whole workspace's build, so nothing is
# compiled again (selecting one test target alone resolves other features).
model_and_start_up_tests() {
  cargo_tests "$LOGS/cargo-no-shared.log" --workspace -- \
    embedder:: engine:: lite:: paper_install:: reference:: remote:: source:: \
    cli:: crash:: flood:: replicas standalone remote_scoring mining::
}

step "setup: Debian packages (PostgreSQL, Node.js, Chromium, HAProxy, Python 3.11)" \
  "$ROOT/scripts/setup.sh" --test --only system
# Downloads go on in the background while the compiler has the cores.
"$ROOT/scripts/setup.sh" --test --only downloads > "$LOGS/downloads.log" 2>&1 &
DOWNLOADS_PID=$!
step "setup: Rust targets and tools, Node packages" "$ROOT/scripts/setup.sh" --test --only build
stage "test database"
started=$(date +%s)
source "$ROOT/scripts/test-db.sh"
if [ -n "${DATABASE_URL:-}" ] && "$(pg_bin_dir)/psql" -q "$DATABASE_URL" -c 'select 1' >/dev/null 2>&1; then
  RESULTS+=("$(printf 'passed  %5ds  %s' "$(( $(date +%s) - started ))" "test database")")
else
  RESULTS+=("FAILED         test database (no PostgreSQL)")
  FAILED=$((FAILED + 1))
fi
stage_end

step "lint and checked SQL (cargo fmt --check; cargo clippy -D warnings, whose compile checks .sqlx/ against migrations/)" lint
# The book: mdBook fails on a page SUMMARY.md names that is missing; tests/api/docs_links.rs
# checks every relative link and that every page is in SUMMARY.md.
step "documentation (mdbook build docs)" mdbook build docs -d "$LOGS/book"
step "build (wasm bundle; the tests and the server binary in one release build)" \
  env PARACROWD_BUILD_WITH_TESTS=1 "$ROOT/scripts/build.sh"

# The downloads started in the background (waited for here, in this shell, whose job it is).
stage "setup: downloads (ONNX Runtime, embedding model, Python environments)"
started=$(date +%s)
status=0
wait "$DOWNLOADS_PID" || status=$?
cat "$LOGS/downloads.log"
took=$(( $(date +%s) - started ))
if [ "$status" = 0 ]; then
  RESULTS+=("$(printf 'passed  %5ds  %s' "$took" "setup: downloads (waited for after the build)")")
else
  RESULTS+=("$(printf 'FAILED  %5ds  %s (exit %s)' "$took" "setup: downloads" "$status")")
  FAILED=$((FAILED + 1))
fi
stage_end

with_shared
step "unit and integration tests (cargo test --release)" \
  cargo_tests "$LOGS/cargo.log" --workspace
step "browser tests (end2end, Chromium)" browser_tests "$LOGS/e2e.log" end2end/tests/*.test.mjs

if [ -d "$PARACROWD_SHARED_DIR" ] && [ -n "$(ls -A "$PARACROWD_SHARED_DIR" 2>/dev/null)" ]; then
  without_shared
  step "as on a user's clone (development folder out of reach): model and start-up tests" \
    model_and_start_up_tests
  step "as on a user's clone: the writing task in the browser (lite scorer)" \
    browser_tests "$LOGS/e2e-no-shared.log" end2end/tests/apt.test.mjs
fi

# The summary.
stage_end
# counts LOG...: "passed failed" over cargo's `test result:` lines and node's `ℹ pass N` /
# `ℹ fail N` lines (read by field, whatever the locale makes of the ℹ).
counts() {
  cat "$@" 2>/dev/null | awk '
    $1 == "test" && $2 == "result:" { p += $4; f += $6 }
    ($2 == "pass" || $2 == "fail") && $3 ~ /^[0-9]+$/ && NF == 3 { if ($2 == "pass") p += $3; else f += $3 }
    END { print p + 0, f + 0 }'
}
totals() {
  local p f rp rf
  read -r p f < <(counts "$LOGS/cargo.log" "$LOGS/e2e.log")
  echo "the tests: $p passed, $f failed"
  if [ -e "$LOGS/cargo-no-shared.log" ]; then
    read -r rp rf < <(counts "$LOGS/cargo-no-shared.log" "$LOGS/e2e-no-shared.log")
    echo "again as on a user's clone: $rp passed, $rf failed"
    p=$((p + rp)); f=$((f + rf))
  fi
  echo "total: $p passed, $f failed"
}
printf '\nSkipped, and why:\n'
skipped=0
for f in "$LOGS"/skipped-*.txt; do
  [ -s "$f" ] || continue
  skipped=1
  echo "  in $(basename "$f" .txt | sed 's/^skipped-//'):"
  sort "$f" | uniq -c | sed 's/^ */    /'
done
[ "$skipped" = 1 ] || echo "  nothing"
printf '\nStages (result, seconds, stage):\n'
printf '  %s\n' "${RESULTS[@]}"
if [ "$FAILED" = 0 ]; then
  echo "test.sh: every stage passed (exit 0)"
  totals
  exit 0
fi
echo "test.sh: $FAILED stage(s) failed (exit 1)"
totals
exit 1
