//! The reader: the one object an SDK drives per HTTP response.
//!
//! Life of a reader (each arrow is a method call):
//!
//! ```text
//! new / resume ──open(status, content-type, CE-Process-Id)──▶ Open
//!     Open ──feed(bytes)*──▶ Open ──finish()──▶ Done (End) | Failed (Error)
//! any error ─▶ Failed, and every later call returns the same error (sticky)
//! ```
//!
//! While open, the body is one of three things, chosen by `open`: a frame
//! stream (2xx NDJSON, [`stream`]), a JSON document (2xx JSON), or an error
//! body (any other status, [`answer`]). Frames are decoded as soon as their
//! line is complete ([`lines`]); documents and error bodies when the body ends.
//!
//! Invariants:
//! - All the state of a reader's life is one [`Phase`]; what outlives a
//!   phase (cursor, process id, exit) is [`Progress`], valid in every phase.
//! - Every fallible public method runs through [`Reader::guard`]: a failed
//!   reader returns its stored error without running anything, and an error
//!   returned by a method body moves the reader to [`Phase::Failed`]. No
//!   method body handles stickiness itself.
//! - The liveness clock ([`liveness`]) applies only to a frame stream that
//!   has not seen a terminal frame.

mod answer;
mod lines;
pub(crate) mod liveness;
mod stream;

use std::time::Duration;

use self::answer::ErrorBody;
use self::liveness::Liveness;
use self::stream::{FrameStream, Rules, Terminal};
use crate::frame::{parse_document, Document};
use crate::gaps::Gaps;
use crate::sink::Sink;
use crate::{
    Cursor, DisconnectReason, End, Endpoint, Error, Event, ReaderOptions, ResumeState,
    RESUME_STATE_VERSION,
};

/// Where a reader is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReaderState {
    /// Built; waiting for [`Reader::open`].
    New,
    /// Opened; being fed body bytes.
    Open,
    /// [`Reader::finish`] returned an [`End`].
    Done,
    /// An error was returned; every later call returns it again.
    Failed,
}

/// Where the reader is in its life, with the state that only that part of
/// its life has.
#[derive(Debug)]
enum Phase {
    /// Built; [`Reader::open`] not called yet.
    New,
    /// 2xx NDJSON: a stream of frames.
    Frames(FrameStream),
    /// 2xx JSON: one document, buffered until the body ends.
    Document(Vec<u8>),
    /// Any other status: an error answer, decoded when the body ends.
    ErrorBody(ErrorBody),
    /// [`Reader::finish`] returned an [`End`].
    Done,
    /// An error was returned; it is returned again by every fallible call.
    Failed(Error),
}

/// What a reader learns that outlives the phase it learnt it in.
#[derive(Debug)]
struct Progress {
    /// The consumed offsets.
    cursor: Cursor,
    /// The process id known so far (resume state, header, `started`, document).
    proc_id: Option<String>,
    /// The exit seen, on this response or in the resume state.
    exit: Option<(Option<i64>, bool)>,
}

impl Progress {
    /// `found` must not contradict the process id already known.
    fn check_identity(&self, found: &str) -> Result<(), Error> {
        match &self.proc_id {
            Some(expected) if expected != found => Err(Error::IdentityMismatch {
                expected: expected.clone(),
                found: found.to_owned(),
            }),
            _ => Ok(()),
        }
    }
}

