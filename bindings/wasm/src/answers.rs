//! The core's rules the npm client uses as they are: the wire's form of
//! output bytes ([`dory_wire::wire_form`]), the cursor after an event
//! ([`dory_wire::Cursor::after`]) and what a document answer means
//! ([`dory_wire::identity_answer`], [`dory_wire::exec_answer`]). The events
//! are the JavaScript layer's objects, converted by the core's record table
//! (their `type` is the record's name, their fields its camelCase names).

use dory_wire::records::{FieldType, Value, EVENTS};
use dory_wire::{Cursor, Event, ProcessStatus, Stream};
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::args::{invalid_json, offset_arg};
use crate::json;

/// One field's value as read from the object, owned until the event is built.
enum Owned {
    Str(String),
    Bytes(Vec<u8>),
    Value(Value<'static>),
}

/// The field `name` of `event`, an integer in `min..=max`.
fn integer(value: &JsValue, what: &str, min: f64) -> Result<f64, String> {
    match value.as_f64() {
        Some(n) if n.fract() == 0.0 && (min..=json::MAX_SAFE_INTEGER as f64).contains(&n) => Ok(n),
        _ => Err(invalid_json(
            "event",
            format!("{what} must be a safe integer"),
        )),
    }
}

/// The core event of a JavaScript event object (`{type, ...fields}`).
pub(crate) fn event_from_js(event: &JsValue) -> Result<Event, String> {
    let bad = |reason: String| invalid_json("event", reason);
    if !event.is_object() {
        return Err(bad("must be an event object".to_owned()));
    }
    let get =
        |key: &str| Reflect::get(event, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
    let name = get("type")
        .as_string()
        .ok_or_else(|| bad("must have a string type".to_owned()))?;
    let record = EVENTS
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| bad(format!("has an unknown type {name:?}")))?;
    let mut owned = Vec::with_capacity(record.fields.len());
    for field in record.fields {
        let key = field.js_name();
        let value = get(&key);
        let what = format!("event.{key}");
        let string = || {
            value
                .as_string()
                .ok_or_else(|| bad(format!("{what} must be a string")))
        };
        owned.push(match field.ty {
            FieldType::Str => Owned::Str(string()?),
            FieldType::Stream => Owned::Value(Value::Stream(match string()?.as_str() {
                "stdout" => Stream::Stdout,
                "stderr" => Stream::Stderr,
                other => return Err(bad(format!("{what} is not a stream: {other:?}"))),
            })),
            FieldType::ProcessStatus => {
                Owned::Value(Value::ProcessStatus(match string()?.as_str() {
                    "running" => ProcessStatus::Running,
                    "exited" => ProcessStatus::Exited,
                    other => return Err(bad(format!("{what} is not a status: {other:?}"))),
                }))
            }
            FieldType::U64 => Owned::Value(Value::U64(integer(&value, &what, 0.0)? as u64)),
            FieldType::OptI64 => {
                Owned::Value(Value::OptI64(if value.is_null() || value.is_undefined() {
                    None
                } else {
                    Some(integer(&value, &what, -(json::MAX_SAFE_INTEGER as f64))? as i64)
                }))
            }
            FieldType::Bool => Owned::Value(Value::Bool(
                value
                    .as_bool()
                    .ok_or_else(|| bad(format!("{what} must be a boolean")))?,
            )),
            FieldType::Bytes => match value.dyn_ref::<Uint8Array>() {
                Some(bytes) => Owned::Bytes(bytes.to_vec()),
                None => return Err(bad(format!("{what} must be a Uint8Array"))),
            },
            FieldType::Cursor
            | FieldType::DisconnectReason
            | FieldType::EndReason
            | FieldType::OptStr
            | FieldType::U32
            | FieldType::Duration => {
                return Err(bad(format!("{what}: no event has a field of this type")))
            }
        });
    }
    let values: Vec<Value<'_>> = owned
        .iter()
        .map(|o| match o {
            Owned::Str(s) => Value::Str(s),
            Owned::Bytes(b) => Value::Bytes(b),
            Owned::Value(v) => *v,
        })
        .collect();
    Event::from_record(record, &values).ok_or_else(|| bad(format!("is not a valid {name} event")))
}

/// `data` as the wire writes it: `[text, "utf-8"]` when the bytes are valid
/// UTF-8, else `[padded standard base64, "base64"]`.
#[wasm_bindgen]
pub fn wire_form(data: &[u8]) -> Array {
    let (text, encoding) = dory_wire::wire_form(data);
    Array::of2(
        &JsValue::from_str(&text),
        &JsValue::from_str(encoding.as_str()),
    )
}

/// The consumed offsets after `event` from `stdout`, `stderr` before it:
/// `[stdout, stderr]` (the core's `Cursor::after`).
#[wasm_bindgen]
pub fn cursor_after(stdout: f64, stderr: f64, event: &JsValue) -> Result<Vec<f64>, String> {
    let cursor = Cursor::new(
        offset_arg("cursor.stdout", stdout)?,
        offset_arg("cursor.stderr", stderr)?,
    );
    let after = cursor.after(&event_from_js(event)?);
    // Offsets only move to an event's end, a safe integer: exact as f64.
    Ok(vec![after.stdout as f64, after.stderr as f64])
}

/// The events of an answer, converted in order.
fn answer_events(events: &Array) -> Result<Vec<Event>, String> {
    events.iter().map(|e| event_from_js(&e)).collect()
}

/// The index in `events` of the identity a start, get or kill was answered
/// by (the core's rule); else the core's `unexpected_frame` error.
#[wasm_bindgen]
pub fn identity_answer(events: &Array) -> Result<u32, String> {
    let core = answer_events(events)?;
    let identity = dory_wire::identity_answer(&core).map_err(|e| json::write_error(&e))?;
    Ok(position(
        &core,
        |e| matches!(e, Event::Identity(i) if std::ptr::eq(i, identity)),
    ))
}

/// The index in `events` of a synchronous exec's answer (the core's rule):
/// its result, or a keyed replay's identity; else the core's
/// `unexpected_frame` error.
#[wasm_bindgen]
pub fn exec_answer(events: &Array) -> Result<u32, String> {
    let core = answer_events(events)?;
    let event = dory_wire::exec_answer(&core).map_err(|e| json::write_error(&e))?;
    Ok(position(&core, |e| std::ptr::eq(e, event)))
}

fn position(events: &[Event], chosen: impl Fn(&Event) -> bool) -> u32 {
    let index = events.iter().position(chosen).unwrap_or_default();
    u32::try_from(index).unwrap_or_default()
}
