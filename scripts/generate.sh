#!/usr/bin/env bash
# Writes every file generated from the core's record tables
# (crates/dory-wire/src/records.rs): the Python value classes
# (bindings/python/src/records.rs), the Component's conversions
# (bindings/component/src/records.rs), and the marked regions of the .pyi,
# the .d.ts, the WIT and the wasm event layout (Rust and JavaScript halves).
# `make test` runs the same test without DORY_GENERATE and fails when one is
# stale. After a WIT change it also regenerates the Component's bindings.rs
# (wit-bindgen), which the Component's build checks against the WIT.
set -euo pipefail
cd "$(dirname "$0")/.."
before=$(cat bindings/component/wit/*.wit | sha256sum)
DORY_GENERATE=1 cargo test --quiet -p dory-wire --test generated -- --nocapture
if [[ "$(cat bindings/component/wit/*.wit | sha256sum)" != "$before" || "${1:-}" == "--bindings" ]]; then
    bash scripts/component.sh --bindings
fi
