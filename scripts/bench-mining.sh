#!/usr/bin/env bash
# Mining benchmark: MSRP's L12 and F2 on WikiRef220 and on three synthetic 10,000-sentence
# clusters, pairs examined per second in Rust, then the same sentences with a rapidfuzz-based
# Python reference (installed from PyPI into .tools/mine on first use).
# Usage: scripts/bench-mining.sh     (needs ../shared/data/mining/wikiref220.jsonl)
source "$(dirname "$0")/lib.sh"
WIKIREF="${WIKIREF:-$PARACROWD_SHARED_DIR/data/mining/wikiref220.jsonl}"
cargo build --release -p server --bin bench-mining
OUT="$CARGO_TARGET_DIR/bench-mining"
"$CARGO_TARGET_DIR/release/bench-mining" "$WIKIREF" "$OUT"
echo "  (the same on one core: taskset -c 0)"
taskset -c 0 "$CARGO_TARGET_DIR/release/bench-mining" "$WIKIREF" "$OUT" | tail -n 3
VENV="$ROOT/.tools/mine"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r "$ROOT/scripts/bench/requirements-mining.txt"
fi
"$VENV/bin/python" "$ROOT/scripts/bench/mine_reference.py" "$OUT"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
