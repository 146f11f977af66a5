//! The event layout: how the events of one `feed`/`finish` of a reader or a
//! follower cross the boundary. One definition: the constants and the table
//! [`OTHER_EVENTS`] below, written out as [`EVENT_LAYOUT_JSON`]; the writers
//! ([`crate::feed`]'s batch, [`crate::json`]'s arrays) use them and the
//! tests of this module check both against them. The JavaScript layer holds
//! the same document (`LAYOUT` in `npm/src/layout.js`) and refuses, when the
//! module is loaded, a module whose [`event_layout_hash`] is not that of its
//! own; `npm/test/layout.test.mjs` compares the two as well.
//!
//! # The layout
//!
//! A call returns one number, `records * RECORDS + flags`: the flag
//! [`FLAG_SIDE`] says a side JSON document waits in `take_side()`.
//!
//! The `records` records are [`RECORD_F64S`] `f64` each, in wasm memory at
//! `meta_ptr()`: `tag, start, end` ([`RECORD_FIELDS`]). The tag is
//! [`TAG_STDOUT`] or [`TAG_STDERR`] for an output event: its bytes are the
//! next `end - start` bytes of the data buffer (`data_ptr()`, `data_len()`:
//! the bytes of the call's events, in event order); [`TAG_OTHER`] for any
//! other event (`start` and `end` 0): its fields are the next array of the
//! side document's `events`.
//!
//! That array is the event's name, then its fields in the order of the
//! core's record table ([`other_events`], from `dory_wire::records`), each
//! of a kind (`FieldType::as_str`): a string (`string`), `"stdout"` or
//! `"stderr"` (`stream`), `"running"` or `"exited"` (`status`), an integer
//! up to 2^53 − 1 (`u64`), an integer or null (`i64?`), a boolean (`bool`),
//! or `bytes`: a length, that many bytes of the data buffer, next in order
//! (a result document's stdout, then its stderr).
//!
//! For example an exit event is `["exit", exitCode, timedOut]`.
//!
//! The field names are those of the JavaScript event objects.

use dory_wire::records::{Record, EVENTS};
use wasm_bindgen::prelude::*;

/// The version of the layout (bumped with any change to it).
pub const LAYOUT_VERSION: u32 = 2;
/// The result of `feed`/`finish` is `records * RECORDS + flags`.
pub const RECORDS: f64 = 2.0;
/// The result flag: the call has a side JSON document (rare events, an
/// error or an end) to take with `take_side()`.
pub const FLAG_SIDE: f64 = 1.0;
/// The numbers of one record.
pub const RECORD_F64S: usize = 3;
/// The fields of a record, in order.
pub const RECORD_FIELDS: [&str; RECORD_F64S] = ["tag", "start", "end"];
/// The record tag of a stdout output event.
pub const TAG_STDOUT: f64 = 0.0;
/// The record tag of a stderr output event.
pub const TAG_STDERR: f64 = 1.0;
/// The record tag of any other event: the next array of the side JSON.
pub const TAG_OTHER: f64 = 2.0;

/// The events that cross in the side document, in the order of the core's
/// record table ([`dory_wire::records::EVENTS`]): every event but output,
/// which crosses as a numeric record. Each field's kind in the document is
/// its [`FieldType::as_str`].
pub fn other_events() -> impl Iterator<Item = &'static Record> {
    EVENTS.iter().filter(|r| r.name != "output")
}

/// The layout as one JSON document: `{"version", "result": {"records",
/// "flagSide"}, "record": {"f64s", "fields"}, "tags": {"stdout", "stderr",
/// "other"}, "other": {name: [[field, kind], …], …}}`, exactly the
/// constants and the table above (a test renders them and compares), and
/// byte for byte `JSON.stringify(LAYOUT)` of `npm/src/layout.js`.
// <generated from dory_wire::records by scripts/generate.sh: do not edit> layout
pub const EVENT_LAYOUT_JSON: &str = r#"{"version":2,"result":{"records":2,"flagSide":1},"record":{"f64s":3,"fields":["tag","start","end"]},"tags":{"stdout":0,"stderr":1,"other":2},"other":{"started":[["procId","string"]],"skipped":[["stream","stream"],["start","u64"],["end","u64"]],"heartbeat":[],"exit":[["exitCode","i64?"],["timedOut","bool"]],"unknown":[["frameType","string"]],"identity":[["procId","string"],["status","status"]],"exec_result":[["procId","string"],["stdout","bytes"],["stderr","bytes"],["stdoutTruncated","bool"],["stderrTruncated","bool"],["exitCode","i64?"],["timedOut","bool"]]}}"#;
// </generated> layout

