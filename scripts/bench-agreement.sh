#!/usr/bin/env bash
# Agreement benchmark: every dashboard statistic on 125,000 pairs x 6 judgments in Rust, then the
# same with the pinned Python reference libraries (installed from PyPI into .tools/agree).
# Usage: scripts/bench-agreement.sh [PAIRS]
source "$(dirname "$0")/lib.sh"
PAIRS="${1:-125000}"
cargo build --release -p server --bin bench-agreement
DATA="$CARGO_TARGET_DIR/bench-agreement.tsv"
"$CARGO_TARGET_DIR/release/bench-agreement" "$PAIRS" "$DATA"
VENV="$ROOT/.tools/agree"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r "$ROOT/scripts/reference/requirements-agreement.txt"
fi
"$VENV/bin/python" "$ROOT/scripts/reference/bench_agreement.py" "$DATA"
