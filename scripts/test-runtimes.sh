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
TOOLS="$ROOT/target/runtimes/tools"
log() { printf '== test-runtimes: %s\n' "$*"; }
cd "$ROOT"

built="$ROOT/npm/dist/node/index.mjs"
if [[ -z "${DORY_RUNTIMES_TARBALL:-}" ]]; then
    if [[ ! -f "$built" ]] || [[ -n "$(find bindings/wasm crates/dory-wire/src npm/src npm/build.mjs npm/package.json Cargo.lock \
            -newer "$built" -print -quit 2>/dev/null)" ]]; then
        log "building the npm package (scripts/setup-wasm.sh, node build.mjs)"
        bash scripts/setup-wasm.sh
        (cd npm && node build.mjs)
    else
        log "the npm package is up to date (npm/dist)"
    fi
fi

if [[ -z "${DORY_REFSERVER_BIN:-}" ]]; then
    log "building dory-refserver"
    cargo build --quiet -p dory-refserver
    export DORY_REFSERVER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/dory-refserver"
fi

# Each runtime in a directory of its own, so one that cannot be installed
# (say, no binary for this platform) leaves the others; its reason is kept in
# .unavailable for the test's SKIP line.
for spec in tests/runtimes/tools/*/; do
    name="$(basename "$spec")"
    dest="$TOOLS/$name"
    if [[ -d "$dest/node_modules" ]] && cmp -s "$spec/package-lock.json" "$dest/.installed" && [[ ! -f "$dest/.unavailable" ]]; then
        continue
    fi
    log "installing $name ($(sed -n 's/^    "\(.*\)": "\(.*\)",\{0,1\}$/\1@\2/p' "$spec/package.json" | xargs)) into ${dest#"$ROOT"/}"
    rm -rf "$dest"
    mkdir -p "$dest"
    cp "$spec/package.json" "$spec/package-lock.json" "$dest/"
    if (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error) >"$dest/install.log" 2>&1; then
        cp "$spec/package-lock.json" "$dest/.installed"
    else
        sed 's/^/   /' "$dest/install.log" | tail -n 20
        reason="$(grep -v '^\s*$' "$dest/install.log" | grep -m1 -i 'err' || tail -n 1 "$dest/install.log")"
        echo "npm ci of tests/runtimes/tools/$name failed: ${reason:-no output}" >"$dest/.unavailable"
    fi
done

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
