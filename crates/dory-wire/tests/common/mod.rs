//! Shared helpers of the integration tests: the vector files and the JSON
//! shapes of VECTORS.md.
#![allow(dead_code, unreachable_pub)]

pub mod conversation;
pub mod preview;
pub mod search;

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use dory_wire::records::{Record, Value as RecordValue};
use dory_wire::{Cursor, End, Endpoint, Error, Event, GapPolicy, Reader, ReaderOptions};
use serde_json::{json, Map, Value};

/// `tests/vectors` at the repository root.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

/// Every `.json` file below `dir`, sorted, found by walking the tree.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Every vector of `kind` in every file, with the file it came from.
pub fn vectors(kind: &str) -> Vec<(PathBuf, Value)> {
    let mut out = Vec::new();
    for path in json_files(&vectors_dir()) {
        let text = std::fs::read_to_string(&path).expect("readable vector file");
        let file: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", path.display()));
        let list = file["vectors"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no \"vectors\" array", path.display()));
        for v in list {
            if v["kind"] == kind {
                out.push((path.clone(), v.clone()));
            }
        }
    }
    out
}

pub fn b64(data: &[u8]) -> String {
    STANDARD.encode(data)
}

pub fn cursor_json(c: &Cursor) -> Value {
    json!({"stdout": c.stdout, "stderr": c.stderr})
}

/// A record's fields under their names, by the core's record table (the
/// vectors name most fields as the table does; `event_json` renames the rest).
pub fn record_json(record: &Record, values: &[RecordValue<'_>]) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(record.name));
    for (field, value) in record.fields.iter().zip(values) {
        let v = match value {
            RecordValue::Str(s) => json!(s),
            RecordValue::Stream(s) => json!(s.as_str()),
            RecordValue::ProcessStatus(s) => json!(s.as_str()),
            RecordValue::U64(n) => json!(n),
            RecordValue::OptI64(n) => json!(n),
            RecordValue::Bool(b) => json!(b),
            RecordValue::Bytes(b) => json!(b64(b)),
            RecordValue::Cursor(c) => cursor_json(c),
            RecordValue::DisconnectReason(r) => json!(r.as_str()),
            RecordValue::OptStr(s) => json!(s),
            RecordValue::U32(n) => json!(n),
            RecordValue::Duration(d) => json!(d.as_millis() as u64),
        };
        m.insert(field.name.into(), v);
    }
    Value::Object(m)
}

pub fn event_json(e: &Event) -> Value {
    match e {
        Event::Output {
            stream,
            data,
            start,
            end,
        } => json!({"type": stream.as_str(), "data_b64": b64(data), "start": start, "end": end}),
        // The vectors' own format (docs/VECTORS.md) names the range `from`/`to`.
        Event::Skipped { stream, start, end } => {
            json!({"type": "skipped", "stream": stream.as_str(), "from": start, "to": end})
        }
        Event::ExecResult(r) => json!({
            "type": "result",
            "proc_id": r.proc_id,
            "stdout_b64": b64(&r.stdout),
            "stderr_b64": b64(&r.stderr),
            "stdout_truncated": r.stdout_truncated,
            "stderr_truncated": r.stderr_truncated,
            "exit_code": r.exit_code,
            "timed_out": r.timed_out,
        }),
        other => {
            let (record, values) = other.record();
            record_json(record, &values)
        }
    }
}

pub fn end_json(end: &Result<End, Error>) -> Value {
    match end {
        Ok(end) => {
            let (record, values) = end.record();
            record_json(record, &values)
        }
        Err(e) => error_json(e),
    }
}

pub fn error_json(e: &Error) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("error"));
    m.insert("code".into(), json!(e.code()));
    match e {
        Error::OutputGap {
            stream,
            consumed,
            earliest,
        } => {
            m.insert("stream".into(), json!(stream.as_str()));
            m.insert("consumed".into(), cursor_json(consumed));
            m.insert("earliest".into(), cursor_json(earliest));
        }
        Error::Api {
            status, api_code, ..
        } => {
            m.insert("status".into(), json!(status));
            m.insert("api_code".into(), json!(api_code));
        }
        Error::StreamDisconnected {
            reason,
            cursor,
            proc_id,
            ..
        } => {
            m.insert("reason".into(), json!(reason.as_str()));
            m.insert("cursor".into(), cursor_json(cursor));
            m.insert("proc_id".into(), json!(proc_id));
        }
        Error::IdentityMismatch { expected, found } => {
            m.insert("expected".into(), json!(expected));
            m.insert("found".into(), json!(found));
        }
        Error::InvalidArgument { argument, .. } => {
            m.insert("argument".into(), json!(argument));
        }
        _ => {}
    }
    Value::Object(m)
}

/// What decoding a body produced: events, the end, the final cursor.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub events: Vec<Value>,
    pub end: Value,
    pub cursor: Value,
}

/// Decodes a vector's body, fed in the pieces that `cuts` (sorted offsets) make.
pub fn decode(v: &Value, body: &[u8], cuts: &[usize]) -> Outcome {
    let endpoint =
        Endpoint::from_name(v["endpoint"].as_str().expect("endpoint")).expect("known endpoint");
    let cursor = match v.get("cursor") {
        Some(c) if !c.is_null() => Cursor::new(
            c["stdout"].as_u64().unwrap_or(0),
            c["stderr"].as_u64().unwrap_or(0),
        ),
        _ => Cursor::default(),
    };
    let mut options = ReaderOptions::default();
    if let Some(p) = v.get("gap_policy").and_then(Value::as_str) {
        options = options.gap_policy(GapPolicy::from_name(p).expect("known gap policy"));
    }
    if let Some(m) = v.get("max_frame_bytes").and_then(Value::as_u64) {
        options = options.max_frame_bytes(m as usize);
    }
    if let Some(s) = v.get("strict").and_then(Value::as_bool) {
        options = options.strict(s);
    }
    let mut reader = Reader::new(endpoint, cursor, options);
    let mut events = Vec::new();
    let status = v["status"].as_u64().expect("status") as u16;
    let content_type = v["content_type"].as_str().unwrap_or("");
    let header = v.get("process_id_header").and_then(Value::as_str);
    let mut result = reader.open(status, content_type, header);
    if result.is_ok() {
        let mut at = 0;
        for &cut in cuts.iter().chain(std::iter::once(&body.len())) {
            if let Err(e) = reader.feed(&body[at..cut], &mut events) {
                result = Err(e);
                break;
            }
            at = cut;
        }
    }
    let end = match result {
        Ok(_) => reader.finish(&mut events),
        Err(e) => Err(e),
    };
    Outcome {
        events: events.iter().map(event_json).collect(),
        end: end_json(&end),
        cursor: cursor_json(&reader.cursor()),
    }
}

pub fn body_of(v: &Value) -> Vec<u8> {
    if let Some(b) = v.get("body_b64").and_then(Value::as_str) {
        STANDARD.decode(b).expect("body_b64 is base64")
    } else {
        v["body"]
            .as_str()
            .expect("body or body_b64")
            .as_bytes()
            .to_vec()
    }
}

/// The seeded generator of every test, fuzz target and benchmark.
#[allow(unused_imports)] // not every test binary draws splits
pub use dory_testkit::Rng;

/// Whether `actual` holds every key of `expected` with an equal value.
pub fn subset_matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, ev)| a.get(k).is_some_and(|av| subset_matches(ev, av))),
        _ => expected == actual,
    }
}
