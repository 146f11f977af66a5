#!/usr/bin/env bash
# What `make demo` and `make test` compile, each part once and quick when
# up to date. Every host build of the workspace goes through one cargo
# command line with one feature set (below), in one target dir (target/),
# in the dev profile: cargo then compiles each crate once, and a second
# command line selecting other packages cannot make it compile tokio, hyper
# or the core again with other features.
#
#   bash scripts/build.sh native      the binaries and examples of crates/*
#                                     (the reference server, the clients'
#                                     examples, the core's), debug
#   bash scripts/build.sh python [--group dev|test]
#                                     .venv with that dependency group of
#                                     python/pyproject.toml, and dory_wire
#                                     built into it (scripts/setup-python.sh)
#   bash scripts/build.sh npm         the npm package (npm/dist): the wasm
#                                     toolchain and wasm-bindgen CLI
#                                     (scripts/setup-wasm.sh), then
#                                     node build.mjs, when a source is newer
#   bash scripts/build.sh component   the WebAssembly component (scripts/component.sh)
#
# Each part is timed (scripts/timing.sh) and recorded in the record of the
# make target that runs it (target/timings/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
cd "$ROOT"
# shellcheck source=timing.sh
source "$ROOT/scripts/timing.sh"

# The one host build: every default member (crates/*), the blocking client
# compiled in. scripts/test-rust.sh's `cargo test` uses the same features, so
# its examples and binaries are these.
NATIVE=(--bins --examples --features dory-wire-client/blocking)

npm_stale() {
    local built="$ROOT/npm/dist/node/index.mjs"
    [[ ! -f "$built" ]] || [[ -n "$(find "$ROOT/bindings/wasm" "$ROOT/crates/dory-wire/src" "$ROOT/npm/src" \
        "$ROOT/npm/build.mjs" "$ROOT/npm/package.json" "$ROOT/Cargo.lock" -newer "$built" -print -quit 2>/dev/null)" ]]
}

case "${1:-}" in
native)
    shift
    timed build "native: cargo build ${NATIVE[*]} (crates/*)" cargo build --quiet "${NATIVE[@]}" "$@"
    ;;
python)
    shift
    timed build "python: .venv and maturin develop (scripts/setup-python.sh $*)" \
        bash "$ROOT/scripts/setup-python.sh" "$@"
    ;;
npm)
    if npm_stale; then
        timed setup "npm: wasm target, wasm-bindgen CLI, npm ci (scripts/setup-wasm.sh)" \
            env -u CARGO_TARGET_DIR bash "$ROOT/scripts/setup-wasm.sh"
        timed build "npm: wasm, wasm-bindgen, esbuild (npm/build.mjs)" \
            env -u CARGO_TARGET_DIR bash -c 'cd npm && node build.mjs'
    else
        echo "build: the npm package is up to date (npm/dist)"
    fi
    ;;
component)
    timed build "component: build, wrap, validate (scripts/component.sh)" \
        bash -c 'bash scripts/component.sh >/dev/null'
    ;;
*)
    echo "usage: $0 native|python [--group dev|test]|npm|component" >&2
    exit 2
    ;;
esac