/// Decodes one HTTP response of the process-output protocol, sans IO.
///
/// Build one per response (with the cursor to resume from), tell it the
/// status and headers with [`open`](Reader::open), push the body with
/// [`feed`](Reader::feed) in pieces of any size, and call
/// [`finish`](Reader::finish) when the body ends (or the connection drops).
///
/// ```
/// use dory_wire::{Cursor, End, Endpoint, Event, Reader, ReaderOptions};
///
/// let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::default(), ReaderOptions::default());
/// reader.open(200, "application/x-ndjson", None)?;
/// let mut events = Vec::new();
/// reader.feed(br#"{"type":"stdout","data":"hel"#, &mut events)?; // split anywhere
/// reader.feed(b"lo\",\"offset\":5}\n", &mut events)?;
/// assert!(matches!(&events[0], Event::Output { data, end: 5, .. } if data == b"hello"));
/// // The body ended without `exit`: reconnect from the cursor, never re-run.
/// let end = reader.finish(&mut events)?;
/// assert!(matches!(end, End::Disconnected { cursor: Cursor { stdout: 5, stderr: 0 }, .. }));
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug)]
pub struct Reader {
    options: ReaderOptions,
    rules: Rules,
    progress: Progress,
    clock: Liveness,
    phase: Phase,
}

impl Reader {
    /// Builds a reader for a response of `endpoint`, resuming from `cursor`
    /// (zeros for a fresh read).
    pub fn new(endpoint: Endpoint, cursor: Cursor, options: ReaderOptions) -> Self {
        Reader {
            rules: Rules {
                endpoint,
                strict: options.strict,
                gaps: Gaps::new(options.gap_policy),
            },
            clock: Liveness::new(options.liveness_timeout),
            options,
            progress: Progress {
                cursor,
                proc_id: None,
                exit: None,
            },
            phase: Phase::New,
        }
    }

    /// Builds a reader from a saved [`ResumeState`]: its cursor, and its process
    /// id, which the response must not contradict (`identity_mismatch`).
    pub fn resume(endpoint: Endpoint, state: &ResumeState, options: ReaderOptions) -> Self {
        let mut reader = Reader::new(endpoint, state.cursor, options);
        reader.progress.proc_id.clone_from(&state.proc_id);
        if state.exit_seen {
            reader.progress.exit = Some((state.exit_code, state.timed_out));
        }
        reader
    }

    /// Tells the reader the response's status, `Content-Type` and
    /// `CE-Process-Id` header (if any). Call once, before any [`feed`](Reader::feed).
    ///
    /// A 2xx response must be `application/x-ndjson` (frames) or
    /// `application/json` (a document); anything else is
    /// `unsupported_content_type`, reported here. Other statuses are error
    /// bodies, reported by [`finish`](Reader::finish).
    pub fn open(
        &mut self,
        status: u16,
        content_type: &str,
        proc_id: Option<&str>,
    ) -> Result<(), Error> {
        self.guard(|r| r.open_phase(status, content_type, proc_id))
    }

    /// Feeds the next piece of the body, split anywhere, delivering the events
    /// it completes to `events`: a `Vec<Event>`, a [`Transcript`](crate::Transcript),
    /// or any [`Sink`] (which can take output bytes without an event each).
    ///
    /// On error, the events decoded before it stay in `events`, the reader
    /// fails, and every later call returns the same error.
    pub fn feed(&mut self, data: &[u8], events: &mut impl Sink) -> Result<(), Error> {
        self.guard(|r| r.feed_phase(data, events))
    }

    /// Ends the body: call when the response body is complete or the
    /// connection dropped. Returns how the response ended, after appending any
    /// last events (a JSON document's, or `skipped` for a 409 under the skip
    /// policy) to `events`.
    ///
    /// A partial last line is discarded: it is read again after reconnecting.
    pub fn finish(&mut self, events: &mut impl Sink) -> Result<End, Error> {
        self.guard(|r| r.finish_phase(events))
    }

    /// The consumed offsets: where to resume from. Valid at any time, also
    /// after an error.
    pub fn cursor(&self) -> Cursor {
        self.progress.cursor
    }

    /// The state to save for resuming later, possibly in another process.
    pub fn resume_state(&self) -> ResumeState {
        let exit = self.progress.exit;
        ResumeState {
            version: RESUME_STATE_VERSION,
            proc_id: self.progress.proc_id.clone(),
            cursor: self.progress.cursor,
            exit_seen: exit.is_some(),
            exit_code: exit.and_then(|(code, _)| code),
            timed_out: exit.is_some_and(|(_, t)| t),
        }
    }

