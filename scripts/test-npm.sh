#!/usr/bin/env bash
# The npm package's tests: install what is missing (scripts/setup-wasm.sh),
# check and lint the binding crate, build the package from source, then run
# every test under npm/test with node's built-in test runner.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup-wasm.sh

echo "== test-npm: clippy and fmt of bindings/wasm (host)"
cargo fmt -p dory-wire-wasm --check
CARGO_TARGET_DIR="$ROOT/target/h-wasm" cargo clippy -p dory-wire-wasm --all-targets --no-deps -- -D warnings

echo "== test-npm: build the package"
(cd npm && node build.mjs)

echo "== test-npm: node --test"
cd npm
node --test test/*.test.mjs
