//! The API's resources: computers, processes, setup logs; and the options of
//! their calls.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use dory_wire::{
    Command, Cursor, Decision, Done, Error, Event, ExecResult, FollowOptions, Follower, GapPolicy,
    Identity, Reconnect, Request, ResumeState, Sink, Transcript,
};

use crate::client::{Client, Pumped};
use crate::stream::{OutputStream, ReconnectHook};
use crate::Result;

/// The options of a start or an exec: the wire's names.
///
/// ```
/// use dory_wire_client::StartOptions;
///
/// let options = StartOptions::new().timeout_seconds(30.0).idempotency_key("job-7");
/// assert_eq!(options.timeout_seconds, Some(30.0));
/// assert_eq!(options.idempotency_key.as_deref(), Some("job-7"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StartOptions {
    /// Kill the process after this many seconds (`timed_out` then).
    pub timeout_seconds: Option<f64>,
    /// Makes the call safe to send again: the same key answers the same
    /// process instead of starting another.
    pub idempotency_key: Option<String>,
}

impl StartOptions {
    /// No timeout, no key.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets `timeout_seconds`.
    pub fn timeout_seconds(mut self, seconds: f64) -> Self {
        self.timeout_seconds = Some(seconds);
        self
    }
    /// Sets `idempotency_key`.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }
}

/// The options of a read of output or logs: where to start, and the
/// follower's policy (the core's defaults: follow, fail on loss, 5 retries,
/// 250 ms to 5 s of backoff with jitter).
///
/// ```
/// use std::time::Duration;
/// use dory_wire::{Cursor, GapPolicy, DEFAULT_RETRIES};
/// use dory_wire_client::ReadOptions;
///
/// let defaults = ReadOptions::new();
/// assert_eq!(defaults.follow.retries, DEFAULT_RETRIES); // the core's defaults
/// let options = ReadOptions::new()
///     .from_cursor(Cursor::new(4096, 12)) // saved offsets
///     .gap_policy(GapPolicy::Skip) // a loss becomes an exact skipped range
///     .retries(10)
///     .max_backoff(Duration::from_secs(2))
///     .on_reconnect(|r| eprintln!("reconnect {} ({})", r.attempt, r.reason.as_str()));
/// assert_eq!((options.cursor.stdout, options.follow.retries), (4096, 10));
/// assert!(options.on_reconnect.is_some());
/// ```
#[derive(Clone, Default)]
pub struct ReadOptions {
    /// Where to start (zeros: from the beginning; setup logs use `stdout`).
    pub cursor: Cursor,
    /// The follower's policy. `max_frame_bytes` and `liveness_timeout` are
    /// the client's unless set here.
    pub follow: FollowOptions,
    /// Called with each reconnect's record.
    pub on_reconnect: Option<ReconnectHook>,
    liveness_set: bool,
    frame_limit_set: bool,
}

impl fmt::Debug for ReadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadOptions")
            .field("cursor", &self.cursor)
            .field("follow", &self.follow)
            .field("on_reconnect", &self.on_reconnect.as_ref().map(|_| ".."))
            .finish()
    }
}

