//! The decoders a competent Rust author writes by hand instead of using
//! `dory-wire`, and the floor nothing line-based can beat.
//!
//! [`SerdeLines`] splits the body into lines with `memchr` (copying only a
//! line split across pieces), deserializes each line into a flat struct with
//! borrowed strings, base64-decodes when asked, checks the offsets and appends
//! to one `Vec` per stream: the same work the reader plus a collecting loop
//! does, minus the protocol's corner cases (unions per endpoint, strict
//! base64 trailing bits, lone surrogates, gap frames, size limits).

use std::borrow::Cow;

use base64::Engine as _;
use serde::Deserialize;

/// One NDJSON frame, as a hand-written client declares it.
#[derive(Debug, Deserialize)]
struct Frame<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    data: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    encoding: Option<Cow<'a, str>>,
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    exit_code: Option<i64>,
}

/// Why the hand-written decoder stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineError(pub String);

/// A serde_json-per-line decoder collecting each stream's bytes.
#[derive(Debug, Default)]
pub struct SerdeLines {
    partial: Vec<u8>,
    /// stdout, stderr.
    pub streams: [Vec<u8>; 2],
    /// The exit code, once `exit` was seen.
    pub exit: Option<Option<i64>>,
    scratch: Vec<u8>,
}

impl SerdeLines {
    /// A decoder at offset zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next piece of the body.
    pub fn feed(&mut self, mut piece: &[u8]) -> Result<(), BaselineError> {
        if !self.partial.is_empty() {
            let Some(nl) = memchr::memchr(b'\n', piece) else {
                self.partial.extend_from_slice(piece);
                return Ok(());
            };
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(&piece[..nl]);
            self.line(&line)?;
            line.clear();
            self.partial = line;
            piece = &piece[nl + 1..];
        }
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', piece) {
            self.line(&piece[start..nl])?;
            start = nl + 1;
        }
        self.partial.extend_from_slice(&piece[start..]);
        Ok(())
    }

    fn line(&mut self, line: &[u8]) -> Result<(), BaselineError> {
        if line.is_empty() {
            return Ok(());
        }
        if self.exit.is_some() {
            return Err(BaselineError("frame after exit".into()));
        }
        let frame: Frame<'_> =
            serde_json::from_slice(line).map_err(|e| BaselineError(e.to_string()))?;
        let index = match &*frame.kind {
            "stdout" => 0,
            "stderr" => 1,
            "exit" => {
                self.exit = Some(frame.exit_code);
                return Ok(());
            }
            _ => return Ok(()),
        };
        let data = frame
            .data
            .ok_or_else(|| BaselineError("data frame without data".into()))?;
        let end = frame
            .offset
            .ok_or_else(|| BaselineError("data frame without offset".into()))?;
        let bytes: &[u8] = match frame.encoding.as_deref() {
            None | Some("utf-8") => data.as_bytes(),
            Some("base64") => {
                self.scratch.clear();
                base64::engine::general_purpose::STANDARD
                    .decode_vec(data.as_bytes(), &mut self.scratch)
                    .map_err(|e| BaselineError(e.to_string()))?;
                &self.scratch
            }
            Some(other) => return Err(BaselineError(format!("unknown encoding {other}"))),
        };
        let len = bytes.len() as u64;
        let start = end
            .checked_sub(len)
            .ok_or_else(|| BaselineError("offset before chunk start".into()))?;
        let stream = &mut self.streams[index];
        let consumed = stream.len() as u64;
        if start > consumed {
            return Err(BaselineError(format!(
                "gap: expected offset {consumed}, chunk starts at {start}"
            )));
        }
        if end > consumed {
            // Appends, trimming any overlap with what was already consumed.
            let skip = usize::try_from(consumed - start).unwrap_or(usize::MAX);
            stream.extend_from_slice(&bytes[skip..]);
        }
        Ok(())
    }

    /// Ends the body: a partial last line is discarded.
    pub fn finish(&mut self) {
        self.partial.clear();
    }
}

/// The floor: counts newlines with `memchr`, nothing else.
pub fn newline_floor(pieces: impl Iterator<Item = impl AsRef<[u8]>>) -> u64 {
    pieces
        .map(|p| memchr::memchr_iter(b'\n', p.as_ref()).count() as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{generate, Kind};

    #[test]
    fn baseline_agrees_with_the_reader_on_every_corpus() {
        for kind in Kind::READER {
            let body = generate(kind, 400_000);
            let mut base = SerdeLines::new();
            for piece in body.chunks(1000) {
                base.feed(piece).unwrap();
            }
            base.finish();
            let ours = crate::run::reader_collect(&body, 65536);
            assert_eq!(base.streams, ours, "{kind:?}");
            assert_eq!(crate::run::reader_sink(&body, 777), ours, "{kind:?}");
            assert_eq!(base.exit, Some(Some(0)));
        }
    }

    #[test]
    fn baseline_checks_offsets() {
        let mut base = SerdeLines::new();
        base.feed(b"{\"type\":\"stdout\",\"data\":\"ab\",\"offset\":2}\n")
            .unwrap();
        base.feed(b"{\"type\":\"stdout\",\"data\":\"bc\",\"offset\":3}\n")
            .unwrap();
        assert_eq!(base.streams[0], b"abc");
        base.feed(b"{\"type\":\"stdout\",\"data\":\"x\",\"offset\":9}\n")
            .unwrap_err();
    }
}
