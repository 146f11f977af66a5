//! Decoding one NDJSON line (or one JSON document) into a typed frame.
//!
//! This module knows the shape of every frame and document but nothing of
//! offsets, order or endpoints: those rules live in the reader.

use std::borrow::Cow;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use crate::json::plain_text;
use crate::json::{read_object, JsonError, Parser, Value};
use crate::{ExecResult, Identity, ProcessStatus, Stream};

/// A decoded frame, borrowing from its line where it can.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame<'a> {
    Started {
        proc_id: String,
    },
    Data {
        stream: Stream,
        data: Cow<'a, [u8]>,
        offset: u64,
    },
    Heartbeat,
    /// `gap`: earliest retained offsets. `combined` is the setup-log form.
    Gap {
        stdout: Option<u64>,
        stderr: Option<u64>,
        combined: Option<u64>,
    },
    Exit {
        exit_code: Option<i64>,
        timed_out: bool,
    },
    Unknown {
        frame_type: String,
    },
}

impl Frame<'_> {
    /// The frame's `type` string.
    pub(crate) fn type_name(&self) -> &str {
        match self {
            Frame::Started { .. } => "started",
            Frame::Data { stream, .. } => stream.as_str(),
            Frame::Heartbeat => "heartbeat",
            Frame::Gap { .. } => "gap",
            Frame::Exit { .. } => "exit",
            Frame::Unknown { frame_type } => frame_type,
        }
    }
}

/// The members of an object that the protocol names, each at most once.
struct Fields<'a> {
    values: [Option<Value<'a>>; FIELD_NAMES.len()],
}

/// Every member name the protocol reads, frames and documents alike.
const FIELD_NAMES: [&str; 19] = [
    "type",
    "data",
    "encoding",
    "offset",
    "proc_id",
    "exit_code",
    "timed_out",
    "earliest_stdout_offset",
    "earliest_stderr_offset",
    "earliest_offset",
    "status",
    "stdout",
    "stderr",
    "stdout_encoding",
    "stderr_encoding",
    "error",
    "stdout_truncated",
    "stderr_truncated",
    "message",
];

/// The index of a member name in [`FIELD_NAMES`] (a `match` compiles to a
/// length switch plus one comparison, cheaper than a scan on the hot path).
fn field_index(key: &[u8]) -> Option<usize> {
    Some(match key {
        b"type" => TYPE,
        b"data" => DATA,
        b"encoding" => ENCODING,
        b"offset" => OFFSET,
        b"proc_id" => PROC_ID,
        b"exit_code" => EXIT_CODE,
        b"timed_out" => TIMED_OUT,
        b"earliest_stdout_offset" => EARLIEST_STDOUT,
        b"earliest_stderr_offset" => EARLIEST_STDERR,
        b"earliest_offset" => EARLIEST,
        b"status" => STATUS,
        b"stdout" => STDOUT,
        b"stderr" => STDERR,
        b"stdout_encoding" => STDOUT_ENCODING,
        b"stderr_encoding" => STDERR_ENCODING,
        b"error" => ERROR,
        b"stdout_truncated" => STDOUT_TRUNCATED,
        b"stderr_truncated" => STDERR_TRUNCATED,
        b"message" => MESSAGE,
        _ => return None,
    })
}

const TYPE: usize = 0;
const DATA: usize = 1;
const ENCODING: usize = 2;
const OFFSET: usize = 3;
const PROC_ID: usize = 4;
const EXIT_CODE: usize = 5;
const TIMED_OUT: usize = 6;
const EARLIEST_STDOUT: usize = 7;
const EARLIEST_STDERR: usize = 8;
const EARLIEST: usize = 9;
const STATUS: usize = 10;
const STDOUT: usize = 11;
const STDERR: usize = 12;
const STDOUT_ENCODING: usize = 13;
const STDERR_ENCODING: usize = 14;
const ERROR: usize = 15;
const STDOUT_TRUNCATED: usize = 16;
const STDERR_TRUNCATED: usize = 17;
const MESSAGE: usize = 18;

/// Why a frame or document was rejected: becomes `malformed_frame`.
pub(crate) type Malformed = Cow<'static, str>;

