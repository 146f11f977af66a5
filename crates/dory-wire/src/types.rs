//! Plain data shared by the reader, the offset tracker and the bindings.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One of the two output streams of a process.
///
/// Setup logs have one combined stream, reported as [`Stream::Stdout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// Standard output (and the combined setup log).
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// `"stdout"` or `"stderr"`: the frame type and the name used everywhere.
    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

impl fmt::Display for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Per-stream consumed byte offsets: the position up to which output has been
/// delivered. Offsets count raw bytes, never characters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cursor {
    /// Bytes of stdout consumed (for setup logs: of the combined log).
    pub stdout: u64,
    /// Bytes of stderr consumed (always 0 for setup logs).
    pub stderr: u64,
}

impl Cursor {
    /// A cursor at the given offsets.
    pub const fn new(stdout: u64, stderr: u64) -> Self {
        Cursor { stdout, stderr }
    }

    /// The offset of one stream.
    pub fn get(&self, stream: Stream) -> u64 {
        match stream {
            Stream::Stdout => self.stdout,
            Stream::Stderr => self.stderr,
        }
    }

    /// Sets the offset of one stream.
    pub fn set(&mut self, stream: Stream, offset: u64) {
        match stream {
            Stream::Stdout => self.stdout = offset,
            Stream::Stderr => self.stderr = offset,
        }
    }

    /// The consumed offsets after `event`, from these before it: output and
    /// a skipped range move their stream to their end; other events move
    /// nothing. What a client that hands events out one by one resumes from.
    ///
    /// ```
    /// use dory_wire::{Cursor, Event, Stream};
    ///
    /// let skipped = Event::Skipped { stream: Stream::Stderr, start: 4, end: 9 };
    /// assert_eq!(Cursor::new(3, 4).after(&skipped), Cursor::new(3, 9));
    /// ```
    #[must_use]
    pub fn after(mut self, event: &Event) -> Cursor {
        match event {
            Event::Output { stream, end, .. } | Event::Skipped { stream, end, .. } => {
                self.set(*stream, *end);
            }
            _ => {}
        }
        self
    }
}

/// Which request a response answers. It selects the frame union; the response's
/// Content-Type still decides between a frame stream and a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Endpoint {
    /// `POST /computers/{id}/exec` with `Accept: application/x-ndjson`:
    /// `started`, `stdout`, `stderr`, `heartbeat`, `gap`, `exit`.
    Exec,
    /// `GET /computers/{id}/processes/{proc_id}/output`:
    /// `stdout`, `stderr`, `heartbeat`, `gap`, `exit` (never `started`).
    ProcessOutput,
    /// `GET /computers/{id}/setup/logs`: `stdout`, `heartbeat`, `gap`, `exit`.
    SetupLogs,
    /// A request answered by one JSON document: process start (and its keyed
    /// replay), kill, synchronous exec.
    Document,
}

impl Endpoint {
    /// The name used in vectors and bindings: `exec`, `process_output`,
    /// `setup_logs`, `document`.
    pub fn as_str(self) -> &'static str {
        match self {
            Endpoint::Exec => "exec",
            Endpoint::ProcessOutput => "process_output",
            Endpoint::SetupLogs => "setup_logs",
            Endpoint::Document => "document",
        }
    }

    /// Parses a name produced by [`Endpoint::as_str`].
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "exec" => Endpoint::Exec,
            "process_output" => Endpoint::ProcessOutput,
            "setup_logs" => Endpoint::SetupLogs,
            "document" => Endpoint::Document,
            _ => return None,
        })
    }
}

/// What to do when output is missing (a hole, a `gap` frame, a 409).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum GapPolicy {
    /// Stop with [`Error::OutputGap`](crate::Error::OutputGap). The default.
    #[default]
    Fail,
    /// Emit [`Event::Skipped`] with the exact lost range and move the cursor past it.
    Skip,
}

