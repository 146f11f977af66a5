//! Where a reader delivers what it decodes.

use std::borrow::Cow;

use crate::{Event, Stream, Transcript};

/// Receives what a [`Reader`](crate::Reader) decodes, in order.
///
/// A `Vec<Event>` is a sink (every event, output bytes owned), and so is a
/// [`Transcript`]. Implement it to collect output straight into your own
/// buffers: the reader hands over each chunk's new bytes — borrowed from the
/// input when they were plain text — without allocating an event for them.
///
/// ```
/// use std::borrow::Cow;
/// use dory_wire::{Cursor, Endpoint, Event, Reader, ReaderOptions, Sink, Stream};
///
/// #[derive(Default)]
/// struct Collect { stdout: Vec<u8>, stderr: Vec<u8>, other: Vec<Event> }
///
/// impl Sink for Collect {
///     fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, _start: u64, _end: u64) {
///         match stream {
///             Stream::Stdout => self.stdout.extend_from_slice(&data),
///             Stream::Stderr => self.stderr.extend_from_slice(&data),
///         }
///     }
///     fn event(&mut self, event: Event) {
///         self.other.push(event);
///     }
/// }
///
/// let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::default(), ReaderOptions::default());
/// reader.open(200, "application/x-ndjson", None)?;
/// let mut sink = Collect::default();
/// reader.feed(b"{\"type\":\"stdout\",\"data\":\"hi\",\"offset\":2}\n{\"type\":\"heartbeat\"}\n", &mut sink)?;
/// assert_eq!(sink.stdout, b"hi");
/// assert_eq!(sink.other, vec![Event::Heartbeat]);
/// # Ok::<(), dory_wire::Error>(())
/// ```
pub trait Sink {
    /// New bytes of `stream` for offsets `[start, end)`, exact, overlap
    /// already trimmed; never empty.
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, start: u64, end: u64);

    /// Every other event (never [`Event::Output`]).
    fn event(&mut self, event: Event);
}

impl Sink for Vec<Event> {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, start: u64, end: u64) {
        self.push(Event::Output {
            stream,
            data: data.into_owned(),
            start,
            end,
        });
    }

    fn event(&mut self, event: Event) {
        self.push(event);
    }
}

impl Sink for Transcript {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, start: u64, end: u64) {
        self.push_output(stream, &data, start, end);
    }

    fn event(&mut self, event: Event) {
        self.push(&event);
    }
}