impl<'a> Fields<'a> {
    fn parse(text: &'a [u8]) -> Result<Self, Malformed> {
        let mut fields = Fields {
            values: Default::default(),
        };
        let mut duplicate: Option<&'static str> = None;
        read_object(text, |key, value| {
            if let Some(i) = field_index(&key) {
                if fields.values[i].replace(value).is_some() {
                    duplicate = Some(FIELD_NAMES[i]);
                    return Err("duplicate member");
                }
            }
            Ok(())
        })
        .map_err(|e: JsonError| match duplicate {
            Some(name) => Cow::Owned(format!("member {name:?} appears twice")),
            None => Cow::Borrowed(e),
        })?;
        Ok(fields)
    }

    fn take(&mut self, i: usize) -> Option<Value<'a>> {
        self.values[i].take()
    }

    fn present(&self, i: usize) -> bool {
        self.values[i].is_some()
    }
}

fn missing(name: &str) -> Malformed {
    Cow::Owned(format!("missing member {name:?}"))
}

fn mistyped(name: &str, expected: &str, value: &Value<'_>) -> Malformed {
    Cow::Owned(format!(
        "member {name:?} must be {expected}, not {}",
        value.kind()
    ))
}

fn string_of<'a>(value: Option<Value<'a>>, name: &str) -> Result<Cow<'a, [u8]>, Malformed> {
    match value {
        Some(Value::Str(s)) => Ok(s),
        Some(other) => Err(mistyped(name, "a string", &other)),
        None => Err(missing(name)),
    }
}

fn u64_of(value: Option<Value<'_>>, name: &str) -> Result<u64, Malformed> {
    match value {
        Some(Value::Num(n)) => n.as_u64().ok_or_else(|| {
            Cow::Owned(format!(
                "member {name:?} must be an integer from 0 to 2^64-1"
            ))
        }),
        Some(other) => Err(mistyped(name, "an unsigned integer", &other)),
        None => Err(missing(name)),
    }
}

fn bool_of(value: Option<Value<'_>>, name: &str) -> Result<bool, Malformed> {
    match value {
        Some(Value::Bool(b)) => Ok(b),
        Some(other) => Err(mistyped(name, "a boolean", &other)),
        None => Err(missing(name)),
    }
}

fn exit_code_of(value: Option<Value<'_>>) -> Result<Option<i64>, Malformed> {
    match value {
        Some(Value::Null) => Ok(None),
        Some(Value::Num(n)) => n.as_i64().map(Some).ok_or(Cow::Borrowed(
            "member \"exit_code\" must be a 64-bit integer or null",
        )),
        Some(other) => Err(mistyped("exit_code", "an integer or null", &other)),
        None => Err(missing("exit_code")),
    }
}

/// A string member as text (the JSON reader guarantees valid UTF-8).
fn text_of(value: Option<Value<'_>>, name: &str) -> Result<String, Malformed> {
    String::from_utf8(string_of(value, name)?.into_owned())
        .map_err(|_| Cow::Owned(format!("member {name:?} is not UTF-8")))
}

/// Decodes a payload string by its encoding member (absent, `utf-8` or `base64`).
fn payload<'a>(
    data: Cow<'a, [u8]>,
    encoding: Option<Value<'_>>,
    name: &str,
) -> Result<Cow<'a, [u8]>, Malformed> {
    match encoding {
        None => Ok(data),
        Some(Value::Str(e)) if &*e == b"utf-8" => Ok(data),
        Some(Value::Str(e)) if &*e == b"base64" => decode_base64(&data)
            .map(Cow::Owned)
            .ok_or_else(|| Cow::Owned(format!("member {name:?} is not strict base64"))),
        Some(Value::Str(e)) => Err(Cow::Owned(format!(
            "unsupported encoding {:?}",
            String::from_utf8_lossy(&e)
        ))),
        Some(other) => Err(mistyped("encoding", "a string", &other)),
    }
}

/// Buffers a frame stream keeps from line to line: the data of a frame that
/// needs unescaping or base64 decoding is written into them, so that once
/// they have grown, decoding a data frame allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// An unescaped data string.
    text: Vec<u8>,
    /// Decoded base64.
    bytes: Vec<u8>,
}

