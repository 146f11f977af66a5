//! A real OS process whose stdout and stderr are captured as raw bytes into
//! a [`Retained`] store, with its deadline, kill and exit status.
//!
//! Each process runs in its own process group so that a kill, a deadline or
//! server shutdown also reaches the children it spawned.

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::sync::watch;

use crate::output::{Retained, Stream};

/// How a process ended, as the `exit` frame reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExitInfo {
    /// The exit status; `None` when the process was killed, timed out or died by a signal.
    pub(crate) exit_code: Option<i32>,
    /// Whether the `timeout_seconds` deadline killed it.
    pub(crate) timed_out: bool,
}

/// What to run.
#[derive(Clone, Debug)]
pub(crate) enum CommandSpec {
    /// `argv[0]` is the program, the rest its arguments.
    Argv(Vec<String>),
    /// A shell command line, run as `sh -c LINE`.
    Shell(String),
}

/// The first bytes of each stream, kept whole for a synchronous exec result.
#[derive(Debug, Default)]
pub(crate) struct Head {
    /// Up to the limit bytes per stream (`[stdout, stderr]`).
    pub(crate) bytes: [Vec<u8>; 2],
    /// Whether a stream produced more than the limit.
    pub(crate) truncated: [bool; 2],
    limit: usize,
}

impl Head {
    fn push(&mut self, stream: Stream, data: &[u8]) {
        let i = stream.index();
        let room = self.limit.saturating_sub(self.bytes[i].len());
        let take = room.min(data.len());
        self.bytes[i].extend_from_slice(&data[..take]);
        if take < data.len() {
            self.truncated[i] = true;
        }
    }
}

/// Mutable state of a process, behind the process's lock.
#[derive(Debug)]
pub(crate) struct ProcState {
    /// Retained output and offsets.
    pub(crate) out: Retained,
    /// Set once the process has exited and its pipes were drained.
    pub(crate) exit: Option<ExitInfo>,
    /// When `exit` was set.
    pub(crate) exited_at: Option<Instant>,
    /// First bytes for a synchronous exec result, if one was asked for.
    pub(crate) head: Option<Head>,
    killed: bool,
    /// Process group to signal; `None` once the process is finished.
    pgid: Option<Pid>,
}

/// One process (or the setup command) and its retained output.
#[derive(Debug)]
pub(crate) struct Proc {
    /// The `proc_id` clients use.
    pub(crate) id: String,
    state: Mutex<ProcState>,
    changed: watch::Sender<u64>,
}

impl Proc {
    /// Locks the state. A poisoned lock is still usable: every critical
    /// section leaves the state consistent before anything can panic.
    pub(crate) fn lock(&self) -> MutexGuard<'_, ProcState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A receiver that sees every later change of output or status.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn notify(&self) {
        self.changed.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// `"running"` or `"exited"`.
    pub(crate) fn status(&self) -> &'static str {
        if self.lock().exit.is_some() {
            "exited"
        } else {
            "running"
        }
    }

    /// Whether the retained output has expired at `now`.
    pub(crate) fn is_expired(state: &ProcState, now: Instant, expiry: Duration) -> bool {
        state
            .exited_at
            .is_some_and(|t| now.saturating_duration_since(t) >= expiry)
    }

    /// Kills the process group; the exit is then reported with a null code.
    pub(crate) fn kill(&self) {
        let mut st = self.lock();
        if st.exit.is_none() {
            st.killed = true;
        }
        signal_group(&st);
    }

    /// Kills the process group without marking the process as killed by a
    /// client (used for deadlines, drain and shutdown).
    fn kill_group(&self) {
        signal_group(&self.lock());
    }

    fn append(&self, stream: Stream, data: &[u8]) {
        {
            let mut st = self.lock();
            if let Some(head) = st.head.as_mut() {
                head.push(stream, data);
            }
            st.out.push(stream, Bytes::copy_from_slice(data));
        }
        self.notify();
    }

    /// Waits until the process has finished (exit recorded).
    pub(crate) async fn wait_exit(&self) -> ExitInfo {
        let mut rx = self.subscribe();
        loop {
            rx.borrow_and_update();
            if let Some(exit) = self.lock().exit {
                return exit;
            }
            if rx.changed().await.is_err() {
                // The sender lives in `self`, so this cannot happen; report
                // an unknown outcome rather than spinning.
                return ExitInfo {
                    exit_code: None,
                    timed_out: false,
                };
            }
        }
    }
}

fn signal_group(st: &ProcState) {
    if let Some(pgid) = st.pgid {
        // ESRCH (group already gone) is fine.
        let _ = killpg(pgid, Signal::SIGKILL);
    }
}

