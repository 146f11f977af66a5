#!/usr/bin/env bash
# Installs everything the npm package needs to build and test, idempotently
# (docs/wasm-toolchain.md explains the toolchain):
#   - the compiler's wasm32-unknown-unknown target: nothing when the cargo on
#     PATH has it; else `rustup target add wasm32-unknown-unknown` (a prebuilt
#     std, seconds); else, where rustup cannot download it, Debian's Rust for
#     wasm (rustc-web, cargo-web, rust-web-src) and lld-22, which build std
#     from source (scripts/wasm-cargo.sh chooses, as npm/build.mjs does)
#   - wasm-bindgen-cli pinned to the wasm-bindgen version of bindings/wasm,
#     compiled without optimisation (`cargo install --debug`: about 1 minute
#     on 2 cores against 3 for a release build; it then takes 0.6 s instead of
#     0.15 s per run, and writes the same bytes; no registry ships the binary)
#   - the npm dev dependencies of npm/ (typescript, fast-check, playwright-core, ajv)
# Browsers for the browser tests are scripts/setup-browsers.sh's.
# Quick when everything is already present.
#
#   bash scripts/setup-wasm.sh              all of the above
#   bash scripts/setup-wasm.sh --downloads  only what is downloaded (the
#                                           target, apt packages, npm ci), not
#                                           the CLI's compilation: make demo
#                                           runs it beside its first cargo build
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The one pin of wasm-bindgen: `wasm-bindgen = "=X.Y.Z"` in bindings/wasm/Cargo.toml.
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen *= *"=\([0-9][^"]*\)".*/\1/p' "$ROOT/bindings/wasm/Cargo.toml")"
if [ -z "$WASM_BINDGEN_VERSION" ]; then
    echo "setup-wasm: bindings/wasm/Cargo.toml must pin wasm-bindgen exactly (wasm-bindgen = \"=X.Y.Z\")" >&2
    exit 1
fi
export PATH="$HOME/.cargo/bin:$PATH"
DOWNLOADS_ONLY=0
[[ "${1:-}" == --downloads ]] && DOWNLOADS_ONLY=1

log() { echo "setup-wasm: $*"; }

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

# shellcheck source=wasm-cargo.sh
source "$ROOT/scripts/wasm-cargo.sh"
need_apt=()
if ! wasm_cargo_native && command -v rustup >/dev/null; then
    log "rustup target add wasm32-unknown-unknown"
    timeout 300 rustup target add wasm32-unknown-unknown || log "rustup could not add the target: Debian's route instead"
fi
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
if [ "${#need_apt[@]}" -gt 0 ]; then
    log "installing apt packages: ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq || log "apt-get update failed"
    $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

if [[ $DOWNLOADS_ONLY -eq 0 ]] && ! wasm-bindgen --version 2>/dev/null | grep -qxF "wasm-bindgen $WASM_BINDGEN_VERSION"; then
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (cargo install --debug, about a minute)"
    # No --locked: one locked dependency of the CLI is missing from the registry.
    cargo install --quiet --debug wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

cd "$ROOT/npm"
if [ ! -d node_modules ] || [ package.json -nt node_modules/.package-lock.json ] \
    || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
    log "installing npm dev dependencies"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
fi
log "ok"
