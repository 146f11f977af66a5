#!/usr/bin/env bash
# End-to-end tests against the reference server: builds what is needed
# (tests/e2e/build.sh), then runs the Python suite (pytest, tests/e2e/python)
# and the Node suite (node --test, tests/e2e/node). Each suite starts its own
# servers on free loopback ports and stops them. The Python suite also runs
# the clients through a real nginx (tests/e2e/python/test_nginx.py), which
# scripts/setup-nginx.sh installs from Debian; when it cannot, that test is
# skipped and the summary says why ("SKIP e2e nginx: ...").
#
# Env: DORY_REFSERVER_BIN (use this server binary, skip its build),
#      DORY_NGINX_BIN (use this nginx, skip its install),
#      DORY_E2E_TRIALS (seeded resume trials per language, default 200),
#      DORY_E2E_SEED (default 6).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
E2E_NAME=test-e2e
# shellcheck source=../tests/e2e/build.sh
source "$ROOT/tests/e2e/build.sh"
# shellcheck source=../scripts/timing.sh
source "$ROOT/scripts/timing.sh"
e2e_build "$ROOT"
e2e_log "server: $DORY_REFSERVER_BIN"

if [[ -z "${DORY_NGINX_BIN:-}" ]]; then
    e2e_log "nginx (scripts/setup-nginx.sh)"
    nginx_log="$(mktemp)"
    if DORY_NGINX_BIN="$(bash "$ROOT/scripts/setup-nginx.sh" 2>"$nginx_log")"; then
        export DORY_NGINX_BIN
    else
        unset DORY_NGINX_BIN
        # The reason, for the test's SKIP line: setup-nginx.sh's last line.
        DORY_NGINX_UNAVAILABLE="$(tail -n 1 "$nginx_log")"
        export DORY_NGINX_UNAVAILABLE="${DORY_NGINX_UNAVAILABLE:-scripts/setup-nginx.sh failed}"
    fi
    sed 's/^/   /' "$nginx_log"
    rm -f "$nginx_log"
fi
e2e_log "nginx: ${DORY_NGINX_BIN:-none (${DORY_NGINX_UNAVAILABLE:-})}"

cd "$ROOT"
e2e_log "ruff (tests/e2e/python, python/examples, tests/api, tests/vectors)"
"$ROOT/.venv/bin/ruff" check --quiet --config tests/e2e/python/ruff.toml tests/e2e/python
"$ROOT/.venv/bin/ruff" format --quiet --check --config tests/e2e/python/ruff.toml tests/e2e/python
(cd python && "$ROOT/.venv/bin/ruff" check --quiet examples && "$ROOT/.venv/bin/ruff" format --quiet --check examples)
# The stdlib checkers of scripts/test-repo.sh, linted here where the venv exists.
"$ROOT/.venv/bin/ruff" check --quiet --config tests/ruff.toml tests/api tests/vectors
"$ROOT/.venv/bin/ruff" format --quiet --check --config tests/ruff.toml tests/api tests/vectors

start=$SECONDS
e2e_log "Python suite (pytest tests/e2e/python)"
timed test "e2e: Python suite (pytest tests/e2e/python)" "$E2E_PY" -m pytest tests/e2e/python -q -s -p no:cacheprovider --durations=5
py_time=$((SECONDS - start))

start=$SECONDS
e2e_log "Node suite (node --test tests/e2e/node)"
timed test "e2e: Node suite (node --test tests/e2e/node)" node --test --test-reporter=spec tests/e2e/node/
node_time=$((SECONDS - start))

e2e_log "passed (Python ${py_time}s, Node ${node_time}s)"
