//! Lossy UTF-8 rendering, done once per window, and the cut points it allows.
//!
//! Kept bytes are rendered like `String::from_utf8_lossy`: one U+FFFD (3 bytes)
//! per maximal invalid subsequence. A *unit* is one valid character or one such
//! subsequence, and cuts fall between units only, so a cut point is a character
//! boundary of the rendering. A [`Window`] is a retained stretch of the input
//! rendered once (valid UTF-8 is borrowed, or moved when the bounder owns it,
//! after one validation pass, with no copy); all later work — finding lines, sizing and cutting
//! them, assembling the preview — happens on that text, and invalid runs are
//! only consulted to turn rendered positions back into input offsets.
//!
//! Every non-continuation byte starts a unit, and a continuation byte that
//! follows three others does too, so a window that starts inside the input
//! renders like the whole input from its first such byte on (`start`).

use std::borrow::Cow;

/// Rendered size of one maximal invalid subsequence (U+FFFD).
const REPLACEMENT_LEN: usize = '\u{FFFD}'.len_utf8();

/// One maximal invalid subsequence of a window.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Run {
    /// Offset of its first byte in the window's raw bytes.
    raw: usize,
    /// Its raw length (1 to 3).
    len: usize,
    /// Offset of its U+FFFD in the window's text.
    text: usize,
}

/// A retained stretch of the input, rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window<'a> {
    /// The lossy rendering of the window's bytes: the bytes themselves
    /// (borrowed or owned) when they are valid UTF-8.
    text: Cow<'a, str>,
    /// Invalid runs, in order (empty for valid UTF-8).
    runs: Vec<Run>,
    /// Absolute input offset of the window's first byte.
    base: u64,
    /// First text offset that renders as in the whole input (0 at the input's start).
    start: usize,
}

/// True for UTF-8 continuation bytes (`10xxxxxx`).
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

impl Window<'static> {
    /// Renders `raw`, the input bytes from absolute offset `base`. Valid
    /// UTF-8 is validated once and moved; otherwise one lossy pass records
    /// the invalid runs.
    pub(crate) fn new(raw: Vec<u8>, base: u64) -> Self {
        Self::from_checked(String::from_utf8(raw), base)
    }

    /// [`Window::new`] for bytes already checked with `String::from_utf8`.
    pub(crate) fn from_checked(
        checked: Result<String, std::string::FromUtf8Error>,
        base: u64,
    ) -> Self {
        match checked {
            Ok(text) => Window::valid(Cow::Owned(text), base),
            Err(e) => Window::lossy(e.as_bytes(), base),
        }
    }
}

impl<'a> Window<'a> {
    /// Renders `raw`, the input bytes from absolute offset `base`, borrowing
    /// them: valid UTF-8 is validated (SIMD) once and not copied.
    pub(crate) fn borrowed(raw: &'a [u8], base: u64) -> Self {
        match simdutf8::basic::from_utf8(raw) {
            Ok(text) => Window::valid(Cow::Borrowed(text), base),
            Err(_) => Window::lossy(raw, base),
        }
    }

    /// Renders `raw`, known not to be valid UTF-8, without validating it again.
    pub(crate) fn invalid(raw: &[u8], base: u64) -> Self {
        Window::lossy(raw, base)
    }

    /// The window of valid text.
    fn valid(text: Cow<'a, str>, base: u64) -> Self {
        let start = first_unit(text.as_bytes(), base);
        Window {
            text,
            runs: Vec::new(),
            base,
            start,
        }
    }

    /// The window of bytes that are not valid UTF-8: one lossy pass.
    fn lossy(raw: &[u8], base: u64) -> Self {
        let (text, runs) = lossy(raw);
        let mut window = Window {
            text: Cow::Owned(text),
            runs,
            base,
            start: 0,
        };
        window.start = window.text_offset(first_unit(raw, base));
        window
    }

