//! `Computer::run`: one call for agents — start a keyed background process,
//! follow its output exactly through reconnects, and hand back bounded
//! previews of stdout, stderr and both combined, spilled as they stream.

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex};

use dory_wire::preview::{
    run_spill_id, Preview, RunBounder, SpillError, SpillOutcome, View, DEFAULT_RUN_MAX_BYTES,
    DEFAULT_RUN_MAX_LINES,
};
use dory_wire::{Cursor, Error, Event, Follower, GapPolicy, Request, Sink, Stream, Utf8Decoder};
use tokio::task::JoinHandle;

use crate::client::invalid;
use crate::resources::{follow_into, identity, CommandArg, Computer, Processes, ReadOptions};
use crate::spill::{DynFile, DynSpill, RunSpill};
use crate::Result;

/// The live output hook of a run (see [`RunOptions::on_output`]).
type OutputHook = Box<dyn FnMut(Stream, &[u8], &str) + Send>;

/// The options of [`Computer::run`]: the previews' limits, where to spill,
/// the start's key and deadline, the live output hook, what cancellation
/// does, and how the output is followed (the read options of every read).
///
/// The names and defaults are those of every client (`docs/run.md`).
///
/// ```
/// use std::time::Duration;
/// use dory_wire::GapPolicy;
/// use dory_wire::preview::{DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES};
/// use dory_wire_client::{ReadOptions, RunOptions, SpillDirectory};
///
/// let defaults = RunOptions::new();
/// assert_eq!((defaults.max_lines, defaults.max_bytes), (DEFAULT_RUN_MAX_LINES, DEFAULT_RUN_MAX_BYTES));
/// let options = RunOptions::new()
///     .max_lines(200)
///     .max_bytes(8192)
///     .spill(SpillDirectory::new("/tmp/tool-output"))
///     .idempotency_key("tool-call-17") // a retry of the call re-attaches
///     .timeout_seconds(600.0)
///     .kill_on_cancel(true)
///     .on_output(|stream, _bytes, text| eprint!("[{}] {text}", stream.as_str()))
///     .read_options(ReadOptions::new().retries(10).max_backoff(Duration::from_secs(2)))
///     .gap_policy(GapPolicy::Skip); // a loss becomes a loss line in the previews
/// assert_eq!(options.read.follow.retries, 10);
/// ```
pub struct RunOptions {
    /// The most lines of each preview (default [`DEFAULT_RUN_MAX_LINES`], 400).
    pub max_lines: usize,
    /// The most bytes of each preview (default [`DEFAULT_RUN_MAX_BYTES`], 16 KiB).
    pub max_bytes: usize,
    /// The key the start is sent with; `None` (the default): a fresh
    /// `run-` key of 32 random hex digits. The same key re-attaches to the
    /// same process and gives the same result.
    pub idempotency_key: Option<String>,
    /// The process's deadline (default: none).
    pub timeout_seconds: Option<f64>,
    /// The hint after the notice's command in a cut preview that names its
    /// saved spill (default: none).
    pub hint: Option<String>,
    /// Kill the process when the call is cancelled (default `false`).
    pub kill_on_cancel: bool,
    /// How the output is followed: the gap policy, retries, backoff, jitter,
    /// liveness timeout, frame limit and reconnect hook of every read. A run
    /// always reads from offset 0 and follows to the exit: a cursor other
    /// than zero or `follow(false)` is an `invalid_argument`.
    pub read: ReadOptions,
    spill: Option<Arc<dyn DynSpill>>,
    on_output: Option<OutputHook>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            max_lines: DEFAULT_RUN_MAX_LINES,
            max_bytes: DEFAULT_RUN_MAX_BYTES,
            idempotency_key: None,
            timeout_seconds: None,
            hint: None,
            kill_on_cancel: false,
            read: ReadOptions::new(),
            spill: None,
            on_output: None,
        }
    }
}

