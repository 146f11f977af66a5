#!/usr/bin/env bash
# `make demo`: the main job, end to end, every step timed (the table at the
# end; target/timings/demo.tsv, the last run's in demo.prev.tsv).
#   1. builds what it runs, once (scripts/build.sh): the workspace's binaries
#      and examples in one cargo command, the Python package into .venv (its
#      `dev` group: maturin, httpx), and, in the background while the
#      Python and Rust programs run, the npm package; the downloads (pip,
#      npm ci, the wasm target) run beside the first cargo build;
#   2. starts dory-refserver on free loopback ports: a clean one, one that
#      cuts every output response after 80 bytes, one that cuts at seeded
#      points;
#   3. runs the agent call (one call: a command's bounded previews and its
#      spill) in Python and Rust, the retained-output program on the Python
#      client against the clean and the cutting server, the one-call read,
#      many followers on one AsyncClient, the same program in Rust, the
#      preview bounder on 200,000 lines, kept lines and terminal rendering on
#      a real log, a real failure that head + tail and tail only miss and
#      run's preview shows, then the agent call and the program in Node;
#   4. stops the servers (also on failure or Ctrl-C) and removes their files.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
# shellcheck source=timing.sh
source "$ROOT/scripts/timing.sh"
timing_begin demo

# step TITLE: ends the step in progress (its time is printed and recorded as
# a demo step, under its title's first words) and starts this one.
STEP_TITLE=""
STEP_START=""
step_end() {
    [[ -n "$STEP_TITLE" ]] || return 0
    local took
    took="$(awk -v a="$STEP_START" -v b="$(timing_now)" 'BEGIN { printf "%.1f", b - a }')"
    printf -- '-- demo step: %s s\n' "$took"
    timing_record demo "$(cut -c1-58 <<<"${STEP_TITLE%% (*}")" "$took" 0
    STEP_TITLE=""
}
step() {
    step_end
    printf '\n== demo: %s\n' "$*"
    STEP_TITLE="$*"
    STEP_START="$(timing_now)"
}
LOGS="$ROOT/target/timings/demo-logs"
rm -rf "$LOGS"
mkdir -p "$LOGS"

# wait_job PID NAME: waits for a background step; prints its log; fails with it.
wait_job() {
    local rc=0
    wait "$1" || rc=$?
    sed 's/^/   /' "$LOGS/$2.log"
    [[ $rc -eq 0 ]] || { echo "demo: $2 failed (exit $rc)" >&2; exit "$rc"; }
}

printf '\n== demo: %s\n' "building (the downloads in the background, beside the cargo build)"
timed setup "python: .venv with the dev group (pip, in the background)" \
    bash scripts/setup-python.sh --group dev --tools-only >"$LOGS/python-tools.log" 2>&1 &
python_tools=$!
timed setup "npm: wasm target and npm ci (in the background)" \
    env -u CARGO_TARGET_DIR bash scripts/setup-wasm.sh --downloads >"$LOGS/npm-downloads.log" 2>&1 &
npm_downloads=$!
bash scripts/build.sh native
export DORY_REFSERVER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/dory-refserver"
EXAMPLES="${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples"
wait_job "$python_tools" python-tools
bash scripts/build.sh python --group dev
E2E_PY="$ROOT/.venv/bin/python"
wait_job "$npm_downloads" npm-downloads
echo "   the npm package builds in the background (its log is printed before the Node programs)"
bash scripts/build.sh npm >"$LOGS/npm.log" 2>&1 &
npm_build=$!

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
cleanup() {
    stop_servers
    [[ -z "${npm_build:-}" ]] || kill "$npm_build" 2>/dev/null || true
    rm -rf "$WORK"
}
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

step "One call for agents in Rust: crates/dory-wire-client/examples/run.rs (responses cut at seeded points)"
DORY_URL="$SEEDED_URL" DORY_SPILL_DIR="$WORK/run-spill" "$EXAMPLES/run"

step "Python client: python/examples/retained_output.py (frame by frame, offsets saved after each frame)"
DORY_URL="$CLEAN_URL" "$E2E_PY" "$ROOT/python/examples/retained_output.py"
echo "-- the same program, every response cut after 80 bytes:"
DORY_URL="$CUTTING_URL" "$E2E_PY" "$ROOT/python/examples/retained_output.py"

step "Python client, one call: python/examples/read_output.py (every response cut after 80 bytes)"
DORY_URL="$CUTTING_URL" "$E2E_PY" "$ROOT/python/examples/read_output.py"

step "Python client, asyncio: python/examples/follow_many.py (16 followers on one AsyncClient, cut responses)"
DORY_URL="$CUTTING_URL" "$E2E_PY" "$ROOT/python/examples/follow_many.py" 16

step "Rust client: crates/dory-wire-client/examples/retained_output.rs (frame by frame, offsets saved after each frame)"
RUST_EXAMPLE="$EXAMPLES/retained_output"
DORY_URL="$CLEAN_URL" "$RUST_EXAMPLE"
echo "-- the same program, every response cut after 80 bytes:"
DORY_URL="$CUTTING_URL" "$RUST_EXAMPLE"

step "preview: 200,000 lines bounded to 2000 lines / 50 KiB (python/examples/preview_demo.py)"
DORY_URL="$CLEAN_URL" DORY_SPILL_DIR="$WORK/spill" "$E2E_PY" "$ROOT/python/examples/preview_demo.py"

step "preview of a real log: a failing cargo test recorded on a terminal, before and after keep (the default patterns) and terminal rendering (crates/dory-wire/examples/keep_terminal.rs)"
"$EXAMPLES/keep_terminal" "$ROOT/tests/corpus/logs/cargo_test_fail.log"

step "the failure in front of the model: a real AddressSanitizer report cut to 40 lines / 4 KiB; head + tail and tail only miss it, run's preview shows it (dory-bench quality-show; docs/preview.md)"
"${CARGO_TARGET_DIR:-$ROOT/target}/debug/dory-bench" quality-show asan_heap_overflow \
    --corpus "$ROOT/tests/corpus" --lines 40 --bytes 4096 --brief

step_end
printf '\n== demo: %s\n' "waiting for the npm package (built in the background)"
wait_job "$npm_build" npm
npm_build=""

step "One call for agents in Node: npm/examples/agent-run.mjs (responses cut at seeded points)"
DORY_URL="$SEEDED_URL" node "$ROOT/npm/examples/agent-run.mjs" "$WORK/agent-spill-node"

step "Node: npm/examples/retained-output.mjs"
DORY_URL="$CLEAN_URL" node "$ROOT/npm/examples/retained-output.mjs"

step "stopping the servers"
stop_servers
echo "stopped; no process left running"
step_end
printf '\n== demo: done\n'
timing_summary "make demo"
