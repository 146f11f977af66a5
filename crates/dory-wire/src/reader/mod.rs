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
//! While open, the body is one of three things, chosen by `open`:
//! a frame stream (2xx NDJSON), a JSON document (2xx JSON), or an error body
//! (any other status). Frames are decoded as soon as their line is complete;
//! documents and error bodies when the body ends.

use std::borrow::Cow;
use std::time::Duration;

use memchr::memchr;

use crate::frame::{parse_document, parse_frame, Document, Frame};
use crate::gaps::Gaps;
use crate::offsets::{place, Placement};
use crate::sink::Sink;
use crate::types::MAX_ERROR_BODY_BYTES;
use crate::{
    Cursor, DisconnectReason, End, Endpoint, Error, Event, ReaderOptions, ResumeState, Stream,
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

/// What the body of the response is, decided by [`Reader::open`].
#[derive(Debug)]
enum Body {
    /// Not opened yet.
    Unopened,
    /// 2xx NDJSON: a stream of frames.
    Frames,
    /// 2xx JSON: one document, buffered until the body ends.
    Document(Vec<u8>),
    /// Any other status: an error body, buffered up to [`MAX_ERROR_BODY_BYTES`].
    Error {
        status: u16,
        json: bool,
        body: Vec<u8>,
        overflow: bool,
    },
}

/// The frame that ended a stream; nothing may follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Terminal {
    Exit,
    Gap,
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
    endpoint: Endpoint,
    options: ReaderOptions,
    cursor: Cursor,
    /// The process id known so far (resume state, header, `started`, document).
    proc_id: Option<String>,
    /// The exit seen, on this response or in the resume state.
    exit: Option<(Option<i64>, bool)>,
    body: Body,
    /// The bytes of an incomplete line.
    partial: Vec<u8>,
    /// 1-based number of the last line decoded.
    line: u64,
    started: bool,
    terminal: Option<Terminal>,
    finished: bool,
    error: Option<Error>,
    /// Liveness: when the clock last restarted, and whether bytes came since.
    last_activity: Option<Duration>,
    active: bool,
    stalled: bool,
}

impl Reader {
    /// Builds a reader for a response of `endpoint`, resuming from `cursor`
    /// (zeros for a fresh read).
    pub fn new(endpoint: Endpoint, cursor: Cursor, options: ReaderOptions) -> Self {
        Reader {
            endpoint,
            options,
            cursor,
            proc_id: None,
            exit: None,
            body: Body::Unopened,
            partial: Vec::new(),
            line: 0,
            started: false,
            terminal: None,
            finished: false,
            error: None,
            last_activity: None,
            active: false,
            stalled: false,
        }
    }

