//! Serving retained and live output as NDJSON frames to one consumer.
//!
//! The body is pulled: the next frame is computed only when the connection
//! asks for it, straight from the process's retained chunks. A connection
//! therefore holds at most one frame plus the HTTP write buffer, however
//! slow its reader is. A consumer whose position was evicted while it was
//! being served gets a `gap` frame and the stream ends without `exit`.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{self, BoxStream};
use futures_util::StreamExt as _;
use tokio::sync::watch;

use crate::frames;
use crate::process::Proc;

/// One consumer's position in a process's output.
pub(crate) struct Follower {
    proc: Arc<Proc>,
    changed: watch::Receiver<u64>,
    /// Consumed byte offsets per stream (`[stdout, stderr]`).
    pos: [u64; 2],
    /// Sequence number of the next retained chunk to look at.
    next_seq: u64,
    follow: bool,
    heartbeat: Duration,
    setup: bool,
    started: Option<String>,
    done: bool,
}

enum Step {
    Frame(Bytes),
    Last(Bytes),
    End,
    Wait,
}

impl Follower {
    /// A consumer starting at `pos`. The caller has checked that `pos` is
    /// neither before the retained data nor beyond the produced output.
    pub(crate) fn new(proc: Arc<Proc>, pos: [u64; 2], follow: bool, heartbeat: Duration) -> Self {
        let changed = proc.subscribe();
        let next_seq = proc.lock().out.first_seq();
        Follower {
            proc,
            changed,
            pos,
            next_seq,
            follow,
            heartbeat,
            setup: false,
            started: None,
            done: false,
        }
    }

    /// Setup logs: gap frames carry `earliest_offset`.
    pub(crate) fn for_setup(mut self) -> Self {
        self.setup = true;
        self
    }

    /// Exec stream: a `started` frame comes first.
    pub(crate) fn with_started(mut self, proc_id: String) -> Self {
        self.started = Some(proc_id);
        self
    }

    fn step(&mut self) -> Step {
        let st = self.proc.lock();
        let first = st.out.first_seq();
        if self.next_seq < first {
            let earliest = st.out.earliest();
            if self.pos[0] < earliest[0] || self.pos[1] < earliest[1] {
                return Step::Last(frames::gap(earliest, self.setup));
            }
            // Only chunks this consumer already had were evicted.
            self.next_seq = first;
        }
        while let Some(chunk) = st.out.get(self.next_seq) {
            self.next_seq += 1;
            let i = chunk.stream.index();
            if chunk.end <= self.pos[i] {
                continue;
            }
            // A chunk that contains the position is sent whole: the client
            // trims the overlap.
            self.pos[i] = chunk.end;
            return Step::Frame(frames::data(chunk));
        }
        if let Some(exit) = st.exit {
            Step::Last(frames::exit(exit))
        } else if self.follow {
            Step::Wait
        } else {
            Step::End
        }
    }

    /// The next NDJSON line, or `None` at the end of the body.
    pub(crate) async fn next_frame(&mut self) -> Option<Bytes> {
        if self.done {
            return None;
        }
        if let Some(id) = self.started.take() {
            return Some(frames::started(&id));
        }
        loop {
            // Mark the current version seen before reading the state, so a
            // change after the read wakes `changed()` below.
            self.changed.borrow_and_update();
            match self.step() {
                Step::Frame(b) => return Some(b),
                Step::Last(b) => {
                    self.done = true;
                    return Some(b);
                }
                Step::End => {
                    self.done = true;
                    return None;
                }
                Step::Wait => {
                    match tokio::time::timeout(self.heartbeat, self.changed.changed()).await {
                        Err(_) => return Some(frames::heartbeat()),
                        Ok(Ok(())) => continue,
                        Ok(Err(_)) => {
                            self.done = true;
                            return None;
                        }
                    }
                }
            }
        }
    }

    /// The frames as a stream of body chunks.
    pub(crate) fn into_stream(self) -> BoxStream<'static, std::io::Result<Bytes>> {
        stream::unfold(self, |mut f| async move {
            f.next_frame().await.map(|b| (Ok(b), f))
        })
        .boxed()
    }
}
