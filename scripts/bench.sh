#!/usr/bin/env bash
# make bench: builds what it needs (release), generates the corpora
# deterministically (target/bench-corpora/, only when missing), runs every
# benchmark — Rust, Python, Node — and prints ONE markdown table with every
# ratio measured side by side in this run, then the performance targets.
# Method and the latest table: docs/bench.md.
#
# Env:
#   DORY_BENCH_RUNS   runs per implementation and input (default 5; the table shows medians)
#   DORY_BENCH_MB     corpus size in MB (default 100)
#   DORY_BENCH_ONLY   space-separated subset of "rust python node" (default all)
#   DORY_BENCH_OUT    where the markdown goes besides stdout (default target/bench-results/latest.md)
#   DORY_BENCH_DOCS   0: do not write the table and targets into docs/bench.md (a full run does by default)
# A language whose toolchain cannot be set up is reported as skipped, not fatal.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS="${DORY_BENCH_RUNS:-5}"
MB="${DORY_BENCH_MB:-100}"
ONLY="${DORY_BENCH_ONLY:-rust python node}"
CORPORA="$ROOT/target/bench-corpora"
RESULTS_DIR="$ROOT/target/bench-results"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
RESULTS="$RESULTS_DIR/results-$STAMP.jsonl"
MD_OUT="${DORY_BENCH_OUT:-$RESULTS_DIR/latest.md}"
export PATH="$HOME/.cargo/bin:$PATH"
START=$SECONDS

log() { printf '== bench: %s (%ss)\n' "$*" "$((SECONDS - START))" >&2; }
wants() { [[ " $ONLY " == *" $1 "* ]]; }
skipped=()

mkdir -p "$RESULTS_DIR"
: > "$RESULTS"

log "building dory-bench (release)"
cargo build --release --quiet -p dory-bench
BENCH="$ROOT/target/release/dory-bench"

log "corpora ($MB MB each) in $CORPORA"
"$BENCH" corpora --dir "$CORPORA" --mb "$MB" >&2

# ripgrep, the baseline the keep + terminal preview must be ahead of: installed
# once with cargo into target/tools/ripgrep (about a minute on 2 cores; 54 s
# measured for ripgrep 15.2.0), used from there. Where crates.io cannot be
# reached, its row and verdict say skipped.
RG_ROOT="$ROOT/target/tools/ripgrep"
rg_setup() {
    [[ -x "$RG_ROOT/bin/rg" ]] && return 0
    log "installing ripgrep (cargo install --locked ripgrep --root target/tools/ripgrep)"
    cargo install --quiet --locked ripgrep --root "$RG_ROOT" >&2 || return 1
    [[ -x "$RG_ROOT/bin/rg" ]]
}

if wants rust; then
    if rg_setup; then
        export DORY_BENCH_RG="$RG_ROOT/bin/rg"
        log "ripgrep: $("$DORY_BENCH_RG" --version | head -n 1)"
    else
        export DORY_BENCH_RG="$RG_ROOT/bin/rg-not-installed"
        skipped+=("ripgrep baseline (cargo install ripgrep failed: crates.io unreachable?)")
    fi
    log "rust"
    "$BENCH" rust --dir "$CORPORA" --mb "$MB" --runs "$RUNS" --out "$RESULTS"
fi

