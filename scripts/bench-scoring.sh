#!/usr/bin/env bash
# Scoring benchmark: Check latency at 1 and 8 callers for every scorer this machine has (the lite
# scorer, the stand-ins, the paper's int8 and fp32 models where installed), then raw ort time,
# the engine at 1/8/32 callers and batched vs unbatched on the stand-ins.
# With BENCH_PAPER_SHAPED=1 (and the export tools that `scripts/setup.sh --test` installs), the
# paper's rows are measured on random weights in the paper models' own shapes (RoBERTa-large,
# BERT-base), installed by `paracrowd models install paper` from local directories into a cache
# of the benchmark's own: the speed a study would see, where the hub cannot be reached.
# Usage: scripts/bench-scoring.sh    (BENCH_CHECKS=64 per setting; PARACROWD_ML_* to tune)
source "$(dirname "$0")/lib.sh"
"$ROOT/scripts/setup.sh"
cargo build --release -p server --bin bench-scoring --bin paracrowd
if [ "${BENCH_PAPER_SHAPED:-0}" = 1 ]; then
  SHAPED="$CARGO_TARGET_DIR/paper-shaped"
  if [ ! -f "$SHAPED/cache/models/paper/manifest.json" ]; then
    echo "Building random models in the paper's shapes and installing them (once, a few minutes)"
    "$PARACROWD_EXPORT_ENV/bin/python" "$ROOT/tests/ml/make_tiny_paper_models.py" "$SHAPED/src" --paper-shaped
    PARACROWD_CACHE="$SHAPED/cache" "$CARGO_TARGET_DIR/release/paracrowd" models install paper \
      --nli "$SHAPED/src/nli" --bleurt "$SHAPED/src/bleurt"
  fi
  echo "the paper's rows: random weights in the paper models' shapes ($SHAPED/cache)"
  export PARACROWD_CACHE="$SHAPED/cache" PARACROWD_EMBEDDING_MODEL
fi
exec "$CARGO_TARGET_DIR/release/bench-scoring"
