//! The events and the ends (the core's `Event` and `End`) as immutable value
//! classes: `Started`, `Output`, `Skipped`, `Heartbeat`, `Exit`, `Unknown`,
//! `Identity`, `ExecResult`; `Exited`, `Disconnected`, `Document`.
//!
//! Every class is frozen, compares and hashes by value, has a `repr` that
//! evaluates back to an equal value, and `__match_args__` for `match`
//! (`value_class!`).

use dory_wire::{End, Event, Stream};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::values::{value_class, PyCursor, StreamName};

value_class! {
    /// The exec stream's first frame: the process now exists under ``proc_id``.
    Started as "Started" {
        /// The process id.
        proc_id: String,
    }
}

value_class! {
    /// New output bytes: ``data`` covers offsets ``[start, end)`` of ``stream``.
    ///
    /// Overlap with what was already consumed has been trimmed, so
    /// concatenating the ``data`` of a stream's events gives its output.
    Output as "Output" {
        /// ``"stdout"`` or ``"stderr"``.
        stream: StreamName,
        /// The bytes, exact (not necessarily valid UTF-8, and a chunk may
        /// split a character: use ``Utf8Decoder`` for text).
        data: Py<PyBytes>,
        /// Offset of the first byte in the stream.
        start: u64,
        /// Offset just past the last byte (``start + len(data)``).
        end: u64,
    }
}

value_class! {
    /// Output lost and skipped under ``gap_policy="skip"``: offsets
    /// ``[start, end)`` of ``stream``.
    Skipped as "Skipped" {
        /// ``"stdout"`` or ``"stderr"``.
        stream: StreamName,
        /// First lost offset.
        start: u64,
        /// Offset just past the last lost byte.
        end: u64,
    }
}

value_class! {
    /// A keep-alive frame (the stream is alive, nothing new).
    Heartbeat as "Heartbeat" {}
}

value_class! {
    /// The process finished; the last frame of the stream.
    Exit as "Exit" {
        /// The exit code; ``None`` when killed or timed out.
        exit_code: Option<i64>,
        /// Whether the process hit its deadline.
        timed_out: bool,
    }
}

value_class! {
    /// A frame whose ``type`` no union knows; it changes no state.
    Unknown as "Unknown" {
        /// The frame's ``type``.
        frame_type: String,
    }
}

value_class! {
    /// A JSON identity document (the answer to a process start, its keyed
    /// replay, or a kill).
    Identity as "Identity" {
        /// The process id.
        proc_id: String,
        /// ``"running"`` or ``"exited"``.
        status: String,
    }
}

value_class! {
    /// A JSON result document (the answer to a synchronous exec).
    ExecResult as "ExecResult" {
        /// The process id.
        proc_id: String,
        /// Standard output bytes.
        stdout: Py<PyBytes>,
        /// Standard error bytes.
        stderr: Py<PyBytes>,
        /// Whether stdout was cut at the synchronous limit.
        stdout_truncated: bool,
        /// Whether stderr was cut at the synchronous limit.
        stderr_truncated: bool,
        /// The exit code; ``None`` when killed or timed out.
        exit_code: Option<i64>,
        /// Whether the process hit its deadline.
        timed_out: bool,
    }
}

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

/// Converts a core event.
pub(crate) fn event_to_py(py: Python<'_>, event: Event) -> PyResult<Bound<'_, PyAny>> {
    let obj = match event {
        Event::Started { proc_id } => Started { proc_id }.into_pyobject(py)?.into_any(),
        Event::Output {
            stream,
            data,
            start,
            end,
        } => output_to_py(py, stream, PyBytes::new(py, &data), start, end)?,
        Event::Skipped { stream, start, end } => Skipped {
            stream: StreamName::of(py, stream),
            start,
            end,
        }
        .into_pyobject(py)?
        .into_any(),
        Event::Heartbeat => Heartbeat {}.into_pyobject(py)?.into_any(),
        Event::Exit {
            exit_code,
            timed_out,
        } => Exit {
            exit_code,
            timed_out,
        }
        .into_pyobject(py)?
        .into_any(),
        Event::Unknown { frame_type } => Unknown { frame_type }.into_pyobject(py)?.into_any(),
        Event::Identity(id) => Identity {
            proc_id: id.proc_id,
            status: id.status.as_str().to_owned(),
        }
        .into_pyobject(py)?
        .into_any(),
        Event::ExecResult(r) => ExecResult {
            proc_id: r.proc_id,
            stdout: PyBytes::new(py, &r.stdout).unbind(),
            stderr: PyBytes::new(py, &r.stderr).unbind(),
            stdout_truncated: r.stdout_truncated,
            stderr_truncated: r.stderr_truncated,
            exit_code: r.exit_code,
            timed_out: r.timed_out,
        }
        .into_pyobject(py)?
        .into_any(),
        _ => return Err(unknown("event")),
    };
    Ok(obj)
}

/// The error for a value that a newer core added and this binding does not
/// convert yet (the core's enums are `#[non_exhaustive]`).
fn unknown(what: &str) -> PyErr {
    pyo3::exceptions::PyNotImplementedError::new_err(format!(
        "dory_wire._core cannot convert this {what}: the core is newer than the binding"
    ))
}

/// Converts core events into a list.
pub(crate) fn events_to_list(py: Python<'_>, events: Vec<Event>) -> PyResult<Bound<'_, PyList>> {
    let items = events
        .into_iter()
        .map(|e| event_to_py(py, e))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

value_class! {
    /// The stream ended with an ``exit`` frame: the output is complete.
    Exited as "Exited" {
        /// The exit code; ``None`` when killed or timed out.
        exit_code: Option<i64>,
        /// Whether the process hit its deadline.
        timed_out: bool,
    }
}

value_class! {
    /// The stream ended without ``exit``: reconnect to *process output* from
    /// ``cursor`` (never start the command again).
    ///
    /// ``reason`` is ``"end_of_body"`` (the body ended; a partial last line
    /// was discarded), ``"gap"`` (the server reported lost output, all of it
    /// skipped: the ``Skipped`` events came with it) or ``"stalled"`` (no byte
    /// within the liveness timeout).
    Disconnected as "Disconnected" {
        /// Where to resume from.
        cursor: Py<PyCursor>,
        /// ``"end_of_body"``, ``"gap"`` or ``"stalled"``.
        reason: String,
    }
}

value_class! {
    /// A JSON document was decoded: its ``Identity`` or ``ExecResult`` is the
    /// event that came with this end.
    Document as "Document" {}
}

/// Converts a core end.
pub(crate) fn end_to_py(py: Python<'_>, end: End) -> PyResult<Bound<'_, PyAny>> {
    let obj = match end {
        End::Exited {
            exit_code,
            timed_out,
        } => Exited {
            exit_code,
            timed_out,
        }
        .into_pyobject(py)?
        .into_any(),
        End::Disconnected { cursor, reason } => Disconnected {
            cursor: Py::new(py, PyCursor(cursor))?,
            reason: reason.as_str().to_owned(),
        }
        .into_pyobject(py)?
        .into_any(),
        End::Document => Document {}.into_pyobject(py)?.into_any(),
        _ => return Err(unknown("end")),
    };
    Ok(obj)
}
