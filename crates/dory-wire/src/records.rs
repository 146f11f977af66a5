//! The records that cross every binding, declared once.
//!
//! Each event a [`Reader`](crate::Reader) or a [`Follower`](crate::Follower)
//! yields ([`EVENTS`]), each [`End`] of a response ([`ENDS`]) and each
//! [`Decision`] of a follower ([`DECISIONS`], whose reconnect record is also
//! a run's) is described here by one [`Record`]: its name, its fields in
//! order, each field's [`FieldType`] and its documentation. Names are
//! written once, in snake_case; every language derives its own spelling
//! from them ([`Record::class_name`], [`Field::python_name`],
//! [`Field::js_name`], [`Field::wit_name`]).
//!
//! The bindings convert by the tables: [`Event::record`], [`End::record`],
//! [`Decision::record`] and [`Reconnect::record`] give a value's row and its
//! field values in the row's order, and one generic writer per binding turns
//! them into Python objects, JavaScript objects or WIT values. The Python classes, the `.pyi` stubs, the
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

use std::time::Duration;

use crate::{Cursor, Decision, DisconnectReason, End, Event, ProcessStatus, Reconnect, Stream};

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
    /// Why a connection ended ([`DisconnectReason`]): any of
    /// [`DISCONNECT_REASONS`].
    DisconnectReason,
    /// Why a reader's response ended without `exit`: one of
    /// [`END_REASONS`] (its values are [`Value::DisconnectReason`]).
    EndReason,
    /// A string that may be absent.
    OptStr,
    /// A small unsigned integer (a count).
    U32,
    /// A duration. Its name says its unit in each language: `delay` is
    /// `delay_seconds` (a float) in Python, `delayMs` in JavaScript,
    /// `delay-ns` (an integer) in WIT ([`Field::python_name`],
    /// [`Field::js_name`], [`Field::wit_name`]).
    Duration,
}

impl FieldType {
    /// The type's name in the layout documents the wasm binding shares with
    /// its JavaScript layer: `string`, `stream`, `status`, `u64`, `i64?`,
    /// `bool`, `bytes`, `cursor`, `reason`, `end_reason`, `string?`, `u32`,
    /// `duration`.
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
            FieldType::EndReason => "end_reason",
            FieldType::OptStr => "string?",
            FieldType::U32 => "u32",
            FieldType::Duration => "duration",
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
    /// One sentence for every language's documentation; `` `none` `` is
    /// written as each language spells an absent value (`None`, `null`).
    pub doc: &'static str,
}

impl Field {
    /// The name in camelCase: `exit_code` → `exitCode`.
    pub fn camel_name(&self) -> String {
        crate::names::camel_case(self.name)
    }

    /// The name in kebab-case: `exit_code` → `exit-code`.
    pub fn kebab_name(&self) -> String {
        self.name.replace('_', "-")
    }

    /// The name in Python (and Rust bindings' structs): the name, a
    /// duration's with `_seconds`.
    pub fn python_name(&self) -> String {
        match self.ty {
            FieldType::Duration => format!("{}_seconds", self.name),
            _ => self.name.to_owned(),
        }
    }

    /// The name in JavaScript: camelCase, a duration's with `Ms`.
    pub fn js_name(&self) -> String {
        match self.ty {
            FieldType::Duration => format!("{}Ms", self.camel_name()),
            _ => self.camel_name(),
        }
    }

    /// The name in WIT: kebab-case, a duration's with `-ns`.
    pub fn wit_name(&self) -> String {
        match self.ty {
            FieldType::Duration => format!("{}-ns", self.kebab_name()),
            _ => self.kebab_name(),
        }
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
    /// [`FieldType::DisconnectReason`] and [`FieldType::EndReason`].
    DisconnectReason(DisconnectReason),
    /// [`FieldType::OptStr`].
    OptStr(Option<&'a str>),
    /// [`FieldType::U32`].
    U32(u32),
    /// [`FieldType::Duration`].
    Duration(Duration),
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
            Value::OptStr(_) => FieldType::OptStr,
            Value::U32(_) => FieldType::U32,
            Value::Duration(_) => FieldType::Duration,
        }
    }

