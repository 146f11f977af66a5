//! What a consumer keeps: per-stream bytes with skipped ranges visible, and
//! incremental UTF-8 text views that never split a character.

use std::ops::Range;

use crate::{Event, Stream};

/// An incremental UTF-8 decoder: bytes in, in pieces split anywhere, text out.
///
/// A character split across pieces is held back until it completes. Bytes
/// that are not UTF-8 become U+FFFD, one per maximal invalid subsequence, so
/// the text is the same as `String::from_utf8_lossy` of all the bytes at once
/// (and as Python's `errors="replace"` and JS `TextDecoder`).
///
/// ```
/// let mut decoder = dory_wire::Utf8Decoder::new();
/// let mut text = String::new();
/// decoder.push(b"caf\xc3", &mut text);
/// assert_eq!(text, "caf");
/// decoder.push(b"\xa9!", &mut text);
/// decoder.finish(&mut text);
/// assert_eq!(text, "café!");
/// ```
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Utf8Decoder {
    pending: [u8; 4],
    pending_len: usize,
}

/// The length of the UTF-8 sequence a valid lead byte starts.
fn sequence_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

impl Utf8Decoder {
    /// A decoder with nothing pending.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many bytes of an incomplete character are held back (0 to 3).
    pub fn pending(&self) -> usize {
        self.pending_len
    }

    /// Decodes the next piece, appending its text to `out`.
    pub fn push(&mut self, mut data: &[u8], out: &mut String) {
        if self.pending_len > 0 {
            // Complete (or refute) the held-back character with at most the
            // bytes it still needs.
            let take = (4 - self.pending_len).min(data.len());
            let mut joined = self.pending;
            joined[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            let joined = &joined[..self.pending_len + take];
            match std::str::from_utf8(joined) {
                Err(e) if e.valid_up_to() == 0 && e.error_len().is_none() => {
                    // Still incomplete: all of `data` was taken.
                    self.pending[..joined.len()].copy_from_slice(joined);
                    self.pending_len = joined.len();
                    return;
                }
                Err(e) if e.valid_up_to() == 0 => {
                    // A maximal invalid subsequence: the held bytes and
                    // possibly some of the new ones (`\xe2` then `\x82x`).
                    out.push(char::REPLACEMENT_CHARACTER);
                    let used = e.error_len().unwrap_or(0).saturating_sub(self.pending_len);
                    data = &data[used..];
                }
                _ => {
                    let width = sequence_len(joined[0]);
                    out.push_str(&String::from_utf8_lossy(&joined[..width]));
                    data = &data[width - self.pending_len..];
                }
            }
            self.pending_len = 0;
        }
        let mut chunks = data.utf8_chunks().peekable();
        while let Some(chunk) = chunks.next() {
            out.push_str(chunk.valid());
            let invalid = chunk.invalid();
            if invalid.is_empty() {
                continue;
            }
            // The last invalid run may be a character that is only incomplete.
            let incomplete = chunks.peek().is_none()
                && std::str::from_utf8(invalid).is_err_and(|e| e.error_len().is_none());
            if incomplete {
                self.pending[..invalid.len()].copy_from_slice(invalid);
                self.pending_len = invalid.len();
            } else {
                out.push(char::REPLACEMENT_CHARACTER);
            }
        }
    }

    /// Ends the input: an incomplete character still held back becomes U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        if self.pending_len > 0 {
            out.push(char::REPLACEMENT_CHARACTER);
            self.pending_len = 0;
        }
    }
}

/// One piece of a stream's transcript, in offset order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Bytes delivered for stream offsets `range`; they are
    /// `StreamTranscript::bytes()[at..at + range.len()]`.
    Data {
        /// The stream offsets these bytes cover.
        range: Range<u64>,
        /// Where they start in [`StreamTranscript::bytes`].
        at: usize,
    },
    /// Bytes that were lost and explicitly skipped.
    Skipped {
        /// The lost stream offsets `[start, end)`.
        range: Range<u64>,
    },
}

/// Everything delivered for one stream, with the skipped ranges kept visible.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StreamTranscript {
    bytes: Vec<u8>,
    pieces: Vec<Piece>,
    /// Set by [`Transcript::finish`]: an incomplete last character is final.
    finished: bool,
}

impl StreamTranscript {
    /// The delivered bytes, in order (skipped ranges are absent: see [`Self::pieces`]).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Data and skipped ranges in offset order; adjacent data is merged.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The skipped ranges `[start, end)`.
    pub fn skipped(&self) -> impl Iterator<Item = Range<u64>> + '_ {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Skipped { range } => Some(range.clone()),
            Piece::Data { .. } => None,
        })
    }

    /// True when nothing was skipped: the bytes are the stream, exactly.
    pub fn is_complete(&self) -> bool {
        self.skipped().next().is_none()
    }

    /// The text view so far: the bytes decoded as UTF-8 (U+FFFD for invalid
    /// bytes), never splitting a character; an incomplete last character is
    /// held back until it completes or [`Transcript::finish`] is called. A
    /// character is never joined across a skipped range, which appears as a
    /// line `[dory-wire: bytes A..B were lost]`.
    ///
    /// Built on demand (collecting bytes stays at full speed); for a live
    /// view of a growing stream, run a [`Utf8Decoder`] over the output events.
    pub fn text(&self) -> String {
        let mut text = String::with_capacity(self.bytes.len());
        let mut decoder = Utf8Decoder::new();
        for piece in &self.pieces {
            match piece {
                Piece::Data { range, at } => {
                    let len = (range.end - range.start) as usize;
                    decoder.push(&self.bytes[*at..*at + len], &mut text);
                }
                Piece::Skipped { range } => {
                    decoder.finish(&mut text);
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&format!(
                        "[dory-wire: bytes {}..{} were lost]\n",
                        range.start, range.end
                    ));
                }
            }
        }
        if self.finished {
            decoder.finish(&mut text);
        }
        text
    }

    fn push_data(&mut self, data: &[u8], start: u64, end: u64) {
        match self.pieces.last_mut() {
            Some(Piece::Data { range, .. }) if range.end == start => range.end = end,
            _ => self.pieces.push(Piece::Data {
                range: start..end,
                at: self.bytes.len(),
            }),
        }
        self.bytes.extend_from_slice(data);
    }

    fn push_skipped(&mut self, start: u64, end: u64) {
        self.pieces.push(Piece::Skipped { range: start..end });
    }
}

