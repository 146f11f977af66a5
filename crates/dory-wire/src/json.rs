//! A small, strict JSON reader specialised for flat protocol objects.
//!
//! Frames are flat objects whose interesting values are strings, integers,
//! booleans and null. Reading them with a general-purpose DOM would allocate a
//! map per frame; this reader walks the object once, hands each member to a
//! callback, borrows strings that contain no escapes, and validates (then skips)
//! any nested value. It is strict where the protocol needs it: invalid UTF-8, a
//! raw control character, a lone surrogate escape or trailing garbage are errors.

use std::borrow::Cow;

/// Nesting deeper than this is rejected rather than recursed into.
const MAX_DEPTH: usize = 64;

/// Why a JSON text was rejected (becomes a `malformed_frame` reason).
pub(crate) type JsonError = &'static str;

/// A JSON number, kept as its literal so callers choose the integer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Number<'a> {
    literal: &'a [u8],
    integer: bool,
}

impl Number<'_> {
    /// The value as an unsigned 64-bit integer: no sign, fraction or exponent.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        if !self.integer || self.literal.first() == Some(&b'-') {
            return None;
        }
        let mut value: u64 = 0;
        for &digit in self.literal {
            value = value
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))?;
        }
        Some(value)
    }

    /// The value as a signed 64-bit integer: no fraction or exponent.
    pub(crate) fn as_i64(&self) -> Option<i64> {
        if !self.integer {
            return None;
        }
        let (negative, digits) = match self.literal.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, self.literal),
        };
        // Accumulate negatively so i64::MIN is representable.
        let mut value: i64 = 0;
        for &digit in digits {
            value = value
                .checked_mul(10)?
                .checked_sub(i64::from(digit - b'0'))?;
        }
        if negative {
            Some(value)
        } else {
            value.checked_neg()
        }
    }
}

/// A member value. Objects and arrays are validated and reported as `Nested`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    /// A string's UTF-8 bytes, unescaped (always valid UTF-8: the text was
    /// validated and every escape yields a whole character).
    Str(Cow<'a, [u8]>),
    Num(Number<'a>),
    Bool(bool),
    Null,
    Nested,
}

impl Value<'_> {
    /// A short name of the value's JSON type, for error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Num(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Null => "null",
            Value::Nested => "an object or array",
        }
    }
}

/// Finds the next `"` or `\` in `text`, rejecting a control character
/// before it. Escapes in log text come every few dozen bytes, so the first
/// bytes are scanned eight at a time in registers (no call overhead), and
/// only a longer run is handed to the vectorised `memchr2` plus a
/// branch-free control-character fold.
fn string_stop(text: &[u8]) -> Result<usize, JsonError> {
    const SHORT: usize = 64;
    let head = &text[..text.len().min(SHORT)];
    let mut words = head.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let mask = stop_mask(u64::from_le_bytes(bytes));
        if mask != 0 {
            return stop_at(text, at + (mask.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return stop_at(text, at + i);
        }
    }
    at += words.remainder().len();
    let rest = &text[at..];
    let stop = find_quote(rest).ok_or("unterminated string")?;
    if has_control(&rest[..stop]) {
        return Err("raw control character in a string");
    }
    Ok(at + stop)
}

/// Whether `text` is what [`Parser::new`] reads without care: UTF-8 with no
/// control character.
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
pub(crate) fn plain_text(text: &[u8]) -> bool {
    let (low, high) = byte_range(text);
    low >= 0x20 && (high < 0x80 || simdutf8::basic::from_utf8(text).is_ok())
}

/// What [`Parser::string_into_ranged`] saw in the bytes it read.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seen {
    /// A byte below 0x20.
    pub(crate) control: bool,
    /// A byte of 0x80 or above (the text needs its UTF-8 check).
    pub(crate) non_ascii: bool,
}

/// Whether any byte is a control character (below 0x20).
fn has_control(bytes: &[u8]) -> bool {
    byte_range(bytes).0 < 0x20
}

