#!/usr/bin/env bash
# Checks of the repository itself, stdlib Python only, a second or two:
# the format and coverage of the shared vectors (tests/vectors/check_vectors.py),
# that the repository stands alone — every relative link of every
# Markdown file resolves, nothing names a file outside it
# (tests/api/check_standalone.py) — that the corpus of real tool logs
# matches its manifest (tests/corpus/check_corpus.py) — that no Rust modules of the core's
# preview or the Rust client import each other in a circle (tests/api/check_module_cycles.py) —
# and that the files generated from the
# asyncio client (its sync twin and tests) are up to date (scripts/unasync.py) —
# and that the writer of docs/bench.md's results works on its text (scripts/bench-docs.py).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== vectors: format and coverage (tests/vectors/check_vectors.py)"
python3 tests/vectors/check_vectors.py
echo "== the repository stands alone (tests/api/check_standalone.py)"
python3 tests/api/check_standalone.py
echo "== the corpus of real tool logs matches its manifest (tests/corpus/check_corpus.py)"
python3 tests/corpus/check_corpus.py
echo "== no Rust modules import each other in a circle (tests/api/check_module_cycles.py)"
python3 tests/api/check_module_cycles.py >/dev/null || python3 tests/api/check_module_cycles.py
echo "== the synchronous client is generated from the asyncio one (scripts/unasync.py --check)"
python3 scripts/unasync.py --check
echo "== make bench's writer of docs/bench.md (scripts/bench-docs.py --self-test)"
python3 scripts/bench-docs.py --self-test
