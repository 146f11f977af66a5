//! The blocking client: the same calls as the async [`Client`](crate::Client),
//! without `async` — the same code, on a current-thread tokio runtime the
//! client owns. Do not call it from inside an async runtime (use the async
//! client there).
//!
//! ```no_run
//! use dory_wire_client::blocking::Client;
//! use dory_wire_client::{ReadOptions, StartOptions};
//!
//! let client = Client::new(None)?; // $DORY_URL
//! let computer = client.computers().get("c1");
//! let started = computer.processes().start("echo hi", StartOptions::new())?;
//! let process = computer.processes().get(&started.proc_id)?;
//! for frame in process.iter_output(ReadOptions::new())? {
//!     let frame = frame?;
//!     println!("{} {:?} (stdout offset {})", frame.frame_type.as_str(), frame.bytes, frame.stdout_offset());
//! }
//! # Ok::<(), dory_wire::Error>(())
//! ```

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use dory_wire::{Error, Identity, ResumeState, Transcript};
use tokio::runtime::Runtime;

use crate::resources::CommandArg;
use crate::run::KillSlot;
use crate::{
    ClientBuilder, ExecAnswer, Frame, ReadOptions, Result, RunOptions, RunResult, StartOptions,
};

fn runtime() -> Result<Arc<Runtime>> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(Arc::new)
        .map_err(|e| Error::InvalidState {
            reason: format!("cannot start the blocking client's runtime: {e}"),
        })
}

/// A blocking client of the Dory API (see [`crate::Client`]).
#[derive(Debug, Clone)]
pub struct Client {
    inner: crate::Client,
    rt: Arc<Runtime>,
}

impl Client {
    /// A client of the API at `base_url` (else `$DORY_URL`).
    pub fn new(base_url: Option<&str>) -> Result<Client> {
        Client::from_async(crate::Client::new(base_url)?)
    }

    /// A client from a builder of the async client.
    pub fn from_builder(builder: ClientBuilder) -> Result<Client> {
        Client::from_async(builder.build()?)
    }

    fn from_async(inner: crate::Client) -> Result<Client> {
        Ok(Client {
            inner,
            rt: runtime()?,
        })
    }

    /// The API's base URL.
    pub fn base_url(&self) -> &str {
        self.inner.base_url()
    }

    /// The computers.
    pub fn computers(&self) -> Computers {
        Computers {
            inner: self.inner.computers(),
            rt: self.rt.clone(),
        }
    }
}

/// The computers of a blocking [`Client`].
#[derive(Debug, Clone)]
pub struct Computers {
    inner: crate::Computers,
    rt: Arc<Runtime>,
}

impl Computers {
    /// The computer `computer_id` (sends no request).
    pub fn get(&self, computer_id: impl Into<String>) -> Computer {
        Computer {
            inner: self.inner.get(computer_id),
            rt: self.rt.clone(),
        }
    }
}

/// One computer (see [`crate::Computer`]).
#[derive(Debug, Clone)]
pub struct Computer {
    inner: crate::Computer,
    rt: Arc<Runtime>,
}

impl Computer {
    /// The computer's id.
    pub fn id(&self) -> &str {
        self.inner.id()
    }

    /// Its processes.
    pub fn processes(&self) -> Processes {
        Processes {
            inner: self.inner.processes(),
            rt: self.rt.clone(),
        }
    }

    /// Its setup logs.
    pub fn setup(&self) -> Setup {
        Setup {
            inner: self.inner.setup(),
            rt: self.rt.clone(),
        }
    }

    /// Runs `command` and waits for its exit (see [`crate::Computer::exec`]).
    pub fn exec(
        &self,
        command: impl Into<CommandArg>,
        options: StartOptions,
    ) -> Result<ExecAnswer> {
        self.rt.block_on(self.inner.exec(command, options))
    }

    /// Runs `command` and returns its bounded previews (see
    /// [`crate::Computer::run`]): the same code, driven on the client's
    /// runtime.
    ///
    /// A blocking call cannot be cancelled from outside. If a hook (the
    /// live output hook, the reconnect hook, a spill writer) panics, the
    /// panic is resumed after the call is torn down as a cancellation is:
    /// spills not committed are discarded, and with
    /// [`kill_on_cancel`](RunOptions::kill_on_cancel) the kill request is
    /// sent, and waited for, before the panic continues.
    pub fn run(&self, command: impl Into<CommandArg>, options: RunOptions) -> Result<RunResult> {
        let slot = KillSlot::default();
        let run = self
            .inner
            .run_with(command.into(), options, Some(slot.clone()));
        match catch_unwind(AssertUnwindSafe(|| self.rt.block_on(run))) {
            Ok(result) => result,
            Err(panic) => {
                let kill = slot.lock().ok().and_then(|mut s| s.take());
                if let Some(kill) = kill {
                    let _ = self.rt.block_on(kill);
                }
                resume_unwind(panic)
            }
        }
    }

