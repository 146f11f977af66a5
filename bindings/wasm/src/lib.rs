//! WebAssembly bindings of [`dory_wire`] for the npm package `dory-wire`.
//!
//! This crate only converts types and maps errors; every decision about the
//! protocol is taken by the core. The JavaScript layer in `npm/src` wraps these
//! low-level exports into the public, camelCase API (`OutputReader`, `bound`,
//! error classes), so nothing here is meant to be called by users directly.
//!
//! # Crossing the boundary
//!
//! Calls between JavaScript and WebAssembly are cheap but not free, and
//! building JavaScript objects from Rust costs one call per property. So each
//! `feed` of a reader returns one number; its events are then read in place in
//! the module's memory (`wasm_memory`): one record of three `f64` per event
//! (tag, start, end), and the output bytes of all of them in one buffer (one
//! copy out of wasm memory per call, whatever the number of events). Only the
//! rare events that are not output, and errors, cross as a small JSON document
//! (parsed with one `JSON.parse`).
//!
//! # Integers
//!
//! JavaScript numbers are exact only up to `Number.MAX_SAFE_INTEGER`
//! (2^53 − 1). Offsets and exit codes beyond that are never rounded: the value
//! is reported as an `integer_out_of_range` error instead (see [`json`]).
#![forbid(unsafe_code)]

pub mod json;
mod preview;
mod reader;
mod text;

pub use preview::{WasmBounded, WasmBounder, WasmStreamingBounder};
pub use reader::{wasm_memory, WasmReader};
pub use text::WasmUtf8Decoder;

/// The size of the module's WebAssembly memory in bytes (for diagnostics and
/// the leak tests: it grows when memory is not released).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn memory_bytes() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        (core::arch::wasm32::memory_size::<0>() * 65536) as f64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}
