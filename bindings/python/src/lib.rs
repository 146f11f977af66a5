//! Python bindings for [`dory_wire`]: the native module `dory_wire._core`.
//!
//! This crate only converts types and maps errors; every decision is the
//! core's. The public Python API is re-exported by `dory_wire/__init__.py`,
//! typed by `dory_wire/_core.pyi` (checked by `mypy.stubtest`), and the
//! exception classes are plain Python in `dory_wire/_errors.py`.
#![forbid(unsafe_code)]

use pyo3::prelude::*;

mod answers;
mod args;
mod errors;
mod events;
mod feed;
mod follow;
mod preview;
mod reader;
mod records;
mod request;
mod run;
mod run_bounder;
mod search;
mod transcript;
mod values;

/// The native part of ``dory_wire``. Import from ``dory_wire`` instead.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<reader::PyReader>()?;
    m.add_class::<values::PyCursor>()?;
    m.add_class::<values::PyResumeState>()?;
    records::register(m)?;
    m.add_class::<follow::PyFollower>()?;
    m.add_function(wrap_pyfunction!(follow::_stream_disconnected, m)?)?;
    m.add_function(wrap_pyfunction!(answers::_wire_form, m)?)?;
    m.add_function(wrap_pyfunction!(answers::_identity_answer, m)?)?;
    m.add_function(wrap_pyfunction!(answers::_exec_answer, m)?)?;
    m.add_class::<request::PyRequest>()?;
    m.add_class::<transcript::Transcript>()?;
    m.add_class::<transcript::Utf8Decoder>()?;
    m.add_class::<preview::PyBounder>()?;
    m.add_class::<preview::StreamingBounder>()?;
    m.add_class::<preview::PendingSpill>()?;
    m.add_class::<preview::Preview>()?;
    m.add_class::<preview::Notice>()?;
    m.add_function(wrap_pyfunction!(preview::_run_result_json, m)?)?;
    m.add_function(wrap_pyfunction!(preview::_bound_unsaved, m)?)?;
    m.add_function(wrap_pyfunction!(preview::count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(preview::_spill_file_name, m)?)?;
    m.add_class::<run_bounder::RunBounder>()?;
    m.add_class::<run_bounder::RunPending>()?;
    m.add_class::<run::PyRun>()?;
    m.add_class::<search::Searcher>()?;
    m.add_class::<search::SearchResult>()?;
    m.add_function(wrap_pyfunction!(run_bounder::run_spill_id, m)?)?;
    m.add(
        "DEFAULT_RUN_MAX_LINES",
        dory_wire::preview::DEFAULT_RUN_MAX_LINES,
    )?;
    m.add(
        "DEFAULT_RUN_MAX_BYTES",
        dory_wire::preview::DEFAULT_RUN_MAX_BYTES,
    )?;
    m.add("MIN_RUN_MAX_BYTES", dory_wire::preview::MIN_RUN_MAX_BYTES)?;
    m.add("MIN_MAX_BYTES", dory_wire::preview::MIN_MAX_BYTES)?;
    m.add("TOKENIZERS", preview::tokenizers(m.py())?)?;
    m.add(
        "DEFAULT_KEEP_PATTERNS",
        pyo3::types::PyTuple::new(m.py(), dory_wire::preview::Keep::DEFAULT_PATTERNS)?,
    )?;
    m.add("RUN_PRESET", preview::run_preset(m.py())?)?;
    m.add(
        "DEFAULT_MAX_FRAME_BYTES",
        dory_wire::DEFAULT_MAX_FRAME_BYTES,
    )?;
    m.add(
        "DEFAULT_LIVENESS_TIMEOUT_SECONDS",
        dory_wire::DEFAULT_LIVENESS_TIMEOUT.as_secs_f64(),
    )?;
    m.add("DEFAULT_RETRIES", dory_wire::DEFAULT_RETRIES)?;
    m.add(
        "DEFAULT_BACKOFF_SECONDS",
        dory_wire::DEFAULT_BACKOFF.as_secs_f64(),
    )?;
    m.add(
        "DEFAULT_MAX_BACKOFF_SECONDS",
        dory_wire::DEFAULT_MAX_BACKOFF.as_secs_f64(),
    )?;
    m.add("ERROR_CODES", errors::error_codes(m.py())?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
