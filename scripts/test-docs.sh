#!/usr/bin/env bash
# The documentation site (docs/site.md), checked as it is published:
#   - `make docs` (scripts/docs.sh): the site with `mkdocs build --strict`
#     (a broken link or anchor of a guide fails), the API references with
#     warnings denied;
#   - every internal href and #anchor of the built HTML resolves, the links
#     into and out of the API references included (tests/docs/check_links.py);
#   - the guides' python, typescript and rust blocks compile, type-check, or
#     run against the reference server (tests/docs/check_code.py, as
#     tests/docs/code.toml says);
#   - headless Chromium searches the site for "run", follows the result to the
#     agent call, with no console error (tests/docs/search.test.mjs); skipped,
#     saying so, only where Chromium could not be installed.
# Its own Python is linted with ruff (tests/ruff.toml).
# Installs what it needs (scripts/setup-wasm.sh: Chromium where apt-get is,
# npm's typescript and playwright-core; scripts/docs.sh: its venv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '== test-docs: %s\n' "$*"; }
cd "$ROOT"
# shellcheck source=suite.sh
source "$ROOT/scripts/suite.sh"

bash scripts/setup-wasm.sh >/dev/null

step "ruff (tests/docs, scripts/site)"
bash scripts/setup-python.sh >/dev/null
"$ROOT/.venv/bin/ruff" check --quiet --config tests/ruff.toml tests/docs scripts/site
"$ROOT/.venv/bin/ruff" format --quiet --check --config tests/ruff.toml tests/docs scripts/site

step "make docs (mkdocs build --strict, rustdoc, pdoc, typedoc)"
start=$SECONDS
bash scripts/docs.sh
step "make docs took $((SECONDS - start)) s"

step "every internal link and anchor of the built site (tests/docs/check_links.py)"
python3 tests/docs/check_links.py target/docs

step "the JSON Schemas are published as they are (docs/schema -> target/docs/schema)"
for schema in docs/schema/*.schema.json; do
    cmp "$schema" "target/docs/schema/$(basename "$schema")"
done

step "the guides' code blocks (tests/docs/check_code.py)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# The rlibs the Rust blocks are checked against: those of the README's
# example (scripts/rust-readme.sh builds the same), and the reference server.
# (scripts/build.sh native's command line: up to date after the build, it
# compiles nothing and still lists every artifact.)
bash scripts/build.sh native --message-format=json >"$WORK/cargo.json"
python3 - "$WORK/cargo.json" >"$WORK/externs" <<'PY'
import json, sys
found = {}
for line in open(sys.argv[1], encoding="utf-8"):
    message = json.loads(line)
    target = message.get("target", {})
    if message.get("reason") == "compiler-artifact" and target.get("name") in ("dory_wire", "dory_wire_client", "tokio") and "lib" in target.get("kind", []):
        found[target["name"]] = next(f for f in message["filenames"] if f.endswith(".rlib"))
if len(found) != 3:
    sys.exit(f"test-docs: cargo built no rlib of {sorted({'dory_wire', 'dory_wire_client', 'tokio'} - set(found))}")
print("\n".join(f"{name}={path}" for name, path in sorted(found.items())))
PY
DORY_PYTHON="$ROOT/.venv/bin/python" \
    DORY_REFSERVER="${CARGO_TARGET_DIR:-$ROOT/target}/debug/dory-refserver" \
    DORY_RUST_EXTERNS="$WORK/externs" \
    python3 tests/docs/check_code.py

CHROMIUM="${DORY_CHROMIUM:-/usr/bin/chromium}"
if [[ -x "$CHROMIUM" ]]; then
    step "the site in headless Chromium: search, the agent call, a reference and back (tests/docs/search.test.mjs)"
    node --test tests/docs/search.test.mjs
else
    summary_skip "docs browser" "Chromium is not installed at $CHROMIUM (scripts/setup-browsers.sh installs it where apt-get is)"
fi
