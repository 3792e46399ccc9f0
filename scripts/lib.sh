# Shared helpers for the scripts in this folder. Source it; do not run it. Sourcing it twice in
# one shell (a script sourcing another) keeps the first one's stage timings.
set -euo pipefail
if [ -n "${PARACROWD_LIB_LOADED:-}" ]; then return 0; fi
PARACROWD_LIB_LOADED=1

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
export PATH="$HOME/.cargo/bin:$PATH"
# The query! macros read the checked SQL from .sqlx/ (committed), never from whatever database
# DATABASE_URL names (scripts/sqlx-prepare.sh rewrites .sqlx/ from the migrations).
export SQLX_OFFLINE="${SQLX_OFFLINE:-true}"
SITE="$CARGO_TARGET_DIR/site"

# stage NAME: prints a heading and remembers when it started; stage_end prints the time taken.
STAGE_NAME=""
STAGE_START=0
TIMINGS=()
stage() {
  stage_end
  STAGE_NAME="$1"
  STAGE_START=$(date +%s)
  printf '\n==> %s\n' "$STAGE_NAME"
}
stage_end() {
  if [ -n "$STAGE_NAME" ]; then
    local took=$(( $(date +%s) - STAGE_START ))
    TIMINGS+=("$(printf '%5ds  %s' "$took" "$STAGE_NAME")")
    printf '<== %s: %ds\n' "$STAGE_NAME" "$took"
    STAGE_NAME=""
  fi
}
print_timings() {
  stage_end
  printf '\nStage timings:\n'
  printf '  %s\n' "${TIMINGS[@]}"
}

is_root() { [ "$(id -u)" = 0 ]; }

apt_install() {
  if ! is_root; then
    echo "Missing: $*. Install them (e.g. sudo apt-get install -y $*) and run again." >&2
    exit 1
  fi
  if [ -z "${APT_UPDATED:-}" ]; then
    apt-get update -qq
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# The wasm-bindgen version pinned in Cargo.lock; the CLI must match it exactly.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# ONNX Runtime's library (from PyPI), shared by every checkout on this machine.
ORT_VERSION=1.31.1
# mdBook, for the documentation (crates.io).
MDBOOK_VERSION=0.5.4
ORT_DIR="${PARACROWD_CACHE:-$HOME/.cache/paracrowd}/onnxruntime-$ORT_VERSION"
export ORT_DYLIB_PATH="${ORT_DYLIB_PATH:-$ORT_DIR/libonnxruntime.so}"
# The ParaSCI miner's sentence embedding model (from PyPI), shared likewise.
export PARACROWD_EMBEDDING_MODEL="${PARACROWD_EMBEDDING_MODEL:-${PARACROWD_CACHE:-$HOME/.cache/paracrowd}/all-minilm-l6-v2}"
# A Python with Hugging Face `datasets` for the export check (setup.sh --test installs it).
DATASETS_VENV="${PARACROWD_CACHE:-$HOME/.cache/paracrowd}/py-datasets"
DATASETS_PYTHON="$DATASETS_VENV/bin/python"
# NVIDIA Triton Inference Server from PyPI (nvidia-pytriton), for the remote scorer's tests and
# benchmark. Made with Debian's own python3.11: the wheel's Python backend stub embeds the
# system libpython, and a venv of another 3.11 build breaks it at model load.
TRITON_VENV="${PARACROWD_CACHE:-$HOME/.cache/paracrowd}/py-triton"
TRITON_PYTHON="$TRITON_VENV/bin/python"
# The Python environment with the model export tools (`paracrowd models install paper`).
export PARACROWD_EXPORT_ENV="${PARACROWD_EXPORT_ENV:-${PARACROWD_CACHE:-$HOME/.cache/paracrowd}/py-export}"
EXPORT_ENV="$PARACROWD_EXPORT_ENV"
# The development folder (../shared beside a development checkout: the papers' corpora and the
# development stand-in models; a user's clone has none). Every script and test finds it here;
# the tests run as on a user's clone with PARACROWD_SHARED_DIR set to an empty folder.
export PARACROWD_SHARED_DIR="${PARACROWD_SHARED_DIR:-$ROOT/../shared}"
# The development stand-ins (without them the server finds the paper's models or the lite
# scorer, see the README).
if [ -z "${PARACROWD_MODELS_DIR:-}" ] && [ -d "$PARACROWD_SHARED_DIR/models" ]; then
  export PARACROWD_MODELS_DIR="$(cd "$PARACROWD_SHARED_DIR/models" && pwd)"
fi

pg_bin_dir() {
  if [ -n "${PG_BIN_DIR:-}" ]; then echo "$PG_BIN_DIR"; return; fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; fi
}

# hub_answers SECONDS: whether the Hugging Face hub (or HF_ENDPOINT) answers in time.
hub_answers() {
  local url="${HF_ENDPOINT:-https://huggingface.co}/api/models/ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli"
  if command -v curl >/dev/null 2>&1; then
    curl -fsS -m "$1" -o /dev/null "$url" 2>/dev/null
  else
    python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=float(sys.argv[2]))" "$url" "$1" 2>/dev/null
  fi
}
