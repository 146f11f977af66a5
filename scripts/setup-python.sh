#!/usr/bin/env bash
# Python toolchain for dory-wire, idempotent and quick when already done.
#
# Creates the virtualenv <repo>/.venv, installs a dependency group of
# python/pyproject.toml (`dev`: maturin and httpx, what make demo needs;
# `test`: dev and the test tools, pytest, hypothesis, mypy, ruff,
# jsonschema) and builds the `dory_wire` package into it in develop mode
# (Python sources edited in place are live; the native module is rebuilt
# only when a Rust source changed since the last build).
#
#   bash scripts/setup-python.sh [--group dev|test] [--tools-only]
#
# The native module is built in the workspace's target dir (target/), in the
# dev profile, so it shares the core and every dependency with cargo's own
# builds of the workspace.
#
# Env: PYTHON (interpreter for the venv, default python3),
#      CARGO_TARGET_DIR (default <repo>/target).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PYTHON="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
GROUP=test
TOOLS_ONLY=0
while [[ $# -gt 0 ]]; do
    case "$1" in
    --group) GROUP="$2"; shift 2 ;;
    --tools-only) TOOLS_ONLY=1; shift ;;
    *) echo "usage: $0 [--group dev|test] [--tools-only]" >&2; exit 2 ;;
    esac
done
PYPROJECT="$ROOT/python/pyproject.toml"

# The stamp records which group of which pyproject.toml is installed (the
# test group includes dev: once test is installed, dev is too).
TOOLS_STAMP="$VENV/.dory-wire-tools"
BUILD_STAMP="$VENV/.dory-wire-build"
groups_hash="$(sed -n '/^\[dependency-groups\]/,/^\[project.urls\]/p' "$PYPROJECT" | sha256sum | cut -c1-16)"
installed() {
    [[ -f "$TOOLS_STAMP" ]] || return 1
    grep -qxF "$groups_hash $1" "$TOOLS_STAMP" || { [[ "$1" == dev ]] && grep -qxF "$groups_hash test" "$TOOLS_STAMP"; }
}

log() { printf '== setup-python: %s\n' "$*"; }

if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    log "creating $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    rm -f "$TOOLS_STAMP" "$BUILD_STAMP"
fi

if ! installed "$GROUP"; then
    log "installing the $GROUP group of python/pyproject.toml (pip install --group)"
    # --group needs pip >= 25.1 (a venv of Python 3.11 starts with 23.2).
    if ! "$VENV/bin/python" -m pip install --help 2>/dev/null | grep -q -- '--group'; then
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "pip>=25.1"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --group "$PYPROJECT:$GROUP"
    printf '%s %s\n' "$groups_hash" "$GROUP" >>"$TOOLS_STAMP"
fi
[[ $TOOLS_ONLY -eq 0 ]] || { log "tools ready ($VENV)"; exit 0; }

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
