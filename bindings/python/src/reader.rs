//! `Reader`: the core `Reader` with Python types.

use dory_wire::{Reader, ReaderOptions, ReaderState, ResumeState};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::args;
use crate::errors::to_py_err;
use crate::events::{end_to_py, events_to_list};
use crate::feed::{self, FeedBuffers};
use crate::values::{PyCursor, PyResumeState};

/// Decodes one HTTP response of the Dory process-output protocol (sans-IO).
///
/// One reader per response. Call :meth:`open` with the status and headers,
/// :meth:`feed` with each body chunk as it arrives (any split is fine), then
/// :meth:`finish` when the body ends. The reader does no IO and keeps no
/// clock: see :meth:`handle_timeout_seconds` for liveness.
///
/// Arguments:
///     endpoint: ``"exec"``, ``"process_output"``, ``"setup_logs"`` or
///         ``"document"`` (a request answered by one JSON document).
///     cursor: offsets already consumed (a :class:`Cursor`, a mapping such
///         as ``{"stdout": 5, "stderr": 0}``, or ``None`` for zeros).
///     gap_policy: ``"fail"`` (raise :class:`OutputGap` when output is
///         missing) or ``"skip"`` (yield :class:`Skipped` and go on).
///     max_frame_bytes: the longest line accepted (default 16 MiB).
///     liveness_timeout_seconds: seconds without a byte before the stream
///         counts as stalled (default ``DEFAULT_LIVENESS_TIMEOUT_SECONDS``, 30).
///     strict: raise :class:`UnexpectedFrame` for unknown frame types
///         instead of yielding :class:`Unknown`.
///
/// Errors are sticky: once a call raised, every later :meth:`feed` or
/// :meth:`finish` raises the same error. When a :meth:`feed` decodes events
/// and then hits an error, it returns those events and the error is raised
/// by the next call; a call raises at once only when it decoded nothing.
///
/// Not thread-safe: use one reader from one thread at a time.
#[pyclass(module = "dory_wire", name = "Reader")]
pub(crate) struct PyReader {
    inner: Reader,
    /// `feed`'s reused buffers (empty between calls).
    buffers: FeedBuffers,
}

/// The reader's options from its keyword arguments (`None`: the default).
fn options(
    gap_policy: Option<&Bound<'_, PyAny>>,
    max_frame_bytes: Option<&Bound<'_, PyAny>>,
    liveness_timeout_seconds: Option<&Bound<'_, PyAny>>,
    strict: bool,
) -> PyResult<ReaderOptions> {
    let mut opts = ReaderOptions::default().strict(strict);
    if let Some(policy) = gap_policy.filter(|o| !o.is_none()) {
        opts = opts.gap_policy(args::gap_policy(policy)?);
    }
    if let Some(limit) = max_frame_bytes.filter(|o| !o.is_none()) {
        opts = opts.max_frame_bytes(args::limit(limit, "max_frame_bytes")?);
    }
    if let Some(timeout) = liveness_timeout_seconds.filter(|o| !o.is_none()) {
        let arg = "liveness_timeout_seconds";
        opts = opts.liveness_timeout(args::seconds(timeout, arg, true)?);
    }
    Ok(opts)
}

