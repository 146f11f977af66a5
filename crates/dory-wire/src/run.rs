//! The agent call as one sans-IO machine: [`Run`] decides every request of
//! `run` (the keyed start, the output read from offset 0, and on a cancel
//! with kill the keyed start again and the kill) and turns every answer into
//! [`RunAction`]s for the client — bytes for a view's spill, text for the
//! live output hook, the commits and discards at the end — then renders the
//! [`RunResult`]. A client does the IO: sockets, sleeping, files, calling the
//! caller's hook (`docs/run.md`, "The conversation").

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use crate::error::Error;
use crate::follow::{Decision, FollowOptions, Follower, Reconnect};
use crate::preview::{
    run_spill_id, Keep, Limits, Preview, RunBounder, RunEnd, RunPending, SpillError, SpillOutcome,
    TokenLimit, View, DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES,
};
use crate::request::{Command, Request};
use crate::sink::Sink;
use crate::tokens::Tokenizer;
use crate::transcript::Utf8Decoder;
use crate::types::{Cursor, Event, Stream};

/// The longest a one-answer call of a run (the start, the kill) waits for
/// each piece of its answer, unless [`RunOptions::answer_timeout`] says
/// otherwise: 30 s, every client's answer timeout.
pub const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// What a [`Run`] is given: the previews' limits and options (kept lines,
/// terminal rendering), the start's key and deadline, what a cancel does,
/// how the output is followed, and which of the caller's sinks exist. The
/// names and defaults are those of every client's `run` (`docs/run.md`).
///
/// Unlike a bare [`RunBounder`], a run keeps the lines matching
/// [`Keep::defaults`] and renders its previews as a terminal shows them by
/// default: the previews are for a model to read, while the spill keeps the
/// raw bytes (and the previews' line numbers are those of the raw bytes).
/// Its cut previews always give the tail the budget
/// ([`Split::Tail`](crate::preview::Split::Tail)): a failure is printed near
/// the end of the output.
///
/// ```
/// use dory_wire::preview::Keep;
/// use dory_wire::{FollowOptions, GapPolicy, RunOptions};
///
/// let options = RunOptions::new()
///     .max_bytes(8192)
///     .idempotency_key("tool-call-17")
///     .kill_on_cancel(true)
///     .spill(true)
///     .follow(FollowOptions::default().gap_policy(GapPolicy::Skip));
/// assert_eq!(options.max_lines, 400);
/// assert_eq!(options.keep, Keep::defaults());
/// assert!(options.terminal);
///
/// // The raw text, as a bare bounder gives it.
/// let raw = RunOptions::new().keep(Keep::none()).terminal(false);
/// assert!(raw.keep.is_none() && !raw.terminal);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunOptions {
    /// The most lines of each preview (default [`DEFAULT_RUN_MAX_LINES`], 400).
    pub max_lines: usize,
    /// The most bytes of each preview (default [`DEFAULT_RUN_MAX_BYTES`], 16 KiB).
    pub max_bytes: usize,
    /// The most tokens of each preview, and the tokenizer that counts them
    /// (default: none); see [`Limits::with_max_tokens`] and
    /// [`token_limit`](crate::preview::token_limit). A run needs
    /// `max_tokens ≥` [`MIN_RUN_MAX_BYTES`](crate::preview::MIN_RUN_MAX_BYTES), as it
    /// needs that many bytes.
    pub tokens: Option<TokenLimit>,
    /// The lines of each view's omitted middle to keep (default
    /// [`Keep::defaults`]; [`Keep::none`] keeps none); see
    /// [`RunBounder::with_keep`].
    pub keep: Keep,
    /// Renders each preview as a terminal shows it: a line redrawn with
    /// `\r` shows its last state, escape sequences and control bytes are
    /// removed (default `true`); see [`RunBounder::with_terminal`].
    pub terminal: bool,
    /// The start's key; `None` (the default): a fresh `run-` key made of
    /// the caller's random bytes (see [`Run::new`]).
    pub idempotency_key: Option<String>,
    /// The process's deadline in seconds (default: none).
    pub timeout_seconds: Option<f64>,
    /// The hint after the notice's command in a cut preview (default: none).
    pub hint: Option<String>,
    /// On a cancel, kill the process (default `false`).
    pub kill_on_cancel: bool,
    /// How the output is followed (gap policy, retries, backoff, jitter,
    /// liveness timeout, frame limit); the start and the kill use the same
    /// retries and backoff. `follow` must be true.
    pub follow: FollowOptions,
    /// The longest each wait of the start's and the kill's answer may
    /// last (default [`DEFAULT_ANSWER_TIMEOUT`]).
    pub answer_timeout: Duration,
    /// Whether the caller saves the views' output: with `false` (the
    /// default) no spill action is given and a cut preview names no file.
    pub spill: bool,
    /// Whether the caller has a live output hook: with `false` (the
    /// default) no [`RunAction::Output`] is given.
    pub on_output: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            max_lines: DEFAULT_RUN_MAX_LINES,
            max_bytes: DEFAULT_RUN_MAX_BYTES,
            tokens: None,
            keep: Keep::defaults(),
            terminal: true,
            idempotency_key: None,
            timeout_seconds: None,
            hint: None,
            kill_on_cancel: false,
            follow: FollowOptions::default(),
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
            spill: false,
            on_output: false,
        }
    }
}