/// The smallest and the largest byte, in one pass. The per-lane arrays make
/// the compiler emit vector `min`/`max` instructions, 16 bytes at a time
/// (SSE2 natively, `simd128` in wasm); the last partial block is folded as
/// an overlapping full block (a byte seen twice changes neither), so a short
/// line costs no byte-at-a-time loop.
fn byte_range(bytes: &[u8]) -> (u8, u8) {
    const LANES: usize = 16;
    if bytes.len() < LANES {
        return bytes
            .iter()
            .fold((u8::MAX, 0), |(lo, hi), &b| (lo.min(b), hi.max(b)));
    }
    let mut low = [u8::MAX; LANES];
    let mut high = [0u8; LANES];
    let mut blocks = bytes.chunks_exact(LANES);
    for block in &mut blocks {
        for i in 0..LANES {
            low[i] = low[i].min(block[i]);
            high[i] = high[i].max(block[i]);
        }
    }
    if !blocks.remainder().is_empty() {
        let mut last = [0u8; LANES];
        last.copy_from_slice(&bytes[bytes.len() - LANES..]);
        for i in 0..LANES {
            low[i] = low[i].min(last[i]);
            high[i] = high[i].max(last[i]);
        }
    }
    (
        low.iter().copied().min().unwrap_or(u8::MAX),
        high.iter().copied().max().unwrap_or(0),
    )
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in the byte lanes of `x` that are zero (exact for the lowest
/// such lane, which is the one used).
fn zero_lanes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// High bit set in each byte lane of `word` that is `"` or `\`.
fn quote_or_backslash(word: u64) -> u64 {
    zero_lanes(word ^ (ONES * u64::from(b'"'))) | zero_lanes(word ^ (ONES * u64::from(b'\\')))
}

/// High bit set in each byte lane of `word` that is `"`, `\` or below 0x20.
fn stop_mask(word: u64) -> u64 {
    quote_or_backslash(word) | (word.wrapping_sub(ONES * 0x20) & !word & HIGHS)
}

fn stop_at(text: &[u8], i: usize) -> Result<usize, JsonError> {
    if text[i] < 0x20 {
        Err("raw control character in a string")
    } else {
        Ok(i)
    }
}

/// Reads one JSON object from `text` (surrounding whitespace allowed), calling
/// `member` for each key and value in order. `member` may reject a member by
/// returning an error.
pub(crate) fn read_object<'a, F>(text: &'a [u8], mut member: F) -> Result<(), JsonError>
where
    F: FnMut(Cow<'a, [u8]>, Value<'a>) -> Result<(), JsonError>,
{
    let mut parser = Parser::new(text)?;
    parser.skip_ws();
    if parser.peek() != Some(b'{') {
        return Err("a frame must be a JSON object");
    }
    parser.pos += 1;
    parser.skip_ws();
    if parser.peek() == Some(b'}') {
        parser.pos += 1;
    } else {
        loop {
            parser.skip_ws();
            if parser.peek() != Some(b'"') {
                return Err("expected a string key");
            }
            let key = parser.string()?;
            parser.skip_ws();
            if parser.peek() != Some(b':') {
                return Err("expected ':' after a key");
            }
            parser.pos += 1;
            parser.skip_ws();
            let value = parser.value(1)?;
            member(key, value)?;
            parser.skip_ws();
            match parser.peek() {
                Some(b',') => parser.pos += 1,
                Some(b'}') => {
                    parser.pos += 1;
                    break;
                }
                _ => return Err("expected ',' or '}' in an object"),
            }
        }
    }
    parser.skip_ws();
    if parser.pos != text.len() {
        return Err("trailing characters after the JSON object");
    }
    Ok(())
}

pub(crate) struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
    /// The text holds control characters: strings must be checked for them.
    careful: bool,
}

