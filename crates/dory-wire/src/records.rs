//! The records that cross every binding, declared once.
//!
//! Each event a [`Reader`](crate::Reader) or a [`Follower`](crate::Follower)
//! yields and each [`End`] of a response is described here by one
//! [`Record`]: its name, its fields in order, each field's [`FieldType`] and
//! its documentation. Names are written once, in snake_case; every language
//! derives its own spelling from them ([`Record::class_name`],
//! [`Field::camel_name`], [`Field::kebab_name`]).
//!
//! The bindings convert by the table: [`Event::record`] and [`End::record`]
//! give a value's row and its field values in the row's order, and one
//! generic writer per binding turns them into Python objects, JavaScript
//! objects or WIT values. The Python classes, the `.pyi` stubs, the
//! TypeScript declarations and the WIT records are generated from these
//! tables (`scripts/generate.sh`; `crates/dory-wire/tests/generated.rs`
//! fails when a generated file is stale), so a new field of the exit frame
//! is a row here, the decoder's line that reads it, and the generator run.
//!
//! ```
//! use dory_wire::records::{Value, EVENTS};
//! use dory_wire::Event;
//!
//! let exit = Event::Exit { exit_code: Some(2), timed_out: false };
//! let (record, values) = exit.record();
//! assert_eq!(record.name, "exit");
//! assert_eq!(record.class_name(), "Exit");
//! assert_eq!(record.fields[0].camel_name(), "exitCode");
//! assert_eq!(values, vec![Value::OptI64(Some(2)), Value::Bool(false)]);
//! assert!(EVENTS.contains(record));
//! ```

use crate::{Cursor, DisconnectReason, End, Event, ProcessStatus, Stream};

/// The type of one field of a [`Record`].
///
/// Deliberately exhaustive: a new field type must break every generator's
/// and every binding's match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// A string.
    Str,
    /// `stdout` or `stderr` ([`Stream`]).
    Stream,
    /// `running` or `exited` ([`ProcessStatus`]).
    ProcessStatus,
    /// An unsigned integer: an offset, at most 2^53 − 1 on the wire.
    U64,
    /// A signed integer that may be absent (an exit code).
    OptI64,
    /// A boolean.
    Bool,
    /// Bytes, exact (never a lossy string).
    Bytes,
    /// Consumed offsets per stream ([`Cursor`]).
    Cursor,
    /// Why a response ended without `exit` ([`DisconnectReason`]); a
    /// reader's end carries one of [`END_REASONS`].
    DisconnectReason,
}

impl FieldType {
    /// The type's name in the layout documents the wasm binding shares with
    /// its JavaScript layer: `string`, `stream`, `status`, `u64`, `i64?`,
    /// `bool`, `bytes`, `cursor`, `reason`.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::Str => "string",
            FieldType::Stream => "stream",
            FieldType::ProcessStatus => "status",
            FieldType::U64 => "u64",
            FieldType::OptI64 => "i64?",
            FieldType::Bool => "bool",
            FieldType::Bytes => "bytes",
            FieldType::Cursor => "cursor",
            FieldType::DisconnectReason => "reason",
        }
    }
}

/// One field of a [`Record`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The field's name in snake_case (Rust, Python, the wire's JSON).
    pub name: &'static str,
    /// Its type.
    pub ty: FieldType,
    /// One sentence for every language's documentation.
    pub doc: &'static str,
}

impl Field {
    /// The name in camelCase (JavaScript): `exit_code` → `exitCode`.
    pub fn camel_name(&self) -> String {
        crate::names::camel_case(self.name)
    }

    /// The name in kebab-case (WIT): `exit_code` → `exit-code`.
    pub fn kebab_name(&self) -> String {
        self.name.replace('_', "-")
    }
}

/// One record: a kind of event or end, with its fields in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The record's name in snake_case: the `type` of a JavaScript event
    /// object, the variant case in WIT (kebab-cased).
    pub name: &'static str,
    /// What it is, for the type's documentation.
    pub doc: &'static str,
    /// What it is in a few words, for a union's case.
    pub summary: &'static str,
    /// Its fields, in order (the order of constructors and `match` patterns).
    pub fields: &'static [Field],
}

