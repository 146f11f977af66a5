//! Shared code of the dory-wire fuzz targets: how a fuzz input is read as a
//! configuration plus a body, the invariants every target checks, the valid
//! stream generator and the plain reference decoder of the differential target.
//!
//! Every target starts with a fixed-size header read by [`Header`]; the rest of
//! the input is the body (or the preview input). The layouts are documented on
//! [`reader::ReaderSetup`], [`document::DocumentSetup`] and
//! [`preview::PreviewSetup`]; `seed_corpus.py` writes seeds in the same layouts.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod conversation;
pub mod differential;
pub mod document;
pub mod preview;
pub mod reader;
pub mod reference;
pub mod run;
pub mod run_conversation;
pub mod split;
pub mod streamgen;

/// A fixed-size header at the start of a fuzz input: bytes past the end of a
/// short input read as zero, so every input is a valid configuration.
#[derive(Debug, Clone, Copy)]
pub struct Header<'a> {
    bytes: &'a [u8],
}

impl<'a> Header<'a> {
    /// Splits `data` into a header of `len` bytes (zero-padded) and the rest.
    pub fn split(data: &'a [u8], len: usize) -> (Self, &'a [u8]) {
        let cut = data.len().min(len);
        (
            Header {
                bytes: &data[..cut],
            },
            &data[cut..],
        )
    }

    /// Byte `i` (0 past the end of a short input).
    pub fn u8(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    /// Little-endian `u16` at `i`.
    pub fn u16(&self, i: usize) -> u16 {
        u16::from_le_bytes([self.u8(i), self.u8(i + 1)])
    }

    /// Little-endian `u32` at `i`.
    pub fn u32(&self, i: usize) -> u32 {
        u32::from_le_bytes([self.u8(i), self.u8(i + 1), self.u8(i + 2), self.u8(i + 3)])
    }
}

/// Lines of `data` as the preview contract counts them: runs ending with
/// `\n`, plus a final run without `\n` when non-empty.
pub fn count_lines(data: &[u8]) -> u64 {
    let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(data.last().is_some_and(|&b| b != b'\n'))
}