impl GapPolicy {
    /// `"fail"` or `"skip"`.
    pub fn as_str(self) -> &'static str {
        match self {
            GapPolicy::Fail => "fail",
            GapPolicy::Skip => "skip",
        }
    }

    /// Parses `"fail"` or `"skip"`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "fail" => Some(GapPolicy::Fail),
            "skip" => Some(GapPolicy::Skip),
            _ => None,
        }
    }
}

/// The default `max_frame_bytes`: 16 MiB.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;
/// The default liveness timeout: twice the 15 s heartbeat interval.
pub const DEFAULT_LIVENESS_TIMEOUT: Duration = Duration::from_secs(30);
/// The most bytes of an error body that are kept (the rest is dropped).
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// Options of a [`Reader`](crate::Reader).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReaderOptions {
    /// What to do when output is missing. Default: [`GapPolicy::Fail`].
    pub gap_policy: GapPolicy,
    /// The longest line (or JSON document) accepted, enforced before its end
    /// arrives so memory stays bounded. Default: 16 MiB.
    pub max_frame_bytes: usize,
    /// How long a followed stream may go without a byte before it counts as
    /// stalled. Default: 30 s.
    pub liveness_timeout: Duration,
    /// Reject frame types no union knows instead of surfacing them as
    /// [`Event::Unknown`]. Default: false.
    pub strict: bool,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            gap_policy: GapPolicy::Fail,
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            liveness_timeout: DEFAULT_LIVENESS_TIMEOUT,
            strict: false,
        }
    }
}

impl ReaderOptions {
    /// Sets the gap policy.
    pub fn gap_policy(mut self, policy: GapPolicy) -> Self {
        self.gap_policy = policy;
        self
    }

    /// Sets the frame size limit (values below 1 are raised to 1).
    pub fn max_frame_bytes(mut self, limit: usize) -> Self {
        self.max_frame_bytes = limit.max(1);
        self
    }

    /// Sets the liveness timeout.
    pub fn liveness_timeout(mut self, timeout: Duration) -> Self {
        self.liveness_timeout = timeout;
        self
    }

    /// Rejects unknown frame types (`unexpected_frame`) instead of surfacing them.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }
}

/// The state of a process as reported by an identity document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcessStatus {
    /// Still running.
    Running,
    /// Finished.
    Exited,
}

impl ProcessStatus {
    /// `"running"` or `"exited"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProcessStatus::Running => "running",
            ProcessStatus::Exited => "exited",
        }
    }
}

/// A JSON identity document: the answer to a process start, its keyed replay, a kill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Identity {
    /// The process id.
    pub proc_id: String,
    /// Running or exited.
    pub status: ProcessStatus,
}

impl Identity {
    /// An identity document's content.
    pub fn new(proc_id: impl Into<String>, status: ProcessStatus) -> Self {
        Identity {
            proc_id: proc_id.into(),
            status,
        }
    }
}

/// A JSON result document: the answer to a synchronous exec.
///
/// Build one with [`ExecResult::new`] and the `with_*` setters.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExecResult {
    /// The process id.
    pub proc_id: String,
    /// Standard output bytes (decoded from base64 when so encoded).
    pub stdout: Vec<u8>,
    /// Standard error bytes.
    pub stderr: Vec<u8>,
    /// Whether stdout was cut at the synchronous limit (1 MiB).
    pub stdout_truncated: bool,
    /// Whether stderr was cut at the synchronous limit (1 MiB).
    pub stderr_truncated: bool,
    /// The exit code; `None` when killed or timed out.
    pub exit_code: Option<i64>,
    /// Whether the process hit its deadline.
    pub timed_out: bool,
}

impl ExecResult {
    /// A result of process `proc_id` that exited with `exit_code` (`None`:
    /// killed or timed out) after writing `stdout` and `stderr`, neither
    /// truncated, without timing out.
    pub fn new(
        proc_id: impl Into<String>,
        stdout: impl Into<Vec<u8>>,
        stderr: impl Into<Vec<u8>>,
        exit_code: Option<i64>,
    ) -> Self {
        ExecResult {
            proc_id: proc_id.into(),
            stdout: stdout.into(),
            stderr: stderr.into(),
            stdout_truncated: false,
            stderr_truncated: false,
            exit_code,
            timed_out: false,
        }
    }

