//! Argument conversion: Python values in, core values out, with errors that
//! name the argument (`TypeError` for a wrong type, `ValueError` for a value
//! out of range).

use std::time::Duration;

use dory_wire::preview::View;
use dory_wire::{Command, Cursor, Endpoint, GapPolicy, Stream};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyFloat, PyInt, PyMapping, PyMemoryView, PySequence, PyString,
};

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

/// An optional `str` argument (`None` allowed).
pub(crate) fn opt_string(obj: Option<&Bound<'_, PyAny>>, arg: &str) -> PyResult<Option<String>> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => string(o, arg).map(Some),
        None => Ok(None),
    }
}

/// `"stdout"` or `"stderr"`; another name is a `ValueError`.
pub(crate) fn stream(obj: &Bound<'_, PyAny>) -> PyResult<Stream> {
    match string(obj, "stream")?.as_str() {
        "stdout" => Ok(Stream::Stdout),
        "stderr" => Ok(Stream::Stderr),
        other => Err(PyValueError::new_err(format!(
            "unknown stream {other:?}: expected 'stdout' or 'stderr'"
        ))),
    }
}

/// `"stdout"`, `"stderr"` or `"combined"`; another name is a `ValueError`.
pub(crate) fn view(obj: &Bound<'_, PyAny>) -> PyResult<View> {
    let name = string(obj, "view")?;
    View::from_name(&name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown view {name:?}: expected 'stdout', 'stderr' or 'combined'"
        ))
    })
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

// ---- the arguments of requests and followers
//
// Messages name the argument as the API does (`computer_id must be a str,
// not int`). A wrong type is a `TypeError`; a value the core's types cannot
// hold (a negative count, seconds that are not a finite number at least 0)
// is the core's `invalid_argument` error, like every value the core itself
// rejects (an empty id or command, a timeout that is not positive, …).

/// The core's `invalid_argument` error for argument `name`.
pub(crate) fn invalid(py: Python<'_>, name: &str, reason: String) -> PyErr {
    let err = dory_wire::Error::InvalidArgument {
        argument: name.to_owned(),
        reason,
    };
    crate::errors::to_py_err(py, err, Vec::new())
}

/// An answer's HTTP status: an `int` (else `TypeError`), in the core's
/// range (`dory_wire::http_status`, else its `invalid_argument`).
pub(crate) fn status(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<u16> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "argument 'status' must be int, not {}",
            type_name(obj)
        )));
    }
    // An int too large for a float is out of range all the same.
    let value = obj.extract::<f64>().unwrap_or(f64::INFINITY);
    dory_wire::http_status(value).map_err(|e| crate::errors::to_py_err(py, e, Vec::new()))
}

fn wrong_type(obj: &Bound<'_, PyAny>, name: &str, expected: &str) -> PyErr {
    PyTypeError::new_err(format!("{name} must be {expected}, not {}", type_name(obj)))
}

/// A `str` (an id, a header value, a detail).
pub(crate) fn text(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<String> {
    if !obj.is_instance_of::<PyString>() {
        return Err(wrong_type(obj, name, "a str"));
    }
    obj.extract()
}

/// A `str` or `None`.
pub(crate) fn opt_text(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<String>> {
    obj.filter(|o| !o.is_none())
        .map(|o| text(o, name))
        .transpose()
}

/// A `bool` (never an `int` or another truthy value).
pub(crate) fn flag(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    if !obj.is_instance_of::<PyBool>() {
        return Err(wrong_type(obj, name, "a bool"));
    }
    obj.extract()
}

/// A number (`float` or `int`, never a `bool`), its value unchecked: the
/// core checks it.
pub(crate) fn number(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    if obj.is_instance_of::<PyBool>()
        || !(obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>())
    {
        return Err(wrong_type(obj, name, "a float"));
    }
    obj.extract()
        .map_err(|_| invalid(obj.py(), name, "is too large to be a float".to_owned()))
}

/// A number or `None`.
pub(crate) fn opt_number(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<f64>> {
    obj.filter(|o| !o.is_none())
        .map(|o| number(o, name))
        .transpose()
}

/// An `int` (never a `bool`) in `min..=max`.
pub(crate) fn count(obj: &Bound<'_, PyAny>, name: &str, min: u64, max: u64) -> PyResult<u64> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(wrong_type(obj, name, "an int"));
    }
    match obj.extract::<i128>() {
        Ok(v) if v >= i128::from(min) && v <= i128::from(max) => Ok(v as u64),
        _ => Err(invalid(
            obj.py(),
            name,
            format!("must be an int from {min} to {max}, not {}", obj.str()?),
        )),
    }
}

/// Seconds (a number at least 0, or above 0 when `positive`) as a duration.
pub(crate) fn duration(obj: &Bound<'_, PyAny>, name: &str, positive: bool) -> PyResult<Duration> {
    let secs = number(obj, name)?;
    let bound = if positive { "above 0" } else { "at least 0" };
    let bad = || {
        invalid(
            obj.py(),
            name,
            format!("must be a finite number of seconds {bound}, not {secs}"),
        )
    };
    if secs.is_nan() || secs < 0.0 || (positive && secs == 0.0) {
        return Err(bad());
    }
    Duration::try_from_secs_f64(secs).map_err(|_| bad())
}

/// A command: a `str` (a shell line) or a sequence of `str` (an argv).
/// Its value (empty?) is the core's to check.
pub(crate) fn command(obj: &Bound<'_, PyAny>) -> PyResult<Command> {
    if obj.is_instance_of::<PyString>() {
        return Ok(Command::shell(obj.extract::<String>()?));
    }
    let not_a_command = || wrong_type(obj, "command", "a str or a sequence of str");
    // Bytes are sequences of ints, not of str.
    if obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyMemoryView>()
    {
        return Err(not_a_command());
    }
    let Ok(seq) = obj.cast::<PySequence>() else {
        return Err(not_a_command());
    };
    let mut argv = Vec::with_capacity(seq.len().unwrap_or(0));
    for (i, item) in seq.try_iter()?.enumerate() {
        let item = item?;
        argv.push(text(&item, &format!("command[{i}]"))?);
    }
    Ok(Command::argv(argv))
}
