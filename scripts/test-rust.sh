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
echo "== cargo clippy -p dory-wire-client --all-features (the blocking client)"
cargo clippy -p dory-wire-client --all-targets --all-features -- -D warnings
echo "== cargo test (crates/*: dory-wire, dory-wire-client, dory-refserver, dory-bench)"
cargo test
echo "== cargo test -p dory-wire-client --all-features (the blocking client)"
cargo test -p dory-wire-client --all-features --quiet
echo "== the README's Rust program, as written, against the reference server"
bash scripts/rust-readme.sh
echo "== cargo doc -p dory-wire -p dory-wire-client (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc -p dory-wire -p dory-wire-client --all-features --no-deps --quiet
echo "== cargo package -p dory-wire -p dory-wire-client (the client verified against the packaged core)"
cargo package -p dory-wire -p dory-wire-client --allow-dirty --quiet
