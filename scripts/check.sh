#!/usr/bin/env bash
# `make check`: the quick loop for an edit-test cycle (about a minute on a
# warm tree): rustfmt, clippy of the whole workspace with warnings denied,
# the shared vectors' format, and every test of the core crate (its vectors,
# properties and memory bounds). `make test` stays the full proof.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
# shellcheck source=timing.sh
source "$ROOT/scripts/timing.sh"
# shellcheck source=pyo3-env.sh
source "$ROOT/scripts/pyo3-env.sh"
timing_begin check

timed test "cargo fmt --check" cargo fmt --all --check
timed build "cargo clippy --workspace --all-targets -D warnings" \
    cargo clippy --quiet --workspace --all-targets -- -D warnings
timed test "vectors: format and coverage" python3 tests/vectors/check_vectors.py
timed test "cargo test -p dory-wire (the core)" cargo test --quiet -p dory-wire
timing_summary "make check"
