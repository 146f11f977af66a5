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

/// Appends the text of `data` to `out`, one U+FFFD per maximal invalid
/// subsequence, and returns the incomplete character at its end (0 to 3
/// bytes, not decoded yet).
///
/// Valid stretches (nearly all output) are validated by `simdutf8` and
/// copied once. From an invalid byte on, a block of bytes is decoded without
/// data-dependent branches (binary output is invalid every few bytes), then
/// the vector check takes over again.
fn decode_lossy<'a>(data: &'a [u8], out: &mut String) -> &'a [u8] {
    let mut rest = data;
    let mut scratch = Vec::new();
    loop {
        match simdutf8::compat::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                return &[];
            }
            Err(e) => {
                push_checked(&rest[..e.valid_up_to()], out);
                rest = &rest[e.valid_up_to()..];
            }
        }
        if rest.len() < 4 {
            return decode_end(rest, out);
        }
        if scratch.is_empty() {
            scratch = vec![0u8; BLOCK * 3 + 4];
        }
        let (used, written) = decode_block(rest, &mut scratch);
        push_checked(&scratch[..written], out);
        rest = &rest[used..];
    }
}

/// Input bytes decoded per call of [`decode_block`].
const BLOCK: usize = 256;

/// The width of the sequence each lead byte starts (0: not a lead byte), and
/// the range its second byte must be in.
const LEADS: [(u8, u8, u8); 256] = {
    let mut t = [(0u8, 0u8, 0u8); 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b {
            0x00..=0x7f => (1, 0, 0),
            0xc2..=0xdf => (2, 0x80, 0xbf),
            0xe0 => (3, 0xa0, 0xbf),
            0xed => (3, 0x80, 0x9f),
            0xe1..=0xef => (3, 0x80, 0xbf),
            0xf0 => (4, 0x90, 0xbf),
            0xf4 => (4, 0x80, 0x8f),
            0xf1..=0xf3 => (4, 0x80, 0xbf),
            _ => (0, 0, 0),
        };
        b += 1;
    }
    t
};

/// U+FFFD in UTF-8, as the first three bytes of a little-endian word.
const REPLACEMENT_WORD: u32 = 0x00bd_bfef;

/// Decodes the sequences that start in the first `BLOCK` bytes of `rest`
/// (which holds at least 4 bytes; a block starts on a sequence boundary) into
/// `out` (at least `3 * BLOCK + 4` bytes). Returns (bytes read, bytes
/// written); what was written is UTF-8.
///
/// Each position is decided on its own, so the CPU overlaps them: a valid
/// sequence is written at its lead byte, a maximal invalid subsequence
/// becomes one U+FFFD at its first byte, and a byte inside either (a
/// continuation byte a lead before it claims) writes nothing. Leads never
/// lie inside another sequence, so the claims never overlap.
fn decode_block(rest: &[u8], out: &mut [u8]) -> (usize, usize) {
    let end = (rest.len() - 3).min(BLOCK);
    // span[3 + j]: how many bytes the sequence or invalid prefix at j
    // covers (1 for anything that is not a lead); the 3 before are padding.
    let mut span = [1u8; BLOCK + 3];
    let mut valid = [false; BLOCK];
    // Comparisons only (no table), over four shifted views: vectorisable.
    let (b0, b1, b2, b3) = (
        &rest[..end],
        &rest[1..end + 1],
        &rest[2..end + 2],
        &rest[3..end + 3],
    );
    for (j, slot) in valid[..end].iter_mut().enumerate() {
        let (lead, c1, c2, c3) = (b0[j], b1[j], b2[j], b3[j]);
        let width = u8::from(lead < 0x80)
            + 2 * u8::from((0xc2..=0xdf).contains(&lead))
            + 3 * u8::from((0xe0..=0xef).contains(&lead))
            + 4 * u8::from((0xf0..=0xf4).contains(&lead));
        let low = if lead == 0xe0 {
            0xa0
        } else if lead == 0xf0 {
            0x90
        } else {
            0x80
        };
        let high = if lead == 0xed {
            0x9f
        } else if lead == 0xf4 {
            0x8f
        } else {
            0xbf
        };
        // `&` on bools, not `&&`: no branch on the data.
        let ok1 = (width >= 2) & (low <= c1) & (c1 <= high);
        let ok2 = ok1 & (width >= 3) & (c2 & 0xc0 == 0x80);
        let ok3 = ok2 & (width >= 4) & (c3 & 0xc0 == 0x80);
        let good = 1 + u8::from(ok1) + u8::from(ok2) + u8::from(ok3);
        span[3 + j] = good;
        *slot = width == good;
    }
    // How many bytes each position writes: 0 when claimed (vectorisable).
    let mut emit = [0u8; BLOCK];
    for (j, slot) in emit[..end].iter_mut().enumerate() {
        let claimed = (span[j + 2] > 1) | (span[j + 1] > 2) | (span[j] > 3);
        let len = if valid[j] { span[3 + j] } else { 3 };
        *slot = len * u8::from(!claimed);
    }
    let mut o = 0usize;
    for j in 0..end {
        // Selected by a mask, not a branch.
        let mask = u32::from(valid[j]).wrapping_neg();
        let word =
            (u32::from_le_bytes([b0[j], b1[j], b2[j], b3[j]]) & mask) | (REPLACEMENT_WORD & !mask);
        out[o..o + 4].copy_from_slice(&word.to_le_bytes());
        o += usize::from(emit[j]);
    }
    // The last sequence that starts in the block ends the block.
    let next = (0..end)
        .rev()
        .find(|&j| emit[j] > 0)
        .map_or(end, |j| j + usize::from(span[3 + j]));
    (next, o)
}

