//! `Follower` and its decisions (`Done`, `Reconnect`, `Continue`): the core
//! follower with Python types. Every decision — what to send, what an
//! answer means, when to reconnect, how long to wait, when to give up — is
//! the core's; this module converts arguments and results: [`decision`] the
//! decisions, [`options`] the options.

use dory_wire::{Decision, Follower, ResumeState};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::args;
use crate::errors::to_py_err;
use crate::events::events_to_list;
use crate::feed::{self, FeedBuffers};
use crate::request::PyRequest;
use crate::values::{PyCursor, PyResumeState};

mod decision;
mod options;

pub(crate) use decision::_stream_disconnected;
use decision::decision_to_py;
pub(crate) use options::follow_options;

/// The caller's random value for a delay (default 0; the core checks that
/// it is in `[0, 1]`).
fn jitter_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<f64> {
    Ok(args::opt_number(obj, "jitter")?.unwrap_or(0.0))
}

/// A whole read of retained output — a process's output, the setup logs, or
/// an exec stream followed to its exit — across responses, sans IO.
///
/// A :class:`Reader` decodes one response; a follower owns the conversation
/// around it: which request to send, what the answer means, when to
/// reconnect, how long to wait first and when to give up. It does no IO and
/// has no clock and no randomness of its own: it answers "what next?" and
/// you do it::
///
///     follower = Follower.process_output("c_1", "p_1")
///     transcript = Transcript()
///     while True:
///         request = follower.request()          # send it: method, target, headers, body
///         try:
///             response = send(request)
///         except ConnectionRefusedError as error:  # never connected
///             decision = follower.not_connected(str(error), random.random())
///         except ConnectionError as error:      # no answer at all
///             decision = follower.no_response(str(error), random.random())
///         else:
///             follower.open(response.status, response.content_type,
///                           response.proc_id, response.retry_after)
///             try:
///                 for chunk in response.chunks:
///                     follower.feed_into(chunk, transcript)
///             except OSError as error:          # the body broke
///                 events, decision = follower.finish(str(error), random.random())
///             else:
///                 events, decision = follower.finish(None, random.random())
///             for event in events:
///                 transcript.push(event)
///         if isinstance(decision, Done):
///             break
///         if isinstance(decision, Reconnect):
///             time.sleep(decision.delay_seconds)
///
/// The states (:attr:`state`): ``"ready"`` (:meth:`request` gives the next
/// request), ``"sent"`` (call :meth:`open`, :meth:`no_response` or
/// :meth:`not_connected`),
/// ``"body"`` (:meth:`feed`, then :meth:`finish`), ``"done"`` (a
/// :class:`Done` was returned) and ``"failed"``. A call out of order raises
/// :class:`InvalidState`; any error is sticky: every later call raises it
/// again. Errors: loss (:class:`OutputGap` under ``gap_policy="fail"``,
/// :class:`OutputExpired`), answers (:class:`ApiError`, …) and protocol
/// errors end the read as they are; :class:`StreamDisconnected` when the
/// reconnect budget is spent, or when an exec without an idempotency key
/// broke before announcing its process (sending it again could run the
/// command twice). What was decoded before an error stays delivered.
///
/// Build one with :meth:`process_output`, :meth:`resume`,
/// :meth:`setup_logs` or :meth:`exec_stream`. Their options, keyword-only,
/// with the core's defaults (:attr:`options` shows them):
///
/// - ``follow``: follow until exit (``True``) or read what exists now.
/// - ``gap_policy``: ``"fail"`` (raise :class:`OutputGap`) or ``"skip"``
///   (yield :class:`Skipped` and go on).
/// - ``retries``: connections in a row without progress allowed before
///   giving up (:data:`DEFAULT_RETRIES`).
/// - ``backoff_seconds``: the wait before the first reconnect without
///   progress (:data:`DEFAULT_BACKOFF_SECONDS`), doubled for each next one
///   up to ``max_backoff_seconds`` (:data:`DEFAULT_MAX_BACKOFF_SECONDS`,
///   also the cap on ``Retry-After``).
/// - ``jitter``: spread each wait over ``[base/2, base]`` by the random
///   value in ``[0, 1]`` you pass to :meth:`finish` and :meth:`no_response`.
/// - ``liveness_timeout_seconds``: how long to wait for the headers, then
///   for each complete frame (:data:`DEFAULT_LIVENESS_TIMEOUT_SECONDS`).
/// - ``max_frame_bytes``: the longest frame accepted (``None``:
///   :data:`DEFAULT_MAX_FRAME_BYTES`).
/// - ``strict``: raise :class:`UnexpectedFrame` for unknown frame types.
///
/// A wrong type is a ``TypeError``; a wrong value is :class:`InvalidArgument`.
/// Not thread-safe: use one follower from one thread at a time.
#[pyclass(module = "dory_wire", name = "Follower")]
pub(crate) struct PyFollower {
    inner: Follower,
    /// `feed`'s reused buffers (empty between calls).
    buffers: FeedBuffers,
}