    /// Whether this value may fill a field of type `ty` (an end's reason
    /// is a disconnect reason).
    pub fn fits(&self, ty: FieldType) -> bool {
        self.ty() == ty
            || (ty == FieldType::EndReason && matches!(self, Value::DisconnectReason(_)))
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
    doc: "The exit code; `none` when the process was killed or timed out.",
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
            ty: FieldType::EndReason,
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

/// Every disconnect reason, in the order of [`DisconnectReason`]'s variants.
pub const DISCONNECT_REASONS: &[DisconnectReason] = &[
    DisconnectReason::EndOfBody,
    DisconnectReason::Gap,
    DisconnectReason::Stalled,
    DisconnectReason::NoResponse,
    DisconnectReason::NotConnected,
    DisconnectReason::Unavailable,
];

const CURSOR_NOW: Field = Field {
    name: "cursor",
    ty: FieldType::Cursor,
    doc: "The consumed offsets.",
};
const PROC_ID_ONCE_KNOWN: Field = Field {
    name: "proc_id",
    ty: FieldType::OptStr,
    doc: "The process, once known (never for setup logs).",
};

const DONE: Record = Record {
    name: "done",
    doc: "The read is over: exited when exit was seen (with its exit code and whether it timed out), else the normal end of a read that does not follow.",
    summary: "The read is complete.",
    fields: &[
        Field {
            name: "exited",
            ty: FieldType::Bool,
            doc: "Whether exit was seen (false for the normal end of a read that does not follow).",
        },
        Field {
            name: "exit_code",
            ty: FieldType::OptI64,
            doc: "The exit code; `none` when killed, timed out, or not exited.",
        },
        TIMED_OUT,
        CURSOR_NOW,
        PROC_ID_ONCE_KNOWN,
    ],
};
const RECONNECT: Record = Record {
    name: "reconnect",
    doc: "The connection ended before the output did: report the record (what a reconnect hook receives), wait delay, then send the follower's next request (it resumes from cursor).",
    summary: "The connection ended early: report the record, wait its delay, then send the next request.",
    fields: &[
        Field {
            name: "attempt",
            ty: FieldType::U32,
            doc: "1 for the first reconnect of this read, 2 for the second, and so on.",
        },
        Field {
            name: "failures",
            ty: FieldType::U32,
            doc: "Connections in a row that brought nothing new, this one included (0 after progress: no wait); never more than retries.",
        },
        Field {
            name: "reason",
            ty: FieldType::DisconnectReason,
            doc: "Why the connection ended.",
        },
        Field {
            name: "cursor",
            ty: FieldType::Cursor,
            doc: "Where the next request resumes from.",
        },
        Field {
            name: "delay",
            ty: FieldType::Duration,
            doc: "How long to wait before sending the next request.",
        },
        Field {
            name: "proc_id",
            ty: FieldType::OptStr,
            doc: "The process, once known.",
        },
        Field {
            name: "detail",
            ty: FieldType::Str,
            doc: "What the transport (or the refusal) said; empty when nothing.",
        },
    ],
};
const CONTINUE: Record = Record {
    name: "continue",
    doc: "The answer moved the read on without a disconnect (an exec answered by its keyed replay's identity continues on the process's output): send the follower's next request now.",
    summary: "The answer moved the read on: send the next request now.",
    fields: &[],
};

/// Every decision of a follower, in the order of [`Decision`]'s variants.
pub const DECISIONS: &[Record] = &[DONE, RECONNECT, CONTINUE];

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

impl Decision {
    /// This decision's row of [`DECISIONS`] and its field values in the
    /// row's order.
    pub fn record(&self) -> (&'static Record, Vec<Value<'_>>) {
        use Value as V;
        match self {
            Decision::Done(d) => (
                &DONE,
                vec![
                    V::Bool(d.exited),
                    V::OptI64(d.exit_code),
                    V::Bool(d.timed_out),
                    V::Cursor(d.cursor),
                    V::OptStr(d.proc_id.as_deref()),
                ],
            ),
            Decision::Reconnect(r) => r.record(),
            Decision::Continue => (&CONTINUE, vec![]),
        }
    }
}

impl Reconnect {
    /// The reconnect row of [`DECISIONS`] and this record's values (a
    /// run's `wait` step carries the same record).
    pub fn record(&self) -> (&'static Record, Vec<Value<'_>>) {
        use Value as V;
        (
            &RECONNECT,
            vec![
                V::U32(self.attempt),
                V::U32(self.failures),
                V::DisconnectReason(self.reason),
                V::Cursor(self.cursor),
                V::Duration(self.delay),
                V::OptStr(self.proc_id.as_deref()),
                V::Str(&self.detail),
            ],
        )
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
            assert!(value.fits(field.ty), "{}.{}", record.name, field.name);
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
    fn every_decision_has_its_row_in_order_with_values_of_the_row_types() {
        let r = Reconnect {
            attempt: 1,
            failures: 1,
            reason: DisconnectReason::Stalled,
            cursor: Cursor::default(),
            delay: Duration::from_millis(250),
            proc_id: Some("p".into()),
            detail: String::new(),
        };
        let done = Decision::Done(crate::Done {
            exited: true,
            exit_code: Some(0),
            timed_out: false,
            cursor: Cursor::default(),
            proc_id: None,
        });
        let reconnect = Decision::Reconnect(r.clone());
        let decisions = [done, reconnect, Decision::Continue];
        assert_eq!(decisions.len(), DECISIONS.len());
        for (decision, row) in decisions.iter().zip(DECISIONS) {
            let (record, values) = decision.record();
            assert_eq!(record, row);
            check(record, &values);
        }
        assert_eq!(RECONNECT.fields[4].python_name(), "delay_seconds");
        assert_eq!(RECONNECT.fields[4].js_name(), "delayMs");
        assert_eq!(RECONNECT.fields[4].wit_name(), "delay-ns");
        assert_eq!(r.record().0, &RECONNECT);
    }

    #[test]
    fn every_disconnect_reason_is_listed_once() {
        // An exhaustive match: a reason added to the core breaks this test
        // until it is listed.
        let listed = |r: DisconnectReason| match r {
            DisconnectReason::EndOfBody
            | DisconnectReason::Gap
            | DisconnectReason::Stalled
            | DisconnectReason::NoResponse
            | DisconnectReason::NotConnected
            | DisconnectReason::Unavailable => DISCONNECT_REASONS.contains(&r),
        };
        assert!(DISCONNECT_REASONS.iter().all(|r| listed(*r)));
        assert_eq!(DISCONNECT_REASONS.len(), 6);
        assert!(END_REASONS.iter().all(|r| DISCONNECT_REASONS.contains(r)));
    }

    #[test]
    fn names_are_snake_case_and_unique_and_spell_in_each_language() {
        let mut seen = std::collections::HashSet::new();
        for record in EVENTS.iter().chain(ENDS).chain(DECISIONS) {
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
