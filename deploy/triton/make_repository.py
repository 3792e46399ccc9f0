"""Write a Triton model repository (ONNX Runtime backend) for paracrowd's models.

For a production Triton (the NGC container `nvcr.io/nvidia/tritonserver:<yy.mm>-py3`), which has
the native ONNX Runtime backend. Each model gets `NAME/1/model.onnx` (a copy of the graph) and a
`NAME/config.pbtxt` written from the graph's own inputs and outputs, with Triton's dynamic
batcher and an instance group on the GPU or the CPU:

- `mi` and `bleurt`: the Check's models, priority level 1, a short queue delay;
- `embed` (optional): mining's sentence embeddings, priority level 2, one instance, so a Check is
  never queued behind a corpus.

The names are the ones the Rust client asks for (server/src/ml/remote). When tritonclient is
installed (nvidia-pytriton brings it), every config.pbtxt written is parsed back as Triton's
ModelConfig, so a typo fails here and not on the server.

Usage:
    python make_repository.py --mi DIR --bleurt DIR [--embed DIR] --out REPO [--device gpu|cpu]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import onnxruntime as ort

from graphs import find_graph

TYPES = {"tensor(int64)": "TYPE_INT64", "tensor(float)": "TYPE_FP32"}


def dims(shape) -> str:
    """The dimensions after the batch one; names and None become -1."""
    return ", ".join(str(d) if isinstance(d, int) else "-1" for d in shape[1:])


def config(name: str, graph: Path, device: str, priority: int, count: int, output: str) -> str:
    session = ort.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
    tensors = []
    for kind, items in (("input", session.get_inputs()), ("output", session.get_outputs())):
        chosen = [t for t in items if kind == "input" or t.name == output]
        if not chosen:
            raise SystemExit(f"{graph} has no output {output!r}")
        body = ",\n".join(
            f'  {{ name: "{t.name}" data_type: {TYPES[t.type]} dims: [ {dims(t.shape)} ] }}'
            for t in chosen
        )
        tensors.append(f"{kind} [\n{body}\n]")
    kind = "KIND_GPU" if device == "gpu" else "KIND_CPU"
    return f"""# Written by deploy/triton/make_repository.py from the graph's own inputs and outputs.
name: "{name}"
backend: "onnxruntime"
max_batch_size: 64
{tensors[0]}
{tensors[1]}
dynamic_batching {{
  max_queue_delay_microseconds: {2000 if priority == 1 else 10000}
  priority_levels: 2
  default_priority_level: {priority}
}}
instance_group [ {{ kind: {kind} count: {count} }} ]
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mi", type=Path, required=True)
    parser.add_argument("--bleurt", type=Path, required=True)
    parser.add_argument("--embed", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--device", choices=["gpu", "cpu"], default="gpu")
    args = parser.parse_args()

    models = [("mi", args.mi, 1, 1, "logits"), ("bleurt", args.bleurt, 1, 1, "logits")]
    if args.embed:
        models.append(("embed", args.embed, 2, 1, "last_hidden_state"))
    for name, model_dir, priority, count, output in models:
        graph = find_graph(model_dir)
        target = args.out / name
        (target / "1").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(graph, target / "1" / "model.onnx")
        text = config(name, graph, args.device, priority, count, output)
        (target / "config.pbtxt").write_text(text)
        check(text, target / "config.pbtxt")
        print(f"{target}: {graph}")
    return 0


def check(text: str, path: Path) -> None:
    try:
        from google.protobuf import text_format
        from tritonclient.grpc import model_config_pb2
    except ImportError:
        return
    text_format.Parse(text, model_config_pb2.ModelConfig())
    print(f"{path}: parses as Triton's ModelConfig")


if __name__ == "__main__":
    sys.exit(main())
