//! The follower: a whole read of retained output, across responses, sans IO.
//!
//! A [`Reader`] decodes one response. A [`Follower`] owns the conversation
//! around it: which request to send, what the answer means, when to
//! reconnect, how long to wait first and when to give up. It does no IO and
//! has no clock and no randomness of its own; like a `quinn-proto`
//! connection it answers "what next?" and the caller does it:
//!
//! ```text
//!          request() ──▶ Sent ──open(status, content-type, CE-Process-Id, Retry-After)──▶ Body
//!            ▲            │ no_response(detail, jitter)          feed(bytes)* │ finish(error, jitter)
//!            │            ▼                                                   ▼
//!            └──── Decision::Reconnect (sleep `delay`, call the hook) / Continue ◀─┘
//!                  Decision::Done: exit seen, or the normal end of a finite read
//!   any error ─▶ Failed: every later call returns the same error (sticky)
//! ```
//!
//! The rules, once for every language (`docs/PROTOCOL.md`, "Following"):
//! - A connection that moved the cursor (or announced the process of an
//!   exec stream) resets the budget and is followed at once. `retries`
//!   connections in a row without progress are allowed, the n-th waiting
//!   `min(max_backoff, backoff × 2^(n−1))`, halved and then spread by the
//!   caller's jitter value `j ∈ [0, 1]` when jitter is on (`base/2 + j·base/2`).
//!   One more, and the read fails with [`Error::StreamDisconnected`], carrying
//!   the cursor to resume from.
//! - A response cut before `exit` (clean end of a followed stream, a broken
//!   body, a stall, a `gap` frame or a 409 that was skipped), no response at
//!   all, and a transient refusal (503, 429, before any body; `Retry-After`
//!   honoured, capped by `max_backoff`) are reconnects — for a request that
//!   may be sent again. A start or an exec without an idempotency key is
//!   never sent twice: an exec stream that broke after announcing its
//!   process continues on that process's output, and one that broke before
//!   fails at once.
//! - A connection that was never made (`not_connected`: refused, the name
//!   lookup failed, the connect timed out) is a reconnect for every request,
//!   keyed or not, with the same budget and backoff: the request never left
//!   the machine. A one-answer call that gives up says whether some attempt
//!   may have reached the service ([`Error::NoAnswer`]'s `reached`).
//! - Loss (`output_gap` under the fail policy, `output_expired`), answers
//!   (400, 404, 5xx other than 503) and protocol errors end the read as they
//!   are, never retried; so does a JSON document answering a read of output.
//!   What was decoded before stays in the caller's sink.
//!

use std::time::Duration;

use crate::reader::liveness::Liveness;
use crate::request::{invalid, Command, Request, Wait};
use crate::sink::Sink;
use crate::{
    Cursor, DisconnectReason, End, Endpoint, Error, GapPolicy, Reader, ReaderOptions, ReaderState,
    ResumeState, DEFAULT_LIVENESS_TIMEOUT, DEFAULT_MAX_FRAME_BYTES, RESUME_STATE_VERSION,
};

/// The default reconnect budget: connections in a row without progress.
pub const DEFAULT_RETRIES: u32 = 5;
/// The default first backoff.
pub const DEFAULT_BACKOFF: Duration = Duration::from_millis(250);
/// The default longest backoff (also the cap on `Retry-After`).
pub const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The policy of a [`Follower`]: one set of defaults for every language.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FollowOptions {
    /// Follow until exit (`true`, the default) or read what exists now
    /// (`false`: a clean end of the body is the normal end of the read).
    pub follow: bool,
    /// What to do when output is lost. Default: [`GapPolicy::Fail`].
    pub gap_policy: GapPolicy,
    /// Connections in a row without progress allowed before giving up.
    /// Default: 5.
    pub retries: u32,
    /// The wait before the first reconnect without progress. Default: 250 ms.
    pub backoff: Duration,
    /// The longest wait, and the cap on `Retry-After`. Default: 5 s.
    pub max_backoff: Duration,
    /// Spread each wait over `[base/2, base]` by the caller's jitter value.
    /// Default: true.
    pub jitter: bool,
    /// The longest frame accepted. Default: 16 MiB.
    pub max_frame_bytes: usize,
    /// How long to wait for the headers, and then for each complete frame,
    /// before the connection counts as stalled. Default: 30 s.
    pub liveness_timeout: Duration,
    /// Reject unknown frame types. Default: false.
    pub strict: bool,
}

impl Default for FollowOptions {
    fn default() -> Self {
        FollowOptions {
            follow: true,
            gap_policy: GapPolicy::Fail,
            retries: DEFAULT_RETRIES,
            backoff: DEFAULT_BACKOFF,
            max_backoff: DEFAULT_MAX_BACKOFF,
            jitter: true,
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            liveness_timeout: DEFAULT_LIVENESS_TIMEOUT,
            strict: false,
        }
    }
}

impl FollowOptions {
    /// Sets whether to follow until exit.
    pub fn follow(mut self, follow: bool) -> Self {
        self.follow = follow;
        self
    }
    /// Sets the gap policy.
    pub fn gap_policy(mut self, policy: GapPolicy) -> Self {
        self.gap_policy = policy;
        self
    }
    /// Sets the reconnect budget.
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }
    /// Sets the first backoff.
    pub fn backoff(mut self, backoff: Duration) -> Self {
        self.backoff = backoff;
        self
    }
    /// Sets the longest backoff.
    pub fn max_backoff(mut self, max_backoff: Duration) -> Self {
        self.max_backoff = max_backoff;
        self
    }
    /// Turns jitter on or off.
    pub fn jitter(mut self, jitter: bool) -> Self {
        self.jitter = jitter;
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
    /// Rejects unknown frame types.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Checks what the types cannot: a liveness timeout and a frame limit
    /// above zero, and a first backoff no longer than the longest
    /// (`invalid_argument`, the same messages in every language).
    pub fn check(&self) -> Result<(), Error> {
        if self.liveness_timeout.is_zero() {
            return Err(invalid("liveness_timeout", "must be longer than zero"));
        }
        if self.max_frame_bytes == 0 {
            return Err(invalid("max_frame_bytes", "must be at least 1"));
        }
        if self.backoff > self.max_backoff {
            return Err(invalid(
                "backoff",
                &format!(
                    "the first backoff ({:?}) must not be longer than max_backoff ({:?})",
                    self.backoff, self.max_backoff
                ),
            ));
        }
        Ok(())
    }

    fn reader_options(&self) -> ReaderOptions {
        ReaderOptions::default()
            .gap_policy(self.gap_policy)
            .max_frame_bytes(self.max_frame_bytes)
            .liveness_timeout(self.liveness_timeout)
            .strict(self.strict)
    }
}

/// One reconnect, as the follower decided it: what every client's reconnect
/// hook receives.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reconnect {
    /// 1 for the first reconnect of this read, 2 for the second, …
    pub attempt: u32,
    /// Connections in a row that brought nothing new, this one included
    /// (0 after progress: no wait). Never more than `retries`.
    pub failures: u32,
    /// Why the connection ended.
    pub reason: DisconnectReason,
    /// Where the next request resumes from.
    pub cursor: Cursor,
    /// How long to wait before sending it.
    pub delay: Duration,
    /// The process, once known.
    pub proc_id: Option<String>,
    /// What the transport (or the refusal) said; empty when nothing.
    pub detail: String,
}

