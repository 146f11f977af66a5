//! `WasmTranscript`: the core [`Transcript`] behind the JavaScript `Transcript`.
//!
//! A reader's `feed_into` writes output bytes straight into it, inside wasm
//! memory, so collecting a stream costs no JavaScript object per frame.

use dory_wire::{Event, Transcript};
use wasm_bindgen::prelude::*;

use crate::args::stream;
use crate::json::{self, OutOfRange};

/// A whole number of a JavaScript argument as `u64` (the JavaScript layer
/// has already checked it is a safe integer).
fn offset(v: f64) -> u64 {
    if v.is_finite() && v >= 0.0 {
        v as u64
    } else {
        0
    }
}

/// Per-stream bytes, skipped ranges and the exit, kept in wasm memory.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct WasmTranscript {
    inner: Transcript,
}

#[wasm_bindgen]
impl WasmTranscript {
    /// An empty transcript.
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmTranscript {
        WasmTranscript::default()
    }

    /// Records output bytes `[start, end)` of stream `tag`.
    pub fn push_output(&mut self, tag: u8, data: &[u8], start: f64, end: f64) {
        self.inner
            .push_output(stream(tag), data, offset(start), offset(end));
    }

    /// Records a skipped range `[start, end)` of stream `tag`.
    pub fn push_skipped(&mut self, tag: u8, start: f64, end: f64) {
        self.inner.push(&Event::Skipped {
            stream: stream(tag),
            start: offset(start),
            end: offset(end),
        });
    }

    /// Records the exit (`exit_code` undefined when killed or timed out).
    pub fn push_exit(&mut self, exit_code: Option<f64>, timed_out: bool) {
        self.inner.push_exit(exit_code.map(|c| c as i64), timed_out);
    }

    /// Ends both text views: an incomplete last character becomes U+FFFD.
    pub fn finish(&mut self) {
        self.inner.finish();
    }

    /// The address in wasm memory of the delivered bytes of stream `tag`
    /// (valid until the next call that changes the transcript): JavaScript
    /// copies them out once, with no copy inside wasm memory first.
    pub fn bytes_ptr(&self, tag: u8) -> u32 {
        crate::feed::address(self.inner.stream(stream(tag)).bytes().as_ptr())
    }

    /// The number of delivered bytes of stream `tag`.
    pub fn byte_length(&self, tag: u8) -> f64 {
        self.inner.stream(stream(tag)).bytes().len() as f64
    }

    /// The text view of stream `tag`.
    pub fn text(&self, tag: u8) -> String {
        self.inner.stream(stream(tag)).text()
    }

    /// The skipped ranges of stream `tag` as `[[start,end],…]`, or an error
    /// object for an offset above `Number.MAX_SAFE_INTEGER`.
    pub fn skipped_json(&self, tag: u8) -> String {
        let mut out = String::from("[");
        let result: Result<(), OutOfRange> = (|| {
            for (i, range) in self.inner.stream(stream(tag)).skipped().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('[');
                json::push_u64(&mut out, "skipped start offset", range.start)?;
                out.push(',');
                json::push_u64(&mut out, "skipped end offset", range.end)?;
                out.push(']');
            }
            Ok(())
        })();
        match result {
            Ok(()) => {
                out.push(']');
                out
            }
            Err(e) => format!("{{\"error\":{}}}", e.to_json()),
        }
    }

    /// True when nothing of stream `tag` was skipped.
    pub fn is_complete(&self, tag: u8) -> bool {
        self.inner.stream(stream(tag)).is_complete()
    }

    /// `null` before the exit, else `{"exitCode":…,"timedOut":…}` (or an
    /// error object for an exit code a JavaScript number cannot hold).
    pub fn exit_json(&self) -> String {
        match self.inner.exit() {
            None => "null".to_owned(),
            Some((code, timed_out)) => {
                let mut out = String::from("{\"exitCode\":");
                match json::push_opt_i64(&mut out, "exit_code", code) {
                    Ok(()) => {
                        out.push_str(if timed_out {
                            ",\"timedOut\":true}"
                        } else {
                            ",\"timedOut\":false}"
                        });
                        out
                    }
                    Err(e) => format!("{{\"error\":{}}}", e.to_json()),
                }
            }
        }
    }
}

impl WasmTranscript {
    /// The core transcript, for a reader's `feed_into`.
    pub(crate) fn core_mut(&mut self) -> &mut Transcript {
        &mut self.inner
    }
}