    /// Sets whether stdout and stderr were cut at the synchronous limit.
    pub fn with_truncated(mut self, stdout: bool, stderr: bool) -> Self {
        self.stdout_truncated = stdout;
        self.stderr_truncated = stderr;
        self
    }

    /// Sets whether the process hit its deadline.
    pub fn with_timed_out(mut self, timed_out: bool) -> Self {
        self.timed_out = timed_out;
        self
    }
}

/// What a [`Reader`](crate::Reader) yields while a body is fed.
///
/// The enum is `#[non_exhaustive]`: a match needs a wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// The exec stream's first frame: the process now exists under this id.
    Started {
        /// The process id.
        proc_id: String,
    },
    /// New output bytes (overlap with what was already consumed is trimmed).
    Output {
        /// Which stream.
        stream: Stream,
        /// The bytes, exact.
        data: Vec<u8>,
        /// Offset of the first byte in the stream's byte space.
        start: u64,
        /// Offset just past the last byte (`start + data.len()`).
        end: u64,
    },
    /// Output that was lost and skipped under [`GapPolicy::Skip`]: `[start, end)`.
    Skipped {
        /// Which stream lost bytes.
        stream: Stream,
        /// First lost offset.
        start: u64,
        /// Offset just past the last lost byte.
        end: u64,
    },
    /// A keep-alive frame.
    Heartbeat,
    /// The process finished; the last frame.
    Exit {
        /// The exit code; `None` when killed or timed out.
        exit_code: Option<i64>,
        /// Whether the process hit its deadline.
        timed_out: bool,
    },
    /// A frame whose `type` no union knows; it changes no state.
    Unknown {
        /// The frame's `type`.
        frame_type: String,
    },
    /// A JSON identity document.
    Identity(Identity),
    /// A JSON result document.
    ExecResult(ExecResult),
}

/// Why a stream ended without `exit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DisconnectReason {
    /// The body ended (a partial last line, if any, was discarded).
    EndOfBody,
    /// The server sent a `gap` frame (or a 409) and every loss was skipped, or
    /// nothing was lost: reconnect from the cursor.
    Gap,
    /// No complete frame arrived within the liveness timeout.
    Stalled,
    /// No response at all: the request was sent (or may have been) and the
    /// connection was reset or closed, or no headers came within the
    /// liveness timeout. Only a [`Follower`](crate::Follower) reports it (a
    /// reader sees responses).
    NoResponse,
    /// The connection was never made (refused, the name lookup failed, the
    /// connect timed out, the host was unreachable): the request never
    /// left the machine, so it cannot have taken effect. Only a
    /// [`Follower`](crate::Follower) reports it.
    NotConnected,
    /// A transient refusal before any body: 503 or 429 (its `Retry-After`
    /// honoured). Only a [`Follower`](crate::Follower) reports it, and only
    /// for a request it may send again.
    Unavailable,
}

impl DisconnectReason {
    /// `"end_of_body"`, `"gap"`, `"stalled"`, `"no_response"`,
    /// `"not_connected"` or `"unavailable"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DisconnectReason::EndOfBody => "end_of_body",
            DisconnectReason::Gap => "gap",
            DisconnectReason::Stalled => "stalled",
            DisconnectReason::NoResponse => "no_response",
            DisconnectReason::NotConnected => "not_connected",
            DisconnectReason::Unavailable => "unavailable",
        }
    }

    /// The reason named by [`as_str`](DisconnectReason::as_str).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "end_of_body" => DisconnectReason::EndOfBody,
            "gap" => DisconnectReason::Gap,
            "stalled" => DisconnectReason::Stalled,
            "no_response" => DisconnectReason::NoResponse,
            "not_connected" => DisconnectReason::NotConnected,
            "unavailable" => DisconnectReason::Unavailable,
            _ => return None,
        })
    }

    /// What happened, in words: the middle of a
    /// [`StreamDisconnected`](crate::Error::StreamDisconnected) message.
    pub fn describe(self) -> &'static str {
        match self {
            DisconnectReason::EndOfBody => "the response ended before exit",
            DisconnectReason::Gap => "a gap frame ended the response",
            DisconnectReason::Stalled => "no complete frame came within the liveness timeout",
            DisconnectReason::NoResponse => "no response",
            DisconnectReason::NotConnected => "could not connect",
            DisconnectReason::Unavailable => "the service was unavailable",
        }
    }
}

