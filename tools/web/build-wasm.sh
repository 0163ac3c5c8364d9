#!/usr/bin/env bash
# Builds the web app's wasm into OUT (Trunk's post_build hook runs it, through post_build.mjs,
# with TRUNK_STAGING_DIR and TRUNK_PROFILE set), in two modules:
#   stridescope.js + stridescope_bg.wasm   the app shell (the UI, the engines, the renderer):
#                                          what the page loads first;
#   __wasm_split.js + split_core.wasm      the evaluator, lessons and Markdown, fetched when
#                                          the first script runs or a lesson opens
#                                          (src/shells/web/core_link.rs).
# cargo build --features split (linked with --emit-relocs, .cargo/config.toml)
#   -> wasm-split-cli (splits at `#[wasm_split]`) -> wasm-bindgen (the main module)
#   -> wasm-opt -Oz (each module).
#     tools/web/build-wasm.sh [OUT]
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/../.."
out="${1:-${TRUNK_STAGING_DIR:?usage: tools/web/build-wasm.sh OUT}}"
profile=web
[ "${TRUNK_PROFILE:-release}" = debug ] && profile=dev
dir=$profile
[ "$profile" = dev ] && dir=debug
wasm_opt=node_modules/.bin/wasm-opt
[ -x "$wasm_opt" ] || wasm_opt=wasm-opt

cargo build --profile "$profile" --target wasm32-unknown-unknown --bin stridescope --features split
linked="target/wasm32-unknown-unknown/$dir/stridescope.wasm"
split="target/wasm-split"
rm -rf "$split"
wasm-split-cli "$linked" "$split" --out-name stridescope
wasm-bindgen "$split/stridescope.wasm" --out-dir "$out" --out-name stridescope --target web \
  --no-typescript --keep-lld-exports
cp "$split"/split_*.wasm "$split/__wasm_split.js" "$out/"
if [ "$profile" = web ]; then
  for wasm in "$out/stridescope_bg.wasm" "$out"/split_*.wasm; do
    "$wasm_opt" -Oz --converge --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd \
      "$wasm" -o "$wasm"
  done
fi
for wasm in "$out/stridescope_bg.wasm" "$out"/split_*.wasm; do
  echo "build-wasm.sh: $(basename "$wasm"): $(stat -c %s "$wasm") bytes, $(gzip -9c "$wasm" | wc -c) gzipped"
done
