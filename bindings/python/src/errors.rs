//! Core errors to Python exceptions, by the core's table of error codes.
//!
//! The exception classes are plain Python (`dory_wire/_errors.py`), declared
//! for type checkers and checked against [`dory_wire::ERROR_CODES`] by the
//! test suite. An error becomes an instance of the class its code names, with
//! the core's fields as keyword arguments: nothing here knows one code from
//! another.

use dory_wire::{Error, FieldValue, ERROR_CODES};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::events::events_to_list;
use crate::values::{PyCursor, StreamName};

/// `dory_wire._errors`, imported on the first error.
static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The core's table for Python: `(code, class, kind, fields)` per code.
pub(crate) fn error_codes(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    let rows = ERROR_CODES
        .iter()
        .map(|row| {
            let fields = PyTuple::new(py, row.fields.iter().copied())?;
            (row.code, row.class, row.kind.as_str(), fields).into_pyobject(py)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, rows)
}

/// One field value as the Python attribute value.
fn field_to_py<'py>(py: Python<'py>, value: FieldValue<'_>) -> PyResult<Bound<'py, PyAny>> {
    match value {
        FieldValue::Str(s) => s.into_bound_py_any(py),
        FieldValue::OptStr(s) => s.into_bound_py_any(py),
        FieldValue::U64(n) => n.into_bound_py_any(py),
        FieldValue::Stream(s) => (&StreamName::of(py, s)).into_bound_py_any(py),
        FieldValue::Cursor(c) => PyCursor(c).into_bound_py_any(py),
        FieldValue::Bool(b) => b.into_bound_py_any(py),
    }
}

/// Builds the Python exception for a core error.
///
/// `events` are events decoded by the failing call that could not be
/// returned (only `finish()` has any): they are attached as `.events`.
pub(crate) fn to_py_err(py: Python<'_>, err: Error, events: Vec<dory_wire::Event>) -> PyErr {
    match build(py, &err, events) {
        Ok(exc) => PyErr::from_value(exc),
        // Building the exception failed (e.g. the package is broken): report
        // that failure, which names the cause, rather than lose the error.
        Err(e) => e,
    }
}

/// Instantiates `dory_wire._errors.<class>(message, **fields, events=...)`.
fn build<'py>(
    py: Python<'py>,
    err: &Error,
    events: Vec<dory_wire::Event>,
) -> PyResult<Bound<'py, PyAny>> {
    let module = ERRORS.get_or_try_init(py, || {
        PyModule::import(py, "dory_wire._errors").map(Bound::unbind)
    })?;
    let kw = PyDict::new(py);
    for (name, value) in err.fields() {
        kw.set_item(name, field_to_py(py, value)?)?;
    }
    if !events.is_empty() {
        kw.set_item("events", events_to_list(py, events)?)?;
    }
    let cls = module.bind(py).getattr(err.class_name())?;
    cls.call((err.to_string(),), Some(&kw))
}