    /// Builds a reader from a saved [`ResumeState`]: its cursor, and its process
    /// id, which the response must not contradict (`identity_mismatch`).
    pub fn resume(endpoint: Endpoint, state: &ResumeState, options: ReaderOptions) -> Self {
        let mut reader = Reader::new(endpoint, state.cursor, options);
        reader.proc_id.clone_from(&state.proc_id);
        if state.exit_seen {
            reader.exit = Some((state.exit_code, state.timed_out));
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
        self.check_usable()?;
        if !matches!(self.body, Body::Unopened) {
            return Err(self.fail(invalid_state("open was already called")));
        }
        if let Some(header) = proc_id {
            if let Err(e) = self.check_identity(header) {
                return Err(self.fail(e));
            }
            self.proc_id = Some(header.to_owned());
        }
        let media = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        self.body = if (200..300).contains(&status) {
            match media.as_str() {
                "application/x-ndjson" => Body::Frames,
                "application/json" => Body::Document(Vec::new()),
                _ => {
                    return Err(self.fail(Error::UnsupportedContentType {
                        content_type: content_type.to_owned(),
                    }))
                }
            }
        } else {
            Body::Error {
                status,
                json: media == "application/json",
                body: Vec::new(),
                overflow: false,
            }
        };
        Ok(())
    }

    /// Feeds the next piece of the body, split anywhere, delivering the events
    /// it completes to `events`: a `Vec<Event>`, a [`Transcript`](crate::Transcript),
    /// or any [`Sink`] (which can take output bytes without an event each).
    ///
    /// On error, the events decoded before it stay in `events`, the reader
    /// fails, and every later call returns the same error.
    pub fn feed(&mut self, data: &[u8], events: &mut impl Sink) -> Result<(), Error> {
        self.check_usable()?;
        if self.finished {
            return Err(self.fail(invalid_state("feed after finish")));
        }
        if self.stalled {
            return Err(self.fail(invalid_state(
                "feed after the stream stalled: call finish and reconnect",
            )));
        }
        if !data.is_empty() {
            self.active = true;
        }
        let max = self.options.max_frame_bytes;
        let result = match &mut self.body {
            Body::Unopened => Err(invalid_state("feed before open")),
            Body::Frames => self.feed_frames(data, events),
            Body::Document(buf) => {
                if buf.len() + data.len() > max {
                    Err(Error::FrameTooLarge { limit: max })
                } else {
                    buf.extend_from_slice(data);
                    Ok(())
                }
            }
            Body::Error { body, overflow, .. } => {
                let room = MAX_ERROR_BODY_BYTES - body.len();
                body.extend_from_slice(&data[..data.len().min(room)]);
                *overflow |= data.len() > room;
                Ok(())
            }
        };
        result.map_err(|e| self.fail(e))
    }

    /// Ends the body: call when the response body is complete or the
    /// connection dropped. Returns how the response ended, after appending any
    /// last events (a JSON document's, or `skipped` for a 409 under the skip
    /// policy) to `events`.
    ///
    /// A partial last line is discarded: it is read again after reconnecting.
    pub fn finish(&mut self, events: &mut impl Sink) -> Result<End, Error> {
        self.check_usable()?;
        if self.finished {
            return Err(self.fail(invalid_state("finish was already called")));
        }
        self.finished = true;
        self.partial = Vec::new();
        let body = std::mem::replace(&mut self.body, Body::Frames);
        let result = match body {
            Body::Unopened => Err(invalid_state("finish before open")),
            Body::Frames => Ok(match self.terminal {
                Some(Terminal::Exit) => {
                    let (exit_code, timed_out) = self.exit.unwrap_or((None, false));
                    End::Exited {
                        exit_code,
                        timed_out,
                    }
                }
                Some(Terminal::Gap) => self.disconnected(DisconnectReason::Gap),
                None if self.stalled => self.disconnected(DisconnectReason::Stalled),
                None => self.disconnected(DisconnectReason::EndOfBody),
            }),
            Body::Document(buf) => self.finish_document(&buf, events),
            Body::Error {
                status,
                json,
                body,
                overflow,
            } => self.finish_error(status, json && !overflow, &body, events),
        };
        result.map_err(|e| self.fail(e))
    }

    /// The consumed offsets: where to resume from. Valid at any time, also
    /// after an error.
    pub fn cursor(&self) -> Cursor {
        self.cursor
    }

    /// The state to save for resuming later, possibly in another process.
    pub fn resume_state(&self) -> ResumeState {
        ResumeState {
            version: RESUME_STATE_VERSION,
            proc_id: self.proc_id.clone(),
            cursor: self.cursor,
            exit_seen: self.exit.is_some(),
            exit_code: self.exit.and_then(|(code, _)| code),
            timed_out: self.exit.is_some_and(|(_, t)| t),
        }
    }

    /// The process id, once known: from the resume state, the `CE-Process-Id`
    /// header, the `started` frame or an identity/result document.
    pub fn proc_id(&self) -> Option<&str> {
        self.proc_id.as_deref()
    }

    /// The endpoint this reader decodes.
    pub fn endpoint(&self) -> Endpoint {
        self.endpoint
    }

    /// The options this reader was built with.
    pub fn options(&self) -> &ReaderOptions {
        &self.options
    }

    /// How many body bytes the reader holds right now: an incomplete line, or
    /// a document or error body not yet ended. Never more than
    /// `max_frame_bytes` (error bodies: 64 KiB), whatever the input.
    pub fn buffered_bytes(&self) -> usize {
        match &self.body {
            Body::Unopened => 0,
            Body::Frames => self.partial.len(),
            Body::Document(buf) => buf.len(),
            Body::Error { body, .. } => body.len(),
        }
    }

    /// Where the reader is in its life.
    pub fn state(&self) -> ReaderState {
        if self.error.is_some() {
            ReaderState::Failed
        } else if self.finished {
            ReaderState::Done
        } else if matches!(self.body, Body::Unopened) {
            ReaderState::New
        } else {
            ReaderState::Open
        }
    }

    /// The deadline, on the caller's monotonic clock, by which the next byte
    /// must arrive, or `None` when no deadline applies (the clock is not armed
    /// yet, the body is not a frame stream, or the stream already ended).
    /// Wait for body bytes until then; if none came, call
    /// [`handle_timeout`](Reader::handle_timeout).
    pub fn poll_timeout(&self) -> Option<Duration> {
        if !self.liveness_applies() || self.stalled {
            return None;
        }
        self.last_activity
            .map(|t| t.saturating_add(self.options.liveness_timeout))
    }

    /// Tells the reader the time `now` on the caller's monotonic clock (any
    /// origin). The first call arms the liveness clock; a call after bytes
    /// were fed restarts it at `now`. Returns true when no byte came for the
    /// liveness timeout: the stream is **stalled** — close the connection and
    /// call [`finish`](Reader::finish), which ends `Disconnected` with reason
    /// [`DisconnectReason::Stalled`], then reconnect from the cursor.
    pub fn handle_timeout(&mut self, now: Duration) -> bool {
        if self.stalled {
            return true;
        }
        if !self.liveness_applies() {
            return false;
        }
        match self.last_activity {
            Some(last) if !self.active => {
                if now >= last.saturating_add(self.options.liveness_timeout) {
                    self.stalled = true;
                }
            }
            _ => {
                self.last_activity = Some(now);
                self.active = false;
            }
        }
        self.stalled
    }

    fn liveness_applies(&self) -> bool {
        matches!(self.body, Body::Frames)
            && !self.finished
            && self.error.is_none()
            && self.terminal.is_none()
    }

    fn check_usable(&self) -> Result<(), Error> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn fail(&mut self, error: Error) -> Error {
        self.error = Some(error.clone());
        error
    }

    fn disconnected(&self, reason: DisconnectReason) -> End {
        End::Disconnected {
            cursor: self.cursor,
            reason,
        }
    }

    fn check_identity(&self, found: &str) -> Result<(), Error> {
        match &self.proc_id {
            Some(expected) if expected != found => Err(Error::IdentityMismatch {
                expected: expected.clone(),
                found: found.to_owned(),
            }),
            _ => Ok(()),
        }
    }

    /// Splits the input into lines without copying complete ones.
    fn feed_frames(&mut self, mut data: &[u8], events: &mut dyn Sink) -> Result<(), Error> {
        let max = self.options.max_frame_bytes;
        if !self.partial.is_empty() {
            let Some(i) = memchr(b'\n', data) else {
                if self.partial.len() + data.len() > max {
                    return Err(Error::FrameTooLarge { limit: max });
                }
                self.partial.extend_from_slice(data);
                return Ok(());
            };
            if self.partial.len() + i > max {
                return Err(Error::FrameTooLarge { limit: max });
            }
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(&data[..i]);
            data = &data[i + 1..];
            self.line(&line, events)?;
            // Keep the allocation for the next partial line.
            line.clear();
            self.partial = line;
        }
        // One iterator over the piece: its vector search state is kept between
        // lines instead of being set up again for every short line.
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', data) {
            if end - start > max {
                return Err(Error::FrameTooLarge { limit: max });
            }
            self.line(&data[start..end], events)?;
            start = end + 1;
        }
        let data = &data[start..];
        if data.len() > max {
            return Err(Error::FrameTooLarge { limit: max });
        }
        self.partial.extend_from_slice(data);
        Ok(())
    }

