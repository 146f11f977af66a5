#!/usr/bin/env bash
# `make docs`: the documentation site, one static folder, target/docs/
# (open target/docs/index.html, or serve the folder), built by mkdocs-material
# from scripts/site/mkdocs.yml:
#   - the guides: docs/*.md themselves (the landing page is docs/index.md);
#   - api/rust/    rustdoc of the crates dory-wire and dory-wire-client
#                  (warnings, broken intra-doc links included, fail);
#   - api/python/  pdoc of dory_wire and dory_wire.client (an import error or a warning fails);
#   - api/js/      typedoc of the npm package's two entry points,
#                  npm/src/index.d.ts and npm/src/client.d.ts (warnings fail);
#   each reference page links back to the site (scripts/site/backlink.py).
# `mkdocs build --strict` fails on a broken link or anchor of a guide,
# links into the references included. Why mkdocs-material: docs/site.md.
#
# Tools, idempotent and quick when present: a venv of its own at
# target/docs-tools/venv with scripts/site/requirements.txt (pinned),
# tests/release/node_modules (typedoc; npm ci), and the Python package's
# native module (scripts/setup-python.sh). `bash scripts/docs.sh --setup`
# installs the tools and stops. rustdoc runs with the flags and in the
# target dir of scripts/test-rust.sh's, so the two document the crates once.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/docs"
API="$ROOT/target/docs-api"
VENV="$ROOT/target/docs-tools/venv"
REQUIREMENTS="$ROOT/scripts/site/requirements.txt"
STAMP="$VENV/.dory-wire-docs-tools"
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '== docs: %s\n' "$*"; }
start=$SECONDS

if [[ ! -x "$VENV/bin/python" ]]; then
    step "creating $VENV"
    mkdir -p "$(dirname "$VENV")"
    "${PYTHON:-python3}" -m venv "$VENV"
    rm -f "$STAMP"
fi
wanted="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [[ ! -f "$STAMP" ]] || [[ "$(cat "$STAMP")" != "$wanted" ]]; then
    step "installing scripts/site/requirements.txt into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
    printf '%s' "$wanted" >"$STAMP"
fi
if [[ ! -d "$ROOT/tests/release/node_modules" ]] ||
    [[ "$ROOT/tests/release/package-lock.json" -nt "$ROOT/tests/release/node_modules/.package-lock.json" ]]; then
    step "installing typedoc (npm ci in tests/release)"
    (cd "$ROOT/tests/release" && npm ci --no-audit --no-fund --silent)
fi
if [[ "${1:-}" == --setup ]]; then
    step "tools ready"
    exit 0
fi
bash "$ROOT/scripts/setup-python.sh" >/dev/null # builds dory_wire's native module in place

rm -rf "$API"
mkdir -p "$API"
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT

# The three references at once (each is mostly one process); then mkdocs.
step "rustdoc (dory-wire, dory-wire-client), pdoc (dory_wire, dory_wire.client), typedoc (dory-wire, dory-wire/client)"
(
    RUSTDOCFLAGS="-D warnings -D rustdoc::broken_intra_doc_links" \
        cargo doc --quiet --no-deps -p dory-wire -p dory-wire-client \
        --features dory-wire-client/blocking
    cp -r "${CARGO_TARGET_DIR:-$ROOT/target}/doc" "$API/rust"
) >"$LOGS/rustdoc" 2>&1 &
rustdoc=$!
PYTHONPATH="$ROOT/python" "$VENV/bin/python" -W error -m pdoc \
    --docformat restructuredtext dory_wire dory_wire.client -o "$API/python" >"$LOGS/pdoc" 2>&1 &
pdoc=$!
(cd "$ROOT/tests/release" && npx --no-install typedoc \
    --entryPoints ../../npm/src/index.d.ts ../../npm/src/client.d.ts \
    --out "$API/js" --name "dory-wire (JavaScript)" --readme none --disableSources \
    --treatWarningsAsErrors --logLevel Warn) >"$LOGS/typedoc" 2>&1 &
typedoc=$!
failed=0
for tool in rustdoc pdoc typedoc; do
    if ! wait "${!tool}"; then
        echo "docs: $tool failed:" >&2
        cat "$LOGS/$tool" >&2
        failed=1
    fi
done
[[ $failed -eq 0 ]]

# rustdoc of two crates has no page of its own at its root (its help and
# settings pages link there): one naming both.
cat >"$API/rust/index.html" <<'HTML'
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dory-wire: Rust API reference</title></head>
<body>
<h1>Rust API reference</h1>
<ul>
<li><a href="dory_wire/index.html">dory-wire</a>: the sans-IO core</li>
<li><a href="dory_wire_client/index.html">dory-wire-client</a>: the HTTP client (reqwest + tokio, and <code>blocking</code>)</li>
</ul>
<p><a href="../../reference.html">All the API references</a></p>
</body></html>
HTML
python3 "$ROOT/scripts/site/backlink.py" "$API"

step "mkdocs build --strict (scripts/site/mkdocs.yml)"
DORY_DOCS_API="$API" NO_MKDOCS_2_WARNING=1 "$VENV/bin/python" -m mkdocs build --strict --quiet \
    --config-file "$ROOT/scripts/site/mkdocs.yml" --site-dir "$OUT"

for page in index.html run.html component.html reference.html api/rust/dory_wire/index.html \
    api/rust/dory_wire_client/index.html api/python/dory_wire.html api/python/dory_wire/client.html \
    api/js/modules/index.html api/js/modules/client.html; do
    [[ -f "$OUT/$page" ]] || { echo "docs: $page was not generated" >&2; exit 1; }
done
step "ok: $OUT/index.html ($((SECONDS - start)) s)"
