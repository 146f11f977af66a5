//! The preview bounder: `Bounder`, `StreamingBounder`, `PendingSpill` and
//! `Preview`. A spill writer's answer — a path, nothing, something else, an
//! exception, an awaitable — is turned into the core's spill outcome here, so
//! every failure text is the core's (`SpillError`), the same as in JS. The
//! async writers are awaited in Python (`dory_wire/_preview.py`).
//!
//! The modules mirror the core's `preview`: [`bounder`] (`Bounder`),
//! [`stream`] (`StreamingBounder`), [`spill`] (`PendingSpill` and the spill
//! writers' outcomes), [`result`] (`Preview`, `Notice`, a run result's
//! JSON) and [`args`] (the limits and options).

use dory_wire::preview;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::args::{opt_string, type_name};
use crate::errors::to_py_err;

mod args;
mod bounder;
mod result;
mod spill;
mod stream;

pub(crate) use args::{data_input, keep_arg, limit, limits_arg, split_arg, token_limit_arg};
pub(crate) use bounder::{_bound_unsaved, PyBounder};
pub(crate) use result::{_run_result_json, preview_to_py, Notice, Preview};
pub(crate) use spill::{outcome, writer_outcome, PendingSpill};
pub(crate) use stream::StreamingBounder;

/// Bound at least this many bytes without the GIL.
pub(crate) const DETACH_THRESHOLD: usize = 64 * 1024;

/// How many tokens ``text`` encodes to under the tokenizer named
/// ``tokenizer`` (default: ``"o200k_base"``, as for ``max_tokens``): the
/// bounders' own counter, to check a preview (:attr:`Preview.tokens`) or
/// size a prompt. The names are :data:`TOKENIZERS`; another raises
/// :class:`InvalidArgument` (argument ``tokenizer``).
#[pyfunction]
#[pyo3(signature = (text, tokenizer = None))]
pub(crate) fn count_tokens(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    tokenizer: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    if !text.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "count_tokens() argument 'text' must be str, not {}",
            type_name(text)
        )));
    }
    let text: String = text.extract()?;
    let tokenizer = opt_string(tokenizer, "tokenizer")?;
    let count = || preview::count_tokens(&text, tokenizer.as_deref());
    let counted = if text.len() >= DETACH_THRESHOLD {
        py.detach(count)
    } else {
        count()
    };
    counted.map_err(|e| to_py_err(py, e, Vec::new()))
}

/// The file name a spill directory saves `spill_id`'s output under: the
/// core's one rule (`preview::spill_file_name`), raising its
/// `InvalidArgument` (argument `spill_id` or `suffix`).
#[pyfunction]
#[pyo3(signature = (spill_id, suffix, /))]
pub(crate) fn _spill_file_name(py: Python<'_>, spill_id: &str, suffix: &str) -> PyResult<String> {
    preview::spill_file_name(spill_id, suffix).map_err(|e| to_py_err(py, e, Vec::new()))
}

/// `TOKENIZERS`: the names of the tokenizers this build has, exact ones
/// first (the core's `preview::tokenizers`), as a tuple.
pub(crate) fn tokenizers(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyTuple>> {
    pyo3::types::PyTuple::new(py, preview::tokenizers())
}

/// `RUN_PRESET`: the options of [`preview::Bounder::run_preset`] as the
/// keywords of `bound()` (`keep`, `terminal`, `split`), read from the core,
/// in a read-only mapping.
pub(crate) fn run_preset(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let preset = preview::Bounder::run_preset(1, preview::MIN_MAX_BYTES);
    let options = pyo3::types::PyDict::new(py);
    if *preset.keep() == preview::Keep::defaults() {
        options.set_item("keep", "defaults")?;
    } else {
        options.set_item(
            "keep",
            pyo3::types::PyTuple::new(py, preset.keep().as_slice())?,
        )?;
    }
    options.set_item("terminal", preset.terminal())?;
    options.set_item("split", preset.limits().split().as_str())?;
    py.import("types")?
        .getattr("MappingProxyType")?
        .call1((options,))
}
