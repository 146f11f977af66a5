# Sourced by scripts/test-e2e.sh and scripts/demo.sh: builds what the
# end-to-end programs need, each step quick when already done.
#   - the reference server (cargo build -p dory-refserver, debug, default target dir)
#   - the Python package into .venv (scripts/setup-python.sh)
#   - the npm package (scripts/setup-wasm.sh + node build.mjs) when npm/dist is
#     missing or older than its sources
# Exports DORY_REFSERVER_BIN (unless already set) and E2E_PY (the venv's python).

e2e_log() { printf '== %s: %s\n' "${E2E_NAME:-e2e}" "$*"; }

e2e_build() {
    local root="$1"
    if [[ -z "${DORY_REFSERVER_BIN:-}" ]]; then
        e2e_log "building dory-refserver"
        (cd "$root" && cargo build --quiet -p dory-refserver)
        export DORY_REFSERVER_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/dory-refserver"
    fi
    [[ -x "$DORY_REFSERVER_BIN" ]] || { echo "dory-refserver not found at $DORY_REFSERVER_BIN" >&2; return 1; }

    e2e_log "Python package (scripts/setup-python.sh)"
    (unset CARGO_TARGET_DIR; bash "$root/scripts/setup-python.sh") | sed 's/^/   /'
    export E2E_PY="$root/.venv/bin/python"

    local built="$root/npm/dist/node/index.mjs"
    if [[ ! -f "$built" ]] || [[ -n "$(find "$root/bindings/wasm" "$root/crates/dory-wire/src" "$root/npm/src" \
            "$root/npm/build.mjs" "$root/npm/package.json" "$root/Cargo.lock" -newer "$built" -print -quit 2>/dev/null)" ]]; then
        e2e_log "npm package (scripts/setup-wasm.sh, node build.mjs)"
        (unset CARGO_TARGET_DIR; bash "$root/scripts/setup-wasm.sh" && cd "$root/npm" && node build.mjs) | sed 's/^/   /'
    else
        e2e_log "npm package is up to date ($built)"
    fi
}
