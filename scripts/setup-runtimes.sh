#!/usr/bin/env bash
# The JavaScript runtimes of the runtimes suite (tests/runtimes), pinned in
# tests/runtimes/tools/<name>/package-lock.json, each installed with
# `npm ci` into target/runtimes/tools/<name>: Node 18, Deno and Bun ship
# their binaries in npm packages; workerd comes with miniflare. Idempotent,
# quick when installed; make test runs it in the background while it
# compiles (the downloads wait on the network, not on the cores).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/target/runtimes/tools"
log() { printf '== setup-runtimes: %s\n' "$*"; }
cd "$ROOT"

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