#[pymethods]
impl PyReader {
    #[new]
    #[pyo3(
        signature = (endpoint, *, cursor = None, gap_policy = None, max_frame_bytes = None, liveness_timeout_seconds = None, strict = false),
        text_signature = "(endpoint, *, cursor=None, gap_policy='fail', max_frame_bytes=None, liveness_timeout_seconds=None, strict=False)"
    )]
    fn py_new(
        endpoint: &Bound<'_, PyAny>,
        cursor: Option<&Bound<'_, PyAny>>,
        gap_policy: Option<&Bound<'_, PyAny>>,
        max_frame_bytes: Option<&Bound<'_, PyAny>>,
        liveness_timeout_seconds: Option<&Bound<'_, PyAny>>,
        strict: bool,
    ) -> PyResult<Self> {
        let endpoint = args::endpoint(endpoint)?;
        let cursor = args::cursor(cursor, "cursor")?;
        let opts = options(
            gap_policy,
            max_frame_bytes,
            liveness_timeout_seconds,
            strict,
        )?;
        Ok(Self::wrap(Reader::new(endpoint, cursor, opts)))
    }

    /// Builds a reader that continues from a saved :class:`ResumeState`
    /// (or its JSON), e.g. to reconnect to process output after
    /// :class:`Disconnected`. Options as in the constructor.
    #[staticmethod]
    #[pyo3(
        signature = (endpoint, state, *, gap_policy = None, max_frame_bytes = None, liveness_timeout_seconds = None, strict = false),
        text_signature = "(endpoint, state, *, gap_policy='fail', max_frame_bytes=None, liveness_timeout_seconds=None, strict=False)"
    )]
    fn resume(
        py: Python<'_>,
        endpoint: &Bound<'_, PyAny>,
        state: &Bound<'_, PyAny>,
        gap_policy: Option<&Bound<'_, PyAny>>,
        max_frame_bytes: Option<&Bound<'_, PyAny>>,
        liveness_timeout_seconds: Option<&Bound<'_, PyAny>>,
        strict: bool,
    ) -> PyResult<Self> {
        let endpoint = args::endpoint(endpoint)?;
        let state: ResumeState = if let Ok(s) = state.cast::<PyResumeState>() {
            s.get().0.clone()
        } else if state.is_instance_of::<pyo3::types::PyString>() {
            let text: String = state.extract()?;
            ResumeState::from_json(&text).map_err(|e| to_py_err(py, e, Vec::new()))?
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument 'state' must be ResumeState or str (its JSON), not {}",
                args::type_name(state)
            )));
        };
        let opts = options(
            gap_policy,
            max_frame_bytes,
            liveness_timeout_seconds,
            strict,
        )?;
        Ok(Self::wrap(Reader::resume(endpoint, &state, opts)))
    }

    /// Tells the reader the response's HTTP status, ``Content-Type`` and
    /// ``CE-Process-Id`` header (``None`` when absent). Call once, before
    /// :meth:`feed`.
    ///
    /// Raises :class:`UnsupportedContentType` for a 2xx answer that is
    /// neither NDJSON nor JSON. An error answer (non-2xx) is decoded from
    /// the body and raised by :meth:`finish`.
    #[pyo3(signature = (status, content_type, proc_id = None))]
    fn open(
        &mut self,
        py: Python<'_>,
        status: &Bound<'_, PyAny>,
        content_type: Option<&Bound<'_, PyAny>>,
        proc_id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let status = args::status(py, status)?;
        let content_type = match content_type.filter(|o| !o.is_none()) {
            Some(ct) => args::string(ct, "content_type")?,
            None => String::new(),
        };
        let proc_id = match proc_id.filter(|o| !o.is_none()) {
            Some(p) => Some(args::string(p, "proc_id")?),
            None => None,
        };
        self.inner
            .open(status, &content_type, proc_id.as_deref())
            .map_err(|e| to_py_err(py, e, Vec::new()))
    }

    /// Feeds a chunk of the body (``bytes``, ``bytearray`` or ``memoryview``;
    /// any split) and returns the events it completed, in order.
    ///
    /// Large chunks are decoded without holding the GIL. Raises
    /// ``TypeError`` for ``str`` or other non-bytes, a :class:`DoryWireError`
    /// subclass when the stream is wrong (see the class docs for the
    /// deferred-error rule), and :class:`InvalidState` when called before
    /// :meth:`open` or after :meth:`finish`.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let input = args::bytes_like(data, "feed", "data")?;
        let inner = &mut self.inner;
        self.buffers
            .feed(py, &input, |bytes, sink| inner.feed(bytes, sink))
    }

    /// Feeds a chunk like :meth:`feed`, but appends the output bytes straight
    /// to ``transcript`` — no ``Output`` object per frame, the fast way to
    /// collect a process's output — and returns only the other events
    /// (``Skipped`` ranges are recorded in the transcript and returned too).
    ///
    /// Same errors and deferred-error rule as :meth:`feed`.
    fn feed_into<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        transcript: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let input = args::bytes_like(data, "feed_into", "data")?;
        let inner = &mut self.inner;
        feed::feed_into(py, "feed_into", &input, transcript, |bytes, sink| {
            inner.feed(bytes, sink)
        })
    }

    /// Ends the body and returns ``(events, end)``: the events completed by
    /// the end of the body (a JSON document's ``Identity`` or ``ExecResult``,
    /// the ``Skipped`` ranges of a 409 answer; usually none) and how the
    /// response ended, :class:`Exited`, :class:`Disconnected` or
    /// :class:`Document`.
    ///
    /// Raises the stream's error, if any (e.g. :class:`OutputGap`,
    /// :class:`ApiError`); events completed before it are its ``events``.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let mut events = Vec::new();
        match self.inner.finish(&mut events) {
            Ok(end) => (events_to_list(py, events)?, end_to_py(py, end)?).into_pyobject(py),
            Err(err) => Err(to_py_err(py, err, events)),
        }
    }

    /// The consumed offsets (a :class:`Cursor`): where to resume from.
    #[getter]
    fn cursor(&self) -> PyCursor {
        PyCursor(self.inner.cursor())
    }

    /// The process id once known (from ``started``, the ``CE-Process-Id``
    /// header, the resume state or a document), else ``None``.
    #[getter]
    fn proc_id(&self) -> Option<&str> {
        self.inner.proc_id()
    }

    /// The endpoint name given to the constructor.
    #[getter]
    fn endpoint(&self) -> &'static str {
        self.inner.endpoint().as_str()
    }

    /// ``"new"`` (before :meth:`open`), ``"open"``, ``"done"`` (finished)
    /// or ``"failed"`` (an error was raised or is pending).
    #[getter]
    fn state(&self) -> &'static str {
        match self.inner.state() {
            ReaderState::New => "new",
            ReaderState::Open => "open",
            ReaderState::Done => "done",
            ReaderState::Failed => "failed",
        }
    }

    /// Everything needed to resume reading this process's output later.
    fn resume_state(&self) -> PyResumeState {
        PyResumeState(self.inner.resume_state())
    }

    /// The deadline by which the next byte must arrive, in seconds on the
    /// clock passed to :meth:`handle_timeout_seconds`; ``None`` until that
    /// clock is armed (by the first :meth:`handle_timeout_seconds` call).
    fn poll_timeout_seconds(&self) -> Option<f64> {
        self.inner.poll_timeout().map(|d| d.as_secs_f64())
    }

    /// Tells the reader the time ``now`` (float seconds on the caller's own
    /// monotonic clock, e.g. ``time.monotonic()``) and returns ``True`` when
    /// the stream stalled: no byte arrived within the liveness timeout. Then
    /// :meth:`finish` ends with ``Disconnected(reason="stalled")``.
    ///
    /// The first call arms the clock; a later call after new bytes restarts
    /// it at ``now``. Call it whenever :meth:`poll_timeout_seconds`'s
    /// deadline passes.
    fn handle_timeout_seconds(&mut self, now: &Bound<'_, PyAny>) -> PyResult<bool> {
        let now = args::seconds(now, "now", false)?;
        Ok(self.inner.handle_timeout(now))
    }

    fn __repr__(&self) -> String {
        let c = self.inner.cursor();
        format!(
            "<Reader endpoint='{}' state='{}' cursor=Cursor(stdout={}, stderr={})>",
            self.endpoint(),
            self.state(),
            c.stdout,
            c.stderr
        )
    }
}

impl PyReader {
    /// The Python reader around a core one.
    fn wrap(inner: Reader) -> Self {
        PyReader {
            inner,
            buffers: FeedBuffers::default(),
        }
    }
}
