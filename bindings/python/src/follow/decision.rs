//! The follower's decisions as Python values: `Done`, `Reconnect` and
//! `Continue` (the core's `Decision`; their classes are generated from the
//! core's record table, `crate::records`), and `_stream_disconnected`, the
//! core's error for a disconnect that is not followed by a reconnect.

use dory_wire::Decision;
use pyo3::prelude::*;

use crate::values::PyCursor;

/// Converts a core decision, by its row.
pub(super) fn decision_to_py(py: Python<'_>, decision: Decision) -> PyResult<Bound<'_, PyAny>> {
    let (record, values) = decision.record();
    crate::records::to_py(py, record, values)
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