impl RunOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The most lines of each preview.
    pub fn max_lines(mut self, max_lines: usize) -> Self {
        self.max_lines = max_lines;
        self
    }
    /// The most bytes of each preview.
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
    /// Each preview encodes to at most `max_tokens` tokens under `tokenizer`.
    pub fn max_tokens(mut self, max_tokens: usize, tokenizer: Tokenizer) -> Self {
        self.tokens = Some(TokenLimit {
            max_tokens,
            tokenizer,
        });
        self
    }
    /// Keeps the lines of each view's omitted middle that match `keep`
    /// ([`Keep::none`]: none).
    pub fn keep(mut self, keep: Keep) -> Self {
        self.keep = keep;
        self
    }
    /// Whether each preview is rendered as a terminal shows it.
    pub fn terminal(mut self, terminal: bool) -> Self {
        self.terminal = terminal;
        self
    }
    /// Starts with this idempotency key.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }
    /// Kills the process after this many seconds.
    pub fn timeout_seconds(mut self, seconds: f64) -> Self {
        self.timeout_seconds = Some(seconds);
        self
    }
    /// The hint after the notice's command.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// Kills the process on a cancel.
    pub fn kill_on_cancel(mut self, kill: bool) -> Self {
        self.kill_on_cancel = kill;
        self
    }
    /// Follows the output with these options.
    pub fn follow(mut self, follow: FollowOptions) -> Self {
        self.follow = follow;
        self
    }
    /// Each wait of a call's answer lasts at most this long.
    pub fn answer_timeout(mut self, timeout: Duration) -> Self {
        self.answer_timeout = timeout;
        self
    }
    /// Whether the caller saves the views' output.
    pub fn spill(mut self, spill: bool) -> Self {
        self.spill = spill;
        self
    }
    /// Whether the caller has a live output hook.
    pub fn on_output(mut self, on_output: bool) -> Self {
        self.on_output = on_output;
        self
    }
}

/// One thing a [`Run`] asks its client to do, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunAction<'a> {
    /// Open the spill file of `view`, saved under `spill_id`: its bytes
    /// follow. Given once per view, just before its first byte.
    OpenSpill {
        /// The view.
        view: View,
        /// The name to save it under (`<run spill id>-<view>`).
        spill_id: &'a str,
    },
    /// Append `data` to the spill file of `view`.
    WriteSpill {
        /// The view.
        view: View,
        /// Its next bytes.
        data: &'a [u8],
    },
    /// Call the live output hook with a chunk: its exact bytes and the text
    /// the stream's streaming UTF-8 decoder gives for them (at the end, or
    /// before a lost range, an incomplete character: empty bytes and
    /// `"\u{FFFD}"`).
    Output {
        /// The stream.
        stream: Stream,
        /// The chunk's bytes.
        data: &'a [u8],
        /// Its text.
        text: &'a str,
    },
    /// Save the spill file of `view` (it was cut: its notice names the
    /// file), then report what saving gave with [`Run::spill_committed`].
    CommitSpill {
        /// The view.
        view: View,
    },
    /// Drop the spill file of `view` (its preview holds every byte, or the
    /// call was cancelled).
    DiscardSpill {
        /// The view.
        view: View,
    },
}

/// Where a [`Run`]'s actions go: any `FnMut(RunAction)`, or a
/// `Vec<RunActionBuf>`.
pub trait RunSink {
    /// Does (or records) `action`.
    fn act(&mut self, action: RunAction<'_>);
}

impl<F: FnMut(RunAction<'_>)> RunSink for F {
    fn act(&mut self, action: RunAction<'_>) {
        self(action)
    }
}

/// A [`RunAction`] that owns its data: what a `Vec` sink records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunActionBuf {
    /// [`RunAction::OpenSpill`].
    OpenSpill {
        /// The view.
        view: View,
        /// The name to save it under.
        spill_id: String,
    },
    /// [`RunAction::WriteSpill`].
    WriteSpill {
        /// The view.
        view: View,
        /// Its next bytes.
        data: Vec<u8>,
    },
    /// [`RunAction::Output`].
    Output {
        /// The stream.
        stream: Stream,
        /// The chunk's bytes.
        data: Vec<u8>,
        /// Its text.
        text: String,
    },
    /// [`RunAction::CommitSpill`].
    CommitSpill {
        /// The view.
        view: View,
    },
    /// [`RunAction::DiscardSpill`].
    DiscardSpill {
        /// The view.
        view: View,
    },
}

impl From<RunAction<'_>> for RunActionBuf {
    fn from(action: RunAction<'_>) -> Self {
        match action {
            RunAction::OpenSpill { view, spill_id } => RunActionBuf::OpenSpill {
                view,
                spill_id: spill_id.to_owned(),
            },
            RunAction::WriteSpill { view, data } => RunActionBuf::WriteSpill {
                view,
                data: data.to_vec(),
            },
            RunAction::Output { stream, data, text } => RunActionBuf::Output {
                stream,
                data: data.to_vec(),
                text: text.to_owned(),
            },
            RunAction::CommitSpill { view } => RunActionBuf::CommitSpill { view },
            RunAction::DiscardSpill { view } => RunActionBuf::DiscardSpill { view },
        }
    }
}

impl RunSink for Vec<RunActionBuf> {
    fn act(&mut self, action: RunAction<'_>) {
        self.push(action.into());
    }
}

/// What a [`Run`] decided when an answer ended (or on a cancel).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStep {
    /// Send [`Run::request`] now.
    Send,
    /// Wait `delay`, then send [`Run::request`]. `reconnect` is the output
    /// read's reconnect record (for the caller's reconnect hook); `None`
    /// when a call (the start, the kill) is sent again.
    Wait {
        /// How long to wait.
        delay: Duration,
        /// The output read's record, when it is the read that reconnects.
        reconnect: Option<Reconnect>,
    },
    /// The output is complete: do the commits given (report each with
    /// [`Run::spill_committed`]), then take [`Run::result`].
    Done,
    /// The run was cancelled: nothing more is sent, and there is no result.
    Cancelled,
}

