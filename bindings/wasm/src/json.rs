//! The JSON shapes that cross the boundary, written by hand so every integer
//! is checked against `Number.MAX_SAFE_INTEGER` and no number is ever rounded.
//!
//! Output events cross as numeric records; the other events are compact
//! arrays, tagged by their first element, whose fields are defined by
//! [`crate::layout`] (the JavaScript layer turns them into objects and
//! attaches the bytes).
//!
//! Errors are objects with `code`, `message` and the core's fields of the
//! error under their core (snake_case) names (see [`write_error`]); the
//! JavaScript layer gives them their camelCase names.

use std::fmt::Write as _;

use dory_wire::records::{Field, Record, Value};
use dory_wire::{Cursor, End, Error, Event, FieldValue, ResumeState};

/// The largest integer a JavaScript number holds exactly: 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The error code of [`OutOfRange`], which only the JavaScript binding has.
pub const INTEGER_OUT_OF_RANGE: &str = "integer_out_of_range";

/// An integer that a JavaScript number cannot hold exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange {
    /// What the integer is (`"stdout offset"`, `"exit_code"`, …).
    pub field: &'static str,
    /// The exact value, in decimal.
    pub value: String,
}

impl OutOfRange {
    /// The error object sent to JavaScript (`code: "integer_out_of_range"`,
    /// with `field` and the exact `value` as a decimal string).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        out.push_str("{\"code\":");
        push_str(&mut out, INTEGER_OUT_OF_RANGE);
        out.push_str(",\"message\":");
        push_str(
            &mut out,
            &format!(
                "{INTEGER_OUT_OF_RANGE}: {} {} is above Number.MAX_SAFE_INTEGER and cannot be represented exactly",
                self.field, self.value
            ),
        );
        out.push_str(",\"field\":");
        push_str(&mut out, self.field);
        out.push_str(",\"value\":");
        push_str(&mut out, &self.value);
        out.push('}');
        out
    }
}

/// Appends a JSON string literal.
pub fn push_str(out: &mut String, s: &str) {
    // Serializing a &str into JSON cannot fail.
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned()));
}

/// Appends an unsigned integer after checking it is a safe JavaScript integer.
pub fn push_u64(out: &mut String, field: &'static str, v: u64) -> Result<(), OutOfRange> {
    if v > MAX_SAFE_INTEGER {
        return Err(OutOfRange {
            field,
            value: v.to_string(),
        });
    }
    push_digits(out, v);
    Ok(())
}

/// Appends the decimal digits of `v` (cheaper than `fmt` on the hot path).
fn push_digits(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.extend(buf[i..].iter().map(|&d| char::from(d)));
}

/// Appends a signed integer (or `null`) after checking it is a safe JavaScript integer.
pub fn push_opt_i64(
    out: &mut String,
    field: &'static str,
    v: Option<i64>,
) -> Result<(), OutOfRange> {
    match v {
        None => out.push_str("null"),
        Some(v) if v.unsigned_abs() > MAX_SAFE_INTEGER => {
            return Err(OutOfRange {
                field,
                value: v.to_string(),
            })
        }
        Some(v) => {
            let _ = write!(out, "{v}");
        }
    }
    Ok(())
}

fn push_bool(out: &mut String, v: bool) {
    out.push_str(if v { "true" } else { "false" });
}

/// Appends a JSON string literal, or `null`.
pub(crate) fn push_opt_str(out: &mut String, v: Option<&str>) {
    match v {
        Some(s) => push_str(out, s),
        None => out.push_str("null"),
    }
}

/// Appends `{"stdout":…,"stderr":…}`.
pub fn push_cursor(out: &mut String, c: Cursor) -> Result<(), OutOfRange> {
    out.push_str("{\"stdout\":");
    push_u64(out, "stdout offset", c.stdout)?;
    out.push_str(",\"stderr\":");
    push_u64(out, "stderr offset", c.stderr)?;
    out.push('}');
    Ok(())
}

