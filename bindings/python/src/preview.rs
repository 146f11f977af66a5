//! The preview bounder: `Bounder`, `StreamingBounder`, `PendingSpill` and
//! `Preview`. A spill writer's answer — a path, nothing, something else, an
//! exception, an awaitable — is turned into the core's spill outcome here, so
//! every failure text is the core's (`SpillError`), the same as in JS. The
//! async writers are awaited in Python (`dory_wire/_preview.py`).

use dory_wire::preview::{self, Bounded, SpillError, SpillOutcome};
use dory_wire::Error;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};
use pyo3::IntoPyObjectExt;

use crate::args::{self, ByteInput};
use crate::errors::to_py_err;

/// Bound at least this many bytes without the GIL.
pub(crate) const DETACH_THRESHOLD: usize = 64 * 1024;

/// A limit as `usize`: not an int is a `TypeError` (Python's convention);
/// an int is checked by the core (`preview::checked_limit`: 0 to
/// `MAX_LIMIT`, else `InvalidLimits`, a `ValueError`), as in every language.
pub(crate) fn limit(py: Python<'_>, obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<usize> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "argument '{arg}' must be int, not {}",
            args::type_name(obj)
        )));
    }
    // An int beyond a float's range is an infinity of its sign.
    let value = obj.extract::<f64>().unwrap_or_else(|_| {
        if obj.lt(0).unwrap_or(false) {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }
    });
    preview::checked_limit(value, arg).map_err(|e| to_py_err(py, e, Vec::new()))
}

/// The `max_tokens` and `tokenizer` arguments as the core's token limit:
/// `max_tokens` an `int` checked as `max_bytes` is (`preview::checked_limit`),
/// `tokenizer` a `str`; both `None` is no token limit, and every other rule
/// (the default tokenizer, a tokenizer alone only counting, an unknown or
/// missing tokenizer refused as `invalid_argument`) is the core's
/// `preview::token_limit`.
pub(crate) fn token_limit_arg(
    py: Python<'_>,
    max_tokens: Option<&Bound<'_, PyAny>>,
    tokenizer: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<preview::TokenLimit>> {
    let max_tokens = match max_tokens.filter(|o| !o.is_none()) {
        Some(n) => Some(limit(py, n, "max_tokens")?),
        None => None,
    };
    let tokenizer = opt_string(tokenizer, "tokenizer")?;
    preview::token_limit(max_tokens, tokenizer.as_deref()).map_err(|e| to_py_err(py, e, Vec::new()))
}

/// The limits of a bounder: lines, bytes and the token limit.
pub(crate) fn limits_arg(
    py: Python<'_>,
    max_lines: &Bound<'_, PyAny>,
    max_bytes: &Bound<'_, PyAny>,
    max_tokens: Option<&Bound<'_, PyAny>>,
    tokenizer: Option<&Bound<'_, PyAny>>,
) -> PyResult<preview::Limits> {
    let max_lines = limit(py, max_lines, "max_lines")?;
    let max_bytes = limit(py, max_bytes, "max_bytes")?;
    let tokens = token_limit_arg(py, max_tokens, tokenizer)?;
    Ok(preview::Limits::new(max_lines, max_bytes).with_token_limit(tokens))
}

/// How many tokens ``text`` encodes to under the tokenizer named
/// ``tokenizer`` (default: ``"o200k_base"``, as for ``max_tokens``): the
/// bounders' own counter, to check a preview (:attr:`Preview.tokens`) or
/// size a prompt. The names are :data:`TOKENIZERS`; another raises
/// :class:`InvalidArgument` (argument ``tokenizer``).
#[pyfunction]
#[pyo3(signature = (text, tokenizer = None))]
pub(crate) fn count_tokens(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    tokenizer: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    if !text.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "count_tokens() argument 'text' must be str, not {}",
            args::type_name(text)
        )));
    }
    let text: String = text.extract()?;
    let tokenizer = opt_string(tokenizer, "tokenizer")?;
    let count = || preview::count_tokens(&text, tokenizer.as_deref());
    let counted = if text.len() >= DETACH_THRESHOLD {
        py.detach(count)
    } else {
        count()
    };
    counted.map_err(|e| to_py_err(py, e, Vec::new()))
}