impl fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunOptions")
            .field("max_lines", &self.max_lines)
            .field("max_bytes", &self.max_bytes)
            .field("spill", &self.spill.as_ref().map(|_| ".."))
            .field("idempotency_key", &self.idempotency_key)
            .field("timeout_seconds", &self.timeout_seconds)
            .field("hint", &self.hint)
            .field("on_output", &self.on_output.as_ref().map(|_| ".."))
            .field("kill_on_cancel", &self.kill_on_cancel)
            .field("read", &self.read)
            .finish()
    }
}

impl RunOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The most lines of each preview (at least 2).
    pub fn max_lines(mut self, max_lines: usize) -> Self {
        self.max_lines = max_lines;
        self
    }
    /// The most bytes of each preview (at least
    /// [`MIN_RUN_MAX_BYTES`](dory_wire::preview::MIN_RUN_MAX_BYTES), 80).
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
    /// Writes each view as it streams with `spill` (e.g. a
    /// [`SpillDirectory`](crate::SpillDirectory)); a cut preview names the
    /// saved file. Without one, a cut preview names no file.
    pub fn spill(mut self, spill: impl RunSpill) -> Self {
        self.spill = Some(Arc::new(spill));
        self
    }
    /// Whether a spill writer is set (default: none).
    pub fn has_spill(&self) -> bool {
        self.spill.is_some()
    }
    /// Starts with this idempotency key (1–255 visible ASCII).
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }
    /// Kills the process after this many seconds (`timed_out` then).
    pub fn timeout_seconds(mut self, seconds: f64) -> Self {
        self.timeout_seconds = Some(seconds);
        self
    }
    /// The hint after the notice's command (one line).
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// Calls `hook(stream, bytes, text)` with each new chunk, once — never
    /// twice after a reconnect, never missing — as its exact bytes and as
    /// text decoded per stream by a streaming UTF-8 decoder, so a character
    /// split across two frames comes whole (with the chunk that completes
    /// it). A stream whose last bytes were an incomplete character gets one
    /// more call with empty bytes and `"\u{FFFD}"` at the end (and before a
    /// skipped range, under gap policy skip). The hook runs inside the
    /// call's future: keep it quick.
    pub fn on_output(mut self, hook: impl FnMut(Stream, &[u8], &str) + Send + 'static) -> Self {
        self.on_output = Some(Box::new(hook));
        self
    }
    /// Whether a live output hook is set (default: none).
    pub fn has_on_output(&self) -> bool {
        self.on_output.is_some()
    }
    /// Kills the process when the call is cancelled (see [`Computer::run`]).
    pub fn kill_on_cancel(mut self, kill: bool) -> Self {
        self.kill_on_cancel = kill;
        self
    }
    /// Follows the output with these read options (retries, backoff,
    /// jitter, liveness timeout, reconnect hook, gap policy), replacing
    /// those set before.
    pub fn read_options(mut self, read: ReadOptions) -> Self {
        self.read = read;
        self
    }
    /// What to do when output is lost (default: fail with `output_gap` /
    /// `output_expired`; [`GapPolicy::Skip`]: the previews end with a line
    /// saying how many bytes were lost, and `*_lost_bytes` count them).
    pub fn gap_policy(mut self, policy: GapPolicy) -> Self {
        self.read = self.read.gap_policy(policy);
        self
    }
}

/// What [`Computer::run`] returns: the process, its exit, and three bounded
/// previews — the `combined` one is what to show a model.
///
/// Each preview is what the core's
/// [`RunBounder`](dory_wire::preview::RunBounder) renders: for a view with
/// no loss (and, for `combined`, no stderr section), exactly
/// [`Bounder::bound`](dory_wire::preview::Bounder::bound) of that view's
/// full bytes with the same limits and spill id, whatever the output's size
/// and however often the connection was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunResult {
    /// The process.
    pub proc_id: String,
    /// The key it was started with (the caller's, or the fresh one): call
    /// `run` again with it to re-attach.
    pub idempotency_key: String,
    /// The exit code; `None` when killed or timed out.
    pub exit_code: Option<i64>,
    /// Whether the process hit its deadline.
    pub timed_out: bool,
    /// Standard output, bounded.
    pub stdout: Preview<'static>,
    /// Standard error, bounded.
    pub stderr: Preview<'static>,
    /// Both, in the order their bytes arrived (what `2>&1` gives), bounded,
    /// the end of stderr kept.
    pub combined: Preview<'static>,
    /// Bytes of stdout lost (skipped under gap policy skip).
    pub stdout_lost_bytes: u64,
    /// Bytes of stderr lost (skipped under gap policy skip).
    pub stderr_lost_bytes: u64,
}