/// How a response ended, once the whole body was fed.
///
/// The enum is `#[non_exhaustive]`: a match needs a wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum End {
    /// An `exit` frame was seen: the output is complete.
    Exited {
        /// The exit code; `None` when killed or timed out.
        exit_code: Option<i64>,
        /// Whether the process hit its deadline.
        timed_out: bool,
    },
    /// The stream ended without `exit`: reconnect to *process output* from `cursor`.
    /// Never start the command again.
    Disconnected {
        /// Where to resume from.
        cursor: Cursor,
        /// Why it ended.
        reason: DisconnectReason,
    },
    /// A JSON document was decoded (delivered as an [`Event::Identity`] or
    /// [`Event::ExecResult`]).
    Document,
}

/// The current version of [`ResumeState`]'s serialized form.
pub const RESUME_STATE_VERSION: u32 = 1;

/// Everything needed to resume reading a process's output, in another process
/// if need be: plain serde data with a version field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumeState {
    /// Format version; [`RESUME_STATE_VERSION`].
    pub version: u32,
    /// The process id, once known (from `started`, `CE-Process-Id` or a document).
    /// Version-1 states written with the older key `process_id` still parse.
    #[serde(alias = "process_id")]
    pub proc_id: Option<String>,
    /// Consumed offsets.
    pub cursor: Cursor,
    /// Whether `exit` was seen.
    pub exit_seen: bool,
    /// The exit code, when `exit` was seen with one.
    pub exit_code: Option<i64>,
    /// Whether the exit was a timeout.
    #[serde(default)]
    pub timed_out: bool,
}

impl ResumeState {
    /// A fresh state at offset zero.
    pub fn new(proc_id: Option<String>) -> Self {
        ResumeState {
            version: RESUME_STATE_VERSION,
            proc_id,
            cursor: Cursor::default(),
            exit_seen: false,
            exit_code: None,
            timed_out: false,
        }
    }

    /// Serializes to JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses JSON produced by [`ResumeState::to_json`]. Rejects other versions.
    pub fn from_json(json: &str) -> Result<Self, crate::Error> {
        let state: ResumeState =
            serde_json::from_str(json).map_err(|e| crate::Error::InvalidState {
                reason: format!("invalid resume state: {e}"),
            })?;
        if state.version != RESUME_STATE_VERSION {
            return Err(crate::Error::InvalidState {
                reason: format!(
                    "resume state version {} is not supported (expected {RESUME_STATE_VERSION})",
                    state.version
                ),
            });
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_state_writes_proc_id_and_reads_the_older_key() {
        let mut state = ResumeState::new(Some("p-1".into()));
        state.cursor = Cursor::new(5, 7);
        let json = state.to_json();
        assert!(json.contains("\"proc_id\":\"p-1\""), "{json}");
        assert!(!json.contains("process_id"), "{json}");
        assert_eq!(ResumeState::from_json(&json).unwrap(), state);

        // A version-1 state saved before the rename.
        let old = r#"{"version":1,"process_id":"p-1","cursor":{"stdout":5,"stderr":7},"exit_seen":false,"exit_code":null,"timed_out":false}"#;
        assert_eq!(ResumeState::from_json(old).unwrap(), state);
        // Both keys at once is ambiguous: rejected, not guessed.
        let both = r#"{"version":1,"proc_id":"a","process_id":"b","cursor":{"stdout":0,"stderr":0},"exit_seen":false,"exit_code":null}"#;
        assert_eq!(
            ResumeState::from_json(both).unwrap_err().code(),
            "invalid_state"
        );
    }
}