# Python: a release wheel of the binding in a venv of its own (target/bench-venv),
# with orjson, so the benchmark measures what `pip install` gives users.
python_setup() {
    local venv="$ROOT/target/bench-venv" py="${PYTHON:-python3}"
    if [[ ! -x "$venv/bin/python" ]]; then
        "$py" -m venv "$venv" || return 1
    fi
    local tools=("maturin>=1.9,<2" "orjson>=3.9" "httpx>=0.27")
    if [[ ! -f "$venv/.bench-tools" ]] || [[ "$(cat "$venv/.bench-tools")" != "${tools[*]}" ]]; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${tools[@]}" || return 1
        printf '%s' "${tools[*]}" > "$venv/.bench-tools"
    fi
    rm -rf "$ROOT/target/bench-wheels"
    (cd "$ROOT/python" && "$venv/bin/maturin" build --release --quiet -o "$ROOT/target/bench-wheels") >&2 || return 1
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
        "$ROOT"/target/bench-wheels/*.whl || return 1
    "$venv/bin/python" -c 'import dory_wire, orjson' || return 1
    PYBENCH="$venv/bin/python"
}

if wants python; then
    log "python: building the release wheel"
    if python_setup; then
        log "python"
        (cd "$ROOT" && "$PYBENCH" python/bench/bench.py --corpora "$CORPORA" --mb "$MB" \
            --runs "$RUNS" --out "$RESULTS") || skipped+=("python (benchmark failed, see above)")
    else
        skipped+=("python (could not build or install the wheel)")
    fi
fi

# Node: the npm package built from bindings/wasm (release), as in scripts/test-npm.sh.
node_setup() {
    command -v node > /dev/null || return 1
    bash "$ROOT/scripts/setup-wasm.sh" >&2 || return 1
    (cd "$ROOT/npm" && node build.mjs) >&2 || return 1
}

if wants node; then
    log "node: building the npm package"
    if node_setup; then
        log "node"
        node "$ROOT/npm/bench/bench.mjs" --corpora "$CORPORA" --mb "$MB" --runs "$RUNS" \
            --out "$RESULTS" || skipped+=("node (benchmark failed, see above)")
        # The WebAssembly component through jco, beside the npm package (rows
        # of role "component" in the reader group; not counted in the targets).
        if bash "$ROOT/scripts/component.sh" --jco > /dev/null; then
            log "node: the WebAssembly component (jco)"
            node "$ROOT/tests/component/bench.mjs" --corpora "$CORPORA" --mb "$MB" --runs "$RUNS" \
                --out "$RESULTS" || skipped+=("node component (benchmark failed, see above)")
        else
            skipped+=("node component (could not build or transpile it)")
        fi
    else
        skipped+=("node (could not set up the wasm toolchain or build the package)")
    fi
fi

# The clients: followers at scale (Rust 1,000; Python asyncio and Node 256
# and 1,000 each) against a server that cuts half of the responses at seeded points,
# and the Rust client's read_output against a plain reqwest loop.
CLIENTS="$RESULTS_DIR/clients-$STAMP.jsonl"
: > "$CLIENTS"
# Any step that fails says why on stderr and in CLIENTS_WHY (the "Skipped:" line).
CLIENTS_WHY=""
clients_fail() { CLIENTS_WHY="$*"; echo "bench: clients: $*" >&2; return 1; }
clients_bench() {
    # Two builds: `--example` with `-p` builds the example only, not the
    # server's binary, so the server is built on its own.
    cargo build --release --quiet -p dory-refserver --bin dory-refserver \
        || clients_fail "could not build the reference server (cargo build --release -p dory-refserver --bin dory-refserver)" || return 1
    cargo build --release --quiet -p dory-wire-client --example client_bench \
        || clients_fail "could not build the client bench (cargo build --release -p dory-wire-client --example client_bench)" || return 1
    local server="$ROOT/target/release/dory-refserver" bench="$ROOT/target/release/examples/client_bench"
    [[ -x "$server" ]] || clients_fail "$server is missing after its build" || return 1
    [[ -x "$bench" ]] || clients_fail "$bench is missing after its build" || return 1
    local work pids=() url cutting clean live
    work="$(mktemp -d)"
    # start NAME ARGS...: a server; sets url to its URL. Not called in $(...):
    # a subshell would lose the pid, and the server would outlive the bench.
    start() {
        local name="$1"; shift
        url=""
        "$server" --port 0 "$@" >"$work/$name.out" 2>"$work/$name.err" &
        pids+=("$!")
        for _ in $(seq 1 100); do
            url="$(sed -n 's/^listening on //p' "$work/$name.out")"
            [[ -n "$url" ]] && return 0
            sleep 0.1
        done
        echo "bench: clients: server $name did not print its URL within 10 s; its stderr:" >&2
        cat "$work/$name.err" >&2
        return 1
    }
    stop_servers() {
        if [[ ${#pids[@]} -gt 0 ]]; then
            kill "${pids[@]}" 2>/dev/null || true
            wait "${pids[@]}" 2>/dev/null || true
        fi
        rm -rf "$work"
    }
    start cutting --max-processes 1200 --max-connections 2048 --drop-seed 7 \
        --drop-probability 0.5 --drop-max-bytes 20000 \
        || { stop_servers; clients_fail "the cutting reference server did not start"; return 1; }
    cutting="$url"
    start clean --retention-bytes 120000000 \
        || { stop_servers; clients_fail "the clean reference server did not start"; return 1; }
    clean="$url"
    start live || { stop_servers; clients_fail "the live reference server did not start"; return 1; }
    live="$url"  # the default 10 MB retention
    local ok=0 failed=()
    # run NAME CMD...: one client benchmark; a failure is named, the others still run.
    run() {
        local name="$1"; shift
        if ! "$@" >> "$CLIENTS"; then
            echo "bench: clients: $name failed (exit status above)" >&2
            failed+=("$name")
            ok=1
        fi
    }
    run "rust scale 1000" env DORY_URL="$cutting" "$bench" scale 1000
    run "rust throughput" env DORY_URL="$clean" "$bench" throughput 50 "$RUNS"
    local n
    for n in 256 1000; do
        if [[ -n "${PYBENCH:-}" ]]; then
            run "python scale $n" env DORY_URL="$cutting" "$PYBENCH" "$ROOT/python/bench/client_scale.py" "$n"
        fi
        if wants node && [[ -f "$ROOT/npm/dist/node/client.mjs" ]]; then
            run "node scale $n" env DORY_URL="$cutting" node "$ROOT/npm/bench/client-scale.mjs" "$n"
        fi
    done
    [[ -n "${PYBENCH:-}" ]] || echo "bench: clients: no Python rows (the Python wheel was not built in this run)" >&2
    # The agent call against read_output + bound, and exec + bound.
    if [[ -n "${PYBENCH:-}" ]]; then
        local mb
        for mb in 10 200; do
            run "python run rss $mb" env DORY_URL="$live" "$PYBENCH" "$ROOT/python/bench/run_call.py" rss "$mb"
        done
        run "python run overhead" env DORY_URL="$live" "$PYBENCH" "$ROOT/python/bench/run_call.py" overhead 50
        run "python run identity" env DORY_URL="$cutting" "$PYBENCH" "$ROOT/python/bench/run_call.py" identity 20
    fi
    stop_servers
    [[ "$ok" == 0 ]] || CLIENTS_WHY="failed: ${failed[*]}; the rows of the others are shown"
    return "$ok"
}
if wants rust; then
    log "clients: followers at scale, and read_output against a plain reqwest loop"
    clients_bench || skipped+=("clients (${CLIENTS_WHY:-a step failed without saying why})")
fi

log "report"
{
    echo "## dory-wire benchmarks — $(date -u '+%Y-%m-%d %H:%M UTC'), \`make bench\`"
    echo
    echo "$(uname -m), $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)." \
        "Corpora ≈$MB MB each, fed in 64 KiB pieces. MB/s = input MB (10^6 bytes) ÷ median CPU" \
        "seconds of $RUNS runs (one child process per run, implementations interleaved)." \
        "\"ours ÷ this\" = this row's median time ÷ ours: above 1, ours is faster." \
        "Peak RSS is the run's process; \"over input\" subtracts the RSS once the input was loaded."
    echo
    "$BENCH" report "$RESULTS"
    if [[ ${#skipped[@]} -gt 0 ]]; then
        echo "Skipped: ${skipped[*]}."
        echo
    fi
    wasm="$ROOT/npm/dist/node/wasm/dory_wire_wasm_bg.wasm"
    if wants node && [[ -f "$wasm" ]]; then
        echo "The npm package's .wasm (\`${wasm#"$ROOT"/}\`): $(stat -c %s "$wasm") bytes."
        echo
    fi
    if wants node; then
        node "$ROOT/tests/component/bench.mjs" --sizes 2>/dev/null && echo
    fi
    # The Python wheel holds the exact tokenizers (feature tokens of the core).
    for wheel in "$ROOT"/target/bench-wheels/*.whl; do
        [[ -f "$wheel" ]] || continue
        echo "The Python wheel (\`${wheel##*/}\`, release, with the tokenizers o200k_base and cl100k_base): $(stat -c %s "$wheel") bytes."
        echo
    done
    if [[ -s "$CLIENTS" ]]; then
        python3 - "$CLIENTS" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("### Clients")
print()
print("Followers at once on one client (Rust: one tokio runtime; Python: one AsyncClient; Node: one Client),")
print("half of the responses cut at seeded points by the server; every transcript checked byte for byte.")
print()
print("| client | followers | exact | wall | CPU per MB | peak RSS over baseline, per follower |")
print("|---|---|---|---|---|---|")
for r in rows:
    if r["bench"] == "scale":
        print(f"| {r['lang']} | {r['followers']} | {r['exact']} | {r['wall_s']:.1f} s | "
              f"{r['cpu_s_per_mb'] * 1000:.1f} ms | {r['peak_rss_over_base_kib_per_follower']:.0f} KiB |")
for r in rows:
    if r["bench"] == "throughput":
        print()
        print(f"Rust `read_output` of {r['mb']:.0f} MB of retained output: {r['read_output_mb_per_s']:.0f} MB/s; "
              f"a plain reqwest + serde_json + base64 loop doing the same work: {r['plain_loop_mb_per_s']:.0f} MB/s "
              f"(ours ÷ plain time ratio {r['ratio']:.2f}×, medians of {r['runs']} interleaved runs, same server).")
runs = [r for r in rows if r["bench"].startswith("run_")]
if runs:
    print("### The agent call (`run`, Python client, release wheel)")
    print()
    print("| what | `run` | the other way | |")
    print("|---|---|---|---|")
    for r in runs:
        if r["bench"] == "run_rss":
            a, b = r["run"], r["read_output+bound"]
            print(f"| peak RSS over the baseline, a command writing {r['mb']} MB in 1 MB bursts "
                  f"(default 10 MB retention, followed live) | {(a['peak_kib'] - a['base_kib']) / 1024:.1f} MiB "
                  f"({a['bytes']:,} bytes, {a['lost']:,} lost) | `read_output` + `bound`: "
                  f"{(b['peak_kib'] - b['base_kib']) / 1024:.1f} MiB ({b['bytes']:,} bytes, {b['lost']:,} lost) | |")
        elif r["bench"] == "run_overhead":
            print(f"| per call on a 2 KB output (median of {r['calls']}, interleaved) | {r['run_ms']:.1f} ms | "
                  f"`exec` + `bound`: {r['exec_bound_ms']:.1f} ms | {r['ratio']:.2f}× |")
        elif r["bench"] == "run_identity":
            print(f"| seeded commands through cut responses: spill sha256 and previews equal to `bound()` of "
                  f"the full bytes | {r['exact']}/{r['seeds']} exact | | |")
    print()
print()
PY
    fi
    echo "### Preview quality on real failures (\`dory-bench quality\`, tests/corpus)"
    echo
    "$BENCH" quality --corpus "$ROOT/tests/corpus"
    echo
    echo "Raw records: \`${RESULTS#"$ROOT"/}\`; finished in $((SECONDS - START)) s."
} | tee "$MD_OUT"

# docs/bench.md shows the latest full run (every language, 100 MB corpora):
# its two marked regions are rewritten from this report. DORY_BENCH_DOCS=0
# leaves the docs alone; a partial run never touches them.
if [[ "${DORY_BENCH_DOCS:-1}" != 0 && "$MB" == 100 && ${#skipped[@]} -eq 0 ]] \
    && wants rust && wants python && wants node; then
    commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    git diff --quiet HEAD -- crates bindings python npm 2>/dev/null || commit="$commit with changes not committed"
    python3 "$ROOT/scripts/bench-docs.py" "$MD_OUT" "$ROOT/docs/bench.md" --commit "$commit"
else
    echo "bench: docs/bench.md left as it is (only a full run writes it: every language, DORY_BENCH_MB=100, nothing skipped, DORY_BENCH_DOCS unset or 1)" >&2
fi