/// Where the blocking client finds the kill a cancelled run spawned.
pub(crate) type KillSlot = Arc<Mutex<Option<JoinHandle<()>>>>;

impl Computer {
    /// Runs `command` and returns what an agent's model should see: bounded
    /// previews of stdout, stderr and both combined in arrival order, with
    /// exact counts and notices pointing at the full output, saved as it
    /// streamed (`docs/run.md`).
    ///
    /// 1. Checks, before any request: the limits
    ///    ([`RunBounder::check_limits`]), the command and the key (the
    ///    core's [`Request::start`]), the timeout and the read options.
    /// 2. Starts the command as a background process with the idempotency
    ///    key (the caller's or a fresh `run-` key) — never the synchronous
    ///    exec, which cuts each stream at 1 MiB.
    /// 3. Follows its output from offset 0 with the core's follower through
    ///    reconnects; each new chunk goes, once, to the run bounder, to the
    ///    spill of its stream and of the combined view (each opened when
    ///    its first byte arrives, named by the bounder's spill id), and to
    ///    the live output hook. Memory stays in proportion to the limits.
    /// 4. At the exit, commits the spill of each cut view (its notice names
    ///    the file) and discards the others.
    ///
    /// Calling it again with the same key re-attaches to the same process
    /// (the service replays the keyed start) and gives the same result: the
    /// spill ids come from the key
    /// ([`run_spill_id`](dory_wire::preview::run_spill_id)).
    ///
    /// **Cancellation** is dropping the future: the response is closed,
    /// every spill not committed is discarded, and no result exists. With
    /// [`kill_on_cancel`](RunOptions::kill_on_cancel), the kill request is
    /// sent by a task spawned on the runtime the call was polled on (`Drop`
    /// cannot wait for it; a runtime shut down first never sends it); a call
    /// dropped while its start was in flight sends the keyed start once
    /// more first (a replay: it starts nothing new) to learn the process.
    /// A failed kill is not reported. A call that fails (an error is returned)
    /// kills nothing: the error says where the process is.
    ///
    /// A spill writer that fails never loses a preview: that view's
    /// `spill_error` says why and nothing more is written to it. Spill and
    /// hook calls are synchronous inside this future.
    ///
    /// # Errors
    /// `invalid_limits`, `invalid_argument` before any request; then the
    /// errors of a start and of a read (`stream_disconnected` once the
    /// follower's budget is spent, `output_gap` under gap policy fail, …),
    /// and `invalid_limits` when output was lost and the limits leave no
    /// room to say so.
    ///
    /// ```no_run
    /// use dory_wire_client::{Client, RunOptions, SpillDirectory};
    ///
    /// # async fn run() -> dory_wire_client::Result<()> {
    /// let computer = Client::new(None)?.computers().get("c1");
    /// let result = computer
    ///     .run(
    ///         ["sh", "-c", "make test 2>&1"],
    ///         RunOptions::new().max_bytes(4096).spill(SpillDirectory::new("/tmp/tool-output")),
    ///     )
    ///     .await?;
    /// println!("exit {:?}\n{}", result.exit_code, result.combined.text);
    /// # Ok(()) }
    /// ```
    ///
    /// [`RunBounder::check_limits`]: dory_wire::preview::RunBounder::check_limits
    pub async fn run(
        &self,
        command: impl Into<CommandArg>,
        options: RunOptions,
    ) -> Result<RunResult> {
        self.run_with(command.into(), options, None).await
    }

