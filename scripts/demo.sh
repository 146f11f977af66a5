#!/usr/bin/env bash
# `make demo`: the main job, end to end.
#   1. builds what it needs (tests/e2e/build.sh: the reference server, the
#      Python package, the npm package);
#   2. starts dory-refserver on a free loopback port;
#   3. runs the seed's retained-output program in Python and in Node;
#   4. shows the preview bounder on a command printing 200,000 lines, bounded
#      to 2000 lines / 50 KiB with the full output spilled to a file, and
#      recovers the hidden lines with the notice's own sed command;
#   5. stops the server (also on failure or Ctrl-C) and removes its files.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
E2E_NAME=demo
# shellcheck source=../tests/e2e/build.sh
source "$ROOT/tests/e2e/build.sh"

step() { printf '\n== demo: %s\n' "$*"; }

step "building"
e2e_build "$ROOT"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/dory-demo.XXXXXX")"
SERVER_PID=""
stop_server() {
    if [[ -n "$SERVER_PID" ]]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        # The server kills and reaps every process group it started, then exits.
        for _ in $(seq 1 150); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

step "starting dory-refserver on a free loopback port"
"$DORY_REFSERVER_BIN" --port 0 >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 300); do  # hang guard: 30 s
    URL="$(sed -n 's/^listening on //p' "$WORK/server.out")"
    [[ -n "$URL" ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.err" >&2; echo "dory-refserver exited" >&2; exit 1; }
    sleep 0.1
done
[[ -n "$URL" ]] || { echo "dory-refserver printed no URL" >&2; exit 1; }
echo "listening on $URL (pid $SERVER_PID)"
export DORY_URL="$URL"
export CE_COMPUTER_ID="${CE_COMPUTER_ID:-demo}"

step "Python: python/examples/retained_output.py"
"$E2E_PY" "$ROOT/python/examples/retained_output.py"

step "Node: npm/examples/retained-output.mjs"
node "$ROOT/npm/examples/retained-output.mjs"

step "preview: 200,000 lines bounded to 2000 lines / 50 KiB (python/examples/preview_demo.py)"
DORY_SPILL_DIR="$WORK/spill" "$E2E_PY" "$ROOT/python/examples/preview_demo.py"

step "stopping dory-refserver"
stop_server
echo "stopped; no process left running"
step "done"
