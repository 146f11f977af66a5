#!/usr/bin/env bash
# `make test`: every test suite, even after one fails, then the summary
# (target/test-summary.txt: PASS, FAIL or SKIP with the reason, per suite)
# and the time of every build and test step (target/timings/test.tsv, the
# last run's in test.prev.tsv); fails if any suite failed.
#
#   1. installs that wait on the network start in the background (browsers
#      and nginx from Debian, the JavaScript runtimes, the release, docs and
#      component tools): they download while cargo compiles;
#   2. builds, once (scripts/build.sh): the workspace's binaries and
#      examples, the Python package, the npm package, the component;
#   3. runs the suites (SUITES, or the names given: bash scripts/test.sh rust npm).
#      Suites wait for the background installs only where they need them.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
# shellcheck source=timing.sh
source "$ROOT/scripts/timing.sh"
# shellcheck source=suite.sh
source "$ROOT/scripts/suite.sh"

SUITES=(repo rust python component npm release docs runtimes e2e fuzz-smoke)
[[ $# -eq 0 ]] || SUITES=("$@")

mkdir -p target
export DORY_TEST_SUMMARY="$ROOT/target/test-summary.txt"
: >"$DORY_TEST_SUMMARY"
timing_begin test
LOGS="$ROOT/target/timings/test-logs"
rm -rf "$LOGS"
mkdir -p "$LOGS"

# 1. Downloads in the background. apt-get takes one lock: its installs run
# one after another in one job.
timed setup "apt: browsers, nginx (background)" \
    bash -c 'bash scripts/setup-browsers.sh; bash scripts/setup-nginx.sh >/dev/null' >"$LOGS/apt.log" 2>&1 &
apt_job=$!
timed setup "npm ci: runtimes, jco (background)" \
    bash -c 'bash scripts/setup-runtimes.sh && bash scripts/component.sh --setup' >"$LOGS/js-tools.log" 2>&1 &
js_job=$!
timed setup "pip: release and docs tools (background)" \
    bash -c 'bash scripts/setup-release.sh && bash scripts/docs.sh --setup' >"$LOGS/py-tools.log" 2>&1 &
py_job=$!

# wait_for JOB NAME: the background job's log, once it has ended.
declare -A waited=()
wait_for() {
    [[ -z "${waited[$2]:-}" ]] || return 0
    waited[$2]=1
    wait "$1" || echo "test: the background install '$2' failed (each suite that needs it installs again, or skips saying why)"
    sed 's/^/   /' "$LOGS/$2.log"
}

# 2. The builds every suite shares.
failed=0
build_failed=0
echo "== make test: building (scripts/build.sh)"
bash scripts/build.sh native || build_failed=1
bash scripts/build.sh python --group test || build_failed=1
bash scripts/build.sh npm || build_failed=1
if [[ $build_failed -ne 0 ]]; then
    echo "FAIL build (see above)" >>"$DORY_TEST_SUMMARY"
    failed=1
fi
export DORY_REFSERVER_BIN="${DORY_REFSERVER_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/dory-refserver}"

# 3. The suites.
for suite in "${SUITES[@]}"; do
    case "$suite" in
    component) wait_for "$js_job" js-tools; wait_for "$py_job" py-tools ;;
    release | docs) wait_for "$py_job" py-tools ;;
    runtimes) wait_for "$js_job" js-tools; wait_for "$apt_job" apt ;;
    npm) wait_for "$apt_job" apt ;;
    e2e) wait_for "$apt_job" apt ;;
    esac
    echo
    echo "== make test: $suite"
    timed suite "$suite" make --no-print-directory "test-$suite" || failed=1
done
wait_for "$apt_job" apt
wait_for "$js_job" js-tools
wait_for "$py_job" py-tools

suite_print || failed=1
timing_summary "make test"
# What the run left on disk (a CI machine's disk is not always large).
echo "make test: target/ holds $(du -sh "${CARGO_TARGET_DIR:-$ROOT/target}" 2>/dev/null | cut -f1); $(df -h --output=avail "$ROOT" | tail -1 | tr -d ' ') free"
exit "$failed"