    /// [`Computer::run`]; a kill spawned on cancellation is put in `slot`.
    pub(crate) async fn run_with(
        &self,
        command: CommandArg,
        mut options: RunOptions,
        slot: Option<KillSlot>,
    ) -> Result<RunResult> {
        RunBounder::check_limits(options.max_lines, options.max_bytes)?;
        if options.read.cursor != Cursor::default() {
            return Err(invalid(
                "options",
                "run reads a process's output from offset 0: the read options' cursor must be zero",
            ));
        }
        if !options.read.follow.follow {
            return Err(invalid(
                "options",
                "run follows the output to the exit: the read options' follow must be true",
            ));
        }
        let policy = options.read.policy(&self.client);
        policy.check()?;
        let key = match options.idempotency_key.take() {
            Some(key) => key,
            None => fresh_key()?,
        };
        let start = Request::start(
            &self.id,
            &command.0,
            options.timeout_seconds,
            Some(key.as_str()),
        )?;
        let bounder = RunBounder::new(options.max_lines, options.max_bytes)
            .with_spill_id(&run_spill_id(&key));
        let mut sink = RunSink::new(bounder, options.spill.take(), options.on_output.take());

        // Armed from here: a call dropped while the start is in flight
        // sends the keyed start again to learn the process, then kills it.
        let mut guard = KillGuard {
            armed: options.kill_on_cancel,
            client: self.client.clone(),
            processes: self.processes(),
            target: Target::Starting(start.clone()),
            runtime: tokio::runtime::Handle::try_current().ok(),
            slot,
        };
        let started = self.client.inner.document(start).await.and_then(identity);
        let started = match started {
            Ok(started) => started,
            Err(e) => {
                guard.armed = false;
                return Err(e);
            }
        };
        let proc_id = started.proc_id;
        guard.target = Target::Started(proc_id.clone());
        let followed = async {
            let mut follower =
                Follower::process_output(&self.id, &proc_id, Cursor::default(), policy)?;
            let hook = options.read.on_reconnect.as_ref();
            follow_into(&self.client, &mut follower, hook, &mut sink).await
        }
        .await;
        guard.armed = false;
        let done = followed?;
        if !done.exited {
            return Err(Error::InvalidState {
                reason: format!("the output of {proc_id} ended without its exit"),
            });
        }
        let [stdout, stderr, combined] = sink.finish(options.hint.as_deref())?;
        Ok(RunResult {
            proc_id,
            idempotency_key: key,
            exit_code: done.exit_code,
            timed_out: done.timed_out,
            stdout: stdout.0,
            stderr: stderr.0,
            combined: combined.0,
            stdout_lost_bytes: stdout.1,
            stderr_lost_bytes: stderr.1,
        })
    }
}

/// A fresh idempotency key: `run-` and 32 random hex digits.
fn fresh_key() -> Result<String> {
    let mut random = [0u8; 16];
    getrandom::getrandom(&mut random).map_err(|e| Error::InvalidState {
        reason: format!("cannot draw a fresh idempotency key: {e}"),
    })?;
    let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("run-{hex}"))
}

/// Which process a cancelled run kills.
enum Target {
    /// The start is in flight: its keyed request, sent again to learn the
    /// process (a keyed replay starts nothing).
    Starting(Request),
    /// The process.
    Started(String),
}

/// Kills the process when the call is dropped while armed.
struct KillGuard {
    armed: bool,
    client: crate::Client,
    processes: Processes,
    target: Target,
    runtime: Option<tokio::runtime::Handle>,
    slot: Option<KillSlot>,
}

impl Drop for KillGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Some(runtime) = self.runtime.take() else {
            return;
        };
        let client = self.client.clone();
        let processes = self.processes.clone();
        let target = std::mem::replace(&mut self.target, Target::Started(String::new()));
        let task = runtime.spawn(async move {
            let proc_id = match target {
                Target::Started(proc_id) => proc_id,
                Target::Starting(start) => match client.inner.document(start).await {
                    Ok(Event::Identity(identity)) => identity.proc_id,
                    // Nothing to kill, or nothing known: a failed kill never
                    // hides the cancellation.
                    _ => return,
                },
            };
            let _ = processes.kill(&proc_id).await;
        });
        if let Some(slot) = &self.slot {
            if let Ok(mut slot) = slot.lock() {
                *slot = Some(task);
            }
        }
    }
}

/// One view's spill while the output streams.
enum ViewFile {
    /// Not opened yet (or no spill writer).
    Closed,
    Open(Box<dyn DynFile>),
    /// The writer failed: the reason, in the core's words.
    Failed(String),
}