/// Decodes one NDJSON line (without its line ending). The frame may borrow
/// from `line` and from `scratch`.
pub(crate) fn parse_frame<'a>(
    line: &'a [u8],
    scratch: &'a mut Scratch,
) -> Result<Frame<'a>, Malformed> {
    if let Some(frame) = compact_data_frame(line, scratch) {
        return Ok(frame);
    }
    let mut f = Fields::parse(line)?;
    let frame_type = string_of(f.take(TYPE), "type")?;
    Ok(match &*frame_type {
        b"stdout" | b"stderr" => {
            let stream = if &*frame_type == b"stdout" {
                Stream::Stdout
            } else {
                Stream::Stderr
            };
            let data = string_of(f.take(DATA), "data")?;
            let offset = u64_of(f.take(OFFSET), "offset")?;
            let data = payload(data, f.take(ENCODING), "data")?;
            if (data.len() as u64) > offset {
                return Err(Cow::Owned(format!(
                    "offset {offset} is smaller than the chunk's {} bytes",
                    data.len()
                )));
            }
            Frame::Data {
                stream,
                data,
                offset,
            }
        }
        b"heartbeat" => Frame::Heartbeat,
        b"started" => {
            let proc_id = text_of(f.take(PROC_ID), "proc_id")?;
            if proc_id.is_empty() {
                return Err(Cow::Borrowed("member \"proc_id\" is empty"));
            }
            Frame::Started { proc_id }
        }
        b"gap" => Frame::Gap {
            stdout: optional_u64(&mut f, EARLIEST_STDOUT)?,
            stderr: optional_u64(&mut f, EARLIEST_STDERR)?,
            combined: optional_u64(&mut f, EARLIEST)?,
        },
        b"exit" => Frame::Exit {
            exit_code: exit_code_of(f.take(EXIT_CODE))?,
            timed_out: bool_of(f.take(TIMED_OUT), "timed_out")?,
        },
        _ => Frame::Unknown {
            frame_type: String::from_utf8(frame_type.into_owned())
                .map_err(|_| Cow::Borrowed("member \"type\" is not UTF-8"))?,
        },
    })
}

/// The fast path for the frame that makes up nearly all traffic, in the
/// compact form servers write: `{"type":"stdout","data":"…","offset":N}`,
/// optionally with `"encoding":"base64"` before or after `offset`. Anything
/// else, or anything wrong, returns `None` and takes the general path, which
/// gives the same result or the precise error.
fn compact_data_frame<'a>(line: &'a [u8], scratch: &'a mut Scratch) -> Option<Frame<'a>> {
    let stream = if line.starts_with(br#"{"type":"stdout","data":""#) {
        Stream::Stdout
    } else if line.starts_with(br#"{"type":"stderr","data":""#) {
        Stream::Stderr
    } else {
        return None;
    };
    // The line's bytes are checked once, after the parse, by whichever check
    // its encoding needs.
    let mut p = Parser::unchecked(line);
    // Both prefixes have the same length; stop before the string's quote.
    p.eat(&line[..br#"{"type":"stdout","data":"#.len()]);
    let Scratch { text, bytes } = scratch;
    // In wasm the string is read in one pass that also finds what the text
    // check needs (`plain` below); natively `memchr`'s AVX2 search is faster
    // than that pass, and the check reads the line again.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let (data, seen) = p.string_into_ranged(text).ok()?;
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let data = p.string_into(text).ok()?;
    // UTF-8 with no control character. Every byte outside the data string is
    // matched literally below, so in wasm what the string's read saw decides,
    // and only a line with non-ASCII text is read again.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let plain = |line: &[u8]| {
        !seen.control && (!seen.non_ascii || simdutf8::basic::from_utf8(line).is_ok())
    };
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let plain = plain_text;
    let data: &'a [u8] = match data {
        Some(data) => data,
        None => {
            let text: &'a Vec<u8> = text;
            text
        }
    };
    let mut base64 = p.eat(br#","encoding":"base64""#);
    if !p.eat(br#","offset":"#) {
        return None;
    }
    let offset = p.eat_u64()?;
    if !base64 {
        base64 = p.eat(br#","encoding":"base64""#);
    }
    if p.rest() != b"}" {
        return None;
    }
    let data = if base64 {
        // Every byte outside the data string was matched literally, and the
        // strict decoder accepts only base64 letters in it: no control
        // character and no invalid UTF-8 can pass, so the byte-range pass over
        // the line is not needed.
        decode_base64_into(data, bytes)?
    } else if plain(line) {
        data
    } else {
        // A control character or invalid UTF-8: the general path gives the
        // precise error (or reads the frame with care).
        return None;
    };
    if data.len() as u64 > offset {
        return None;
    }
    Some(Frame::Data {
        stream,
        data: Cow::Borrowed(data),
        offset,
    })
}

/// Decodes strict base64 (RFC 4648 alphabet, `=` padding required, no
/// whitespace, unused bits zero), vectorised where the CPU allows.
fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    base64_simd::STANDARD.decode_to_vec(text).ok()
}

/// Strict base64 (as [`decode_base64`]) decoded into `buf`'s spare capacity,
/// grown first to the decoder's upper bound of the decoded length.
fn decode_base64_into<'b>(text: &[u8], buf: &'b mut Vec<u8>) -> Option<&'b [u8]> {
    let bound = base64_simd::STANDARD.estimated_decoded_length(text.len());
    buf.clear();
    buf.reserve(bound);
    let out = base64_simd::Out::from_uninit_slice(&mut buf.spare_capacity_mut()[..bound]);
    base64_simd::STANDARD
        .decode(text, out)
        .ok()
        .map(|decoded| &*decoded)
}