impl ReadOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// Starts from these offsets (saved from an earlier read).
    pub fn from_cursor(mut self, cursor: Cursor) -> Self {
        self.cursor = cursor;
        self
    }
    /// Starts from `stdout_offset`, `stderr_offset`.
    pub fn offsets(self, stdout_offset: u64, stderr_offset: u64) -> Self {
        self.from_cursor(Cursor::new(stdout_offset, stderr_offset))
    }
    /// Follows until exit (`true`, the default) or reads what exists now.
    pub fn follow(mut self, follow: bool) -> Self {
        self.follow = self.follow.follow(follow);
        self
    }
    /// What to do when output is lost (default: fail).
    pub fn gap_policy(mut self, policy: GapPolicy) -> Self {
        self.follow = self.follow.gap_policy(policy);
        self
    }
    /// Connections in a row without progress allowed (default 5).
    pub fn retries(mut self, retries: u32) -> Self {
        self.follow = self.follow.retries(retries);
        self
    }
    /// The first backoff (default 250 ms).
    pub fn backoff(mut self, backoff: Duration) -> Self {
        self.follow = self.follow.backoff(backoff);
        self
    }
    /// The longest backoff (default 5 s).
    pub fn max_backoff(mut self, max: Duration) -> Self {
        self.follow = self.follow.max_backoff(max);
        self
    }
    /// Jitter on or off (default on).
    pub fn jitter(mut self, jitter: bool) -> Self {
        self.follow = self.follow.jitter(jitter);
        self
    }
    /// The liveness timeout of this read (default: the client's).
    pub fn liveness_timeout(mut self, timeout: Duration) -> Self {
        self.follow = self.follow.liveness_timeout(timeout);
        self.liveness_set = true;
        self
    }
    /// The longest frame accepted in this read (default: the client's).
    pub fn max_frame_bytes(mut self, limit: usize) -> Self {
        self.follow = self.follow.max_frame_bytes(limit);
        self.frame_limit_set = true;
        self
    }
    /// Calls `hook` with the record of every reconnect.
    pub fn on_reconnect(mut self, hook: impl Fn(&Reconnect) + Send + Sync + 'static) -> Self {
        self.on_reconnect = Some(Arc::new(hook));
        self
    }

    /// The policy, with the client's liveness and frame limit where the read
    /// set none.
    pub(crate) fn policy(&self, client: &Client) -> FollowOptions {
        let mut policy = self.follow.clone();
        if !self.liveness_set {
            policy = policy.liveness_timeout(client.inner.liveness_timeout);
        }
        if !self.frame_limit_set {
            policy = policy.max_frame_bytes(client.inner.max_frame_bytes);
        }
        policy
    }
}

/// A synchronous exec's answer: its result, or — for an idempotency key
/// already used — the identity of the process it started then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecAnswer {
    /// The result (each stream cut at the service's limit: see the
    /// `*_truncated` flags; read the process output for all of it).
    Result(ExecResult),
    /// A keyed replay: the identity of the process the key started.
    Replay(Identity),
}

/// The computers of a [`Client`].
#[derive(Debug, Clone)]
pub struct Computers {
    pub(crate) client: Client,
}

// Declared here, beside what it returns, so that `client` does not import
// the resources that import it.
impl Client {
    /// The computers: `client.computers().get(id)`.
    pub fn computers(&self) -> Computers {
        Computers {
            client: self.clone(),
        }
    }
}

impl Computers {
    /// The computer `computer_id`. Sends no request: an unknown computer is
    /// a 404 `api_error` at the first call.
    pub fn get(&self, computer_id: impl Into<String>) -> Computer {
        Computer {
            client: self.client.clone(),
            id: computer_id.into(),
        }
    }
}

/// One computer: its processes, its setup logs, exec.
#[derive(Debug, Clone)]
pub struct Computer {
    pub(crate) client: Client,
    pub(crate) id: String,
}

impl Computer {
    /// The computer's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Start, find and kill processes.
    pub fn processes(&self) -> Processes {
        Processes {
            client: self.client.clone(),
            computer_id: self.id.clone(),
        }
    }

    /// The setup command's logs.
    pub fn setup(&self) -> Setup {
        Setup {
            client: self.client.clone(),
            computer_id: self.id.clone(),
        }
    }

    /// Runs `command` and waits for its exit: the result, each stream cut at
    /// the service's limit. For all of the output, use
    /// [`Processes::start`] and [`Process::read_output`], or
    /// [`exec_stream`](Computer::exec_stream).
    pub async fn exec(
        &self,
        command: impl Into<CommandArg>,
        options: StartOptions,
    ) -> Result<ExecAnswer> {
        let request = Request::exec(
            &self.id,
            &command.into().0,
            options.timeout_seconds,
            options.idempotency_key.as_deref(),
            false,
        )?;
        // The core decides what the answer means (a result, or a keyed
        // replay's identity; else its `unexpected_frame`).
        let events = self.client.inner.document(request).await?;
        if let Event::ExecResult(result) = dory_wire::exec_answer(&events)? {
            return Ok(ExecAnswer::Result(result.clone()));
        }
        Ok(ExecAnswer::Replay(identity(events)?))
    }

