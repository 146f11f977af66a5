#!/usr/bin/env bash
# `make release-check`: everything `make test` checks about releases
# (scripts/test-release.sh), plus what takes minutes:
#   - `make dist` (sdist; manylinux2014 x86_64 and aarch64 and musllinux
#     x86_64 wheels, auditwheel, check-wheel-contents, twine check);
#   - the manylinux x86_64 wheel from target/dist/out, not the source tree,
#     installed into fresh virtual environments of the oldest and the newest
#     CPython on the machine, each running the Python test suite against it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
step() { printf '== release-check: %s\n' "$*"; }

bash "$ROOT/scripts/test-release.sh"
bash "$ROOT/scripts/dist.sh"

wheel="$(ls "$ROOT"/target/dist/out/*manylinux*x86_64*.whl | head -n 1)"
pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
mapfile -t interpreters < <(
    for p in "$pyenv_root"/versions/3.*/bin/python3 python3; do
        command -v "$p" >/dev/null 2>&1 || continue
        "$p" -c 'import sys; assert sys.version_info >= (3, 9); print(f"{sys.version_info[0]}.{sys.version_info[1]:02d} {sys.executable}")' 2>/dev/null || true
    done | sort -u | sort -n
)
[[ ${#interpreters[@]} -gt 0 ]] || { echo "release-check: no CPython >= 3.9" >&2; exit 1; }
oldest="${interpreters[0]#* }"
newest="${interpreters[${#interpreters[@]}-1]#* }"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
for interp in $(printf '%s\n' "$oldest" "$newest" | sort -u); do
    version="$("$interp" -c 'import sys; print(".".join(map(str, sys.version_info[:3])))')"
    step "wheel test on CPython $version ($(basename "$wheel"))"
    venv="$WORK/venv-$version"
    "$interp" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${wheel}[client]" "pytest>=8" "hypothesis>=6.100" "mypy>=1.11"
    # Run from elsewhere with the tests' own folder only: dory_wire can only
    # come from the installed wheel, never from python/ in this checkout.
    (cd "$WORK" && "$venv/bin/python" - "$ROOT/python" <<'PY'
import pathlib, sys
import dory_wire
src = pathlib.Path(sys.argv[1]).resolve()
where = pathlib.Path(dory_wire.__file__).resolve()
assert src not in where.parents, f"dory_wire was imported from the source tree: {where}"
print(f"   dory_wire {dory_wire.__version__} from {where.parent}")
PY
    )
    (cd "$WORK" && "$venv/bin/python" -m pytest "$ROOT/python/tests" -q -p no:cacheprovider \
        --rootdir "$ROOT/python/tests" -c /dev/null --import-mode=importlib)
done
step "ok"
