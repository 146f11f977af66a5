//! A plain reference decoder, written from `docs/PROTOCOL.md` with serde_json
//! and the base64 crate and sharing no code with the core: one line at a time
//! for frame streams, one object for documents. It is slow and simple on
//! purpose; the differential targets compare the core against it.

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// What the reference decoder read from a valid frame stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefStream {
    /// New bytes per stream (stdout, stderr), overlap trimmed.
    pub bytes: [Vec<u8>; 2],
    /// Consumed offsets (stdout, stderr) at the end.
    pub cursor: [u64; 2],
    /// The `started` frame's process id.
    pub started: Option<String>,
    /// The `exit` frame's code and timeout flag.
    pub exit: Option<(Option<i64>, bool)>,
}

/// Decodes a frame stream that is valid by construction, starting from the
/// consumed offsets `cursor`. Panics on anything invalid: the generator never
/// writes it, so that would be a bug of the generator.
pub fn decode_stream(body: &[u8], cursor: [u64; 2]) -> RefStream {
    let mut out = RefStream {
        cursor,
        ..RefStream::default()
    };
    let mut lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    // The last piece has no `\n`: a partial line, discarded.
    lines.pop();
    for line in lines {
        if out.exit.is_some() {
            panic!("generator wrote a line after exit");
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            continue;
        }
        let frame: Value = serde_json::from_slice(line).expect("generated frame is JSON");
        let kind = frame["type"].as_str().expect("frame has a type");
        match kind {
            "stdout" | "stderr" => {
                let index = usize::from(kind == "stderr");
                let data = frame["data"].as_str().expect("data is a string");
                let bytes = match frame.get("encoding").map(|e| e.as_str()) {
                    None | Some(Some("utf-8")) => data.as_bytes().to_vec(),
                    Some(Some("base64")) => STANDARD.decode(data).expect("valid base64"),
                    Some(other) => panic!("generator wrote encoding {other:?}"),
                };
                let end = frame["offset"].as_u64().expect("offset is a u64");
                let start = end - bytes.len() as u64;
                let consumed = out.cursor[index];
                assert!(start <= consumed, "generator wrote a hole");
                if end > consumed {
                    let skip = (consumed - start) as usize;
                    out.bytes[index].extend_from_slice(&bytes[skip..]);
                    out.cursor[index] = end;
                }
            }
            "started" => {
                out.started = Some(frame["proc_id"].as_str().expect("proc_id").to_owned());
            }
            "exit" => {
                let code = match &frame["exit_code"] {
                    Value::Null => None,
                    v => Some(v.as_i64().expect("exit_code is an i64")),
                };
                out.exit = Some((code, frame["timed_out"].as_bool().expect("timed_out")));
            }
            _ => {}
        }
    }
    out
}

/// A JSON object's members in order, duplicates kept, with the depth of the
/// deepest value.
#[derive(Debug, Clone, PartialEq)]
pub struct Members {
    /// The members, in order.
    pub members: Vec<(String, Value)>,
}

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Value>()? {
                    members.push((key, value));
                }
                Ok(Members { members })
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// The nesting depth of a value: 0 for a scalar, 1 for a flat array or object.
pub fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// What the reference makes of a 2xx JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefDocument {
    /// `proc_id` and `status`.
    Identity {
        /// The process id.
        proc_id: String,
        /// `running` or `exited`.
        status: String,
    },
    /// A synchronous exec result.
    Result {
        /// The process id.
        proc_id: String,
        /// Decoded stdout.
        stdout: Vec<u8>,
        /// Decoded stderr.
        stderr: Vec<u8>,
        /// `stdout_truncated`.
        stdout_truncated: bool,
        /// `stderr_truncated`.
        stderr_truncated: bool,
        /// `exit_code`.
        exit_code: Option<i64>,
        /// `timed_out`.
        timed_out: bool,
    },
    /// Not a valid document, and why.
    Invalid(String),
    /// Outside what the reference can judge (deep nesting, `-0` literals):
    /// no comparison is made.
    Undecided,
}

