#!/usr/bin/env bash
# Builds the site without cargo-leptos: the hydrate wasm (wasm-bindgen + binaryen's wasm-opt),
# public files and CSS into target/site, then the server binary, all in release mode.
# Usage: scripts/build.sh
#   PARACROWD_BUILD_WITH_TESTS=1: the server binary comes from building every test as well
#   (`cargo test --release --workspace --no-run`, what scripts/test.sh does): one build with the
#   tests' features, instead of a second build of most dependencies with other features.
source "$(dirname "$0")/lib.sh"

stage "wasm bundle (app, hydrate)"
cargo build -p app --lib --target wasm32-unknown-unknown --no-default-features --features hydrate \
  --profile wasm-release
# Only this build's files: old hashed names would pile up.
rm -rf "$SITE/pkg"
mkdir -p "$SITE/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$SITE/pkg" --out-name paracrowd \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/app.wasm"
# HydrationScripts loads pkg/NAME.wasm. Debian's binaryen breaks hydration: use npm's (see README).
"$ROOT/end2end/node_modules/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types \
  "$SITE/pkg/paracrowd_bg.wasm" -o "$SITE/pkg/paracrowd.wasm"
rm -f "$SITE/pkg/paracrowd_bg.wasm"
cp -r public/. "$SITE/"
cp style/main.css "$SITE/pkg/paracrowd.css"
# Content-hashed names (paracrowd.<hash>.js/.wasm/.css), so browsers may keep them for a year:
# the server reads the stem from pkg/output-name (server/src/site_assets.rs).
HASH=$(cat "$SITE/pkg/paracrowd.js" "$SITE/pkg/paracrowd.wasm" "$SITE/pkg/paracrowd.css" \
  | sha256sum | cut -c1-16)
for ext in js wasm css; do mv "$SITE/pkg/paracrowd.$ext" "$SITE/pkg/paracrowd.$HASH.$ext"; done
echo "paracrowd.$HASH" > "$SITE/pkg/output-name"

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