    /// Runs `command` and streams its frames to its exit. A stream cut after
    /// the process was announced continues on that process's output; the
    /// command is never sent twice unless `idempotency_key` makes it safe.
    pub fn exec_stream(
        &self,
        command: impl Into<CommandArg>,
        options: StartOptions,
        read: ReadOptions,
    ) -> Result<OutputStream> {
        let follower = Follower::exec_stream(
            &self.id,
            &command.into().0,
            options.timeout_seconds,
            options.idempotency_key.as_deref(),
            read.policy(&self.client),
        )?;
        Ok(OutputStream::new(
            self.client.clone(),
            follower,
            true,
            read.on_reconnect,
        ))
    }
}

/// A command: a shell line (`&str`, `String`) or an argv (an array, a
/// `Vec` or a slice of strings).
///
/// ```
/// use dory_wire::Command;
/// use dory_wire_client::CommandArg;
///
/// let line: CommandArg = "make test".into();
/// let argv: CommandArg = ["sh", "-c", "echo hi"].into();
/// assert_eq!(Command::from(argv), Command::argv(["sh", "-c", "echo hi"]));
/// assert_eq!(Command::from(line), Command::shell("make test"));
/// ```
#[derive(Debug, Clone)]
pub struct CommandArg(pub(crate) Command);

impl From<CommandArg> for Command {
    fn from(arg: CommandArg) -> Self {
        arg.0
    }
}

impl From<&str> for CommandArg {
    fn from(line: &str) -> Self {
        CommandArg(Command::shell(line))
    }
}
impl From<String> for CommandArg {
    fn from(line: String) -> Self {
        CommandArg(Command::Shell(line))
    }
}
impl From<Command> for CommandArg {
    fn from(command: Command) -> Self {
        CommandArg(command)
    }
}
impl<const N: usize> From<[&str; N]> for CommandArg {
    fn from(args: [&str; N]) -> Self {
        CommandArg(Command::argv(args))
    }
}
impl From<Vec<String>> for CommandArg {
    fn from(args: Vec<String>) -> Self {
        CommandArg(Command::Argv(args))
    }
}
impl From<&[&str]> for CommandArg {
    fn from(args: &[&str]) -> Self {
        CommandArg(Command::argv(args.iter().copied()))
    }
}

/// The processes of one computer.
#[derive(Debug, Clone)]
pub struct Processes {
    pub(crate) client: Client,
    pub(crate) computer_id: String,
}

impl Processes {
    /// Starts `command` in the background: its identity. With an
    /// idempotency key, starting again answers the same process.
    pub async fn start(
        &self,
        command: impl Into<CommandArg>,
        options: StartOptions,
    ) -> Result<Identity> {
        let request = Request::start(
            &self.computer_id,
            &command.into().0,
            options.timeout_seconds,
            options.idempotency_key.as_deref(),
        )?;
        identity(self.client.inner.document(request).await?)
    }

    /// The process `proc_id` (a 404 `api_error` when unknown).
    pub async fn get(&self, proc_id: &str) -> Result<Process> {
        let request = Request::get_process(&self.computer_id, proc_id)?;
        let identity = identity(self.client.inner.document(request).await?)?;
        Ok(Process {
            client: self.client.clone(),
            computer_id: self.computer_id.clone(),
            identity,
        })
    }

    /// Kills the process: its identity after.
    pub async fn kill(&self, proc_id: &str) -> Result<Identity> {
        let request = Request::kill(&self.computer_id, proc_id)?;
        identity(self.client.inner.document(request).await?)
    }
}

/// One process: read its retained output, kill it.
#[derive(Debug, Clone)]
pub struct Process {
    client: Client,
    computer_id: String,
    identity: Identity,
}

impl Process {
    /// The identity answered when the handle was made.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The process id.
    pub fn proc_id(&self) -> &str {
        &self.identity.proc_id
    }

    /// The retained output from `options.cursor`, frame by frame, over one
    /// response: a connection that ends before `exit` ends the stream with
    /// `stream_disconnected` (resume from its cursor, or use
    /// [`read_output`](Process::read_output), which reconnects).
    pub fn iter_output(&self, options: ReadOptions) -> Result<OutputStream> {
        let follower = Follower::process_output(
            &self.computer_id,
            self.proc_id(),
            options.cursor,
            options.policy(&self.client),
        )?;
        Ok(OutputStream::new(
            self.client.clone(),
            follower,
            false,
            None,
        ))
    }