impl Record {
    /// The class or type name (Python, TypeScript): `exec_result` →
    /// `ExecResult`.
    pub fn class_name(&self) -> String {
        let camel = crate::names::camel_case(self.name);
        let mut chars = camel.chars();
        match chars.next() {
            Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
            None => String::new(),
        }
    }

    /// The name in kebab-case (WIT): `exec_result` → `exec-result`.
    pub fn kebab_name(&self) -> String {
        self.name.replace('_', "-")
    }
}

/// The value of one field, borrowed from its event or end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// [`FieldType::Str`].
    Str(&'a str),
    /// [`FieldType::Stream`].
    Stream(Stream),
    /// [`FieldType::ProcessStatus`].
    ProcessStatus(ProcessStatus),
    /// [`FieldType::U64`].
    U64(u64),
    /// [`FieldType::OptI64`].
    OptI64(Option<i64>),
    /// [`FieldType::Bool`].
    Bool(bool),
    /// [`FieldType::Bytes`].
    Bytes(&'a [u8]),
    /// [`FieldType::Cursor`].
    Cursor(Cursor),
    /// [`FieldType::DisconnectReason`].
    DisconnectReason(DisconnectReason),
}

impl Value<'_> {
    /// The type of this value.
    pub fn ty(&self) -> FieldType {
        match self {
            Value::Str(_) => FieldType::Str,
            Value::Stream(_) => FieldType::Stream,
            Value::ProcessStatus(_) => FieldType::ProcessStatus,
            Value::U64(_) => FieldType::U64,
            Value::OptI64(_) => FieldType::OptI64,
            Value::Bool(_) => FieldType::Bool,
            Value::Bytes(_) => FieldType::Bytes,
            Value::Cursor(_) => FieldType::Cursor,
            Value::DisconnectReason(_) => FieldType::DisconnectReason,
        }
    }
}

const PROC_ID: Field = Field {
    name: "proc_id",
    ty: FieldType::Str,
    doc: "The process id.",
};
const STREAM: Field = Field {
    name: "stream",
    ty: FieldType::Stream,
    doc: "Which stream.",
};
const EXIT_CODE: Field = Field {
    name: "exit_code",
    ty: FieldType::OptI64,
    doc: "The exit code; none when the process was killed or timed out.",
};
const TIMED_OUT: Field = Field {
    name: "timed_out",
    ty: FieldType::Bool,
    doc: "Whether the process hit its deadline.",
};

