#!/usr/bin/env bash
# `make demo`: the main job, end to end.
#   1. builds what it needs (tests/e2e/build.sh: the reference server, the
#      Python package, the npm package);
#   2. starts dory-refserver on a free loopback port, and a second one that
#      cuts every output response after 80 bytes;
#   3. runs the retained-output program on the Python client (dory_wire.client)
#      against both, the one-call read (process.read_output) against the
#      cutting one, many followers on one AsyncClient, and the program in
#      Rust (dory-wire-client) and Node;
#   4. shows the preview bounder on a command printing 200,000 lines, bounded
#      to 2000 lines / 50 KiB with the full output spilled to a file, and
#      recovers the hidden lines with the notice's own sed command;
#   5. stops the servers (also on failure or Ctrl-C) and removes their files.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
E2E_NAME=demo
# shellcheck source=../tests/e2e/build.sh
source "$ROOT/tests/e2e/build.sh"

step() { printf '\n== demo: %s\n' "$*"; }

step "building"
e2e_build "$ROOT"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/dory-demo.XXXXXX")"
SERVER_PIDS=()
stop_servers() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${SERVER_PIDS[@]}"; do
        # Each server kills and reaps every process group it started, then exits.
        for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    SERVER_PIDS=()
}
cleanup() { stop_servers; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server NAME ARGS...: starts dory-refserver on a free port; sets URL.
start_server() {
    local name="$1"
    shift
    "$DORY_REFSERVER_BIN" --port 0 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    SERVER_PIDS+=("$!")
    URL=""
    for _ in $(seq 1 300); do  # hang guard: 30 s
        URL="$(sed -n 's/^listening on //p' "$WORK/$name.out")"
        [[ -n "$URL" ]] && break
        kill -0 "$!" 2>/dev/null || { cat "$WORK/$name.err" >&2; echo "dory-refserver exited" >&2; exit 1; }
        sleep 0.1
    done
    [[ -n "$URL" ]] || { echo "dory-refserver printed no URL" >&2; exit 1; }
    echo "$name: listening on $URL (dory-refserver --port 0 $*)"
}

step "starting dory-refserver three times on free loopback ports"
start_server clean
CLEAN_URL="$URL"
start_server cutting --drop-after-bytes 80
CUTTING_URL="$URL"
start_server seeded --drop-seed 5 --drop-max-bytes 20000 --max-chunk-bytes 4096
SEEDED_URL="$URL"
export CE_COMPUTER_ID="${CE_COMPUTER_ID:-demo}"

step "One call for agents: python/examples/agent_run.py (a 20,000-line build log, 60 lines / 4 KiB for the model, responses cut at seeded points)"
DORY_URL="$SEEDED_URL" "$E2E_PY" "$ROOT/python/examples/agent_run.py" "$WORK/agent-spill"

step "One call for agents in Node: npm/examples/agent-run.mjs (responses cut at seeded points)"
DORY_URL="$SEEDED_URL" node "$ROOT/npm/examples/agent-run.mjs" "$WORK/agent-spill-node"

step "One call for agents in Rust: crates/dory-wire-client/examples/run.rs (responses cut at seeded points)"
cargo build --quiet -p dory-wire-client --example run
DORY_URL="$SEEDED_URL" DORY_SPILL_DIR="$WORK/run-spill" "${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/run"

step "Python client: python/examples/retained_output.py (frame by frame, offsets saved after each frame)"
DORY_URL="$CLEAN_URL" "$E2E_PY" "$ROOT/python/examples/retained_output.py"
echo "-- the same program, every response cut after 80 bytes:"
DORY_URL="$CUTTING_URL" "$E2E_PY" "$ROOT/python/examples/retained_output.py"

step "Python client, one call: python/examples/read_output.py (every response cut after 80 bytes)"
DORY_URL="$CUTTING_URL" "$E2E_PY" "$ROOT/python/examples/read_output.py"

step "Python client, asyncio: python/examples/follow_many.py (16 followers on one AsyncClient, cut responses)"
DORY_URL="$CUTTING_URL" "$E2E_PY" "$ROOT/python/examples/follow_many.py" 16

step "Rust client: crates/dory-wire-client/examples/retained_output.rs (frame by frame, offsets saved after each frame)"
cargo build --quiet -p dory-wire-client --example retained_output
RUST_EXAMPLE="${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/retained_output"
DORY_URL="$CLEAN_URL" "$RUST_EXAMPLE"
echo "-- the same program, every response cut after 80 bytes:"
DORY_URL="$CUTTING_URL" "$RUST_EXAMPLE"

step "Node: npm/examples/retained-output.mjs"
DORY_URL="$CLEAN_URL" node "$ROOT/npm/examples/retained-output.mjs"

step "preview: 200,000 lines bounded to 2000 lines / 50 KiB (python/examples/preview_demo.py)"
DORY_URL="$CLEAN_URL" DORY_SPILL_DIR="$WORK/spill" "$E2E_PY" "$ROOT/python/examples/preview_demo.py"

step "preview of a real log: a failing cargo test recorded on a terminal, before and after keep (the default patterns) and terminal rendering (crates/dory-wire/examples/keep_terminal.rs)"
cargo build --quiet -p dory-wire --example keep_terminal
"${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/keep_terminal" "$ROOT/tests/corpus/logs/cargo_test_fail.log"

step "stopping the servers"
stop_servers
echo "stopped; no process left running"
step "done"
