#!/usr/bin/env bash
# Rust checks: formatting, clippy (warnings are errors) on every crate
# including the bindings, every test of the crates under crates/ (unit,
# integration, doc tests), the docs, and that the core crate packages.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=timing.sh
source "$PWD/scripts/timing.sh"
# shellcheck source=pyo3-env.sh
source "$PWD/scripts/pyo3-env.sh"
# One feature set for every build and test of the workspace's default
# members: the blocking client's code is compiled in, so that its tests run
# with the rest (a second `cargo test -p dory-wire-client --all-features`
# would compile and run the client's tests twice).
FEATURES=(--features dory-wire-client/blocking)

timed test "rust: cargo fmt --check" cargo fmt --all --check
timed build "rust: clippy --workspace --all-targets" \
    cargo clippy --quiet --workspace --all-targets -- -D warnings
# The client without the blocking feature is linted above; with it, here
# (only the client is checked again).
timed build "rust: clippy -p dory-wire-client --all-features" \
    cargo clippy --quiet -p dory-wire-client --all-targets --all-features -- -D warnings
# The exact tokenizers (Cargo feature `tokens`, off by default): the core
# linted and its token tests and preview vectors run with them, so the
# o200k_base and cl100k_base vectors are checked, not only refused (only the
# unit tests of the token modules: the others run below, without the feature).
timed build "rust: clippy -p dory-wire --features tokens" \
    cargo clippy --quiet -p dory-wire --all-targets --features tokens -- -D warnings
timed test "rust: dory-wire with the exact tokenizers (--features tokens)" \
    bash -c 'cargo test --quiet -p dory-wire --features tokens --lib -- tokens:: preview::fit &&
        cargo test --quiet -p dory-wire --features tokens --test token_limits --test preview_vectors'
timed build "rust: cargo test --no-run (crates/*)" \
    cargo test --quiet --no-run "${FEATURES[@]}"
timed test "rust: cargo test (crates/*)" \
    cargo test --quiet "${FEATURES[@]}"
# The fuzz crate is its own workspace; its replay builds in this target dir,
# in the dev profile (debug assertions and overflow checks, as cargo-fuzz's
# -a), without libFuzzer (--no-default-features: the targets are not built),
# so it shares the core and every dependency with the builds above.
timed build "rust: fuzz replay, build (dev profile, no libFuzzer)" \
    cargo test --quiet --no-run --manifest-path crates/dory-wire/fuzz/Cargo.toml \
    --target-dir "${CARGO_TARGET_DIR:-$PWD/target}" --no-default-features --lib --test replay
timed test "rust: fuzz replay (crates/dory-wire/fuzz/tests/replay.rs)" \
    cargo test --quiet --manifest-path crates/dory-wire/fuzz/Cargo.toml \
    --target-dir "${CARGO_TARGET_DIR:-$PWD/target}" --no-default-features --lib --test replay
timed test "rust: the README's program (scripts/rust-readme.sh)" \
    bash scripts/rust-readme.sh
# The same flags as scripts/docs.sh and scripts/test-release.sh, in the same
# target dir: the API reference is documented once.
timed build "rust: cargo doc -p dory-wire -p dory-wire-client" \
    env RUSTDOCFLAGS="-D warnings -D rustdoc::broken_intra_doc_links" \
    cargo doc --quiet --no-deps -p dory-wire -p dory-wire-client "${FEATURES[@]}"
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
timed build "rust: cargo package -p dory-wire -p dory-wire-client" \
    cargo package -p dory-wire -p dory-wire-client --allow-dirty --quiet
