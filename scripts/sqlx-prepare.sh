#!/usr/bin/env bash
# The SQL in app/src/db is checked at compile time by sqlx's query! macros against the schema in
# migrations/. Builds read the checked shapes from .sqlx/ (committed) with SQLX_OFFLINE=true, so
# they need no database; this script writes .sqlx/ again from a database migrated from scratch.
#
#   scripts/sqlx-prepare.sh           rewrite .sqlx/ (run it after changing a query or a migration)
#   scripts/sqlx-prepare.sh --check   fail if .sqlx/ is not what the queries and migrations give
#   scripts/sqlx-prepare.sh --check -- CARGO ARGS...
#                                     the same, compiling with that cargo command instead of
#                                     `cargo check -p app`: the test command checks the SQL in its
#                                     clippy run, so the crates are compiled once for both
#
# It does what `cargo sqlx prepare [--check]` does, without installing sqlx-cli: migrate a fresh
# database, then compile the app crate online with SQLX_OFFLINE_DIR pointing at an empty folder.
source "$(dirname "$0")/lib.sh"

CHECK=0
if [ "${1:-}" = "--check" ]; then CHECK=1; shift; fi
CARGO_ARGS=(check -q -p app --features ssr --lib)
if [ "${1:-}" = "--" ]; then shift; CARGO_ARGS=("$@"); fi

if [ -z "${DATABASE_URL:-}" ]; then source "$ROOT/scripts/test-db.sh"; fi
PGBIN="$(pg_bin_dir)"
export PGOPTIONS="-c client_min_messages=warning"
DB="paracrowd_sqlx_prepare_$$"
PREPARE_URL="${DATABASE_URL%/*}/$DB"
OUT="$(mktemp -d)"
cleanup() {
  "$PGBIN/psql" -q "$DATABASE_URL" -c "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
  rm -rf "$OUT"
}
trap cleanup EXIT

"$PGBIN/psql" -q "$DATABASE_URL" -c "drop database if exists $DB" -c "create database $DB" >/dev/null
for m in "$ROOT"/migrations/*.sql; do
  "$PGBIN/psql" -q -v ON_ERROR_STOP=1 "$PREPARE_URL" -f "$m" >/dev/null
done

# The macros run only when the crate compiles: drop the app crate's output of this profile (dev)
# so it does; the release and wasm builds keep theirs.
cargo clean -q -p app --profile dev
BUILD=0
SQLX_OFFLINE=false SQLX_OFFLINE_DIR="$OUT" DATABASE_URL="$PREPARE_URL" \
  cargo "${CARGO_ARGS[@]}" || BUILD=$?
if [ "$BUILD" != 0 ] && [ "$CHECK" = 0 ]; then
  echo "cargo ${CARGO_ARGS[*]} failed (above): .sqlx/ left as it was" >&2
  exit "$BUILD"
fi

if [ "$CHECK" = 1 ]; then
  if ! diff -r "$ROOT/.sqlx" "$OUT" >/dev/null 2>&1; then
    diff -r "$ROOT/.sqlx" "$OUT" | head -40 >&2 || true
    echo ".sqlx/ is out of date with the queries or migrations: run scripts/sqlx-prepare.sh and commit .sqlx/" >&2
    exit 1
  fi
  echo ".sqlx/ is current ($(ls "$OUT" | wc -l) queries checked against migrations/)"
  exit "$BUILD"
else
  rm -rf "$ROOT/.sqlx"
  mkdir -p "$ROOT/.sqlx"
  cp "$OUT"/*.json "$ROOT/.sqlx/"
  echo "wrote .sqlx/ ($(ls "$ROOT/.sqlx" | wc -l) queries)"
fi