/// How a frame's `data` carries its bytes: the wire's `encoding` member.
///
/// ```
/// use dory_wire::Encoding;
///
/// assert_eq!(Encoding::Utf8.as_str(), "utf-8");
/// assert_eq!(Encoding::from_name("base64"), Some(Encoding::Base64));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// The bytes are valid UTF-8: `data` is their text (`"utf-8"`, also
    /// what a frame without an `encoding` member means).
    Utf8,
    /// They are not: `data` is their padded standard base64 (`"base64"`).
    Base64,
}

impl Encoding {
    /// `"utf-8"` or `"base64"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Base64 => "base64",
        }
    }

    /// The encoding named `name` (`"utf-8"` or `"base64"`).
    pub fn from_name(name: &str) -> Option<Encoding> {
        match name {
            "utf-8" => Some(Encoding::Utf8),
            "base64" => Some(Encoding::Base64),
            _ => None,
        }
    }
}

/// The wire's form of output bytes, as a server writes a chunk: their text
/// with [`Encoding::Utf8`] when they are valid UTF-8 (the empty chunk
/// included), else their padded standard base64 with [`Encoding::Base64`].
///
/// The one rule the clients use to show an output event as the wire would
/// write it (the `data` and `encoding` of their frames; frames without
/// output have neither). The encoding describes these bytes, not
/// necessarily what the server sent: a chunk trimmed after a reconnect may
/// start inside a character.
///
/// ```
/// use dory_wire::{wire_form, Encoding};
///
/// assert_eq!(wire_form("héllo".as_bytes()), ("héllo".to_owned(), Encoding::Utf8));
/// assert_eq!(wire_form(b"hello\0\xff"), ("aGVsbG8A/w==".to_owned(), Encoding::Base64));
/// assert_eq!(wire_form(b""), (String::new(), Encoding::Utf8));
/// ```
pub fn wire_form(bytes: &[u8]) -> (String, Encoding) {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), Encoding::Utf8),
        Err(_) => (
            base64_simd::STANDARD.encode_to_string(bytes),
            Encoding::Base64,
        ),
    }
}

fn optional_u64(f: &mut Fields<'_>, i: usize) -> Result<Option<u64>, Malformed> {
    if f.present(i) {
        u64_of(f.take(i), FIELD_NAMES[i]).map(Some)
    } else {
        Ok(None)
    }
}

/// A 2xx JSON document.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Document {
    Identity(Identity),
    ExecResult(ExecResult),
}