    /// The process id, once known: from the resume state, the `CE-Process-Id`
    /// header, the `started` frame or an identity/result document.
    pub fn proc_id(&self) -> Option<&str> {
        self.progress.proc_id.as_deref()
    }

    /// The endpoint this reader decodes.
    pub fn endpoint(&self) -> Endpoint {
        self.rules.endpoint
    }

    /// The options this reader was built with.
    pub fn options(&self) -> &ReaderOptions {
        &self.options
    }

    /// How many body bytes the reader holds right now: an incomplete line, or
    /// a document or error body not yet ended (none once done or failed).
    /// Never more than `max_frame_bytes` (error bodies: 64 KiB), whatever the
    /// input.
    pub fn buffered_bytes(&self) -> usize {
        match &self.phase {
            Phase::Frames(stream) => stream.buffered(),
            Phase::Document(buf) => buf.len(),
            Phase::ErrorBody(body) => body.buffered(),
            Phase::New | Phase::Done | Phase::Failed(_) => 0,
        }
    }

    /// Where the reader is in its life.
    pub fn state(&self) -> ReaderState {
        match self.phase {
            Phase::New => ReaderState::New,
            Phase::Frames(_) | Phase::Document(_) | Phase::ErrorBody(_) => ReaderState::Open,
            Phase::Done => ReaderState::Done,
            Phase::Failed(_) => ReaderState::Failed,
        }
    }

    /// The deadline, on the caller's monotonic clock, by which the next
    /// complete frame (a heartbeat included) must arrive, or `None` when no deadline applies (the clock is not armed
    /// yet, the body is not a frame stream, or the stream already ended).
    /// Wait for body bytes until then; if none came, call
    /// [`handle_timeout`](Reader::handle_timeout).
    pub fn poll_timeout(&self) -> Option<Duration> {
        if !self.liveness_applies() {
            return None;
        }
        self.clock.deadline()
    }

    /// Tells the reader the time `now` on the caller's monotonic clock (any
    /// origin). The first call arms the liveness clock; a call after a
    /// complete frame was fed restarts it at `now` (bytes of a frame still
    /// arriving do not: a frame must complete within the timeout). Returns
    /// true when no complete frame came for the liveness timeout: the stream is **stalled** — close the connection and
    /// call [`finish`](Reader::finish), which ends `Disconnected` with reason
    /// [`DisconnectReason::Stalled`], then reconnect from the cursor.
    pub fn handle_timeout(&mut self, now: Duration) -> bool {
        if self.clock.stalled() {
            return true;
        }
        if !self.liveness_applies() {
            return false;
        }
        self.clock.tick(now)
    }

    /// Runs the body of a fallible method. A failed reader returns its
    /// stored error and runs nothing; an error from `body` is stored and
    /// fails the reader. Errors are sticky by construction.
    #[inline]
    fn guard<T>(&mut self, body: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if let Phase::Failed(error) = &self.phase {
            return Err(error.clone());
        }
        let result = body(self);
        if let Err(error) = &result {
            self.phase = Phase::Failed(error.clone());
        }
        result
    }

    fn open_phase(
        &mut self,
        status: u16,
        content_type: &str,
        proc_id: Option<&str>,
    ) -> Result<(), Error> {
        if !matches!(self.phase, Phase::New) {
            return Err(invalid_state("open was already called"));
        }
        if let Some(header) = proc_id {
            self.progress.check_identity(header)?;
            self.progress.proc_id = Some(header.to_owned());
        }
        let media = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        self.phase = if (200..300).contains(&status) {
            match media.as_str() {
                "application/x-ndjson" => {
                    Phase::Frames(FrameStream::new(self.options.max_frame_bytes))
                }
                "application/json" => Phase::Document(Vec::new()),
                _ => {
                    return Err(Error::UnsupportedContentType {
                        content_type: content_type.to_owned(),
                    })
                }
            }
        } else {
            Phase::ErrorBody(ErrorBody::new(status, media == "application/json"))
        };
        Ok(())
    }

