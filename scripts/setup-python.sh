#!/usr/bin/env bash
# Python toolchain for dory-wire, idempotent and quick when already done.
#
# Creates the virtualenv <repo>/.venv, installs the tools (maturin, pytest,
# hypothesis, mypy, ruff, httpx; jsonschema for the JSON Schema tests) and
# builds the `dory_wire` package into it in develop mode (Python sources
# edited in place are live; the native module is rebuilt only when a Rust
# source changed since the last build).
#
# Env: PYTHON (interpreter for the venv, default python3),
#      CARGO_TARGET_DIR (default <repo>/target/python).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PYTHON="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/python}"

# Bump the list to reinstall; the stamp records what is installed.
TOOLS=("maturin>=1.9,<2" "pytest>=8" "hypothesis>=6.100" "mypy>=1.11" "ruff>=0.6" "httpx>=0.27" "jsonschema>=4.18")
TOOLS_STAMP="$VENV/.dory-wire-tools"
BUILD_STAMP="$VENV/.dory-wire-build"

log() { printf '== setup-python: %s\n' "$*"; }

if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    log "creating $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    rm -f "$TOOLS_STAMP" "$BUILD_STAMP"
fi

if [[ ! -f "$TOOLS_STAMP" ]] || [[ "$(cat "$TOOLS_STAMP")" != "${TOOLS[*]}" ]]; then
    log "installing ${TOOLS[*]}"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${TOOLS[@]}"
    printf '%s' "${TOOLS[*]}" > "$TOOLS_STAMP"
fi

# Rebuild the native module when any input changed since the last build (or
# when the built module is missing, e.g. after `git clean`).
needs_build() {
    [[ -f "$BUILD_STAMP" ]] || return 0
    compgen -G "$ROOT/python/dory_wire/_core*.so" > /dev/null || return 0
    [[ -n "$(find "$ROOT/bindings/python/src" "$ROOT/bindings/python/Cargo.toml" \
        "$ROOT/crates/dory-wire/src" "$ROOT/crates/dory-wire/Cargo.toml" \
        "$ROOT/python/pyproject.toml" "$ROOT/Cargo.toml" "$ROOT/Cargo.lock" \
        -newer "$BUILD_STAMP" -print -quit 2>/dev/null)" ]]
}

if needs_build; then
    log "building dory_wire (maturin develop)"
    touch "$BUILD_STAMP.new"
    (cd "$ROOT/python" && VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" develop --quiet)
    mv "$BUILD_STAMP.new" "$BUILD_STAMP"
fi

"$VENV/bin/python" -c 'import dory_wire' || {
    rm -f "$BUILD_STAMP"
    echo "setup-python: dory_wire does not import; run again to rebuild" >&2
    exit 1
}
log "ready ($VENV)"
