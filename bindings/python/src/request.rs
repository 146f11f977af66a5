//! `Request`: the core's request builders with Python types.

use dory_wire::Request;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::args;
use crate::errors::to_py_err;

/// One HTTP request of the Dory API, independent of the HTTP library: what
/// every call sends, built (and its arguments checked) by the core.
///
/// Send it as it is: ``method`` to the base URL + ``target`` (``path`` and
/// the ``query``), with ``headers`` (a tuple of ``(name, value)`` pairs, in
/// order; ``dict(request.headers)`` for a mapping) added to your client's
/// own, and ``body`` (JSON bytes, sent with ``Content-Type:
/// application/json``) when it is not ``None``. ``wait`` says how long to
/// wait for the answer: ``"default"`` (your client's timeouts),
/// ``"stream"`` (an output stream: bound each wait for the next bytes by
/// the liveness timeout, not the whole response) or ``"unbounded"`` (a
/// synchronous exec answers when the process exits). ``idempotent`` says
/// whether sending it again cannot start anything twice.
///
/// Build one with the static methods (:meth:`start`, :meth:`exec`,
/// :meth:`get_process`, :meth:`kill`, :meth:`output`,
/// :meth:`setup_logs`) or get it from :meth:`Follower.request`. A command
/// is a ``str`` (a shell line) or a sequence of ``str`` (an argv). A wrong
/// type is a ``TypeError``; a wrong value (an empty id or command, a
/// timeout that is not positive, an idempotency key that cannot be a
/// header) is :class:`InvalidArgument`.
#[pyclass(frozen, eq, module = "dory_wire", name = "Request")]
#[derive(PartialEq)]
pub(crate) struct PyRequest(pub(crate) Request);

fn built(py: Python<'_>, result: Result<Request, dory_wire::Error>) -> PyResult<PyRequest> {
    result
        .map(PyRequest)
        .map_err(|e| to_py_err(py, e, Vec::new()))
}

