//! The offset tracker: where a chunk falls relative to what was consumed.
//!
//! Invariant: the cursor of a stream only moves forward, and only over bytes
//! that were delivered (or explicitly skipped).

use crate::{Cursor, Stream};

/// Where a chunk `[start, end)` falls relative to the consumed offset `C`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// `start <= C < end`: deliver the chunk's bytes from index `skip` on
    /// (`skip > 0` is overlap re-sent after a reconnect).
    Deliver { skip: usize },
    /// `end <= C`: everything was already consumed.
    Duplicate,
    /// `start > C`: bytes `[C, start)` are missing.
    Hole { from: u64, to: u64 },
}

/// Places the chunk of `len` bytes ending at `end` against the cursor.
/// The caller guarantees `len <= end`.
pub(crate) fn place(cursor: &Cursor, stream: Stream, len: usize, end: u64) -> Placement {
    let consumed = cursor.get(stream);
    let start = end - len as u64;
    if start > consumed {
        Placement::Hole {
            from: consumed,
            to: start,
        }
    } else if end <= consumed {
        Placement::Duplicate
    } else {
        // consumed - start < len, so it fits in usize.
        Placement::Deliver {
            skip: (consumed - start) as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements() {
        let c = Cursor::new(10, 0);
        assert_eq!(
            place(&c, Stream::Stdout, 5, 15),
            Placement::Deliver { skip: 0 }
        );
        assert_eq!(
            place(&c, Stream::Stdout, 10, 15),
            Placement::Deliver { skip: 5 }
        );
        assert_eq!(place(&c, Stream::Stdout, 5, 10), Placement::Duplicate);
        assert_eq!(place(&c, Stream::Stdout, 0, 10), Placement::Duplicate);
        assert_eq!(
            place(&c, Stream::Stdout, 0, 11),
            Placement::Hole { from: 10, to: 11 }
        );
        assert_eq!(
            place(&c, Stream::Stderr, 2, 4),
            Placement::Hole { from: 0, to: 2 }
        );
    }
}
