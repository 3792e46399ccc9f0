#!/usr/bin/env bash
# Builds the site without cargo-leptos: the hydrate bundles (three for annotators' pages, and
# the full one; wasm-bindgen + binaryen's wasm-opt), public files and CSS into target/site, then the
# server binary, all in release mode.
# Usage: scripts/build.sh
#   PARACROWD_BUILD_WITH_TESTS=1: the server binary comes from building every test as well
#   (`cargo test --release --workspace --no-run`, what scripts/test.sh does): one build with the
#   tests' features, instead of a second build of most dependencies with other features.
source "$(dirname "$0")/lib.sh"

# One hydrate bundle: the app's wasm with FEATURES, through wasm-bindgen and npm's wasm-opt
# (Debian's binaryen breaks hydration: see README), into pkg/paracrowd.{js,wasm}.
wasm_bundle() {
  cargo build -p app --lib --target wasm32-unknown-unknown --no-default-features --features "$1" \
    --profile wasm-release
  wasm-bindgen --target web --no-typescript --out-dir "$SITE/pkg" --out-name paracrowd \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/app.wasm"
  "$ROOT/end2end/node_modules/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types \
    "$SITE/pkg/paracrowd_bg.wasm" -o "$SITE/pkg/paracrowd.wasm"
  rm -f "$SITE/pkg/paracrowd_bg.wasm"
}

# Content-hashed names (paracrowd.<hash>.<ext>), so browsers may keep them for a year: moves the
# FILES (extensions) of pkg/paracrowd.* to the hash of their content and writes the stem to
# pkg/NAME_FILE, where the server reads it (server/src/site_assets.rs).
hash_names() {
  local name_file="$1"; shift
  local hash
  hash=$(for ext in "$@"; do cat "$SITE/pkg/paracrowd.$ext"; done | sha256sum | cut -c1-16)
  for ext in "$@"; do mv "$SITE/pkg/paracrowd.$ext" "$SITE/pkg/paracrowd.$hash.$ext"; done
  echo "paracrowd.$hash" > "$SITE/pkg/$name_file"
}

stage "wasm bundles (app, hydrate: the judging, writing and entry pages, then every page)"
# Only this build's files: old hashed names would pile up.
rm -rf "$SITE/pkg"
mkdir -p "$SITE/pkg"
# The annotator bundles (app/src/bundles.rs): each step of a participant's visit on its own.
for bundle in judge apt entry; do
  wasm_bundle "hydrate,bundle-$bundle"
  hash_names "output-name-$bundle" js wasm
done
wasm_bundle hydrate
cp -r public/. "$SITE/"
cp style/main.css "$SITE/pkg/paracrowd.css"
hash_names output-name js wasm css

stage "server binary"
if [ "${PARACROWD_BUILD_WITH_TESTS:-0}" = 1 ]; then
  cargo test --release --workspace --no-run
else
  # With the load tool in the same build: its dependencies' features then agree with the
  # server's, so building one never rebuilds the other (the load benchmark needs both).
  cargo build --release -p server --bin paracrowd -p paracrowd-load --bin paracrowd-load
fi

stage "precompressed bundle (brotli, gzip)"
"$CARGO_TARGET_DIR/release/paracrowd" precompress "$SITE/pkg"
ls -l "$SITE/pkg"
# Run on its own (not sourced by run.sh or test.sh): say how long it took.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then print_timings; fi
