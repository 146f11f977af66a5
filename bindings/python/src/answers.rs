//! The core's rules the Python client uses as they are: the wire's form of
//! output bytes ([`dory_wire::wire_form`]) and what a document answer means
//! ([`dory_wire::identity_answer`], [`dory_wire::exec_answer`]). Private
//! functions of `dory_wire._core`; the client calls them, nothing here
//! decides.

use dory_wire::Event;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::args;
use crate::errors::to_py_err;
use crate::records::event_from_py;

/// The core event of `obj`, one of the event classes (else a `TypeError`).
pub(crate) fn event_arg(obj: &Bound<'_, PyAny>, func: &str) -> PyResult<Event> {
    event_from_py(obj)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{func}() takes an event (Output, Exit, Identity, …), not {}",
            args::type_name(obj)
        ))
    })
}

/// `data` as the wire writes it: ``(text, "utf-8")`` when the bytes are
/// valid UTF-8, else ``(padded standard base64, "base64")``.
#[pyfunction]
pub(crate) fn _wire_form(data: &Bound<'_, PyAny>) -> PyResult<(String, &'static str)> {
    let input = args::bytes_like(data, "_wire_form", "data")?;
    let (text, encoding) = dory_wire::wire_form(input.as_slice());
    Ok((text, encoding.as_str()))
}

/// The events of a document answer, converted, beside the Python objects.
fn answer_events<'py>(events: &Bound<'py, PyList>, func: &str) -> PyResult<Vec<Event>> {
    events.iter().map(|e| event_arg(&e, func)).collect()
}

/// The Python object of the event the core chose among `events`.
fn chosen<'py>(
    events: &Bound<'py, PyList>,
    core: &[Event],
    event: &Event,
) -> PyResult<Bound<'py, PyAny>> {
    let index = core
        .iter()
        .position(|e| std::ptr::eq(e, event))
        .unwrap_or_default();
    events.get_item(index)
}

/// The identity a start, get or kill was answered by (the core's rule);
/// else the core's ``UnexpectedFrame``.
#[pyfunction]
pub(crate) fn _identity_answer<'py>(events: &Bound<'py, PyList>) -> PyResult<Bound<'py, PyAny>> {
    let py = events.py();
    let core = answer_events(events, "_identity_answer")?;
    match dory_wire::identity_answer(&core) {
        Ok(identity) => {
            let index = core
                .iter()
                .position(|e| matches!(e, Event::Identity(i) if std::ptr::eq(i, identity)))
                .unwrap_or_default();
            events.get_item(index)
        }
        Err(e) => Err(to_py_err(py, e, Vec::new())),
    }
}

/// A synchronous exec's answer (the core's rule): its ``ExecResult``, or a
/// keyed replay's ``Identity``; else the core's ``UnexpectedFrame``.
#[pyfunction]
pub(crate) fn _exec_answer<'py>(events: &Bound<'py, PyList>) -> PyResult<Bound<'py, PyAny>> {
    let py = events.py();
    let core = answer_events(events, "_exec_answer")?;
    match dory_wire::exec_answer(&core) {
        Ok(event) => chosen(events, &core, event),
        Err(e) => Err(to_py_err(py, e, Vec::new())),
    }
}