/// The member names the protocol reads; each may appear at most once.
const KNOWN: [&str; 19] = [
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

/// Decodes a 2xx `application/json` body by the rules of PROTOCOL.md §5 and §8.
pub fn decode_document(body: &[u8]) -> RefDocument {
    let members = match serde_json::from_slice::<Members>(body) {
        Ok(m) => m.members,
        Err(e) => return RefDocument::Invalid(e.to_string()),
    };
    // The core bounds nesting (64); serde_json allows more. Stay well inside both.
    if members.iter().any(|(_, v)| depth(v) >= 60) {
        return RefDocument::Undecided;
    }
    let mut fields: std::collections::HashMap<&str, &Value> = Default::default();
    for (key, value) in &members {
        if KNOWN.contains(&key.as_str()) && fields.insert(key.as_str(), value).is_some() {
            return RefDocument::Invalid(format!("{key} twice"));
        }
    }
    let Some(Value::String(proc_id)) = fields.get("proc_id") else {
        return RefDocument::Invalid("proc_id".into());
    };
    let proc_id = proc_id.clone();
    if !fields.contains_key("stdout") && !fields.contains_key("stderr") {
        return match fields.get("status") {
            Some(Value::String(s)) if s == "running" || s == "exited" => RefDocument::Identity {
                proc_id,
                status: s.clone(),
            },
            _ => RefDocument::Invalid("status".into()),
        };
    }
    let payload = |name: &str, encoding: &str| -> Result<Vec<u8>, String> {
        let Some(Value::String(text)) = fields.get(name) else {
            return Err(name.to_owned());
        };
        match fields.get(encoding) {
            None => Ok(text.as_bytes().to_vec()),
            Some(Value::String(e)) if e == "utf-8" => Ok(text.as_bytes().to_vec()),
            Some(Value::String(e)) if e == "base64" => {
                STANDARD.decode(text).map_err(|e| e.to_string())
            }
            Some(_) => Err(encoding.to_owned()),
        }
    };
    let flag = |name: &str| match fields.get(name) {
        Some(Value::Bool(b)) => Ok(*b),
        _ => Err(name.to_owned()),
    };
    let exit_code = match fields.get("exit_code") {
        Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(code) => Ok(Some(code)),
            // serde_json reads `-0` as a float: the literal is lost, so no verdict.
            None if n.as_f64() == Some(0.0) => return RefDocument::Undecided,
            None => Err("exit_code".to_owned()),
        },
        _ => Err("exit_code".to_owned()),
    };
    let result = (|| {
        Ok::<_, String>(RefDocument::Result {
            proc_id,
            stdout: payload("stdout", "stdout_encoding")?,
            stderr: payload("stderr", "stderr_encoding")?,
            stdout_truncated: flag("stdout_truncated")?,
            stderr_truncated: flag("stderr_truncated")?,
            exit_code: exit_code?,
            timed_out: flag("timed_out")?,
        })
    })();
    result.unwrap_or_else(RefDocument::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents() {
        assert_eq!(
            decode_document(br#" {"proc_id":"p","status":"exited","x":[{}]} "#),
            RefDocument::Identity {
                proc_id: "p".into(),
                status: "exited".into()
            }
        );
        assert!(matches!(
            decode_document(br#"{"proc_id":"p","status":"exited","status":"exited"}"#),
            RefDocument::Invalid(_)
        ));
        assert!(matches!(
            decode_document(br#"{"proc_id":"p","status":"running"} x"#),
            RefDocument::Invalid(_)
        ));
        let result = br#"{"proc_id":"p","stdout":"AP8=","stdout_encoding":"base64","stderr":"e","stdout_truncated":false,"stderr_truncated":true,"exit_code":null,"timed_out":true}"#;
        assert_eq!(
            decode_document(result),
            RefDocument::Result {
                proc_id: "p".into(),
                stdout: vec![0, 255],
                stderr: b"e".to_vec(),
                stdout_truncated: false,
                stderr_truncated: true,
                exit_code: None,
                timed_out: true
            }
        );
    }

    #[test]
    fn streams() {
        let body = b"{\"type\":\"stdout\",\"data\":\"hello\",\"offset\":5}\r\n\n{\"type\":\"stdout\",\"data\":\"lo!\",\"offset\":6}\n{\"type\":\"stderr\",\"data\":\"AP8=\",\"encoding\":\"base64\",\"offset\":2}\n{\"type\":\"exit\",\"exit_code\":-1,\"timed_out\":false}\n{\"partial";
        let out = decode_stream(body, [0, 0]);
        assert_eq!(out.bytes[0], b"hello!");
        assert_eq!(out.bytes[1], vec![0, 255]);
        assert_eq!(out.cursor, [6, 2]);
        assert_eq!(out.exit, Some((Some(-1), false)));
    }
}
