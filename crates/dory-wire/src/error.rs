//! The one error type of the crate.
//!
//! Every error has a stable [`Error::code`] string, the same in Rust, Python and
//! JavaScript (see `tests/vectors` and `docs/PROTOCOL.md`). Errors are sticky: once
//! a [`Reader`](crate::Reader) has returned one, every later call returns it again.

use std::fmt;

use crate::types::{Cursor, Stream};

/// Everything that can go wrong while decoding a response or bounding a preview.
///
/// The enum is `#[non_exhaustive]`: match on [`Error::code`] or use a wildcard arm.
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
        /// The server's message, if any.
        message: String,
    },
    /// 400 `offset_beyond_output`: the requested offsets are beyond what the process
    /// produced. A client bug; never reset to zero. Terminal.
    OffsetBeyondOutput {
        /// The server's message, if any.
        message: String,
    },
    /// Any other error answer from the API.
    Api {
        /// The HTTP status.
        status: u16,
        /// The body's `error` code, when the body was a JSON error document.
        api_code: Option<String>,
        /// The body's `message`, or a description of the body.
        message: String,
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
    /// Preview limits too small to hold the plain notice (see `docs/PREVIEW.md`).
    InvalidLimits {
        /// Which limit is wrong and why.
        reason: String,
    },
    /// The API was used out of order: `feed` before `open`, `feed` after `finish`, …
    InvalidState {
        /// What was done out of order.
        reason: String,
    },
}

impl Error {
    /// The stable code string: `output_gap`, `output_expired`,
    /// `offset_beyond_output`, `api_error`, `unsupported_content_type`,
    /// `malformed_frame`, `unexpected_frame`, `identity_mismatch`,
    /// `frame_too_large`, `invalid_limits` or `invalid_state`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::OutputGap { .. } => "output_gap",
            Error::OutputExpired { .. } => "output_expired",
            Error::OffsetBeyondOutput { .. } => "offset_beyond_output",
            Error::Api { .. } => "api_error",
            Error::UnsupportedContentType { .. } => "unsupported_content_type",
            Error::MalformedFrame { .. } => "malformed_frame",
            Error::UnexpectedFrame { .. } => "unexpected_frame",
            Error::IdentityMismatch { .. } => "identity_mismatch",
            Error::FrameTooLarge { .. } => "frame_too_large",
            Error::InvalidLimits { .. } => "invalid_limits",
            Error::InvalidState { .. } => "invalid_state",
        }
    }

    /// True for errors that describe the wire (protocol violations) rather than
    /// the server's answer or the caller's use of the API.
    pub fn is_protocol_error(&self) -> bool {
        matches!(
            self,
            Error::UnsupportedContentType { .. }
                | Error::MalformedFrame { .. }
                | Error::UnexpectedFrame { .. }
                | Error::IdentityMismatch { .. }
                | Error::FrameTooLarge { .. }
        )
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
            Error::OutputExpired { message } => write!(f, "output_expired: {message}"),
            Error::OffsetBeyondOutput { message } => write!(f, "offset_beyond_output: {message}"),
            Error::Api {
                status,
                api_code,
                message,
            } => match api_code {
                Some(code) => write!(f, "api_error: HTTP {status} {code}: {message}"),
                None => write!(f, "api_error: HTTP {status}: {message}"),
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
        }
    }
}

impl std::error::Error for Error {}
