#!/usr/bin/env bash
# Import benchmark: the upload readers' parse time as seconds per 100,000 rows, at 100,000 and
# 1,000,000 short rows (the same number at both sizes: linear).
# Usage: scripts/bench-import.sh
source "$(dirname "$0")/lib.sh"
cargo build --release -p server --bin bench-import
"$CARGO_TARGET_DIR/release/bench-import"