impl Reconnect {
    /// The error of this disconnect for a caller that does not reconnect (a
    /// frame iterator reads one response): `stream_disconnected` with the
    /// record's reason, cursor, process and detail — the same message in
    /// every language.
    pub fn to_error(&self) -> Error {
        Error::StreamDisconnected {
            reason: self.reason,
            cursor: self.cursor,
            proc_id: self.proc_id.clone(),
            detail: self.detail.clone(),
        }
    }
}

/// The read is over.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Done {
    /// Whether `exit` was seen (false for the normal end of a finite read).
    pub exited: bool,
    /// The exit code, when it exited with one.
    pub exit_code: Option<i64>,
    /// Whether the process hit its deadline.
    pub timed_out: bool,
    /// The consumed offsets.
    pub cursor: Cursor,
    /// The process, once known (never for setup logs).
    pub proc_id: Option<String>,
}

/// What the follower decided when a response ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// The read is complete.
    Done(Done),
    /// The connection ended early: report the record (the reconnect hook),
    /// wait `delay`, then send [`Follower::request`].
    Reconnect(Reconnect),
    /// The answer moved the read on without a disconnect (an exec answered
    /// by its keyed replay's identity continues on the process's output):
    /// send [`Follower::request`] now.
    Continue,
}

/// Where a follower is in its conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FollowerState {
    /// Ready: [`Follower::request`] gives the next request.
    Ready,
    /// A request was sent; waiting for its status and headers.
    Sent,
    /// A response is open; being fed its body.
    Body,
    /// A [`Decision::Done`] was returned.
    Done,
    /// An error was returned; every later call returns it again.
    Failed,
}

impl FollowerState {
    /// `"ready"`, `"sent"`, `"body"`, `"done"` or `"failed"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FollowerState::Ready => "ready",
            FollowerState::Sent => "sent",
            FollowerState::Body => "body",
            FollowerState::Done => "done",
            FollowerState::Failed => "failed",
        }
    }
}

#[derive(Debug)]
enum Source {
    Output {
        computer_id: String,
        proc_id: String,
    },
    Setup {
        computer_id: String,
    },
    /// An exec stream before its process is known.
    Exec {
        computer_id: String,
        request: Request,
    },
    /// A one-answer call: a start, a get, a kill, a synchronous exec.
    Call {
        request: Request,
    },
}

#[derive(Debug)]
enum Phase {
    Ready,
    /// `clock` bounds the wait for the headers (`None`: unbounded).
    Sent {
        clock: Option<Liveness>,
    },
    /// `clock` bounds each wait for body bytes where the reader's own
    /// liveness clock does not apply (a document, an error answer, a
    /// refusal, the rest of a stream after `exit`); `None`: unbounded.
    Body {
        status: u16,
        body: Body,
        clock: Option<Liveness>,
    },
    Done,
    Failed(Error),
}

#[derive(Debug)]
enum Body {
    Frames(Box<Reader>),
    Refused { retry_after: Option<Duration> },
}

/// A whole read of retained output — process output, setup logs, or an
/// exec stream continued on its process's output — across responses, sans IO.
///
/// The conversation, and the rules it follows (the same in every
/// language, written in `docs/PROTOCOL.md`, "Following a read"):
///
/// ```text
/// request() ─▶ Sent ─open(status, content-type, CE-Process-Id, Retry-After)─▶ Body ─feed(bytes)*─▶ finish(error, jitter)
///                └─no_response(detail, jitter)                                                   │
///   ◀── Decision::Reconnect (report it, sleep its delay) / Decision::Continue ◀───────────────────┘
///       Decision::Done: exit seen, or the normal end of a finite read; any error: Failed (sticky)
/// ```
///
/// - A connection that moved the cursor (or announced an exec's process)
///   resets the budget and is followed at once; `retries` connections in a
///   row without progress are allowed, the n-th after
///   `min(max_backoff, backoff × 2^(n−1))` — with jitter on, `base/2 +
///   j·base/2` for the caller's `j ∈ [0, 1]`. One more is
///   [`Error::StreamDisconnected`].
/// - A cut, a stall, a skipped `gap` or 409, no response, and a 503 or 429
///   (`Retry-After` honoured up to `max_backoff`) are reconnects, for a
///   request that may be sent again: an exec without an idempotency key is
///   never sent twice.
/// - A connection never made ([`not_connected`](Follower::not_connected))
///   is a reconnect for every request, keyed or not (it cannot have taken
///   effect), with the same budget and backoff.
/// - Loss, answers and protocol errors end the read as they are.
///
/// ```
/// use dory_wire::{Decision, FollowOptions, Follower, Stream, Transcript};
///
/// let mut follower = Follower::process_output("c1", "p1", Default::default(), FollowOptions::default())?;
/// let mut transcript = Transcript::new();
/// let bodies: [&[u8]; 2] = [
///     b"{\"type\":\"stdout\",\"data\":\"hel\",\"offset\":3}\n{\"type\":\"std",
///     b"{\"type\":\"stdout\",\"data\":\"hello\",\"offset\":5}\n{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n",
/// ];
/// for body in bodies {
///     let request = follower.request()?; // send it
///     assert!(request.target().ends_with(if body == bodies[0] { "stdout_offset=0&stderr_offset=0&follow=true" } else { "stdout_offset=3&stderr_offset=0&follow=true" }));
///     follower.open(200, "application/x-ndjson", Some("p1"), None)?;
///     follower.feed(body, &mut transcript)?;
///     match follower.finish(None, 0.5, &mut transcript)? {
///         Decision::Reconnect(reconnect) => assert_eq!(reconnect.delay.as_millis(), 0), // progress: at once
///         Decision::Done(done) => assert_eq!(done.exit_code, Some(0)),
///         Decision::Continue => unreachable!(),
///     }
/// }
/// assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"hello");
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug)]
pub struct Follower {
    options: FollowOptions,
    source: Source,
    cursor: Cursor,
    /// The cursor when the last request was sent.
    sent_from: Cursor,
    proc_id: Option<String>,
    exit: Option<(Option<i64>, bool)>,
    attempts: u32,
    failures: u32,
    /// Whether some request sent so far may have reached the service: it
    /// was answered, or ended other than [`DisconnectReason::NotConnected`].
    reached: bool,
    /// The wait clock of [`Follower::waited`]: the time spent waiting for
    /// the service, summed over the read; time between waits never counts.
    clock: Duration,
    phase: Phase,
}

impl Follower {
    /// Follows the output of process `proc_id` of `computer_id` from `cursor`.
    pub fn process_output(
        computer_id: &str,
        proc_id: &str,
        cursor: Cursor,
        options: FollowOptions,
    ) -> Result<Follower, Error> {
        // The builder checks the ids.
        Request::output(computer_id, proc_id, cursor, options.follow)?;
        options.check()?;
        Ok(Follower::new(
            Source::Output {
                computer_id: computer_id.to_owned(),
                proc_id: proc_id.to_owned(),
            },
            cursor,
            Some(proc_id.to_owned()),
            options,
        ))
    }

