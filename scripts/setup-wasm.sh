#!/usr/bin/env bash
# Installs everything the npm package needs to build and test, idempotently
# (docs/wasm-toolchain.md explains the toolchain):
#   - nothing for the compiler when the cargo on PATH has the
#     wasm32-unknown-unknown target (`rustup target add wasm32-unknown-unknown`);
#     else Debian's Rust for wasm (rustc-web, cargo-web, rust-web-src) and lld-22
#     (scripts/wasm-cargo.sh chooses, as npm/build.mjs does)
#   - Debian's chromium (for the real-browser test), where apt-get is
#   - wasm-bindgen-cli pinned to the wasm-bindgen version of bindings/wasm
#   - the npm dev dependencies of npm/ (typescript, fast-check, playwright-core, ajv)
# Quick when everything is already present.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The one pin of wasm-bindgen: `wasm-bindgen = "=X.Y.Z"` in bindings/wasm/Cargo.toml.
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen *= *"=\([0-9][^"]*\)".*/\1/p' "$ROOT/bindings/wasm/Cargo.toml")"
if [ -z "$WASM_BINDGEN_VERSION" ]; then
    echo "setup-wasm: bindings/wasm/Cargo.toml must pin wasm-bindgen exactly (wasm-bindgen = \"=X.Y.Z\")" >&2
    exit 1
fi
export PATH="$HOME/.cargo/bin:$PATH"

log() { echo "setup-wasm: $*"; }

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

# shellcheck source=wasm-cargo.sh
source "$ROOT/scripts/wasm-cargo.sh"
need_apt=()
if wasm_cargo_native; then
    log "wasm32-unknown-unknown: the cargo on PATH has the target; no Debian toolchain needed"
else
    [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] || need_apt+=(rustc-web cargo-web)
    dpkg -s rust-web-src >/dev/null 2>&1 || need_apt+=(rust-web-src)
    dpkg -s lld-22 >/dev/null 2>&1 || need_apt+=(lld-22)
    if [ "${#need_apt[@]}" -gt 0 ] && ! command -v apt-get >/dev/null; then
        echo "setup-wasm: no wasm32-unknown-unknown target for the cargo on PATH, and no apt-get for Debian's" \
            "(${need_apt[*]}): run rustup target add wasm32-unknown-unknown" >&2
        exit 1
    fi
fi
if [ "${DORY_SKIP_CHROMIUM:-0}" != 1 ] && [ ! -x /usr/bin/chromium ]; then
    if command -v apt-get >/dev/null; then
        need_apt+=(chromium)
    else
        log "no apt-get: Chromium is not installed (the browser tests skip, saying so)"
    fi
fi

if [ "${#need_apt[@]}" -gt 0 ]; then
    log "installing apt packages: ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # A failure here matters only for what is not optional (the install below says so).
    $SUDO apt-get update -qq || log "apt-get update failed"
    if ! $SUDO apt-get install -y -qq "${need_apt[@]}"; then
        # chromium is optional (the browser test skips with a reason); the rest is not.
        rest=()
        for p in "${need_apt[@]}"; do [ "$p" = chromium ] || rest+=("$p"); done
        log "apt install failed; retrying without chromium"
        if [ "${#rest[@]}" -gt 0 ]; then $SUDO apt-get install -y -qq "${rest[@]}"; fi
    fi
fi

if ! wasm-bindgen --version 2>/dev/null | grep -qxF "wasm-bindgen $WASM_BINDGEN_VERSION"; then
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 5 minutes)"
    # No --locked: one locked dependency of the CLI is missing from the registry.
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

cd "$ROOT/npm"
if [ ! -d node_modules ] || [ package.json -nt node_modules/.package-lock.json ] \
    || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
    log "installing npm dev dependencies"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi
log "ok"
