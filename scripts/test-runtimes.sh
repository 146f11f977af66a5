#!/usr/bin/env bash
# The npm package on every runtime it claims (tests/runtimes/runtimes.test.mjs):
# the packed tarball installed as each runtime's users install it, then the
# same checks (tests/runtimes/checks.mjs) in Node (this one and 18), Deno,
# Bun, Cloudflare Workers (workerd through miniflare), Firefox and Chromium.
#
# Installs what it needs first, idempotently and quickly when present:
#   - npm/dist, built when missing or older than its sources (scripts/setup-wasm.sh,
#     node build.mjs), and the reference server (cargo build -p dory-refserver);
#   - the runtimes, pinned in tests/runtimes/tools/<name>/package-lock.json,
#     each with `npm ci` into target/runtimes/tools/<name> (Node 18, Deno and
#     Bun ship their binaries in npm packages; workerd comes with miniflare);
#   - Debian's firefox-esr (DORY_SKIP_FIREFOX=1: don't install it).
# A runtime that cannot be installed is skipped, with the reason in the
# summary ("SKIP runtimes <name>: ..."); the test says why.
#
# Env: DORY_REFSERVER_BIN (use this server binary, skip its build),
#      DORY_RUNTIMES_TARBALL (test this tarball instead of packing npm/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
log() { printf '== test-runtimes: %s\n' "$*"; }
cd "$ROOT"

if [[ -z "${DORY_RUNTIMES_TARBALL:-}" ]]; then
    bash scripts/build.sh npm
fi
if [[ -z "${DORY_REFSERVER_BIN:-}" ]]; then
    bash scripts/build.sh native
    export DORY_REFSERVER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/dory-refserver"
fi

# The runtimes (npm ci per runtime; quick when installed): scripts/setup-runtimes.sh.
bash scripts/setup-runtimes.sh

FIREFOX="${DORY_FIREFOX:-/usr/bin/firefox-esr}"
if [[ ! -x "$FIREFOX" ]] && [[ "${DORY_SKIP_FIREFOX:-0}" != 1 ]]; then
    log "installing Debian's firefox-esr"
    sudo=""
    if [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null; then sudo="sudo"; fi
    apt_log="$(mktemp)"
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq firefox-esr; } >"$apt_log" 2>&1; then
        tail -n 5 "$apt_log" | sed 's/^/   /'
        DORY_FIREFOX_UNAVAILABLE="apt-get install firefox-esr failed: $(grep -m1 -E '^E:' "$apt_log" || tail -n 1 "$apt_log")"
        export DORY_FIREFOX_UNAVAILABLE
    fi
    rm -f "$apt_log"
elif [[ ! -x "$FIREFOX" ]]; then
    export DORY_FIREFOX_UNAVAILABLE="DORY_SKIP_FIREFOX=1: firefox-esr not installed"
fi

log "node --test tests/runtimes"
node --test tests/runtimes/runtimes.test.mjs