    /// Follows a process's output from a saved [`ResumeState`] (which must
    /// name its process).
    pub fn resume(
        computer_id: &str,
        state: &ResumeState,
        options: FollowOptions,
    ) -> Result<Follower, Error> {
        let Some(proc_id) = state.proc_id.as_deref() else {
            return Err(invalid("state", "the resume state names no process"));
        };
        let mut follower = Follower::process_output(computer_id, proc_id, state.cursor, options)?;
        if state.exit_seen {
            follower.exit = Some((state.exit_code, state.timed_out));
        }
        Ok(follower)
    }

    /// Follows the setup command's logs of `computer_id` from `offset`.
    pub fn setup_logs(
        computer_id: &str,
        offset: u64,
        options: FollowOptions,
    ) -> Result<Follower, Error> {
        Request::setup_logs(computer_id, offset, options.follow)?;
        options.check()?;
        Ok(Follower::new(
            Source::Setup {
                computer_id: computer_id.to_owned(),
            },
            Cursor::new(offset, 0),
            None,
            options,
        ))
    }

    /// Runs `command` as an exec stream and follows it to its exit: when the
    /// stream breaks after announcing its process, the read continues on
    /// that process's output; the command is never sent twice unless
    /// `idempotency_key` makes that safe (then a keyed replay is followed).
    pub fn exec_stream(
        computer_id: &str,
        command: &Command,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<&str>,
        options: FollowOptions,
    ) -> Result<Follower, Error> {
        let request = Request::exec(computer_id, command, timeout_seconds, idempotency_key, true)?;
        options.check()?;
        Ok(Follower::new(
            Source::Exec {
                computer_id: computer_id.to_owned(),
                request,
            },
            Cursor::default(),
            None,
            options,
        ))
    }

    /// Drives a one-answer call — [`Request::start`], [`Request::get_process`],
    /// [`Request::kill`] or a synchronous [`Request::exec`] — to its answer:
    /// the document is delivered to the sink as one event, and the call
    /// ends with [`Decision::Done`]. A transport failure (no response, a cut
    /// answer, no answer within the liveness timeout) and a 503 or 429 are
    /// sent again, with the read's budget and backoff, only when the request
    /// is idempotent (a get, a kill, a start or exec with an idempotency
    /// key); otherwise, and once the budget is spent, the call fails with
    /// [`Error::NoAnswer`]. A connection never made
    /// ([`not_connected`](Follower::not_connected)) is sent again whatever
    /// the request, within the same budget; `NoAnswer`'s `reached` says
    /// whether some attempt may have reached the service. Errors answered by the service are returned as
    /// they are. A request that reads a frame stream is refused
    /// (`invalid_argument`): follow it with the other constructors.
    pub fn call(request: Request, options: FollowOptions) -> Result<Follower, Error> {
        if request.wait == Wait::Stream {
            return Err(invalid(
                "request",
                "a call is answered by one document; an output stream is read with a follower of its output",
            ));
        }
        options.check()?;
        Ok(Follower::new(
            Source::Call { request },
            Cursor::default(),
            None,
            options,
        ))
    }

    fn new(
        source: Source,
        cursor: Cursor,
        proc_id: Option<String>,
        options: FollowOptions,
    ) -> Follower {
        Follower {
            options,
            source,
            cursor,
            sent_from: cursor,
            proc_id,
            exit: None,
            attempts: 0,
            failures: 0,
            reached: false,
            clock: Duration::ZERO,
            phase: Phase::Ready,
        }
    }

    /// The next request to send. Call when ready: first, and after each
    /// [`Decision::Reconnect`] (once its delay passed) or [`Decision::Continue`].
    pub fn request(&mut self) -> Result<Request, Error> {
        self.guard(|f| {
            if !matches!(f.phase, Phase::Ready) {
                return Err(state_error(f.state(), "request"));
            }
            let request = match &f.source {
                Source::Output {
                    computer_id,
                    proc_id,
                } => Request::output(computer_id, proc_id, f.cursor, f.options.follow)?,
                Source::Setup { computer_id } => {
                    Request::setup_logs(computer_id, f.cursor.stdout, f.options.follow)?
                }
                Source::Exec { request, .. } | Source::Call { request } => request.clone(),
            };
            f.sent_from = f.cursor;
            f.phase = Phase::Sent {
                clock: f
                    .bounded()
                    .then(|| Liveness::new(f.options.liveness_timeout)),
            };
            Ok(request)
        })
    }

    /// The response's status, `Content-Type` (empty when absent),
    /// `CE-Process-Id` and `Retry-After` headers. Call once per request,
    /// before feeding its body.
    pub fn open(
        &mut self,
        status: u16,
        content_type: &str,
        proc_id: Option<&str>,
        retry_after: Option<&str>,
    ) -> Result<(), Error> {
        self.guard(|f| f.open_phase(status, content_type, proc_id, retry_after))
    }

    /// Feeds the next piece of the body, delivering what it completes to
    /// `events` (a `Vec<Event>`, a [`Transcript`](crate::Transcript), any [`Sink`]).
    pub fn feed(&mut self, data: &[u8], events: &mut impl Sink) -> Result<(), Error> {
        self.guard(|f| match &mut f.phase {
            Phase::Body { body, clock, .. } => {
                if let (Some(clock), false) = (clock, data.is_empty()) {
                    clock.frame_arrived();
                }
                match body {
                    Body::Frames(reader) => reader.feed(data, events),
                    Body::Refused { .. } => Ok(()),
                }
            }
            _ => Err(state_error(f.state(), "feed")),
        })
    }

    /// The body ended: cleanly (`transport_error` is `None`) or broken (what
    /// the transport said). `jitter` is the caller's random value in
    /// `[0, 1]` for the delay, if one is needed (ignored with jitter off).
    /// Delivers any last events to `events` and returns the decision.
    pub fn finish(
        &mut self,
        transport_error: Option<&str>,
        jitter: f64,
        events: &mut impl Sink,
    ) -> Result<Decision, Error> {
        self.guard(|f| f.finish_phase(transport_error, jitter, events))
    }

    /// No response came: the request was sent (or may have been) and the
    /// connection was reset or closed, or no headers came within
    /// [`wait_limit`](Follower::wait_limit) (then
    /// [`waited`](Follower::waited) returned true). `detail` is what the
    /// transport said. When the connection was never made, call
    /// [`not_connected`](Follower::not_connected) instead.
    pub fn no_response(&mut self, detail: &str, jitter: f64) -> Result<Decision, Error> {
        self.guard(|f| {
            let Phase::Sent { clock } = &f.phase else {
                return Err(state_error(f.state(), "no_response"));
            };
            f.reached = true;
            let stalled = clock.as_ref().is_some_and(Liveness::stalled);
            let detail = if detail.is_empty() && stalled {
                "no headers within the liveness timeout"
            } else {
                detail
            };
            f.disconnected(DisconnectReason::NoResponse, detail, None, jitter)
        })
    }

