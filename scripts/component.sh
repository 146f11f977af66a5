#!/usr/bin/env bash
# Builds dory-wire as a WebAssembly component (the WIT package dory:wire in
# bindings/component/wit), installing what it needs first, idempotently:
#   - the compiler of the npm package (scripts/wasm-cargo.sh; docs/wasm-toolchain.md):
#     the cargo on PATH when it has the wasm32-unknown-unknown target, else
#     Debian's Rust for wasm (rustc-web, cargo-web, rust-web-src) and lld-22
#   - wasm-tools and wasmtime-py from PyPI, pinned in
#     tests/component/requirements.txt, into target/component/venv
#
# Steps: build bindings/component for wasm32-unknown-unknown (no WASI), wrap
# the module with `wasm-tools component new` (no adapter: it imports nothing),
# `wasm-tools validate` it, and copy the component and its WIT into
# npm/component/ (shipped as `dory-wire/component`).
#
#   bash scripts/component.sh          build; the artifact's path is printed last
#   bash scripts/component.sh --jco    build, then transpile it for Node with jco
#                                      (tests/component/package.json, npm ci once)
#                                      into target/component/jco; prints the entry
#   bash scripts/component.sh --setup  only install the tools (jco's too)
#   bash scripts/component.sh --bindings
#                                      regenerate bindings/component/src/bindings.rs
#                                      from the WIT after changing it (installs the
#                                      wit-bindgen CLI once, about 10 minutes)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/component"
VENV="$OUT/venv"
ARTIFACT="$OUT/dory-wire.wasm"
WIT="$ROOT/bindings/component/wit"
# The CLI version must equal the wit-bindgen crate of bindings/component.
WIT_BINDGEN_VERSION="0.63.0"
log() { echo "component: $*" >&2; }
# shellcheck source=wasm-cargo.sh
source "$ROOT/scripts/wasm-cargo.sh"

setup() {
    local need_apt=()
    if ! wasm_cargo_native; then
        [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] || need_apt+=(rustc-web cargo-web)
        dpkg -s rust-web-src >/dev/null 2>&1 || need_apt+=(rust-web-src)
        dpkg -s lld-22 >/dev/null 2>&1 || need_apt+=(lld-22)
    fi
    if [ "${#need_apt[@]}" -gt 0 ]; then
        local sudo=""
        if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo="sudo"; fi
        log "installing apt packages: ${need_apt[*]}"
        export DEBIAN_FRONTEND=noninteractive
        $sudo apt-get update -qq
        $sudo apt-get install -y -qq "${need_apt[@]}"
    fi

    local req="$ROOT/tests/component/requirements.txt"
    local stamp="$VENV/.requirements"
    if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$req" "$stamp"; then
        log "installing $(grep -v '^#' "$req" | xargs) into $VENV"
        mkdir -p "$OUT"
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$req"
        cp "$req" "$stamp"
    fi
}

build() {
    wasm_cargo_choose
    log "cargo build -p dory-wire-component (wasm32-unknown-unknown, release) with $WASM_CARGO_ROUTE"
    # The compiler, flags and target dir of the npm build (npm/build.mjs), and
    # one cargo graph with its crate: the two builds then share std, the core
    # and its dependencies (built alone, the component's graph has other host
    # features, so serde and the core would be compiled a second time).
    (cd "$ROOT" && env "${WASM_CARGO_ENV[@]}" \
        RUSTFLAGS="-C target-feature=+simd128" CARGO_TARGET_DIR="$ROOT/target/wasm" \
        "${WASM_CARGO[@]}" --quiet --release --target wasm32-unknown-unknown \
        --target-dir "$ROOT/target/wasm" \
        -p dory-wire-component -p dory-wire-wasm)
    local module="$ROOT/target/wasm/wasm32-unknown-unknown/release/dory_wire_component.wasm"
    local tools="$VENV/bin/wasm-tools"
    # The core module must import nothing but the component's own intrinsics:
    # no WASI, so no adapter and no host function to provide.
    local foreign
    foreign="$("$tools" print "$module" | grep -E '^\s*\(import "' | grep -v '"\[export\]' || true)"
    if [ -n "$foreign" ]; then
        log "the module imports more than its resource intrinsics:"
        echo "$foreign" >&2
        exit 1
    fi
    mkdir -p "$OUT"
    # Function names are for debugging only (about 32 KB): not shipped.
    "$tools" strip --delete name --delete producers "$module" -o "$OUT/core.wasm"
    "$tools" component new "$OUT/core.wasm" -o "$ARTIFACT.tmp"
    "$tools" validate "$ARTIFACT.tmp"
    # The exports come from the checked-in bindings, not from wit/: a WIT
    # change without `--bindings` must not ship.
    if ! "$tools" component targets "$WIT" --world dory-wire "$ARTIFACT.tmp"; then
        log "the component does not match bindings/component/wit: run bash scripts/component.sh --bindings"
        exit 1
    fi
    mv "$ARTIFACT.tmp" "$ARTIFACT"

    local ship="$ROOT/npm/component"
    rm -rf "$ship/wit"
    mkdir -p "$ship/wit"
    cp "$ARTIFACT" "$ship/dory-wire.wasm"
    cp "$ROOT"/bindings/component/wit/*.wit "$ship/wit/"
    log "$(stat -c %s "$ARTIFACT") bytes, valid; copied with its WIT to npm/component/"
    echo "$ARTIFACT"
}

jco_setup() {
    local tests="$ROOT/tests/component"
    if [ ! -d "$tests/node_modules" ] || [ "$tests/package-lock.json" -nt "$tests/node_modules/.package-lock.json" ]; then
        log "npm ci in tests/component (jco)"
        (cd "$tests" && npm ci --no-audit --no-fund --loglevel=error) >&2
    fi
}

jco() {
    jco_setup
    node "$ROOT/tests/component/transpile.mjs" "$ARTIFACT" "$OUT/jco" >&2
    echo "$OUT/jco/dory-wire.js"
}

bindings() {
    local cli="$OUT/tools/bin/wit-bindgen"
    if ! "$cli" --version 2>/dev/null | grep -qF "$WIT_BINDGEN_VERSION"; then
        log "installing wit-bindgen-cli $WIT_BINDGEN_VERSION into $OUT/tools (about 10 minutes)"
        cargo install --quiet wit-bindgen-cli --version "$WIT_BINDGEN_VERSION" --root "$OUT/tools" --target-dir "$OUT/tools-build"
    fi
    local gen="$OUT/bindings"
    rm -rf "$gen"
    "$cli" rust "$WIT" --world dory-wire --format --default-bindings-module crate::bindings --out-dir "$gen" >&2
    cp "$gen/dory_wire.rs" "$ROOT/bindings/component/src/bindings.rs"
    log "regenerated bindings/component/src/bindings.rs"
}

setup
case "${1:-}" in
    --bindings) bindings ;;
    --setup) jco_setup ;;
    --jco) build >/dev/null && jco ;;
    "") build ;;
    *) echo "usage: $0 [--setup | --jco | --bindings]" >&2; exit 2 ;;
esac
