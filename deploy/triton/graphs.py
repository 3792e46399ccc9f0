"""Finding a model directory's ONNX graph, as the Rust loader does (shared by the two scripts)."""

from __future__ import annotations

from pathlib import Path


def find_graph(model_dir: Path) -> Path:
    """`model.onnx`, else the directory's only `.onnx` file."""
    default = model_dir / "model.onnx"
    if default.is_file():
        return default
    graphs = sorted(model_dir.glob("*.onnx"))
    if len(graphs) != 1:
        raise SystemExit(f"{model_dir}: expected model.onnx or exactly one .onnx file")
    return graphs[0]