    /// The connection was never made: refused, the name lookup failed, the
    /// connect timed out or the host was unreachable. The request never
    /// left the machine, so it is sent again whatever it is (an unkeyed
    /// start or exec too), within the budget and backoff of any reconnect
    /// ([`DisconnectReason::NotConnected`]). `detail` is what the transport
    /// said. Anything after the connection was made (a reset, a TLS
    /// failure, no headers) is [`no_response`](Follower::no_response).
    pub fn not_connected(&mut self, detail: &str, jitter: f64) -> Result<Decision, Error> {
        self.guard(|f| {
            if !matches!(f.phase, Phase::Sent { .. }) {
                return Err(state_error(f.state(), "not_connected"));
            }
            f.disconnected(DisconnectReason::NotConnected, detail, None, jitter)
        })
    }

    /// Whether some request of this conversation may have reached the
    /// service: one is in flight, was answered, or ended other than
    /// not connected.
    pub(crate) fn may_have_reached(&self) -> bool {
        self.reached || matches!(self.phase, Phase::Sent { .. } | Phase::Body { .. })
    }

    /// The deadline, on the follower's wait clock, by which the headers,
    /// then each complete frame (or, for a document, each piece of it),
    /// must arrive; `None` when none applies yet ([`tick`](Follower::tick)
    /// arms it) or the wait is unbounded (the headers of a synchronous exec).
    fn deadline(&self) -> Option<Duration> {
        match &self.phase {
            Phase::Sent { clock: Some(clock) } => clock.deadline(),
            Phase::Body { body, clock, .. } => {
                let stream = match body {
                    Body::Frames(reader) => reader.poll_timeout(),
                    Body::Refused { .. } => None,
                };
                stream.or_else(|| {
                    if self.reader_clock_applies() {
                        None
                    } else {
                        clock.as_ref().and_then(Liveness::deadline)
                    }
                })
            }
            _ => None,
        }
    }

    /// The wait clock reads `now`: arms the clock on the first call after a
    /// request or a response opened, restarts it after a complete frame (a
    /// document: after any bytes); returns true when the wait is over.
    fn tick(&mut self, now: Duration) -> bool {
        let reader_applies = self.reader_clock_applies();
        match &mut self.phase {
            Phase::Sent { clock: Some(clock) } => clock.tick(now),
            Phase::Body { body, clock, .. } => {
                // Both clocks run, so that the fallback is armed when the
                // reader's stops applying (after `exit`).
                let fallback = clock.as_mut().is_some_and(|c| c.tick(now));
                match body {
                    Body::Frames(reader) if reader_applies => reader.handle_timeout(now),
                    _ => fallback,
                }
            }
            _ => false,
        }
    }

    /// The longest the next wait for the service may last: for the
    /// headers, then for more of the body. Wait at most this long (`None`:
    /// no limit), then report how long the wait took with
    /// [`waited`](Follower::waited).
    ///
    /// This is the liveness rule of `docs/PROTOCOL.md` held by the API: the
    /// follower keeps its own clock, advanced only by the waits you report,
    /// so a consumer that takes its time between reads never makes the
    /// service look stalled, and a trickle that never completes a frame
    /// still runs the clock out.
    pub fn wait_limit(&mut self) -> Option<Duration> {
        let now = self.clock;
        self.tick(now);
        self.deadline().map(|at| at.saturating_sub(now))
    }

    /// One wait for the service (for the headers, or for more of the body)
    /// took `elapsed`, whether or not anything came. Returns true when the
    /// liveness timeout is spent: abort the request and call
    /// [`no_response`](Follower::no_response) (no headers yet) or
    /// [`finish`](Follower::finish) with no transport error (a body).
    pub fn waited(&mut self, elapsed: Duration) -> bool {
        let before = self.clock;
        // Arms the clock, or restarts it after a frame, at the wait's start.
        self.tick(before);
        self.clock = before.saturating_add(elapsed);
        let now = self.clock;
        self.tick(now)
    }

    /// The consumed offsets: where the read resumes from.
    pub fn cursor(&self) -> Cursor {
        match &self.phase {
            Phase::Body {
                body: Body::Frames(reader),
                ..
            } => reader.cursor(),
            _ => self.cursor,
        }
    }

    /// The process, once known.
    pub fn proc_id(&self) -> Option<&str> {
        match &self.phase {
            Phase::Body {
                body: Body::Frames(reader),
                ..
            } => reader.proc_id().or(self.proc_id.as_deref()),
            _ => self.proc_id.as_deref(),
        }
    }

    /// The state to save to resume this read later (another process, another
    /// day): its process, cursor and exit.
    pub fn resume_state(&self) -> ResumeState {
        match &self.phase {
            Phase::Body {
                body: Body::Frames(reader),
                ..
            } => reader.resume_state(),
            _ => ResumeState {
                version: RESUME_STATE_VERSION,
                proc_id: self.proc_id.clone(),
                cursor: self.cursor,
                exit_seen: self.exit.is_some(),
                exit_code: self.exit.and_then(|(code, _)| code),
                timed_out: self.exit.is_some_and(|(_, t)| t),
            },
        }
    }

    /// Reconnects decided so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The options this follower was built with.
    pub fn options(&self) -> &FollowOptions {
        &self.options
    }

    /// Where the follower is in its conversation.
    pub fn state(&self) -> FollowerState {
        match self.phase {
            Phase::Ready => FollowerState::Ready,
            Phase::Sent { .. } => FollowerState::Sent,
            Phase::Body { .. } => FollowerState::Body,
            Phase::Done => FollowerState::Done,
            Phase::Failed(_) => FollowerState::Failed,
        }
    }

    /// Runs a fallible method: a failed follower returns its error; an
    /// error from `body` fails it. Errors are sticky by construction.
    fn guard<T>(&mut self, body: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if let Phase::Failed(error) = &self.phase {
            return Err(error.clone());
        }
        let result = body(self);
        if let Err(error) = &result {
            // Keep what the failing response had consumed.
            if let Phase::Body {
                body: Body::Frames(reader),
                ..
            } = &self.phase
            {
                self.cursor = reader.cursor();
                if let Some(id) = reader.proc_id() {
                    self.proc_id = Some(id.to_owned());
                }
            }
            self.phase = Phase::Failed(error.clone());
        }
        result
    }

    fn endpoint(&self) -> Endpoint {
        match self.source {
            Source::Output { .. } => Endpoint::ProcessOutput,
            Source::Setup { .. } => Endpoint::SetupLogs,
            Source::Exec { .. } => Endpoint::Exec,
            Source::Call { .. } => Endpoint::Document,
        }
    }

    /// Whether the request just sent may be sent again.
    fn resendable(&self) -> bool {
        match &self.source {
            Source::Exec { request, .. } | Source::Call { request } => request.idempotent,
            Source::Output { .. } | Source::Setup { .. } => true,
        }
    }

    /// Whether waits are bounded at all: all but a synchronous exec's
    /// (it answers when the process exits).
    fn bounded(&self) -> bool {
        !matches!(&self.source, Source::Call { request } if request.wait == Wait::Unbounded)
    }