/// The row of [`Event::Started`].
const STARTED: Record = Record {
    name: "started",
    doc: "The exec stream's first frame: the process now exists under this id.",
    summary: "The exec stream's first frame.",
    fields: &[PROC_ID],
};
/// The row of [`Event::Output`].
const OUTPUT: Record = Record {
    name: "output",
    doc: "New output bytes of one stream, offsets [start, end) of its byte space; overlap with what was already consumed is trimmed.",
    summary: "New output bytes.",
    fields: &[
        STREAM,
        Field {
            name: "data",
            ty: FieldType::Bytes,
            doc: "The bytes, exact (not necessarily valid UTF-8; a chunk may split a character).",
        },
        Field {
            name: "start",
            ty: FieldType::U64,
            doc: "Offset of the first byte in the stream's byte space.",
        },
        Field {
            name: "end",
            ty: FieldType::U64,
            doc: "Offset just past the last byte (start + the length of data).",
        },
    ],
};
/// The row of [`Event::Skipped`].
const SKIPPED: Record = Record {
    name: "skipped",
    doc: "Output lost and skipped under the skip gap policy: offsets [start, end) of one stream.",
    summary: "A lost byte range, under the skip policy.",
    fields: &[
        Field {
            name: "stream",
            ty: FieldType::Stream,
            doc: "Which stream lost bytes.",
        },
        Field {
            name: "start",
            ty: FieldType::U64,
            doc: "First lost offset.",
        },
        Field {
            name: "end",
            ty: FieldType::U64,
            doc: "Offset just past the last lost byte.",
        },
    ],
};
/// The row of [`Event::Heartbeat`].
const HEARTBEAT: Record = Record {
    name: "heartbeat",
    doc: "A keep-alive frame: the stream is alive, nothing new.",
    summary: "A keep-alive frame.",
    fields: &[],
};
/// The row of [`Event::Exit`].
const EXIT: Record = Record {
    name: "exit",
    doc: "The process finished; the last frame of the stream.",
    summary: "The process finished.",
    fields: &[EXIT_CODE, TIMED_OUT],
};
/// The row of [`Event::Unknown`].
const UNKNOWN: Record = Record {
    name: "unknown",
    doc: "A frame whose type no union knows; it changes no state.",
    summary: "A frame type no union knows.",
    fields: &[Field {
        name: "frame_type",
        ty: FieldType::Str,
        doc: "The frame's type.",
    }],
};
/// The row of [`Event::Identity`].
const IDENTITY: Record = Record {
    name: "identity",
    doc: "A JSON identity document: the answer to a process start, its keyed replay, or a kill.",
    summary: "A JSON identity document.",
    fields: &[
        PROC_ID,
        Field {
            name: "status",
            ty: FieldType::ProcessStatus,
            doc: "Running or exited.",
        },
    ],
};
/// The row of [`Event::ExecResult`].
const EXEC_RESULT: Record = Record {
    name: "exec_result",
    doc: "A JSON result document: the answer to a synchronous exec.",
    summary: "A JSON result document.",
    fields: &[
        PROC_ID,
        Field {
            name: "stdout",
            ty: FieldType::Bytes,
            doc: "Standard output bytes.",
        },
        Field {
            name: "stderr",
            ty: FieldType::Bytes,
            doc: "Standard error bytes.",
        },
        Field {
            name: "stdout_truncated",
            ty: FieldType::Bool,
            doc: "Whether stdout was cut at the synchronous limit (1 MiB).",
        },
        Field {
            name: "stderr_truncated",
            ty: FieldType::Bool,
            doc: "Whether stderr was cut at the synchronous limit (1 MiB).",
        },
        EXIT_CODE,
        TIMED_OUT,
    ],
};

/// Every event, in the order of [`Event`]'s variants.
pub const EVENTS: &[Record] = &[
    STARTED,
    OUTPUT,
    SKIPPED,
    HEARTBEAT,
    EXIT,
    UNKNOWN,
    IDENTITY,
    EXEC_RESULT,
];

/// The row of [`End::Exited`].
const EXITED: Record = Record {
    name: "exited",
    doc: "The response ended with an exit frame: the output is complete.",
    summary: "An exit frame was seen.",
    fields: &[EXIT_CODE, TIMED_OUT],
};
/// The row of [`End::Disconnected`].
const DISCONNECTED: Record = Record {
    name: "disconnected",
    doc: "The stream ended without exit: reconnect to process output from cursor. Never start the command again to recreate lost output.",
    summary: "The stream ended without exit.",
    fields: &[
        Field {
            name: "cursor",
            ty: FieldType::Cursor,
            doc: "Where to resume from.",
        },
        Field {
            name: "reason",
            ty: FieldType::DisconnectReason,
            doc: "Why it ended: end_of_body (a partial last line was discarded), gap (every loss was skipped) or stalled (no complete frame within the liveness timeout).",
        },
    ],
};
/// The row of [`End::Document`].
const DOCUMENT: Record = Record {
    name: "document",
    doc: "A JSON document was decoded: its identity or exec_result event came with this end.",
    summary: "A JSON document was decoded.",
    fields: &[],
};

/// Every end, in the order of [`End`]'s variants.
pub const ENDS: &[Record] = &[EXITED, DISCONNECTED, DOCUMENT];

/// The reasons a reader's [`End::Disconnected`] carries (a follower's
/// reconnect records carry the others too).
pub const END_REASONS: &[DisconnectReason] = &[
    DisconnectReason::EndOfBody,
    DisconnectReason::Gap,
    DisconnectReason::Stalled,
];