/// `TOKENIZERS`: the names of the tokenizers this build has, exact ones
/// first (the core's `preview::tokenizers`), as a tuple.
pub(crate) fn tokenizers(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyTuple>> {
    pyo3::types::PyTuple::new(py, preview::tokenizers())
}

/// Input data: `str` (its UTF-8 bytes) or bytes-like.
pub(crate) fn data_input<'py>(obj: &Bound<'py, PyAny>, func: &str) -> PyResult<ByteInput<'py>> {
    if let Ok(text) = obj.cast::<PyString>() {
        // The UTF-8 bytes as a `bytes` object, the same one a writer gets.
        let encoded = text.call_method1("encode", ("utf-8",))?;
        return Ok(ByteInput::Shared(encoded.cast_into()?));
    }
    args::bytes_like(obj, func, "data").map_err(|_| {
        PyTypeError::new_err(format!(
            "{func}() argument 'data' must be str, bytes, bytearray or memoryview, not {}",
            args::type_name(obj)
        ))
    })
}

/// An optional `str` argument (`None` allowed).
pub(crate) fn opt_string(obj: Option<&Bound<'_, PyAny>>, arg: &str) -> PyResult<Option<String>> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => args::string(o, arg).map(Some),
        None => Ok(None),
    }
}

/// The `keep` argument: `None` (off), `"defaults"`, or a sequence of `str`
/// patterns (another `str` or a pattern the core refuses is its
/// `invalid_argument` for `keep`; another type is a `TypeError`).
/// `RUN_PRESET`: the options of [`preview::Bounder::run_preset`] as the
/// keywords of `bound()` (`keep`, `terminal`, `split`), read from the core,
/// in a read-only mapping.
pub(crate) fn run_preset(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let preset = preview::Bounder::run_preset(1, preview::MIN_MAX_BYTES);
    let options = pyo3::types::PyDict::new(py);
    if *preset.keep() == preview::Keep::defaults() {
        options.set_item("keep", "defaults")?;
    } else {
        options.set_item(
            "keep",
            pyo3::types::PyTuple::new(py, preset.keep().as_slice())?,
        )?;
    }
    options.set_item("terminal", preset.terminal())?;
    options.set_item("split", preset.limits().split().as_str())?;
    py.import("types")?
        .getattr("MappingProxyType")?
        .call1((options,))
}

/// The `split` argument: `"even"` (the default) or `"tail"`.
pub(crate) fn split_arg(py: Python<'_>, split: &str) -> PyResult<preview::Split> {
    preview::Split::from_name(split).ok_or_else(|| {
        args::invalid(
            py,
            "split",
            format!("split must be 'even' or 'tail', not {split:?}"),
        )
    })
}

pub(crate) fn keep_arg(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<preview::Keep> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(preview::Keep::none());
    };
    if let Ok(text) = obj.cast::<PyString>() {
        let text: String = text.extract()?;
        if text == "defaults" {
            return Ok(preview::Keep::defaults());
        }
        return Err(args::invalid(
            py,
            "keep",
            format!(
                "keep must be None, 'defaults' or a sequence of patterns, not the str {text:?}"
            ),
        ));
    }
    let wrong = || {
        PyTypeError::new_err(format!(
            "keep must be None, 'defaults' or a sequence of str patterns, not {}",
            args::type_name(obj)
        ))
    };
    if obj.is_instance_of::<pyo3::types::PyBytes>()
        || obj.is_instance_of::<pyo3::types::PyByteArray>()
        || obj.is_instance_of::<pyo3::types::PyDict>()
    {
        return Err(wrong());
    }
    let seq = obj.cast::<pyo3::types::PySequence>().map_err(|_| wrong())?;
    let mut patterns = Vec::new();
    for item in seq.try_iter()? {
        let item = item?;
        if !item.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "each keep pattern must be a str, not {}",
                args::type_name(&item)
            )));
        }
        patterns.push(item.extract::<String>()?);
    }
    preview::Keep::patterns(patterns).map_err(|e| to_py_err(py, e, Vec::new()))
}