    /// Whether the open body is a frame stream whose reader keeps the
    /// liveness clock (until it ends).
    fn reader_clock_applies(&self) -> bool {
        match &self.phase {
            Phase::Body {
                body: Body::Frames(reader),
                ..
            } => reader.liveness_applies(),
            _ => false,
        }
    }

    fn body_clock(&self) -> Option<Liveness> {
        self.bounded()
            .then(|| Liveness::new(self.options.liveness_timeout))
    }

    fn open_phase(
        &mut self,
        status: u16,
        content_type: &str,
        proc_id: Option<&str>,
        retry_after: Option<&str>,
    ) -> Result<(), Error> {
        if !matches!(self.phase, Phase::Sent { .. }) {
            return Err(state_error(self.state(), "open"));
        }
        self.reached = true;
        if matches!(status, 429 | 503) && self.resendable() {
            self.phase = Phase::Body {
                status,
                body: Body::Refused {
                    retry_after: retry_after.and_then(parse_retry_after),
                },
                clock: self.body_clock(),
            };
            return Ok(());
        }
        let media = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let endpoint = self.endpoint();
        if (200..300).contains(&status)
            && media == crate::request::JSON
            && !matches!(endpoint, Endpoint::Exec | Endpoint::Document)
        {
            return Err(Error::UnexpectedFrame {
                line: 0,
                frame_type: "document".to_owned(),
                reason: format!(
                    "a JSON document answered a read of {}, which is a frame stream",
                    endpoint.as_str()
                ),
            });
        }
        if (200..300).contains(&status)
            && media == crate::request::NDJSON
            && endpoint == Endpoint::Document
        {
            return Err(Error::UnexpectedFrame {
                line: 0,
                frame_type: "stream".to_owned(),
                reason: "a frame stream answered a one-answer call, which is answered by one JSON document"
                    .to_owned(),
            });
        }
        let state = ResumeState {
            version: RESUME_STATE_VERSION,
            proc_id: self.proc_id.clone(),
            cursor: self.cursor,
            exit_seen: false,
            exit_code: None,
            timed_out: false,
        };
        let mut reader = Reader::resume(endpoint, &state, self.options.reader_options());
        reader.open(status, content_type, proc_id)?;
        self.phase = Phase::Body {
            status,
            body: Body::Frames(Box::new(reader)),
            clock: self.body_clock(),
        };
        Ok(())
    }

    fn finish_phase(
        &mut self,
        transport_error: Option<&str>,
        jitter: f64,
        events: &mut impl Sink,
    ) -> Result<Decision, Error> {
        let reader_applies = self.reader_clock_applies();
        let Phase::Body {
            status,
            body,
            clock,
        } = std::mem::replace(&mut self.phase, Phase::Ready)
        else {
            let state = self.state();
            return Err(state_error(state, "finish"));
        };
        // A body the fallback clock ran out on is a cut, not a clean end.
        let timed_out = !reader_applies && clock.as_ref().is_some_and(Liveness::stalled);
        let transport_error = match transport_error {
            None if timed_out => Some("no bytes within the liveness timeout"),
            other => other,
        };
        let detail = transport_error.unwrap_or_default();
        let mut reader = match body {
            Body::Refused { retry_after } => {
                let detail = if detail.is_empty() {
                    format!("HTTP {status}")
                } else {
                    format!("HTTP {status}: {detail}")
                };
                return self.disconnected(
                    DisconnectReason::Unavailable,
                    &detail,
                    retry_after,
                    jitter,
                );
            }
            Body::Frames(reader) => reader,
        };
        let ok = (200..300).contains(&status);
        if transport_error.is_some() && !ok && reader.state() != ReaderState::Failed {
            // An error answer cut short: ask again rather than misread it.
            self.learn(&reader);
            return self.disconnected(DisconnectReason::EndOfBody, detail, None, jitter);
        }
        let end = match reader.finish(events) {
            Ok(end) => end,
            Err(_) if transport_error.is_some() => {
                // A JSON document cut short: only the cut is wrong.
                self.learn(&reader);
                return self.disconnected(DisconnectReason::EndOfBody, detail, None, jitter);
            }
            Err(error) => {
                self.learn(&reader);
                return Err(error);
            }
        };
        self.learn(&reader);
        match end {
            End::Exited {
                exit_code,
                timed_out,
            } => {
                self.exit = Some((exit_code, timed_out));
                Ok(self.done(true))
            }
            End::Document if matches!(self.source, Source::Call { .. }) => {
                self.phase = Phase::Done;
                Ok(Decision::Done(Done {
                    exited: false,
                    exit_code: None,
                    timed_out: false,
                    cursor: self.cursor,
                    proc_id: self.proc_id.clone(),
                }))
            }
            End::Document => {
                // Only an exec gets here (a read of output refuses documents
                // at `open`): a keyed replay's identity, or a result. Its
                // output is read exactly from the process's output.
                self.continue_on_process_output();
                if matches!(self.source, Source::Exec { .. }) {
                    return Err(Error::UnexpectedFrame {
                        line: 0,
                        frame_type: "document".to_owned(),
                        reason: "the exec's answer named no process".to_owned(),
                    });
                }
                self.failures = 0;
                Ok(Decision::Continue)
            }
            End::Disconnected { reason, .. } => {
                if reason == DisconnectReason::EndOfBody
                    && transport_error.is_none()
                    && !self.options.follow
                    && !matches!(self.source, Source::Exec { .. })
                {
                    return Ok(self.done(false));
                }
                self.disconnected(reason, detail, None, jitter)
            }
        }
    }

    /// Takes the cursor and process the reader consumed and learnt.
    fn learn(&mut self, reader: &Reader) {
        self.cursor = reader.cursor();
        if let Some(id) = reader.proc_id() {
            self.proc_id = Some(id.to_owned());
        }
    }

    /// An exec stream whose process is known continues on its output.
    fn continue_on_process_output(&mut self) {
        if let (Source::Exec { computer_id, .. }, Some(proc_id)) = (&self.source, &self.proc_id) {
            self.source = Source::Output {
                computer_id: computer_id.clone(),
                proc_id: proc_id.clone(),
            };
        }
    }

    fn done(&mut self, exited: bool) -> Decision {
        self.phase = Phase::Done;
        let (exit_code, timed_out) = self.exit.unwrap_or((None, false));
        Decision::Done(Done {
            exited,
            exit_code: if exited { exit_code } else { None },
            timed_out: exited && timed_out,
            cursor: self.cursor,
            proc_id: self.proc_id.clone(),
        })
    }

