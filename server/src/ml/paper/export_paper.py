"""Exports the APT paper's models to the layout paracrowd loads. Run by `paracrowd models install
paper` (which carries this file and writes it out), in a Python environment it makes from PyPI.

For each model (the MI judge: a 3-way NLI sequence classifier; BLEURT: a one-output regression):
download it from the Hugging Face hub at a fixed revision (or read a local model directory),
export it to ONNX (fp32, opset 17, dynamic batch and sequence axes), save its fast tokenizer as
tokenizer.json and its config.json, compute PyTorch's outputs on the given pairs (for the Rust
side to compare with), and write an int8 dynamically quantised copy next to it.

Everything is written under --out, a temporary folder the caller renames when all is well.
Lines starting with "progress:" are for the user; the last line is the report's path.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--nli", required=True, help="hub repository or local model directory")
parser.add_argument("--bleurt", required=True, help="hub repository or local model directory")
parser.add_argument("--out", required=True)
parser.add_argument("--pairs", required=True, help="JSON list of [first, second] sentence pairs")
parser.add_argument("--report", required=True)
parser.add_argument("--hub-cache", required=True)
parser.add_argument("--timeout", type=float, default=20.0)
args = parser.parse_args()

# Before huggingface_hub is imported: it reads these once.
os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", str(int(args.timeout)))
os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", str(int(args.timeout)))
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# Plain HTTP downloads, written to the cache as they arrive: the stall guard below watches them
# (Xet transfers assemble files elsewhere first).
os.environ.setdefault("HF_HUB_DISABLE_XET", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: E402

NLI_DIR, BLEURT_DIR, INT8 = "nli-roberta-large", "bleurt-base-128", "-int8"
# Files a sequence classifier needs; weights as safetensors when the repository has them.
WANTED = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
          "vocab.json", "merges.txt", "vocab.txt", "sentencepiece.model", "spiece.model")


def progress(msg):
    print("progress: " + msg, flush=True)


def human(n):
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


def tree_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


class StallGuard:
    """Ends the process when nothing arrives in `folder` for `limit` seconds. huggingface_hub
    drops its own timeouts on some calls (its retries wait forever), so a hub that stops
    answering half-way would hang the install; this makes it an error."""

    def __init__(self, folder, limit):
        self.folder, self.limit, self.done = folder, limit, threading.Event()

    def watch(self):
        last, since = -1, time.time()
        while not self.done.wait(1.0):
            size = tree_bytes(self.folder) if os.path.isdir(self.folder) else 0
            if size != last:
                last, since = size, time.time()
            elif time.time() - since > self.limit:
                print(f"error: the Hugging Face hub stopped answering: nothing arrived for {self.limit:.0f} s",
                      file=sys.stderr, flush=True)
                os._exit(3)

    def __enter__(self):
        threading.Thread(target=self.watch, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.done.set()


def local_revision(path):
    h = hashlib.sha256()
    for name in sorted(os.listdir(path)):
        if name.endswith((".bin", ".safetensors", ".json", ".txt", ".model")):
            with open(os.path.join(path, name), "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
    return h.hexdigest()


def fetch(source, role):
    """A local directory as it is, or the hub repository's files at its current commit."""
    if os.path.isdir(source):
        progress(f"{role}: using the local model directory {source}")
        return source, {"role": role, "repo": "local:" + os.path.abspath(source),
                        "revision": local_revision(source), "download_bytes": 0}
    from huggingface_hub import HfApi, snapshot_download
    info = HfApi().model_info(source, files_metadata=True, timeout=args.timeout)
    names = [s.rfilename for s in info.siblings]
    weights = [n for n in names if n == "model.safetensors"] or [n for n in names if n == "pytorch_model.bin"]
    if not weights:
        sys.exit(f"{source} has neither model.safetensors nor pytorch_model.bin")
    files = [s for s in info.siblings if s.rfilename in WANTED or s.rfilename in weights]
    size = sum(s.size or 0 for s in files)
    progress(f"{role}: {source} at revision {info.sha[:12]}: {len(files)} files, {human(size)} to download")
    before = tree_bytes(args.hub_cache) if os.path.isdir(args.hub_cache) else 0
    with StallGuard(args.hub_cache, 3 * args.timeout):
        path = snapshot_download(source, revision=info.sha, allow_patterns=[s.rfilename for s in files],
                                 cache_dir=args.hub_cache)
    got = tree_bytes(args.hub_cache) - before
    return path, {"role": role, "repo": source, "revision": info.sha, "download_bytes": max(got, 0)}


