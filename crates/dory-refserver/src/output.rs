//! Retained output of one process: chunks in arrival order, per-stream byte
//! offsets and eviction of the oldest complete chunks.
//!
//! Invariants:
//! - `chunks` holds the retained chunks in arrival order; chunk number
//!   `first_seq + i` is `chunks[i]`. Sequence numbers never repeat.
//! - For each stream, `earliest[s] <= produced[s]`; the retained chunks of a
//!   stream cover exactly `[earliest[s], produced[s])` with no hole.
//! - `retained_bytes` is the sum of the retained chunks' lengths and stays at
//!   or below the limit after every `push` (a chunk longer than the limit is
//!   evicted at once: its bytes are counted as produced, none retained).

use std::collections::VecDeque;

use bytes::Bytes;

/// One of the two output streams of a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Standard output (and, in setup logs, the merged combined stream).
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// Index into per-stream arrays (`[stdout, stderr]`).
    pub(crate) fn index(self) -> usize {
        match self {
            Stream::Stdout => 0,
            Stream::Stderr => 1,
        }
    }

    /// The frame `type` of a chunk of this stream.
    pub(crate) fn frame_type(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// A retained piece of one stream.
#[derive(Clone, Debug)]
pub(crate) struct Chunk {
    /// Which stream the bytes belong to.
    pub(crate) stream: Stream,
    /// Byte position at the end of the chunk in its stream.
    pub(crate) end: u64,
    /// The raw bytes.
    pub(crate) data: Bytes,
}

impl Chunk {
    /// Byte position at the start of the chunk in its stream.
    #[cfg(test)]
    pub(crate) fn start(&self) -> u64 {
        self.end - self.data.len() as u64
    }
}

/// The retained output of one process (or of setup).
#[derive(Debug)]
pub(crate) struct Retained {
    chunks: VecDeque<Chunk>,
    first_seq: u64,
    retained_bytes: usize,
    limit: usize,
    produced: [u64; 2],
    earliest: [u64; 2],
}

impl Retained {
    /// An empty store that keeps at most `limit` raw bytes across both streams.
    pub(crate) fn new(limit: usize) -> Self {
        Retained {
            chunks: VecDeque::new(),
            first_seq: 0,
            retained_bytes: 0,
            limit,
            produced: [0; 2],
            earliest: [0; 2],
        }
    }

    /// Appends a chunk read from `stream`, then evicts the oldest complete
    /// chunks until the store fits its limit again. Never blocks.
    pub(crate) fn push(&mut self, stream: Stream, data: Bytes) {
        if data.is_empty() {
            return;
        }
        let i = stream.index();
        self.produced[i] = self.produced[i].saturating_add(data.len() as u64);
        self.retained_bytes += data.len();
        self.chunks.push_back(Chunk {
            stream,
            end: self.produced[i],
            data,
        });
        while self.retained_bytes > self.limit {
            self.evict_oldest();
        }
    }

    fn evict_oldest(&mut self) {
        if let Some(chunk) = self.chunks.pop_front() {
            self.first_seq += 1;
            self.retained_bytes -= chunk.data.len();
            // The stream's next retained chunk (if any) starts where this one ended.
            self.earliest[chunk.stream.index()] = chunk.end;
        }
    }

    /// Drops every retained chunk (used when output expires). Offsets stay.
    pub(crate) fn clear(&mut self) {
        while !self.chunks.is_empty() {
            self.evict_oldest();
        }
    }

    /// Bytes produced so far per stream (`[stdout, stderr]`).
    pub(crate) fn produced(&self) -> [u64; 2] {
        self.produced
    }

    /// Earliest retained offset per stream (`[stdout, stderr]`).
    pub(crate) fn earliest(&self) -> [u64; 2] {
        self.earliest
    }

    /// Sequence number of the oldest retained chunk.
    pub(crate) fn first_seq(&self) -> u64 {
        self.first_seq
    }

    /// Sequence number the next pushed chunk will get.
    #[cfg(test)]
    pub(crate) fn end_seq(&self) -> u64 {
        self.first_seq + self.chunks.len() as u64
    }

    /// The retained chunk with sequence number `seq`, if still retained.
    pub(crate) fn get(&self, seq: u64) -> Option<&Chunk> {
        let idx = seq.checked_sub(self.first_seq)?;
        self.chunks.get(usize::try_from(idx).ok()?)
    }

    /// Raw bytes currently retained across both streams.
    #[cfg(test)]
    pub(crate) fn retained_bytes(&self) -> usize {
        self.retained_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    #[test]
    fn offsets_are_per_stream_end_positions() {
        let mut r = Retained::new(100);
        r.push(Stream::Stdout, b("hello"));
        r.push(Stream::Stderr, b("ab"));
        r.push(Stream::Stdout, b("!"));
        assert_eq!(r.produced(), [6, 2]);
        assert_eq!(r.earliest(), [0, 0]);
        let ends: Vec<u64> = (r.first_seq()..r.end_seq())
            .map(|s| r.get(s).map(|c| c.end).unwrap_or(u64::MAX))
            .collect();
        assert_eq!(ends, vec![5, 2, 6]);
        assert_eq!(r.get(2).map(Chunk::start), Some(5));
    }

    #[test]
    fn evicts_oldest_complete_chunks_and_tracks_earliest() {
        let mut r = Retained::new(10);
        r.push(Stream::Stdout, b("aaaa")); // seq 0, stdout [0,4)
        r.push(Stream::Stderr, b("bbbb")); // seq 1, stderr [0,4)
        r.push(Stream::Stdout, b("cccc")); // seq 2 -> evicts seq 0
        assert_eq!(r.first_seq(), 1);
        assert_eq!(r.earliest(), [4, 0]);
        assert_eq!(r.retained_bytes(), 8);
        r.push(Stream::Stdout, b("dddddd")); // 14 bytes: evicts seq 1 only
        assert_eq!(r.first_seq(), 2);
        assert_eq!(r.earliest(), [4, 4]);
        assert_eq!(r.retained_bytes(), 10);
        r.push(Stream::Stdout, b("e")); // evicts seq 2
        assert_eq!(r.earliest(), [8, 4]);
        assert_eq!(r.produced(), [15, 4]);
        assert!(r.get(2).is_none());
        assert_eq!(r.get(3).map(|c| c.end), Some(14));
    }

    #[test]
    fn oversized_chunk_is_counted_but_not_retained() {
        let mut r = Retained::new(3);
        r.push(Stream::Stderr, b("toolong"));
        assert_eq!(r.produced(), [0, 7]);
        assert_eq!(r.earliest(), [0, 7]);
        assert_eq!(r.retained_bytes(), 0);
        assert_eq!(r.first_seq(), r.end_seq());
    }

    #[test]
    fn clear_keeps_offsets() {
        let mut r = Retained::new(100);
        r.push(Stream::Stdout, b("xy"));
        r.clear();
        assert_eq!(r.earliest(), [2, 0]);
        assert_eq!(r.produced(), [2, 0]);
        assert!(r.get(0).is_none());
    }
}
