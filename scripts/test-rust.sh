#!/usr/bin/env bash
# Rust checks: formatting, clippy (warnings are errors) on every crate
# including the bindings, every test of the crates under crates/ (unit,
# integration, doc tests), the docs, and that the core crate packages.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy --workspace --all-targets -D warnings"
cargo clippy --workspace --all-targets -- -D warnings
echo "== cargo test (crates/*: dory-wire, dory-refserver, dory-bench)"
cargo test
echo "== cargo doc -p dory-wire (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc -p dory-wire --no-deps --quiet
echo "== cargo package -p dory-wire"
cargo package -p dory-wire --allow-dirty --quiet
