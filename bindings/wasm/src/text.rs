//! `WasmUtf8Decoder`: the core's incremental UTF-8 decoder.

use dory_wire::Utf8Decoder;
use wasm_bindgen::prelude::*;

/// Incremental UTF-8 decoding that never splits a character.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct WasmUtf8Decoder {
    inner: Utf8Decoder,
}

#[wasm_bindgen]
impl WasmUtf8Decoder {
    /// A decoder with nothing pending.
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmUtf8Decoder {
        WasmUtf8Decoder::default()
    }

    /// Decodes the next piece; returns the text it completes.
    pub fn push(&mut self, data: &[u8]) -> String {
        let mut out = String::new();
        self.inner.push(data, &mut out);
        out
    }

    /// Flushes an incomplete trailing character as U+FFFD.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        self.inner.finish(&mut out);
        out
    }
}
