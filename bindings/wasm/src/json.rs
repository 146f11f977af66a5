//! The JSON shapes that cross the boundary, written by hand so every integer
//! is checked against `Number.MAX_SAFE_INTEGER` and no number is ever rounded.
//!
//! Output events cross as numeric records (see the reader); the other events
//! are compact arrays, tagged by their first element (the JavaScript layer
//! turns them into objects and attaches the bytes):
//!
//! | event | array |
//! | --- | --- |
//! | started | `["started", procId]` |
//! | skipped | `["skipped", stream, from, to]` |
//! | heartbeat | `["heartbeat"]` |
//! | exit | `["exit", exitCode, timedOut]` |
//! | unknown | `["unknown", frameType]` |
//! | identity | `["identity", procId, status]` |
//! | result | `["result", procId, stdoutLen, stderrLen, stdoutTruncated, stderrTruncated, exitCode, timedOut]` |
//!
//! Errors are objects with `code`, `message` and the fields of their kind in
//! camelCase (see [`write_error`]).

use std::fmt::Write as _;

use dory_wire::{Cursor, End, Error, Event};

/// The largest integer a JavaScript number holds exactly: 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// An integer that a JavaScript number cannot hold exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange {
    /// What the integer is (`"stdout offset"`, `"exit_code"`, …).
    pub field: &'static str,
    /// The exact value, in decimal.
    pub value: String,
}