/// Where a [`Run`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunState {
    /// The keyed start is being sent (or sent again).
    Starting,
    /// The output is being read.
    Following,
    /// Cancelled with kill: the keyed start again (to learn the process)
    /// or the kill is being sent.
    Cancelling,
    /// The output is complete: [`Run::result`] renders the previews.
    Done,
    /// The result was taken.
    Finished,
    /// Cancelled: nothing more to do.
    Cancelled,
    /// An error was returned; every later call returns it again.
    Failed,
}

impl RunState {
    /// `"starting"`, `"following"`, `"cancelling"`, `"done"`, `"finished"`,
    /// `"cancelled"` or `"failed"`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Starting => "starting",
            RunState::Following => "following",
            RunState::Cancelling => "cancelling",
            RunState::Done => "done",
            RunState::Finished => "finished",
            RunState::Cancelled => "cancelled",
            RunState::Failed => "failed",
        }
    }
}

/// What a run returns: the process, its exit, and three bounded previews —
/// `combined` is what to show a model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunResult {
    /// The process.
    pub proc_id: String,
    /// The key it was started with: run again with it to re-attach.
    pub idempotency_key: String,
    /// The exit code; `None` when killed or timed out.
    pub exit_code: Option<i64>,
    /// Whether the process hit its deadline.
    pub timed_out: bool,
    /// Standard output, bounded.
    pub stdout: Preview<'static>,
    /// Standard error, bounded.
    pub stderr: Preview<'static>,
    /// Both, in arrival order, bounded, the end of stderr kept, and a last
    /// line saying how the process ended (`[... exit code 1 ...]`, a notice
    /// of kind [`NoticeKind::End`](crate::preview::NoticeKind::End); see
    /// [`RunBounder::finish_ended`]).
    pub combined: Preview<'static>,
    /// Bytes of stdout lost (skipped under gap policy skip).
    pub stdout_lost_bytes: u64,
    /// Bytes of stderr lost.
    pub stderr_lost_bytes: u64,
}

impl RunResult {
    /// A result of process `proc_id` started with `idempotency_key`, its
    /// three previews given, with no exit code, no timeout and no loss; the
    /// other fields are public (the bindings rebuild their results with it).
    pub fn new(
        proc_id: String,
        idempotency_key: String,
        [stdout, stderr, combined]: [Preview<'static>; 3],
    ) -> Self {
        RunResult {
            proc_id,
            idempotency_key,
            exit_code: None,
            timed_out: false,
            stdout,
            stderr,
            combined,
            stdout_lost_bytes: 0,
            stderr_lost_bytes: 0,
        }
    }

    /// The result as one canonical JSON object, the same bytes in every
    /// language: compact, keys in this order, integers exact, each preview
    /// as [`Preview::to_json`] writes it:
    ///
    /// `{"proc_id", "idempotency_key", "exit_code": integer | null,
    /// "timed_out", "stdout", "stderr", "combined", "stdout_lost_bytes",
    /// "stderr_lost_bytes"}`
    ///
    /// What a tool call can return as it is (`docs/run.md`); the JSON Schema
    /// is `docs/schema/run-result.schema.json`.
    pub fn to_json(&self) -> String {
        use std::fmt::Write as _;
        let previews = [&self.stdout, &self.stderr, &self.combined];
        let size: usize = previews.iter().map(|p| p.text.len() + 512).sum();
        let mut out = String::with_capacity(size + 256);
        out.push_str("{\"proc_id\":");
        crate::preview::push_json_str(&mut out, &self.proc_id);
        out.push_str(",\"idempotency_key\":");
        crate::preview::push_json_str(&mut out, &self.idempotency_key);
        // Writing to a `String` cannot fail.
        match self.exit_code {
            Some(code) => {
                let _ = write!(out, ",\"exit_code\":{code}");
            }
            None => out.push_str(",\"exit_code\":null"),
        }
        out.push_str(if self.timed_out {
            ",\"timed_out\":true"
        } else {
            ",\"timed_out\":false"
        });
        for (key, preview) in ["stdout", "stderr", "combined"].iter().zip(previews) {
            let _ = write!(out, ",\"{key}\":");
            preview.write_json(&mut out);
        }
        let _ = write!(
            out,
            ",\"stdout_lost_bytes\":{},\"stderr_lost_bytes\":{}}}",
            self.stdout_lost_bytes, self.stderr_lost_bytes
        );
        out
    }
}

/// One view's spill file, as the run knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum File {
    /// Not opened (no byte yet, or no spill).
    Closed,
    Open,
    /// The writer failed: the reason, in the core's words.
    Failed(String),
    /// A commit was asked for; its outcome not reported yet.
    Committing,
    /// What saving (or not saving) gave.
    Ended(SpillOutcome),
}

/// Everything a run's output goes through while it streams.
#[derive(Debug)]
struct Views {
    bounder: RunBounder,
    ids: [String; 3],
    files: [File; 3],
    decoders: [Utf8Decoder; 2],
    text: String,
    spill: bool,
    on_output: bool,
    exit: Option<(Option<i64>, bool)>,
}

impl Views {
    fn write<S: RunSink + ?Sized>(&mut self, view: View, data: &[u8], sink: &mut S) {
        if !self.spill || data.is_empty() {
            return;
        }
        let i = view as usize;
        if matches!(self.files[i], File::Closed) {
            self.files[i] = File::Open;
            sink.act(RunAction::OpenSpill {
                view,
                spill_id: &self.ids[i],
            });
        }
        if matches!(self.files[i], File::Open) {
            sink.act(RunAction::WriteSpill { view, data });
        }
    }

