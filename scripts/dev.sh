#!/usr/bin/env bash
# Stridescope's developer entry point. Two commands for a fresh machine:
#   ./dev serve   build the web app and serve it with the default scenario
#   ./dev test    run every test (format, lints, unit, property, oracle, web build, browser)
# Both install what they need first (idempotently): see `ensure_tools`.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
ROOT=$(pwd)
ORACLE=${STRIDESCOPE_ORACLE:-$ROOT/../shared/oracle}
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/stridescope-xdg}
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
WASM_SPLIT_VERSION=0.2.4

say() { printf '\n== %s\n' "$*"; }

apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  say "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

ensure_tools() {
  local need_browser=${1:-no}
  if [ "$need_browser" = yes ]; then
    apt_install chromium chromium-driver mesa-vulkan-drivers fonts-wqy-microhei
  fi
  rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$' \
    || { say "adding the wasm32 target"; rustup target add wasm32-unknown-unknown; }
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt
  if ! trunk --version 2>/dev/null | grep -q "trunk $TRUNK_VERSION"; then
    say "installing trunk $TRUNK_VERSION (about 8 minutes on 2 cores)"
    cargo install --locked "trunk@$TRUNK_VERSION"
  fi
  if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
    say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    cargo install "wasm-bindgen-cli@$WASM_BINDGEN_VERSION"
  fi
  if ! cargo install --list | grep -q "^wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
    say "installing wasm-split-cli $WASM_SPLIT_VERSION (splits the web build's wasm; about 1 minute)"
    cargo install "wasm_split_cli_support@$WASM_SPLIT_VERSION" --features build-binary
  fi
  if [ ! -x node_modules/.bin/wasm-opt ] || ! node_modules/.bin/wasm-opt --version | grep -q "version 132" \
     || [ ! -d node_modules/@tensorflow/tfjs-backend-webgpu ] \
     || { [ "$need_browser" = yes ] && { [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; }; }; then
    say "installing npm tools (binaryen 132, playwright-core, axe-core, TensorFlow.js for the GPU bench page)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

cmd_serve() {
  ensure_tools no
  say "serving Stridescope on http://127.0.0.1:8080"
  exec trunk serve --release "$@"
}

cmd_test() {
  ensure_tools yes
  say "format"
  cargo fmt --all -- --check
  say "lints (native and wasm32)"
  cargo clippy --all-targets -- -D warnings
  cargo clippy --target wasm32-unknown-unknown --lib --bins -- -D warnings
  cargo clippy --target wasm32-unknown-unknown --lib --bins --features split -- -D warnings
  say "unit, property and robustness tests"
  cargo test --all-targets
  cargo run --release -- lesson check www/lessons
  say "components in the browser (wasm-bindgen-test through ChromeDriver)"
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner CHROMEDRIVER=/usr/bin/chromedriver \
    cargo test --target wasm32-unknown-unknown --test web
  say "benchmarks compile"
  cargo bench --no-run
  say "web app build"
  trunk build --release
  say "wasm size: the page's first download (the main module) stays within 600 KB gzipped"
  python3 tools/wasm-size.py --budget 600000 dist
  say "browser end-to-end tests"
  node tests/e2e/run.mjs
  say "sharing and embedding in the browser (and a --public-url build served from a subpath)"
  trunk build --release --public-url /some/sub/path/ --dist target/e2e-subpath-dist
  STRIDESCOPE_SUBPATH_DIST=target/e2e-subpath-dist node tests/e2e/share.mjs
  say "lessons in the browser (keyboard only, both languages, embeds) and axe-core"
  node tests/e2e/lessons.mjs
  say "images in the browser (samples, the picker, drag-and-drop)"
  node tests/e2e/images.mjs
  say "large tensors drawn on canvases in the browser (without WebGPU, presenting WebGPU frames, no canvas context)"
  node tests/e2e/large.mjs
  say "WebGPU frames presented on the canvas: pixels against the canvas-2D painter, a refused configure, a lost device"
  node tests/e2e/large_present.mjs
  node tests/e2e/memory.mjs
  node tests/e2e/scale.mjs
  node tests/e2e/cuda.mjs
  say "PyTorch oracle"
  cargo build --release
  python3 "$ORACLE/check.py" --trace-cmd "$ROOT/target/release/stridescope trace {}" "$ORACLE/cases.jsonl"
}

case "${1:-}" in
  serve) shift; cmd_serve "$@" ;;
  test) shift; cmd_test "$@" ;;
  install) ensure_tools yes ;;
  *) echo "usage: ./dev serve | ./dev test | ./dev install" >&2; exit 2 ;;
esac
