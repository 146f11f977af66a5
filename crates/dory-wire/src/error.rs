//! The one error type of the crate, and the one table of its codes.
//!
//! Every error has a stable [`Error::code`] string, a class name and an
//! [`ErrorKind`], the same in Rust, Python and JavaScript: the bindings build
//! their exception classes from [`ERROR_CODES`] and copy each error's
//! [`Error::fields`] onto them. Errors are sticky: once a
//! [`Reader`](crate::Reader) has returned one, every later call returns it again.
//!
//! Invariants: [`ERROR_CODES`] holds every code exactly once; [`Error::entry`]
//! is the only place that maps a variant to its row, so code, class and kind
//! cannot disagree; [`Error::fields`] names exactly the row's `fields`, in order
//! (both checked by the tests below).

use std::fmt;

use crate::types::{Cursor, Stream};

/// The family of an error: what went wrong, and so what the caller can do.
///
/// ```
/// use dory_wire::{Error, ErrorKind};
///
/// let err = Error::FrameTooLarge { limit: 16 };
/// assert_eq!(err.kind(), ErrorKind::Protocol);
/// assert_eq!(err.kind().as_str(), "protocol");
/// assert_eq!(err.kind().base_class(), Some("ProtocolError"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The server answered with an error (`api_error`, `offset_beyond_output`).
    Answer,
    /// Output is gone (`output_gap`, `output_expired`).
    Loss,
    /// The wire broke the protocol (`unsupported_content_type`,
    /// `malformed_frame`, `unexpected_frame`, `identity_mismatch`, `frame_too_large`).
    Protocol,
    /// The API was called out of order (`invalid_state`).
    Misuse,
    /// Limits that cannot be honoured (`invalid_limits`).
    Limits,
    /// The connection ended before the output did and the follower's
    /// reconnect budget is spent, or the request may not be sent again
    /// (`stream_disconnected`): the output is still retained, resume from
    /// the error's cursor.
    Transport,
}

impl ErrorKind {
    /// `"answer"`, `"loss"`, `"protocol"`, `"misuse"`, `"limits"` or `"transport"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Answer => "answer",
            ErrorKind::Loss => "loss",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Misuse => "misuse",
            ErrorKind::Limits => "limits",
            ErrorKind::Transport => "transport",
        }
    }

    /// The class the bindings derive this kind's classes from:
    /// `AnswerError`, `LossError`, `ProtocolError`, or `None` when the classes
    /// of the kind derive from the root error class directly.
    pub fn base_class(self) -> Option<&'static str> {
        match self {
            ErrorKind::Answer => Some("AnswerError"),
            ErrorKind::Loss => Some("LossError"),
            ErrorKind::Protocol => Some("ProtocolError"),
            ErrorKind::Misuse | ErrorKind::Limits | ErrorKind::Transport => None,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of the error table: a code, the class name the bindings give it,
/// its kind, and the names of the fields its errors carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorCode {
    /// The stable code string, e.g. `"output_gap"`.
    pub code: &'static str,
    /// The class name in every language, e.g. `"OutputGap"`.
    pub class: &'static str,
    /// The family of the code.
    pub kind: ErrorKind,
    /// The names of the fields, in the order [`Error::fields`] returns them.
    pub fields: &'static [&'static str],
}

const OUTPUT_GAP: ErrorCode = ErrorCode {
    code: "output_gap",
    class: "OutputGap",
    kind: ErrorKind::Loss,
    fields: &["stream", "consumed", "earliest"],
};
const OUTPUT_EXPIRED: ErrorCode = ErrorCode {
    code: "output_expired",
    class: "OutputExpired",
    kind: ErrorKind::Loss,
    fields: &["server_message"],
};
const OFFSET_BEYOND_OUTPUT: ErrorCode = ErrorCode {
    code: "offset_beyond_output",
    class: "OffsetBeyondOutput",
    kind: ErrorKind::Answer,
    fields: &["server_message"],
};
const API_ERROR: ErrorCode = ErrorCode {
    code: "api_error",
    class: "ApiError",
    kind: ErrorKind::Answer,
    fields: &["status", "api_code", "server_message"],
};
const UNSUPPORTED_CONTENT_TYPE: ErrorCode = ErrorCode {
    code: "unsupported_content_type",
    class: "UnsupportedContentType",
    kind: ErrorKind::Protocol,
    fields: &["content_type"],
};
const MALFORMED_FRAME: ErrorCode = ErrorCode {
    code: "malformed_frame",
    class: "MalformedFrame",
    kind: ErrorKind::Protocol,
    fields: &["line", "reason"],
};
const UNEXPECTED_FRAME: ErrorCode = ErrorCode {
    code: "unexpected_frame",
    class: "UnexpectedFrame",
    kind: ErrorKind::Protocol,
    fields: &["line", "frame_type", "reason"],
};
const IDENTITY_MISMATCH: ErrorCode = ErrorCode {
    code: "identity_mismatch",
    class: "IdentityMismatch",
    kind: ErrorKind::Protocol,
    fields: &["expected", "found"],
};
const FRAME_TOO_LARGE: ErrorCode = ErrorCode {
    code: "frame_too_large",
    class: "FrameTooLarge",
    kind: ErrorKind::Protocol,
    fields: &["limit"],
};
const INVALID_LIMITS: ErrorCode = ErrorCode {
    code: "invalid_limits",
    class: "InvalidLimits",
    kind: ErrorKind::Limits,
    fields: &["reason"],
};
const INVALID_STATE: ErrorCode = ErrorCode {
    code: "invalid_state",
    class: "InvalidState",
    kind: ErrorKind::Misuse,
    fields: &["reason"],
};

