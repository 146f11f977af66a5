//! Argument conversion: Python values in, core values out, with errors that
//! name the argument (`TypeError` for a wrong type, `ValueError` for a value
//! out of range).

use std::time::Duration;

use dory_wire::{Cursor, Endpoint, GapPolicy};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyInt, PyMapping, PyMemoryView, PyString};

use crate::values::PyCursor;

/// The Python type name of `obj`, for error messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_owned())
}

/// Body bytes borrowed from `bytes` or copied from a mutable buffer.
pub(crate) enum ByteInput<'py> {
    /// An immutable `bytes` object: read in place, even without the GIL.
    Shared(Bound<'py, PyBytes>),
    /// A copy of a `bytearray` or `memoryview` (their contents may change
    /// while the GIL is released, so they are copied once).
    Owned(Vec<u8>),
}

impl ByteInput<'_> {
    /// The bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            ByteInput::Shared(b) => b.as_bytes(),
            ByteInput::Owned(v) => v,
        }
    }
}

/// Accepts `bytes`, `bytearray` or `memoryview`; anything else (notably `str`)
/// is a `TypeError` naming the function and the argument.
pub(crate) fn bytes_like<'py>(
    obj: &Bound<'py, PyAny>,
    func: &str,
    arg: &str,
) -> PyResult<ByteInput<'py>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(ByteInput::Shared(b.clone()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(ByteInput::Owned(b.to_vec()));
    }
    if obj.is_instance_of::<PyMemoryView>() {
        // `tobytes()` copies any layout (strided, any format) into C order.
        let copy = obj.call_method0("tobytes")?;
        let copy = copy.cast::<PyBytes>()?;
        return Ok(ByteInput::Owned(copy.as_bytes().to_vec()));
    }
    let hint = if obj.is_instance_of::<PyString>() {
        " (encode text first, e.g. data.encode())"
    } else {
        ""
    };
    Err(PyTypeError::new_err(format!(
        "{func}() argument '{arg}' must be bytes, bytearray or memoryview, not {}{hint}",
        type_name(obj)
    )))
}

/// An `int` (never a `bool`) in `min..=max`.
pub(crate) fn int_in_range(
    obj: &Bound<'_, PyAny>,
    arg: &str,
    min: u128,
    max: u128,
) -> PyResult<u128> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "argument '{arg}' must be int, not {}",
            type_name(obj)
        )));
    }
    let out_of_range =
        || PyValueError::new_err(format!("argument '{arg}' must be between {min} and {max}"));
    // Values beyond i128 cannot be in any range used here.
    let value: i128 = obj.extract().map_err(|_| out_of_range())?;
    let value = u128::try_from(value).map_err(|_| out_of_range())?;
    if value < min || value > max {
        return Err(out_of_range());
    }
    Ok(value)
}

/// A byte offset: an `int` in `0..=2**64-1`.
pub(crate) fn offset(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<u64> {
    int_in_range(obj, arg, 0, u128::from(u64::MAX)).map(|v| v as u64)
}

/// A byte count limit: an `int` in `1..=usize::MAX`.
pub(crate) fn limit(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<usize> {
    // usize -> u128 is lossless on every supported platform.
    int_in_range(obj, arg, 1, usize::MAX as u128).map(|v| v as usize)
}

/// Seconds as a finite `float` or `int` at least 0 (`positive`: above 0).
pub(crate) fn seconds(obj: &Bound<'_, PyAny>, arg: &str, positive: bool) -> PyResult<Duration> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "argument '{arg}' must be float (seconds), not bool"
        )));
    }
    let secs: f64 = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "argument '{arg}' must be float (seconds), not {}",
            type_name(obj)
        ))
    })?;
    if secs.is_nan() || secs < 0.0 || (positive && secs == 0.0) {
        let bound = if positive { "above 0" } else { "at least 0" };
        return Err(PyValueError::new_err(format!(
            "argument '{arg}' must be a finite number of seconds {bound}, not {secs}"
        )));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| {
        PyValueError::new_err(format!("argument '{arg}' is too large: {secs} seconds"))
    })
}

/// A `str` argument (a `TypeError` naming it otherwise).
pub(crate) fn string(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<String> {
    if !obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "argument '{arg}' must be str, not {}",
            type_name(obj)
        )));
    }
    obj.extract()
}

/// An endpoint name: `exec`, `process_output`, `setup_logs` or `document`.
pub(crate) fn endpoint(obj: &Bound<'_, PyAny>) -> PyResult<Endpoint> {
    let name = string(obj, "endpoint")?;
    Endpoint::from_name(&name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown endpoint {name:?}: expected 'exec', 'process_output', 'setup_logs' or 'document'"
        ))
    })
}

/// A gap policy name: `fail` or `skip`.
pub(crate) fn gap_policy(obj: &Bound<'_, PyAny>) -> PyResult<GapPolicy> {
    let name = string(obj, "gap_policy")?;
    GapPolicy::from_name(&name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown gap_policy {name:?}: expected 'fail' or 'skip'"
        ))
    })
}

/// A cursor: `None` (zeros), a [`PyCursor`], or a mapping with `stdout` and/or
/// `stderr` offsets (missing keys are 0, other keys are refused).
pub(crate) fn cursor(obj: Option<&Bound<'_, PyAny>>, arg: &str) -> PyResult<Cursor> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Cursor::default());
    };
    if let Ok(c) = obj.cast::<PyCursor>() {
        return Ok(c.get().0);
    }
    let Ok(map) = obj.cast::<PyMapping>() else {
        return Err(PyTypeError::new_err(format!(
            "argument '{arg}' must be a Cursor, a mapping of offsets or None, not {}",
            type_name(obj)
        )));
    };
    let mut out = Cursor::default();
    for key in map.keys()?.iter() {
        let name = string(&key, &format!("{arg} key"))?;
        let value = map.get_item(&key)?;
        match name.as_str() {
            "stdout" => out.stdout = offset(&value, &format!("{arg}['stdout']"))?,
            "stderr" => out.stderr = offset(&value, &format!("{arg}['stderr']"))?,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "argument '{arg}' has unknown key {name:?}: expected 'stdout' and 'stderr'"
                )))
            }
        }
    }
    Ok(out)
}
