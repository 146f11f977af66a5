//! Encoding of NDJSON frames and JSON documents (PROTOCOL.md §3 and §5).

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use bytes::Bytes;
use serde::Serialize;

use crate::output::Chunk;
use crate::process::ExitInfo;

/// Serializes `value` as one NDJSON line (with its `\n`).
fn line<T: Serialize>(value: &T) -> Bytes {
    // Serializing these plain structs of strings, integers and booleans
    // cannot fail; an empty line (skipped by clients) is the fallback.
    let mut v = serde_json::to_vec(value).unwrap_or_default();
    v.push(b'\n');
    Bytes::from(v)
}

/// Bytes as a JSON string: text when valid UTF-8, else standard padded base64.
/// Returns `(data, Some("base64"))` for the latter.
pub(crate) fn encode_bytes(bytes: &[u8]) -> (String, Option<&'static str>) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), None),
        Err(_) => (B64.encode(bytes), Some("base64")),
    }
}

#[derive(Serialize)]
struct Typed<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
}

#[derive(Serialize)]
struct Started<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    proc_id: &'a str,
}

#[derive(Serialize)]
struct Data<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    data: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'a str>,
    offset: u64,
}

#[derive(Serialize)]
struct Exit {
    #[serde(rename = "type")]
    kind: &'static str,
    exit_code: Option<i32>,
    timed_out: bool,
}

#[derive(Serialize)]
struct Gap {
    #[serde(rename = "type")]
    kind: &'static str,
    earliest_stdout_offset: u64,
    earliest_stderr_offset: u64,
}

#[derive(Serialize)]
struct SetupGap {
    #[serde(rename = "type")]
    kind: &'static str,
    earliest_offset: u64,
}

/// `{"type":"started","proc_id":..}`
pub(crate) fn started(proc_id: &str) -> Bytes {
    line(&Started {
        kind: "started",
        proc_id,
    })
}

/// A `stdout`/`stderr` frame for a retained chunk; `offset` is its end.
pub(crate) fn data(chunk: &Chunk) -> Bytes {
    let (data, encoding) = encode_bytes(&chunk.data);
    line(&Data {
        kind: chunk.stream.frame_type(),
        data,
        encoding,
        offset: chunk.end,
    })
}

/// `{"type":"heartbeat"}`
pub(crate) fn heartbeat() -> Bytes {
    line(&Typed { kind: "heartbeat" })
}

/// `{"type":"exit","exit_code":..,"timed_out":..}`
pub(crate) fn exit(info: ExitInfo) -> Bytes {
    line(&Exit {
        kind: "exit",
        exit_code: info.exit_code,
        timed_out: info.timed_out,
    })
}

/// A `gap` frame with the earliest retained offsets (`[stdout, stderr]`);
/// setup logs carry the single `earliest_offset`.
pub(crate) fn gap(earliest: [u64; 2], setup: bool) -> Bytes {
    if setup {
        line(&SetupGap {
            kind: "gap",
            earliest_offset: earliest[0],
        })
    } else {
        line(&Gap {
            kind: "gap",
            earliest_stdout_offset: earliest[0],
            earliest_stderr_offset: earliest[1],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Stream;

    #[test]
    fn text_and_binary_chunks() {
        let text = Chunk {
            stream: Stream::Stdout,
            end: 6,
            data: Bytes::from_static(b"hello\n"),
        };
        assert_eq!(
            &data(&text)[..],
            b"{\"type\":\"stdout\",\"data\":\"hello\\n\",\"offset\":6}\n"
        );
        let bin = Chunk {
            stream: Stream::Stderr,
            end: 2,
            data: Bytes::from_static(b"\x00\xff"),
        };
        assert_eq!(
            &data(&bin)[..],
            b"{\"type\":\"stderr\",\"data\":\"AP8=\",\"encoding\":\"base64\",\"offset\":2}\n"
        );
    }

    #[test]
    fn control_frames() {
        assert_eq!(&heartbeat()[..], b"{\"type\":\"heartbeat\"}\n");
        assert_eq!(
            &exit(ExitInfo {
                exit_code: None,
                timed_out: true
            })[..],
            b"{\"type\":\"exit\",\"exit_code\":null,\"timed_out\":true}\n"
        );
        assert_eq!(
            &gap([7, 3], false)[..],
            b"{\"type\":\"gap\",\"earliest_stdout_offset\":7,\"earliest_stderr_offset\":3}\n"
        );
        assert_eq!(
            &gap([7, 0], true)[..],
            b"{\"type\":\"gap\",\"earliest_offset\":7}\n"
        );
        assert_eq!(
            &started("p_1")[..],
            b"{\"type\":\"started\",\"proc_id\":\"p_1\"}\n"
        );
    }
}
