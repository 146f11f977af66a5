//! # dory-wire
//!
//! A sans-IO decoder for the process-output protocol of the Dory agent-computer
//! service (crate guide written below; see `docs/PROTOCOL.md`).
#![forbid(unsafe_code)]
#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod error;
mod frame;
mod json;
mod offsets;
pub mod preview;
mod reader;
mod transcript;
mod types;

pub use error::Error;
pub use reader::{Reader, ReaderState};
pub use transcript::{Piece, StreamTranscript, Transcript, Utf8Decoder};
pub use types::*;