impl Event {
    /// This event's row of [`EVENTS`] and its field values in the row's
    /// order (a new variant without a row does not compile).
    pub fn record(&self) -> (&'static Record, Vec<Value<'_>>) {
        use Value as V;
        match self {
            Event::Started { proc_id } => (&STARTED, vec![V::Str(proc_id)]),
            Event::Output {
                stream,
                data,
                start,
                end,
            } => (
                &OUTPUT,
                vec![
                    V::Stream(*stream),
                    V::Bytes(data),
                    V::U64(*start),
                    V::U64(*end),
                ],
            ),
            Event::Skipped { stream, start, end } => (
                &SKIPPED,
                vec![V::Stream(*stream), V::U64(*start), V::U64(*end)],
            ),
            Event::Heartbeat => (&HEARTBEAT, vec![]),
            Event::Exit {
                exit_code,
                timed_out,
            } => (&EXIT, vec![V::OptI64(*exit_code), V::Bool(*timed_out)]),
            Event::Unknown { frame_type } => (&UNKNOWN, vec![V::Str(frame_type)]),
            Event::Identity(id) => (
                &IDENTITY,
                vec![V::Str(&id.proc_id), V::ProcessStatus(id.status)],
            ),
            Event::ExecResult(r) => (
                &EXEC_RESULT,
                vec![
                    V::Str(&r.proc_id),
                    V::Bytes(&r.stdout),
                    V::Bytes(&r.stderr),
                    V::Bool(r.stdout_truncated),
                    V::Bool(r.stderr_truncated),
                    V::OptI64(r.exit_code),
                    V::Bool(r.timed_out),
                ],
            ),
        }
    }
}

