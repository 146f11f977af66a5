//! The spill handshake: `PendingSpill` (input that must be cut, waiting
//! for the caller's spill outcome) and the spill outcome of what a writer
//! did — returned a path, nothing or something else, raised, or returned an
//! awaitable — with the core's failure texts (`SpillError`).

use dory_wire::preview::{self, SpillError, SpillOutcome};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::result::{preview_to_py, Preview};
use crate::args::{self, opt_string};

/// Input that must be cut, waiting for the caller's spill outcome: save the
/// full output under :attr:`spill_id`, then call :meth:`render`.
///
/// Holds only the first and last bytes of the input, whatever its size; it
/// may be rendered any number of times.
#[pyclass(frozen, module = "dory_wire", name = "PendingSpill")]
pub(crate) struct PendingSpill(pub(super) preview::PendingSpill<'static>);

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
pub(super) fn call_writer(
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

/// A spill writer argument: a callable or `None`.
pub(super) fn writer<'py>(
    spill: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match spill.filter(|s| !s.is_none()) {
        None => Ok(None),
        Some(s) if s.is_callable() => Ok(Some(s.clone())),
        Some(s) => Err(PyTypeError::new_err(format!(
            "spill must be a callable spill(spill_id) -> path | None, not {}",
            args::type_name(s)
        ))),
    }
}
