//! `Bounder`: whole inputs bounded in one call (the core's
//! `preview::Bounder`), and `_bound_unsaved`, `bound()` without a spill
//! writer.

use dory_wire::preview::{self, Bounded, SpillOutcome};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use super::args::{data_input, keep_arg, limits_arg, split_arg};
use super::result::{preview_to_py, Preview};
use super::spill::PendingSpill;
use super::DETACH_THRESHOLD;
use crate::args::opt_string;
use crate::errors::to_py_err;

/// Bounds whole inputs to a preview of at most ``max_lines`` lines and
/// ``max_bytes`` bytes (notice included) and, with ``max_tokens``, at most
/// that many tokens under ``tokenizer``. See :func:`bound` for the usual
/// entry point.
///
/// Any limits are accepted: input that fits comes back unchanged. Only input
/// that must be cut with ``max_lines`` 0, or ``max_bytes`` or ``max_tokens``
/// below ``MIN_MAX_BYTES`` (32), raises :class:`InvalidLimits` (a
/// ``ValueError``). An unknown ``tokenizer`` (see :data:`TOKENIZERS`) raises
/// :class:`InvalidArgument`.
#[pyclass(frozen, module = "dory_wire", name = "Bounder")]
pub(crate) struct PyBounder(preview::Bounder);

#[pymethods]
impl PyBounder {
    #[new]
    #[pyo3(signature = (
        max_lines, max_bytes, *, keep = None, terminal = false, split = "even",
        max_tokens = None, tokenizer = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        max_lines: &Bound<'_, PyAny>,
        max_bytes: &Bound<'_, PyAny>,
        keep: Option<&Bound<'_, PyAny>>,
        terminal: bool,
        split: &str,
        max_tokens: Option<&Bound<'_, PyAny>>,
        tokenizer: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let limits = limits_arg(py, max_lines, max_bytes, max_tokens, tokenizer)?;
        let keep = keep_arg(py, keep)?;
        let split = split_arg(py, split)?;
        Ok(PyBounder(
            preview::Bounder::with_limits(limits)
                .with_keep(keep)
                .with_terminal(terminal)
                .with_split(split),
        ))
    }

    /// The most lines a preview may have, notice included.
    #[getter]
    fn max_lines(&self) -> usize {
        self.0.limits().max_lines()
    }

    /// The most bytes a preview may have, notice included.
    #[getter]
    fn max_bytes(&self) -> usize {
        self.0.limits().max_bytes()
    }

    /// Bounds ``data`` (``str`` or bytes-like). Returns the :class:`Preview`
    /// when it fits, else a :class:`PendingSpill` to answer with the spill
    /// outcome. ``spill_id`` names the spill (default: 32 hex digits derived
    /// from the content). Raises :class:`InvalidLimits` when ``data`` must be
    /// cut and the limits leave no room for a cut.
    #[pyo3(signature = (data, *, spill_id = None))]
    fn bound<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        spill_id: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let input = data_input(data, "bound")?;
        let spill_id = opt_string(spill_id, "spill_id")?;
        let bytes = input.as_slice();
        let bounder = &self.0;
        let run = || match &spill_id {
            Some(id) => bounder.bound_with_spill_id(bytes, id),
            None => bounder.bound(bytes),
        };
        let bounded = if bytes.len() >= DETACH_THRESHOLD {
            py.detach(run)
        } else {
            run()
        };
        bounded_to_py(py, bounded.map_err(|e| to_py_err(py, e, Vec::new()))?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Bounder(max_lines={}, max_bytes={})",
            self.max_lines(),
            self.max_bytes()
        )
    }
}

/// `bound()` with no spill writer, in one call: the bounder made, the data
/// bounded and the preview rendered with nothing saved (what
/// ``Bounder(...).bound(data)`` then ``.render()`` gives, without the two
/// extra crossings).
#[pyfunction]
#[pyo3(signature = (data, max_lines, max_bytes, keep, terminal, split, max_tokens, tokenizer, /))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _bound_unsaved(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    max_lines: &Bound<'_, PyAny>,
    max_bytes: &Bound<'_, PyAny>,
    keep: Option<&Bound<'_, PyAny>>,
    terminal: bool,
    split: &str,
    max_tokens: Option<&Bound<'_, PyAny>>,
    tokenizer: Option<&Bound<'_, PyAny>>,
) -> PyResult<Preview> {
    let input = data_input(data, "bound")?;
    let bounder = PyBounder::py_new(
        py, max_lines, max_bytes, keep, terminal, split, max_tokens, tokenizer,
    )?
    .0;
    let bytes = input.as_slice();
    let run = || bounder.bound(bytes);
    let bounded = if bytes.len() >= DETACH_THRESHOLD {
        py.detach(run)
    } else {
        run()
    };
    let bounded = bounded.map_err(|e| to_py_err(py, e, Vec::new()))?;
    preview_to_py(py, bounded.render(SpillOutcome::NotSaved, None))
}

/// `Fits` -> `Preview`, `NeedsSpill` -> `PendingSpill`.
fn bounded_to_py<'py>(py: Python<'py>, bounded: Bounded<'_>) -> PyResult<Bound<'py, PyAny>> {
    match bounded {
        Bounded::Fits(p) => preview_to_py(py, p)?.into_bound_py_any(py),
        Bounded::NeedsSpill(pending) => PendingSpill(pending.into_owned()).into_bound_py_any(py),
    }
}
