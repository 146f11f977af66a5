#!/usr/bin/env bash
# The README's Rust program is crates/dory-wire-client/examples/readme.rs,
# byte for byte; it runs against the reference server, cleanly and with every
# output response cut after 80 bytes, and prints what the README says.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
python3 - <<'PY'
import re, sys
readme = open("README.md", encoding="utf-8").read()
section = readme.split("\n## Rust\n", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"```rust\n(.*?)```", section, flags=re.S)
example = open("crates/dory-wire-client/examples/readme.rs", encoding="utf-8").read()
if not blocks or blocks[0] != example:
    sys.exit("README.md: the first Rust block of '## Rust' is not crates/dory-wire-client/examples/readme.rs")
print("README's Rust program == crates/dory-wire-client/examples/readme.rs")
PY
bash scripts/build.sh native
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}/debug"
WORK="$(mktemp -d)"
PID=""
cleanup() { [[ -n "$PID" ]] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for flags in "" "--drop-after-bytes 80"; do
    # shellcheck disable=SC2086
    "$TARGET/dory-refserver" --port 0 $flags >"$WORK/out" 2>"$WORK/err" &
    PID=$!
    URL=""
    for _ in $(seq 1 100); do
        URL="$(sed -n 's/^listening on //p' "$WORK/out")"
        [[ -n "$URL" ]] && break
        sleep 0.1
    done
    [[ -n "$URL" ]] || { cat "$WORK/err" >&2; echo "dory-refserver printed no URL" >&2; exit 1; }
    out="$(DORY_URL="$URL" "$TARGET/examples/readme" 2>"$WORK/readme.err")" || { cat "$WORK/readme.err" >&2; exit 1; }
    [[ "$out" == "stderr: notice" ]] || { echo "the README program printed: $out" >&2; exit 1; }
    echo "readme.rs ${flags:-(clean)}: $out ($(grep -c '^reconnect' "$WORK/readme.err" || true) reconnects)"
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
done
