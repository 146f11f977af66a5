#!/usr/bin/env bash
# Installs Debian's nginx for the end-to-end proxy test
# (tests/e2e/python/test_nginx.py), idempotently: nginx-light where this
# Debian release has it (bookworm), else nginx (trixie has no -light). Only the
# binary is used: the test runs its own nginx on a free loopback port, with its
# config, pid file, logs and temp paths in a temporary directory. (Debian's
# package enables a system nginx on port 80 where services start on install;
# in a container policy-rc.d usually stops that.)
#
# Prints the nginx binary's path on stdout and exits 0, quickly when it is
# already installed. Progress goes to stderr; when nginx cannot be installed
# it exits 1 and its last stderr line is the reason (scripts/test-e2e.sh then
# has the test record a SKIP with it).
set -euo pipefail

log() { printf '== setup-nginx: %s\n' "$*" >&2; }
fail() { printf 'setup-nginx: %s\n' "$*" >&2; exit 1; }

found() {
    local bin
    for bin in "$(command -v nginx 2>/dev/null || true)" /usr/sbin/nginx; do
        if [[ -n "$bin" && -x "$bin" ]] && "$bin" -v 2>/dev/null; then
            printf '%s\n' "$bin"
            return 0
        fi
    done
    return 1
}

found && exit 0

command -v apt-get >/dev/null || fail "no nginx and no apt-get to install it (not Debian)"
SUDO=""
if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || fail "no nginx, and neither root nor sudo to install it"
    SUDO="sudo"
fi

candidate() { apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p'; }

export DEBIAN_FRONTEND=noninteractive
log "apt-get update"
$SUDO apt-get update -qq >&2 || fail "apt-get update failed"
package=""
for name in nginx-light nginx; do
    version="$(candidate "$name")"
    if [[ -n "$version" && "$version" != "(none)" ]]; then
        package="$name"
        break
    fi
done
[[ -n "$package" ]] || fail "apt has neither nginx-light nor nginx"
log "installing $package ($version)"
$SUDO apt-get install -y -qq --no-install-recommends "$package" >&2 || fail "apt-get install $package failed"
found || fail "$package is installed but no nginx binary runs"