def export(src, out, role, pairs):
    """ONNX graph, tokenizer.json and config.json in `out`; PyTorch's outputs on `pairs`."""
    os.makedirs(out, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(src)
    if not getattr(tok, "is_fast", False):
        sys.exit(f"{src}: no fast tokenizer could be built (tokenizer.json is needed)")
    model = AutoModelForSequenceClassification.from_pretrained(src, attn_implementation="eager").eval()
    labels = [model.config.id2label[i] for i in range(model.config.num_labels)]
    if role == "nli" and "entailment" not in [l.lower() for l in labels]:
        sys.exit(f"{src}: the MI judge must be an NLI model with an 'entailment' label, its labels are {labels}")
    if role == "bleurt" and len(labels) != 1:
        sys.exit(f"{src}: BLEURT must have one output, this model has {len(labels)}")
    # A model that learned segment embeddings (BERT: type_vocab_size 2) reads token types even
    # when its tokenizer's config does not name them as an input.
    typed = getattr(model.config, "type_vocab_size", 1) > 1
    probe = tok(["a"], ["b"], return_token_type_ids=typed or None)
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in probe]
    max_length = 128 if role == "bleurt" else min(512, model.config.max_position_embeddings - 2)

    def run(a, b):
        enc = tok([a], [b], truncation="longest_first", max_length=max_length, return_tensors="pt",
                  return_token_type_ids=typed or None)
        with torch.no_grad():
            return model(**{n: enc[n] for n in names}).logits[0].tolist()

    # PyTorch's outputs first: torch.onnx.export may leave the module in training mode.
    reference = [run(a, b) for a, b in pairs]

    class Logits(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, *inputs):
            return self.m(**dict(zip(names, inputs))).logits

    dummy = tok([pairs[0][0], pairs[1][0]], [pairs[0][1], pairs[1][1]], padding="longest", return_tensors="pt",
                return_token_type_ids=typed or None)
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes["logits"] = {0: "batch"}
    with torch.no_grad():
        torch.onnx.export(Logits(model).eval(), tuple(dummy[n] for n in names), os.path.join(out, "model.onnx"),
                          input_names=names, output_names=["logits"], dynamic_axes=axes, opset_version=17,
                          dynamo=False)
    onnx.checker.check_model(os.path.join(out, "model.onnx"))
    backend = tok.backend_tokenizer
    backend.no_truncation()
    backend.no_padding()
    backend.save(os.path.join(out, "tokenizer.json"))
    config = model.config.to_dict()
    config["max_length"] = max_length  # read by paracrowd: truncate pairs to this many tokens
    config["pad_token_id"] = tok.pad_token_id
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    return reference


def quantise(fp32_dir, int8_dir):
    os.makedirs(int8_dir, exist_ok=True)
    quantize_dynamic(os.path.join(fp32_dir, "model.onnx"), os.path.join(int8_dir, "model.onnx"),
                     weight_type=QuantType.QInt8)
    for name in ("tokenizer.json", "config.json"):
        shutil.copy(os.path.join(fp32_dir, name), os.path.join(int8_dir, name))


def main():
    with open(args.pairs) as f:
        pairs = json.load(f)
    started = time.time()
    nli_src, nli_source = fetch(args.nli, "nli")
    bleurt_src, bleurt_source = fetch(args.bleurt, "bleurt")
    download_seconds = time.time() - started
    downloaded = nli_source["download_bytes"] + bleurt_source["download_bytes"]
    if downloaded:
        progress(f"downloaded {human(downloaded)} in {download_seconds:.0f} s")

    started = time.time()
    progress("exporting the MI judge to ONNX")
    nli_ref = export(nli_src, os.path.join(args.out, NLI_DIR), "nli", pairs)
    progress("exporting BLEURT to ONNX")
    bleurt_ref = export(bleurt_src, os.path.join(args.out, BLEURT_DIR), "bleurt", pairs)
    progress("writing the int8 copies (dynamic quantisation)")
    quantise(os.path.join(args.out, NLI_DIR), os.path.join(args.out, NLI_DIR + INT8))
    quantise(os.path.join(args.out, BLEURT_DIR), os.path.join(args.out, BLEURT_DIR + INT8))
    export_seconds = time.time() - started
    progress(f"exported in {export_seconds:.0f} s")

    report = {
        "sources": [nli_source, bleurt_source],
        "download_bytes": downloaded,
        "download_seconds": download_seconds,
        "export_seconds": export_seconds,
        "tools": {"python": sys.version.split()[0], "torch": torch.__version__,
                  "transformers": transformers.__version__, "onnx": onnx.__version__,
                  "onnxruntime": onnxruntime.__version__, "numpy": np.__version__},
        "torch_reference": {"nli": nli_ref, "bleurt": [r[0] for r in bleurt_ref]},
    }
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    print(args.report, flush=True)


if __name__ == "__main__":
    main()