impl PyFollower {
    fn built(py: Python<'_>, result: Result<Follower, dory_wire::Error>) -> PyResult<Self> {
        result
            .map(|inner| PyFollower {
                inner,
                buffers: FeedBuffers::default(),
            })
            .map_err(|e| to_py_err(py, e, Vec::new()))
    }

    fn err(py: Python<'_>) -> impl FnOnce(dory_wire::Error) -> PyErr + '_ {
        move |e| to_py_err(py, e, Vec::new())
    }

    /// A transport failure, told to the core by `report` (its `no_response`
    /// or `not_connected`): the arguments converted, the decision returned.
    fn transport_failed<'py>(
        &mut self,
        py: Python<'py>,
        detail: Option<&Bound<'py, PyAny>>,
        jitter: Option<&Bound<'py, PyAny>>,
        report: fn(&mut Follower, &str, f64) -> Result<Decision, dory_wire::Error>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let detail = args::opt_text(detail, "detail")?.unwrap_or_default();
        let jitter = jitter_arg(jitter)?;
        let decision = report(&mut self.inner, &detail, jitter).map_err(Self::err(py))?;
        decision_to_py(py, decision)
    }
}

#[pymethods]
impl PyFollower {
    /// Follows the output of process ``proc_id`` of ``computer_id`` from
    /// ``cursor`` (a :class:`Cursor`, a mapping such as ``{"stdout": 5}``,
    /// or ``None`` for zeros), as :class:`Reader` takes it.
    #[staticmethod]
    #[pyo3(signature = (computer_id, proc_id, *, cursor = None, **options))]
    fn process_output(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        proc_id: &Bound<'_, PyAny>,
        cursor: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let proc_id = args::text(proc_id, "proc_id")?;
        let cursor = args::cursor(cursor, "cursor")?;
        let options = follow_options("process_output", options)?;
        Self::built(
            py,
            Follower::process_output(&computer_id, &proc_id, cursor, options),
        )
    }

    /// Follows a process's output from a saved :class:`ResumeState` (or its
    /// JSON), which must name its process (else :class:`InvalidArgument`).
    #[staticmethod]
    #[pyo3(signature = (computer_id, state, **options))]
    fn resume(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        state: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let state: ResumeState = if let Ok(s) = state.cast::<PyResumeState>() {
            s.get().0.clone()
        } else if state.is_instance_of::<PyString>() {
            let text: String = state.extract()?;
            ResumeState::from_json(&text).map_err(Self::err(py))?
        } else {
            return Err(PyTypeError::new_err(format!(
                "state must be a ResumeState or a str (its JSON), not {}",
                args::type_name(state)
            )));
        };
        let options = follow_options("resume", options)?;
        Self::built(py, Follower::resume(&computer_id, &state, options))
    }

