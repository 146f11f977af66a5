//! `Run`: the core's run machine (`dory_wire::Run`) with Python types. Every
//! decision — which request comes next, what each answer means, when to wait
//! and how long, what goes to which spill and to the output hook, what a
//! cancel sends, the result — is the core's; this module converts arguments
//! and the result, and maps errors; [`actions`] converts the actions and
//! steps (tuples whose first item names them).

use dory_wire::preview::{SpillError, SpillOutcome};
use dory_wire::{Error, Run, RunOptions, RunStep};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use pyo3::{intern, IntoPyObjectExt};

use crate::args;
use crate::errors::to_py_err;
use crate::follow::follow_options;
use crate::preview::{keep_arg, limit, preview_to_py, token_limit_arg, writer_outcome};
use crate::request::PyRequest;
use crate::values::PyCursor;

mod actions;

use actions::{error_with, step_to_py, Actions};

/// `Type: message` (or `Type` alone) for an exception a writer raised: the
/// text `writer_outcome` gives it (`RunPending._render_writer(raised=...)`),
/// as the core's `SpillError` that `Run::spill_failed` takes.
fn writer_error(py: Python<'_>, raised: &Bound<'_, PyAny>) -> PyResult<SpillError> {
    let outcome = writer_outcome(py, None, Some(raised), None)?;
    let SpillOutcome::Failed { reason } = outcome else {
        // writer_outcome gives a failure for every exception.
        return Ok(SpillError::WriterFailed {
            error: String::new(),
        });
    };
    // The reason is `SpillError::WriterFailed`'s text: take back its `error`.
    let bare = SpillError::WriterFailed {
        error: String::new(),
    }
    .to_string();
    let error = match reason.strip_prefix(&bare) {
        Some(rest) => rest.strip_prefix(": ").unwrap_or(rest).to_owned(),
        None => reason,
    };
    Ok(SpillError::WriterFailed { error })
}

/// The agent call ``run`` as one conversation, sans IO: the keyed start (sent
/// again safely when its answer is lost), the process's output from offset
/// 0 through reconnects, the views' spills and the live output hook, a
/// cancel's kill, and the result (docs/run.md, "The conversation"). It does
/// no IO, and has no clock and no randomness of its own: it answers "what
/// next?" and you do it::
///
///     run = Run("c_1", "make", random=secrets.token_bytes(16), spill=True, on_output=True)
///     while True:
///         request = run.request()               # send it: method, target, headers, body
///         try:
///             response = send(request)
///         except ConnectionError as error:      # no answer at all
///             step = run.no_response(str(error), random.random())
///         else:
///             run.open(response.status, response.content_type,
///                      response.proc_id, response.retry_after)
///             for chunk in response.chunks:
///                 do(run.feed(chunk))           # the actions, in order
///             actions, step = run.finish(None, random.random())
///             do(actions)
///         if step[0] == "done":
///             break
///         if step[0] == "wait":
///             time.sleep(step[1])
///     result = run.result()
///
/// Actions are tuples whose first item names them: ``("open_spill", view,
/// spill_id)`` (open the view's spill file: its bytes follow),
/// ``("write_spill", view, data)``, ``("output", stream, data, text)`` (call
/// the output hook), ``("commit_spill", view)`` (save it; report the outcome
/// with :meth:`spill_committed`) and ``("discard_spill", view)``. The writes
/// of one chunk to its stream's view and to ``"combined"``, and its output,
/// share one ``bytes`` object. A writer that fails: report it with
/// :meth:`spill_failed` after the batch, and write nothing more to that view.
///
/// Steps are tuples too: ``("send",)`` (send :meth:`request` now),
/// ``("wait", delay_seconds, reconnect)`` (wait, then send it; ``reconnect``
/// is the output read's :class:`Reconnect` record, for a reconnect hook, or
/// ``None`` when the start or the kill is sent again), ``("done",)`` (do the
/// commits given, then take :meth:`result`) and ``("cancelled",)`` (nothing
/// more to send; no result).
///
/// :meth:`cancel` at any point discards the open spills; with
/// ``kill_on_cancel`` it then says ``("send",)``: drive the kill's
/// conversation (first the keyed start again when the start was sent but not
/// answered) to ``("cancelled",)``. A failed kill is not an error.
///
/// Everything is checked when it is built, before any request: the limits
/// (``max_tokens``, when set, at least ``MIN_RUN_MAX_BYTES``; ``tokenizer``
/// one of :data:`TOKENIZERS`, as for :class:`Bounder`), the command, the
/// key, the timeout, the follow options (the keywords of
/// :class:`Follower`; ``follow`` must be true), ``answer_timeout_seconds``
/// (each wait of the start's and the kill's answer) and the previews'
/// ``keep`` and ``terminal`` (as :class:`Bounder`'s, but by default the
/// default patterns and on: a model reads the previews, the spill keeps the
/// raw bytes; ``keep=None, terminal=False`` gives the raw text). ``random`` is 16 bytes
/// from a secure source (``secrets.token_bytes(16)``): the fresh ``run-``
/// key when ``idempotency_key`` is ``None``. A wrong type is a
/// ``TypeError``; a wrong value is :class:`InvalidArgument` or
/// :class:`InvalidLimits`. Errors are sticky, and raised as
/// :class:`Follower` raises them; the actions a failing :meth:`finish` gave
/// are the error's ``events``. Not thread-safe.
#[pyclass(module = "dory_wire", name = "Run")]
pub(crate) struct PyRun {
    inner: Run,
}