const INVALID_ARGUMENT: ErrorCode = ErrorCode {
    code: "invalid_argument",
    class: "InvalidArgument",
    kind: ErrorKind::Misuse,
    fields: &["argument", "reason"],
};
const NO_ANSWER: ErrorCode = ErrorCode {
    code: "no_answer",
    class: "NoAnswer",
    kind: ErrorKind::Transport,
    fields: &[
        "reason", "method", "target", "attempts", "detail", "reached",
    ],
};
const STREAM_DISCONNECTED: ErrorCode = ErrorCode {
    code: "stream_disconnected",
    class: "StreamDisconnected",
    kind: ErrorKind::Transport,
    fields: &["reason", "cursor", "proc_id", "detail"],
};

/// Every error code, each once, in a stable order: the table the bindings
/// build their error classes from.
///
/// ```
/// use dory_wire::{ErrorKind, ERROR_CODES};
///
/// let gap = ERROR_CODES.iter().find(|c| c.code == "output_gap").unwrap();
/// assert_eq!((gap.class, gap.kind), ("OutputGap", ErrorKind::Loss));
/// assert_eq!(gap.fields, ["stream", "consumed", "earliest"]);
/// ```
pub const ERROR_CODES: &[ErrorCode] = &[
    OUTPUT_GAP,
    OUTPUT_EXPIRED,
    OFFSET_BEYOND_OUTPUT,
    API_ERROR,
    UNSUPPORTED_CONTENT_TYPE,
    MALFORMED_FRAME,
    UNEXPECTED_FRAME,
    IDENTITY_MISMATCH,
    FRAME_TOO_LARGE,
    INVALID_LIMITS,
    INVALID_STATE,
    INVALID_ARGUMENT,
    STREAM_DISCONNECTED,
    NO_ANSWER,
];