/// `(name, value)` pairs as a tuple of tuples.
fn pairs<'py>(py: Python<'py>, items: &[(&'static str, String)]) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, items.iter().map(|(k, v)| (*k, v.as_str())))
}

#[pymethods]
impl PyRequest {
    /// ``POST /computers/{computer_id}/processes``: starts ``command`` in
    /// the background; answered by the process's identity (JSON). With an
    /// ``idempotency_key``, sending it again answers the same process
    /// instead of starting another.
    /// The API's base URL as every client takes it (the core's rule): an
    /// absolute ``http://`` or ``https://`` URL with a host, without spaces,
    /// a query or a fragment, returned without its trailing ``/``;
    /// ``InvalidArgument`` (argument ``base_url``) otherwise, ``None`` and
    /// ``""`` included.
    #[staticmethod]
    #[pyo3(signature = (url, /))]
    fn base_url(py: Python<'_>, url: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let url = match url {
            Some(u) if !u.is_none() => Some(args::text(u, "base_url")?),
            _ => None,
        };
        dory_wire::base_url(url.as_deref()).map_err(|e| to_py_err(py, e, Vec::new()))
    }

    #[staticmethod]
    #[pyo3(signature = (computer_id, command, timeout_seconds = None, idempotency_key = None))]
    fn start(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        command: &Bound<'_, PyAny>,
        timeout_seconds: Option<&Bound<'_, PyAny>>,
        idempotency_key: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let command = args::command(command)?;
        let timeout = args::opt_number(timeout_seconds, "timeout_seconds")?;
        let key = args::opt_text(idempotency_key, "idempotency_key")?;
        built(
            py,
            Request::start(&computer_id, &command, timeout, key.as_deref()),
        )
    }

    /// ``POST /computers/{computer_id}/exec``: runs ``command``. With
    /// ``stream=True`` the answer is its frames (NDJSON; see
    /// :meth:`Follower.exec_stream` to follow them to the exit), else its
    /// result when it exits (JSON, each stream cut at the service's limit).
    #[staticmethod]
    #[pyo3(
        signature = (computer_id, command, timeout_seconds = None, idempotency_key = None, stream = None),
        text_signature = "(computer_id, command, timeout_seconds=None, idempotency_key=None, stream=False)"
    )]
    fn exec(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        command: &Bound<'_, PyAny>,
        timeout_seconds: Option<&Bound<'_, PyAny>>,
        idempotency_key: Option<&Bound<'_, PyAny>>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let command = args::command(command)?;
        let timeout = args::opt_number(timeout_seconds, "timeout_seconds")?;
        let key = args::opt_text(idempotency_key, "idempotency_key")?;
        let stream = match stream {
            Some(s) => args::flag(s, "stream")?,
            None => false,
        };
        built(
            py,
            Request::exec(&computer_id, &command, timeout, key.as_deref(), stream),
        )
    }

    /// ``GET /computers/{computer_id}/processes/{proc_id}``: the process's
    /// identity.
    #[staticmethod]
    fn get_process(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        proc_id: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let proc_id = args::text(proc_id, "proc_id")?;
        built(py, Request::get_process(&computer_id, &proc_id))
    }

    /// ``POST /computers/{computer_id}/processes/{proc_id}/kill``; answered
    /// by the identity after. Killing twice is harmless (idempotent).
    #[staticmethod]
    fn kill(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        proc_id: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let proc_id = args::text(proc_id, "proc_id")?;
        built(py, Request::kill(&computer_id, &proc_id))
    }

    /// ``GET /computers/{computer_id}/processes/{proc_id}/output`` from
    /// ``cursor`` (a :class:`Cursor`, a mapping such as ``{"stdout": 5}``,
    /// or ``None`` for zeros): the retained output, followed until exit
    /// when ``follow``.
    #[staticmethod]
    #[pyo3(
        signature = (computer_id, proc_id, cursor, follow = None),
        text_signature = "(computer_id, proc_id, cursor, follow=True)"
    )]
    fn output(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        proc_id: &Bound<'_, PyAny>,
        cursor: &Bound<'_, PyAny>,
        follow: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let proc_id = args::text(proc_id, "proc_id")?;
        let cursor = args::cursor(Some(cursor), "cursor")?;
        let follow = follow_arg(follow)?;
        built(py, Request::output(&computer_id, &proc_id, cursor, follow))
    }

    /// ``GET /computers/{computer_id}/setup/logs`` from byte ``offset`` of
    /// the one merged log, followed until the setup command exits when
    /// ``follow``.
    #[staticmethod]
    #[pyo3(
        signature = (computer_id, offset = None, follow = None),
        text_signature = "(computer_id, offset=0, follow=True)"
    )]
    fn setup_logs(
        py: Python<'_>,
        computer_id: &Bound<'_, PyAny>,
        offset: Option<&Bound<'_, PyAny>>,
        follow: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let computer_id = args::text(computer_id, "computer_id")?;
        let offset = offset_arg(offset)?;
        let follow = follow_arg(follow)?;
        built(py, Request::setup_logs(&computer_id, offset, follow))
    }

    /// ``"GET"`` or ``"POST"``.
    #[getter]
    fn method(&self) -> &'static str {
        self.0.method.as_str()
    }

    /// The path, every id percent-encoded as one segment; no query.
    #[getter]
    fn path(&self) -> &str {
        &self.0.path
    }

    /// The query parameters, in order: a tuple of ``(name, value)`` pairs
    /// (values need no escaping).
    #[getter]
    fn query<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        pairs(py, &self.0.query)
    }

    /// The headers this request sets (``Accept``, ``Idempotency-Key``): a
    /// tuple of ``(name, value)`` pairs, in order.
    #[getter]
    fn headers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        pairs(py, &self.0.headers)
    }

    /// The JSON body as bytes, or ``None``.
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.0.body.as_deref().map(|b| PyBytes::new(py, b))
    }

    /// ``"default"``, ``"stream"`` or ``"unbounded"``: how long to wait for
    /// the answer.
    #[getter]
    fn wait(&self) -> &'static str {
        self.0.wait.as_str()
    }

    /// Whether sending it again cannot start anything twice (reads, kills,
    /// and starts or execs with an idempotency key).
    #[getter]
    fn idempotent(&self) -> bool {
        self.0.idempotent
    }

    /// The path and the query: what goes after the base URL.
    #[getter]
    fn target(&self) -> String {
        self.0.target()
    }

    /// The value of a header this request sets (the name compared without
    /// case), or ``None``.
    fn header(&self, name: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let name = args::text(name, "name")?;
        Ok(self.0.header(&name).map(str::to_owned))
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.key(py)?.hash()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let fields = [
            ("method", self.method().into_bound_py_any(py)?),
            ("path", self.path().into_bound_py_any(py)?),
            ("query", self.query(py)?.into_any()),
            ("headers", self.headers(py)?.into_any()),
            ("body", self.body(py).into_bound_py_any(py)?),
            ("wait", self.wait().into_bound_py_any(py)?),
            ("idempotent", self.idempotent().into_bound_py_any(py)?),
        ];
        crate::values::repr_call("Request", &fields)
    }
}

impl PyRequest {
    /// The fields as a tuple, for hashing.
    fn key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let fields = [
            self.method().into_bound_py_any(py)?,
            self.path().into_bound_py_any(py)?,
            self.query(py)?.into_any(),
            self.headers(py)?.into_any(),
            self.body(py).into_bound_py_any(py)?,
            self.wait().into_bound_py_any(py)?,
            self.idempotent().into_bound_py_any(py)?,
        ];
        PyTuple::new(py, fields)
    }
}

/// `follow` (by default the follower's default: follow until exit).
fn follow_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
    match obj {
        Some(o) => args::flag(o, "follow"),
        None => Ok(dory_wire::FollowOptions::default().follow),
    }
}

/// A setup log `offset` (default 0).
pub(crate) fn offset_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    match obj {
        Some(o) => args::count(o, "offset", 0, u64::MAX),
        None => Ok(0),
    }
}