/// Decodes a 2xx `application/json` body: a result when it has `stdout` or
/// `stderr`, else an identity.
pub(crate) fn parse_document(body: &[u8]) -> Result<Document, Malformed> {
    let mut f = Fields::parse(body)?;
    let proc_id = text_of(f.take(PROC_ID), "proc_id")?;
    if f.present(STDOUT) || f.present(STDERR) {
        let stdout = string_of(f.take(STDOUT), "stdout")?;
        let stdout = payload(stdout, f.take(STDOUT_ENCODING), "stdout")?.into_owned();
        let stderr = string_of(f.take(STDERR), "stderr")?;
        let stderr = payload(stderr, f.take(STDERR_ENCODING), "stderr")?.into_owned();
        Ok(Document::ExecResult(ExecResult {
            proc_id,
            stdout,
            stderr,
            stdout_truncated: bool_of(f.take(STDOUT_TRUNCATED), "stdout_truncated")?,
            stderr_truncated: bool_of(f.take(STDERR_TRUNCATED), "stderr_truncated")?,
            exit_code: exit_code_of(f.take(EXIT_CODE))?,
            timed_out: bool_of(f.take(TIMED_OUT), "timed_out")?,
        }))
    } else {
        let status = match f.take(STATUS) {
            Some(Value::Str(s)) if &*s == b"running" => ProcessStatus::Running,
            Some(Value::Str(s)) if &*s == b"exited" => ProcessStatus::Exited,
            Some(Value::Str(s)) => {
                return Err(Cow::Owned(format!(
                    "member \"status\" must be \"running\" or \"exited\", not {:?}",
                    String::from_utf8_lossy(&s)
                )))
            }
            Some(other) => return Err(mistyped("status", "a string", &other)),
            None => return Err(missing("status")),
        };
        Ok(Document::Identity(Identity { proc_id, status }))
    }
}

/// A non-2xx JSON error document, as far as it could be read.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ErrorDocument {
    /// The `error` code; `None` when the body is not an object with a string `error`.
    pub(crate) code: Option<String>,
    pub(crate) message: Option<String>,
    pub(crate) earliest_stdout: Option<Result<u64, Malformed>>,
    pub(crate) earliest_stderr: Option<Result<u64, Malformed>>,
    pub(crate) earliest: Option<Result<u64, Malformed>>,
}

