//! Body bytes in, Python events out: what `Reader.feed`/`feed_into` and
//! `Follower.feed`/`feed_into` share.
//!
//! The core calls a [`dory_wire::Sink`]; the sinks here keep compact records
//! while the core runs (possibly without the GIL) and build the Python
//! objects afterwards. Both apply the deferred-error rule: when a feed
//! decoded events and then hit an error, the events are returned and the
//! (sticky) error is raised by the next call; a feed raises at once only
//! when it decoded nothing.

use std::borrow::Cow;

use dory_wire::{Error, Stream};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::args::ByteInput;
use crate::errors::to_py_err;
use crate::events::{event_to_py, output_to_py};
use crate::transcript::Transcript;

/// Where one output event's bytes wait (while the GIL may be released)
/// until its `bytes` object is made.
enum Held {
    /// `input[from..to]`: the reader borrowed them from the fed chunk itself
    /// (plain text): no copy before the `bytes` object.
    Input(usize, usize),
    /// `scratch[from..to]`: borrowed from elsewhere (e.g. a line carried over
    /// from the previous chunk), copied into the reused scratch buffer.
    Scratch(usize, usize),
    /// Decoded into a buffer of their own (escapes, base64): kept, not copied.
    Owned(Vec<u8>),
}

/// What `feed` decoded, in order.
enum Item {
    Output {
        stream: Stream,
        held: Held,
        start: u64,
        end: u64,
    },
    Event(dory_wire::Event),
}

/// The `feed` sink: compact records, output bytes never copied into an
/// owned `Vec` per event (see [`Held`]).
pub(crate) struct Collect<'a> {
    input: &'a [u8],
    scratch: &'a mut Vec<u8>,
    items: &'a mut Vec<Item>,
}

impl dory_wire::Sink for Collect<'_> {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, start: u64, end: u64) {
        let held = match data {
            Cow::Owned(vec) => Held::Owned(vec),
            Cow::Borrowed(slice) => {
                // A slice whose address range lies inside the input *is*
                // that part of the input (live allocations never overlap).
                let at = (slice.as_ptr() as usize).wrapping_sub(self.input.as_ptr() as usize);
                if at <= self.input.len() && slice.len() <= self.input.len() - at {
                    Held::Input(at, at + slice.len())
                } else {
                    let from = self.scratch.len();
                    self.scratch.extend_from_slice(slice);
                    Held::Scratch(from, self.scratch.len())
                }
            }
        };
        self.items.push(Item::Output {
            stream,
            held,
            start,
            end,
        });
    }

    fn event(&mut self, event: dory_wire::Event) {
        self.items.push(Item::Event(event));
    }
}

/// Buffers kept between feeds above this capacity are freed after the feed
/// (a huge chunk must not pin its memory for the reader's lifetime).
const KEEP_SCRATCH_BYTES: usize = 1 << 20;
const KEEP_ITEMS: usize = 4096;

/// Feeds at least this many bytes without the GIL; smaller feeds keep it
/// (releasing and re-taking it would cost more than decoding).
const DETACH_THRESHOLD: usize = 16 * 1024;

/// Output bytes go to a transcript; other events are also kept to return.
pub(crate) struct IntoTranscript<'a> {
    transcript: &'a mut dory_wire::Transcript,
    events: Vec<dory_wire::Event>,
}

impl dory_wire::Sink for IntoTranscript<'_> {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, start: u64, end: u64) {
        self.transcript.push_output(stream, &data, start, end);
    }

    fn event(&mut self, event: dory_wire::Event) {
        self.transcript.push(&event);
        self.events.push(event);
    }
}

/// The reused buffers of one reader's or follower's `feed` (empty between
/// calls).
#[derive(Default)]
pub(crate) struct FeedBuffers {
    scratch: Vec<u8>,
    items: Vec<Item>,
}

impl FeedBuffers {
    /// Runs `decode` (the core's `feed` of the bytes into the sink) over `input`,
    /// without the GIL for large chunks, and returns the events as a list
    /// under the deferred-error rule.
    pub(crate) fn feed<'py, F>(
        &mut self,
        py: Python<'py>,
        input: &ByteInput<'_>,
        decode: F,
    ) -> PyResult<Bound<'py, PyList>>
    where
        F: for<'s> FnOnce(&[u8], &mut Collect<'s>) -> Result<(), Error> + Send,
    {
        let bytes = input.as_slice();
        let mut sink = Collect {
            input: bytes,
            scratch: &mut self.scratch,
            items: &mut self.items,
        };
        let result = if bytes.len() >= DETACH_THRESHOLD {
            py.detach(|| decode(bytes, &mut sink))
        } else {
            decode(bytes, &mut sink)
        };
        let built = self.build_list(py, bytes, result);
        self.scratch.clear();
        self.items.clear();
        if self.scratch.capacity() > KEEP_SCRATCH_BYTES {
            self.scratch = Vec::new();
        }
        if self.items.capacity() > KEEP_ITEMS {
            self.items = Vec::new();
        }
        built
    }

    /// Turns what `feed` collected into its list of events, applying the
    /// deferred-error rule to `result`.
    fn build_list<'py>(
        &mut self,
        py: Python<'py>,
        input: &[u8],
        result: Result<(), Error>,
    ) -> PyResult<Bound<'py, PyList>> {
        if let Err(err) = result {
            // Deferred-error rule: return what was decoded; the sticky error
            // is raised by the next call.
            if self.items.is_empty() {
                return Err(to_py_err(py, err, Vec::new()));
            }
        }
        let scratch = &self.scratch;
        let objects = self
            .items
            .drain(..)
            .map(|item| match item {
                Item::Output {
                    stream,
                    held,
                    start,
                    end,
                } => {
                    let data = match held {
                        Held::Input(from, to) => PyBytes::new(py, &input[from..to]),
                        Held::Scratch(from, to) => PyBytes::new(py, &scratch[from..to]),
                        Held::Owned(vec) => PyBytes::new(py, &vec),
                    };
                    output_to_py(py, stream, data, start, end)
                }
                Item::Event(event) => event_to_py(py, event),
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, objects)
    }
}

/// `feed_into`: runs `decode` with the output going straight into
/// `transcript` (a `Transcript`, else a `TypeError` naming `func`), and
/// returns the other events under the deferred-error rule.
pub(crate) fn feed_into<'py, F>(
    py: Python<'py>,
    func: &str,
    input: &ByteInput<'_>,
    transcript: &Bound<'py, PyAny>,
    decode: F,
) -> PyResult<Bound<'py, PyList>>
where
    F: for<'s> FnOnce(&[u8], &mut IntoTranscript<'s>) -> Result<(), Error> + Send,
{
    let Ok(transcript) = transcript.cast::<Transcript>() else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{func}() argument 'transcript' must be a Transcript, not {}",
            crate::args::type_name(transcript)
        )));
    };
    let bytes = input.as_slice();
    let mut guard = transcript.borrow_mut();
    let mut sink = IntoTranscript {
        transcript: guard.core_mut(),
        events: Vec::new(),
    };
    let result = if bytes.len() >= DETACH_THRESHOLD {
        py.detach(|| decode(bytes, &mut sink))
    } else {
        decode(bytes, &mut sink)
    };
    let events = sink.events;
    drop(guard);
    if let Err(err) = result {
        if events.is_empty() {
            return Err(to_py_err(py, err, Vec::new()));
        }
    }
    let list = PyList::empty(py);
    for event in events {
        list.append(event_to_py(py, event)?)?;
    }
    Ok(list)
}
