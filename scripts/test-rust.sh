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
echo "== every fuzz target's checks, replayed as tests (crates/dory-wire/fuzz/tests/replay.rs; no nightly needed)"
# The fuzz crate is its own workspace. Release with debug assertions and
# overflow checks, as cargo-fuzz builds its targets (-O -a).
CARGO_TARGET_DIR="$PWD/target/fuzz-replay" CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true \
    CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true \
    cargo test --release --quiet --manifest-path crates/dory-wire/fuzz/Cargo.toml --lib --test replay
echo "== cargo test -p dory-wire-client --all-features (the blocking client)"
cargo test -p dory-wire-client --all-features --quiet
echo "== the README's Rust program, as written, against the reference server"
bash scripts/rust-readme.sh
echo "== cargo doc -p dory-wire -p dory-wire-client (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc -p dory-wire -p dory-wire-client --all-features --no-deps --quiet
echo "== cargo package -p dory-wire -p dory-wire-client (the client verified against the packaged core)"
# Cargo verifies the client against the packaged core through a local
# registry under target/package. A registry crate is taken to be immutable:
# cargo extracts it into $CARGO_HOME/registry/src/-<hash of the path>/ once
# and never rebuilds its artifacts, so a second run after the core changed
# would build the client against the first run's core. Drop both first:
# the extracted copies (only local registries' directories, whose names
# start with "-") and the artifacts built from them.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
for stale in "$cargo_home"/registry/src/-*/dory-wire-[0-9]* "$cargo_home"/registry/src/-*/dory-wire-client-[0-9]*; do
    [[ -d "$stale" ]] && rm -rf "$stale"
done
target="${CARGO_TARGET_DIR:-$PWD/target}/debug"
for dep in "$target"/deps/dory_wire-*.d "$target"/deps/dory_wire_client-*.d; do
    [[ -f "$dep" ]] && grep -q '/registry/src/-' "$dep" || continue
    hash="${dep##*-}"
    hash="${hash%.d}"
    rm -rf "$target"/deps/*-"$hash".* "$target"/.fingerprint/dory-wire*-"$hash" "$target"/build/dory-wire*-"$hash"
done
cargo package -p dory-wire -p dory-wire-client --allow-dirty --quiet