/// Bounds whole inputs to a preview of at most ``max_lines`` lines and
/// ``max_bytes`` bytes (notice included) and, with ``max_tokens``, at most
/// that many tokens under ``tokenizer``. See :func:`bound` for the usual
/// entry point.
///
/// Any limits are accepted: input that fits comes back unchanged. Only input
/// that must be cut with ``max_lines`` 0, or ``max_bytes`` or ``max_tokens``
/// below ``MIN_MAX_BYTES`` (32), raises :class:`InvalidLimits` (a
/// ``ValueError``). An unknown ``tokenizer`` (see :data:`TOKENIZERS`) raises
/// :class:`InvalidArgument`.
#[pyclass(frozen, module = "dory_wire", name = "Bounder")]
pub(crate) struct PyBounder(preview::Bounder);

#[pymethods]
impl PyBounder {
    #[new]
    #[pyo3(signature = (
        max_lines, max_bytes, *, keep = None, terminal = false, split = "even",
        max_tokens = None, tokenizer = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        max_lines: &Bound<'_, PyAny>,
        max_bytes: &Bound<'_, PyAny>,
        keep: Option<&Bound<'_, PyAny>>,
        terminal: bool,
        split: &str,
        max_tokens: Option<&Bound<'_, PyAny>>,
        tokenizer: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let limits = limits_arg(py, max_lines, max_bytes, max_tokens, tokenizer)?;
        let keep = keep_arg(py, keep)?;
        let split = split_arg(py, split)?;
        Ok(PyBounder(
            preview::Bounder::with_limits(limits)
                .with_keep(keep)
                .with_terminal(terminal)
                .with_split(split),
        ))
    }

    /// The most lines a preview may have, notice included.
    #[getter]
    fn max_lines(&self) -> usize {
        self.0.limits().max_lines()
    }

    /// The most bytes a preview may have, notice included.
    #[getter]
    fn max_bytes(&self) -> usize {
        self.0.limits().max_bytes()
    }

    /// Bounds ``data`` (``str`` or bytes-like). Returns the :class:`Preview`
    /// when it fits, else a :class:`PendingSpill` to answer with the spill
    /// outcome. ``spill_id`` names the spill (default: 32 hex digits derived
    /// from the content). Raises :class:`InvalidLimits` when ``data`` must be
    /// cut and the limits leave no room for a cut.
    #[pyo3(signature = (data, *, spill_id = None))]
    fn bound<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        spill_id: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let input = data_input(data, "bound")?;
        let spill_id = opt_string(spill_id, "spill_id")?;
        let bytes = input.as_slice();
        let bounder = &self.0;
        let run = || match &spill_id {
            Some(id) => bounder.bound_with_spill_id(bytes, id),
            None => bounder.bound(bytes),
        };
        let bounded = if bytes.len() >= DETACH_THRESHOLD {
            py.detach(run)
        } else {
            run()
        };
        bounded_to_py(py, bounded.map_err(|e| to_py_err(py, e, Vec::new()))?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Bounder(max_lines={}, max_bytes={})",
            self.max_lines(),
            self.max_bytes()
        )
    }
}

/// `bound()` with no spill writer, in one call: the bounder made, the data
/// bounded and the preview rendered with nothing saved (what
/// ``Bounder(...).bound(data)`` then ``.render()`` gives, without the two
/// extra crossings).
#[pyfunction]
#[pyo3(signature = (data, max_lines, max_bytes, keep, terminal, split, max_tokens, tokenizer, /))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _bound_unsaved(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    max_lines: &Bound<'_, PyAny>,
    max_bytes: &Bound<'_, PyAny>,
    keep: Option<&Bound<'_, PyAny>>,
    terminal: bool,
    split: &str,
    max_tokens: Option<&Bound<'_, PyAny>>,
    tokenizer: Option<&Bound<'_, PyAny>>,
) -> PyResult<Preview> {
    let input = data_input(data, "bound")?;
    let bounder = PyBounder::py_new(
        py, max_lines, max_bytes, keep, terminal, split, max_tokens, tokenizer,
    )?
    .0;
    let bytes = input.as_slice();
    let run = || bounder.bound(bytes);
    let bounded = if bytes.len() >= DETACH_THRESHOLD {
        py.detach(run)
    } else {
        run()
    };
    let bounded = bounded.map_err(|e| to_py_err(py, e, Vec::new()))?;
    preview_to_py(py, bounded.render(SpillOutcome::NotSaved, None))
}

