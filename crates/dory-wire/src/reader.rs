//! The reader: one per HTTP response.
use std::time::Duration;

use crate::{Cursor, End, Endpoint, Error, Event, ReaderOptions, ResumeState};

/// Where a reader is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderState {
    /// Built; waiting for [`Reader::open`].
    New,
    /// Opened; being fed.
    Open,
    /// Finished.
    Done,
    /// Failed (sticky).
    Failed,
}

/// The object an SDK drives per HTTP response.
#[derive(Debug)]
pub struct Reader {
    _p: (),
}

impl Reader {
    /// Builds a reader.
    pub fn new(endpoint: Endpoint, cursor: Cursor, options: ReaderOptions) -> Self {
        let _ = (endpoint, cursor, options);
        todo!()
    }
    /// Builds a reader from a saved resume state.
    pub fn resume(endpoint: Endpoint, state: &ResumeState, options: ReaderOptions) -> Self {
        let _ = (endpoint, state, options);
        todo!()
    }
    /// Tells the reader the response status, Content-Type and `CE-Process-Id` header.
    pub fn open(
        &mut self,
        status: u16,
        content_type: &str,
        process_id: Option<&str>,
    ) -> Result<(), Error> {
        let _ = (status, content_type, process_id);
        todo!()
    }
    /// Feeds body bytes, appending events.
    pub fn feed(&mut self, data: &[u8], events: &mut Vec<Event>) -> Result<(), Error> {
        let _ = (data, events);
        todo!()
    }
    /// Ends the body.
    pub fn finish(&mut self, events: &mut Vec<Event>) -> Result<End, Error> {
        let _ = events;
        todo!()
    }
    /// Consumed offsets.
    pub fn cursor(&self) -> Cursor {
        todo!()
    }
    /// The resume state.
    pub fn resume_state(&self) -> ResumeState {
        todo!()
    }
    /// The process id, once known.
    pub fn process_id(&self) -> Option<&str> {
        todo!()
    }
    /// The deadline by which the next byte must arrive.
    pub fn poll_timeout(&self) -> Option<Duration> {
        todo!()
    }
    /// Tells the reader the time; returns true when the stream stalled.
    pub fn handle_timeout(&mut self, now: Duration) -> bool {
        let _ = now;
        todo!()
    }
    /// The reader's state.
    pub fn state(&self) -> ReaderState {
        todo!()
    }
}