/// The value of one field of an error, as [`Error::fields`] lists them.
///
/// Deliberately exhaustive: a new field type must break every binding's match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValue<'a> {
    /// A string.
    Str(&'a str),
    /// A string that may be absent (`api_code`).
    OptStr(Option<&'a str>),
    /// An unsigned integer (a status, a line number, a limit).
    U64(u64),
    /// A stream.
    Stream(Stream),
    /// Offsets per stream.
    Cursor(Cursor),
    /// A yes or no (`reached`).
    Bool(bool),
}

/// Everything that can go wrong while decoding a response or bounding a preview.
///
/// The enum is `#[non_exhaustive]`: match on [`Error::code`] or
/// [`Error::kind`], or use a wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Output the caller asked for (or that the stream skipped over) is no longer
    /// retained: a hole between frames, a `gap` frame, or a 409 `output_gap` answer.
    /// Raised only under [`GapPolicy::Fail`](crate::GapPolicy::Fail), the default.
    OutputGap {
        /// The first stream (stdout before stderr) that lost bytes.
        stream: Stream,
        /// The offsets consumed when the gap was found.
        consumed: Cursor,
        /// The earliest offsets still available, per stream.
        earliest: Cursor,
    },
    /// 410 `output_expired`: retained output is gone (one hour after exit). Terminal.
    OutputExpired {
        /// The server's message (empty when it sent none).
        server_message: String,
    },
    /// 400 `offset_beyond_output`: the requested offsets are beyond what the process
    /// produced. A client bug; never reset to zero. Terminal.
    OffsetBeyondOutput {
        /// The server's message (empty when it sent none).
        server_message: String,
    },
    /// Any other error answer from the API.
    Api {
        /// The HTTP status.
        status: u16,
        /// The body's `error` code, when the body was a JSON error document.
        api_code: Option<String>,
        /// The body's `message`, or a description of the body.
        server_message: String,
    },
    /// The response's Content-Type is neither NDJSON nor JSON: never guessed.
    UnsupportedContentType {
        /// The Content-Type as given (empty when absent).
        content_type: String,
    },
    /// A line or document that is not a valid frame: bad JSON, a missing or
    /// mistyped field, bad base64, a lone surrogate, an impossible offset.
    MalformedFrame {
        /// 1-based line number in the body (0 for a JSON document).
        line: u64,
        /// What was wrong.
        reason: String,
    },
    /// A valid frame that may not appear here: a frame of another union, a frame
    /// after `exit` or `gap`, a second `started`, data before `started`.
    UnexpectedFrame {
        /// 1-based line number in the body.
        line: u64,
        /// The frame's `type`.
        frame_type: String,
        /// Why it is unexpected here.
        reason: String,
    },
    /// The `started` frame's `proc_id` differs from the `CE-Process-Id` header
    /// (or from the process id of the resume state).
    IdentityMismatch {
        /// The process id expected (header or resume state).
        expected: String,
        /// The process id the body announced.
        found: String,
    },
    /// A line (or JSON document) grew beyond `max_frame_bytes` before it ended.
    FrameTooLarge {
        /// The limit that was exceeded, in bytes.
        limit: usize,
    },
    /// Preview limits too small to hold the plain notice (see `docs/preview.md`).
    InvalidLimits {
        /// Which limit is wrong and why.
        reason: String,
    },
    /// The API was used out of order: `feed` before `open`, `feed` after `finish`, …
    InvalidState {
        /// What was done out of order.
        reason: String,
    },
    /// An argument a request cannot be built from: an empty id, an empty
    /// command, a timeout that is not a positive number, an idempotency key
    /// that cannot be a header value, a follow option out of range.
    InvalidArgument {
        /// The argument, named as in the API (`computer_id`, `command`, …).
        argument: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A [`Follower`](crate::Follower) gave up: the connection ended before
    /// the output did and the reconnect budget is spent, or the request that
    /// broke may not be sent again (an exec without an idempotency key that
    /// broke before announcing its process). The output is still retained:
    /// read it again from `cursor`; never start the command again.
    StreamDisconnected {
        /// Why the last connection ended (see [`DisconnectReason`](crate::DisconnectReason)).
        reason: crate::DisconnectReason,
        /// The consumed offsets: where to resume from.
        cursor: Cursor,
        /// The process whose output was read, once known.
        proc_id: Option<String>,
        /// What the transport said, if anything (empty when nothing).
        detail: String,
    },
    /// A one-answer call (a start, a get, a kill, a synchronous exec) got
    /// no answer: the connection could not be made, was reset or cut, or no
    /// answer came within the liveness timeout, and the request may not be
    /// sent again (it has no idempotency key and may have reached the
    /// service) or its budget is spent. When `reached` is false no attempt
    /// ever connected (every one was [`NotConnected`](crate::DisconnectReason::NotConnected)):
    /// the request cannot have taken effect and may be sent again. Else it
    /// may have taken effect: a keyed start or exec can be sent again with
    /// the same key to learn its process; an unkeyed one must not be sent
    /// again blindly.
    NoAnswer {
        /// Why the last attempt ended (see [`DisconnectReason`](crate::DisconnectReason)).
        reason: crate::DisconnectReason,
        /// The request's method: `GET` or `POST`.
        method: String,
        /// The request's path and query.
        target: String,
        /// How many times the request was sent (or tried, when it never
        /// connected).
        attempts: u32,
        /// What the transport said, if anything (empty when nothing).
        detail: String,
        /// Whether some attempt may have reached the service (false: every
        /// attempt failed to connect, so the request cannot have taken effect).
        reached: bool,
    },
}

impl Error {
    /// This error's row of [`ERROR_CODES`]: the one place that maps a variant
    /// to its code, class and kind.
    fn entry(&self) -> &'static ErrorCode {
        match self {
            Error::OutputGap { .. } => &OUTPUT_GAP,
            Error::OutputExpired { .. } => &OUTPUT_EXPIRED,
            Error::OffsetBeyondOutput { .. } => &OFFSET_BEYOND_OUTPUT,
            Error::Api { .. } => &API_ERROR,
            Error::UnsupportedContentType { .. } => &UNSUPPORTED_CONTENT_TYPE,
            Error::MalformedFrame { .. } => &MALFORMED_FRAME,
            Error::UnexpectedFrame { .. } => &UNEXPECTED_FRAME,
            Error::IdentityMismatch { .. } => &IDENTITY_MISMATCH,
            Error::FrameTooLarge { .. } => &FRAME_TOO_LARGE,
            Error::InvalidLimits { .. } => &INVALID_LIMITS,
            Error::InvalidState { .. } => &INVALID_STATE,
            Error::InvalidArgument { .. } => &INVALID_ARGUMENT,
            Error::StreamDisconnected { .. } => &STREAM_DISCONNECTED,
            Error::NoAnswer { .. } => &NO_ANSWER,
        }
    }

    /// The stable code string: `output_gap`, `output_expired`,
    /// `offset_beyond_output`, `api_error`, `unsupported_content_type`,
    /// `malformed_frame`, `unexpected_frame`, `identity_mismatch`,
    /// `frame_too_large`, `invalid_limits`, `invalid_state`,
    /// `invalid_argument`, `stream_disconnected` or `no_answer`.
    pub fn code(&self) -> &'static str {
        self.entry().code
    }

    /// The family of the error. A protocol violation is
    /// `err.kind() == ErrorKind::Protocol`.
    pub fn kind(&self) -> ErrorKind {
        self.entry().kind
    }

    /// The class name the bindings raise, e.g. `"OutputGap"` (note `"ApiError"`
    /// for [`Error::Api`]).
    pub fn class_name(&self) -> &'static str {
        self.entry().class
    }

    /// The fields of the error, named as in its row of [`ERROR_CODES`] and in
    /// that order: what the bindings copy onto their exception objects.
    ///
    /// ```
    /// use dory_wire::{Error, FieldValue};
    ///
    /// let err = Error::Api { status: 503, api_code: None, server_message: "busy".into() };
    /// assert_eq!(
    ///     err.fields(),
    ///     vec![
    ///         ("status", FieldValue::U64(503)),
    ///         ("api_code", FieldValue::OptStr(None)),
    ///         ("server_message", FieldValue::Str("busy")),
    ///     ]
    /// );
    /// ```
    pub fn fields(&self) -> Vec<(&'static str, FieldValue<'_>)> {
        use FieldValue as V;
        match self {
            Error::OutputGap {
                stream,
                consumed,
                earliest,
            } => vec![
                ("stream", V::Stream(*stream)),
                ("consumed", V::Cursor(*consumed)),
                ("earliest", V::Cursor(*earliest)),
            ],
            Error::OutputExpired { server_message }
            | Error::OffsetBeyondOutput { server_message } => {
                vec![("server_message", V::Str(server_message))]
            }
            Error::Api {
                status,
                api_code,
                server_message,
            } => vec![
                ("status", V::U64(u64::from(*status))),
                ("api_code", V::OptStr(api_code.as_deref())),
                ("server_message", V::Str(server_message)),
            ],
            Error::UnsupportedContentType { content_type } => {
                vec![("content_type", V::Str(content_type))]
            }
            Error::MalformedFrame { line, reason } => {
                vec![("line", V::U64(*line)), ("reason", V::Str(reason))]
            }
            Error::UnexpectedFrame {
                line,
                frame_type,
                reason,
            } => vec![
                ("line", V::U64(*line)),
                ("frame_type", V::Str(frame_type)),
                ("reason", V::Str(reason)),
            ],
            Error::IdentityMismatch { expected, found } => {
                vec![("expected", V::Str(expected)), ("found", V::Str(found))]
            }
            Error::FrameTooLarge { limit } => vec![("limit", V::U64(*limit as u64))],
            Error::InvalidLimits { reason } | Error::InvalidState { reason } => {
                vec![("reason", V::Str(reason))]
            }
            Error::InvalidArgument { argument, reason } => {
                vec![("argument", V::Str(argument)), ("reason", V::Str(reason))]
            }
            Error::StreamDisconnected {
                reason,
                cursor,
                proc_id,
                detail,
            } => vec![
                ("reason", V::Str(reason.as_str())),
                ("cursor", V::Cursor(*cursor)),
                ("proc_id", V::OptStr(proc_id.as_deref())),
                ("detail", V::Str(detail)),
            ],
            Error::NoAnswer {
                reason,
                method,
                target,
                attempts,
                detail,
                reached,
            } => vec![
                ("reason", V::Str(reason.as_str())),
                ("method", V::Str(method)),
                ("target", V::Str(target)),
                ("attempts", V::U64(u64::from(*attempts))),
                ("detail", V::Str(detail)),
                ("reached", V::Bool(*reached)),
            ],
        }
    }

    /// True for errors that describe the wire rather than the server's answer
    /// or the caller's use of the API: the same as
    /// `self.kind() == ErrorKind::Protocol`.
    pub fn is_protocol_error(&self) -> bool {
        self.kind() == ErrorKind::Protocol
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutputGap {
                stream,
                consumed,
                earliest,
            } => write!(
                f,
                "output_gap: {stream} output was lost (consumed stdout={} stderr={}, earliest available stdout={} stderr={})",
                consumed.stdout, consumed.stderr, earliest.stdout, earliest.stderr
            ),
            Error::OutputExpired { server_message } => {
                write!(f, "output_expired: {server_message}")
            }
            Error::OffsetBeyondOutput { server_message } => {
                write!(f, "offset_beyond_output: {server_message}")
            }
            Error::Api {
                status,
                api_code,
                server_message,
            } => match api_code {
                Some(code) => write!(f, "api_error: HTTP {status} {code}: {server_message}"),
                None => write!(f, "api_error: HTTP {status}: {server_message}"),
            },
            Error::UnsupportedContentType { content_type } => {
                write!(f, "unsupported_content_type: {content_type:?}")
            }
            Error::MalformedFrame { line, reason } => {
                write!(f, "malformed_frame: line {line}: {reason}")
            }
            Error::UnexpectedFrame {
                line,
                frame_type,
                reason,
            } => write!(f, "unexpected_frame: line {line}: {frame_type:?} {reason}"),
            Error::IdentityMismatch { expected, found } => write!(
                f,
                "identity_mismatch: expected process {expected:?}, the stream announced {found:?}"
            ),
            Error::FrameTooLarge { limit } => {
                write!(f, "frame_too_large: a frame exceeded {limit} bytes")
            }
            Error::InvalidLimits { reason } => write!(f, "invalid_limits: {reason}"),
            Error::InvalidState { reason } => write!(f, "invalid_state: {reason}"),
            Error::InvalidArgument { argument, reason } => {
                write!(f, "invalid_argument: {argument}: {reason}")
            }
            Error::StreamDisconnected {
                reason,
                cursor,
                detail,
                ..
            } => {
                write!(f, "stream_disconnected: {}", reason.describe())?;
                if !detail.is_empty() {
                    write!(f, " ({detail})")?;
                }
                write!(
                    f,
                    "; resume from stdout_offset {}, stderr_offset {}",
                    cursor.stdout, cursor.stderr
                )
            }
            Error::NoAnswer {
                reason,
                method,
                target,
                attempts,
                detail,
                reached,
            } => {
                use crate::DisconnectReason as R;
                let why = match reason {
                    R::EndOfBody | R::Gap => "the answer was cut short",
                    R::Stalled => "no answer within the liveness timeout",
                    R::NoResponse => "no response",
                    R::NotConnected => "could not connect",
                    R::Unavailable => "the service was unavailable",
                };
                write!(f, "no_answer: {method} {target}: {why}")?;
                if !detail.is_empty() {
                    write!(f, " ({detail})")?;
                }
                let verb = if *reached { "sent" } else { "tried" };
                match attempts {
                    1 => write!(f, "; {verb} once")?,
                    n => write!(f, "; {verb} {n} times")?,
                }
                if *reached {
                    f.write_str("; it may have taken effect")
                } else {
                    f.write_str("; it never reached the service")
                }
            }
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// One instance of every variant (the match makes a new variant a compile error here).
    fn one_of_each() -> Vec<Error> {
        let s = || "x".to_owned();
        let all = vec![
            Error::OutputGap {
                stream: Stream::Stderr,
                consumed: Cursor::new(1, 2),
                earliest: Cursor::new(3, 4),
            },
            Error::OutputExpired {
                server_message: s(),
            },
            Error::OffsetBeyondOutput {
                server_message: s(),
            },
            Error::Api {
                status: 500,
                api_code: Some(s()),
                server_message: s(),
            },
            Error::UnsupportedContentType { content_type: s() },
            Error::MalformedFrame {
                line: 1,
                reason: s(),
            },
            Error::UnexpectedFrame {
                line: 1,
                frame_type: s(),
                reason: s(),
            },
            Error::IdentityMismatch {
                expected: s(),
                found: s(),
            },
            Error::FrameTooLarge { limit: 1 },
            Error::InvalidLimits { reason: s() },
            Error::InvalidState { reason: s() },
            Error::InvalidArgument {
                argument: s(),
                reason: s(),
            },
            Error::StreamDisconnected {
                reason: crate::DisconnectReason::NoResponse,
                cursor: Cursor::new(1, 2),
                proc_id: None,
                detail: s(),
            },
            Error::NoAnswer {
                reason: crate::DisconnectReason::NoResponse,
                method: "POST".to_owned(),
                target: s(),
                attempts: 1,
                detail: s(),
                reached: true,
            },
        ];
        for e in &all {
            match e {
                Error::OutputGap { .. }
                | Error::OutputExpired { .. }
                | Error::OffsetBeyondOutput { .. }
                | Error::Api { .. }
                | Error::UnsupportedContentType { .. }
                | Error::MalformedFrame { .. }
                | Error::UnexpectedFrame { .. }
                | Error::IdentityMismatch { .. }
                | Error::FrameTooLarge { .. }
                | Error::InvalidLimits { .. }
                | Error::InvalidState { .. }
                | Error::InvalidArgument { .. }
                | Error::StreamDisconnected { .. }
                | Error::NoAnswer { .. } => {}
            }
        }
        all
    }

    #[test]
    fn the_table_has_every_code_once() {
        let errors = one_of_each();
        assert_eq!(ERROR_CODES.len(), errors.len());
        let codes: HashSet<_> = ERROR_CODES.iter().map(|c| c.code).collect();
        let classes: HashSet<_> = ERROR_CODES.iter().map(|c| c.class).collect();
        assert_eq!(codes.len(), ERROR_CODES.len(), "a code appears twice");
        assert_eq!(classes.len(), ERROR_CODES.len(), "a class appears twice");
        for e in &errors {
            assert_eq!(
                ERROR_CODES.iter().filter(|c| c.code == e.code()).count(),
                1,
                "{}",
                e.code()
            );
        }
    }

    #[test]
    fn fields_are_named_as_in_the_table() {
        for e in one_of_each() {
            let row = ERROR_CODES
                .iter()
                .find(|c| c.code == e.code())
                .expect("every code is in the table");
            assert_eq!(*row, *e.entry());
            assert_eq!((e.class_name(), e.kind()), (row.class, row.kind));
            let names: Vec<_> = e.fields().iter().map(|(name, _)| *name).collect();
            assert_eq!(names, row.fields, "{}", e.code());
            assert!(e.to_string().starts_with(e.code()), "{e}");
        }
    }

    #[test]
    fn kinds_and_base_classes() {
        let kind = |code: &str| ERROR_CODES.iter().find(|c| c.code == code).map(|c| c.kind);
        assert_eq!(kind("api_error"), Some(ErrorKind::Answer));
        assert_eq!(kind("offset_beyond_output"), Some(ErrorKind::Answer));
        assert_eq!(kind("output_expired"), Some(ErrorKind::Loss));
        assert_eq!(kind("invalid_state"), Some(ErrorKind::Misuse));
        assert_eq!(kind("invalid_limits"), Some(ErrorKind::Limits));
        assert_eq!(kind("invalid_argument"), Some(ErrorKind::Misuse));
        assert_eq!(kind("stream_disconnected"), Some(ErrorKind::Transport));
        assert_eq!(kind("no_answer"), Some(ErrorKind::Transport));
        let protocol: Vec<_> = ERROR_CODES
            .iter()
            .filter(|c| c.kind == ErrorKind::Protocol)
            .map(|c| c.code)
            .collect();
        assert_eq!(
            protocol,
            [
                "unsupported_content_type",
                "malformed_frame",
                "unexpected_frame",
                "identity_mismatch",
                "frame_too_large"
            ]
        );
        for e in one_of_each() {
            assert_eq!(e.is_protocol_error(), e.kind() == ErrorKind::Protocol);
        }
        assert_eq!(ErrorKind::Misuse.base_class(), None);
        assert_eq!(ErrorKind::Limits.base_class(), None);
        assert_eq!(ErrorKind::Answer.base_class(), Some("AnswerError"));
        assert_eq!(ErrorKind::Loss.to_string(), "loss");
    }
}