/// `memchr2(b'"', b'\\', text)` on the CPU's best implementation, chosen
/// once per process and called directly: `memchr::memchr2` reaches it
/// through a function pointer and a wrapper on every call, which costs as
/// much as a short run's search (log text has a run of a few dozen bytes
/// between escapes).
#[inline]
fn find_quote(text: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use memchr::arch::x86_64::avx2::memchr::Two;
        static AVX2: std::sync::OnceLock<Option<Two>> = std::sync::OnceLock::new();
        if let Some(two) = AVX2.get_or_init(|| Two::new(b'"', b'\\')) {
            return two.find(text);
        }
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        wasm_find_quote(text)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    memchr::memchr2(b'"', b'\\', text)
}

/// `memchr2(b'"', b'\\', text)` in wasm, inlined: `memchr`'s `simd128`
/// searcher is reached through a call that sets up its needles and its
/// alignment every time, which costs as much as a short run between two
/// escapes; here each step is one 16-byte compare and a bit mask.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline]
fn wasm_find_quote(text: &[u8]) -> Option<usize> {
    use core::arch::wasm32::{u8x16, u8x16_bitmask, u8x16_eq, u8x16_splat, v128_or};
    const LANES: usize = 16;
    let quote = u8x16_splat(b'"');
    let backslash = u8x16_splat(b'\\');
    let mut blocks = text.chunks_exact(LANES);
    let mut at = 0;
    for b in &mut blocks {
        let v = u8x16(
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
            b[14], b[15],
        );
        let mask = u8x16_bitmask(v128_or(u8x16_eq(v, quote), u8x16_eq(v, backslash)));
        if mask != 0 {
            return Some(at + mask.trailing_zeros() as usize);
        }
        at += LANES;
    }
    blocks
        .remainder()
        .iter()
        .position(|&c| c == b'"' || c == b'\\')
        .map(|i| at + i)
}

impl<'a> Parser<'a> {
    /// A parser at the start of `text`, after checking that it is UTF-8.
    ///
    /// One pass finds the byte range: pure ASCII needs no UTF-8 check, and
    /// compact frames hold no control character at all — then no string can,
    /// and strings are scanned for `"` and `\` alone.
    pub(crate) fn new(text: &'a [u8]) -> Result<Self, JsonError> {
        let (low, high) = byte_range(text);
        if high >= 0x80 && simdutf8::basic::from_utf8(text).is_err() {
            return Err("the line is not valid UTF-8");
        }
        Ok(Parser {
            text,
            pos: 0,
            careful: low < 0x20,
        })
    }

    /// A parser at the start of `text` that checks nothing in advance: the
    /// caller checks every byte itself, later (e.g. a base64 decoder that
    /// accepts only its alphabet), or calls [`plain_text`] on the text. Until
    /// then, a string read may hold a raw control character or be cut in the
    /// middle of a UTF-8 sequence.
    pub(crate) fn unchecked(text: &'a [u8]) -> Self {
        Parser {
            text,
            pos: 0,
            careful: false,
        }
    }

