#!/usr/bin/env bash
# The WebAssembly component's tests:
#   - build it, wrap it, validate it, and transpile it for Node with jco
#     (scripts/component.sh --jco, which installs what is missing; the
#     component is written to target/component and npm/component)
#   - the guest crate's unit tests on the host (its fmt and clippy run in
#     scripts/test-rust.sh with the rest of the workspace)
#   - every vector of tests/vectors through it from Node (jco) and from
#     Python (wasmtime-py), whole, byte by byte and at seeded random splits
#   - the npm package ships it (tests/component/package.test.mjs)
#   - the host examples, from Node and from Python, print the expected text
#     (each runs an agent call with the `run` resource against its own
#     reference server, target/debug/dory-refserver, built here), and the
#     README's Python example prints what the README shows
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
TESTS="$ROOT/tests/component"
# shellcheck source=timing.sh
source "$ROOT/scripts/timing.sh"
PY="$ROOT/target/component/venv/bin/python"

echo "== test-component: build, wrap and validate the component; transpile it with jco"
timed build "component: build, wrap, validate, jco transpile" bash scripts/component.sh --jco

echo "== test-component: unit tests of bindings/component (host)"
# The default target dir: after scripts/test-rust.sh (clippy of the workspace,
# the core's tests) only the test binary of this crate is left to build.
timed test "component: cargo test -p dory-wire-component (host)" cargo test --quiet -p dory-wire-component

echo "== test-component: every vector from Node (jco)"
timed test "component: every vector from Node (jco)" node --test "$TESTS"/*.test.mjs

echo "== test-component: ruff (tests/component)"
"$ROOT/target/component/venv/bin/ruff" check --quiet --config tests/ruff.toml tests/component
"$ROOT/target/component/venv/bin/ruff" format --quiet --check --config tests/ruff.toml tests/component

echo "== test-component: every vector from Python (wasmtime-py)"
timed test "component: every vector from Python (wasmtime-py)" "$PY" "$TESTS/run_vectors.py"

echo "== test-component: the host examples print the expected text"
# Each host starts its own reference server on a free loopback port (and
# stops it): the agent call of section 5 of each.
bash scripts/build.sh native
export DORY_REFSERVER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/dory-refserver"
unset DORY_URL
diff -u "$TESTS/host.expected.txt" <(node "$TESTS/host.mjs")
diff -u "$TESTS/host.expected.txt" <("$PY" "$TESTS/host.py")
echo "host examples: 2 passed, 0 failed"

echo "== test-component: the README's component example prints what the README shows"
"$PY" "$TESTS/readme_example.py" "$ROOT/README.md" "$ROOT/target/component"