    /// The same window, owning its text.
    pub(crate) fn into_owned(self) -> Window<'static> {
        Window {
            text: Cow::Owned(self.text.into_owned()),
            runs: self.runs,
            base: self.base,
            start: self.start,
        }
    }

    /// The rendering.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// The rendering, moved out.
    pub(crate) fn into_text(self) -> Cow<'a, str> {
        self.text
    }

    /// First text offset that renders as in the whole input.
    pub(crate) fn start(&self) -> usize {
        self.start
    }

    /// The text offset of raw offset `raw` (a unit boundary).
    fn text_offset(&self, raw: usize) -> usize {
        let i = self.runs.partition_point(|r| r.raw < raw);
        match i.checked_sub(1).map(|j| &self.runs[j]) {
            None => raw,
            Some(r) => r.text + REPLACEMENT_LEN + (raw - r.raw - r.len),
        }
    }

    /// The raw offset of text offset `at` (a character boundary).
    pub(crate) fn raw_offset(&self, at: usize) -> usize {
        let i = self.runs.partition_point(|r| r.text < at);
        match i.checked_sub(1).map(|j| &self.runs[j]) {
            None => at,
            Some(r) => r.raw + r.len + (at - r.text - REPLACEMENT_LEN),
        }
    }

    /// The absolute input offset of text offset `at`.
    pub(crate) fn input_offset(&self, at: usize) -> u64 {
        self.base + self.raw_offset(at) as u64
    }

    /// The largest character boundary at or below `at` (and at or above `floor`).
    pub(crate) fn floor_boundary(&self, mut at: usize, floor: usize) -> usize {
        at = at.min(self.text.len());
        while at > floor && !self.text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// The smallest character boundary at or above `at` (and at or below `ceil`).
    pub(crate) fn ceil_boundary(&self, mut at: usize, ceil: usize) -> usize {
        while at < ceil && !self.text.is_char_boundary(at) {
            at += 1;
        }
        at
    }

    /// True when `at` falls between a `\r` and a `\n`.
    pub(crate) fn inside_crlf(&self, at: usize) -> bool {
        let bytes = self.text.as_bytes();
        at > 0 && bytes.get(at - 1) == Some(&b'\r') && bytes.get(at) == Some(&b'\n')
    }
}

/// The first raw offset of a window from absolute offset `base` that surely
/// starts a unit: a window inside the input may start inside a character,
/// and such a byte is at most 3 bytes in.
fn first_unit(raw: &[u8], base: u64) -> usize {
    if base == 0 {
        return 0;
    }
    let most = raw.len().min(3);
    (0..most)
        .find(|&i| !is_continuation(raw[i]))
        .unwrap_or(most)
}

/// The lossy rendering of `bytes` and its invalid runs.
fn lossy(bytes: &[u8]) -> (String, Vec<Run>) {
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut runs = Vec::new();
    let mut raw = 0;
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        raw += chunk.valid().len();
        let invalid = chunk.invalid();
        if !invalid.is_empty() {
            runs.push(Run {
                raw,
                len: invalid.len(),
                text: text.len(),
            });
            text.push('\u{FFFD}');
            raw += invalid.len();
        }
    }
    (text, runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_from_utf8_lossy() {
        let samples: [&[u8]; 7] = [
            b"plain",
            b"\xff",
            b"a\xe2\x82z",
            b"\xf0\x9f\x98",
            "é😀".as_bytes(),
            b"\xed\xa0\x80",
            b"\xc0\xaf\n\x80\x80\x80\x80x",
        ];
        for bytes in samples {
            let w = Window::new(bytes.to_vec(), 0);
            assert_eq!(w.text(), String::from_utf8_lossy(bytes), "{bytes:?}");
            // Every character boundary maps back to a unit boundary.
            for at in (0..=w.text().len()).filter(|&i| w.text().is_char_boundary(i)) {
                let raw = w.raw_offset(at);
                assert_eq!(w.text_offset(raw), at);
                let (a, b) = bytes.split_at(raw);
                assert_eq!(
                    String::from_utf8_lossy(a) + String::from_utf8_lossy(b),
                    w.text()
                );
            }
        }
    }

    #[test]
    fn a_window_inside_the_input_starts_at_a_unit() {
        let input = "ab😀cd".as_bytes();
        for base in 0..input.len() {
            let w = Window::new(input[base..].to_vec(), base as u64);
            let raw = w.raw_offset(w.start());
            let whole = String::from_utf8_lossy(input);
            let from = String::from_utf8_lossy(&input[base + raw..]);
            assert!(whole.ends_with(&*from), "base {base}");
            assert_eq!(&w.text()[w.start()..], from);
        }
    }

    #[test]
    fn boundaries_and_crlf() {
        let w = Window::new("a😀\r\nb".as_bytes().to_vec(), 0);
        assert_eq!(w.floor_boundary(3, 0), 1);
        assert_eq!(w.ceil_boundary(3, 9), 5);
        assert!(w.inside_crlf(6));
        assert!(!w.inside_crlf(5));
    }
}