/// `Fits` -> `Preview`, `NeedsSpill` -> `PendingSpill`.
fn bounded_to_py<'py>(py: Python<'py>, bounded: Bounded<'_>) -> PyResult<Bound<'py, PyAny>> {
    match bounded {
        Bounded::Fits(p) => preview_to_py(py, p)?.into_bound_py_any(py),
        Bounded::NeedsSpill(pending) => PendingSpill(pending.into_owned()).into_bound_py_any(py),
    }
}

/// Input that must be cut, waiting for the caller's spill outcome: save the
/// full output under :attr:`spill_id`, then call :meth:`render`.
///
/// Holds only the first and last bytes of the input, whatever its size; it
/// may be rendered any number of times.
#[pyclass(frozen, module = "dory_wire", name = "PendingSpill")]
pub(crate) struct PendingSpill(preview::PendingSpill<'static>);

#[pymethods]
impl PendingSpill {
    /// The id to save the full output under.
    #[getter]
    fn spill_id(&self) -> &str {
        self.0.spill_id()
    }

    /// Bytes of the input.
    #[getter]
    fn total_bytes(&self) -> u64 {
        self.0.total_bytes()
    }

    /// Lines of the input.
    #[getter]
    fn total_lines(&self) -> u64 {
        self.0.total_lines()
    }

    /// Renders the preview for the spill outcome: ``spill_path`` when the
    /// full output was saved there (the notice points at it, plus ``hint``),
    /// ``spill_error`` when saving failed (plain notice, reported in
    /// :attr:`Preview.spill_error`), neither when nothing was saved.
    #[pyo3(signature = (*, spill_path = None, spill_error = None, hint = None))]
    fn render(
        &self,
        py: Python<'_>,
        spill_path: Option<&Bound<'_, PyAny>>,
        spill_error: Option<&Bound<'_, PyAny>>,
        hint: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Preview> {
        let outcome = outcome(spill_path, spill_error)?;
        let hint = opt_string(hint, "hint")?;
        preview_to_py(py, self.0.render(outcome, hint.as_deref()))
    }

    /// Renders the preview for what a spill writer did: returned
    /// ``returned`` (a path, ``None``, or anything else), or raised
    /// ``raised``, or (``use_instead`` set) returned an awaitable a
    /// synchronous call cannot wait for. Used by :func:`bound` and
    /// :func:`abound`; the failure texts are the core's.
    #[pyo3(signature = (*, returned = None, raised = None, use_instead = None, hint = None))]
    fn _render_writer(
        &self,
        py: Python<'_>,
        returned: Option<&Bound<'_, PyAny>>,
        raised: Option<&Bound<'_, PyAny>>,
        use_instead: Option<String>,
        hint: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Preview> {
        let hint = opt_string(hint, "hint")?;
        let outcome = writer_outcome(py, returned, raised, use_instead)?;
        preview_to_py(py, self.0.render(outcome, hint.as_deref()))
    }

    fn __repr__(&self) -> String {
        format!(
            "<PendingSpill spill_id={:?} total_lines={} total_bytes={}>",
            self.0.spill_id(),
            self.0.total_lines(),
            self.0.total_bytes()
        )
    }
}

/// The spill outcome from `spill_path` / `spill_error`.
pub(crate) fn outcome(
    spill_path: Option<&Bound<'_, PyAny>>,
    spill_error: Option<&Bound<'_, PyAny>>,
) -> PyResult<SpillOutcome> {
    match (
        opt_string(spill_path, "spill_path")?,
        opt_string(spill_error, "spill_error")?,
    ) {
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "give spill_path (saved) or spill_error (failed), not both",
        )),
        (Some(path), None) => Ok(SpillOutcome::Saved { path }),
        (None, Some(reason)) => Ok(SpillOutcome::Failed { reason }),
        (None, None) => Ok(SpillOutcome::NotSaved),
    }
}

/// `Type: message` (or `Type` alone) for an exception a writer raised.
fn describe(exc: &Bound<'_, PyAny>) -> String {
    let name = args::type_name(exc);
    match exc.str().map(|s| s.to_string()) {
        Ok(text) if !text.is_empty() => format!("{name}: {text}"),
        _ => name,
    }
}

/// The spill outcome for what a writer did (see `PendingSpill._render_writer`).
pub(crate) fn writer_outcome(
    py: Python<'_>,
    returned: Option<&Bound<'_, PyAny>>,
    raised: Option<&Bound<'_, PyAny>>,
    use_instead: Option<String>,
) -> PyResult<SpillOutcome> {
    if let Some(exc) = raised.filter(|e| !e.is_none()) {
        return Ok(SpillError::WriterFailed {
            error: describe(exc),
        }
        .into());
    }
    if let Some(use_instead) = use_instead {
        return Ok(SpillError::Asynchronous { use_instead }.into());
    }
    let Some(value) = returned.filter(|v| !v.is_none()) else {
        return Ok(SpillOutcome::NotSaved);
    };
    if value.is_instance_of::<PyString>() {
        return Ok(str_path(value));
    }
    // An os.PathLike whose path is a str is a path too.
    let os = py.import("os")?;
    if value.is_instance(&os.getattr("PathLike")?)? {
        match os.call_method1("fspath", (value,)) {
            Ok(path) if path.is_instance_of::<PyString>() => return Ok(str_path(&path)),
            Ok(_) => {}
            Err(err) => {
                return Ok(SpillError::WriterFailed {
                    error: describe(err.value(py).as_any()),
                }
                .into())
            }
        }
    }
    Ok(SpillError::NotAPath {
        returned: args::type_name(value),
    }
    .into())
}

/// A `str` path; one that is not valid Unicode (lone surrogates) is refused.
fn str_path(value: &Bound<'_, PyAny>) -> SpillOutcome {
    match value.extract::<String>() {
        Ok(path) => SpillOutcome::Saved { path },
        Err(_) => SpillError::NotAPath {
            returned: "str with lone surrogates".to_owned(),
        }
        .into(),
    }
}

/// Calls a writer synchronously: `spill(spill_id)`, caught, an awaitable
/// closed and refused (`use_instead` names the asynchronous call).
fn call_writer(
    py: Python<'_>,
    spill: &Bound<'_, PyAny>,
    spill_id: &str,
    use_instead: &str,
) -> PyResult<SpillOutcome> {
    let returned = match spill.call1((spill_id,)) {
        Ok(value) => value,
        Err(err) => {
            if !err.is_instance_of::<pyo3::exceptions::PyException>(py) {
                // KeyboardInterrupt, SystemExit…: not a writer failure.
                return Err(err);
            }
            return writer_outcome(py, None, Some(err.value(py).as_any()), None);
        }
    };
    let inspect = py.import("inspect")?;
    if inspect
        .call_method1("isawaitable", (&returned,))?
        .is_truthy()?
    {
        // Never awaited: close it so Python does not warn that it was not.
        if let Ok(close) = returned.getattr("close") {
            let _ = close.call0();
        }
        return writer_outcome(py, None, None, Some(use_instead.to_owned()));
    }
    writer_outcome(py, Some(&returned), None, None)
}

/// Bounds an input given in chunks, with memory proportional to the limits
/// (not to the input): the same preview as :func:`bound` over the
/// concatenated chunks, however they are split. The limits and options are
/// :class:`Bounder`'s (``max_tokens`` and ``tokenizer`` included).
///
/// To spill, write each chunk to the spill file as you :meth:`push` it, then
/// give :meth:`finish` a ``spill`` callable that returns its path.
/// ``spill_id`` names the spill (default: derived from the content, known
/// only at the end: :attr:`Preview.spill_id`).
#[pyclass(module = "dory_wire", name = "StreamingBounder")]
pub(crate) struct StreamingBounder {
    inner: Option<preview::StreamingBounder>,
}

/// The error of a call after `finish`.
fn finished(py: Python<'_>) -> PyErr {
    let reason = "the streaming bounder was already finished".to_owned();
    to_py_err(py, Error::InvalidState { reason }, Vec::new())
}

impl StreamingBounder {
    fn live(&mut self, py: Python<'_>) -> PyResult<&mut preview::StreamingBounder> {
        self.inner.as_mut().ok_or_else(|| finished(py))
    }

    /// Ends the input (once).
    fn finish_inner(&mut self, py: Python<'_>) -> PyResult<Bounded<'static>> {
        let inner = self.inner.take().ok_or_else(|| finished(py))?;
        inner.finish().map_err(|e| to_py_err(py, e, Vec::new()))
    }
}

/// A spill writer argument: a callable or `None`.
fn writer<'py>(spill: Option<&Bound<'py, PyAny>>) -> PyResult<Option<Bound<'py, PyAny>>> {
    match spill.filter(|s| !s.is_none()) {
        None => Ok(None),
        Some(s) if s.is_callable() => Ok(Some(s.clone())),
        Some(s) => Err(PyTypeError::new_err(format!(
            "spill must be a callable spill(spill_id) -> path | None, not {}",
            args::type_name(s)
        ))),
    }
}