    #[inline]
    fn output<S: RunSink + ?Sized>(&mut self, stream: Stream, data: &[u8], sink: &mut S) {
        self.bounder.push(stream, data);
        self.write(View::from(stream), data, sink);
        self.write(View::Combined, data, sink);
        if self.on_output {
            self.text.clear();
            self.decoders[stream as usize].push(data, &mut self.text);
            sink.act(RunAction::Output {
                stream,
                data,
                text: &self.text,
            });
        }
    }

    /// A stream's text ends: an incomplete character, to the hook.
    fn flush<S: RunSink + ?Sized>(&mut self, stream: Stream, sink: &mut S) {
        if !self.on_output {
            return;
        }
        self.text.clear();
        self.decoders[stream as usize].finish(&mut self.text);
        if !self.text.is_empty() {
            sink.act(RunAction::Output {
                stream,
                data: &[],
                text: &self.text,
            });
        }
    }

    /// Drops every open file (a cancel).
    fn discard(&mut self, sink: &mut dyn RunSink) {
        for view in View::ALL {
            let file = &mut self.files[view as usize];
            if matches!(file, File::Open | File::Committing) {
                *file = File::Ended(SpillOutcome::NotSaved);
                sink.act(RunAction::DiscardSpill { view });
            }
        }
    }
}

/// The follower's events, routed to the views.
struct Route<'a, S: ?Sized> {
    views: &'a mut Views,
    sink: &'a mut S,
}

impl<S: RunSink + ?Sized> Sink for Route<'_, S> {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, _start: u64, _end: u64) {
        self.views.output(stream, &data, self.sink);
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Skipped { stream, start, end } => {
                // Bytes after a gap do not complete a character before it.
                self.views.flush(stream, self.sink);
                self.views.bounder.lose(stream, start, end);
            }
            Event::Exit {
                exit_code,
                timed_out,
                ..
            } => self.views.exit = Some((exit_code, timed_out)),
            _ => {}
        }
    }
}

/// Where the conversation is.
#[derive(Debug)]
enum Phase {
    /// The keyed start, as a one-answer call.
    Starting(Follower),
    /// The output, from offset 0 to the exit.
    Following(Follower),
    /// The output is complete; the commits' outcomes come in.
    Done(Box<RunPending>),
    Finished,
    /// Cancelled with kill, the process not known yet: the keyed start
    /// again (a replay) says which it is.
    Learning(Follower),
    /// Cancelled with kill: the kill.
    Killing(Follower),
    Cancelled,
    Failed(Error),
}

/// The agent call's whole conversation, with no IO of its own (in the
/// manner of h11): it says which request comes next, what each answer
/// means, and what the client does with the output.
///
/// 1. [`request`](Run::request) gives the keyed start (never the truncating
///    synchronous exec). A start whose answer was lost is sent again with
///    its key within the follow options' retries and backoff (the service
///    replays it: nothing starts twice).
/// 2. Then the process's output from offset 0, through the core's
///    [`Follower`]: reconnects, gaps under the gap policy, the liveness
///    clock. Each new chunk becomes, once and in order, bytes for the spill
///    of its stream's view and of the combined view (each opened just
///    before its first byte) and text for the live output hook.
/// 3. At the exit: [`RunAction::CommitSpill`] for each cut view with an
///    open file, [`RunAction::DiscardSpill`] for the others, and
///    [`RunStep::Done`]; after the commits are reported,
///    [`result`](Run::result) renders the previews, the combined one ending
///    with a line saying how the process ended (its exit code, or that it
///    timed out or was killed: [`RunBounder::finish_ended`]).
/// 4. [`cancel`](Run::cancel) at any point discards the open files; with
///    `kill_on_cancel` it then asks for the kill (first the keyed start
///    again when the start was sent, may have reached the service and was
///    not answered, to learn the process). A failed kill is not reported:
///    the run ends cancelled.
///
/// Drive it as a [`Follower`]: `request`, then `open`, `feed`, `finish`
/// (or `no_response`, or `not_connected` when the connection was never
/// made), waiting with [`wait_limit`](Run::wait_limit) and
/// [`waited`](Run::waited). Errors are sticky.
///
/// ```
/// use dory_wire::{Command, Run, RunActionBuf, RunOptions, RunStep};
///
/// let options = RunOptions::new().idempotency_key("k");
/// let mut run = Run::new("c1", &Command::shell("make"), options, [0; 16])?;
/// let start = run.request()?;
/// assert_eq!(start.target(), "/computers/c1/processes");
/// let mut actions: Vec<RunActionBuf> = Vec::new();
/// run.open(200, "application/json", None, None)?;
/// run.feed(br#"{"proc_id":"p1","status":"running"}"#, &mut actions)?;
/// assert_eq!(run.finish(None, 0.0, &mut actions)?, RunStep::Send);
/// let read = run.request()?;
/// assert!(read.target().starts_with("/computers/c1/processes/p1/output?stdout_offset=0"));
/// run.open(200, "application/x-ndjson", Some("p1"), None)?;
/// run.feed(b"{\"type\":\"stdout\",\"data\":\"hi\\n\",\"offset\":3}\n", &mut actions)?;
/// run.feed(b"{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n", &mut actions)?;
/// assert_eq!(run.finish(None, 0.0, &mut actions)?, RunStep::Done);
/// let result = run.result()?;
/// assert_eq!(result.exit_code, Some(0));
/// assert_eq!(result.combined.text, "hi\n[... exit code 0 ...]\n");
/// assert_eq!(result.stdout.text, "hi\n");
/// # Ok::<(), dory_wire::Error>(())
/// ```
pub struct Run {
    computer_id: String,
    key: String,
    start: Request,
    hint: Option<String>,
    /// The start's deadline, named by a timed-out run's end line.
    timeout_seconds: Option<f64>,
    kill_on_cancel: bool,
    follow: FollowOptions,
    calls: FollowOptions,
    start_sent: bool,
    proc_id: Option<String>,
    views: Views,
    phase: Phase,
}

