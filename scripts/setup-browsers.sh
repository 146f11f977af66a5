#!/usr/bin/env bash
# Debian's browsers for the browser tests, in one apt-get call, idempotent
# and quick when present:
#   - chromium: npm/test/browser.test.mjs, tests/docs/search.test.mjs and
#     the runtimes suite (tests/runtimes);
#   - firefox-esr: the runtimes suite (DORY_SKIP_FIREFOX=1: not installed).
# A browser that cannot be installed is not an error here: each test that
# needs it is skipped with the reason in make test's summary. make test runs
# this in the background while it compiles (the downloads wait on the
# network, not on the two cores); make demo needs no browser.
set -uo pipefail

log() { echo "setup-browsers: $*"; }
want=()
[[ -x "${DORY_CHROMIUM:-/usr/bin/chromium}" ]] || want+=(chromium)
if [[ "${DORY_SKIP_FIREFOX:-0}" != 1 ]] && [[ ! -x "${DORY_FIREFOX:-/usr/bin/firefox-esr}" ]]; then
    want+=(firefox-esr)
fi
if [[ ${#want[@]} -eq 0 ]]; then
    log "present"
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    log "no apt-get: ${want[*]} not installed (the tests that need them skip, saying so)"
    exit 0
fi
SUDO=""
if [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
log "installing ${want[*]}"
$SUDO apt-get update -qq || log "apt-get update failed"
if ! $SUDO apt-get install -y -qq "${want[@]}"; then
    # One at a time, so that one that cannot be installed leaves the other.
    for p in "${want[@]}"; do $SUDO apt-get install -y -qq "$p" || log "apt-get install $p failed"; done
fi
log "done"
