#!/usr/bin/env bash
# Installs ONNX Runtime's shared library from PyPI's `onnxruntime` wheel (or `onnxruntime-gpu`
# with ORT_PYPI_PACKAGE=onnxruntime-gpu, which also ships the CUDA provider library) into DEST.
# Prints the library path. 1.31.1 is the version ort 2.0.0-rc.15 targets.
# Usage: scripts/get-onnxruntime.sh DEST [VERSION]
set -euo pipefail
dest=${1:?usage: get-onnxruntime.sh DEST [VERSION]}
ver=${2:-1.31.1}
pkg=${ORT_PYPI_PACKAGE:-onnxruntime}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "$pkg==$ver" >&2
mkdir -p "$dest"
python3 - "$tmp" "$dest" <<'PY'
import glob, os, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
whl = glob.glob(os.path.join(tmp, "*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if n.startswith("onnxruntime/capi/libonnxruntime") and ".so" in n:
            with z.open(n) as s, open(os.path.join(dest, os.path.basename(n)), "wb") as d:
                d.write(s.read())
PY
real=$(cd "$dest" && ls libonnxruntime.so.1.* | head -n 1)
ln -sf "$real" "$dest/libonnxruntime.so"
echo "$dest/$real"
