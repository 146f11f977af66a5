//! Conversions shared by every interface: errors, streams and cursors; and
//! the WIT interface `types` (`dory:wire/types`), whose `error-codes()` is
//! implemented here.
//!
//! An error becomes the WIT `error` record by looping over the core's
//! [`dory_wire::Error::fields`], so a field added to the core reaches every
//! host without a change here, and no code here matches on the error's
//! variants.
#![forbid(unsafe_code)]

use dory_wire::{ErrorKind, FieldValue, ERROR_CODES};

use crate::bindings::exports::dory::wire::types as wit;
use crate::Component;

/// A core stream as its WIT enum.
pub fn stream(stream: dory_wire::Stream) -> wit::Stream {
    match stream {
        dory_wire::Stream::Stdout => wit::Stream::Stdout,
        dory_wire::Stream::Stderr => wit::Stream::Stderr,
    }
}

/// A WIT stream as the core's.
pub fn core_stream(stream: wit::Stream) -> dory_wire::Stream {
    match stream {
        wit::Stream::Stdout => dory_wire::Stream::Stdout,
        wit::Stream::Stderr => dory_wire::Stream::Stderr,
    }
}

/// A core cursor as its WIT record.
pub fn cursor(cursor: dory_wire::Cursor) -> wit::Cursor {
    wit::Cursor {
        stdout: cursor.stdout,
        stderr: cursor.stderr,
    }
}

/// A WIT cursor as the core's.
pub fn core_cursor(cursor: wit::Cursor) -> dory_wire::Cursor {
    dory_wire::Cursor::new(cursor.stdout, cursor.stderr)
}

/// An error kind as its WIT enum.
///
/// The core's `ErrorKind` is `#[non_exhaustive]`, so the compiler demands a
/// last arm; the test `every_kind_has_its_case` proves that every kind in
/// `ERROR_CODES` maps to the WIT case of the same name, so a kind added to the
/// core without a WIT case fails that test instead of reaching a host.
pub fn kind(kind: ErrorKind) -> wit::ErrorKind {
    match kind {
        ErrorKind::Answer => wit::ErrorKind::Answer,
        ErrorKind::Loss => wit::ErrorKind::Loss,
        ErrorKind::Protocol => wit::ErrorKind::Protocol,
        ErrorKind::Limits => wit::ErrorKind::Limits,
        ErrorKind::Misuse => wit::ErrorKind::Misuse,
        ErrorKind::Transport => wit::ErrorKind::Transport,
        // Unreachable for every kind of ERROR_CODES (see the test above).
        _ => wit::ErrorKind::Misuse,
    }
}

fn field_value(value: FieldValue<'_>) -> wit::FieldValue {
    // FieldValue is exhaustive on purpose: a new field type breaks this match.
    match value {
        FieldValue::Str(s) => wit::FieldValue::Str(s.to_owned()),
        FieldValue::OptStr(s) => wit::FieldValue::OptStr(s.map(str::to_owned)),
        FieldValue::U64(n) => wit::FieldValue::U64(n),
        FieldValue::Stream(s) => wit::FieldValue::Stream(stream(s)),
        FieldValue::Cursor(c) => wit::FieldValue::Cursor(cursor(c)),
        FieldValue::Bool(b) => wit::FieldValue::Boolean(b),
    }
}

/// A core error as the WIT `error` record: code, class, kind, the core's
/// message and every field the core lists.
pub fn error(err: &dory_wire::Error) -> wit::Error {
    wit::Error {
        code: err.code().to_owned(),
        class_name: err.class_name().to_owned(),
        kind: kind(err.kind()),
        message: err.to_string(),
        fields: err
            .fields()
            .into_iter()
            .map(|(name, value)| wit::Field {
                name: name.to_owned(),
                value: field_value(value),
            })
            .collect(),
    }
}

/// An `invalid_state` error of the core with this reason.
pub fn invalid_state(reason: &str) -> wit::Error {
    error(&dory_wire::Error::InvalidState {
        reason: reason.to_owned(),
    })
}

impl wit::Guest for Component {
    fn error_codes() -> Vec<wit::ErrorCode> {
        ERROR_CODES
            .iter()
            .map(|row| wit::ErrorCode {
                code: row.code.to_owned(),
                class_name: row.class.to_owned(),
                kind: kind(row.kind),
                fields: row.fields.iter().map(|f| (*f).to_owned()).collect(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case_name(kind: wit::ErrorKind) -> &'static str {
        match kind {
            wit::ErrorKind::Answer => "answer",
            wit::ErrorKind::Loss => "loss",
            wit::ErrorKind::Protocol => "protocol",
            wit::ErrorKind::Misuse => "misuse",
            wit::ErrorKind::Limits => "limits",
            wit::ErrorKind::Transport => "transport",
        }
    }

    #[test]
    fn every_kind_has_its_case() {
        for row in ERROR_CODES {
            assert_eq!(case_name(kind(row.kind)), row.kind.as_str(), "{}", row.code);
        }
    }

    #[test]
    fn an_error_carries_its_code_class_kind_message_and_fields() {
        let err = dory_wire::Error::OutputGap {
            stream: dory_wire::Stream::Stderr,
            consumed: dory_wire::Cursor::new(1, 2),
            earliest: dory_wire::Cursor::new(1, 9),
        };
        let got = error(&err);
        assert_eq!(got.code, "output_gap");
        assert_eq!(got.class_name, "OutputGap");
        assert!(matches!(got.kind, wit::ErrorKind::Loss));
        assert_eq!(got.message, err.to_string());
        let names: Vec<_> = got.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["stream", "consumed", "earliest"]);
        assert!(matches!(
            got.fields[2].value,
            wit::FieldValue::Cursor(wit::Cursor {
                stdout: 1,
                stderr: 9
            })
        ));
    }

    #[test]
    fn the_table_lists_every_code_with_its_field_names() {
        let rows = <Component as wit::Guest>::error_codes();
        assert_eq!(rows.len(), ERROR_CODES.len());
        let api = rows.iter().find(|r| r.code == "api_error").unwrap();
        assert_eq!(api.class_name, "ApiError");
        assert_eq!(api.fields, ["status", "api_code", "server_message"]);
    }
}
