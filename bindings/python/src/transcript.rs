//! `Transcript` and `Utf8Decoder`: the core's consumer-side views.

use dory_wire::Stream;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::args;

/// An incremental UTF-8 decoder that never splits a character.
///
/// Bytes in, in pieces split anywhere; text out. A character split across
/// pieces is held back until it completes. Invalid bytes become U+FFFD, one
/// per maximal invalid subsequence, so the text equals
/// ``bytes.decode("utf-8", errors="replace")`` of all the bytes at once.
#[pyclass(module = "dory_wire", name = "Utf8Decoder")]
#[derive(Default)]
pub(crate) struct Utf8Decoder(dory_wire::Utf8Decoder);

#[pymethods]
impl Utf8Decoder {
    #[new]
    fn py_new() -> Self {
        Self::default()
    }

    /// Decodes the next piece (bytes-like) and returns its complete text.
    fn push(&mut self, data: &Bound<'_, PyAny>) -> PyResult<String> {
        let input = args::bytes_like(data, "push", "data")?;
        let mut out = String::new();
        self.0.push(input.as_slice(), &mut out);
        Ok(out)
    }

    /// Ends the input: an incomplete character still held back becomes
    /// U+FFFD. The decoder can then be used again from a clean state.
    fn finish(&mut self) -> String {
        let mut out = String::new();
        self.0.finish(&mut out);
        out
    }

    /// How many bytes of an incomplete character are held back (0 to 3).
    #[getter]
    fn pending(&self) -> usize {
        self.0.pending()
    }

    fn __repr__(&self) -> String {
        format!("<Utf8Decoder pending={}>", self.0.pending())
    }
}

/// A consumer's record of a process's output: :meth:`push` every event.
///
/// Keeps each stream's bytes, its text view (UTF-8, never splitting a
/// character; a skipped range shows as a line
/// ``[dory-wire: bytes A..B were lost]``) and the skipped ranges, and the
/// exit status. Events other than ``Output``, ``Skipped`` and ``Exit`` are
/// ignored.
#[pyclass(module = "dory_wire", name = "Transcript")]
#[derive(Default)]
pub(crate) struct Transcript(dory_wire::Transcript);

impl Transcript {
    /// The core transcript, for the reader's `feed_into`.
    pub(crate) fn core_mut(&mut self) -> &mut dory_wire::Transcript {
        &mut self.0
    }
}

#[pymethods]
impl Transcript {
    #[new]
    fn py_new() -> Self {
        Self::default()
    }

    /// Records an event (any event is accepted; only ``Output``,
    /// ``Skipped`` and ``Exit`` change the transcript).
    fn push(&mut self, event: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(core) = crate::records::event_from_py(event)? else {
            return Err(PyTypeError::new_err(format!(
                "push() argument 'event' must be an event, not {}",
                args::type_name(event)
            )));
        };
        self.0.push(&core);
        Ok(())
    }

    /// Ends both text views: an incomplete last character becomes U+FFFD.
    fn finish(&mut self) {
        self.0.finish();
    }

    /// The delivered bytes of ``stream``, in order (skipped ranges absent).
    #[pyo3(signature = (stream = None), text_signature = "($self, stream='stdout')")]
    fn bytes<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let s = self.0.stream(opt_stream(stream)?);
        Ok(PyBytes::new(py, s.bytes()))
    }

    /// The text view of ``stream`` so far (see the class doc).
    #[pyo3(signature = (stream = None), text_signature = "($self, stream='stdout')")]
    fn text(&self, stream: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        Ok(self.0.stream(opt_stream(stream)?).text().to_owned())
    }

    /// The skipped ranges ``(start, end)`` of ``stream``, in order.
    #[pyo3(signature = (stream = None), text_signature = "($self, stream='stdout')")]
    fn skipped(&self, stream: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(u64, u64)>> {
        let s = self.0.stream(opt_stream(stream)?);
        Ok(s.skipped().map(|r| (r.start, r.end)).collect())
    }

    /// True when nothing of ``stream`` was skipped: its bytes are exact.
    #[pyo3(signature = (stream = None), text_signature = "($self, stream='stdout')")]
    fn is_complete(&self, stream: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        Ok(self.0.stream(opt_stream(stream)?).is_complete())
    }

    /// ``(exit_code, timed_out)`` once ``Exit`` was pushed, else ``None``.
    #[getter]
    fn exit(&self) -> Option<(Option<i64>, bool)> {
        self.0.exit()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Transcript stdout={} bytes stderr={} bytes>",
            self.0.stream(Stream::Stdout).bytes().len(),
            self.0.stream(Stream::Stderr).bytes().len()
        )
    }
}

fn opt_stream(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Stream> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => args::stream(o),
        None => Ok(Stream::Stdout),
    }
}
