//! `Computer::run`: one call for agents — start a keyed background process,
//! follow its output exactly through reconnects, and hand back bounded
//! previews of stdout, stderr and both combined, spilled as they stream.

use std::fmt;
use std::io;
use std::sync::{Arc, Mutex};

use dory_wire::preview::{
    Keep, SpillError, SpillOutcome, TokenLimit, View, DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES,
};
use dory_wire::tokens::Tokenizer;
use dory_wire::{
    Cursor, Error, GapPolicy, Run, RunAction, RunOptions as CoreRunOptions, RunSink, RunStep,
    Stream,
};
use tokio::task::JoinHandle;

use crate::client::{invalid, Pumped};
use crate::resources::{CommandArg, Computer, ReadOptions};
use crate::spill::{DynFile, DynSpill, RunSpill};
use crate::Result;

/// The live output hook of a run (see [`RunOptions::on_output`]).
type OutputHook = Box<dyn FnMut(Stream, &[u8], &str) + Send>;

/// The options of [`Computer::run`]: the previews' limits, where to spill,
/// the start's key and deadline, the live output hook, what cancellation
/// does, and how the output is followed (the read options of every read).
///
/// The names and defaults are those of every client (`docs/run.md`). The
/// previews keep the lines matching [`Keep::defaults`] and are rendered as
/// a terminal shows them unless told otherwise: a model reads them, and the
/// spill keeps the raw bytes.
///
/// ```
/// use std::time::Duration;
/// use dory_wire::GapPolicy;
/// use dory_wire::preview::{Keep, DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES};
/// use dory_wire_client::{ReadOptions, RunOptions, SpillDirectory};
///
/// let defaults = RunOptions::new();
/// assert_eq!((defaults.max_lines, defaults.max_bytes), (DEFAULT_RUN_MAX_LINES, DEFAULT_RUN_MAX_BYTES));
/// assert_eq!((defaults.keep, defaults.terminal), (Keep::defaults(), true));
/// let raw = RunOptions::new().keep(Keep::none()).terminal(false); // the raw text
/// assert!(raw.keep.is_none() && !raw.terminal);
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
    /// The most tokens of each preview and the tokenizer counting them
    /// (default: none); see [`RunOptions::max_tokens`].
    pub tokens: Option<TokenLimit>,
    /// The lines of each view's omitted middle to keep (default
    /// [`Keep::defaults`]; [`Keep::none`] keeps none).
    pub keep: Keep,
    /// Renders each preview as a terminal shows it (default `true`).
    pub terminal: bool,
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
        // The core's defaults for the previews' options.
        let core = CoreRunOptions::default();
        RunOptions {
            max_lines: DEFAULT_RUN_MAX_LINES,
            max_bytes: DEFAULT_RUN_MAX_BYTES,
            tokens: core.tokens,
            keep: core.keep,
            terminal: core.terminal,
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
            .field("tokens", &self.tokens)
            .field("keep", &self.keep)
            .field("terminal", &self.terminal)
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
    /// Each preview's text encodes to at most `max_tokens` tokens under
    /// `tokenizer` (at least 80), notices included: a view over it is
    /// bounded again at the largest smaller byte budget whose text fits, and
    /// its [`Preview::tokens`](dory_wire::preview::Preview::tokens) holds the
    /// count (`docs/preview.md`, "Token limits"). The exact tokenizers need
    /// this crate's feature `tokens`; [`Tokenizer::Approx`] is always here.
    ///
    /// ```
    /// use dory_wire::tokens::Tokenizer;
    /// use dory_wire_client::RunOptions;
    ///
    /// let options = RunOptions::new().max_tokens(4000, Tokenizer::Approx);
    /// assert_eq!(options.tokens.map(|t| t.max_tokens), Some(4000));
    /// ```
    pub fn max_tokens(mut self, max_tokens: usize, tokenizer: Tokenizer) -> Self {
        self.tokens = Some(TokenLimit {
            max_tokens,
            tokenizer,
        });
        self
    }
    /// Keeps the lines of each view's omitted middle that match `keep`
    /// (default [`Keep::defaults`]; [`Keep::none`]: none), each shown with
    /// its line number in the raw output.
    pub fn keep(mut self, keep: Keep) -> Self {
        self.keep = keep;
        self
    }
    /// Whether each preview is rendered as a terminal shows it: a line
    /// redrawn with `\r` shows its last state, escape sequences and control
    /// bytes are removed (default `true`; the spill keeps the raw bytes).
    pub fn terminal(mut self, terminal: bool) -> Self {
        self.terminal = terminal;
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
/// previews — the `combined` one is what to show a model. It is the core's
/// [`RunResult`](dory_wire::RunResult), rendered by its run machine.
pub use dory_wire::RunResult;

/// Where the blocking client finds the kill a cancelled run spawned.
pub(crate) type KillSlot = Arc<Mutex<Option<JoinHandle<()>>>>;

impl Computer {
    /// Runs `command` and returns what an agent's model should see: bounded
    /// previews of stdout, stderr and both combined in arrival order, with
    /// exact counts and notices pointing at the full output, saved as it
    /// streamed (`docs/run.md`).
    ///
    /// The whole call is the core's [`dory_wire::Run`]: it says which
    /// request comes next, what each answer means, how long to wait and
    /// what to do with each chunk; this call sends, reads, sleeps and does
    /// what the run asks with the spill and the output hook.
    ///
    /// 1. Checks, before any request: the limits
    ///    ([`RunBounder::check_limits`]), the command and the key (the
    ///    core's [`Request::start`](dory_wire::Request::start)), the
    ///    timeout and the read options.
    /// 2. Starts the command as a background process with the idempotency
    ///    key (the caller's or a fresh `run-` key) — never the synchronous
    ///    exec, which cuts each stream at 1 MiB; a start whose answer was
    ///    lost is sent again with its key (it starts nothing twice).
    /// 3. Follows its output from offset 0 through reconnects; each new
    ///    chunk goes, once, to the run's previews, to the spill of its
    ///    stream and of the combined view (each opened when its first byte
    ///    arrives, named by the run's spill id), and to the live output
    ///    hook. Memory stays in proportion to the limits.
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
    ///
    /// IO over the core's [`Run`]: it sends what the run asks for, feeds it
    /// the answers, sleeps its waits, and does its actions (the views'
    /// spill files, the live output hook).
    pub(crate) async fn run_with(
        &self,
        command: CommandArg,
        mut options: RunOptions,
        slot: Option<KillSlot>,
    ) -> Result<RunResult> {
        if options.read.cursor != Cursor::default() {
            return Err(invalid(
                "options",
                "run reads a process's output from offset 0: the read options' cursor must be zero",
            ));
        }
        let mut core = CoreRunOptions::new()
            .max_lines(options.max_lines)
            .max_bytes(options.max_bytes)
            .keep(std::mem::take(&mut options.keep))
            .terminal(options.terminal)
            .kill_on_cancel(options.kill_on_cancel)
            .follow(options.read.policy(&self.client))
            .answer_timeout(self.client.inner.timeout)
            .spill(options.spill.is_some())
            .on_output(options.on_output.is_some());
        core.tokens = options.tokens;
        core.idempotency_key = options.idempotency_key.take();
        core.timeout_seconds = options.timeout_seconds;
        core.hint = options.hint.take();
        let run = Run::new(&self.id, &command.0, core, random_bytes()?)?;
        let mut io = RunIo {
            spill: options.spill.take(),
            files: [None, None, None],
            failed: Vec::new(),
            commits: Vec::new(),
            on_output: options.on_output.take(),
        };
        let hook = options.read.on_reconnect.as_ref();
        // Armed until the run ends: a call dropped before then cancels the
        // run, and a kill the run then asks for is driven by a spawned task.
        let mut guard = CancelGuard {
            run: Some(run),
            client: self.client.clone(),
            runtime: tokio::runtime::Handle::try_current().ok(),
            slot,
        };
        let run = guard.run.as_mut().ok_or_else(lost_run)?;
        let inner = &self.client.inner;
        loop {
            let step = match inner.open(run).await? {
                Err(step) => step,
                Ok(mut response) => loop {
                    let pumped = inner.pump(run, &mut response, &mut io).await;
                    io.report(run);
                    match pumped? {
                        Pumped::More => {}
                        Pumped::Ended(step) => break step,
                    }
                },
            };
            match step {
                RunStep::Send => {}
                RunStep::Wait { delay, reconnect } => {
                    if let (Some(record), Some(hook)) = (&reconnect, hook) {
                        hook(record);
                    }
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                }
                RunStep::Done => break,
                RunStep::Cancelled => return Err(lost_run()),
            }
        }
        io.commit(run);
        run.result()
    }
}

fn lost_run() -> Error {
    Error::InvalidState {
        reason: "the run ended without its result".to_owned(),
    }
}

/// The 16 random bytes of a fresh idempotency key.
fn random_bytes() -> Result<[u8; 16]> {
    let mut random = [0u8; 16];
    getrandom::getrandom(&mut random).map_err(|e| Error::InvalidState {
        reason: format!("cannot draw a fresh idempotency key: {e}"),
    })?;
    Ok(random)
}

/// Cancels the run when the call is dropped before it ended, and drives
/// the kill the run then asks for on the runtime the call was polled on
/// (`Drop` cannot wait for it; a runtime shut down first never sends it).
struct CancelGuard {
    run: Option<Run>,
    client: crate::Client,
    runtime: Option<tokio::runtime::Handle>,
    slot: Option<KillSlot>,
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        let Some(mut run) = self.run.take() else {
            return;
        };
        // The open files go with the call's `RunIo` (dropping discards).
        if run.cancel(&mut |_: RunAction<'_>| {}) != RunStep::Send {
            return;
        }
        let Some(runtime) = self.runtime.take() else {
            return;
        };
        let client = self.client.clone();
        let task = runtime.spawn(async move {
            let inner = &client.inner;
            let mut none = |_: RunAction<'_>| {};
            // A failed kill is not reported: the cancellation is.
            loop {
                let step = match inner.open(&mut run).await {
                    Ok(Err(step)) => step,
                    Ok(Ok(mut response)) => loop {
                        match inner.pump(&mut run, &mut response, &mut none).await {
                            Ok(Pumped::More) => {}
                            Ok(Pumped::Ended(step)) => break step,
                            Err(_) => return,
                        }
                    },
                    Err(_) => return,
                };
                match step {
                    RunStep::Send => {}
                    RunStep::Wait { delay, .. } => tokio::time::sleep(delay).await,
                    RunStep::Done | RunStep::Cancelled => return,
                }
            }
        });
        if let Some(slot) = &self.slot {
            if let Ok(mut slot) = slot.lock() {
                *slot = Some(task);
            }
        }
    }
}

/// The core's text for a writer that failed with `error`.
fn writer_failed(error: &io::Error) -> SpillError {
    SpillError::WriterFailed {
        error: format!("{:?}: {error}", error.kind()),
    }
}

/// The IO of a run: the views' spill files and the live output hook, as
/// the run's actions ask.
struct RunIo {
    spill: Option<Arc<dyn DynSpill>>,
    files: [Option<Box<dyn DynFile>>; 3],
    /// Writers that failed, reported to the run after the call that gave
    /// the action returned.
    failed: Vec<(View, SpillError)>,
    /// The views to commit once the output is complete.
    commits: Vec<View>,
    on_output: Option<OutputHook>,
}

impl RunIo {
    fn report(&mut self, run: &mut Run) {
        for (view, error) in self.failed.drain(..) {
            run.spill_failed(view, error);
        }
    }

    fn commit(&mut self, run: &mut Run) {
        self.report(run);
        for view in std::mem::take(&mut self.commits) {
            let outcome = match self.files[view as usize].take().map(|f| f.commit()) {
                Some(Ok(path)) => SpillOutcome::Saved { path },
                Some(Err(e)) => writer_failed(&e).into(),
                None => SpillOutcome::NotSaved,
            };
            run.spill_committed(view, outcome);
        }
    }
}

impl RunSink for RunIo {
    fn act(&mut self, action: RunAction<'_>) {
        match action {
            RunAction::OpenSpill { view, spill_id } => {
                if let Some(spill) = &self.spill {
                    match spill.clone().open_dyn(spill_id) {
                        Ok(file) => self.files[view as usize] = Some(file),
                        Err(e) => self.failed.push((view, writer_failed(&e))),
                    }
                }
            }
            RunAction::WriteSpill { view, data } => {
                let file = &mut self.files[view as usize];
                if let Some(Err(e)) = file.as_mut().map(|f| f.write(data)) {
                    // Dropping the file discards what it holds.
                    *file = None;
                    self.failed.push((view, writer_failed(&e)));
                }
            }
            RunAction::Output { stream, data, text } => {
                if let Some(hook) = self.on_output.as_mut() {
                    hook(stream, data, text);
                }
            }
            RunAction::CommitSpill { view } => self.commits.push(view),
            RunAction::DiscardSpill { view } => self.files[view as usize] = None,
        }
    }
}