/// Appends one field's value: a `bytes` value as its length (the caller
/// appends the bytes themselves).
fn push_value(
    out: &mut String,
    field: &'static Field,
    value: &Value<'_>,
) -> Result<(), OutOfRange> {
    match value {
        Value::Str(s) => push_str(out, s),
        Value::Stream(s) => push_str(out, s.as_str()),
        Value::ProcessStatus(s) => push_str(out, s.as_str()),
        Value::U64(n) => push_u64(out, field.name, *n)?,
        Value::OptI64(n) => push_opt_i64(out, field.name, *n)?,
        Value::Bool(b) => push_bool(out, *b),
        Value::Bytes(b) => push_digits(out, b.len() as u64),
        Value::Cursor(c) => push_cursor(out, *c)?,
        Value::DisconnectReason(r) => push_str(out, r.as_str()),
        Value::OptStr(s) => push_opt_str(out, *s),
        Value::U32(n) => push_digits(out, u64::from(*n)),
        // Milliseconds, fractional: the JavaScript name ends in `Ms`.
        Value::Duration(d) => {
            let _ = write!(out, "{}", d.as_nanos() as f64 / 1_000_000.0);
        }
    }
    Ok(())
}

/// Appends one event array (its name, then its fields in the order of its
/// row of the core's record table, `crate::layout`), and its bytes (if
/// any) to `data`.
///
/// On error nothing is appended to `out` or `data`.
pub fn push_event(out: &mut String, data: &mut Vec<u8>, event: &Event) -> Result<(), OutOfRange> {
    let mark = out.len();
    let (record, values) = event.record();
    let result = (|| {
        out.push('[');
        push_str(out, record.name);
        for (field, value) in record.fields.iter().zip(&values) {
            out.push(',');
            push_value(out, field, value)?;
        }
        out.push(']');
        Ok(())
    })();
    match result {
        Ok(()) => {
            for value in &values {
                if let Value::Bytes(b) = value {
                    data.extend_from_slice(b);
                }
            }
            Ok(())
        }
        Err(e) => {
            out.truncate(mark);
            Err(e)
        }
    }
}

/// Appends the end object: its `type` (the row's name), then its fields
/// under their JavaScript names, e.g. `{"type":"exited","exitCode":…,"timedOut":…}`.
pub fn push_end(out: &mut String, end: &End) -> Result<(), OutOfRange> {
    let (record, values) = end.record();
    push_record_object(out, record, &values)
}

