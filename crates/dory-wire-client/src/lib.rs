//! # dory-wire-client
//!
//! The HTTP client of the Dory process API, on [`reqwest`] and tokio: the same
//! calls, names and defaults as `dory_wire.client` (Python) and
//! `dory-wire/client` (JavaScript). It does sockets, timers and sleeping, and
//! nothing else: every request is built by the [`dory_wire`] core, every byte
//! is decoded by it, and every reconnect — when, after how long, when to give
//! up — is decided by its [`Follower`](dory_wire::Follower).
//!
//! ```no_run
//! use dory_wire::Stream;
//! use dory_wire_client::{Client, ReadOptions, StartOptions};
//!
//! # async fn run() -> Result<(), dory_wire::Error> {
//! let client = Client::new(None)?; // base URL: the DORY_URL environment variable
//! let computer = client.computers().get("c1");
//! let command = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"];
//! let started = computer
//!     .processes()
//!     .start(command, StartOptions::new().timeout_seconds(30.0).idempotency_key("key-1"))
//!     .await?;
//! let process = computer.processes().get(&started.proc_id).await?;
//! // The whole output, through any number of dropped connections; never re-run.
//! let options = ReadOptions::new().on_reconnect(|r| eprintln!("reconnect {}: {}", r.attempt, r.reason.as_str()));
//! let transcript = process.read_output(options).await?;
//! assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"hello\0\xff");
//! process.kill().await?;
//! # Ok(()) }
//! ```
//!
//! ## One call for agents
//!
//! [`Computer::run`] starts a command as a keyed background process,
//! follows it exactly, and returns a [`RunResult`]: the exit and bounded
//! previews of stdout, stderr and both combined in arrival order, with the
//! full output of each cut view saved as it streamed by a [`RunSpill`]
//! such as [`SpillDirectory`] (`docs/run.md`).
//!
//! ```no_run
//! use dory_wire_client::{Client, RunOptions, SpillDirectory};
//!
//! # async fn run() -> Result<(), dory_wire::Error> {
//! let computer = Client::new(None)?.computers().get("c1");
//! let options = RunOptions::new()
//!     .max_bytes(4096) // model-sized
//!     .spill(SpillDirectory::new("/workspace/.tool-output"))
//!     .on_output(|stream, _bytes, text| eprint!("[{}] {text}", stream.as_str()));
//! let result = computer.run("cargo test", options).await?;
//! println!("exit {:?}\n{}", result.exit_code, result.combined.text);
//! # Ok(()) }
//! ```
//!
//! ## Errors
//!
//! Every error is a [`dory_wire::Error`]. A connection refused or reset, a
//! body cut short and a stream stalled past the liveness timeout are the one
//! [`Error::StreamDisconnected`](dory_wire::Error::StreamDisconnected) (code
//! `stream_disconnected`, kind `transport`, with the reason and the offsets to
//! resume from) once the follower's budget is spent; loss, answer and
//! protocol errors are the core's, never retried. Nothing a server sends is
//! unwrapped.
//!
//! ## Blocking
//!
//! With the `blocking` feature, [`blocking::Client`] offers the same calls
//! without `async`: the same code, driven on a current-thread tokio runtime
//! the client owns — one implementation, so the two flavours cannot drift
//! apart (reqwest's own blocking client would be a second IO loop).
#![forbid(unsafe_code)]
#![warn(clippy::unwrap_used)]

mod client;
mod frame;
mod resources;
mod run;
mod search;
mod spill;
mod stream;

#[cfg(feature = "blocking")]
pub mod blocking;

pub use client::{Client, ClientBuilder, DEFAULT_TIMEOUT, ENV_URL};
pub use frame::{Encoding, Frame, FrameType};
pub use resources::{
    CommandArg, Computer, Computers, ExecAnswer, Process, Processes, ReadOptions, Setup,
    StartOptions,
};
pub use run::{RunOptions, RunResult};
pub use search::{search_file, SearchFileError};
pub use spill::{RunSpill, SpillDirectory};
pub use stream::{Frames, OutputStream, ReconnectHook};

/// The result of every call: a value, or the core's error.
pub type Result<T> = std::result::Result<T, dory_wire::Error>;