    /// Runs `command` and streams its frames (see [`crate::Computer::exec_stream`]).
    pub fn exec_stream(
        &self,
        command: impl Into<CommandArg>,
        options: StartOptions,
        read: ReadOptions,
    ) -> Result<OutputStream> {
        Ok(OutputStream {
            inner: self.inner.exec_stream(command, options, read)?,
            rt: self.rt.clone(),
        })
    }
}

/// The processes of one computer (see [`crate::Processes`]).
#[derive(Debug, Clone)]
pub struct Processes {
    inner: crate::Processes,
    rt: Arc<Runtime>,
}

impl Processes {
    /// Starts `command` in the background.
    pub fn start(&self, command: impl Into<CommandArg>, options: StartOptions) -> Result<Identity> {
        self.rt.block_on(self.inner.start(command, options))
    }

    /// The process `proc_id`.
    pub fn get(&self, proc_id: &str) -> Result<Process> {
        Ok(Process {
            inner: self.rt.block_on(self.inner.get(proc_id))?,
            rt: self.rt.clone(),
        })
    }

    /// Kills the process.
    pub fn kill(&self, proc_id: &str) -> Result<Identity> {
        self.rt.block_on(self.inner.kill(proc_id))
    }
}

/// One process (see [`crate::Process`]).
#[derive(Debug, Clone)]
pub struct Process {
    inner: crate::Process,
    rt: Arc<Runtime>,
}

impl Process {
    /// The identity answered when the handle was made.
    pub fn identity(&self) -> &Identity {
        self.inner.identity()
    }

    /// The process id.
    pub fn proc_id(&self) -> &str {
        self.inner.proc_id()
    }

    /// The retained output, frame by frame, over one response.
    pub fn iter_output(&self, options: ReadOptions) -> Result<OutputStream> {
        Ok(OutputStream {
            inner: self.inner.iter_output(options)?,
            rt: self.rt.clone(),
        })
    }

    /// The whole output, reconnecting as the core's follower decides.
    pub fn read_output(&self, options: ReadOptions) -> Result<Transcript> {
        self.rt.block_on(self.inner.read_output(options))
    }

    /// The output from a saved resume state.
    pub fn resume_output(&self, state: &ResumeState, options: ReadOptions) -> Result<Transcript> {
        self.rt.block_on(self.inner.resume_output(state, options))
    }

    /// Kills the process.
    pub fn kill(&self) -> Result<Identity> {
        self.rt.block_on(self.inner.kill())
    }
}

/// The setup logs (see [`crate::Setup`]).
#[derive(Debug, Clone)]
pub struct Setup {
    inner: crate::Setup,
    rt: Arc<Runtime>,
}

impl Setup {
    /// The logs, frame by frame, over one response.
    pub fn iter_logs(&self, options: ReadOptions) -> Result<OutputStream> {
        Ok(OutputStream {
            inner: self.inner.iter_logs(options)?,
            rt: self.rt.clone(),
        })
    }

    /// The whole log, reconnecting as needed.
    pub fn read_logs(&self, options: ReadOptions) -> Result<Transcript> {
        self.rt.block_on(self.inner.read_logs(options))
    }
}

/// The frames of a read, as an [`Iterator`] (see [`crate::OutputStream`]).
#[derive(Debug)]
pub struct OutputStream {
    inner: crate::OutputStream,
    rt: Arc<Runtime>,
}

impl OutputStream {
    /// The consumed stdout offset.
    pub fn stdout_offset(&self) -> u64 {
        self.inner.stdout_offset()
    }

    /// The consumed stderr offset.
    pub fn stderr_offset(&self) -> u64 {
        self.inner.stderr_offset()
    }

    /// The consumed offsets.
    pub fn cursor(&self) -> dory_wire::Cursor {
        self.inner.cursor()
    }

    /// The process, once known.
    pub fn proc_id(&self) -> Option<&str> {
        self.inner.proc_id()
    }
}

impl Iterator for OutputStream {
    type Item = Result<Frame>;

    fn next(&mut self) -> Option<Result<Frame>> {
        self.rt.block_on(self.inner.next())
    }
}
