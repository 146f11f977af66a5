//! An output stream: the frames of a read, as they arrive.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use dory_wire::{Cursor, Decision, Error, Event, Follower, Reconnect, ResumeState};

use crate::client::{Client, Pumped};
use crate::frame::Frame;
use crate::Result;

/// What a reconnect hook is: called with the core's record of each reconnect,
/// before the wait.
pub type ReconnectHook = Arc<dyn Fn(&Reconnect) + Send + Sync>;

/// The frames of a read, with the consumed offsets after each.
///
/// Read it with [`next`](OutputStream::next), or as a
/// [`futures_core::Stream`] of `Result<Frame>`. A stream of
/// [`Process::iter_output`](crate::Process::iter_output) is one response: a
/// connection that ends before `exit` ends it with `stream_disconnected`
/// (its cursor is where to resume). An exec stream follows its process to
/// the exit, as the core's follower decides. Dropping it closes the
/// connection; the process keeps running.
pub struct OutputStream {
    client: Client,
    follower: Follower,
    response: Option<reqwest::Response>,
    pending: VecDeque<Event>,
    reconnect: bool,
    hook: Option<ReconnectHook>,
    /// The error that ended the read, delivered after the frames before it.
    error: Option<Error>,
    /// The offsets after the last frame delivered.
    delivered: Cursor,
    finished: bool,
}

impl fmt::Debug for OutputStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputStream")
            .field("cursor", &self.follower.cursor())
            .field("proc_id", &self.follower.proc_id())
            .field("finished", &self.finished)
            .finish()
    }
}

impl OutputStream {
    pub(crate) fn new(
        client: Client,
        follower: Follower,
        reconnect: bool,
        hook: Option<ReconnectHook>,
    ) -> OutputStream {
        let follower_cursor = follower.cursor();
        OutputStream {
            client,
            follower,
            response: None,
            pending: VecDeque::new(),
            reconnect,
            hook,
            delivered: follower_cursor,
            error: None,
            finished: false,
        }
    }

    /// The consumed offsets: through the last frame delivered.
    pub fn cursor(&self) -> Cursor {
        self.follower.cursor()
    }

    /// The consumed stdout offset.
    pub fn stdout_offset(&self) -> u64 {
        self.cursor().stdout
    }

    /// The consumed stderr offset.
    pub fn stderr_offset(&self) -> u64 {
        self.cursor().stderr
    }

    /// The process, once known (an exec stream learns it from `started`).
    pub fn proc_id(&self) -> Option<&str> {
        self.follower.proc_id()
    }

    /// The state to save to resume this read later.
    pub fn resume_state(&self) -> ResumeState {
        self.follower.resume_state()
    }

    /// The next frame; `None` once the read is over (after `exit`, or the end
    /// of a finite read), or an error (then `None` after it).
    pub async fn next(&mut self) -> Option<Result<Frame>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                let cursor = match self.pending.is_empty() {
                    true => self.follower.cursor(),
                    false => self.delivered.after(&event),
                };
                self.delivered = cursor;
                return Some(Ok(Frame::new(event, cursor)));
            }
            if let Some(error) = self.error.take() {
                return Some(Err(error));
            }
            if self.finished {
                return None;
            }
            if let Err(error) = self.step().await {
                self.finished = true;
                self.response = None;
                self.error = Some(error);
            }
        }
    }

    /// A stream of `Result<Frame>` for `futures` combinators.
    pub fn into_stream(self) -> Frames {
        Frames {
            state: Some(self),
            future: None,
        }
    }

    /// One step of IO: send, or read a piece, or act on a decision.
    async fn step(&mut self) -> Result<()> {
        let inner = self.client.inner.clone();
        let decision = match self.response.as_mut() {
            None => match inner.open(&mut self.follower).await? {
                Ok(response) => {
                    self.response = Some(response);
                    return Ok(());
                }
                Err(decision) => decision,
            },
            Some(response) => {
                let mut events = Vec::new();
                let pumped = inner.pump(&mut self.follower, response, &mut events).await;
                // Deliver what was decoded before anything else, errors included.
                self.pending.extend(events);
                match pumped? {
                    Pumped::More => return Ok(()),
                    Pumped::Ended(decision) => decision,
                }
            }
        };
        self.response = None;
        match decision {
            Decision::Done(_) => self.finished = true,
            Decision::Continue => {}
            Decision::Reconnect(record) if !self.reconnect => return Err(record.to_error()),
            Decision::Reconnect(record) => {
                if let Some(hook) = &self.hook {
                    hook(&record);
                }
                if !record.delay.is_zero() {
                    tokio::time::sleep(record.delay).await;
                }
            }
        }
        Ok(())
    }
}

type Step = Pin<Box<dyn Future<Output = (OutputStream, Option<Result<Frame>>)> + Send>>;

/// An [`OutputStream`] as a [`futures_core::Stream`] of `Result<Frame>`.
pub struct Frames {
    state: Option<OutputStream>,
    future: Option<Step>,
}

impl fmt::Debug for Frames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Frames").finish_non_exhaustive()
    }
}

impl futures_core::Stream for Frames {
    type Item = Result<Frame>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.future.is_none() {
            let Some(mut stream) = self.state.take() else {
                return Poll::Ready(None);
            };
            self.future = Some(Box::pin(async move {
                let item = stream.next().await;
                (stream, item)
            }));
        }
        let Some(future) = self.future.as_mut() else {
            return Poll::Ready(None);
        };
        match future.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready((stream, item)) => {
                self.future = None;
                if item.is_some() {
                    self.state = Some(stream);
                }
                Poll::Ready(item)
            }
        }
    }
}