/// A consumer's record of a process's output: feed it every [`Event`].
///
/// ```
/// use dory_wire::{Event, Stream, Transcript};
///
/// let mut transcript = Transcript::new();
/// transcript.push(&Event::Output { stream: Stream::Stdout, data: b"ab".to_vec(), start: 0, end: 2 });
/// transcript.push(&Event::Skipped { stream: Stream::Stdout, start: 2, end: 9 });
/// transcript.push(&Event::Output { stream: Stream::Stdout, data: b"z".to_vec(), start: 9, end: 10 });
/// let stdout = transcript.stream(Stream::Stdout);
/// assert_eq!(stdout.bytes(), b"abz");
/// assert_eq!(stdout.skipped().collect::<Vec<_>>(), vec![2..9]);
/// ```
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Transcript {
    stdout: StreamTranscript,
    stderr: StreamTranscript,
    exit: Option<(Option<i64>, bool)>,
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an event; events other than output, skips and exit are ignored.
    pub fn push(&mut self, event: &Event) {
        match event {
            Event::Output {
                stream,
                data,
                start,
                end,
            } => self.push_output(*stream, data, *start, *end),
            Event::Skipped { stream, start, end } => {
                self.stream_mut(*stream).push_skipped(*start, *end)
            }
            Event::Exit {
                exit_code,
                timed_out,
            } => self.exit = Some((*exit_code, *timed_out)),
            _ => {}
        }
    }

    /// Records output bytes `[start, end)` of `stream` (what
    /// [`Event::Output`] carries).
    pub fn push_output(&mut self, stream: Stream, data: &[u8], start: u64, end: u64) {
        self.stream_mut(stream).push_data(data, start, end);
    }

    /// Ends both text views: an incomplete last character becomes U+FFFD.
    pub fn finish(&mut self) {
        self.stdout.finished = true;
        self.stderr.finished = true;
    }

    /// One stream's record.
    pub fn stream(&self, stream: Stream) -> &StreamTranscript {
        match stream {
            Stream::Stdout => &self.stdout,
            Stream::Stderr => &self.stderr,
        }
    }

    /// The exit code and timeout flag, once `exit` was seen.
    pub fn exit(&self) -> Option<(Option<i64>, bool)> {
        self.exit
    }

    fn stream_mut(&mut self, stream: Stream) -> &mut StreamTranscript {
        match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoder_matches_lossy_at_every_split() {
        let samples: [&[u8]; 9] = [
            b"\xe2\x82x",
            b"\xf0\xb1\x99\xfe",
            b"\xf0\x9f\x98\xe2\x82\xac\xf0\x9f",
            "héllo wörld 😀 漢字".as_bytes(),
            b"a\xffb\xc3(c\xe2\x82",
            b"\xf0\x9f\x98",
            b"\xed\xa0\x80x",
            b"\xe0\x80\xaf",
            b"\xf4\x90\x80\x80z",
        ];
        for sample in samples {
            let expected = String::from_utf8_lossy(sample);
            for i in 0..=sample.len() {
                for j in i..=sample.len() {
                    let mut d = Utf8Decoder::new();
                    let mut out = String::new();
                    d.push(&sample[..i], &mut out);
                    d.push(&sample[i..j], &mut out);
                    d.push(&sample[j..], &mut out);
                    d.finish(&mut out);
                    assert_eq!(out, expected, "{sample:?} split at {i},{j}");
                }
            }
        }
    }

    #[test]
    fn skipped_ranges_stay_visible() {
        let mut t = Transcript::new();
        t.push(&Event::Output {
            stream: Stream::Stderr,
            data: b"x\xc3".to_vec(),
            start: 0,
            end: 2,
        });
        t.push(&Event::Skipped {
            stream: Stream::Stderr,
            start: 2,
            end: 5,
        });
        t.push(&Event::Output {
            stream: Stream::Stderr,
            data: b"\xa9".to_vec(),
            start: 5,
            end: 6,
        });
        let s = t.stream(Stream::Stderr);
        assert!(!s.is_complete());
        assert_eq!(
            s.text(),
            "x\u{fffd}\n[dory-wire: bytes 2..5 were lost]\n\u{fffd}"
        );
        assert_eq!(s.pieces().len(), 3);
    }
}
