# Sourced by test.sh: makes sure a PostgreSQL server for the tests is running and exports
# DATABASE_URL (a superuser URL; #[sqlx::test] creates one database per test in it).
#  1. DATABASE_URL already set: use it.
#  2. A server answers on 127.0.0.1:5432 (developer and CI machines): use it.
#  3. Otherwise start a throw-away cluster under $CARGO_TARGET_DIR/test-pg on a free port.
if [ -z "${DATABASE_URL:-}" ]; then
  PGBIN="$(pg_bin_dir)"
  if "$PGBIN/pg_isready" -q -h 127.0.0.1 -p 5432 2>/dev/null \
     && "$PGBIN/psql" -q -h 127.0.0.1 -p 5432 -U postgres -d postgres -c 'select 1' >/dev/null 2>&1; then
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres"
  else
    TEST_PG="$CARGO_TARGET_DIR/test-pg"
    RUN_AS=()
    if is_root; then RUN_AS=(runuser -u postgres --); fi
    if [ ! -f "$TEST_PG/PG_VERSION" ]; then
      mkdir -p "$TEST_PG"
      if is_root; then chown postgres:postgres "$TEST_PG"; fi
      chmod 700 "$TEST_PG"
      "${RUN_AS[@]}" "$PGBIN/initdb" -D "$TEST_PG" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null
    fi
    TEST_PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$TEST_PG" -w -l "$TEST_PG/log" \
      -o "-p $TEST_PG_PORT -c listen_addresses=127.0.0.1 -k '' -c max_connections=300 -c fsync=off" start >/dev/null
    trap '"${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$TEST_PG" -m fast stop >/dev/null 2>&1 || true' EXIT
    export DATABASE_URL="postgres://postgres@127.0.0.1:$TEST_PG_PORT/postgres"
  fi
fi
echo "Tests use PostgreSQL at $DATABASE_URL"
