# Sourced by scripts/test-e2e.sh and scripts/demo.sh: builds what the
# end-to-end programs need through scripts/build.sh, each part quick when
# already done:
#   - the workspace's binaries and examples (the reference server among them:
#     build.sh native, debug, default target dir)
#   - the Python package into .venv (build.sh python)
#   - the npm package (build.sh npm) when npm/dist is missing or older than
#     its sources
# Exports DORY_REFSERVER_BIN (unless already set) and E2E_PY (the venv's python).

e2e_log() { printf '== %s: %s\n' "${E2E_NAME:-e2e}" "$*"; }

e2e_build() {
    local root="$1"
    (cd "$root" && bash scripts/build.sh native)
    export DORY_REFSERVER_BIN="${DORY_REFSERVER_BIN:-${CARGO_TARGET_DIR:-$root/target}/debug/dory-refserver}"
    [[ -x "$DORY_REFSERVER_BIN" ]] || { echo "dory-refserver not found at $DORY_REFSERVER_BIN" >&2; return 1; }
    bash "$root/scripts/build.sh" python --group test
    export E2E_PY="$root/.venv/bin/python"
    bash "$root/scripts/build.sh" npm
}