    /// Decodes one complete line (without its `\n`).
    fn line(&mut self, line: &[u8], events: &mut dyn Sink) -> Result<(), Error> {
        self.line += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.first() != Some(&b'{') && line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            return Ok(());
        }
        let frame = parse_frame(line).map_err(|reason| Error::MalformedFrame {
            line: self.line,
            reason: reason.into_owned(),
        })?;
        self.apply(frame, events)
    }

    fn unexpected(&self, frame: &Frame<'_>, reason: &str) -> Error {
        Error::UnexpectedFrame {
            line: self.line,
            frame_type: frame.type_name().to_owned(),
            reason: reason.to_owned(),
        }
    }

    /// Applies one frame's rules: union, order, offsets, gaps.
    fn apply(&mut self, frame: Frame<'_>, events: &mut dyn Sink) -> Result<(), Error> {
        match self.terminal {
            Some(Terminal::Exit) => return Err(self.unexpected(&frame, "after exit")),
            Some(Terminal::Gap) => return Err(self.unexpected(&frame, "after gap")),
            None => {}
        }
        let exec_union = matches!(self.endpoint, Endpoint::Exec | Endpoint::Document);
        match frame {
            Frame::Unknown { frame_type } => {
                if self.options.strict {
                    return Err(Error::UnexpectedFrame {
                        line: self.line,
                        frame_type,
                        reason: "is not a frame type of the protocol (strict mode)".into(),
                    });
                }
                events.event(Event::Unknown { frame_type });
                return Ok(());
            }
            Frame::Started { proc_id } => {
                if !exec_union {
                    return Err(Error::UnexpectedFrame {
                        line: self.line,
                        frame_type: "started".into(),
                        reason: format!("does not belong to {} responses", self.endpoint.as_str()),
                    });
                }
                if self.started {
                    return Err(Error::UnexpectedFrame {
                        line: self.line,
                        frame_type: "started".into(),
                        reason: "appeared twice".into(),
                    });
                }
                self.check_identity(&proc_id)?;
                self.started = true;
                self.proc_id = Some(proc_id.clone());
                events.event(Event::Started { proc_id });
                return Ok(());
            }
            _ if exec_union && !self.started => {
                return Err(self.unexpected(&frame, "before started"));
            }
            _ => {}
        }
        match frame {
            Frame::Data {
                stream,
                data,
                offset,
            } => {
                if stream == Stream::Stderr && self.endpoint == Endpoint::SetupLogs {
                    return Err(Error::UnexpectedFrame {
                        line: self.line,
                        frame_type: "stderr".into(),
                        reason: "setup logs merge stderr into stdout".into(),
                    });
                }
                let mut placement = place(&self.cursor, stream, data.len(), offset);
                if let Placement::Hole { from, to } = placement {
                    let mut earliest = self.cursor;
                    earliest.set(stream, to);
                    Gaps::new(self.options.gap_policy).lose(
                        &mut self.cursor,
                        stream,
                        from..to,
                        earliest,
                        events,
                    )?;
                    placement = place(&self.cursor, stream, data.len(), offset);
                }
                if let Placement::Deliver { skip } = placement {
                    // An owned payload (base64, escapes) is handed over, not copied.
                    let bytes = match data {
                        Cow::Owned(v) if skip == 0 => Cow::Owned(v),
                        Cow::Owned(v) => Cow::Owned(v[skip..].to_vec()),
                        Cow::Borrowed(b) => Cow::Borrowed(&b[skip..]),
                    };
                    let start = offset - bytes.len() as u64;
                    self.cursor.set(stream, offset);
                    events.output(stream, bytes, start, offset);
                }
            }
            Frame::Heartbeat => events.event(Event::Heartbeat),
            Frame::Gap {
                stdout,
                stderr,
                combined,
            } => {
                let missing = |name: &str| Error::MalformedFrame {
                    line: self.line,
                    reason: format!("missing member {name:?}"),
                };
                let earliest = if self.endpoint == Endpoint::SetupLogs {
                    Cursor::new(combined.ok_or_else(|| missing("earliest_offset"))?, 0)
                } else {
                    Cursor::new(
                        stdout.ok_or_else(|| missing("earliest_stdout_offset"))?,
                        stderr.ok_or_else(|| missing("earliest_stderr_offset"))?,
                    )
                };
                Gaps::new(self.options.gap_policy).retained_from(
                    &mut self.cursor,
                    earliest,
                    events,
                )?;
                self.terminal = Some(Terminal::Gap);
            }
            Frame::Exit {
                exit_code,
                timed_out,
            } => {
                self.terminal = Some(Terminal::Exit);
                self.exit = Some((exit_code, timed_out));
                events.event(Event::Exit {
                    exit_code,
                    timed_out,
                });
            }
            Frame::Started { .. } | Frame::Unknown { .. } => {}
        }
        Ok(())
    }

    fn finish_document(&mut self, body: &[u8], events: &mut dyn Sink) -> Result<End, Error> {
        let document = parse_document(body).map_err(|reason| Error::MalformedFrame {
            line: 0,
            reason: reason.into_owned(),
        })?;
        let proc_id = match &document {
            Document::Identity(identity) => &identity.proc_id,
            Document::Result(result) => &result.proc_id,
        };
        self.check_identity(proc_id)?;
        self.proc_id = Some(proc_id.clone());
        events.event(match document {
            Document::Identity(identity) => Event::Identity(identity),
            Document::Result(result) => {
                self.exit = Some((result.exit_code, result.timed_out));
                Event::ExecResult(result)
            }
        });
        Ok(End::Document)
    }

    fn finish_error(
        &mut self,
        status: u16,
        json: bool,
        body: &[u8],
        events: &mut dyn Sink,
    ) -> Result<End, Error> {
        let gaps = Gaps::new(self.options.gap_policy);
        gaps.error_answer(status, json, body, self.endpoint, &mut self.cursor, events)?;
        Ok(self.disconnected(DisconnectReason::Gap))
    }
}

fn invalid_state(reason: &str) -> Error {
    Error::InvalidState {
        reason: reason.to_owned(),
    }
}