#[pymethods]
impl StreamingBounder {
    #[new]
    #[pyo3(signature = (
        max_lines, max_bytes, *, spill_id = None, keep = None, terminal = false, split = "even",
        max_tokens = None, tokenizer = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        max_lines: &Bound<'_, PyAny>,
        max_bytes: &Bound<'_, PyAny>,
        spill_id: Option<&Bound<'_, PyAny>>,
        keep: Option<&Bound<'_, PyAny>>,
        terminal: bool,
        split: &str,
        max_tokens: Option<&Bound<'_, PyAny>>,
        tokenizer: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let limits = limits_arg(py, max_lines, max_bytes, max_tokens, tokenizer)?;
        let keep = keep_arg(py, keep)?;
        let split = split_arg(py, split)?;
        let mut inner = preview::StreamingBounder::with_limits(limits)
            .with_keep(keep)
            .with_terminal(terminal)
            .with_split(split);
        if let Some(id) = opt_string(spill_id, "spill_id")? {
            inner = inner.with_spill_id(id);
        }
        Ok(StreamingBounder { inner: Some(inner) })
    }

    /// Feeds the next chunk (``str`` or bytes-like; any size, even empty).
    /// Raises :class:`InvalidState` after :meth:`finish`.
    fn push(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let input = data_input(data, "push")?;
        let bytes = input.as_slice();
        let inner = self.live(py)?;
        if bytes.len() >= DETACH_THRESHOLD {
            py.detach(|| inner.push(bytes));
        } else {
            inner.push(bytes);
        }
        Ok(())
    }

    /// Bytes pushed so far.
    #[getter]
    fn total_bytes(&mut self, py: Python<'_>) -> PyResult<u64> {
        Ok(self.live(py)?.total_bytes())
    }

    /// Bytes of buffer held (bounded by the limits, whatever was pushed);
    /// 0 once finished.
    #[getter]
    fn retained_bytes(&self) -> usize {
        self.inner.as_ref().map_or(0, |b| b.retained_bytes())
    }

    /// Ends the input and renders the preview. When it must be cut and
    /// ``spill`` is given, ``spill(spill_id)`` is called once and returns the
    /// path where the caller saved the chunks (or ``None``: nothing saved);
    /// the notice then names it, with ``hint``. A writer that raises or
    /// returns something else never escapes: see :attr:`Preview.spill_error`.
    /// An async writer belongs to :meth:`afinish`. Raises
    /// :class:`InvalidState` when called twice, :class:`InvalidLimits` when
    /// the input must be cut and the limits leave no room for a cut.
    #[pyo3(signature = (spill = None, hint = None))]
    fn finish(
        &mut self,
        py: Python<'_>,
        spill: Option<&Bound<'_, PyAny>>,
        hint: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Preview> {
        let spill = writer(spill)?;
        let hint = opt_string(hint, "hint")?;
        let pending = match self.finish_inner(py)? {
            Bounded::Fits(preview) => return preview_to_py(py, preview),
            Bounded::NeedsSpill(pending) => pending,
        };
        let outcome = match spill {
            None => SpillOutcome::NotSaved,
            Some(spill) => call_writer(py, &spill, pending.spill_id(), "afinish()")?,
        };
        preview_to_py(py, pending.render(outcome, hint.as_deref()))
    }

    /// :meth:`finish` with an async (or sync) writer: ``await
    /// spill(spill_id)`` gives the path. Returns an awaitable of the
    /// :class:`Preview`.
    #[pyo3(signature = (spill = None, hint = None))]
    fn afinish<'py>(
        &mut self,
        py: Python<'py>,
        spill: Option<&Bound<'py, PyAny>>,
        hint: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let spill = writer(spill)?;
        opt_string(hint, "hint")?;
        let bounded = match self.finish_inner(py)? {
            Bounded::Fits(preview) => preview_to_py(py, preview)?.into_bound_py_any(py)?,
            Bounded::NeedsSpill(pending) => PendingSpill(pending).into_bound_py_any(py)?,
        };
        py.import("dory_wire._preview")?
            .getattr("_afinish")?
            .call1((bounded, spill, hint))
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            Some(b) => format!("<StreamingBounder total_bytes={}>", b.total_bytes()),
            None => "<StreamingBounder finished>".to_owned(),
        }
    }
}

