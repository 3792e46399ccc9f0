#!/usr/bin/env bash
# Inference-server benchmark: the same Checks through the in-process engine and through NVIDIA
# Triton (PyPI's nvidia-pytriton serving the same ONNX files with its dynamic batcher, started
# here), p50/p95 at 1, 8 and 32 callers, throughput, and the network hop's cost as a ratio.
# Models: the development stand-ins beside a development checkout, or PARACROWD_MI_MODEL and
# PARACROWD_BLEURT_MODEL (e.g. the paper's, where installed).
# Usage: scripts/bench-inference.sh    (BENCH_CHECKS=96 per setting)
source "$(dirname "$0")/lib.sh"
"$ROOT/scripts/setup.sh" --test
cargo build --release -p server --bin bench-inference
if [ -z "${PARACROWD_MI_MODEL:-}" ]; then
  : "${PARACROWD_MODELS_DIR:?set PARACROWD_MI_MODEL and PARACROWD_BLEURT_MODEL, or run beside ../shared/models}"
  export PARACROWD_MI_MODEL="$PARACROWD_MODELS_DIR/mi-standin-minilm-apt"
  export PARACROWD_BLEURT_MODEL="$PARACROWD_MODELS_DIR/bleurt-standin-minilm-apt"
fi
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GRPC=$(port); HTTP=$(port); METRICS=$(port)
LOG="$(mktemp)"
PARACROWD_TRITON_LOCAL=1 setsid "$TRITON_PYTHON" "$ROOT/deploy/triton/serve_onnx.py" \
  --mi "$PARACROWD_MI_MODEL" --bleurt "$PARACROWD_BLEURT_MODEL" \
  --grpc-port "$GRPC" --http-port "$HTTP" --metrics-port "$METRICS" >"$LOG" 2>&1 &
TRITON=$!
trap 'kill -- -$TRITON 2>/dev/null; wait $TRITON 2>/dev/null' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$HTTP/v2/models/bleurt/ready" >/dev/null && break
  sleep 1
done
curl -sf "http://127.0.0.1:$HTTP/v2/models/bleurt/ready" >/dev/null || { cat "$LOG"; exit 1; }
BENCH_TRITON_URL="http://127.0.0.1:$GRPC" "$CARGO_TARGET_DIR/release/bench-inference"