    /// The whole output from `options.cursor`, reconnecting as the core's
    /// follower decides (the reconnect hook sees each one): the transcript
    /// once `exit` was seen, or, for a finite read, where the output ended.
    pub async fn read_output(&self, options: ReadOptions) -> Result<Transcript> {
        let follower = Follower::process_output(
            &self.computer_id,
            self.proc_id(),
            options.cursor,
            options.policy(&self.client),
        )?;
        read_all(&self.client, follower, options.on_reconnect).await
    }

    /// Reads the output from a saved [`ResumeState`] (of this process).
    pub async fn resume_output(
        &self,
        state: &ResumeState,
        options: ReadOptions,
    ) -> Result<Transcript> {
        if state.proc_id.as_deref() != Some(self.proc_id()) {
            return Err(Error::InvalidArgument {
                argument: "state".to_owned(),
                reason: format!("the resume state is not of process {:?}", self.proc_id()),
            });
        }
        let follower = Follower::resume(&self.computer_id, state, options.policy(&self.client))?;
        read_all(&self.client, follower, options.on_reconnect).await
    }

    /// Kills the process: its identity after.
    pub async fn kill(&self) -> Result<Identity> {
        let request = Request::kill(&self.computer_id, self.proc_id())?;
        identity(self.client.inner.document(request).await?)
    }
}

/// The setup command's logs (one merged stream, offsets in `cursor.stdout`).
#[derive(Debug, Clone)]
pub struct Setup {
    client: Client,
    computer_id: String,
}

impl Setup {
    /// The logs from `options.cursor.stdout`, frame by frame, over one response.
    pub fn iter_logs(&self, options: ReadOptions) -> Result<OutputStream> {
        let follower = Follower::setup_logs(
            &self.computer_id,
            options.cursor.stdout,
            options.policy(&self.client),
        )?;
        Ok(OutputStream::new(
            self.client.clone(),
            follower,
            false,
            None,
        ))
    }

    /// The whole log from `options.cursor.stdout`, reconnecting as needed.
    pub async fn read_logs(&self, options: ReadOptions) -> Result<Transcript> {
        let follower = Follower::setup_logs(
            &self.computer_id,
            options.cursor.stdout,
            options.policy(&self.client),
        )?;
        read_all(&self.client, follower, options.on_reconnect).await
    }
}

/// Drives `follower` to its end, every byte into a transcript: sockets,
/// timers and sleeping here; every decision the core's.
pub(crate) async fn read_all(
    client: &Client,
    mut follower: Follower,
    hook: Option<ReconnectHook>,
) -> Result<Transcript> {
    let mut transcript = Transcript::new();
    let done = follow_into(client, &mut follower, hook.as_ref(), &mut transcript).await?;
    if done.exited {
        transcript.finish();
    }
    Ok(transcript)
}

/// The one IO loop of every reconnecting read: drives `follower` to its end,
/// each new chunk (and every other event) into `sink`, the reconnect hook
/// called with each record before its wait. The follower's [`Done`].
pub(crate) async fn follow_into(
    client: &Client,
    follower: &mut Follower,
    hook: Option<&ReconnectHook>,
    sink: &mut impl Sink,
) -> Result<Done> {
    let inner = &client.inner;
    loop {
        let decision = match inner.open(follower).await? {
            Err(decision) => decision,
            Ok(mut response) => loop {
                match inner.pump(follower, &mut response, sink).await? {
                    Pumped::More => {}
                    Pumped::Ended(decision) => break decision,
                }
            },
        };
        match decision {
            Decision::Done(done) => return Ok(done),
            Decision::Reconnect(record) => {
                if let Some(hook) = hook {
                    hook(&record);
                }
                if !record.delay.is_zero() {
                    tokio::time::sleep(record.delay).await;
                }
            }
            Decision::Continue => {}
        }
    }
}

/// The identity a start, get or kill was answered by: the core's rule
/// ([`dory_wire::identity_answer`]), its error when the answer is another.
pub(crate) fn identity(events: Vec<Event>) -> Result<Identity> {
    Ok(dory_wire::identity_answer(&events)?.clone())
}