/// Appends a record as an object: `type` (the row's name), then each field
/// under its JavaScript name ([`Field::js_name`]: camelCase, a duration in
/// ms as `…Ms`). On error nothing is appended.
pub(crate) fn push_record_object(
    out: &mut String,
    record: &Record,
    values: &[Value<'_>],
) -> Result<(), OutOfRange> {
    let mark = out.len();
    let result = (|| {
        out.push_str("{\"type\":");
        push_str(out, record.name);
        for (field, value) in record.fields.iter().zip(values) {
            out.push(',');
            push_str(out, &field.js_name());
            out.push(':');
            push_value(out, field, value)?;
        }
        out.push('}');
        Ok(())
    })();
    if result.is_err() {
        out.truncate(mark);
    }
    result
}

/// The resume state with the JavaScript (camelCase) keys:
/// `{"version":…,"procId":…,"cursor":{…},"exitSeen":…,"exitCode":…,"timedOut":…}`.
pub fn resume_state(state: &ResumeState) -> Result<String, OutOfRange> {
    // Destructured without `..`: a field added to the core fails to compile here.
    let ResumeState {
        version,
        proc_id,
        cursor,
        exit_seen,
        exit_code,
        timed_out,
    } = state;
    let mut out = String::with_capacity(128);
    let _ = write!(out, "{{\"version\":{version},\"procId\":");
    push_opt_str(&mut out, proc_id.as_deref());
    out.push_str(",\"cursor\":");
    push_cursor(&mut out, *cursor)?;
    out.push_str(",\"exitSeen\":");
    push_bool(&mut out, *exit_seen);
    out.push_str(",\"exitCode\":");
    push_opt_i64(&mut out, "exit_code", *exit_code)?;
    out.push_str(",\"timedOut\":");
    push_bool(&mut out, *timed_out);
    out.push('}');
    Ok(out)
}

/// The error object sent to JavaScript: `code`, `message` (the core's
/// `Display`) and every field of [`Error::fields`] under its core name, in
/// the core's order. Cursors are `{stdout, stderr}` objects, streams their
/// names, missing optional strings `null`.
///
/// An error whose integer field is beyond `Number.MAX_SAFE_INTEGER` becomes
/// an `integer_out_of_range` error instead.
pub fn write_error(error: &Error) -> String {
    // The argument as JavaScript names it (`computerId`, `timeoutMs`).
    if let Error::InvalidArgument { argument, .. } = error {
        if dory_wire::names::js_argument(argument) != *argument {
            return write_error(&crate::args::js_argument(error.clone()));
        }
    }
    let mut out = String::with_capacity(128);
    out.push_str("{\"code\":");
    push_str(&mut out, error.code());
    out.push_str(",\"message\":");
    push_str(&mut out, &error.to_string());
    for (name, value) in error.fields() {
        out.push(',');
        push_str(&mut out, name);
        out.push(':');
        let pushed = match value {
            FieldValue::Str(s) => {
                push_str(&mut out, s);
                Ok(())
            }
            FieldValue::OptStr(s) => {
                push_opt_str(&mut out, s);
                Ok(())
            }
            FieldValue::U64(v) => push_u64(&mut out, name, v),
            FieldValue::Stream(s) => {
                push_str(&mut out, s.as_str());
                Ok(())
            }
            FieldValue::Cursor(c) => push_cursor(&mut out, c),
            FieldValue::Bool(b) => {
                out.push_str(if b { "true" } else { "false" });
                Ok(())
            }
        };
        if let Err(e) = pushed {
            return e.to_json();
        }
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_every_field_of_the_core() {
        let gap = Error::OutputGap {
            stream: dory_wire::Stream::Stderr,
            consumed: Cursor::new(1, 2),
            earliest: Cursor::new(3, 4),
        };
        let v: serde_json::Value = serde_json::from_str(&write_error(&gap)).unwrap();
        assert_eq!(v["code"], "output_gap");
        assert_eq!(v["message"], gap.to_string());
        assert_eq!(v["stream"], "stderr");
        assert_eq!(v["consumed"], serde_json::json!({"stdout": 1, "stderr": 2}));
        assert_eq!(v["earliest"], serde_json::json!({"stdout": 3, "stderr": 4}));
        let keys: Vec<&str> = gap.fields().iter().map(|(k, _)| *k).collect();
        let mut got: Vec<&str> = v
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "code" && *k != "message")
            .collect();
        got.sort_unstable();
        let mut want = keys.clone();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn an_unsafe_integer_field_is_integer_out_of_range() {
        let gap = Error::OutputGap {
            stream: dory_wire::Stream::Stdout,
            consumed: Cursor::new(MAX_SAFE_INTEGER + 1, 0),
            earliest: Cursor::new(0, 0),
        };
        let v: serde_json::Value = serde_json::from_str(&write_error(&gap)).unwrap();
        assert_eq!(v["code"], INTEGER_OUT_OF_RANGE);
        assert_eq!(v["value"], (MAX_SAFE_INTEGER + 1).to_string());
    }

    #[test]
    fn resume_state_has_the_javascript_keys() {
        let state = ResumeState::from_json(
            r#"{"version":1,"proc_id":"p","cursor":{"stdout":5,"stderr":0},"exit_seen":true,"exit_code":-3,"timed_out":false}"#,
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&resume_state(&state).unwrap()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"version": 1, "procId": "p", "cursor": {"stdout": 5, "stderr": 0},
                "exitSeen": true, "exitCode": -3, "timedOut": false})
        );
    }
}