impl PyRun {
    fn err(py: Python<'_>) -> impl FnOnce(Error) -> PyErr + '_ {
        move |e| to_py_err(py, e, Vec::new())
    }

    /// A transport failure, told to the core by `report` (its `no_response`
    /// or `not_connected`): the arguments converted, the step returned.
    fn transport_failed<'py>(
        &mut self,
        py: Python<'py>,
        detail: Option<&Bound<'py, PyAny>>,
        jitter: Option<&Bound<'py, PyAny>>,
        report: fn(&mut Run, &str, f64) -> Result<RunStep, Error>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let detail = args::opt_text(detail, "detail")?.unwrap_or_default();
        let jitter = args::opt_number(jitter, "jitter")?.unwrap_or(0.0);
        let step = report(&mut self.inner, &detail, jitter).map_err(Self::err(py))?;
        step_to_py(py, step)
    }
}

#[pymethods]
impl PyRun {
    #[new]
    #[pyo3(
        signature = (
            computer_id, command, *, random, max_lines = None, max_bytes = None,
            max_tokens = None, tokenizer = None, idempotency_key = None, timeout_seconds = None,
            hint = None, kill_on_cancel = None, spill = None, on_output = None,
            answer_timeout_seconds = None, **options
        ),
        text_signature = "(computer_id, command, *, random, max_lines=400, max_bytes=16384, max_tokens=None, tokenizer=None, idempotency_key=None, timeout_seconds=None, hint=None, kill_on_cancel=False, spill=False, on_output=False, answer_timeout_seconds=30.0, keep='defaults', terminal=True, **options)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        command: &Bound<'_, PyAny>,
        random: &Bound<'_, PyAny>,
        max_lines: Option<&Bound<'_, PyAny>>,
        max_bytes: Option<&Bound<'_, PyAny>>,
        max_tokens: Option<&Bound<'_, PyAny>>,
        tokenizer: Option<&Bound<'_, PyAny>>,
        idempotency_key: Option<&Bound<'_, PyAny>>,
        timeout_seconds: Option<&Bound<'_, PyAny>>,
        hint: Option<&Bound<'_, PyAny>>,
        kill_on_cancel: Option<&Bound<'_, PyAny>>,
        spill: Option<&Bound<'_, PyAny>>,
        on_output: Option<&Bound<'_, PyAny>>,
        answer_timeout_seconds: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let command = args::command(command)?;
        let random = {
            let input = args::bytes_like(random, "Run", "random")?;
            let bytes = input.as_slice();
            <[u8; 16]>::try_from(bytes).map_err(|_| {
                let reason = format!("must be 16 random bytes, not {}", bytes.len());
                args::invalid(py, "random", reason)
            })?
        };
        let flag = |obj: Option<&Bound<'_, PyAny>>, name: &str| {
            obj.map_or(Ok(false), |o| args::flag(o, name))
        };
        // `keep` and `terminal` come with the follow options' keywords, so
        // that an explicit `keep=None` (no kept lines) differs from an absent
        // `keep` (the run's default patterns).
        let (keep, terminal) = match options {
            Some(options) => {
                let keep = options.get_item("keep")?;
                let terminal = options.get_item("terminal")?;
                for name in ["keep", "terminal"] {
                    if options.contains(name)? {
                        options.del_item(name)?;
                    }
                }
                (keep, terminal)
            }
            None => (None, None),
        };
        let mut o = RunOptions::new();
        if let Some(keep) = keep {
            o = o.keep(keep_arg(py, Some(&keep))?);
        }
        if let Some(terminal) = terminal {
            o = o.terminal(args::flag(&terminal, "terminal")?);
        }
        o = o
            .follow(follow_options("Run", options)?)
            .kill_on_cancel(flag(kill_on_cancel, "kill_on_cancel")?)
            .spill(flag(spill, "spill")?)
            .on_output(flag(on_output, "on_output")?);
        if let Some(n) = max_lines {
            o = o.max_lines(limit(py, n, "max_lines")?);
        }
        if let Some(n) = max_bytes {
            o = o.max_bytes(limit(py, n, "max_bytes")?);
        }
        o.tokens = token_limit_arg(py, max_tokens, tokenizer)?;
        o.idempotency_key = args::opt_text(idempotency_key, "idempotency_key")?;
        o.timeout_seconds = args::opt_number(timeout_seconds, "timeout_seconds")?;
        o.hint = args::opt_text(hint, "hint")?;
        if let Some(t) = answer_timeout_seconds.filter(|t| !t.is_none()) {
            // A zero timeout is the core's to refuse.
            o = o.answer_timeout(args::duration(t, "answer_timeout_seconds", false)?);
        }
        Run::new(&computer_id, &command, o, random)
            .map(|inner| PyRun { inner })
            .map_err(Self::err(py))
    }

    /// The key the start is sent with: the caller's, or the fresh ``run-``
    /// key made of ``random``.
    #[getter]
    fn idempotency_key(&self) -> &str {
        self.inner.idempotency_key()
    }

    /// The process, once the start answered, else ``None``.
    #[getter]
    fn proc_id(&self) -> Option<&str> {
        self.inner.proc_id()
    }

    /// ``"starting"``, ``"following"``, ``"cancelling"``, ``"done"``,
    /// ``"finished"`` (the result was taken), ``"cancelled"`` or ``"failed"``.
    #[getter]
    fn state(&self) -> &'static str {
        self.inner.state().as_str()
    }

    /// The offsets of the output consumed so far (a :class:`Cursor`).
    #[getter]
    fn cursor(&self) -> PyCursor {
        PyCursor(self.inner.cursor())
    }

    /// The name ``view``'s spill is saved under (``<run spill id>-<view>``).
    fn spill_id(&self, view: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(self.inner.spill_id(args::view(view)?).to_owned())
    }

    /// The next request to send (a :class:`Request`): first, and after a
    /// ``("send",)`` or ``("wait", …)`` step (once its delay passed).
    fn request(&mut self, py: Python<'_>) -> PyResult<PyRequest> {
        self.inner.request().map(PyRequest).map_err(Self::err(py))
    }

    /// The response's HTTP status and its ``Content-Type``,
    /// ``CE-Process-Id`` and ``Retry-After`` headers (``None`` when
    /// absent), as :meth:`Follower.open` takes them.
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
    /// ``memoryview``; any split) and returns the actions it brought, in
    /// order. As :meth:`Follower.feed`: when the piece gave actions and then
    /// hit an error, the actions are returned and the (sticky) error is
    /// raised by the next call.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let input = args::bytes_like(data, "feed", "data")?;
        let mut actions = Actions::new(py);
        let fed = self.inner.feed(input.as_slice(), &mut actions);
        let list = actions.into_list()?;
        match fed {
            Err(err) if list.is_empty() => Err(to_py_err(py, err, Vec::new())),
            _ => Ok(list),
        }
    }

    /// The body ended: cleanly (``transport_error`` is ``None``) or broken
    /// (what the transport said). ``jitter`` is your random value in
    /// ``[0, 1]`` for a delay. Returns ``(actions, step)``; raises the
    /// run's error (its ``events``: the actions given before it).
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
        let jitter = args::opt_number(jitter, "jitter")?.unwrap_or(0.0);
        let mut actions = Actions::new(py);
        let step = self
            .inner
            .finish(transport_error.as_deref(), jitter, &mut actions);
        match step {
            Ok(step) => (actions.into_list()?, step_to_py(py, step)?).into_pyobject(py),
            Err(err) => Err(error_with(py, err, actions.into_list())),
        }
    }

    /// No response came: the request was sent (or may have been) and the
    /// connection was reset or closed, or no headers came within
    /// :meth:`wait_limit_seconds`. ``detail`` is what the transport said;
    /// ``jitter`` as in :meth:`finish`. Returns the step.
    #[pyo3(
        signature = (detail = None, jitter = None),
        text_signature = "($self, detail='', jitter=0.0)"
    )]
    fn no_response<'py>(
        &mut self,
        py: Python<'py>,
        detail: Option<&Bound<'py, PyAny>>,
        jitter: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.transport_failed(py, detail, jitter, Run::no_response)
    }

    /// The connection was never made (refused, the name lookup failed, the
    /// connect timed out): the request cannot have taken effect and is sent
    /// again within the budget (:meth:`Follower.not_connected`). ``detail``
    /// is what the transport said; ``jitter`` as in :meth:`finish`.
    /// Returns the step.
    #[pyo3(
        signature = (detail = None, jitter = None),
        text_signature = "($self, detail='', jitter=0.0)"
    )]
    fn not_connected<'py>(
        &mut self,
        py: Python<'py>,
        detail: Option<&Bound<'py, PyAny>>,
        jitter: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.transport_failed(py, detail, jitter, Run::not_connected)
    }

    /// The longest the next wait for the service may last, in float
    /// seconds (``None``: no limit), as :meth:`Follower.wait_limit_seconds`.
    fn wait_limit_seconds(&mut self) -> Option<f64> {
        self.inner.wait_limit().map(|d| d.as_secs_f64())
    }

    /// One wait for the service took ``elapsed`` float seconds; ``True``
    /// when the liveness timeout is spent (abort the request, then
    /// :meth:`no_response` or :meth:`finish`), as :meth:`Follower.waited_seconds`.
    fn waited_seconds(&mut self, elapsed: &Bound<'_, PyAny>) -> PyResult<bool> {
        let elapsed = args::seconds(elapsed, "elapsed", false)?;
        Ok(self.inner.waited(elapsed))
    }

    /// The caller cancelled: ``(actions, step)`` — the open spills'
    /// discards, then ``("send",)`` for the kill's conversation (with
    /// ``kill_on_cancel``) or ``("cancelled",)``.
    fn cancel<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let mut actions = Actions::new(py);
        let step = self.inner.cancel(&mut actions);
        (actions.into_list()?, step_to_py(py, step)?).into_pyobject(py)
    }

    /// ``view``'s spill writer raised ``raised`` (opening or writing):
    /// nothing more is written to it, and its preview's ``spill_error`` says
    /// ``spill writer failed: Type: message``.
    fn spill_failed(
        &mut self,
        py: Python<'_>,
        view: &Bound<'_, PyAny>,
        raised: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let view = args::view(view)?;
        if !raised.is_instance_of::<pyo3::exceptions::PyBaseException>() {
            return Err(PyTypeError::new_err(format!(
                "spill_failed() argument 'raised' must be an exception, not {}",
                args::type_name(raised)
            )));
        }
        let error = writer_error(py, raised)?;
        self.inner.spill_failed(view, error);
        Ok(())
    }

    /// What a ``("commit_spill", view)`` gave: the writer's ``commit()``
    /// returned ``returned`` (a path, ``None``, or anything else), or raised
    /// ``raised``, or (``use_instead`` set) returned an awaitable a
    /// synchronous call cannot wait for — as
    /// :meth:`RunPending._render_writer` takes them.
    #[pyo3(signature = (view, *, returned = None, raised = None, use_instead = None))]
    fn spill_committed(
        &mut self,
        py: Python<'_>,
        view: &Bound<'_, PyAny>,
        returned: Option<&Bound<'_, PyAny>>,
        raised: Option<&Bound<'_, PyAny>>,
        use_instead: Option<String>,
    ) -> PyResult<()> {
        let view = args::view(view)?;
        let outcome = writer_outcome(py, returned, raised, use_instead)?;
        self.inner.spill_committed(view, outcome);
        Ok(())
    }

    /// The result, once ``("done",)`` was given and the commits reported:
    /// a ``dict`` of the fields of the client's ``RunResult`` (``proc_id``,
    /// ``idempotency_key``, ``exit_code``, ``timed_out``, ``stdout``,
    /// ``stderr``, ``combined`` — :class:`Preview` objects —,
    /// ``stdout_lost_bytes``, ``stderr_lost_bytes``). Taken once.
    fn result<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.inner.result().map_err(Self::err(py))?;
        let d = PyDict::new(py);
        d.set_item(intern!(py, "proc_id"), r.proc_id)?;
        d.set_item(intern!(py, "idempotency_key"), r.idempotency_key)?;
        d.set_item(intern!(py, "exit_code"), r.exit_code)?;
        d.set_item(intern!(py, "timed_out"), r.timed_out)?;
        d.set_item(intern!(py, "stdout"), preview_to_py(py, r.stdout)?)?;
        d.set_item(intern!(py, "stderr"), preview_to_py(py, r.stderr)?)?;
        d.set_item(intern!(py, "combined"), preview_to_py(py, r.combined)?)?;
        d.set_item(intern!(py, "stdout_lost_bytes"), r.stdout_lost_bytes)?;
        d.set_item(intern!(py, "stderr_lost_bytes"), r.stderr_lost_bytes)?;
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let key = self.inner.idempotency_key().into_bound_py_any(py)?;
        let proc_id = self.inner.proc_id().into_bound_py_any(py)?;
        Ok(format!(
            "<Run state='{}' idempotency_key={} proc_id={}>",
            self.state(),
            key.repr()?,
            proc_id.repr()?
        ))
    }
}
