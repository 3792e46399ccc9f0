"""Python reference outputs for the scoring engine's correctness tests.

Runs every model the Rust tests check (the stand-ins in ../shared/models and the two tiny random
fixtures) through onnxruntime with the Hugging Face `tokenizers` library, one pair at a time (no
padding), in both orders, and writes the raw output rows to tests/fixtures/scoring_reference.json.
The tokenisation follows the rule the Rust loader applies when tokenizer.json sets none: truncate
pairs longest-first to 128 tokens (BERT-style) or 510 (RoBERTa).

Usage (from the repo root):
  python3 -m venv .tools/pyref && .tools/pyref/bin/pip install -r scripts/reference/requirements.txt
  .tools/pyref/bin/python scripts/reference/make_scoring_reference.py ../shared/models
"""
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

PAIRS = [
    ("A man is playing a guitar.", "A person is playing an instrument."),
    ("The cat sat on the mat.", "The dog sat on the mat."),
    ("Two years later, the insurance coverage would begin.", "The insurance will start in two years."),
    ("The weather is lovely today.", "It is raining heavily today."),
    ("Amrozi accused his brother, whom he called \"the witness\", of deliberately distorting his evidence.",
     "Referring to him as only \"the witness\", Amrozi accused his brother of deliberately distorting his evidence."),
    ("Yucaipa owned Dominick's before selling the chain to Safeway in 1998 for $2.5 billion.",
     "Yucaipa bought Dominick's in 1995 for $693 million and sold it to Safeway for $1.8 billion in 1998."),
    ("Café owners in São Paulo — naïve or not — reopened 😀.", "São Paulo's café owners reopened."),
    ("short", "A much longer sentence that says something entirely different from the first one."),
    # Long enough to be truncated at 128 tokens.
    (" ".join(["The committee reviewed the proposal in detail"] * 20) + ".",
     " ".join(["After a long discussion the board approved the plan"] * 15) + "."),
]

# name -> (directory under the models dir, model type for the truncation rule)
MODELS = {
    "mi-standin-minilm-apt": ("mi-standin-minilm-apt", "bert"),
    "bleurt-standin-minilm-apt": ("bleurt-standin-minilm-apt", "bert"),
    "nli-standin-minilm-sick": ("nli-standin-minilm-sick", "bert"),
    "roberta-bpe-random-tiny": ("fixtures/roberta-bpe-random-tiny", "roberta"),
    "bleurt-sp-random-tiny": ("fixtures/bleurt-sp-random-tiny", "bert"),
}


def graph_file(d: Path) -> Path:
    if (d / "model.onnx").exists():
        return d / "model.onnx"
    (only,) = list(d.glob("*.onnx"))
    return only


def run(models_dir: Path) -> dict:
    out = {"generator": "scripts/reference/make_scoring_reference.py",
           "onnxruntime": ort.__version__, "pairs": PAIRS, "models": {}}
    for name, (rel, kind) in MODELS.items():
        d = models_dir / rel
        tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        if tok.truncation is None:
            tok.enable_truncation(max_length=510 if kind == "roberta" else 128, strategy="longest_first")
        tok.no_padding()
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        sess = ort.InferenceSession(str(graph_file(d)), so, providers=["CPUExecutionProvider"])
        inputs = [i.name for i in sess.get_inputs()]
        rows = []
        for a, b in PAIRS:
            for first, second in ((a, b), (b, a)):
                enc = tok.encode(first, second)
                feed = {}
                for n in inputs:
                    src = {"input_ids": enc.ids, "attention_mask": enc.attention_mask,
                           "token_type_ids": enc.type_ids}[n]
                    feed[n] = np.array([src], dtype=np.int64)
                logits = sess.run(None, feed)[0][0]
                rows.append({"first": first, "second": second, "tokens": len(enc.ids),
                             "logits": [float(x) for x in logits]})
        out["models"][name] = {"dir": rel, "inputs": inputs, "rows": rows}
    return out


def avx2_only() -> bool:
    """No AVX-512 and no AVX-VNNI: onnxruntime's int8 kernels then round differently."""
    flags = Path("/proc/cpuinfo").read_text().split()
    return "avx512bw" not in flags and "avx_vnni" not in flags


if __name__ == "__main__":
    models_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/models")
    target = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "scoring_reference.json"
    fresh = run(models_dir)
    if avx2_only() and target.exists():
        # Int8 graphs give CPU-dependent logits (the integer GEMM kernels differ between AVX2 and
        # AVX-512/VNNI machines; Rust and Python agree on the same machine). Keep the file's
        # references and record this machine's int8 rows beside them for AVX2-only CPUs.
        out = json.loads(target.read_text())
        out["avx2_only"] = {n: m for n, m in fresh["models"].items() if "int8" in m.get("graph", "")
                            or n == "nli-standin-minilm-sick"}
    else:
        out = fresh
    target.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print("wrote", target)
