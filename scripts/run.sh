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

# The APT paper's own models score the Check best. Installed once into the model cache when the
# Hugging Face hub answers within a few seconds (opt out: PARACROWD_MODELS=lite); otherwise, or
# if the install fails, the server scores with the next source it finds (the lite scorer on a
# fresh clone) and says so.
BIN="$CARGO_TARGET_DIR/release/paracrowd"
PAPER="${PARACROWD_CACHE:-$HOME/.cache/paracrowd}/models/paper"
if [ "${PARACROWD_MODELS:-auto}" = auto ] && [ -z "${PARACROWD_MI_MODEL:-}" ] && [ ! -f "$PAPER/manifest.json" ]; then
  if hub_answers 5; then
    stage "the paper's models (about 1.9 GB from the Hugging Face hub, once)"
    "$BIN" models install paper \
      || echo "The paper's models could not be installed (above); the Check uses the next model source."
  else
    echo "The Hugging Face hub did not answer within 5 s: the Check uses the next model source"
    echo "(see the first lines the server prints). Later: $BIN models install paper"
  fi
fi
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
