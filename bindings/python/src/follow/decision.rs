//! The follower's decisions as Python values: `Done`, `Reconnect` and
//! `Continue` (the core's `Decision`), and `_stream_disconnected`, the
//! core's error for a disconnect that is not followed by a reconnect.

use dory_wire::Decision;
use pyo3::prelude::*;

use crate::values::{value_class, PyCursor};

value_class! {
    /// The read is over: ``exited`` when ``exit`` was seen (with its
    /// ``exit_code`` and ``timed_out``), else the normal end of a read with
    /// ``follow=False``.
    Done as "Done" {
        /// Whether ``exit`` was seen.
        exited: bool,
        /// The exit code; ``None`` when killed, timed out, or not exited.
        exit_code: Option<i64>,
        /// Whether the process hit its deadline.
        timed_out: bool,
        /// The consumed offsets.
        cursor: Py<PyCursor>,
        /// The process, once known (never for setup logs).
        proc_id: Option<String>,
    }
}

value_class! {
    /// The connection ended before the output did: wait ``delay_seconds``,
    /// then send :meth:`Follower.request` (it resumes from ``cursor``).
    /// Also the record a reconnect hook receives.
    Reconnect as "Reconnect" {
        /// 1 for the first reconnect of this read, 2 for the second, …
        attempt: u32,
        /// Connections in a row that brought nothing new, this one included
        /// (0 after progress: no wait); never more than ``retries``.
        failures: u32,
        /// Why the connection ended: ``"end_of_body"``, ``"gap"``,
        /// ``"stalled"``, ``"no_response"``, ``"not_connected"`` or ``"unavailable"``.
        reason: String,
        /// Where the next request resumes from.
        cursor: Py<PyCursor>,
        /// How long to wait before sending it, in seconds.
        delay_seconds: f64,
        /// The process, once known.
        proc_id: Option<String>,
        /// What the transport (or the refusal) said; empty when nothing.
        detail: String,
    }
}

value_class! {
    /// The answer moved the read on without a disconnect (an exec answered
    /// by its keyed replay's identity continues on the process's output):
    /// send :meth:`Follower.request` now.
    Continue as "Continue" {}
}

/// Converts a core decision.
pub(super) fn decision_to_py(py: Python<'_>, decision: Decision) -> PyResult<Bound<'_, PyAny>> {
    Ok(match decision {
        Decision::Done(d) => Done {
            exited: d.exited,
            exit_code: d.exit_code,
            timed_out: d.timed_out,
            cursor: Py::new(py, PyCursor(d.cursor))?,
            proc_id: d.proc_id,
        }
        .into_pyobject(py)?
        .into_any(),
        Decision::Reconnect(r) => Reconnect {
            attempt: r.attempt,
            failures: r.failures,
            reason: r.reason.as_str().to_owned(),
            cursor: Py::new(py, PyCursor(r.cursor))?,
            delay_seconds: r.delay.as_secs_f64(),
            proc_id: r.proc_id,
            detail: r.detail,
        }
        .into_pyobject(py)?
        .into_any(),
        Decision::Continue => Continue {}.into_pyobject(py)?.into_any(),
    })
}

/// The core's `stream_disconnected` error (as the Python exception) for a
/// disconnect that is not followed by a reconnect: what a frame iterator
/// raises where the follower would reconnect. The message is the core's.
#[pyfunction]
#[pyo3(signature = (reason, cursor, proc_id, detail = String::new()))]
pub(crate) fn _stream_disconnected(
    py: Python<'_>,
    reason: &str,
    cursor: PyRef<'_, PyCursor>,
    proc_id: Option<String>,
    detail: String,
) -> PyResult<Py<PyAny>> {
    let reason = dory_wire::DisconnectReason::from_name(reason).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!("unknown disconnect reason {reason:?}"))
    })?;
    let record = dory_wire::Error::StreamDisconnected {
        reason,
        cursor: cursor.0,
        proc_id,
        detail,
    };
    Ok(crate::errors::to_py_err(py, record, Vec::new())
        .into_value(py)
        .into_any())
}
