# Sourced by scripts/setup-wasm.sh and scripts/component.sh: which cargo
# builds for wasm32-unknown-unknown (docs/wasm-toolchain.md), chosen as
# npm/build.mjs's wasmCargo() chooses:
#   - the `cargo` on PATH when its rustc ($RUSTC, else `rustc` on PATH) has
#     the target's std installed (`rustup target add wasm32-unknown-unknown`:
#     `rustc --print target-libdir --target wasm32-unknown-unknown` holds
#     libstd-*.rlib);
#   - else Debian's: /usr/bin/cargo with /usr/bin/rustc, compiling std from
#     rust-web-src (RUSTC_BOOTSTRAP=1 -Z build-std=std,panic_abort).
#
#   wasm_cargo_native        true when the first route is available
#   wasm_cargo_choose        sets WASM_CARGO (the command, `build` included,
#                            and its flags), WASM_CARGO_ENV (VAR=value words
#                            for env) and WASM_CARGO_ROUTE (a description)

wasm_cargo_native() {
    local rustc="${RUSTC:-rustc}" libdir
    libdir="$("$rustc" --print target-libdir --target wasm32-unknown-unknown 2>/dev/null)" || return 1
    compgen -G "$libdir/libstd-*.rlib" >/dev/null
}

wasm_cargo_choose() {
    if wasm_cargo_native; then
        WASM_CARGO=(cargo build)
        WASM_CARGO_ENV=()
        WASM_CARGO_ROUTE="the cargo on PATH (${RUSTC:-rustc} has the wasm32-unknown-unknown target)"
    else
        WASM_CARGO=(/usr/bin/cargo build -Z build-std=std,panic_abort)
        WASM_CARGO_ENV=(RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1)
        WASM_CARGO_ROUTE="Debian's rustc-web, std built from rust-web-src"
    fi
}