impl OutOfRange {
    /// The error object sent to JavaScript (`code: "integer_out_of_range"`).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        out.push_str("{\"code\":\"integer_out_of_range\",\"message\":");
        push_str(
            &mut out,
            &format!(
                "integer_out_of_range: {} {} is above Number.MAX_SAFE_INTEGER and cannot be represented exactly",
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

/// Appends `{"stdout":…,"stderr":…}`.
pub fn push_cursor(out: &mut String, c: Cursor) -> Result<(), OutOfRange> {
    out.push_str("{\"stdout\":");
    push_u64(out, "stdout offset", c.stdout)?;
    out.push_str(",\"stderr\":");
    push_u64(out, "stderr offset", c.stderr)?;
    out.push('}');
    Ok(())
}

/// Appends one event array, and its bytes (if any) to `data`.
///
/// On error nothing is appended to `out` or `data`.
pub fn push_event(out: &mut String, data: &mut Vec<u8>, event: &Event) -> Result<(), OutOfRange> {
    let mark = out.len();
    let result = push_event_inner(out, event);
    match result {
        Ok(()) => {
            match event {
                Event::Output { data: bytes, .. } => data.extend_from_slice(bytes),
                Event::Result(r) => {
                    data.extend_from_slice(&r.stdout);
                    data.extend_from_slice(&r.stderr);
                }
                _ => {}
            }
            Ok(())
        }
        Err(e) => {
            out.truncate(mark);
            Err(e)
        }
    }
}

fn push_event_inner(out: &mut String, event: &Event) -> Result<(), OutOfRange> {
    match event {
        Event::Started { proc_id } => {
            out.push_str("[\"started\",");
            push_str(out, proc_id);
        }
        Event::Output {
            stream, start, end, ..
        } => {
            out.push('[');
            push_str(out, stream.as_str());
            out.push(',');
            push_u64(out, "output start offset", *start)?;
            out.push(',');
            push_u64(out, "output end offset", *end)?;
        }
        Event::Skipped { stream, from, to } => {
            out.push_str("[\"skipped\",");
            push_str(out, stream.as_str());
            out.push(',');
            push_u64(out, "skipped from offset", *from)?;
            out.push(',');
            push_u64(out, "skipped to offset", *to)?;
        }
        Event::Heartbeat => out.push_str("[\"heartbeat\""),
        Event::Exit {
            exit_code,
            timed_out,
        } => {
            out.push_str("[\"exit\",");
            push_opt_i64(out, "exit_code", *exit_code)?;
            out.push(',');
            push_bool(out, *timed_out);
        }
        Event::Unknown { frame_type } => {
            out.push_str("[\"unknown\",");
            push_str(out, frame_type);
        }
        Event::Identity(identity) => {
            out.push_str("[\"identity\",");
            push_str(out, &identity.proc_id);
            out.push(',');
            push_str(out, identity.status.as_str());
        }
        Event::Result(r) => {
            out.push_str("[\"result\",");
            push_str(out, &r.proc_id);
            let _ = write!(out, ",{},{},", r.stdout.len(), r.stderr.len());
            push_bool(out, r.stdout_truncated);
            out.push(',');
            push_bool(out, r.stderr_truncated);
            out.push(',');
            push_opt_i64(out, "exit_code", r.exit_code)?;
            out.push(',');
            push_bool(out, r.timed_out);
        }
    }
    out.push(']');
    Ok(())
}

/// Appends the end object: `{"type":"exited","exitCode":…,"timedOut":…}`,
/// `{"type":"disconnected","cursor":{…},"reason":…}` or `{"type":"document"}`.
pub fn push_end(out: &mut String, end: &End) -> Result<(), OutOfRange> {
    let mark = out.len();
    let result = (|| {
        match end {
            End::Exited {
                exit_code,
                timed_out,
            } => {
                out.push_str("{\"type\":\"exited\",\"exitCode\":");
                push_opt_i64(out, "exit_code", *exit_code)?;
                out.push_str(",\"timedOut\":");
                push_bool(out, *timed_out);
            }
            End::Disconnected { cursor, reason } => {
                out.push_str("{\"type\":\"disconnected\",\"cursor\":");
                push_cursor(out, *cursor)?;
                out.push_str(",\"reason\":");
                push_str(out, reason.as_str());
            }
            End::Document => out.push_str("{\"type\":\"document\""),
        }
        out.push('}');
        Ok(())
    })();
    if result.is_err() {
        out.truncate(mark);
    }
    result
}

/// The error object sent to JavaScript: `code`, `message` (the core's
/// `Display`) and the fields of the kind in camelCase:
///
/// - `output_gap`: `stream`, `consumed`, `earliest` (cursors)
/// - `output_expired`, `offset_beyond_output`: `serverMessage`
/// - `api_error`: `status`, `apiCode` (string or null), `serverMessage`
/// - `unsupported_content_type`: `contentType`
/// - `malformed_frame`: `line`, `reason`
/// - `unexpected_frame`: `line`, `frameType`, `reason`
/// - `identity_mismatch`: `expected`, `found`
/// - `frame_too_large`: `limit`
/// - `invalid_limits`, `invalid_state`: `reason`
///
/// Every error also carries `protocol` (the core's `is_protocol_error`).
/// A gap whose offsets are beyond `Number.MAX_SAFE_INTEGER` becomes an
/// `integer_out_of_range` error instead.
pub fn write_error(error: &Error) -> String {
    let mut out = String::with_capacity(128);
    out.push_str("{\"code\":");
    push_str(&mut out, error.code());
    out.push_str(",\"message\":");
    push_str(&mut out, &error.to_string());
    out.push_str(",\"protocol\":");
    push_bool(&mut out, error.is_protocol_error());
    let fields: Result<(), OutOfRange> = (|| {
        match error {
            Error::OutputGap {
                stream,
                consumed,
                earliest,
            } => {
                out.push_str(",\"stream\":");
                push_str(&mut out, stream.as_str());
                out.push_str(",\"consumed\":");
                push_cursor(&mut out, *consumed)?;
                out.push_str(",\"earliest\":");
                push_cursor(&mut out, *earliest)?;
            }
            Error::OutputExpired { message } | Error::OffsetBeyondOutput { message } => {
                out.push_str(",\"serverMessage\":");
                push_str(&mut out, message);
            }
            Error::Api {
                status,
                api_code,
                message,
            } => {
                let _ = write!(out, ",\"status\":{status},\"apiCode\":");
                match api_code {
                    Some(code) => push_str(&mut out, code),
                    None => out.push_str("null"),
                }
                out.push_str(",\"serverMessage\":");
                push_str(&mut out, message);
            }
            Error::UnsupportedContentType { content_type } => {
                out.push_str(",\"contentType\":");
                push_str(&mut out, content_type);
            }
            Error::MalformedFrame { line, reason } => {
                out.push_str(",\"line\":");
                push_u64(&mut out, "line", *line)?;
                out.push_str(",\"reason\":");
                push_str(&mut out, reason);
            }
            Error::UnexpectedFrame {
                line,
                frame_type,
                reason,
            } => {
                out.push_str(",\"line\":");
                push_u64(&mut out, "line", *line)?;
                out.push_str(",\"frameType\":");
                push_str(&mut out, frame_type);
                out.push_str(",\"reason\":");
                push_str(&mut out, reason);
            }
            Error::IdentityMismatch { expected, found } => {
                out.push_str(",\"expected\":");
                push_str(&mut out, expected);
                out.push_str(",\"found\":");
                push_str(&mut out, found);
            }
            Error::FrameTooLarge { limit } => {
                let _ = write!(out, ",\"limit\":{limit}");
            }
            Error::InvalidLimits { reason } | Error::InvalidState { reason } => {
                out.push_str(",\"reason\":");
                push_str(&mut out, reason);
            }
            // A kind added to the core later still crosses with its code and message.
            _ => {}
        }
        Ok(())
    })();
    match fields {
        Ok(()) => {
            out.push('}');
            out
        }
        Err(e) => e.to_json(),
    }
}