/// FNV-1a (32 bits) of `bytes`.
pub const fn fnv1a(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u32;
        hash = hash.wrapping_mul(0x0100_0193);
        i += 1;
    }
    hash
}

/// The FNV-1a hash of [`EVENT_LAYOUT_JSON`], computed when the crate is
/// compiled (the document itself is not in the module): the JavaScript
/// layer hashes its own layout the same way and refuses a module whose hash
/// differs.
#[wasm_bindgen]
pub fn event_layout_hash() -> u32 {
    const HASH: u32 = fnv1a(EVENT_LAYOUT_JSON.as_bytes());
    HASH
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use dory_wire::{Event, ProcessStatus, Sink, Stream};
    use serde_json::{json, Value};

    use super::*;
    use crate::feed::Batch;
    use crate::json;
    use dory_wire::records::FieldType;

    /// An event, the value each named field of its side array must hold, and
    /// the bytes it appends to the data buffer.
    type Sample = (Event, Vec<(&'static str, Value)>, Vec<u8>);

    fn layout() -> Value {
        serde_json::from_str(EVENT_LAYOUT_JSON).unwrap()
    }

    /// The document the constants and the table make, in the order of
    /// `npm/src/layout.js`.
    fn rendered() -> String {
        let other: Vec<String> = other_events()
            .map(|r| {
                let fields: Vec<Value> = r
                    .fields
                    .iter()
                    .map(|f| json!([f.js_name(), f.ty.as_str()]))
                    .collect();
                format!("{}:{}", json!(r.name), Value::Array(fields))
            })
            .collect();
        format!(
            "{{\"version\":{LAYOUT_VERSION},\"result\":{{\"records\":{RECORDS},\"flagSide\":{FLAG_SIDE}}},\"record\":{{\"f64s\":{RECORD_F64S},\"fields\":{}}},\"tags\":{{\"stdout\":{TAG_STDOUT},\"stderr\":{TAG_STDERR},\"other\":{TAG_OTHER}}},\"other\":{{{}}}}}",
            json!(RECORD_FIELDS),
            other.join(",")
        )
    }

    #[test]
    fn the_document_is_the_constants_and_the_table_and_its_hash_is_exported() {
        assert_eq!(EVENT_LAYOUT_JSON, rendered());
        assert_eq!(event_layout_hash(), fnv1a(rendered().as_bytes()));
        // FNV-1a's published vectors: "" and "a".
        assert_eq!(fnv1a(b""), 0x811c_9dc5);
        assert_eq!(fnv1a(b"a"), 0xe40c_292c);
    }

    #[test]
    fn the_json_is_the_constants_and_the_table() {
        let v = layout();
        assert_eq!(v["version"], LAYOUT_VERSION);
        assert_eq!(v["result"], json!({"records": 2, "flagSide": 1}));
        assert_eq!(
            v["record"],
            json!({"f64s": 3, "fields": ["tag", "start", "end"]})
        );
        assert_eq!(v["tags"], json!({"stdout": 0, "stderr": 1, "other": 2}));
        let other = v["other"].as_object().unwrap();
        assert_eq!(other.len(), other_events().count());
        for r in other_events() {
            let got: Vec<Value> = r
                .fields
                .iter()
                .map(|f| json!([f.js_name(), f.ty.as_str()]))
                .collect();
            assert_eq!(other[r.name], Value::Array(got), "{}", r.name);
        }
    }

    /// Every event the side arrays carry, built by the core from its row
    /// with a distinct value in each field, the value each named field must
    /// hold, and the bytes it appends to the data buffer.
    fn samples() -> Vec<Sample> {
        use dory_wire::records::Value as V;
        let bytes: [&[u8]; 2] = [b"out", b"errors"];
        other_events()
            .enumerate()
            .map(|(i, row)| {
                let mut values = Vec::new();
                let mut want = Vec::new();
                let mut data = Vec::new();
                let mut taken = 0;
                for (j, field) in row.fields.iter().enumerate() {
                    let n = (10 * i + j) as u64;
                    let (value, json) = match field.ty {
                        FieldType::Str => {
                            let s: &'static str = Box::leak(format!("s-{n}").into_boxed_str());
                            (V::Str(s), json!(s))
                        }
                        FieldType::Stream => (V::Stream(Stream::Stderr), json!("stderr")),
                        FieldType::ProcessStatus => {
                            (V::ProcessStatus(ProcessStatus::Exited), json!("exited"))
                        }
                        FieldType::U64 => (V::U64(n), json!(n)),
                        FieldType::OptI64 => (V::OptI64(Some(-(n as i64))), json!(-(n as i64))),
                        FieldType::Bool => (V::Bool(j % 2 == 0), json!(j % 2 == 0)),
                        FieldType::Bytes => {
                            let b = bytes[taken % 2];
                            taken += 1;
                            data.extend_from_slice(b);
                            (V::Bytes(b), json!(b.len()))
                        }
                        FieldType::Cursor
                        | FieldType::DisconnectReason
                        | FieldType::EndReason
                        | FieldType::OptStr
                        | FieldType::U32
                        | FieldType::Duration => {
                            panic!("{}.{}: no event field has this type", row.name, field.name)
                        }
                    };
                    values.push(value);
                    want.push((field.name, json));
                }
                let event = Event::from_record(row, &values).expect("the row's values");
                (event, want, data)
            })
            .collect()
    }

    fn of_kind(kind: FieldType, v: &Value) -> bool {
        match kind {
            FieldType::Str => v.is_string(),
            FieldType::Stream => v == "stdout" || v == "stderr",
            FieldType::ProcessStatus => v == "running" || v == "exited",
            FieldType::U64 | FieldType::Bytes => {
                v.is_u64() && v.as_u64().unwrap() <= json::MAX_SAFE_INTEGER
            }
            FieldType::OptI64 => v.is_null() || v.is_i64(),
            FieldType::Bool => v.is_boolean(),
            FieldType::Cursor => v.is_object(),
            FieldType::DisconnectReason | FieldType::EndReason => v.is_string(),
            FieldType::OptStr => v.is_null() || v.is_string(),
            FieldType::U32 | FieldType::Duration => v.is_number(),
        }
    }

    #[test]
    fn each_side_array_holds_the_fields_of_the_table_in_order() {
        let samples = samples();
        let written: Vec<&str> = samples.iter().map(|(e, _, _)| name_of(e)).collect();
        let table: Vec<&str> = other_events().map(|r| r.name).collect();
        assert_eq!(written, table, "one sample per event of the table");
        for (event, want, bytes) in samples {
            let mut out = String::new();
            let mut data = Vec::new();
            json::push_event(&mut out, &mut data, &event).unwrap();
            let array: Vec<Value> = serde_json::from_str(&out).unwrap();
            let row = other_events().find(|r| r.name == array[0]).unwrap();
            let name = row.name;
            let fields: Vec<(String, FieldType)> =
                row.fields.iter().map(|f| (f.js_name(), f.ty)).collect();
            assert_eq!(array.len(), fields.len() + 1, "{name}: {out}");
            for (i, (field, kind)) in fields.iter().enumerate() {
                let value = &array[i + 1];
                assert!(
                    of_kind(*kind, value),
                    "{name}.{field} is not a {}: {value}",
                    kind.as_str()
                );
                let expected = &want[i].1;
                assert_eq!(want[i].0, row.fields[i].name);
                assert_eq!(value, expected, "{name}.{field} at {}", i + 1);
            }
            assert_eq!(data, bytes, "{name}: the bytes fields, in order");
            let lengths: u64 = fields
                .iter()
                .enumerate()
                .filter(|(_, (_, k))| *k == FieldType::Bytes)
                .map(|(i, _)| array[i + 1].as_u64().unwrap())
                .sum();
            assert_eq!(
                lengths,
                data.len() as u64,
                "{name}: the lengths cover the bytes"
            );
        }
    }

    fn name_of(event: &Event) -> &'static str {
        match event {
            Event::Skipped { .. } => "skipped",
            Event::Heartbeat => "heartbeat",
            Event::Started { .. } => "started",
            Event::Exit { .. } => "exit",
            Event::Unknown { .. } => "unknown",
            Event::Identity(_) => "identity",
            Event::ExecResult(_) => "exec_result",
            _ => "output",
        }
    }

    #[test]
    fn records_are_tag_start_end_and_the_bytes_follow_in_order() {
        let mut batch = Batch::default();
        batch.output(Stream::Stdout, Cow::Borrowed(b"abc"), 10, 13);
        batch.event(Event::Heartbeat);
        batch.output(Stream::Stderr, Cow::Borrowed(b"de"), 4, 6);
        assert_eq!(batch.records(), 3.0);
        assert_eq!(batch.meta.len(), 3 * RECORD_F64S);
        let field = |record: usize, name: &str| {
            batch.meta
                [record * RECORD_F64S + RECORD_FIELDS.iter().position(|f| *f == name).unwrap()]
        };
        assert_eq!(
            [field(0, "tag"), field(0, "start"), field(0, "end")],
            [TAG_STDOUT, 10.0, 13.0]
        );
        assert_eq!(field(1, "tag"), TAG_OTHER);
        assert_eq!(
            [field(2, "tag"), field(2, "start"), field(2, "end")],
            [TAG_STDERR, 4.0, 6.0]
        );
        assert_eq!(batch.data, b"abcde");
        assert_eq!(batch.other, "[\"heartbeat\"]");
    }
}
