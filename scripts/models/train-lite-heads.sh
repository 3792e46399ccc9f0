#!/usr/bin/env bash
# Trains the lite scorer's heads on the APT paper's scored pairs (../shared/data/apt, development
# machines only) and writes server/models/lite-heads.json, server/models/lite-heads.md (the
# validation report) and tests/fixtures/lite_reference.json. The features come from the Rust
# code the server scores with (the lite-features tool); the heads from scikit-learn (PyPI,
# installed into .tools/train-lite on first use).
# Usage: scripts/models/train-lite-heads.sh [T5_ROWS]     (default: every AP_T5 row)
source "$(dirname "$0")/../lib.sh"
DATA="${PARACROWD_APT_DATA:-$PARACROWD_SHARED_DIR/data/apt}"
[ -f "$DATA/ap_h_train.tsv" ] || { echo "no APT data at $DATA (../shared/data/apt)" >&2; exit 1; }
"$ROOT/scripts/setup.sh" >/dev/null
stage "lite-features (Rust)"
cargo build --release -p server --bin lite-features
OUT="$CARGO_TARGET_DIR/lite-features"
mkdir -p "$OUT"
"$CARGO_TARGET_DIR/release/lite-features" "$PARACROWD_EMBEDDING_MODEL" "$DATA/ap_h_train.tsv" \
  "$DATA/ap_t5.tsv" "$OUT/apt" ${1:-}
stage "training (scikit-learn)"
VENV="$ROOT/.tools/train-lite"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r "$ROOT/scripts/models/requirements-train.txt"
fi
"$VENV/bin/python" "$ROOT/scripts/models/train_lite_heads.py" "$OUT/apt" "$ROOT"
print_timings