    /// A connection ended before the output did: reconnect, or give up.
    fn disconnected(
        &mut self,
        reason: DisconnectReason,
        detail: &str,
        retry_after: Option<Duration>,
        jitter: f64,
    ) -> Result<Decision, Error> {
        if !(0.0..=1.0).contains(&jitter) {
            return Err(invalid(
                "jitter",
                &format!("must be a number in [0, 1], not {jitter}"),
            ));
        }
        let was_exec = matches!(self.source, Source::Exec { .. });
        self.continue_on_process_output();
        let announced = was_exec && !matches!(self.source, Source::Exec { .. });
        let give_up = || Error::StreamDisconnected {
            reason,
            cursor: self.cursor,
            proc_id: self.proc_id.clone(),
            detail: detail.to_owned(),
        };
        // A request that never connected cannot have taken effect: it may
        // be sent again whatever it is.
        let never_sent = reason == DisconnectReason::NotConnected;
        if let Source::Call { request } = &self.source {
            let no_answer = Error::NoAnswer {
                reason,
                method: request.method.as_str().to_owned(),
                target: request.target(),
                attempts: self.attempts + 1,
                detail: detail.to_owned(),
                reached: self.reached,
            };
            if !request.idempotent && !never_sent {
                // A start or exec without a key: sending it again could
                // run the command twice.
                return Err(no_answer);
            }
            self.failures += 1;
            if self.failures > self.options.retries {
                return Err(no_answer);
            }
            let backoff = self.backoff(self.failures, jitter);
            let delay = match retry_after {
                Some(wait) => backoff.max(wait).min(self.options.max_backoff),
                None => backoff,
            };
            self.attempts += 1;
            self.phase = Phase::Ready;
            return Ok(Decision::Reconnect(Reconnect {
                attempt: self.attempts,
                failures: self.failures,
                reason,
                cursor: self.cursor,
                delay,
                proc_id: None,
                detail: detail.to_owned(),
            }));
        }
        if matches!(self.source, Source::Exec { .. }) && !self.resendable() && !never_sent {
            // An exec without a key that broke before naming its process:
            // sending it again could run the command twice.
            return Err(give_up());
        }
        let progressed = announced || self.cursor != self.sent_from;
        let delay = if progressed {
            self.failures = 0;
            Duration::ZERO
        } else {
            self.failures += 1;
            if self.failures > self.options.retries {
                return Err(give_up());
            }
            let backoff = self.backoff(self.failures, jitter);
            match retry_after {
                Some(wait) => backoff.max(wait).min(self.options.max_backoff),
                None => backoff,
            }
        };
        self.attempts += 1;
        self.phase = Phase::Ready;
        Ok(Decision::Reconnect(Reconnect {
            attempt: self.attempts,
            failures: self.failures,
            reason,
            cursor: self.cursor,
            delay,
            proc_id: self.proc_id.clone(),
            detail: detail.to_owned(),
        }))
    }

    /// The wait before the `failures`-th reconnect in a row without progress.
    fn backoff(&self, failures: u32, jitter: f64) -> Duration {
        let max = self.options.max_backoff.as_nanos();
        let doubled = self
            .options
            .backoff
            .as_nanos()
            .saturating_mul(1u128 << failures.saturating_sub(1).min(64));
        let base = doubled.min(max);
        let nanos = if self.options.jitter {
            let half = base / 2;
            // `jitter` is in [0, 1]: the product is at most `half`.
            half + ((half as f64) * jitter) as u128
        } else {
            base
        };
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }
}

/// `Retry-After` as delay-seconds (an HTTP date is not honoured: no clock).
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)))
}

fn state_error(state: FollowerState, call: &str) -> Error {
    let reason = match (call, state) {
        (_, FollowerState::Done) => format!("{call} after the read was done"),
        ("request", _) => format!(
            "request while a request is {}: open, feed and finish it first",
            if state == FollowerState::Sent {
                "sent"
            } else {
                "answered"
            }
        ),
        ("open", FollowerState::Ready) => "open before request".to_owned(),
        ("open", _) => "open was already called for this request".to_owned(),
        (_, FollowerState::Ready) => format!("{call} before request"),
        (_, FollowerState::Sent) => format!("{call} before open"),
        _ => format!("{call} after open: finish the body instead"),
    };
    Error::InvalidState { reason }
}

/// The HTTP statuses an answer may have: `100..=599`, RFC 9110's five
/// classes. Every binding reads a status through [`http_status`].
pub const HTTP_STATUSES: std::ops::RangeInclusive<u16> = 100..=599;

