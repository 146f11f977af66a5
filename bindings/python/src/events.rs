//! The events and the ends (the core's `Event` and `End`) in Python: their
//! value classes are generated from the core's record tables
//! (`crate::records`: `Started`, `Output`, `Skipped`, `Heartbeat`, `Exit`,
//! `Unknown`, `Identity`, `ExecResult`; `Exited`, `Disconnected`,
//! `Document`); this module holds the one generic writer per direction that
//! the generated conversions use, and the fast path of output events.
//!
//! Every class is frozen, compares and hashes by value, has a `repr` that
//! evaluates back to an equal value, and `__match_args__` for `match`
//! (`value_class!`).

use dory_wire::records::{Record, Value};
use dory_wire::{DisconnectReason, End, Event, ProcessStatus, Stream};
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::records::{self, Output};
use crate::values::{PyCursor, StreamName};

/// Builds an `Output` event around its `bytes` object.
pub(crate) fn output_to_py<'py>(
    py: Python<'py>,
    stream: Stream,
    data: Bound<'py, PyBytes>,
    start: u64,
    end: u64,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(Output {
        stream: StreamName::of(py, stream),
        data: data.unbind(),
        start,
        end,
    }
    .into_pyobject(py)?
    .into_any())
}

/// Converts a core event: output directly (the hot path), any other by its
/// row.
pub(crate) fn event_to_py(py: Python<'_>, event: Event) -> PyResult<Bound<'_, PyAny>> {
    if let Event::Output {
        stream,
        data,
        start,
        end,
    } = &event
    {
        return output_to_py(py, *stream, PyBytes::new(py, data), *start, *end);
    }
    let (record, values) = event.record();
    records::to_py(py, record, values)
}

/// Converts a core end, by its row.
pub(crate) fn end_to_py(py: Python<'_>, end: End) -> PyResult<Bound<'_, PyAny>> {
    let (record, values) = end.record();
    records::to_py(py, record, values)
}

/// Converts core events into a list.
pub(crate) fn events_to_list(py: Python<'_>, events: Vec<Event>) -> PyResult<Bound<'_, PyList>> {
    let items = events
        .into_iter()
        .map(|e| event_to_py(py, e))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// The values of one record, taken in the row's order by the generated
/// conversion (`crate::records::to_py`), each converted for its value class.
pub(crate) struct Fields<'py, 'a> {
    py: Python<'py>,
    record: &'static str,
    values: std::vec::IntoIter<Value<'a>>,
}

impl<'py, 'a> Fields<'py, 'a> {
    /// The values of `record`.
    pub(crate) fn new(py: Python<'py>, record: &Record, values: Vec<Value<'a>>) -> Self {
        Fields {
            py,
            record: record.name,
            values: values.into_iter(),
        }
    }

    fn next(&mut self) -> PyResult<Value<'a>> {
        self.values.next().ok_or_else(|| self.mismatch())
    }

    fn mismatch(&self) -> PyErr {
        PyNotImplementedError::new_err(format!(
            "dory_wire._core cannot convert this {}: its values do not match its row (rebuild the binding from the same sources)",
            self.record
        ))
    }

    /// The error for a row the generated code does not know: a core newer
    /// than the binding.
    pub(crate) fn unknown(&self) -> PyErr {
        PyNotImplementedError::new_err(format!(
            "dory_wire._core cannot convert a {}: the core is newer than the binding",
            self.record
        ))
    }

    /// Fails when values are left over.
    pub(crate) fn done(mut self) -> PyResult<()> {
        match self.values.next() {
            None => Ok(()),
            Some(_) => Err(self.mismatch()),
        }
    }

    pub(crate) fn string(&mut self) -> PyResult<String> {
        match self.next()? {
            Value::Str(s) => Ok(s.to_owned()),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn stream(&mut self) -> PyResult<StreamName> {
        match self.next()? {
            Value::Stream(s) => Ok(StreamName::of(self.py, s)),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn status(&mut self) -> PyResult<String> {
        match self.next()? {
            Value::ProcessStatus(s) => Ok(s.as_str().to_owned()),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn u64(&mut self) -> PyResult<u64> {
        match self.next()? {
            Value::U64(n) => Ok(n),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn opt_i64(&mut self) -> PyResult<Option<i64>> {
        match self.next()? {
            Value::OptI64(n) => Ok(n),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn bool(&mut self) -> PyResult<bool> {
        match self.next()? {
            Value::Bool(b) => Ok(b),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn bytes(&mut self) -> PyResult<Py<PyBytes>> {
        match self.next()? {
            Value::Bytes(b) => Ok(PyBytes::new(self.py, b).unbind()),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn cursor(&mut self) -> PyResult<Py<PyCursor>> {
        match self.next()? {
            Value::Cursor(c) => Py::new(self.py, PyCursor(c)),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn reason(&mut self) -> PyResult<String> {
        match self.next()? {
            Value::DisconnectReason(r) => Ok(r.as_str().to_owned()),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn opt_str(&mut self) -> PyResult<Option<String>> {
        match self.next()? {
            Value::OptStr(s) => Ok(s.map(str::to_owned)),
            _ => Err(self.mismatch()),
        }
    }

    pub(crate) fn u32(&mut self) -> PyResult<u32> {
        match self.next()? {
            Value::U32(n) => Ok(n),
            _ => Err(self.mismatch()),
        }
    }

    /// A duration in seconds (its Python name ends in `_seconds`).
    pub(crate) fn duration(&mut self) -> PyResult<f64> {
        match self.next()? {
            Value::Duration(d) => Ok(d.as_secs_f64()),
            _ => Err(self.mismatch()),
        }
    }
}

/// The other direction: a value class's field as the core's value (the
/// generated `crate::records::event_from_py` calls one per field).
pub(crate) mod from {
    use super::*;

    /// The core event of an event row and its values.
    pub(crate) fn event(record: &Record, values: &[Value<'_>]) -> PyResult<Option<Event>> {
        Event::from_record(record, values).map(Some).ok_or_else(|| {
            PyNotImplementedError::new_err(format!(
                "dory_wire._core cannot convert this {} back: its values do not match its row",
                record.name
            ))
        })
    }

    pub(crate) fn string<'a>(_: Python<'_>, s: &'a str) -> PyResult<Value<'a>> {
        Ok(Value::Str(s))
    }

    pub(crate) fn stream<'a>(py: Python<'_>, name: &StreamName) -> PyResult<Value<'a>> {
        match name.stream(py)? {
            Some(s) => Ok(Value::Stream(s)),
            None => Err(PyValueError::new_err(format!(
                "event has unknown stream {:?}",
                name.to_string_lossy(py)
            ))),
        }
    }

    pub(crate) fn status<'a>(_: Python<'_>, s: &str) -> PyResult<Value<'a>> {
        match s {
            "running" => Ok(Value::ProcessStatus(ProcessStatus::Running)),
            "exited" => Ok(Value::ProcessStatus(ProcessStatus::Exited)),
            other => Err(PyValueError::new_err(format!(
                "event has unknown status {other:?}"
            ))),
        }
    }

    pub(crate) fn u64<'a>(_: Python<'_>, n: &u64) -> PyResult<Value<'a>> {
        Ok(Value::U64(*n))
    }

    pub(crate) fn opt_i64<'a>(_: Python<'_>, n: &Option<i64>) -> PyResult<Value<'a>> {
        Ok(Value::OptI64(*n))
    }

    pub(crate) fn bool<'a>(_: Python<'_>, b: &bool) -> PyResult<Value<'a>> {
        Ok(Value::Bool(*b))
    }

    pub(crate) fn bytes<'a>(py: Python<'_>, b: &'a Py<PyBytes>) -> PyResult<Value<'a>> {
        Ok(Value::Bytes(b.as_bytes(py)))
    }

    // No event has a field of the types below today (ends and decisions do,
    // and they only go to Python): kept so that a row with one converts
    // without new code.
    #[allow(dead_code)]
    pub(crate) fn cursor<'a>(py: Python<'_>, c: &Py<PyCursor>) -> PyResult<Value<'a>> {
        Ok(Value::Cursor(c.borrow(py).0))
    }

    #[allow(dead_code)]
    pub(crate) fn opt_str<'a>(_: Python<'_>, s: &'a Option<String>) -> PyResult<Value<'a>> {
        Ok(Value::OptStr(s.as_deref()))
    }

    #[allow(dead_code)]
    pub(crate) fn u32<'a>(_: Python<'_>, n: &u32) -> PyResult<Value<'a>> {
        Ok(Value::U32(*n))
    }

    #[allow(dead_code)]
    pub(crate) fn duration<'a>(_: Python<'_>, seconds: &f64) -> PyResult<Value<'a>> {
        std::time::Duration::try_from_secs_f64(*seconds)
            .map(Value::Duration)
            .map_err(|_| PyValueError::new_err(format!("not a duration in seconds: {seconds}")))
    }

    #[allow(dead_code)]
    pub(crate) fn reason<'a>(_: Python<'_>, r: &str) -> PyResult<Value<'a>> {
        DisconnectReason::from_name(r)
            .map(Value::DisconnectReason)
            .ok_or_else(|| PyValueError::new_err(format!("unknown reason {r:?}")))
    }
}