/// The core's text for a writer that failed with `error`.
fn writer_failed(error: &io::Error) -> String {
    SpillError::WriterFailed {
        error: format!("{:?}: {error}", error.kind()),
    }
    .to_string()
}

/// Where a run's output goes as it arrives: the run bounder, the spills,
/// the live output hook.
struct RunSink {
    bounder: RunBounder,
    spill: Option<Arc<dyn DynSpill>>,
    /// Each view's spill id, from the bounder.
    ids: [String; 3],
    files: [ViewFile; 3],
    on_output: Option<OutputHook>,
    decoders: [Utf8Decoder; 2],
    text: String,
}

impl RunSink {
    fn new(
        bounder: RunBounder,
        spill: Option<Arc<dyn DynSpill>>,
        on_output: Option<OutputHook>,
    ) -> RunSink {
        let ids = View::ALL.map(|v| bounder.spill_id(v).unwrap_or_default().to_owned());
        RunSink {
            bounder,
            spill,
            ids,
            files: [ViewFile::Closed, ViewFile::Closed, ViewFile::Closed],
            on_output,
            decoders: [Utf8Decoder::new(), Utf8Decoder::new()],
            text: String::new(),
        }
    }

    /// Writes `data` to `view`'s spill, opening it first; a failure marks
    /// the view failed (its file discarded, nothing more written).
    fn write(&mut self, view: View, data: &[u8]) {
        let Some(spill) = &self.spill else {
            return;
        };
        let i = view as usize;
        if matches!(self.files[i], ViewFile::Closed) {
            self.files[i] = match spill.clone().open_dyn(&self.ids[i]) {
                Ok(file) => ViewFile::Open(file),
                Err(e) => ViewFile::Failed(writer_failed(&e)),
            };
        }
        if let ViewFile::Open(file) = &mut self.files[i] {
            if let Err(e) = file.write(data) {
                self.files[i] = ViewFile::Failed(writer_failed(&e));
            }
        }
    }

    /// Ends a stream's text: an incomplete character becomes U+FFFD, given
    /// to the hook with empty bytes.
    fn flush(&mut self, stream: Stream) {
        let Some(hook) = self.on_output.as_mut() else {
            return;
        };
        self.text.clear();
        self.decoders[stream as usize].finish(&mut self.text);
        if !self.text.is_empty() {
            hook(stream, &[], &self.text);
        }
    }

    /// Each view's preview and lost bytes.
    fn finish(mut self, hint: Option<&str>) -> Result<[(Preview<'static>, u64); 3]> {
        self.flush(Stream::Stdout);
        self.flush(Stream::Stderr);
        let pending = self.bounder.finish()?;
        let mut files = self.files;
        Ok(View::ALL.map(|view| {
            let file = std::mem::replace(&mut files[view as usize], ViewFile::Closed);
            let outcome = match file {
                ViewFile::Failed(reason) => SpillOutcome::Failed { reason },
                ViewFile::Open(file) if pending.needs_spill(view) => match file.commit() {
                    Ok(path) => SpillOutcome::Saved { path },
                    Err(e) => SpillOutcome::Failed {
                        reason: writer_failed(&e),
                    },
                },
                // Not cut: the preview holds every byte (dropping discards).
                ViewFile::Open(_) | ViewFile::Closed => SpillOutcome::NotSaved,
            };
            (pending.render(view, outcome, hint), pending.lost(view).0)
        }))
    }
}

impl Sink for RunSink {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, _start: u64, _end: u64) {
        self.bounder.push(stream, &data);
        self.write(View::from(stream), &data);
        self.write(View::Combined, &data);
        if let Some(hook) = self.on_output.as_mut() {
            self.text.clear();
            self.decoders[stream as usize].push(&data, &mut self.text);
            hook(stream, &data, &self.text);
        }
    }

    fn event(&mut self, event: Event) {
        if let Event::Skipped { stream, start, end } = event {
            // Bytes after the gap do not complete a character before it.
            self.flush(stream);
            self.bounder.lose(stream, start, end);
        }
    }
}
