#!/usr/bin/env bash
# The npm package's tests: install what is missing (scripts/setup-wasm.sh),
# the binding crate's unit tests (host), build the package from source, then
# run every test under npm/test with node's built-in test runner (among them
# the tsc check of the declarations, the vectors, the surface and the
# browser test).
#
# The binding crate is formatted and linted once, with the whole workspace,
# by scripts/test-rust.sh (cargo fmt --all, cargo clippy --workspace).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
# shellcheck source=timing.sh
source "$ROOT/scripts/timing.sh"

bash scripts/setup-wasm.sh

echo "== test-npm: unit tests of bindings/wasm (host)"
timed test "npm: cargo test -p dory-wire-wasm (host)" cargo test -p dory-wire-wasm --quiet

echo "== test-npm: build the package"
timed build "npm: node build.mjs" bash -c 'cd npm && node build.mjs'

echo "== test-npm: node --test"
cd npm
timed test "npm: node --test (npm/test)" node --test test/*.test.mjs
