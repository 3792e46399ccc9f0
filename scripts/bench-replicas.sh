#!/usr/bin/env bash
# Replica benchmark: the release server behind HAProxy (Debian's package), first one
# server, then two on the same PostgreSQL, each with the load tool pointed at HAProxy: JUDGES
# judges and WRITERS writers for SECONDS, then pgbench on the same PostgreSQL (the tool's own
# reference). On one machine two servers share its two cores: the second shows the overhead of
# a second process and a balancer hop, not a speed-up. The heartbeat takeover time is printed by
# tests/api/replicas_haproxy.rs (SIGKILL of the server mining a run, under load).
# Usage: scripts/bench-replicas.sh [SECONDS] [JUDGES] [WRITERS]     (default 30 200 0)
source "$(dirname "$0")/lib.sh"
SECONDS_RUN="${1:-30}"
JUDGES="${2:-200}"
WRITERS="${3:-0}"
"$ROOT/scripts/setup.sh" --test >/dev/null
source "$ROOT/scripts/build.sh" >/dev/null
source "$ROOT/scripts/test-db.sh"
PSQL="$(pg_bin_dir)/psql"
BIN="$CARGO_TARGET_DIR/release/paracrowd"
WORK=$(mktemp -d)
PIDS=()
cleanup() { kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

fresh_db() {
  "$PSQL" -q "$DATABASE_URL" -c "drop database if exists paracrowd_bench_replicas with (force)" \
    -c "create database paracrowd_bench_replicas"
  URL="${DATABASE_URL%/*}/paracrowd_bench_replicas"
}
server() { # port
  DATABASE_URL="$URL" PARACROWD_ADDR="127.0.0.1:$1" LEPTOS_SITE_ROOT="$SITE" RUST_LOG=warn \
    PARACROWD_REPLICA=true \
    PARACROWD_MAX_DB_CONNECTIONS="${PARACROWD_MAX_DB_CONNECTIONS:-20}" \
    PARACROWD_CONNECTION_SHARE_EXEMPT=127.0.0.0/8 PARACROWD_RATE_REGISTRATIONS=100000/60 PARACROWD_RATE_CALLS=100000000/60 \
  PARACROWD_RATE_ANONYMOUS_CALLS=100000000/60 \
    "$BIN" serve >>"$WORK/server-$1.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 240); do curl -fs "http://127.0.0.1:$1/health" >/dev/null && return; sleep 0.5; done
  cat "$WORK/server-$1.log"; exit 1
}
balancer() { # front port, backend ports...
  local front=$1; shift
  { printf 'global\n    maxconn 4096\ndefaults\n    mode http\n    timeout connect 2s\n    timeout check 3s\n'
    printf '    timeout client 60s\n    timeout server 60s\n    retries 3\n    option redispatch\n'
    printf '    retry-on conn-failure\nfrontend front\n    bind 127.0.0.1:%s\n    default_backend app\n' "$front"
    printf 'backend app\n    balance roundrobin\n    option httpchk GET /health\n'
    printf '    http-check expect status 200\n    default-server inter 500ms fall 3 rise 2\n'
    local i=0; for p in "$@"; do printf '    server app%s 127.0.0.1:%s check\n' $i "$p"; i=$((i+1)); done
  } > "$WORK/haproxy-$front.cfg"
  /usr/sbin/haproxy -db -f "$WORK/haproxy-$front.cfg" >"$WORK/haproxy-$front.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$front/health" >/dev/null && return; sleep 0.1; done
  cat "$WORK/haproxy-$front.log"; exit 1
}
load() { # front port
  PG_BIN_DIR="$(pg_bin_dir)" DATABASE_URL="$URL" "$CARGO_TARGET_DIR/release/paracrowd-load" \
    --url "http://127.0.0.1:$1" --judges "$JUDGES" --writers "$WRITERS" --seconds "$SECONDS_RUN" \
    --think-ms "${THINK_MS:-0}" ${RATE:+--rate "$RATE"}
}

for n in 1 2; do
  echo "=== $n server(s) behind HAProxy ==="
  fresh_db
  ports=()
  for _ in $(seq 1 "$n"); do p=$(port); server "$p"; ports+=("$p"); done
  front=$(port)
  balancer "$front" "${ports[@]}"
  load "$front"
  kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; PIDS=()
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
