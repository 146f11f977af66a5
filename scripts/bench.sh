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

if wants rust; then
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
    local tools=("maturin>=1.9,<2" "orjson>=3.9")
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
    # The benchmark needs no browser: skip setup-wasm.sh's chromium.
    DORY_SKIP_CHROMIUM=1 bash "$ROOT/scripts/setup-wasm.sh" >&2 || return 1
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
    echo "Raw records: \`${RESULTS#"$ROOT"/}\`; finished in $((SECONDS - START)) s."
} | tee "$MD_OUT"