/// Options for starting a process.
#[derive(Clone, Debug)]
pub(crate) struct SpawnOptions {
    /// Kill the process after this long (reported as `timed_out`).
    pub(crate) timeout: Option<Duration>,
    /// Keep the first N bytes of each stream whole (synchronous exec).
    pub(crate) head_limit: Option<usize>,
    /// Merge stderr into stdout (setup logs).
    pub(crate) merge_stderr: bool,
    /// Retention limit in raw bytes across both streams.
    pub(crate) retention_bytes: usize,
    /// Size of one pipe read.
    pub(crate) read_size: usize,
    /// How long to wait for the pipes to close after the process exited.
    pub(crate) drain_grace: Duration,
    /// Count of running processes, decremented before the exit is
    /// published, so a client that saw the exit can start another one.
    pub(crate) running: Option<Arc<AtomicUsize>>,
}

/// Starts `spec` and returns the process plus the future that supervises
/// it until exit; the caller spawns that future.
pub(crate) fn spawn(
    id: String,
    spec: &CommandSpec,
    opts: &SpawnOptions,
) -> std::io::Result<(
    Arc<Proc>,
    impl std::future::Future<Output = ()> + Send + 'static,
)> {
    let mut cmd = match spec {
        CommandSpec::Argv(argv) => {
            let (program, args) = argv
                .split_first()
                .ok_or_else(|| std::io::Error::other("empty command"))?;
            let mut c = Command::new(program);
            c.args(args);
            c
        }
        CommandSpec::Shell(line) => {
            let mut c = Command::new("sh");
            if opts.merge_stderr {
                // Merge at the file-descriptor level, before any byte is
                // written, so both streams share one pipe and one offset.
                c.arg("-c").arg(format!("exec 2>&1\n{line}"));
            } else {
                c.arg("-c").arg(line);
            }
            c
        }
    };
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(if opts.merge_stderr {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let pgid = child
        .id()
        .and_then(|p| i32::try_from(p).ok())
        .map(Pid::from_raw);
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let (changed, _) = watch::channel(0);
    let proc = Arc::new(Proc {
        id,
        state: Mutex::new(ProcState {
            out: Retained::new(opts.retention_bytes),
            exit: None,
            exited_at: None,
            head: opts.head_limit.map(|limit| Head {
                limit,
                ..Head::default()
            }),
            killed: false,
            pgid,
        }),
        changed,
    });
    let fut = supervise(Arc::clone(&proc), child, stdout, stderr, opts.clone());
    Ok((proc, fut))
}

async fn pump(proc: Arc<Proc>, stream: Stream, mut pipe: impl AsyncRead + Unpin, read_size: usize) {
    let mut buf = vec![0u8; read_size];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => proc.append(stream, &buf[..n]),
        }
    }
}

async fn supervise(
    proc: Arc<Proc>,
    mut child: Child,
    stdout: Option<tokio::process::ChildStdout>,
    stderr: Option<tokio::process::ChildStderr>,
    opts: SpawnOptions,
) {
    let mut pumps = Vec::new();
    if let Some(out) = stdout {
        pumps.push(tokio::spawn(pump(
            Arc::clone(&proc),
            Stream::Stdout,
            out,
            opts.read_size,
        )));
    }
    if let Some(err) = stderr {
        pumps.push(tokio::spawn(pump(
            Arc::clone(&proc),
            Stream::Stderr,
            err,
            opts.read_size,
        )));
    }

    let mut timed_out = false;
    let status = match opts.timeout {
        Some(limit) => match tokio::time::timeout(limit, child.wait()).await {
            Ok(status) => status,
            Err(_) => {
                timed_out = true;
                proc.kill_group();
                child.wait().await
            }
        },
        None => child.wait().await,
    };

    // The exit frame must come after every byte: let the pipes drain, but do
    // not wait forever for descendants that keep them open.
    let aborts: Vec<_> = pumps.iter().map(|p| p.abort_handle()).collect();
    let drain = async {
        for p in pumps {
            let _ = p.await;
        }
    };
    tokio::pin!(drain);
    if tokio::time::timeout(opts.drain_grace, &mut drain)
        .await
        .is_err()
    {
        proc.kill_group();
        if tokio::time::timeout(Duration::from_millis(500), &mut drain)
            .await
            .is_err()
        {
            // A process outside the group holds the pipe: stop reading.
            for a in aborts {
                a.abort();
            }
        }
    }

    if let Some(running) = &opts.running {
        running.fetch_sub(1, Ordering::AcqRel);
    }
    {
        let mut st = proc.lock();
        let exit_code = if timed_out || st.killed {
            None
        } else {
            status.ok().and_then(|s| s.code())
        };
        st.exit = Some(ExitInfo {
            exit_code,
            timed_out,
        });
        st.exited_at = Some(Instant::now());
        st.pgid = None;
    }
    proc.notify();
}

/// Kills the group of a process that is still running (server shutdown).
pub(crate) fn shutdown_kill(proc: &Proc) {
    proc.kill_group();
}
