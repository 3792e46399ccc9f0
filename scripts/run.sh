#!/usr/bin/env bash
# Installs what is missing, builds the release site and server, and starts paracrowd at
# http://127.0.0.1:3000 (PARACROWD_ADDR to change). Without DATABASE_URL it runs its own
# PostgreSQL under ./paracrowd-data (PARACROWD_DATA_DIR to change). On the first start it prints
# the admin's generated password once.
# Usage: scripts/run.sh
source "$(dirname "$0")/lib.sh"

stage "setup (toolchain, PostgreSQL, Node packages)"
"$ROOT/scripts/setup.sh"
source "$ROOT/scripts/build.sh"
print_timings

if [ -z "${PARACROWD_DATA_DIR:-}" ]; then
  export PARACROWD_DATA_DIR="$ROOT/paracrowd-data"
  # As root the embedded PostgreSQL runs as the postgres user, who must reach the data dir.
  if is_root && ! runuser -u postgres -- test -x "$ROOT" 2>/dev/null; then
    export PARACROWD_DATA_DIR=/var/lib/paracrowd
    echo "Using PARACROWD_DATA_DIR=$PARACROWD_DATA_DIR ($ROOT is private to root)"
  fi
fi
export LEPTOS_SITE_ROOT="$SITE"
exec "$CARGO_TARGET_DIR/release/paracrowd" serve
