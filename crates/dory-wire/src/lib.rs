//! # dory-wire
//!
//! One verified, sans-IO implementation of the process-output protocol of the
//! Dory agent-computer service: the decoding that every SDK (Rust, Python,
//! TypeScript) needs and that each used to re-implement, and re-break.
//!
//! A sandbox runs commands for AI agents and streams their output as NDJSON
//! frames. This crate turns the bytes of such an HTTP response into exact
//! output bytes and a resume cursor, and refuses to lose output silently. It
//! does no IO and reads no clock: you bring the HTTP client, the bytes and
//! the time. The wire contract it implements, with every choice it makes
//! where the service documentation is silent, is `docs/PROTOCOL.md`; the
//! shared conformance vectors in `tests/vectors` are its executable form.
//!
//! ## The four parts
//!
//! 1. **Frame decoder** — incremental NDJSON, split anywhere; the frame union
//!    of the endpoint (exec stream, process output, setup logs) or a JSON
//!    document, chosen by the response's Content-Type, not by what was asked;
//!    strict JSON (lone surrogates rejected), strict base64; a line limit
//!    enforced before the newline arrives, so memory is bounded on any input.
//! 2. **Offset tracker** — a per-stream byte cursor. Offsets count raw bytes,
//!    never characters. Overlap re-sent after a reconnect is trimmed,
//!    duplicates dropped, holes detected.
//! 3. **Gap detector** — holes, `gap` frames, 409 `output_gap`, 410, 400: lost
//!    output is [`Error::OutputGap`] unless you chose [`GapPolicy::Skip`], and
//!    then every loss is an [`Event::Skipped`] with its exact byte range.
//! 4. **Preview bounder** ([`preview`]) — oversized output becomes a bounded
//!    head + tail preview with an exact one-line notice pointing at the full
//!    output, which the caller saved.
//!
//! ## The state machine, before the API
//!
//! A [`Reader`] decodes **one HTTP response**:
//!
//! ```text
//!            open(status, content-type, CE-Process-Id)
//!   New ─────────────────────────────────────────────▶ Open ──feed(bytes)──┐
//!                                                       ▲  └───────────────┘
//!                                                       │ finish()
//!                                                       ▼
//!                          Done: End::Exited | End::Disconnected{cursor} | End::Document
//!   any error ─▶ Failed: every later call returns the same error (sticky)
//! ```
//!
//! * `open` decides what the body is: a 2xx NDJSON **frame stream**, a 2xx
//!   JSON **document** (identity or result — a keyed replay of a streaming
//!   start answers JSON even though NDJSON was asked), or an **error body**
//!   (any other status: 409, 410, 400 and the rest become typed errors).
//! * `feed` takes body bytes in pieces of any size and appends the events
//!   that complete lines produce. Offsets advance only on complete,
//!   validated frames; a partial last line is discarded at the end and read
//!   again after reconnecting.
//! * `finish` reports how the response ended. **`Exited`**: the output is
//!   complete. **`Disconnected`**: the body ended without `exit` (the
//!   connection dropped, a `gap` was skipped, or the stream stalled):
//!   reconnect to *process output* with [`End::Disconnected::cursor`] —
//!   never start the command again to recreate output.
//! * Liveness without a clock: [`Reader::poll_timeout`] says until when to
//!   wait for bytes, [`Reader::handle_timeout`] says whether the stream
//!   stalled.
//! * Across responses, carry a [`Cursor`] — or a [`ResumeState`], plain
//!   serde data with a version field that survives a restart.
//!
//! ## Example: follow a process's output across disconnects
//!
//! ```
//! use dory_wire::{Cursor, End, Endpoint, Error, Event, Reader, ReaderOptions, Stream, Transcript};
//!
//! /// Stands in for an HTTP GET of
//! /// `/computers/{id}/processes/{proc_id}/output?stdout_offset=N&stderr_offset=M&follow=true`.
//! /// The first connection drops in the middle of a frame; the server
//! /// re-sends from a chunk boundary, and the reader trims the overlap.
//! fn get_output(attempt: usize, _from: Cursor) -> (u16, &'static str, &'static [u8]) {
//!     let first: &[u8] = b"{\"type\":\"stdout\",\"data\":\"hello\\u0000\",\"offset\":6}\n{\"type\":\"stdo";
//!     let second: &[u8] = concat!(
//!         "{\"type\":\"stdout\",\"data\":\"hello\\u0000\",\"offset\":6}\n",
//!         "{\"type\":\"stdout\",\"data\":\"/w==\",\"encoding\":\"base64\",\"offset\":7}\n",
//!         "{\"type\":\"stderr\",\"data\":\"notice\",\"offset\":6}\n",
//!         "{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n",
//!     ).as_bytes();
//!     (200, "application/x-ndjson", if attempt == 0 { first } else { second })
//! }
//!
//! let mut cursor = Cursor::default();
//! let mut transcript = Transcript::new();
//! for attempt in 0..3 {
//!     let (status, content_type, body) = get_output(attempt, cursor);
//!     let mut reader = Reader::new(Endpoint::ProcessOutput, cursor, ReaderOptions::default());
//!     reader.open(status, content_type, None)?;
//!     let mut events = Vec::new();
//!     for piece in body.chunks(7) {
//!         // As the HTTP client yields them.
//!         reader.feed(piece, &mut events)?;
//!         for event in events.drain(..) {
//!             transcript.push(&event);
//!         }
//!     }
//!     match reader.finish(&mut events)? {
//!         End::Exited { exit_code, .. } => {
//!             assert_eq!(exit_code, Some(0));
//!             break;
//!         }
//!         End::Disconnected { cursor: resume_from, .. } => cursor = resume_from,
//!         _ => unreachable!("process output is a frame stream"),
//!     }
//! }
//! assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"hello\0\xff");
//! assert_eq!(transcript.stream(Stream::Stderr).bytes(), b"notice");
//! # Ok::<(), Error>(())
//! ```
//!
//! Lost output is never joined over silently:
//!
//! ```
//! use dory_wire::{Cursor, Endpoint, Error, GapPolicy, Reader, ReaderOptions, Stream};
//!
//! let body = b"{\"type\":\"gap\",\"earliest_stdout_offset\":1048576,\"earliest_stderr_offset\":0}\n";
//! let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::new(4096, 0), ReaderOptions::default());
//! reader.open(200, "application/x-ndjson", None)?;
//! let err = reader.feed(body, &mut Vec::new()).unwrap_err();
//! assert_eq!(err.code(), "output_gap");
//! assert!(matches!(err, Error::OutputGap { stream: Stream::Stdout, .. }));
//!
//! // Skipping is an explicit choice, and the loss stays visible.
//! let options = ReaderOptions::default().gap_policy(GapPolicy::Skip);
//! let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::new(4096, 0), options);
//! reader.open(200, "application/x-ndjson", None)?;
//! let mut events = Vec::new();
//! reader.feed(body, &mut events)?;
//! assert_eq!(
//!     events,
//!     vec![dory_wire::Event::Skipped { stream: Stream::Stdout, start: 4096, end: 1048576 }]
//! );
//! # Ok::<(), Error>(())
//! ```
//!
//! ## Guarantees
//!
//! * `#![forbid(unsafe_code)]`; no panic on any input (property-tested and
//!   fuzzed); memory bounded by `max_frame_bytes` (default 16 MiB) whatever
//!   the input ([`Reader::buffered_bytes`]).
//! * The same bytes give the same events however they are split.
//! * Errors are values with stable [`Error::code`] strings, the same in the
//!   Rust, Python and JavaScript packages: one table, [`ERROR_CODES`], gives
//!   each code its class name, its [`ErrorKind`] and its fields
//!   ([`Error::fields`]), and the bindings build their error classes from it.
#![forbid(unsafe_code)]
#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod answer;
mod ere;
mod error;
mod follow;
mod frame;
mod gaps;
mod json;
pub mod names;
mod offsets;
pub mod preview;
mod reader;
pub mod records;
mod request;
mod run;
pub mod search;
mod sink;
pub mod tokens;
mod transcript;
mod types;

pub use answer::{exec_answer, identity_answer};
pub use error::{Error, ErrorCode, ErrorKind, FieldValue, ERROR_CODES};
pub use follow::{
    http_status, Decision, Done, FollowOptions, Follower, FollowerState, Reconnect,
    DEFAULT_BACKOFF, DEFAULT_MAX_BACKOFF, DEFAULT_RETRIES, HTTP_STATUSES,
};
pub use frame::{wire_form, Encoding};
pub use reader::{Reader, ReaderState};
pub use request::{base_url, Command, Method, Request, Wait, BASE_URL_ENV};
pub use run::{
    fresh_run_key, Run, RunAction, RunActionBuf, RunOptions, RunResult, RunSink, RunState, RunStep,
    DEFAULT_ANSWER_TIMEOUT,
};
pub use sink::Sink;
pub use transcript::{Piece, StreamTranscript, Transcript, Utf8Decoder};
pub use types::*;