    #[inline]
    fn feed_phase(&mut self, data: &[u8], events: &mut dyn Sink) -> Result<(), Error> {
        match &mut self.phase {
            Phase::Frames(stream) => {
                if self.clock.stalled() {
                    return Err(invalid_state(
                        "feed after the stream stalled: call finish and reconnect",
                    ));
                }
                // Only a complete line proves the stream alive: bytes that
                // never finish a frame cannot hold a follower forever.
                let before = stream.completed_lines();
                let result = stream.feed(data, self.rules, &mut self.progress, events);
                if stream.completed_lines() != before {
                    self.clock.frame_arrived();
                }
                result
            }
            Phase::Document(buf) => {
                let max = self.options.max_frame_bytes;
                if buf.len() + data.len() > max {
                    return Err(Error::FrameTooLarge { limit: max });
                }
                buf.extend_from_slice(data);
                Ok(())
            }
            Phase::ErrorBody(body) => {
                body.push(data);
                Ok(())
            }
            Phase::New => Err(invalid_state("feed before open")),
            Phase::Done => Err(invalid_state("feed after finish")),
            Phase::Failed(error) => Err(error.clone()),
        }
    }

    fn finish_phase(&mut self, events: &mut dyn Sink) -> Result<End, Error> {
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Frames(stream) => Ok(match stream.terminal() {
                Some(Terminal::Exit) => {
                    let (exit_code, timed_out) = self.progress.exit.unwrap_or((None, false));
                    End::Exited {
                        exit_code,
                        timed_out,
                    }
                }
                Some(Terminal::Gap) => self.disconnected(DisconnectReason::Gap),
                None if self.clock.stalled() => self.disconnected(DisconnectReason::Stalled),
                None => self.disconnected(DisconnectReason::EndOfBody),
            }),
            Phase::Document(body) => self.finish_document(&body, events),
            Phase::ErrorBody(body) => {
                let rules = self.rules;
                body.finish(
                    rules.gaps,
                    rules.endpoint,
                    &mut self.progress.cursor,
                    events,
                )?;
                Ok(self.disconnected(DisconnectReason::Gap))
            }
            Phase::New => Err(invalid_state("finish before open")),
            Phase::Done => Err(invalid_state("finish was already called")),
            Phase::Failed(error) => Err(error),
        }
    }

    fn finish_document(&mut self, body: &[u8], events: &mut dyn Sink) -> Result<End, Error> {
        let document = parse_document(body).map_err(|reason| Error::MalformedFrame {
            line: 0,
            reason: reason.into_owned(),
        })?;
        let proc_id = match &document {
            Document::Identity(identity) => &identity.proc_id,
            Document::ExecResult(result) => &result.proc_id,
        };
        self.progress.check_identity(proc_id)?;
        self.progress.proc_id = Some(proc_id.clone());
        events.event(match document {
            Document::Identity(identity) => Event::Identity(identity),
            Document::ExecResult(result) => {
                self.progress.exit = Some((result.exit_code, result.timed_out));
                Event::ExecResult(result)
            }
        });
        Ok(End::Document)
    }

    pub(crate) fn liveness_applies(&self) -> bool {
        matches!(&self.phase, Phase::Frames(stream) if stream.terminal().is_none())
    }

    fn disconnected(&self, reason: DisconnectReason) -> End {
        End::Disconnected {
            cursor: self.progress.cursor,
            reason,
        }
    }
}

fn invalid_state(reason: &str) -> Error {
    Error::InvalidState {
        reason: reason.to_owned(),
    }
}
