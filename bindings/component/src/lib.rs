//! # dory-wire as a WebAssembly component
//!
//! The guest side of the WIT package `dory:wire` (`wit/`): the dory-wire core
//! (the process-output decoder and the preview bounder) exported to any
//! component host — wasmtime (Rust, CLI, Python), jco (JavaScript) and the
//! others. This crate converts types and nothing else: every decision is the
//! core's.
//!
//! Built for `wasm32-unknown-unknown`, the module imports nothing but its own
//! resource intrinsics (no WASI), and `wasm-tools component new` turns it
//! into a component without an adapter (`scripts/component.sh`).
//!
//! ## Unsafe code
//!
//! `wit-bindgen` generates the canonical-ABI glue (exported `extern "C"`
//! functions reading and writing linear memory), which is `unsafe`. That
//! generated code lives in [`bindings`] alone, the only place where
//! `unsafe_code` is allowed; every module of our own forbids it.
//!
//! ## Layout
//!
//! - [`convert`]: errors, streams and cursors, shared by both interfaces;
//! - [`decode`]: the `reader` resource;
//! - [`preview`]: `bound`, `pending-spill` and `streaming-bounder`.
#![deny(unsafe_code)]

pub mod convert;
pub mod decode;
pub mod preview;

/// The code `wit-bindgen` generates from `wit/` (types, traits and the
/// export glue), and the `export!` that ties it to [`Component`].
///
/// Generated code: not documented item by item, and the only module allowed
/// to hold `unsafe` code.
#[allow(
    unsafe_code,
    missing_docs,
    unreachable_pub,
    clippy::all,
    clippy::pedantic
)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "dory-wire",
    });

    #[cfg(target_arch = "wasm32")]
    use crate::Component;

    // The export glue only on wasm32: its symbol names (`dory:wire/decode@…`)
    // are not valid for a host linker, and host builds only run the tests.
    #[cfg(target_arch = "wasm32")]
    export!(Component);
}

/// The type that implements the three exported interfaces.
#[derive(Debug)]
pub struct Component;
