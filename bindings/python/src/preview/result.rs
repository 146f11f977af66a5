//! The bounded preview and its accounting: `Preview` and its `Notice`
//! lines (the core's `preview::Preview`), their canonical JSON, and a run
//! result's (`_run_result_json`).

use dory_wire::preview;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::IntoPyObjectExt;

use crate::args;

/// A bounded preview of some output, with exact accounting.
///
/// ``text`` is the preview (valid UTF-8 within both limits, and within
/// ``max_tokens`` when set, notice included); ``str(preview)`` is ``text``.
/// When nothing was cut it is the input unchanged and every
/// ``omitted_*``/``spill_*`` field is empty.
/// Counts add up: ``head_bytes + omitted_bytes + tail_bytes == total_bytes``.
#[pyclass(frozen, eq, hash, module = "dory_wire", name = "Preview")]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct Preview(preview::Preview<'static>);

pub(crate) fn preview_to_py(_py: Python<'_>, p: preview::Preview<'_>) -> PyResult<Preview> {
    Ok(Preview(p.into_owned()))
}

#[pymethods]
impl Preview {
    /// The preview text.
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }

    /// Whether anything was cut (then ``text`` holds exactly one notice line).
    #[getter]
    fn truncated(&self) -> bool {
        self.0.truncated
    }

    /// Lines of the input (a final run without ``\n`` counts as a line).
    #[getter]
    fn total_lines(&self) -> u64 {
        self.0.total_lines
    }

    /// Bytes of the input.
    #[getter]
    fn total_bytes(&self) -> u64 {
        self.0.total_bytes
    }

    /// Input bytes shown before the notice (all of them when not truncated).
    #[getter]
    fn head_bytes(&self) -> u64 {
        self.0.head_bytes
    }

    /// Input bytes shown after the notice.
    #[getter]
    fn tail_bytes(&self) -> u64 {
        self.0.tail_bytes
    }

    /// Input lines with at least one byte not shown.
    #[getter]
    fn omitted_lines(&self) -> u64 {
        self.0.omitted_lines
    }

    /// Input bytes not shown.
    #[getter]
    fn omitted_bytes(&self) -> u64 {
        self.0.omitted_bytes
    }

    /// ``(first, last)`` omitted line, 1-based and inclusive; ``None`` when
    /// nothing was omitted.
    #[getter]
    fn omitted_range(&self) -> Option<(u64, u64)> {
        self.0.omitted_range
    }

    /// The spill id the full output was to be saved under (when cut).
    #[getter]
    fn spill_id(&self) -> Option<&str> {
        self.0.spill_id.as_deref()
    }

    /// The path the notice points at (only when it does).
    #[getter]
    fn spill_path(&self) -> Option<&str> {
        self.0.spill_path.as_deref()
    }

    /// Why the notice does not point at a saved file, when a save was
    /// attempted (the writer raised or returned a non-string, or the path or
    /// hint was refused).
    #[getter]
    fn spill_error(&self) -> Option<&str> {
        self.0.spill_error.as_deref()
    }

    /// How many tokens ``text`` encodes to under the bounder's
    /// ``tokenizer`` (at most ``max_tokens``), as :func:`count_tokens`
    /// counts it; ``None`` when neither ``max_tokens`` nor ``tokenizer`` was
    /// given.
    #[getter]
    fn tokens(&self) -> Option<u64> {
        self.0.tokens
    }

    /// The notice lines the bounder wrote into ``text``, in order: a list
    /// of :class:`Notice` (empty when nothing was cut, kept, rendered or
    /// lost). Recorded where each was written, never parsed from the text.
    #[getter]
    fn notices(&self) -> Vec<Notice> {
        self.0
            .notice_lines()
            .map(|(kind, line, text)| Notice {
                kind: kind.as_str(),
                line,
                text: text.to_owned(),
            })
            .collect()
    }

    /// The preview as one canonical JSON object (a ``str``), the core's
    /// bytes in every language: the fields above in snake_case, with
    /// ``omitted_range`` as ``{"first", "last"}`` and ``notices``, the notice
    /// lines the bounder wrote into ``text``, in order, each ``{"kind",
    /// "line", "text"}`` (``kind`` one of ``"omitted"``, ``"kept"``,
    /// ``"terminal"``, ``"stderr"``, ``"lost"``, ``"end"``), then ``tokens``
    /// (``null`` without a token limit). Integers are exact. The JSON
    /// Schema: ``docs/schema/preview.schema.json``.
    fn to_json(&self) -> String {
        self.0.to_json()
    }

    fn __str__(&self) -> &str {
        &self.0.text
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let p = &self.0;
        let range = p.omitted_range.into_bound_py_any(py)?;
        let text = PyString::new(py, &p.text).into_any();
        let opt = |v: &Option<String>| -> PyResult<String> {
            Ok(v.as_deref().into_bound_py_any(py)?.repr()?.to_string())
        };
        Ok(format!(
            "Preview(text={}, truncated={}, total_lines={}, total_bytes={}, omitted_lines={}, omitted_bytes={}, omitted_range={}, spill_id={}, spill_path={}, spill_error={}, tokens={})",
            text.repr()?,
            if p.truncated { "True" } else { "False" },
            p.total_lines,
            p.total_bytes,
            p.omitted_lines,
            p.omitted_bytes,
            range.repr()?,
            opt(&p.spill_id)?,
            opt(&p.spill_path)?,
            opt(&p.spill_error)?,
            p.tokens.into_bound_py_any(py)?.repr()?,
        ))
    }
}