    /// Follows the setup command's logs of ``computer_id`` from byte
    /// ``offset`` of the one merged log (its :attr:`cursor` counts it in
    /// ``stdout``).
    #[staticmethod]
    #[pyo3(
        signature = (computer_id, offset = None, **options),
        text_signature = "(computer_id, offset=0, **options)"
    )]
    fn setup_logs(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        offset: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let offset = match offset {
            Some(o) => args::count(o, "offset", 0, u64::MAX)?,
            None => 0,
        };
        let options = follow_options("setup_logs", options)?;
        Self::built(py, Follower::setup_logs(&computer_id, offset, options))
    }

    /// Runs ``command`` (a ``str``, run with ``sh -c``, or a sequence of
    /// ``str``, run as is) as an exec stream and follows it to its exit.
    /// When the stream breaks after announcing its process, the read
    /// continues on that process's output; the command is never sent twice
    /// unless ``idempotency_key`` makes that safe (then a keyed replay is
    /// followed).
    #[staticmethod]
    #[pyo3(signature = (computer_id, command, *, timeout_seconds = None, idempotency_key = None, **options))]
    fn exec_stream(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        command: &Bound<'_, PyAny>,
        timeout_seconds: Option<&Bound<'_, PyAny>>,
        idempotency_key: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let command = args::command(command)?;
        let timeout = args::opt_number(timeout_seconds, "timeout_seconds")?;
        let key = args::opt_text(idempotency_key, "idempotency_key")?;
        let options = follow_options("exec_stream", options)?;
        Self::built(
            py,
            Follower::exec_stream(&computer_id, &command, timeout, key.as_deref(), options),
        )
    }

    /// Drives a one-answer call — a :class:`Request` from
    /// :meth:`Request.start`, :meth:`Request.get_process`,
    /// :meth:`Request.kill` or :meth:`Request.exec` without ``stream`` — to
    /// its answer, delivered to the sink as one event, then :class:`Done`.
    /// No response, a cut answer, no answer within the liveness timeout, a
    /// 503 or 429: sent again within the budget only when the request is
    /// idempotent (a get, a kill, a keyed start or exec); otherwise, and
    /// once the budget is spent, :class:`NoAnswer`.
    #[staticmethod]
    #[pyo3(signature = (request, **options))]
    fn call(
        py: Python<'_>,
        request: PyRef<'_, PyRequest>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let options = follow_options("call", options)?;
        Self::built(py, Follower::call(request.0.clone(), options))
    }

    /// The longest the next wait for the service (for the headers, then for
    /// more of the body) may last, in float seconds; ``None``: no limit.
    /// Wait at most this long, then report the wait with
    /// :meth:`waited_seconds`. The follower keeps its own wait clock, so
    /// time spent between reads (the consumer's) never counts as a stall.
    fn wait_limit_seconds(&mut self) -> Option<f64> {
        self.inner.wait_limit().map(|d| d.as_secs_f64())
    }

    /// One wait for the service took ``elapsed`` float seconds, whether or
    /// not anything came. Returns ``True`` when the liveness timeout is
    /// spent: abort the request and call :meth:`no_response` (no headers
    /// yet) or :meth:`finish` without a transport error (a body).
    fn waited_seconds(&mut self, elapsed: &Bound<'_, PyAny>) -> PyResult<bool> {
        let elapsed = args::seconds(elapsed, "elapsed", false)?;
        Ok(self.inner.waited(elapsed))
    }

    /// The next request to send (a :class:`Request`). Call when
    /// ``state == "ready"``: first, and after each :class:`Reconnect` (once
    /// its delay passed) or :class:`Continue`.
    fn request(&mut self, py: Python<'_>) -> PyResult<PyRequest> {
        self.inner.request().map(PyRequest).map_err(Self::err(py))
    }

    /// The response's HTTP status and its ``Content-Type``,
    /// ``CE-Process-Id`` and ``Retry-After`` headers (``None`` when absent).
    /// Call once per request, before feeding its body.
    ///
    /// Raises :class:`UnsupportedContentType` for a 2xx answer that is
    /// neither NDJSON nor JSON, :class:`UnexpectedFrame` for a JSON document
    /// answering a read of output; an error answer is decoded from the body
    /// and raised by :meth:`finish`.
    #[pyo3(signature = (status, content_type = None, proc_id = None, retry_after = None))]
    fn open(
        &mut self,
        py: Python<'_>,
        status: &Bound<'_, PyAny>,
        content_type: Option<&Bound<'_, PyAny>>,
        proc_id: Option<&Bound<'_, PyAny>>,
        retry_after: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let status = args::status(py, status)?;
        let content_type = args::opt_text(content_type, "content_type")?.unwrap_or_default();
        let proc_id = args::opt_text(proc_id, "proc_id")?;
        let retry_after = args::opt_text(retry_after, "retry_after")?;
        self.inner
            .open(
                status,
                &content_type,
                proc_id.as_deref(),
                retry_after.as_deref(),
            )
            .map_err(Self::err(py))
    }

    /// Feeds the next piece of the body (``bytes``, ``bytearray`` or
    /// ``memoryview``; any split) and returns the events it completed, in
    /// order. Errors and the deferred-error rule as :meth:`Reader.feed`.
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

    /// Feeds a piece like :meth:`feed`, but appends the output bytes
    /// straight to ``transcript`` and returns only the other events, as
    /// :meth:`Reader.feed_into` does.
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

    /// The body ended: cleanly (``transport_error`` is ``None``) or broken
    /// (what the transport said, e.g. ``str(error)``). ``jitter`` is your
    /// random value in ``[0, 1]`` for the delay, if one is needed.
    ///
    /// Returns ``(events, decision)``: the events completed by the end of
    /// the body (the ``Skipped`` ranges of a 409 under ``gap_policy="skip"``,
    /// a document's; usually none — push them into your transcript if you
    /// use :meth:`feed_into`) and :class:`Done`, :class:`Reconnect` or
    /// :class:`Continue`. Raises the read's error (see the class); events
    /// completed before it are its ``events``.
    #[pyo3(
        signature = (transport_error = None, jitter = None),
        text_signature = "($self, transport_error=None, jitter=0.0)"
    )]
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
        transport_error: Option<&Bound<'py, PyAny>>,
        jitter: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let transport_error = args::opt_text(transport_error, "transport_error")?;
        let jitter = jitter_arg(jitter)?;
        let mut events = Vec::new();
        match self
            .inner
            .finish(transport_error.as_deref(), jitter, &mut events)
        {
            Ok(decision) => {
                (events_to_list(py, events)?, decision_to_py(py, decision)?).into_pyobject(py)
            }
            Err(err) => Err(to_py_err(py, err, events)),
        }
    }

    /// No response came: the request was sent (or may have been) and the
    /// connection was reset or closed, or no headers came within
    /// :meth:`wait_limit_seconds` (:meth:`waited_seconds` returned
    /// ``True``). ``detail`` is what the transport said; ``jitter`` as in
    /// :meth:`finish`. Returns the :class:`Reconnect` (or raises
    /// :class:`StreamDisconnected` / :class:`NoAnswer`). When the
    /// connection was never made, call :meth:`not_connected` instead.
    #[pyo3(
        signature = (detail = None, jitter = None),
        text_signature = "($self, detail='', jitter=0.0)"
    )]
    fn no_response<'py>(
        &mut self,
        py: Python<'py>,
        detail: Option<&Bound<'py, PyAny>>,
        jitter: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.transport_failed(py, detail, jitter, Follower::no_response)
    }

    /// The connection was never made: refused, the name lookup failed, the
    /// connect timed out. The request never left the machine, so it is sent
    /// again whatever it is (an unkeyed start or exec too), within the
    /// budget and backoff of any reconnect (reason ``"not_connected"``).
    /// ``detail`` is what the transport said; ``jitter`` as in
    /// :meth:`finish`. Returns the :class:`Reconnect` (or raises
    /// :class:`StreamDisconnected` / :class:`NoAnswer`, whose ``reached``
    /// says whether some attempt may have reached the service).
    #[pyo3(
        signature = (detail = None, jitter = None),
        text_signature = "($self, detail='', jitter=0.0)"
    )]
    fn not_connected<'py>(
        &mut self,
        py: Python<'py>,
        detail: Option<&Bound<'py, PyAny>>,
        jitter: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.transport_failed(py, detail, jitter, Follower::not_connected)
    }

    /// The consumed offsets (a :class:`Cursor`): where the read resumes from.
    #[getter]
    fn cursor(&self) -> PyCursor {
        PyCursor(self.inner.cursor())
    }

    /// The process, once known, else ``None``.
    #[getter]
    fn proc_id(&self) -> Option<&str> {
        self.inner.proc_id()
    }

    /// ``"ready"``, ``"sent"``, ``"body"``, ``"done"`` or ``"failed"``.
    #[getter]
    fn state(&self) -> &'static str {
        self.inner.state().as_str()
    }

    /// Reconnects decided so far.
    #[getter]
    fn attempts(&self) -> u32 {
        self.inner.attempts()
    }

    /// The options this follower was built with, as the keyword arguments
    /// name them (seconds as ``float``; ``max_frame_bytes`` as the limit).
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let o = self.inner.options();
        let d = PyDict::new(py);
        d.set_item("follow", o.follow)?;
        d.set_item("gap_policy", o.gap_policy.as_str())?;
        d.set_item("retries", o.retries)?;
        d.set_item("backoff_seconds", o.backoff.as_secs_f64())?;
        d.set_item("max_backoff_seconds", o.max_backoff.as_secs_f64())?;
        d.set_item("jitter", o.jitter)?;
        d.set_item("liveness_timeout_seconds", o.liveness_timeout.as_secs_f64())?;
        d.set_item("max_frame_bytes", o.max_frame_bytes)?;
        d.set_item("strict", o.strict)?;
        Ok(d)
    }

    /// The state to save to resume this read later (another process,
    /// another day): its process, cursor and exit. Pass it to
    /// :meth:`resume`.
    fn resume_state(&self) -> PyResumeState {
        PyResumeState(self.inner.resume_state())
    }

    fn __repr__(&self) -> String {
        let c = self.inner.cursor();
        format!(
            "<Follower state='{}' cursor=Cursor(stdout={}, stderr={}) attempts={}>",
            self.state(),
            c.stdout,
            c.stderr,
            self.inner.attempts()
        )
    }
}
