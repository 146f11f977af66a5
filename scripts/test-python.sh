#!/usr/bin/env bash
# The Python suite: setup (idempotent), ruff, the stub check (mypy.stubtest),
# mypy, pytest over python/tests (every tests/vectors/**/*.json), and a wheel
# test (maturin build --release, install into a fresh venv, decode from there).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/python}"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

step() { printf '== test-python: %s\n' "$*"; }

bash "$ROOT/scripts/setup-python.sh"
cd "$ROOT/python"

step "ruff"
# The package and its tests (python/examples and python/bench have owners of their own).
"$VENV/bin/ruff" check dory_wire tests
"$VENV/bin/ruff" format --check dory_wire tests

step "stub check (mypy.stubtest)"
"$PY" -m mypy.stubtest dory_wire --allowlist stubtest-allowlist.txt

step "mypy --strict"
"$PY" -m mypy

step "pytest"
# Exit code 5 (no tests collected) fails like any other non-zero status.
"$PY" -m pytest tests -q -p no:cacheprovider

step "wheel test"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$VENV/bin/maturin" build --release --quiet --out "$WORK/dist"
"${PYTHON:-python3}" -m venv --without-pip "$WORK/venv"
"$PY" -m pip --python "$WORK/venv/bin/python" install --quiet --disable-pip-version-check \
    --no-index --no-deps "$WORK"/dist/*.whl
# Isolated mode, run from elsewhere: only the installed wheel can be imported.
(cd "$WORK" && "$WORK/venv/bin/python" -I "$ROOT/python/tests/wheel_check.py" "$ROOT/tests/vectors")

step "all Python checks passed"