/// Decodes the last 0 to 3 bytes of a piece; returns the incomplete
/// character they end with, if any.
fn decode_end<'a>(mut rest: &'a [u8], out: &mut String) -> &'a [u8] {
    while let Some(&lead) = rest.first() {
        let (width, low, high) = LEADS[usize::from(lead)];
        let width = usize::from(width);
        let mut good = 1;
        while good < width {
            let Some(&c) = rest.get(good) else {
                // The piece ends inside a sequence that may still complete.
                return rest;
            };
            let fits = if good == 1 {
                low <= c && c <= high
            } else {
                c & 0xc0 == 0x80
            };
            if !fits {
                break;
            }
            good += 1;
        }
        if width == good {
            push_checked(&rest[..good], out);
        } else {
            out.push(char::REPLACEMENT_CHARACTER);
        }
        rest = &rest[good..];
    }
    rest
}

/// Appends bytes that are UTF-8 by construction (checked again, vectorised:
/// `forbid(unsafe_code)` leaves no unchecked conversion).
fn push_checked(bytes: &[u8], out: &mut String) {
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        out.push_str(text);
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
        let tail = decode_lossy(data, out);
        self.pending[..tail.len()].copy_from_slice(tail);
        self.pending_len = tail.len();
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
                ..
            } => self.push_exit(*exit_code, *timed_out),
            _ => {}
        }
    }

    /// Records the exit (what [`Event::Exit`] carries: the exit code, `None`
    /// when killed or timed out, and whether the process hit its deadline).
    pub fn push_exit(&mut self, exit_code: Option<i64>, timed_out: bool) {
        self.exit = Some((exit_code, timed_out));
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

    /// Random bytes near UTF-8 (leads, continuations, ASCII, boundaries),
    /// pushed in random pieces, give `from_utf8_lossy` of the whole.
    #[test]
    fn decoder_matches_lossy_on_random_input() {
        let mut rng = dory_testkit::Rng::new(11);
        let palette: &[u8] = &[
            b'a', b'\n', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0,
            0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff,
        ];
        for _ in 0..3000 {
            let long = rng.percent(10);
            let len = rng.below(if long { 9000 } else { 64 }) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.percent(20) {
                        rng.below(256) as u8
                    } else {
                        palette[rng.below(palette.len() as u64) as usize]
                    }
                })
                .collect();
            let expected = String::from_utf8_lossy(&bytes);
            let mut decoder = Utf8Decoder::new();
            let mut out = String::new();
            let mut at = 0;
            while at < bytes.len() {
                let next =
                    (at + 1 + rng.below(if len > 64 { 5000 } else { 9 }) as usize).min(bytes.len());
                decoder.push(&bytes[at..next], &mut out);
                at = next;
            }
            decoder.finish(&mut out);
            assert_eq!(out, expected, "{bytes:x?}");
        }
    }
}
