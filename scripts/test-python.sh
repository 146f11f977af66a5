#!/usr/bin/env bash
# The Python suite: setup (idempotent), ruff, the stub check (mypy.stubtest),
# mypy, pytest over python/tests (every tests/vectors/**/*.json), and a wheel
# test (maturin build, install into a fresh venv, decode from there). The
# wheel is built in the dev profile, from the same compiled crates as the
# package in .venv (maturin develop): what is tested here is the packaging;
# the release wheels, cross-built, are make release-check's.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

step() { printf '== test-python: %s\n' "$*"; }
# shellcheck source=timing.sh
source "$ROOT/scripts/timing.sh"

bash "$ROOT/scripts/setup-python.sh"
cd "$ROOT/python"

step "ruff"
# The package and its tests (python/examples and python/bench have owners of their own).
"$VENV/bin/ruff" check dory_wire tests
"$VENV/bin/ruff" format --check dory_wire tests

step "stub check (mypy.stubtest)"
timed test "python: stubtest" "$PY" -m mypy.stubtest dory_wire --allowlist stubtest-allowlist.txt

step "mypy --strict"
timed test "python: mypy --strict" "$PY" -m mypy

step "pytest"
# Exit code 5 (no tests collected) fails like any other non-zero status.
timed test "python: pytest (python/tests)" "$PY" -m pytest tests -q -p no:cacheprovider

step "wheel test"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
timed build "python: maturin build (the wheel, dev profile)" "$VENV/bin/maturin" build --quiet --out "$WORK/dist"
# The wheel is abi3 for CPython >= 3.9: also try the oldest and the newest
# interpreters when the machine has them (pyenv installs; shims would refuse
# versions that are not selected). Each candidate must actually run.
checked=0
shopt -s nullglob
extra=("${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.9*/bin/python3 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3)
shopt -u nullglob
for interp in "${PYTHON:-python3}" "${extra[@]}"; do
    "$interp" -c 'import sys; assert sys.version_info >= (3, 9)' 2>/dev/null || continue
    venv="$WORK/venv-$checked"
    # The venv's own bundled pip (offline): a current pip may not support 3.9.
    "$interp" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-index --no-deps "$WORK"/dist/*.whl
    # Isolated mode, run from elsewhere: only the installed wheel can be imported.
    (cd "$WORK" && "$venv/bin/python" -I "$ROOT/python/tests/wheel_check.py" "$ROOT/tests/vectors")
    checked=$((checked + 1))
done
[[ $checked -gt 0 ]] || { echo "test-python: no interpreter for the wheel test" >&2; exit 1; }

step "all Python checks passed"