impl Event {
    /// The event of an [`EVENTS`] row built from its values in the row's
    /// order (what a binding's event object holds): the inverse of
    /// [`Event::record`]. `None` when `record` is not an event's row or a
    /// value does not have its field's type.
    ///
    /// ```
    /// use dory_wire::records::{Value, EVENTS};
    /// use dory_wire::Event;
    ///
    /// let row = EVENTS.iter().find(|r| r.name == "exit").unwrap();
    /// let exit = Event::from_record(row, &[Value::OptI64(Some(1)), Value::Bool(false)]);
    /// assert_eq!(exit, Some(Event::Exit { exit_code: Some(1), timed_out: false }));
    /// ```
    pub fn from_record(record: &Record, values: &[Value<'_>]) -> Option<Event> {
        use Value as V;
        Some(match (record.name, values) {
            ("started", [V::Str(proc_id)]) => Event::Started {
                proc_id: (*proc_id).to_owned(),
            },
            ("output", [V::Stream(stream), V::Bytes(data), V::U64(start), V::U64(end)]) => {
                Event::Output {
                    stream: *stream,
                    data: data.to_vec(),
                    start: *start,
                    end: *end,
                }
            }
            ("skipped", [V::Stream(stream), V::U64(start), V::U64(end)]) => Event::Skipped {
                stream: *stream,
                start: *start,
                end: *end,
            },
            ("heartbeat", []) => Event::Heartbeat,
            ("exit", [V::OptI64(exit_code), V::Bool(timed_out)]) => Event::Exit {
                exit_code: *exit_code,
                timed_out: *timed_out,
            },
            ("unknown", [V::Str(frame_type)]) => Event::Unknown {
                frame_type: (*frame_type).to_owned(),
            },
            ("identity", [V::Str(proc_id), V::ProcessStatus(status)]) => {
                Event::Identity(crate::Identity::new(*proc_id, *status))
            }
            (
                "exec_result",
                [V::Str(proc_id), V::Bytes(stdout), V::Bytes(stderr), V::Bool(stdout_truncated), V::Bool(stderr_truncated), V::OptI64(exit_code), V::Bool(timed_out)],
            ) => Event::ExecResult(
                crate::ExecResult::new(*proc_id, stdout.to_vec(), stderr.to_vec(), *exit_code)
                    .with_truncated(*stdout_truncated, *stderr_truncated)
                    .with_timed_out(*timed_out),
            ),
            _ => return None,
        })
    }
}

impl End {
    /// This end's row of [`ENDS`] and its field values in the row's order.
    pub fn record(&self) -> (&'static Record, Vec<Value<'_>>) {
        use Value as V;
        match self {
            End::Exited {
                exit_code,
                timed_out,
            } => (&EXITED, vec![V::OptI64(*exit_code), V::Bool(*timed_out)]),
            End::Disconnected { cursor, reason } => (
                &DISCONNECTED,
                vec![V::Cursor(*cursor), V::DisconnectReason(*reason)],
            ),
            End::Document => (&DOCUMENT, vec![]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ExecResult, Identity};

    fn one_of_each_event() -> Vec<Event> {
        vec![
            Event::Started {
                proc_id: "p".into(),
            },
            Event::Output {
                stream: Stream::Stderr,
                data: b"x".to_vec(),
                start: 1,
                end: 2,
            },
            Event::Skipped {
                stream: Stream::Stdout,
                start: 0,
                end: 3,
            },
            Event::Heartbeat,
            Event::Exit {
                exit_code: None,
                timed_out: true,
            },
            Event::Unknown {
                frame_type: "later".into(),
            },
            Event::Identity(Identity::new("p", ProcessStatus::Running)),
            Event::ExecResult(ExecResult::new("p", b"o".to_vec(), b"e".to_vec(), Some(1))),
        ]
    }

    fn check(record: &Record, values: &[Value<'_>]) {
        assert_eq!(record.fields.len(), values.len(), "{}", record.name);
        for (field, value) in record.fields.iter().zip(values) {
            assert_eq!(field.ty, value.ty(), "{}.{}", record.name, field.name);
        }
    }

    #[test]
    fn every_event_has_its_row_in_order_with_values_of_the_row_types() {
        let events = one_of_each_event();
        assert_eq!(events.len(), EVENTS.len());
        for (event, row) in events.iter().zip(EVENTS) {
            let (record, values) = event.record();
            assert_eq!(record, row);
            check(record, &values);
        }
    }

    #[test]
    fn every_event_is_rebuilt_from_its_values() {
        for event in one_of_each_event() {
            let (record, values) = event.record();
            assert_eq!(Event::from_record(record, &values), Some(event.clone()));
            assert_eq!(Event::from_record(&EXITED, &values), None);
            if !values.is_empty() {
                assert_eq!(
                    Event::from_record(record, &values[1..]),
                    None,
                    "{}",
                    record.name
                );
            }
        }
    }

    #[test]
    fn every_end_has_its_row_in_order_with_values_of_the_row_types() {
        let ends = [
            End::Exited {
                exit_code: Some(0),
                timed_out: false,
            },
            End::Disconnected {
                cursor: Cursor::default(),
                reason: DisconnectReason::Gap,
            },
            End::Document,
        ];
        assert_eq!(ends.len(), ENDS.len());
        for (end, row) in ends.iter().zip(ENDS) {
            let (record, values) = end.record();
            assert_eq!(record, row);
            check(record, &values);
        }
    }

    #[test]
    fn names_are_snake_case_and_unique_and_spell_in_each_language() {
        let mut seen = std::collections::HashSet::new();
        for record in EVENTS.iter().chain(ENDS) {
            assert!(seen.insert(record.name), "{} twice", record.name);
            let ok = |s: &str| {
                !s.is_empty()
                    && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                    && !s.starts_with('_')
                    && !s.ends_with('_')
                    && !s.contains("__")
            };
            assert!(ok(record.name), "{}", record.name);
            let mut fields = std::collections::HashSet::new();
            for field in record.fields {
                assert!(ok(field.name), "{}.{}", record.name, field.name);
                assert!(
                    fields.insert(field.name),
                    "{}.{} twice",
                    record.name,
                    field.name
                );
                assert!(field.doc.ends_with('.'), "{}.{}", record.name, field.name);
            }
        }
        assert_eq!(EXEC_RESULT.class_name(), "ExecResult");
        assert_eq!(EXEC_RESULT.kebab_name(), "exec-result");
        assert_eq!(EXEC_RESULT.fields[3].camel_name(), "stdoutTruncated");
        assert_eq!(EXEC_RESULT.fields[3].kebab_name(), "stdout-truncated");
    }
}
