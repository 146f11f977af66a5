#!/usr/bin/env bash
# The summary that `make test` prints at its end: one line per suite that ran
# ("PASS name (12s)", "FAIL name (exit 1, 12s)") and one per suite or part of
# a suite that was skipped ("SKIP name: reason"), in target/test-summary.txt.
#
#   bash scripts/suite.sh run NAME CMD...   run one suite and record its result
#   bash scripts/suite.sh print             print the summary; exit 1 if a suite failed
#
# A test that skips all or part of its work records why: one line
# "SKIP <name>: <reason>" appended to the file named by $DORY_TEST_SUMMARY
# when that variable is set (it is under `make test`; run alone, nothing is
# written). From bash, with the function below, which also prints the line:
#
#   source scripts/suite.sh; summary_skip "npm browser" "no Chromium here"
#
# From another language, append the same line to the file (Node:
# fs.appendFileSync(process.env.DORY_TEST_SUMMARY, `SKIP ${name}: ${reason}\n`)).
#
# A suite that records "SKIP NAME: ..." under its own NAME and exits 0 is
# reported as skipped, not passed.
#
# A check that fails for a known reason being fixed elsewhere may be marked
# an expected failure: one line "XFAIL <name>: <reason>" in the same file
# (tests/runtimes/runtimes.test.mjs writes them). It neither passes nor fails
# its suite; the summary shows it, so it is never silent.

summary_skip() {
    echo "SKIP $1: $2"
    if [[ -n "${DORY_TEST_SUMMARY:-}" ]]; then
        printf 'SKIP %s: %s\n' "$1" "$2" >>"$DORY_TEST_SUMMARY"
    fi
}

suite_run() {
    local name="$1" start=$SECONDS rc=0
    shift
    "$@" || rc=$?
    local took=$((SECONDS - start))
    [[ -n "${DORY_TEST_SUMMARY:-}" ]] || return "$rc"
    if [[ $rc -ne 0 ]]; then
        printf 'FAIL %s (exit %s, %ss)\n' "$name" "$rc" "$took" >>"$DORY_TEST_SUMMARY"
    elif ! grep -q "^SKIP $name: " "$DORY_TEST_SUMMARY"; then
        printf 'PASS %s (%ss)\n' "$name" "$took" >>"$DORY_TEST_SUMMARY"
    fi
    return "$rc"
}

suite_print() {
    local file="${DORY_TEST_SUMMARY:?DORY_TEST_SUMMARY is not set}"
    echo
    echo "== make test: summary (${file#"$PWD"/})"
    if [[ ! -s "$file" ]]; then
        echo "no suite ran"
        return 1
    fi
    sed 's/^/   /' "$file"
    local failed
    failed="$(sed -n 's/^FAIL \([^ ]*\) .*/\1/p' "$file" | tr '\n' ' ')"
    if [[ -n "$failed" ]]; then
        echo "== make test: FAILED: ${failed% }"
        return 1
    fi
    echo "== make test: every suite that ran passed"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -uo pipefail
    case "${1:-}" in
    run)
        shift
        [[ $# -ge 2 ]] || { echo "usage: $0 run NAME CMD..." >&2; exit 2; }
        suite_run "$@"
        ;;
    print) suite_print ;;
    *)
        echo "usage: $0 run NAME CMD... | print" >&2
        exit 2
        ;;
    esac
fi
