//! The bounders' arguments: the limits (`max_lines`, `max_bytes`,
//! `max_tokens` and `tokenizer`), the input data, `split` and `keep`. A wrong
//! type is a `TypeError`; every value is checked by the core (its
//! `invalid_limits` or `invalid_argument`).

use dory_wire::preview;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

use crate::args::{self, opt_string, ByteInput};
use crate::errors::to_py_err;

/// A limit as `usize`: not an int is a `TypeError` (Python's convention);
/// an int is checked by the core (`preview::checked_limit`: 0 to
/// `MAX_LIMIT`, else `InvalidLimits`, a `ValueError`), as in every language.
pub(crate) fn limit(py: Python<'_>, obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<usize> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "argument '{arg}' must be int, not {}",
            args::type_name(obj)
        )));
    }
    // An int beyond a float's range is an infinity of its sign.
    let value = obj.extract::<f64>().unwrap_or_else(|_| {
        if obj.lt(0).unwrap_or(false) {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }
    });
    preview::checked_limit(value, arg).map_err(|e| to_py_err(py, e, Vec::new()))
}

/// The `max_tokens` and `tokenizer` arguments as the core's token limit:
/// `max_tokens` an `int` checked as `max_bytes` is (`preview::checked_limit`),
/// `tokenizer` a `str`; both `None` is no token limit, and every other rule
/// (the default tokenizer, a tokenizer alone only counting, an unknown or
/// missing tokenizer refused as `invalid_argument`) is the core's
/// `preview::token_limit`.
pub(crate) fn token_limit_arg(
    py: Python<'_>,
    max_tokens: Option<&Bound<'_, PyAny>>,
    tokenizer: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<preview::TokenLimit>> {
    let max_tokens = match max_tokens.filter(|o| !o.is_none()) {
        Some(n) => Some(limit(py, n, "max_tokens")?),
        None => None,
    };
    let tokenizer = opt_string(tokenizer, "tokenizer")?;
    preview::token_limit(max_tokens, tokenizer.as_deref()).map_err(|e| to_py_err(py, e, Vec::new()))
}

/// The limits of a bounder: lines, bytes and the token limit.
pub(crate) fn limits_arg(
    py: Python<'_>,
    max_lines: &Bound<'_, PyAny>,
    max_bytes: &Bound<'_, PyAny>,
    max_tokens: Option<&Bound<'_, PyAny>>,
    tokenizer: Option<&Bound<'_, PyAny>>,
) -> PyResult<preview::Limits> {
    let max_lines = limit(py, max_lines, "max_lines")?;
    let max_bytes = limit(py, max_bytes, "max_bytes")?;
    let tokens = token_limit_arg(py, max_tokens, tokenizer)?;
    Ok(preview::Limits::new(max_lines, max_bytes).with_token_limit(tokens))
}

/// Input data: `str` (its UTF-8 bytes) or bytes-like.
pub(crate) fn data_input<'py>(obj: &Bound<'py, PyAny>, func: &str) -> PyResult<ByteInput<'py>> {
    if let Ok(text) = obj.cast::<PyString>() {
        // The UTF-8 bytes as a `bytes` object, the same one a writer gets.
        let encoded = text.call_method1("encode", ("utf-8",))?;
        return Ok(ByteInput::Shared(encoded.cast_into()?));
    }
    args::bytes_like(obj, func, "data").map_err(|_| {
        PyTypeError::new_err(format!(
            "{func}() argument 'data' must be str, bytes, bytearray or memoryview, not {}",
            args::type_name(obj)
        ))
    })
}

/// The `split` argument: `"even"` (the default) or `"tail"`.
pub(crate) fn split_arg(py: Python<'_>, split: &str) -> PyResult<preview::Split> {
    preview::Split::from_name(split).ok_or_else(|| {
        args::invalid(
            py,
            "split",
            format!("split must be 'even' or 'tail', not {split:?}"),
        )
    })
}

/// The `keep` argument: `None` (off), `"defaults"`, or a sequence of `str`
/// patterns (another `str` or a pattern the core refuses is its
/// `invalid_argument` for `keep`; another type is a `TypeError`).
pub(crate) fn keep_arg(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<preview::Keep> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(preview::Keep::none());
    };
    if let Ok(text) = obj.cast::<PyString>() {
        let text: String = text.extract()?;
        if text == "defaults" {
            return Ok(preview::Keep::defaults());
        }
        return Err(args::invalid(
            py,
            "keep",
            format!(
                "keep must be None, 'defaults' or a sequence of patterns, not the str {text:?}"
            ),
        ));
    }
    let wrong = || {
        PyTypeError::new_err(format!(
            "keep must be None, 'defaults' or a sequence of str patterns, not {}",
            args::type_name(obj)
        ))
    };
    if obj.is_instance_of::<pyo3::types::PyBytes>()
        || obj.is_instance_of::<pyo3::types::PyByteArray>()
        || obj.is_instance_of::<pyo3::types::PyDict>()
    {
        return Err(wrong());
    }
    let seq = obj.cast::<pyo3::types::PySequence>().map_err(|_| wrong())?;
    let mut patterns = Vec::new();
    for item in seq.try_iter()? {
        let item = item?;
        if !item.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "each keep pattern must be a str, not {}",
                args::type_name(&item)
            )));
        }
        patterns.push(item.extract::<String>()?);
    }
    preview::Keep::patterns(patterns).map_err(|e| to_py_err(py, e, Vec::new()))
}