/// A bounded preview of some output, with exact accounting.
///
/// ``text`` is the preview (valid UTF-8 within both limits, and within
/// ``max_tokens`` when set, notice included); ``str(preview)`` is ``text``.
/// When nothing was cut it is the input unchanged and every
/// ``omitted_*``/``spill_*`` field is empty.
/// Counts add up: ``head_bytes + omitted_bytes + tail_bytes == total_bytes``.
#[pyclass(frozen, eq, hash, module = "dory_wire", name = "Preview")]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct Preview(preview::Preview<'static>);

pub(crate) fn preview_to_py(_py: Python<'_>, p: preview::Preview<'_>) -> PyResult<Preview> {
    Ok(Preview(p.into_owned()))
}

#[pymethods]
impl Preview {
    /// The preview text.
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }

    /// Whether anything was cut (then ``text`` holds exactly one notice line).
    #[getter]
    fn truncated(&self) -> bool {
        self.0.truncated
    }

    /// Lines of the input (a final run without ``\n`` counts as a line).
    #[getter]
    fn total_lines(&self) -> u64 {
        self.0.total_lines
    }

    /// Bytes of the input.
    #[getter]
    fn total_bytes(&self) -> u64 {
        self.0.total_bytes
    }

    /// Input bytes shown before the notice (all of them when not truncated).
    #[getter]
    fn head_bytes(&self) -> u64 {
        self.0.head_bytes
    }

    /// Input bytes shown after the notice.
    #[getter]
    fn tail_bytes(&self) -> u64 {
        self.0.tail_bytes
    }

    /// Input lines with at least one byte not shown.
    #[getter]
    fn omitted_lines(&self) -> u64 {
        self.0.omitted_lines
    }

    /// Input bytes not shown.
    #[getter]
    fn omitted_bytes(&self) -> u64 {
        self.0.omitted_bytes
    }

    /// ``(first, last)`` omitted line, 1-based and inclusive; ``None`` when
    /// nothing was omitted.
    #[getter]
    fn omitted_range(&self) -> Option<(u64, u64)> {
        self.0.omitted_range
    }

    /// The spill id the full output was to be saved under (when cut).
    #[getter]
    fn spill_id(&self) -> Option<&str> {
        self.0.spill_id.as_deref()
    }

    /// The path the notice points at (only when it does).
    #[getter]
    fn spill_path(&self) -> Option<&str> {
        self.0.spill_path.as_deref()
    }

    /// Why the notice does not point at a saved file, when a save was
    /// attempted (the writer raised or returned a non-string, or the path or
    /// hint was refused).
    #[getter]
    fn spill_error(&self) -> Option<&str> {
        self.0.spill_error.as_deref()
    }

    /// How many tokens ``text`` encodes to under the bounder's
    /// ``tokenizer`` (at most ``max_tokens``), as :func:`count_tokens`
    /// counts it; ``None`` when neither ``max_tokens`` nor ``tokenizer`` was
    /// given.
    #[getter]
    fn tokens(&self) -> Option<u64> {
        self.0.tokens
    }

    /// The notice lines the bounder wrote into ``text``, in order: a list
    /// of :class:`Notice` (empty when nothing was cut, kept, rendered or
    /// lost). Recorded where each was written, never parsed from the text.
    #[getter]
    fn notices(&self) -> Vec<Notice> {
        self.0
            .notice_lines()
            .map(|(kind, line, text)| Notice {
                kind: kind.as_str(),
                line,
                text: text.to_owned(),
            })
            .collect()
    }

    /// The preview as one canonical JSON object (a ``str``), the core's
    /// bytes in every language: the fields above in snake_case, with
    /// ``omitted_range`` as ``{"first", "last"}`` and ``notices``, the notice
    /// lines the bounder wrote into ``text``, in order, each ``{"kind",
    /// "line", "text"}`` (``kind`` one of ``"omitted"``, ``"kept"``,
    /// ``"terminal"``, ``"stderr"``, ``"lost"``, ``"end"``), then ``tokens``
    /// (``null`` without a token limit). Integers are exact. The JSON
    /// Schema: ``docs/schema/preview.schema.json``.
    fn to_json(&self) -> String {
        self.0.to_json()
    }

    fn __str__(&self) -> &str {
        &self.0.text
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let p = &self.0;
        let range = p.omitted_range.into_bound_py_any(py)?;
        let text = PyString::new(py, &p.text).into_any();
        let opt = |v: &Option<String>| -> PyResult<String> {
            Ok(v.as_deref().into_bound_py_any(py)?.repr()?.to_string())
        };
        Ok(format!(
            "Preview(text={}, truncated={}, total_lines={}, total_bytes={}, omitted_lines={}, omitted_bytes={}, omitted_range={}, spill_id={}, spill_path={}, spill_error={}, tokens={})",
            text.repr()?,
            if p.truncated { "True" } else { "False" },
            p.total_lines,
            p.total_bytes,
            p.omitted_lines,
            p.omitted_bytes,
            range.repr()?,
            opt(&p.spill_id)?,
            opt(&p.spill_path)?,
            opt(&p.spill_error)?,
            p.tokens.into_bound_py_any(py)?.repr()?,
        ))
    }
}

