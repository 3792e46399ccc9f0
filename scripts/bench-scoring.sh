#!/usr/bin/env bash
# Scoring benchmark: raw ort time, engine Check latency at 1/8/32 callers, batched vs unbatched.
# Usage: scripts/bench-scoring.sh    (BENCH_CHECKS=64 per setting; PARACROWD_ML_* to tune)
source "$(dirname "$0")/lib.sh"
"$ROOT/scripts/setup.sh"
cargo build --release -p server --bin bench-scoring
exec "$CARGO_TARGET_DIR/release/bench-scoring"