    /// The text not read yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.text[self.pos..]
    }

    /// Moves past `prefix` if the unread text starts with it.
    pub(crate) fn eat(&mut self, prefix: &[u8]) -> bool {
        if self.rest().starts_with(prefix) {
            self.pos += prefix.len();
            true
        } else {
            false
        }
    }

    /// Reads a run of ASCII digits as a `u64`; `None` when there is none, it
    /// has a leading zero, or it overflows.
    pub(crate) fn eat_u64(&mut self) -> Option<u64> {
        let start = self.pos;
        let n = self.digits();
        let digits = &self.text[start..self.pos];
        if n == 0 || (n > 1 && digits[0] == b'0') {
            return None;
        }
        Number {
            literal: digits,
            integer: true,
        }
        .as_u64()
    }

    /// The next `"` or `\` of a string starting at `text`.
    fn stop(&self, text: &[u8]) -> Result<usize, JsonError> {
        if self.careful {
            return string_stop(text);
        }
        // Keys and short values end within a word or two: look there first,
        // in registers, before paying for a vectorised search.
        for (i, word) in text.chunks_exact(8).take(2).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(word);
            let mask = quote_or_backslash(u64::from_le_bytes(bytes));
            if mask != 0 {
                return Ok(i * 8 + (mask.trailing_zeros() / 8) as usize);
            }
        }
        let from = (text.len() / 8).min(2) * 8;
        find_quote(&text[from..])
            .map(|i| from + i)
            .ok_or("unterminated string")
    }

    /// The next stop of a run between escapes: straight to the vectorised
    /// search (these runs are longer than a key, and the registers' look
    /// ahead of [`Parser::stop`] would usually miss).
    fn run_stop(&self, text: &[u8]) -> Result<usize, JsonError> {
        if self.careful {
            return string_stop(text);
        }
        find_quote(text).ok_or("unterminated string")
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, JsonError> {
        match self.peek() {
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b'{' | b'[') => {
                self.skip_nested(depth)?;
                Ok(Value::Nested)
            }
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b'-' | b'0'..=b'9') => Ok(Value::Num(self.number()?)),
            Some(_) => Err("unexpected character where a value was expected"),
            None => Err("the JSON text ended early"),
        }
    }

    fn literal(&mut self, word: &[u8], value: Value<'a>) -> Result<Value<'a>, JsonError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err("invalid literal")
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Number<'a>, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        let n = self.digits();
        if n == 0 {
            return Err("invalid number");
        }
        if n > 1 && self.text[int_start] == b'0' {
            return Err("invalid number: leading zero");
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err("invalid number");
            }
            integer = false;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err("invalid number");
            }
            integer = false;
        }
        Ok(Number {
            literal: &self.text[start..self.pos],
            integer,
        })
    }

    /// Skips an object or array after checking it is well-formed.
    fn skip_nested(&mut self, depth: usize) -> Result<(), JsonError> {
        if depth > MAX_DEPTH {
            return Err("JSON nested too deeply");
        }
        let close = if self.peek() == Some(b'{') {
            b'}'
        } else {
            b']'
        };
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.skip_ws();
            if close == b'}' {
                if self.peek() != Some(b'"') {
                    return Err("expected a string key");
                }
                self.string()?;
                self.skip_ws();
                if self.peek() != Some(b':') {
                    return Err("expected ':' after a key");
                }
                self.pos += 1;
                self.skip_ws();
            }
            self.value(depth + 1)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err("expected ',' or a closing bracket"),
            }
        }
    }

    /// Reads a string starting at `"`; borrows it when it holds no escape.
    pub(crate) fn string(&mut self) -> Result<Cow<'a, [u8]>, JsonError> {
        self.pos += 1;
        let start = self.pos;
        let rest = &self.text[start..];
        let stop = self.stop(rest)?;
        if rest[stop] == b'"' {
            self.pos = start + stop + 1;
            return Ok(Cow::Borrowed(&rest[..stop]));
        }
        // The unescaped string is shorter than the rest of the text: one
        // allocation, no regrowth.
        let mut out = Vec::with_capacity(rest.len());
        out.extend_from_slice(&rest[..stop]);
        self.pos = start + stop;
        self.escaped_string(out).map(Cow::Owned)
    }

    /// Reads a string like [`Parser::string`], but unescapes into `buf`
    /// (cleared first) instead of a new vector: `Some` borrows a string with
    /// no escape from the text, `None` means the string is in `buf`.
    #[cfg_attr(
        all(target_arch = "wasm32", target_feature = "simd128"),
        allow(dead_code)
    )]
    pub(crate) fn string_into(&mut self, buf: &mut Vec<u8>) -> Result<Option<&'a [u8]>, JsonError> {
        self.pos += 1;
        let start = self.pos;
        let rest = &self.text[start..];
        let stop = self.stop(rest)?;
        if rest[stop] == b'"' {
            self.pos = start + stop + 1;
            return Ok(Some(&rest[..stop]));
        }
        let mut out = std::mem::take(buf);
        out.clear();
        out.reserve(rest.len());
        out.extend_from_slice(&rest[..stop]);
        self.pos = start + stop;
        *buf = self.escaped_string(out)?;
        Ok(None)
    }

    /// Continues a string that contains escapes, from a backslash.
    fn escaped_string(&mut self, mut out: Vec<u8>) -> Result<Vec<u8>, JsonError> {
        loop {
            self.escape(&mut out)?;
            let rest = &self.text[self.pos..];
            let stop = self.run_stop(rest)?;
            out.extend_from_slice(&rest[..stop]);
            self.pos += stop;
            if rest[stop] == b'"' {
                self.pos += 1;
                return Ok(out);
            }
        }
    }

    /// Reads the escape at a backslash and appends what it stands for.
    #[inline]
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), JsonError> {
        self.pos += 1;
        let escape = self.peek().ok_or("unterminated string")?;
        self.pos += 1;
        let simple = match escape {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let c = self.unicode_escape()?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                return Ok(());
            }
            _ => return Err("invalid escape in a string"),
        };
        out.push(simple);
        Ok(())
    }

    /// [`Parser::string_into`] in one pass with `simd128` (wasm): each block
    /// of 16 bytes is searched for `"` and `\\`, copied when the string
    /// has an escape, and folded into the byte range the string's check
    /// needs, so the caller does not read the line a second time for it.
    /// Returns the string and whether any byte read was a control character
    /// or not ASCII (the bytes read may run past the closing quote, which
    /// can only report a line as less plain than it is).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub(crate) fn string_into_ranged(
        &mut self,
        buf: &mut Vec<u8>,
    ) -> Result<(Option<&'a [u8]>, Seen), JsonError> {
        use core::arch::wasm32::{
            u8x16, u8x16_bitmask, u8x16_eq, u8x16_lt, u8x16_max, u8x16_min, u8x16_splat, v128_or,
        };
        const LANES: usize = 16;
        let text = self.text;
        self.pos += 1;
        let start = self.pos;
        let quote = u8x16_splat(b'"');
        let backslash = u8x16_splat(b'\\');
        let mut low = u8x16_splat(u8::MAX);
        let mut high = u8x16_splat(0);
        let (mut low_tail, mut high_tail) = (u8::MAX, 0u8);
        let mut copying = false;
        let mut i = start;
        loop {
            let stop = loop {
                if let Some(b) = text.get(i..i + LANES) {
                    let v = u8x16(
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                        b[12], b[13], b[14], b[15],
                    );
                    low = u8x16_min(low, v);
                    high = u8x16_max(high, v);
                    let mask = u8x16_bitmask(v128_or(u8x16_eq(v, quote), u8x16_eq(v, backslash)));
                    if mask != 0 {
                        break i + mask.trailing_zeros() as usize;
                    }
                    if copying {
                        buf.extend_from_slice(b);
                    }
                    i += LANES;
                } else {
                    let rest = &text[i..];
                    let k = rest
                        .iter()
                        .position(|&c| c == b'"' || c == b'\\')
                        .ok_or("unterminated string")?;
                    for &c in &rest[..k] {
                        low_tail = low_tail.min(c);
                        high_tail = high_tail.max(c);
                    }
                    break i + k;
                }
            };
            if copying {
                buf.extend_from_slice(&text[i..stop]);
            }
            if text[stop] == b'"' {
                self.pos = stop + 1;
                let seen = Seen {
                    control: low_tail < 0x20
                        || u8x16_bitmask(u8x16_lt(low, u8x16_splat(0x20))) != 0,
                    non_ascii: high_tail >= 0x80 || u8x16_bitmask(high) != 0,
                };
                return Ok((
                    if copying {
                        None
                    } else {
                        Some(&text[start..stop])
                    },
                    seen,
                ));
            }
            if !copying {
                copying = true;
                buf.clear();
                buf.reserve(text.len() - start);
                buf.extend_from_slice(&text[start..stop]);
            }
            self.pos = stop;
            self.escape(buf)?;
            i = self.pos;
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .ok_or("truncated \\u escape")?;
        let mut value = 0u32;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err("invalid \\u escape"),
            };
            value = value * 16 + u32::from(v);
        }
        self.pos += 4;
        Ok(value)
    }

    /// Reads the hex part of `\uXXXX` (and a following low surrogate when the
    /// first is a high one). A lone surrogate is an error, never replaced.
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if self.text.get(self.pos..self.pos + 2) != Some(b"\\u") {
                    return Err("lone surrogate escape in a string");
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err("lone surrogate escape in a string");
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err("lone surrogate escape in a string"),
            _ => first,
        };
        char::from_u32(code).ok_or("invalid \\u escape")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(text: &str) -> Result<Vec<(String, Value<'_>)>, JsonError> {
        let mut out = Vec::new();
        read_object(text.as_bytes(), |k, v| {
            out.push((String::from_utf8(k.into_owned()).unwrap(), v));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn reads_flat_members() {
        let m = members(
            r#" {"a":"x\n\u00e9\ud83d\ude00","b":-12,"c":true,"d":null,"e":{"f":[1,2.5e3,{}]}} "#,
        )
        .unwrap();
        assert_eq!(m[0].1, Value::Str(Cow::Owned("x\né😀".as_bytes().to_vec())));
        assert_eq!(
            match &m[1].1 {
                Value::Num(n) => n.as_i64(),
                _ => None,
            },
            Some(-12)
        );
        assert_eq!(m[2].1, Value::Bool(true));
        assert_eq!(m[3].1, Value::Null);
        assert_eq!(m[4].1, Value::Nested);
    }

    #[test]
    fn rejects_what_json_rejects() {
        for bad in [
            "",
            "[]",
            "{",
            r#"{"a":1,}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\udc00x"}"#,
            r#"{"a":"\ud800\u0041"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":tru}"#,
            r#"{"a":1} x"#,
            r#"{"a":"\x"}"#,
            r#"{a:1}"#,
        ] {
            assert!(members(bad).is_err(), "{bad:?} was accepted");
        }
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(100), "]".repeat(100));
        assert!(members(&deep).is_err());
    }

    #[test]
    fn string_stops_at_every_position() {
        for len in 0..80 {
            for stop in [b'"', b'\\', 0x1f, 0x00] {
                let mut text = vec![b'a'; len];
                text.push(stop);
                text.extend_from_slice(b"x\"");
                let expected = if stop < 0x20 {
                    Err("raw control character in a string")
                } else {
                    Ok(len)
                };
                assert_eq!(string_stop(&text), expected, "len {len} stop {stop}");
            }
            // Bytes just above the stops, and UTF-8, are never stops.
            let mut text = [b' ', b'!', b'#', b'[', b']', 0x7f, 0xc3, 0xa9].repeat(len / 8 + 1);
            text.push(b'"');
            assert_eq!(string_stop(&text), Ok(text.len() - 1));
        }
        assert_eq!(string_stop(b"abc"), Err("unterminated string"));
    }

    #[test]
    fn byte_range_at_every_length_and_position() {
        for len in 0..70 {
            for at in 0..len {
                for (low, high) in [(0x00, 0xff), (0x1f, 0x80), (0x41, 0x42)] {
                    let mut bytes = vec![0x61; len];
                    bytes[at] = low;
                    bytes[len - 1 - at] = high;
                    let expected = bytes
                        .iter()
                        .fold((u8::MAX, 0), |(l, h), &b| (l.min(b), h.max(b)));
                    assert_eq!(byte_range(&bytes), expected, "len {len} at {at}");
                }
            }
        }
        assert_eq!(byte_range(b""), (u8::MAX, 0));
    }

    #[test]
    fn integer_ranges() {
        let num = |s: &'static str| Number {
            literal: s.as_bytes(),
            integer: true,
        };
        assert_eq!(num("18446744073709551615").as_u64(), Some(u64::MAX));
        assert_eq!(num("18446744073709551616").as_u64(), None);
        assert_eq!(num("-1").as_u64(), None);
        assert_eq!(num("-9223372036854775808").as_i64(), Some(i64::MIN));
        assert_eq!(num("9223372036854775808").as_i64(), None);
    }
}
