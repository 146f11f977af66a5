//! Line framing: cuts a body fed in pieces of any size into complete NDJSON
//! lines, numbered from 1, without copying lines that arrive whole.
//!
//! Invariants:
//! - `partial` holds the bytes after the last `\n` fed, and never more than
//!   `max` of them: a line longer than `max` is `frame_too_large` as soon as
//!   that is known, before its newline arrives.
//! - Every complete line is handed on exactly once, in order, without its
//!   `\n`, with its 1-based number; blank lines count.
//! - The same bytes give the same lines however they are split.

use memchr::{memchr, memchr_iter};

use crate::Error;

/// The partial-line buffer and the line counter of one frame stream.
#[derive(Debug)]
pub(super) struct Lines {
    /// The bytes of an incomplete line.
    partial: Vec<u8>,
    /// The longest line accepted (`max_frame_bytes`).
    max: usize,
    /// 1-based number of the last complete line.
    number: u64,
}

impl Lines {
    pub(super) fn new(max: usize) -> Self {
        Lines {
            partial: Vec::new(),
            max,
            number: 0,
        }
    }

    /// Bytes held for an incomplete line.
    pub(super) fn buffered(&self) -> usize {
        self.partial.len()
    }

    /// How many lines were complete so far.
    pub(super) fn completed(&self) -> u64 {
        self.number
    }

    /// Cuts `data` into lines and calls `line(bytes, number)` for each
    /// complete one; keeps the incomplete rest. Stops at the first error.
    #[inline]
    pub(super) fn feed<F>(&mut self, mut data: &[u8], mut line: F) -> Result<(), Error>
    where
        F: FnMut(&[u8], u64) -> Result<(), Error>,
    {
        let max = self.max;
        if !self.partial.is_empty() {
            let Some(i) = memchr(b'\n', data) else {
                if self.partial.len() + data.len() > max {
                    return Err(Error::FrameTooLarge { limit: max });
                }
                self.partial.extend_from_slice(data);
                return Ok(());
            };
            if self.partial.len() + i > max {
                return Err(Error::FrameTooLarge { limit: max });
            }
            let mut joined = std::mem::take(&mut self.partial);
            joined.extend_from_slice(&data[..i]);
            data = &data[i + 1..];
            self.number += 1;
            line(&joined, self.number)?;
            // Keep the allocation for the next partial line.
            joined.clear();
            self.partial = joined;
        }
        // One iterator over the piece: its vector search state is kept between
        // lines instead of being set up again for every short line.
        let mut start = 0;
        for end in memchr_iter(b'\n', data) {
            if end - start > max {
                return Err(Error::FrameTooLarge { limit: max });
            }
            self.number += 1;
            line(&data[start..end], self.number)?;
            start = end + 1;
        }
        let rest = &data[start..];
        if rest.len() > max {
            return Err(Error::FrameTooLarge { limit: max });
        }
        self.partial.extend_from_slice(rest);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbered lines handed on, how feeding ended, the bytes still held.
    type Outcome = (Vec<(Vec<u8>, u64)>, Result<(), Error>, usize);

    fn lines_of(pieces: &[&[u8]], max: usize) -> Outcome {
        let mut lines = Lines::new(max);
        let mut out = Vec::new();
        for piece in pieces {
            let result = lines.feed(piece, |l, n| {
                out.push((l.to_vec(), n));
                Ok(())
            });
            if result.is_err() {
                return (out, result, lines.buffered());
            }
        }
        (out, Ok(()), lines.buffered())
    }

    #[test]
    fn lines_are_the_same_however_split() {
        let body: &[u8] = b"ab\n\ncdef\r\ngh";
        let whole = lines_of(&[body], 8);
        assert_eq!(
            whole.0,
            vec![
                (b"ab".to_vec(), 1),
                (b"".to_vec(), 2),
                (b"cdef\r".to_vec(), 3)
            ]
        );
        assert_eq!(whole.2, 2, "\"gh\" waits for its newline");
        let bytewise: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(lines_of(&bytewise, 8), whole);
        for cut in 0..=body.len() {
            assert_eq!(lines_of(&[&body[..cut], &body[cut..]], 8), whole);
        }
    }

    #[test]
    fn a_long_line_fails_before_its_newline() {
        let (_, result, buffered) = lines_of(&[b"ok\n12", b"345", b"6"], 5);
        assert_eq!(result, Err(Error::FrameTooLarge { limit: 5 }));
        assert!(buffered <= 5);
        // Exactly the limit is accepted, whole or joined.
        let (out, result, _) = lines_of(&[b"123", b"45\n12345\n"], 5);
        assert_eq!(result, Ok(()));
        assert_eq!(out.len(), 2);
    }
}