/// A notice line of a :class:`Preview`: ``kind`` (``"omitted"``,
/// ``"kept"``, ``"terminal"``, ``"stderr"``, ``"lost"`` or ``"end"``), its 1-based
/// ``line`` in the preview's ``text`` and the line's ``text`` (without its
/// ``\n``). The entries of ``notices`` in :meth:`Preview.to_json`.
#[pyclass(frozen, eq, hash, module = "dory_wire", name = "Notice")]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct Notice {
    kind: &'static str,
    line: u64,
    text: String,
}

#[pymethods]
impl Notice {
    /// What the notice says: ``"omitted"`` (the cut), ``"kept"`` (the
    /// kept lines' header), ``"terminal"`` (what rendering removed),
    /// ``"stderr"`` (a run's stderr section), ``"lost"`` (a run's loss) or
    /// ``"end"`` (how a run's process ended: its combined view's last line).
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }

    /// Its 1-based line number in the preview's ``text``.
    #[getter]
    fn line(&self) -> u64 {
        self.line
    }

    /// The notice line, without its ``\n``.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let text = PyString::new(py, &self.text).into_any();
        Ok(format!(
            "Notice(kind='{}', line={}, text={})",
            self.kind,
            self.line,
            text.repr()?
        ))
    }
}

/// The canonical JSON of a ``RunResult`` (``dory_wire.client.RunResult``
/// or any object with its fields, the previews :class:`Preview` objects):
/// the core's ``RunResult::to_json``, its fields read from ``result``.
#[pyfunction]
pub(crate) fn _run_result_json(result: &Bound<'_, PyAny>) -> PyResult<String> {
    let field = |name: &str| result.getattr(name);
    let preview = |name: &str| -> PyResult<preview::Preview<'static>> {
        let value = field(name)?;
        let p = value.cast::<Preview>().map_err(|_| {
            PyTypeError::new_err(format!(
                "RunResult.{name} must be a Preview, not {}",
                args::type_name(&value)
            ))
        })?;
        Ok(p.get().0.clone())
    };
    let mut r = dory_wire::RunResult::new(
        field("proc_id")?.extract()?,
        field("idempotency_key")?.extract()?,
        [preview("stdout")?, preview("stderr")?, preview("combined")?],
    );
    r.exit_code = field("exit_code")?.extract()?;
    r.timed_out = field("timed_out")?.extract()?;
    r.stdout_lost_bytes = field("stdout_lost_bytes")?.extract()?;
    r.stderr_lost_bytes = field("stderr_lost_bytes")?.extract()?;
    Ok(r.to_json())
}
