#!/usr/bin/env bash
# How long the README's two commands take on a fresh machine, measured here:
# removes what `make demo` and `make test` install or cache (the cargo
# registry, the wasm32 target, the wasm-bindgen CLI, the pip and npm caches,
# Debian's Chromium, Firefox ESR and nginx), clones this repository into a
# temporary directory (its target/ is empty), then times `make demo`,
# `make test` after it, and `make test` again with nothing changed. Each
# command's own step table (target/timings/) is in its log.
#
#   bash scripts/measure-fresh.sh --yes     (it uninstalls the packages above)
#
# Prints one line per command: its exit status and wall time in seconds.
set -uo pipefail

[[ "${1:-}" == --yes ]] || {
    echo "usage: $0 --yes  (removes the cargo registry, the wasm target, caches and browsers of this machine)" >&2
    exit 2
}
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dory-fresh.XXXXXX")"
SUDO=""
if [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null; then SUDO="sudo"; fi

rm -rf "${CARGO_HOME:-$HOME/.cargo}/registry" "${CARGO_HOME:-$HOME/.cargo}/git" "${CARGO_HOME:-$HOME/.cargo}/bin/wasm-bindgen"
rustup target remove wasm32-unknown-unknown 2>/dev/null || true
python3 -m pip cache purge >/dev/null 2>&1 || true
npm cache clean --force >/dev/null 2>&1 || true
if command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get purge -y -qq chromium chromium-common firefox-esr nginx nginx-common nginx-light >/dev/null 2>&1 || true
    $SUDO apt-get autoremove -y -qq >/dev/null 2>&1 || true
    $SUDO apt-get clean || true
fi

git clone -q "$ROOT" "$WORK/repo"
cd "$WORK/repo"
for run in "demo:make demo" "test:make test" "test-again:make test"; do
    name="${run%%:*}"
    start=$SECONDS
    bash -c "${run#*:}" >"$WORK/$name.log" 2>&1
    rc=$?
    echo "$name: exit $rc, $((SECONDS - start)) s (log: $WORK/$name.log)"
done