/// `value` as an answer's HTTP status: an integer in [`HTTP_STATUSES`]
/// (a binding passes its number as `f64`, which holds every such integer
/// exactly).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `status` for anything else (a
/// fraction, NaN, an infinity, or out of range), the same text in every
/// language.
pub fn http_status(value: f64) -> Result<u16, Error> {
    let (low, high) = (*HTTP_STATUSES.start(), *HTTP_STATUSES.end());
    if value.fract() == 0.0 && (f64::from(low)..=f64::from(high)).contains(&value) {
        // In range and whole: the cast is exact.
        Ok(value as u16)
    } else {
        Err(invalid(
            "status",
            &format!("must be an HTTP status, an integer from {low} to {high}, not {value}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_http_status_is_a_whole_number_from_100_to_599() {
        assert_eq!(super::http_status(100.0).unwrap(), 100);
        assert_eq!(super::http_status(599.0).unwrap(), 599);
        for bad in [
            99.0,
            600.0,
            999.0,
            200.5,
            -200.0,
            f64::NAN,
            f64::INFINITY,
            1e300,
        ] {
            let err = super::http_status(bad).unwrap_err();
            assert_eq!(err.code(), "invalid_argument", "{bad}");
        }
        let text = super::http_status(600.0).unwrap_err().to_string();
        assert!(text.contains("from 100 to 599, not 600"), "{text}");
    }

    use super::*;
    use crate::{Event, FieldValue, Transcript};

    const NDJSON: &str = "application/x-ndjson";

    #[test]
    fn backoff_doubles_up_to_the_cap_and_jitter_spreads_it() {
        let options = FollowOptions::default().jitter(false);
        let f = Follower::process_output("c", "p", Cursor::default(), options).unwrap();
        let ms = |n, j| f.backoff(n, j).as_secs_f64() * 1000.0;
        assert_eq!(
            [ms(1, 0.0), ms(2, 0.0), ms(3, 0.0), ms(6, 0.0), ms(60, 0.0)],
            [250.0, 500.0, 1000.0, 5000.0, 5000.0]
        );
        let f = Follower::process_output("c", "p", Cursor::default(), FollowOptions::default())
            .unwrap();
        assert_eq!(f.backoff(1, 0.0), Duration::from_micros(125_000));
        assert_eq!(f.backoff(1, 1.0), Duration::from_micros(250_000));
        assert_eq!(f.backoff(2, 0.5), Duration::from_micros(375_000));
    }

    #[test]
    fn options_the_types_cannot_check_are_invalid_arguments() {
        let name = |o: FollowOptions| match Follower::setup_logs("c", 0, o).unwrap_err() {
            Error::InvalidArgument { argument, .. } => argument,
            other => panic!("{other}"),
        };
        let zero_frames = FollowOptions {
            max_frame_bytes: 0,
            ..FollowOptions::default()
        };
        assert_eq!(name(zero_frames), "max_frame_bytes");
        assert_eq!(
            name(FollowOptions::default().liveness_timeout(Duration::ZERO)),
            "liveness_timeout"
        );
        assert_eq!(
            name(FollowOptions::default().backoff(Duration::from_secs(9))),
            "backoff"
        );
    }

    #[test]
    fn out_of_order_calls_are_invalid_state_and_sticky() {
        let mut f = Follower::process_output("c", "p", Cursor::default(), FollowOptions::default())
            .unwrap();
        let err = f.feed(b"x", &mut Vec::new()).unwrap_err();
        assert_eq!(err.code(), "invalid_state");
        assert_eq!(f.state(), FollowerState::Failed);
        assert_eq!(f.request().unwrap_err(), err);
    }

    #[test]
    fn a_finish_before_open_and_a_second_request_are_refused() {
        let mut f = Follower::process_output("c", "p", Cursor::default(), FollowOptions::default())
            .unwrap();
        f.request().unwrap();
        assert!(f
            .request()
            .unwrap_err()
            .to_string()
            .contains("request while"));
    }

    #[test]
    fn the_headers_wait_is_bounded_by_the_liveness_timeout() {
        let options = FollowOptions::default().liveness_timeout(Duration::from_secs(4));
        let mut f = Follower::process_output("c", "p", Cursor::default(), options).unwrap();
        f.request().unwrap();
        assert_eq!(f.wait_limit(), Some(Duration::from_secs(4)));
        assert!(!f.waited(Duration::from_millis(3999)));
        assert_eq!(f.wait_limit(), Some(Duration::from_millis(1)));
        assert!(f.waited(Duration::from_millis(1)));
        match f.no_response("", 0.0).unwrap() {
            Decision::Reconnect(r) => {
                assert_eq!(r.reason, DisconnectReason::NoResponse);
                assert_eq!(r.detail, "no headers within the liveness timeout");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_trickle_that_never_completes_a_frame_stalls() {
        let options = FollowOptions::default().liveness_timeout(Duration::from_secs(3));
        let mut f = Follower::process_output("c", "p", Cursor::default(), options).unwrap();
        f.request().unwrap();
        f.open(200, NDJSON, None, None).unwrap();
        let mut t = Transcript::new();
        let mut stalled_at = None;
        for (i, byte) in b"{\"type\":\"stdout\",\"data\":\"x\",\"offset\":1}"
            .iter()
            .enumerate()
        {
            // Each byte after a wait of 0.5 s: the waits add up.
            if f.waited(Duration::from_millis(500)) {
                stalled_at = Some(Duration::from_millis(500 * (i as u64 + 1)));
                break;
            }
            f.feed(&[*byte], &mut t).unwrap();
        }
        assert_eq!(stalled_at, Some(Duration::from_secs(3)));
        match f.finish(None, 0.0, &mut t).unwrap() {
            Decision::Reconnect(r) => assert_eq!(r.reason, DisconnectReason::Stalled),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_wait_clock_counts_waits_not_the_consumer() {
        // A frame every 0.25 s of waiting, a consumer that takes 1.5 s over
        // each (never reported: it is not a wait), a 1 s liveness timeout.
        let ms = Duration::from_millis;
        let options = FollowOptions::default().liveness_timeout(ms(1000));
        let mut f = Follower::process_output("c", "p", Cursor::default(), options).unwrap();
        f.request().unwrap();
        assert_eq!(f.wait_limit(), Some(ms(1000)), "the headers' wait");
        assert!(!f.waited(ms(100)));
        f.open(200, NDJSON, Some("p"), None).unwrap();
        let mut t = Transcript::new();
        for i in 1..=13u64 {
            assert_eq!(f.wait_limit(), Some(ms(1000)), "frame {i}: a full budget");
            assert!(!f.waited(ms(250)));
            let frame = format!("{{\"type\":\"stdout\",\"data\":\"x\",\"offset\":{i}}}\n");
            f.feed(frame.as_bytes(), &mut t).unwrap();
            // The consumer's 1.5 s: no call at all.
        }
        f.feed(
            b"{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n",
            &mut t,
        )
        .unwrap();
        assert!(matches!(
            f.finish(None, 0.0, &mut t).unwrap(),
            Decision::Done(_)
        ));
        assert_eq!(t.stream(crate::Stream::Stdout).bytes(), &[b'x'; 13][..]);
    }

    #[test]
    fn the_wait_clock_still_stalls_a_trickle_and_a_silent_server() {
        let ms = Duration::from_millis;
        let options = FollowOptions::default().liveness_timeout(ms(1000));
        let mut f = Follower::process_output("c", "p", Cursor::default(), options.clone()).unwrap();
        f.request().unwrap();
        f.open(200, NDJSON, Some("p"), None).unwrap();
        let mut t = Transcript::new();
        let mut waits = 0;
        for byte in b"{\"type\":\"stdout\",\"data\":\"x\",\"offset\":1}" {
            assert!(f.wait_limit().is_some());
            waits += 1;
            if f.waited(ms(300)) {
                break;
            }
            f.feed(&[*byte], &mut t).unwrap();
        }
        assert_eq!(waits, 4, "300 ms waits: the fourth ends the 1 s");
        match f.finish(None, 0.0, &mut t).unwrap() {
            Decision::Reconnect(r) => assert_eq!(r.reason, DisconnectReason::Stalled),
            other => panic!("{other:?}"),
        }
        // No headers: the wait for them runs out the same way.
        f.request().unwrap();
        assert!(!f.waited(ms(999)));
        assert_eq!(f.wait_limit(), Some(ms(1)));
        assert!(f.waited(ms(1)));
        match f.no_response("", 0.0).unwrap() {
            Decision::Reconnect(r) => {
                assert_eq!(r.reason, DisconnectReason::NoResponse);
                assert_eq!(r.detail, "no headers within the liveness timeout");
            }
            other => panic!("{other:?}"),
        }
    }

    fn start(key: Option<&str>) -> Follower {
        let request =
            Request::start("c1", &Command::shell("make"), None, key).expect("a valid start");
        Follower::call(request, FollowOptions::default().jitter(false)).unwrap()
    }

    const IDENTITY: &[u8] =
        br#"{"proc_id":"p1","status":"running","exit_code":null,"timed_out":false}"#;

    #[test]
    fn a_keyed_start_whose_answer_was_lost_is_sent_again() {
        let mut f = start(Some("k1"));
        let first = f.request().unwrap();
        assert_eq!(first.header("Idempotency-Key"), Some("k1"));
        f.open(200, "application/json", None, None).unwrap();
        f.feed(&IDENTITY[..10], &mut Vec::new()).unwrap();
        match f
            .finish(Some("connection closed"), 0.0, &mut Vec::new())
            .unwrap()
        {
            Decision::Reconnect(r) => {
                assert_eq!(
                    (r.attempt, r.failures, r.delay),
                    (1, 1, Duration::from_millis(250))
                );
                assert_eq!(r.reason, DisconnectReason::EndOfBody);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(f.request().unwrap(), first, "the same keyed start");
        f.open(200, "application/json", None, None).unwrap();
        let mut events = Vec::new();
        f.feed(IDENTITY, &mut events).unwrap();
        assert!(matches!(
            f.finish(None, 0.0, &mut events).unwrap(),
            Decision::Done(_)
        ));
        assert!(matches!(&events[..], [Event::Identity(i)] if i.proc_id == "p1"));
        assert_eq!(f.state(), FollowerState::Done);
    }

    #[test]
    fn an_unkeyed_start_is_never_sent_twice() {
        let mut f = start(None);
        f.request().unwrap();
        let err = f.no_response("connection reset", 0.0).unwrap_err();
        assert_eq!(err.code(), "no_answer");
        assert_eq!(
            err.to_string(),
            "no_answer: POST /computers/c1/processes: no response (connection reset); sent once; it may have taken effect"
        );
        assert_eq!(f.request().unwrap_err(), err, "sticky");
        // A 503 is the service's answer, not a refusal to retry.
        let mut f = start(None);
        f.request().unwrap();
        f.open(503, "application/json", None, Some("1")).unwrap();
        f.feed(br#"{"error":"busy","message":"later"}"#, &mut Vec::new())
            .unwrap();
        let err = f.finish(None, 0.0, &mut Vec::new()).unwrap_err();
        assert_eq!(
            (err.code(), err.fields()[0].1),
            ("api_error", FieldValue::U64(503))
        );
    }

    #[test]
    fn an_unkeyed_start_that_never_connected_is_sent_again() {
        let options = FollowOptions::default().jitter(false).retries(2);
        let request = Request::start("c1", &Command::shell("make"), None, None).unwrap();
        let mut f = Follower::call(request.clone(), options.clone()).unwrap();
        let first = f.request().unwrap();
        match f.not_connected("connection refused", 0.0).unwrap() {
            Decision::Reconnect(r) => {
                assert_eq!(r.reason, DisconnectReason::NotConnected);
                assert_eq!((r.attempt, r.failures), (1, 1));
                assert_eq!(r.delay, Duration::from_millis(250));
            }
            other => panic!("{other:?}"),
        }
        assert!(!f.may_have_reached());
        assert_eq!(f.request().unwrap(), first);
        assert!(f.may_have_reached(), "in flight");
        f.open(200, "application/json", None, None).unwrap();
        f.feed(IDENTITY, &mut Vec::new()).unwrap();
        assert!(matches!(
            f.finish(None, 0.0, &mut Vec::new()).unwrap(),
            Decision::Done(_)
        ));
        // Refused until the budget is spent: it never reached the service.
        let mut f = Follower::call(request.clone(), options.clone()).unwrap();
        for _ in 0..2 {
            f.request().unwrap();
            f.not_connected("connection refused", 0.0).unwrap();
        }
        f.request().unwrap();
        let err = f.not_connected("connection refused", 0.0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no_answer: POST /computers/c1/processes: could not connect (connection refused); tried 3 times; it never reached the service"
        );
        assert!(matches!(
            err,
            Error::NoAnswer {
                reached: false,
                attempts: 3,
                ..
            }
        ));
        // Refused, then no response: the second may have taken effect.
        let mut f = Follower::call(request, options).unwrap();
        f.request().unwrap();
        f.not_connected("connection refused", 0.0).unwrap();
        f.request().unwrap();
        let err = f.no_response("connection reset", 0.0).unwrap_err();
        assert!(matches!(
            err,
            Error::NoAnswer {
                reached: true,
                attempts: 2,
                ..
            }
        ));
        assert!(
            err.to_string()
                .ends_with("; sent 2 times; it may have taken effect"),
            "{err}"
        );
    }

    #[test]
    fn a_get_is_sent_again_after_a_refusal_until_the_budget_is_spent() {
        let request = Request::get_process("c1", "p1").unwrap();
        let options = FollowOptions::default().jitter(false).retries(2);
        let mut f = Follower::call(request, options).unwrap();
        f.request().unwrap();
        f.open(503, "application/json", None, Some("2")).unwrap();
        match f.finish(None, 0.0, &mut Vec::new()).unwrap() {
            Decision::Reconnect(r) => {
                assert_eq!(r.reason, DisconnectReason::Unavailable);
                assert_eq!(r.delay, Duration::from_secs(2), "Retry-After");
            }
            other => panic!("{other:?}"),
        }
        f.request().unwrap();
        assert!(matches!(
            f.no_response("reset", 0.0),
            Ok(Decision::Reconnect(_))
        ));
        f.request().unwrap();
        match f.no_response("reset", 0.0).unwrap_err() {
            Error::NoAnswer {
                attempts, target, ..
            } => {
                assert_eq!(
                    (attempts, target.as_str()),
                    (3, "/computers/c1/processes/p1")
                );
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn a_call_bounds_its_wait_except_a_synchronous_exec() {
        let ms = Duration::from_millis;
        let options = FollowOptions::default()
            .liveness_timeout(ms(500))
            .jitter(false);
        let mut f = Follower::call(Request::kill("c1", "p1").unwrap(), options.clone()).unwrap();
        f.request().unwrap();
        f.open(200, "application/json", None, None).unwrap();
        f.feed(&IDENTITY[..5], &mut Vec::new()).unwrap();
        assert!(!f.waited(ms(499)));
        assert!(f.waited(ms(1)), "no more of the answer within the timeout");
        match f.finish(None, 0.0, &mut Vec::new()).unwrap() {
            Decision::Reconnect(r) => {
                assert_eq!(r.detail, "no bytes within the liveness timeout");
            }
            other => panic!("{other:?}"),
        }
        let exec = Request::exec("c1", &Command::shell("sleep 60"), None, None, false).unwrap();
        let mut f = Follower::call(exec, options.clone()).unwrap();
        f.request().unwrap();
        assert_eq!(f.wait_limit(), None);
        assert!(!f.waited(Duration::from_secs(3600)));
        let stream = Request::exec("c1", &Command::shell("ls"), None, None, true).unwrap();
        assert_eq!(
            Follower::call(stream, options).unwrap_err().code(),
            "invalid_argument"
        );
    }

    #[test]
    fn a_redirect_is_not_followed() {
        let mut f = Follower::call(
            Request::get_process("c1", "p1").unwrap(),
            FollowOptions::default(),
        )
        .unwrap();
        f.request().unwrap();
        f.open(302, "text/html", None, None).unwrap();
        f.feed(b"<a href=https://elsewhere/>moved</a>", &mut Vec::new())
            .unwrap();
        let err = f.finish(None, 0.0, &mut Vec::new()).unwrap_err();
        assert_eq!(
            (err.code(), err.fields()[0].1),
            ("api_error", FieldValue::U64(302))
        );
        assert!(
            err.to_string().contains("redirects are not followed"),
            "{err}"
        );
    }

    #[test]
    fn an_error_keeps_what_was_decoded() {
        let mut f = Follower::process_output("c", "p", Cursor::default(), FollowOptions::default())
            .unwrap();
        f.request().unwrap();
        f.open(200, NDJSON, None, None).unwrap();
        let mut events = Vec::new();
        let body = b"{\"type\":\"stdout\",\"data\":\"ab\",\"offset\":2}\n{\"type\":\"gap\",\"earliest_stdout_offset\":9,\"earliest_stderr_offset\":0}\n";
        assert_eq!(f.feed(body, &mut events).unwrap_err().code(), "output_gap");
        assert!(matches!(&events[0], Event::Output { end: 2, .. }));
        assert_eq!(f.cursor(), Cursor::new(2, 0));
    }
}
