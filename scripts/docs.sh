#!/usr/bin/env bash
# `make docs`: the API reference of the three packages in one folder,
# target/docs/ (open target/docs/index.html):
#   rust/    rustdoc of the dory-wire crate (warnings, broken intra-doc links included, fail)
#   python/  pdoc of the dory_wire package (an import error or a warning fails)
#   js/      typedoc of the npm package's declarations (warnings fail)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/docs"
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '== docs: %s\n' "$*"; }

bash "$ROOT/scripts/setup-release.sh"
bash "$ROOT/scripts/setup-python.sh" >/dev/null # builds dory_wire's native module in place
rm -rf "$OUT"
mkdir -p "$OUT"

step "rustdoc (dory-wire)"
RUSTDOCFLAGS="-D warnings -D rustdoc::broken_intra_doc_links" \
    cargo doc --quiet --no-deps -p dory-wire --target-dir "$ROOT/target/docs-build"
cp -r "$ROOT/target/docs-build/doc" "$OUT/rust"

step "pdoc (dory_wire)"
PYTHONPATH="$ROOT/python" "$ROOT/target/release-tools/venv/bin/python" -W error -m pdoc \
    --docformat restructuredtext dory_wire -o "$OUT/python"

step "typedoc (dory-wire for JS)"
(cd "$ROOT/tests/release" && npx --no-install typedoc --entryPoints ../../npm/src/index.d.ts \
    --out "$OUT/js" --name "dory-wire (JavaScript)" --readme none --disableSources \
    --treatWarningsAsErrors --logLevel Warn)

version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n 1)"
cat >"$OUT/index.html" <<HTML
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dory-wire $version API reference</title></head>
<body>
<h1>dory-wire $version: API reference</h1>
<p>One decoder, three packages, one vocabulary (the same names modulo case).</p>
<ul>
<li><a href="rust/dory_wire/index.html">Rust: the dory-wire crate</a></li>
<li><a href="python/dory_wire.html">Python: the dory_wire package</a></li>
<li><a href="js/index.html">JavaScript: the dory-wire npm package</a></li>
</ul>
</body></html>
HTML
for page in rust/dory_wire/index.html python/dory_wire.html js/index.html; do
    [[ -f "$OUT/$page" ]] || { echo "docs: $page was not generated" >&2; exit 1; }
done
step "ok: $OUT/index.html"
