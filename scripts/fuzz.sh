#!/usr/bin/env bash
# Fuzz the dory-wire core with cargo-fuzz (libFuzzer, nightly toolchain).
#
#   bash scripts/fuzz.sh smoke           each target for FUZZ_SMOKE_SECONDS (default 5; ≤ 30 s in all)
#   bash scripts/fuzz.sh full [seconds]  each target for [seconds] or FUZZ_SECONDS (default 600)
#   FUZZ_TARGETS="reader differential" bash scripts/fuzz.sh full 60   only those targets
#
# Needs the nightly toolchain and cargo-fuzz. When either is missing, the smoke
# prints why and exits 0 (it never installs cargo-fuzz: that takes minutes);
# `full` fails instead. Corpora are seeded from tests/vectors (python3) into
# crates/dory-wire/fuzz/corpus/<target>/ (gitignored, kept between runs);
# crashes land in crates/dory-wire/fuzz/artifacts/<target>/ and fail the run.
# Idempotent: seeds are named by content, and an up-to-date build is a no-op.
# See docs/fuzzing.md.
set -euo pipefail

mode="${1:-smoke}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crate="$root/crates/dory-wire"
fuzz="$crate/fuzz"
all_targets=(reader document differential bounder streaming_bounder run_bounder conversation run_conversation)
read -r -a targets <<<"${FUZZ_TARGETS:-${all_targets[*]}}"

case "$mode" in
smoke) seconds="${FUZZ_SMOKE_SECONDS:-5}" ;;
full) seconds="${2:-${FUZZ_SECONDS:-600}}" ;;
*)
    echo "usage: $0 smoke|full [seconds]" >&2
    exit 2
    ;;
esac
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz: seconds must be a positive integer, got '$seconds'" >&2
    exit 2
fi

# shellcheck source=suite.sh
source "$root/scripts/suite.sh"
skip() {
    if [[ "$mode" == smoke ]]; then
        summary_skip fuzz-smoke "$1"
        exit 0
    fi
    echo "fuzz: $1" >&2
    exit 1
}

command -v cargo >/dev/null 2>&1 || skip "cargo is not installed"
cargo +nightly --version >/dev/null 2>&1 ||
    skip "the nightly toolchain is not installed (rustup toolchain install nightly)"
cargo +nightly fuzz --version >/dev/null 2>&1 ||
    skip "cargo-fuzz is not installed (cargo install cargo-fuzz; the smoke never installs it)"

# Seed the corpora from the shared vectors (idempotent).
if command -v python3 >/dev/null 2>&1; then
    python3 "$fuzz/seed_corpus.py" "$root/tests/vectors" "$fuzz/corpus"
else
    echo "fuzz: python3 not found: running without seeds from tests/vectors"
fi

# One build of every target: release, debug assertions and overflow checks on.
# cargo-fuzz uses crates/dory-wire/fuzz/target, whatever CARGO_TARGET_DIR says.
echo "fuzz: building the targets (nightly, -O -a)"
(cd "$crate" && env -u CARGO_TARGET_DIR nice -n 10 cargo +nightly fuzz build -O -a)
triple="$(rustc +nightly -vV | sed -n 's/^host: //p')"
bin_dir="$fuzz/target/$triple/release"

max_len_of() {
    case "$1" in
    bounder | streaming_bounder) echo 12000 ;;
    *) echo 4096 ;;
    esac
}

mkdir -p "$fuzz/logs"
summary=()
failed=0
for target in "${targets[@]}"; do
    corpus="$fuzz/corpus/$target"
    artifacts="$fuzz/artifacts/$target"
    log="$fuzz/logs/$target.log"
    mkdir -p "$corpus" "$artifacts"
    args=(-max_total_time="$seconds" -max_len="$(max_len_of "$target")"
        -artifact_prefix="$artifacts/" -print_final_stats=1)
    if [[ "$target" == reader || "$target" == document ]]; then
        args+=(-dict="$fuzz/dict/json.dict")
    fi
    echo "fuzz: $target for ${seconds}s (log: ${log#"$root"/})"
    rc=0
    nice -n 10 "$bin_dir/$target" "${args[@]}" "$corpus" >"$log" 2>&1 || rc=$?
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    if [[ $rc -eq 0 ]]; then
        result="ok"
    else
        result="CRASH (exit $rc)"
        failed=1
        grep -E "panicked at|^thread|Test unit written to|ERROR: libFuzzer" "$log" | head -8 >&2 || true
    fi
    summary+=("$(printf '%-18s %6ss %12s runs  %s' "$target" "$seconds" "${runs:-?}" "$result")")
done

echo "fuzz $mode summary:"
printf '  %s\n' "${summary[@]}"
if [[ $failed -ne 0 ]]; then
    echo "fuzz: a target crashed; reproduce with: (cd crates/dory-wire && cargo +nightly fuzz run -O -a <target> <artifact>)" >&2
    exit 1
fi