impl fmt::Debug for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run")
            .field("computer_id", &self.computer_id)
            .field("idempotency_key", &self.key)
            .field("proc_id", &self.proc_id)
            .field("state", &self.state())
            .finish_non_exhaustive()
    }
}

/// The fresh key made of `random`: `run-` and 32 hex digits.
pub fn fresh_run_key(random: [u8; 16]) -> String {
    let mut key = String::with_capacity(36);
    key.push_str("run-");
    for b in random {
        key.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        key.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    key
}

fn invalid(argument: &str, reason: &str) -> Error {
    Error::InvalidArgument {
        argument: argument.to_owned(),
        reason: reason.to_owned(),
    }
}

/// The process of a call's answer (its identity document: the core's rule,
/// [`crate::identity_answer`]).
fn identity_of(events: &[Event]) -> Result<String, Error> {
    crate::identity_answer(events).map(|identity| identity.proc_id.clone())
}

impl Run {
    /// A run of `command` on `computer_id`, checked whole before any
    /// request: the limits ([`RunBounder::check_limits`]), the command, the
    /// key and the timeout ([`Request::start`]), the follow options
    /// ([`FollowOptions::check`]; `follow` must be true) and the answer
    /// timeout. `random` makes the fresh key when
    /// [`RunOptions::idempotency_key`] is `None` (draw it from the
    /// platform's secure random source; see [`fresh_run_key`]).
    ///
    /// # Errors
    /// `invalid_limits`, `invalid_argument`.
    pub fn new(
        computer_id: &str,
        command: &Command,
        options: RunOptions,
        random: [u8; 16],
    ) -> Result<Run, Error> {
        RunBounder::check_limits(options.max_lines, options.max_bytes)?;
        RunBounder::check_tokens(options.tokens)?;
        options.follow.check()?;
        if !options.follow.follow {
            return Err(invalid(
                "options",
                "run follows the output to the exit: the follow option must be true",
            ));
        }
        if options.answer_timeout.is_zero() {
            return Err(invalid(
                "answer_timeout",
                "must be positive: each wait of the start's answer needs time",
            ));
        }
        let key = match options.idempotency_key {
            Some(key) => key,
            None => fresh_run_key(random),
        };
        let start = Request::start(computer_id, command, options.timeout_seconds, Some(&key))?;
        let calls = options
            .follow
            .clone()
            .liveness_timeout(options.answer_timeout);
        calls.check()?;
        // A failure is printed near the end: run's previews give the tail
        // the budget (docs/preview.md, "The split").
        let limits =
            Limits::new(options.max_lines, options.max_bytes).with_token_limit(options.tokens);
        let bounder = RunBounder::with_limits(limits)
            .with_split(crate::preview::Split::Tail)
            .with_keep(options.keep)
            .with_terminal(options.terminal)
            .with_spill_id(&run_spill_id(&key));
        let ids = View::ALL.map(|v| bounder.spill_id(v).unwrap_or_default().to_owned());
        let first = Follower::call(start.clone(), calls.clone())?;
        Ok(Run {
            computer_id: computer_id.to_owned(),
            key,
            start,
            hint: options.hint,
            timeout_seconds: options.timeout_seconds,
            kill_on_cancel: options.kill_on_cancel,
            follow: options.follow,
            calls,
            start_sent: false,
            proc_id: None,
            views: Views {
                bounder,
                ids,
                files: [File::Closed, File::Closed, File::Closed],
                decoders: [Utf8Decoder::new(), Utf8Decoder::new()],
                text: String::new(),
                spill: options.spill,
                on_output: options.on_output,
                exit: None,
            },
            phase: Phase::Starting(first),
        })
    }

    /// The key the start is sent with (the caller's, or the fresh one).
    pub fn idempotency_key(&self) -> &str {
        &self.key
    }

    /// The process, once the start answered.
    pub fn proc_id(&self) -> Option<&str> {
        self.proc_id.as_deref()
    }

    /// The name `view`'s spill is saved under (`<run spill id>-<view>`).
    pub fn spill_id(&self, view: View) -> &str {
        &self.views.ids[view as usize]
    }

    /// The offsets of the output consumed so far.
    pub fn cursor(&self) -> Cursor {
        match &self.phase {
            Phase::Following(f) => f.cursor(),
            _ => Cursor::default(),
        }
    }

    /// Where the run is.
    pub fn state(&self) -> RunState {
        match &self.phase {
            Phase::Starting(_) => RunState::Starting,
            Phase::Following(_) => RunState::Following,
            Phase::Done(_) => RunState::Done,
            Phase::Finished => RunState::Finished,
            Phase::Learning(_) | Phase::Killing(_) => RunState::Cancelling,
            Phase::Cancelled => RunState::Cancelled,
            Phase::Failed(_) => RunState::Failed,
        }
    }

    fn follower(&mut self) -> Option<&mut Follower> {
        match &mut self.phase {
            Phase::Starting(f) | Phase::Following(f) | Phase::Learning(f) | Phase::Killing(f) => {
                Some(f)
            }
            _ => None,
        }
    }

    fn cancelling(&self) -> bool {
        matches!(self.phase, Phase::Learning(_) | Phase::Killing(_))
    }

    fn state_error(&self, call: &str) -> Error {
        match &self.phase {
            Phase::Failed(e) => e.clone(),
            _ => Error::InvalidState {
                reason: format!("{call} called on a run that is {}", self.state().as_str()),
            },
        }
    }

    /// Keeps an error of the run (sticky); an error while cancelling ends
    /// the run cancelled instead (a failed kill is not reported).
    fn failed<T>(&mut self, error: Error, cancelled: T) -> Result<T, Error> {
        if self.cancelling() {
            self.phase = Phase::Cancelled;
            Ok(cancelled)
        } else {
            self.phase = Phase::Failed(error.clone());
            Err(error)
        }
    }

    /// The next request to send: first, and after [`RunStep::Send`] or
    /// [`RunStep::Wait`] (once its delay passed).
    ///
    /// # Errors
    /// The sticky error; `invalid_state` when nothing is to be sent.
    pub fn request(&mut self) -> Result<Request, Error> {
        let starting = matches!(self.phase, Phase::Starting(_));
        let Some(follower) = self.follower() else {
            return Err(self.state_error("request"));
        };
        match follower.request() {
            Ok(request) => {
                if starting {
                    self.start_sent = true;
                }
                Ok(request)
            }
            Err(e) => {
                self.failed(e.clone(), ())?;
                Err(e)
            }
        }
    }

    /// The response's status, `Content-Type`, `CE-Process-Id` and
    /// `Retry-After` headers (as [`Follower::open`]).
    ///
    /// # Errors
    /// What the answer means when it is an error (`api_error`, …); sticky.
    pub fn open(
        &mut self,
        status: u16,
        content_type: &str,
        proc_id: Option<&str>,
        retry_after: Option<&str>,
    ) -> Result<(), Error> {
        let Some(follower) = self.follower() else {
            return self.ignored("open");
        };
        match follower.open(status, content_type, proc_id, retry_after) {
            Ok(()) => Ok(()),
            Err(e) => self.failed(e, ()),
        }
    }

    /// After a cancel has ended the run, what a late call of the
    /// conversation gets: nothing to do.
    fn ignored(&self, call: &str) -> Result<(), Error> {
        if matches!(self.phase, Phase::Cancelled) {
            Ok(())
        } else {
            Err(self.state_error(call))
        }
    }

    /// Feeds the next piece of the body; the actions it brings go to `sink`.
    ///
    /// # Errors
    /// The read's errors (`output_gap` under gap policy fail, protocol
    /// errors, …); sticky.
    pub fn feed(&mut self, data: &[u8], sink: &mut impl RunSink) -> Result<(), Error> {
        let fed = match &mut self.phase {
            Phase::Following(follower) => follower.feed(
                data,
                &mut Route {
                    views: &mut self.views,
                    sink,
                },
            ),
            Phase::Starting(follower) | Phase::Learning(follower) | Phase::Killing(follower) => {
                follower.feed(data, &mut Vec::<Event>::new())
            }
            _ => return self.ignored("feed"),
        };
        match fed {
            Ok(()) => Ok(()),
            Err(e) => self.failed(e, ()),
        }
    }

    /// The body ended: cleanly (`transport_error` `None`) or broken (what
    /// the transport said); `jitter` is the caller's random value in
    /// `[0, 1]` for a delay. Returns what comes next.
    ///
    /// # Errors
    /// The read's and the start's errors (`stream_disconnected` once the
    /// budget is spent, `no_answer`, …); sticky.
    pub fn finish(
        &mut self,
        transport_error: Option<&str>,
        jitter: f64,
        sink: &mut impl RunSink,
    ) -> Result<RunStep, Error> {
        let mut events: Vec<Event> = Vec::new();
        let decided = match &mut self.phase {
            Phase::Following(follower) => follower.finish(
                transport_error,
                jitter,
                &mut Route {
                    views: &mut self.views,
                    sink,
                },
            ),
            Phase::Starting(follower) | Phase::Learning(follower) | Phase::Killing(follower) => {
                follower.finish(transport_error, jitter, &mut events)
            }
            _ => return self.ignored("finish").map(|()| RunStep::Cancelled),
        };
        match decided {
            Ok(decision) => self.decided(decision, &events, sink),
            Err(e) => self.failed(e, RunStep::Cancelled),
        }
    }

    /// No response came (refused, reset, or no headers within
    /// [`wait_limit`](Run::wait_limit)); `detail` is what the transport said.
    ///
    /// # Errors
    /// As [`finish`](Run::finish).
    pub fn no_response(&mut self, detail: &str, jitter: f64) -> Result<RunStep, Error> {
        let Some(follower) = self.follower() else {
            return self.ignored("no_response").map(|()| RunStep::Cancelled);
        };
        match follower.no_response(detail, jitter) {
            Ok(decision) => self.decided(decision, &[], &mut |_: RunAction<'_>| {}),
            Err(e) => self.failed(e, RunStep::Cancelled),
        }
    }

    /// The connection was never made (refused, the name lookup failed, the
    /// connect timed out); `detail` is what the transport said. The request
    /// cannot have taken effect: it is sent again within the follow
    /// options' budget (as [`Follower::not_connected`]), and a start that
    /// never reached the service is not sent again to learn its process on
    /// [`cancel`](Run::cancel).
    ///
    /// # Errors
    /// As [`finish`](Run::finish).
    pub fn not_connected(&mut self, detail: &str, jitter: f64) -> Result<RunStep, Error> {
        let Some(follower) = self.follower() else {
            return self.ignored("not_connected").map(|()| RunStep::Cancelled);
        };
        match follower.not_connected(detail, jitter) {
            Ok(decision) => self.decided(decision, &[], &mut |_: RunAction<'_>| {}),
            Err(e) => self.failed(e, RunStep::Cancelled),
        }
    }

    /// The longest the next wait for the service may last (`None`: no
    /// limit): the liveness rule of `docs/PROTOCOL.md`, as
    /// [`Follower::wait_limit`].
    pub fn wait_limit(&mut self) -> Option<Duration> {
        self.follower().and_then(Follower::wait_limit)
    }

    /// One wait for the service took `elapsed`; true when the liveness
    /// timeout is spent (as [`Follower::waited`]).
    pub fn waited(&mut self, elapsed: Duration) -> bool {
        self.follower().is_some_and(|f| f.waited(elapsed))
    }

    fn decided(
        &mut self,
        decision: Decision,
        events: &[Event],
        sink: &mut dyn RunSink,
    ) -> Result<RunStep, Error> {
        let step = match decision {
            Decision::Reconnect(record) => {
                let following = matches!(self.phase, Phase::Following(_));
                return Ok(RunStep::Wait {
                    delay: record.delay,
                    reconnect: following.then_some(record),
                });
            }
            Decision::Continue => return Ok(RunStep::Send),
            Decision::Done(done) => done,
        };
        let phase = std::mem::replace(&mut self.phase, Phase::Cancelled);
        match phase {
            Phase::Starting(_) => {
                let next = identity_of(events).and_then(|proc_id| {
                    let follower = Follower::process_output(
                        &self.computer_id,
                        &proc_id,
                        Cursor::default(),
                        self.follow.clone(),
                    )?;
                    self.proc_id = Some(proc_id);
                    Ok(follower)
                });
                match next {
                    Ok(follower) => {
                        self.phase = Phase::Following(follower);
                        Ok(RunStep::Send)
                    }
                    Err(e) => self.failed(e, RunStep::Cancelled),
                }
            }
            Phase::Following(_) => {
                if !step.exited || self.views.exit.is_none() {
                    let reason = format!(
                        "the output of {} ended without its exit",
                        self.proc_id.as_deref().unwrap_or("the process")
                    );
                    return self.failed(Error::InvalidState { reason }, RunStep::Cancelled);
                }
                self.done(sink)
            }
            Phase::Learning(_) => match identity_of(events) {
                Ok(proc_id) => self.kill(proc_id),
                Err(_) => Ok(RunStep::Cancelled),
            },
            // The kill answered (or the cancel's conversation ended).
            _ => Ok(RunStep::Cancelled),
        }
    }

    /// The output is complete: the last text, then each view's commit or
    /// discard.
    fn done(&mut self, sink: &mut dyn RunSink) -> Result<RunStep, Error> {
        self.views.flush(Stream::Stdout, sink);
        self.views.flush(Stream::Stderr, sink);
        let bounder = std::mem::replace(&mut self.views.bounder, RunBounder::new(0, 0));
        let (exit_code, timed_out) = self.views.exit.unwrap_or((None, false));
        let end = RunEnd::new(exit_code, timed_out).timeout_seconds(self.timeout_seconds);
        let pending = match bounder.finish_ended(&end) {
            Ok(pending) => pending,
            Err(e) => {
                self.views.discard(sink);
                return self.failed(e, RunStep::Cancelled);
            }
        };
        for view in View::ALL {
            let file = &mut self.views.files[view as usize];
            match file {
                File::Open if pending.needs_spill(view) => {
                    *file = File::Committing;
                    sink.act(RunAction::CommitSpill { view });
                }
                File::Open => {
                    *file = File::Ended(SpillOutcome::NotSaved);
                    sink.act(RunAction::DiscardSpill { view });
                }
                _ => {}
            }
        }
        self.phase = Phase::Done(Box::new(pending));
        Ok(RunStep::Done)
    }

    fn kill(&mut self, proc_id: String) -> Result<RunStep, Error> {
        let killing = Request::kill(&self.computer_id, &proc_id)
            .and_then(|request| Follower::call(request, self.calls.clone()));
        self.proc_id = Some(proc_id);
        Ok(match killing {
            Ok(follower) => {
                self.phase = Phase::Killing(follower);
                RunStep::Send
            }
            Err(_) => {
                self.phase = Phase::Cancelled;
                RunStep::Cancelled
            }
        })
    }

    /// The caller cancelled the run: the open spill files are discarded
    /// (actions to `sink`); with `kill_on_cancel`, [`RunStep::Send`] asks
    /// for the kill's conversation (first the keyed start again when the
    /// start was sent, may have reached the service and was not answered); else [`RunStep::Cancelled`]. A run
    /// that already failed, was done or cancelled stays as it is and kills
    /// nothing; a second cancel while killing gives up the kill.
    pub fn cancel(&mut self, sink: &mut impl RunSink) -> RunStep {
        let phase = std::mem::replace(&mut self.phase, Phase::Cancelled);
        match phase {
            Phase::Starting(follower) => {
                // A start that never reached the service started nothing:
                // sending it again to learn its process would start it.
                if self.kill_on_cancel && self.start_sent && follower.may_have_reached() {
                    if let Ok(follower) = Follower::call(self.start.clone(), self.calls.clone()) {
                        self.phase = Phase::Learning(follower);
                        return RunStep::Send;
                    }
                }
                RunStep::Cancelled
            }
            Phase::Following(_) => {
                self.views.discard(sink);
                match (&self.proc_id, self.kill_on_cancel) {
                    (Some(proc_id), true) => {
                        let proc_id = proc_id.clone();
                        self.kill(proc_id).unwrap_or(RunStep::Cancelled)
                    }
                    _ => RunStep::Cancelled,
                }
            }
            Phase::Done(_) => {
                self.views.discard(sink);
                RunStep::Cancelled
            }
            Phase::Failed(e) => {
                self.phase = Phase::Failed(e);
                RunStep::Cancelled
            }
            Phase::Finished => {
                self.phase = Phase::Finished;
                RunStep::Cancelled
            }
            Phase::Learning(_) | Phase::Killing(_) | Phase::Cancelled => RunStep::Cancelled,
        }
    }

    /// `view`'s spill writer failed (opening or writing): nothing more is
    /// written to it (drop its file), and its preview says `error`.
    pub fn spill_failed(&mut self, view: View, error: SpillError) {
        let file = &mut self.views.files[view as usize];
        if matches!(file, File::Closed | File::Open) {
            *file = File::Failed(error.to_string());
        } else if *file == File::Committing {
            *file = File::Ended(error.into());
        }
    }

    /// What a [`RunAction::CommitSpill`] gave: the saved path
    /// ([`SpillOutcome::Saved`]) or why not.
    pub fn spill_committed(&mut self, view: View, outcome: SpillOutcome) {
        let file = &mut self.views.files[view as usize];
        if *file == File::Committing {
            *file = File::Ended(outcome);
        }
    }

    /// The result, once [`RunStep::Done`] was given and the commits were
    /// reported (a commit not reported names no file). Taken once.
    ///
    /// # Errors
    /// `invalid_state` before the output is complete or after the result
    /// was taken; the sticky error.
    pub fn result(&mut self) -> Result<RunResult, Error> {
        if !matches!(self.phase, Phase::Done(_)) {
            return Err(self.state_error("result"));
        }
        let Phase::Done(pending) = std::mem::replace(&mut self.phase, Phase::Finished) else {
            return Err(self.state_error("result"));
        };
        let hint = self.hint.as_deref();
        let files = &mut self.views.files;
        let [stdout, stderr, combined] = View::ALL.map(|view| {
            let outcome = match std::mem::replace(&mut files[view as usize], File::Closed) {
                File::Failed(reason) => SpillOutcome::Failed { reason },
                File::Ended(outcome) => outcome,
                File::Closed | File::Open | File::Committing => SpillOutcome::NotSaved,
            };
            pending.render(view, outcome, hint)
        });
        let (exit_code, timed_out) = self.views.exit.unwrap_or((None, false));
        Ok(RunResult {
            proc_id: self.proc_id.clone().unwrap_or_default(),
            idempotency_key: self.key.clone(),
            exit_code,
            timed_out,
            stdout,
            stderr,
            combined,
            stdout_lost_bytes: pending.lost(View::Stdout).0,
            stderr_lost_bytes: pending.lost(View::Stderr).0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(options: RunOptions) -> (Run, Vec<RunActionBuf>) {
        let mut run = Run::new(
            "c1",
            &Command::shell("make"),
            options.idempotency_key("k"),
            [0; 16],
        )
        .unwrap();
        let mut actions = Vec::new();
        run.request().unwrap();
        run.open(200, "application/json", None, None).unwrap();
        run.feed(br#"{"proc_id":"p1","status":"running"}"#, &mut actions)
            .unwrap();
        assert_eq!(run.finish(None, 0.0, &mut actions).unwrap(), RunStep::Send);
        (run, actions)
    }

    #[test]
    fn a_fresh_key_is_made_of_the_random_bytes() {
        assert_eq!(
            fresh_run_key([0xab; 16]),
            format!("run-{}", "ab".repeat(16))
        );
        let run = Run::new("c1", &Command::shell("true"), RunOptions::new(), [1; 16]).unwrap();
        assert_eq!(run.idempotency_key(), format!("run-{}", "01".repeat(16)));
    }

    #[test]
    fn a_cancel_while_following_with_kill_discards_then_kills() {
        let (mut run, _) = started(RunOptions::new().kill_on_cancel(true).spill(true));
        run.request().unwrap();
        run.open(200, "application/x-ndjson", Some("p1"), None)
            .unwrap();
        let mut actions = Vec::new();
        run.feed(
            b"{\"type\":\"stdout\",\"data\":\"x\",\"offset\":1}\n",
            &mut actions,
        )
        .unwrap();
        assert_eq!(run.cancel(&mut actions), RunStep::Send);
        assert!(actions.contains(&RunActionBuf::DiscardSpill {
            view: View::Combined
        }));
        let kill = run.request().unwrap();
        assert_eq!(kill.target(), "/computers/c1/processes/p1/kill");
        run.open(404, "application/json", None, None).unwrap();
        assert_eq!(
            run.finish(None, 0.0, &mut actions).unwrap(),
            RunStep::Cancelled
        );
        assert_eq!(run.state(), RunState::Cancelled);
    }

    #[test]
    fn a_cancel_before_the_start_was_sent_sends_nothing() {
        let mut run = Run::new(
            "c1",
            &Command::shell("make"),
            RunOptions::new().kill_on_cancel(true),
            [0; 16],
        )
        .unwrap();
        assert_eq!(run.cancel(&mut Vec::new()), RunStep::Cancelled);
        assert!(run.request().is_err());
    }

    #[test]
    fn a_start_that_never_connected_is_not_sent_again_on_cancel() {
        let new = || {
            Run::new(
                "c1",
                &Command::shell("make"),
                RunOptions::new().kill_on_cancel(true),
                [0; 16],
            )
            .unwrap()
        };
        let mut run = new();
        run.request().unwrap();
        assert!(matches!(
            run.not_connected("connection refused", 0.0).unwrap(),
            RunStep::Wait {
                reconnect: None,
                ..
            }
        ));
        assert_eq!(run.cancel(&mut Vec::new()), RunStep::Cancelled);
        // Once a start may have reached the service, cancel learns its process.
        let mut run = new();
        run.request().unwrap();
        run.no_response("connection reset", 0.0).unwrap();
        run.request().unwrap();
        run.not_connected("connection refused", 0.0).unwrap();
        assert_eq!(run.cancel(&mut Vec::new()), RunStep::Send);
        assert_eq!(run.request().unwrap().target(), "/computers/c1/processes");
    }
}
