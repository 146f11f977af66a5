//! Core errors to Python exceptions.
//!
//! The exception classes are plain Python (`dory_wire/_errors.py`): they get
//! keyword constructors, docstrings and pickling for free. This module only
//! picks the class and its fields for each core error.

use dory_wire::Error;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule, PyTuple};

use crate::values::{events_to_tuple, PyCursor};

/// `dory_wire._errors`, imported on the first error.
static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The Python exception class name and its keyword fields for a core error.
fn class_and_fields(err: &Error, kw: &Bound<'_, PyDict>) -> PyResult<&'static str> {
    let class = match err {
        Error::OutputGap {
            stream,
            consumed,
            earliest,
        } => {
            kw.set_item("stream", stream.as_str())?;
            kw.set_item("consumed", PyCursor(*consumed))?;
            kw.set_item("earliest", PyCursor(*earliest))?;
            "OutputGap"
        }
        Error::OutputExpired { message } => {
            kw.set_item("message", message)?;
            "OutputExpired"
        }
        Error::OffsetBeyondOutput { message } => {
            kw.set_item("message", message)?;
            "OffsetBeyondOutput"
        }
        Error::Api {
            status,
            api_code,
            message,
        } => {
            kw.set_item("status", status)?;
            kw.set_item("api_code", api_code)?;
            kw.set_item("message", message)?;
            "ApiError"
        }
        Error::UnsupportedContentType { content_type } => {
            kw.set_item("content_type", content_type)?;
            "UnsupportedContentType"
        }
        Error::MalformedFrame { line, reason } => {
            kw.set_item("line", line)?;
            kw.set_item("reason", reason)?;
            "MalformedFrame"
        }
        Error::UnexpectedFrame {
            line,
            frame_type,
            reason,
        } => {
            kw.set_item("line", line)?;
            kw.set_item("frame_type", frame_type)?;
            kw.set_item("reason", reason)?;
            "UnexpectedFrame"
        }
        Error::IdentityMismatch { expected, found } => {
            kw.set_item("expected", expected)?;
            kw.set_item("found", found)?;
            "IdentityMismatch"
        }
        Error::FrameTooLarge { limit } => {
            kw.set_item("limit", limit)?;
            "FrameTooLarge"
        }
        Error::InvalidLimits { reason } => {
            kw.set_item("reason", reason)?;
            "InvalidLimits"
        }
        Error::InvalidState { reason } => {
            kw.set_item("reason", reason)?;
            "InvalidState"
        }
        // A code added to the core later: the base class with its code.
        other => {
            kw.set_item("code", other.code())?;
            "DoryWireError"
        }
    };
    Ok(class)
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

/// Instantiates the exception for `err` from `dory_wire._errors`.
fn build<'py>(
    py: Python<'py>,
    err: &Error,
    events: Vec<dory_wire::Event>,
) -> PyResult<Bound<'py, PyAny>> {
    let module = ERRORS.get_or_try_init(py, || {
        PyModule::import(py, "dory_wire._errors").map(Bound::unbind)
    })?;
    let kw = PyDict::new(py);
    let class = class_and_fields(err, &kw)?;
    if !events.is_empty() {
        kw.set_item("events", events_to_tuple(py, events)?)?;
    }
    let cls = module.bind(py).getattr(class)?;
    cls.call(PyTuple::new(py, [err.to_string()])?, Some(&kw))
}