/// Reads an error body leniently: whatever cannot be read is left `None`.
pub(crate) fn parse_error_document(body: &[u8]) -> ErrorDocument {
    let Ok(mut f) = Fields::parse(body) else {
        return ErrorDocument::default();
    };
    let Some(Value::Str(code)) = f.take(ERROR) else {
        return ErrorDocument::default();
    };
    let message = match f.take(MESSAGE) {
        Some(Value::Str(m)) => Some(String::from_utf8_lossy(&m).into_owned()),
        _ => None,
    };
    let mut offset = |i: usize| f.present(i).then(|| u64_of(f.take(i), FIELD_NAMES[i]));
    ErrorDocument {
        code: Some(String::from_utf8_lossy(&code).into_owned()),
        message,
        earliest_stdout: offset(EARLIEST_STDOUT),
        earliest_stderr: offset(EARLIEST_STDERR),
        earliest: offset(EARLIEST),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_frames() {
        let mut scratch = Scratch::default();
        let f = parse_frame(
            br#"{"type":"stderr","data":"AP8=","encoding":"base64","offset":2}"#,
            &mut scratch,
        )
        .unwrap();
        assert_eq!(
            f,
            Frame::Data {
                stream: Stream::Stderr,
                data: Cow::Owned(vec![0, 0xff]),
                offset: 2
            }
        );
        // The same frame again, escaped, and after a longer one: the data
        // comes out of the reused buffers unchanged.
        let mut scratch = Scratch::default();
        for (line, data) in [
            (
                &br#"{"type":"stdout","data":"QUJDREVGR0g=","encoding":"base64","offset":8}"#[..],
                &b"ABCDEFGH"[..],
            ),
            (
                br#"{"type":"stdout","data":"AP8=","encoding":"base64","offset":2}"#,
                b"\0\xff",
            ),
            (
                br#"{"type":"stdout","data":"a\"b\\c\n","offset":9}"#,
                b"a\"b\\c\n",
            ),
            (br#"{"type":"stdout","data":"x\ty","offset":9}"#, b"x\ty"),
            (
                br#"{"type":"stdout","data":"\u0041\/8=","encoding":"base64","offset":9}"#,
                b"\x03\xff",
            ),
        ] {
            match parse_frame(line, &mut scratch) {
                Ok(Frame::Data { data: got, .. }) => assert_eq!(&*got, data),
                other => panic!("{other:?}"),
            }
        }
        assert!(parse_frame(
            br#"{"type":"stdout","data":"abc","offset":2}"#,
            &mut Scratch::default()
        )
        .is_err());
        assert!(parse_frame(
            br#"{"type":"stdout","data":"AP9=","encoding":"base64","offset":2}"#,
            &mut Scratch::default()
        )
        .is_err());
        assert!(parse_frame(
            br#"{"type":"stdout","data":"AP8","encoding":"base64","offset":2}"#,
            &mut Scratch::default()
        )
        .is_err());
        assert!(parse_frame(
            br#"{"type":"stdout","data":"a","offset":1,"offset":1}"#,
            &mut Scratch::default()
        )
        .is_err());
    }

    #[test]
    fn documents() {
        assert_eq!(
            parse_document(br#"{"proc_id":"p","status":"running"}"#).unwrap(),
            Document::Identity(Identity {
                proc_id: "p".into(),
                status: ProcessStatus::Running
            })
        );
        assert!(parse_document(br#"{"proc_id":"p"}"#).is_err());
        let e = parse_error_document(br#"{"error":"output_gap","earliest_stdout_offset":5}"#);
        assert_eq!(e.code.as_deref(), Some("output_gap"));
        assert_eq!(e.earliest_stdout, Some(Ok(5)));
        assert_eq!(parse_error_document(b"<html>"), ErrorDocument::default());
    }

    /// The wire form: text when valid UTF-8, else the standard padded
    /// base64 of the reference encoder (RFC 4648 vectors, every length).
    #[test]
    fn wire_form_is_text_or_standard_base64() {
        use base64::Engine as _;
        for (bytes, text) in [
            (&b"\xff"[..], "/w=="),
            (b"fo\xff", "Zm//"),
            (b"\xffoo", "/29v"),
            (b"\xc0\x80", "wIA="),
            (b"hello\0\xff", "aGVsbG8A/w=="),
        ] {
            assert_eq!(wire_form(bytes), (text.to_owned(), Encoding::Base64));
        }
        assert_eq!(wire_form(b""), (String::new(), Encoding::Utf8));
        assert_eq!(
            wire_form(b"a\0\xe2\x82\xac"),
            ("a\0\u{20ac}".to_owned(), Encoding::Utf8)
        );
        let mut rng = dory_testkit::Rng::new(11);
        for len in 0..100usize {
            let mut bytes = vec![0u8; len];
            rng.fill(&mut bytes);
            let (data, encoding) = wire_form(&bytes);
            match std::str::from_utf8(&bytes) {
                Ok(text) => assert_eq!((data.as_str(), encoding), (text, Encoding::Utf8)),
                Err(_) => assert_eq!(
                    (data, encoding),
                    (
                        base64::engine::general_purpose::STANDARD.encode(&bytes),
                        Encoding::Base64
                    )
                ),
            }
        }
        for encoding in [Encoding::Utf8, Encoding::Base64] {
            assert_eq!(Encoding::from_name(encoding.as_str()), Some(encoding));
        }
    }

    /// The vectorised decoder accepts exactly what the strict scalar one
    /// does: every length, every padding, non-zero unused bits, stray bytes.
    #[test]
    fn base64_is_as_strict_as_the_reference() {
        use base64::Engine as _;
        let reference = |t: &[u8]| base64::engine::general_purpose::STANDARD.decode(t).ok();
        let mut rng = dory_testkit::Rng::new(7);
        let alphabet =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n\r\x00\xff.";
        for len in 0..200usize {
            for _ in 0..60 {
                let mut bytes = vec![0u8; len];
                rng.fill(&mut bytes);
                let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
                let mut text = encoded.clone().into_bytes();
                assert_eq!(decode_base64(&text), Some(bytes.clone()));
                if !text.is_empty() {
                    // One byte changed, anywhere, to anything near the alphabet.
                    let at = rng.below(text.len() as u64) as usize;
                    text[at] = alphabet[rng.below(alphabet.len() as u64) as usize];
                    assert_eq!(decode_base64(&text), reference(&text), "{text:?}");
                    // Truncated or extended.
                    let cut = &encoded.as_bytes()[..at];
                    assert_eq!(decode_base64(cut), reference(cut), "{cut:?}");
                }
                let mut longer = encoded.into_bytes();
                longer.push(alphabet[rng.below(alphabet.len() as u64) as usize]);
                assert_eq!(decode_base64(&longer), reference(&longer), "{longer:?}");
            }
        }
        for bad in [
            &b"AP9="[..],
            b"AP8",
            b"A===",
            b"AA==AA==",
            b"QQ=",
            b"QR==",
            b"QUJ=",
            b"QUI",
        ] {
            assert_eq!(decode_base64(bad), None, "{bad:?}");
            assert_eq!(reference(bad), None, "{bad:?}");
        }
    }
}
