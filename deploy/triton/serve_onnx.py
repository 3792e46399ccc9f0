"""Serve paracrowd's ONNX models through NVIDIA Triton Inference Server (PyPI's nvidia-pytriton).

pytriton starts the real `tritonserver` binary with its Python backend; this module binds one
inference function per model, and Triton's dynamic batcher groups the requests. It speaks the
Open Inference Protocol (KServe v2) over gRPC and HTTP, exactly as a production Triton with the
native ONNX Runtime backend and the model repository beside this file does.

Models (names fixed; the Rust client asks for them):
- `mi`: a sequence-pair classifier; inputs as its graph declares (`input_ids`, `attention_mask`,
  and `token_type_ids` for BERT-style pairs), INT64 [batch, seq]; output `logits` FP32 [batch, labels].
- `bleurt`: the same shape with one output value per row.
- `embed` (optional): the sentence embedding model; output `last_hidden_state` FP32
  [batch, seq, dim]. The Rust side mean-pools it, as it does in process.

Tokenisation stays in Rust: tensors come in, logits go out.

Checks go ahead of mining: `mi` and `bleurt` requests mark themselves while they run, and
`embed` runs its batch in chunks of `--embed-chunk` rows, each waiting until no Check is
running or waiting. On a CPU box the two would otherwise share its cores equally.

Usage:
    python serve_onnx.py --mi DIR --bleurt DIR [--embed DIR] [--grpc-port 8001] [--http-port 8000]
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from pytriton.decorators import batch
from pytriton.model_config import DynamicBatcher, ModelConfig, Tensor
from pytriton.triton import Triton, TritonConfig

from graphs import find_graph

LOG = logging.getLogger("paracrowd.triton")


def open_session(model_dir: Path, threads: int) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(
        str(find_graph(model_dir)), options, providers=["CPUExecutionProvider"]
    )


class ChecksFirst:
    """Lets embedding chunks start only while no Check is running or waiting.

    The trace lines are written under the same lock as the count, so their order in the file is
    the order the gate saw: no `embed-chunk` line falls between a `check-start` and its
    `check-end`.
    """

    def __init__(self, trace: "Trace") -> None:
        self._cv = threading.Condition()
        self._checks = 0
        self._trace = trace

    @contextlib.contextmanager
    def check(self, model: str, rows: int):
        with self._cv:
            self._checks += 1
            self._trace.write(f"check-start {model} {rows}")
        try:
            yield
        finally:
            with self._cv:
                self._checks -= 1
                self._trace.write(f"check-end {model}")
                self._cv.notify_all()

    def embed_chunk(self, start: int) -> None:
        with self._cv:
            self._cv.wait_for(lambda: self._checks == 0)
            self._trace.write(f"embed-chunk {start}")


class Trace:
    """One line per event, for the priority test (`PARACROWD_TRITON_TRACE=FILE`)."""

    def __init__(self, path: str | None) -> None:
        self._file = open(path, "a", buffering=1) if path else None
        self._lock = threading.Lock()

    def write(self, event: str) -> None:
        if self._file is None:
            return
        with self._lock:
            self._file.write(f"{time.monotonic():.6f} {event}\n")


def pair_model(name: str, session: ort.InferenceSession, gate: ChecksFirst):
    """The inference function of a sequence-pair model."""
    input_names = [i.name for i in session.get_inputs()]
    output = next(
        (o.name for o in session.get_outputs() if o.name == "logits"),
        session.get_outputs()[0].name,
    )

    @batch
    def infer(**inputs: np.ndarray):
        feed = {n: inputs[n].astype(np.int64, copy=False) for n in input_names}
        with gate.check(name, len(feed["input_ids"])):
            (logits,) = session.run([output], feed)
        return {"logits": logits.astype(np.float32, copy=False)}

    return infer, input_names


def embed_model(session: ort.InferenceSession, gate: ChecksFirst, chunk: int):
    input_names = [i.name for i in session.get_inputs()]

    @batch
    def infer(**inputs: np.ndarray):
        feed = {n: inputs[n].astype(np.int64, copy=False) for n in input_names}
        rows = len(feed["input_ids"])
        parts = []
        for start in range(0, rows, chunk):
            gate.embed_chunk(start)
            part = {n: v[start : start + chunk] for n, v in feed.items()}
            (hidden,) = session.run(["last_hidden_state"], part)
            parts.append(hidden)
        return {"last_hidden_state": np.concatenate(parts).astype(np.float32, copy=False)}

    return infer, input_names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mi", type=Path, required=True, help="the MI model directory")
    parser.add_argument("--bleurt", type=Path, required=True, help="the BLEURT model directory")
    parser.add_argument("--embed", type=Path, help="the sentence embedding model directory")
    parser.add_argument("--grpc-port", type=int, default=8001)
    parser.add_argument("--http-port", type=int, default=8000)
    parser.add_argument("--metrics-port", type=int, default=8002)
    parser.add_argument("--max-batch", type=int, default=64, help="rows per batched call")
    parser.add_argument(
        "--queue-delay-us", type=int, default=2000, help="how long the batcher waits for more"
    )
    parser.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads per model")
    parser.add_argument("--embed-chunk", type=int, default=8, help="rows per embedding step")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")

    trace = Trace(os.environ.get("PARACROWD_TRITON_TRACE"))
    gate = ChecksFirst(trace)
    batcher = DynamicBatcher(max_queue_delay_microseconds=args.queue_delay_us)
    config = ModelConfig(max_batch_size=args.max_batch, batcher=batcher)
    triton_config = TritonConfig(
        grpc_port=args.grpc_port,
        http_port=args.http_port,
        metrics_port=args.metrics_port,
        grpc_address="127.0.0.1" if os.environ.get("PARACROWD_TRITON_LOCAL") else "0.0.0.0",
        http_address="127.0.0.1" if os.environ.get("PARACROWD_TRITON_LOCAL") else "0.0.0.0",
        exit_on_error=True,
    )
    with Triton(config=triton_config) as triton:
        for name, model_dir in (("mi", args.mi), ("bleurt", args.bleurt)):
            session = open_session(model_dir, args.threads)
            infer, names = pair_model(name, session, gate)
            width = session.get_outputs()[0].shape[-1]
            triton.bind(
                model_name=name,
                infer_func=infer,
                inputs=[Tensor(name=n, dtype=np.int64, shape=(-1,)) for n in names],
                outputs=[Tensor(name="logits", dtype=np.float32, shape=(width,))],
                config=config,
                strict=True,
            )
            LOG.info("serving %s from %s", name, model_dir)
        if args.embed is not None:
            session = open_session(args.embed, args.threads)
            infer, names = embed_model(session, gate, args.embed_chunk)
            dim = session.get_outputs()[0].shape[-1]
            triton.bind(
                model_name="embed",
                infer_func=infer,
                inputs=[Tensor(name=n, dtype=np.int64, shape=(-1,)) for n in names],
                outputs=[Tensor(name="last_hidden_state", dtype=np.float32, shape=(-1, dim))],
                config=config,
                strict=True,
            )
            LOG.info("serving embed from %s", args.embed)
        signal.signal(signal.SIGTERM, lambda *_: triton.stop())
        triton.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