/// A notice line of a :class:`Preview`: ``kind`` (``"omitted"``,
/// ``"kept"``, ``"terminal"``, ``"stderr"``, ``"lost"`` or ``"end"``), its 1-based
/// ``line`` in the preview's ``text`` and the line's ``text`` (without its
/// ``\n``). The entries of ``notices`` in :meth:`Preview.to_json`.
#[pyclass(frozen, eq, hash, module = "dory_wire", name = "Notice")]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct Notice {
    kind: &'static str,
    line: u64,
    text: String,
}

#[pymethods]
impl Notice {
    /// What the notice says: ``"omitted"`` (the cut), ``"kept"`` (the
    /// kept lines' header), ``"terminal"`` (what rendering removed),
    /// ``"stderr"`` (a run's stderr section), ``"lost"`` (a run's loss) or
    /// ``"end"`` (how a run's process ended: its combined view's last line).
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }

    /// Its 1-based line number in the preview's ``text``.
    #[getter]
    fn line(&self) -> u64 {
        self.line
    }

    /// The notice line, without its ``\n``.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let text = PyString::new(py, &self.text).into_any();
        Ok(format!(
            "Notice(kind='{}', line={}, text={})",
            self.kind,
            self.line,
            text.repr()?
        ))
    }
}

/// The canonical JSON of a ``RunResult`` (``dory_wire.client.RunResult``
/// or any object with its fields, the previews :class:`Preview` objects):
/// the core's ``RunResult::to_json``, its fields read from ``result``.
#[pyfunction]
pub(crate) fn _run_result_json(result: &Bound<'_, PyAny>) -> PyResult<String> {
    let field = |name: &str| result.getattr(name);
    let preview = |name: &str| -> PyResult<preview::Preview<'static>> {
        let value = field(name)?;
        let p = value.cast::<Preview>().map_err(|_| {
            PyTypeError::new_err(format!(
                "RunResult.{name} must be a Preview, not {}",
                args::type_name(&value)
            ))
        })?;
        Ok(p.get().0.clone())
    };
    let mut r = dory_wire::RunResult::new(
        field("proc_id")?.extract()?,
        field("idempotency_key")?.extract()?,
        [preview("stdout")?, preview("stderr")?, preview("combined")?],
    );
    r.exit_code = field("exit_code")?.extract()?;
    r.timed_out = field("timed_out")?.extract()?;
    r.stdout_lost_bytes = field("stdout_lost_bytes")?.extract()?;
    r.stderr_lost_bytes = field("stderr_lost_bytes")?.extract()?;
    Ok(r.to_json())
}
