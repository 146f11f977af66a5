//! Transcript and incremental UTF-8 text views.
use crate::{Event, Stream};

/// An incremental UTF-8 decoder that never splits a character.
#[derive(Debug, Default, Clone)]
pub struct Utf8Decoder {
    _p: (),
}

impl Utf8Decoder {
    /// A new decoder.
    pub fn new() -> Self {
        Self::default()
    }
    /// Decodes a chunk, appending text to `out`.
    pub fn push(&mut self, data: &[u8], out: &mut String) {
        let _ = (data, out);
        todo!()
    }
    /// Flushes an incomplete trailing sequence as U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        let _ = out;
        todo!()
    }
}

/// One stream of a transcript.
#[derive(Debug, Default, Clone)]
pub struct StreamTranscript {
    _p: (),
}

/// Per-stream bytes with skipped ranges kept visible.
#[derive(Debug, Default, Clone)]
pub struct Transcript {
    _p: (),
}

impl Transcript {
    /// A new transcript.
    pub fn new() -> Self {
        Self::default()
    }
    /// Records an event.
    pub fn push(&mut self, event: &Event) {
        let _ = event;
        todo!()
    }
    /// One stream.
    pub fn stream(&self, stream: Stream) -> &StreamTranscript {
        let _ = stream;
        todo!()
    }
}
