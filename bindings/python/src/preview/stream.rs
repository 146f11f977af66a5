//! `StreamingBounder`: an input given in chunks, bounded in memory
//! proportional to the limits (the core's `preview::StreamingBounder`).

use dory_wire::preview::{self, Bounded, SpillOutcome};
use dory_wire::Error;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use super::args::{data_input, keep_arg, limits_arg, split_arg};
use super::result::{preview_to_py, Preview};
use super::spill::{call_writer, writer, PendingSpill};
use super::DETACH_THRESHOLD;
use crate::args::opt_string;
use crate::errors::to_py_err;

/// Bounds an input given in chunks, with memory proportional to the limits
/// (not to the input): the same preview as :func:`bound` over the
/// concatenated chunks, however they are split. The limits and options are
/// :class:`Bounder`'s (``max_tokens`` and ``tokenizer`` included).
///
/// To spill, write each chunk to the spill file as you :meth:`push` it, then
/// give :meth:`finish` a ``spill`` callable that returns its path.
/// ``spill_id`` names the spill (default: derived from the content, known
/// only at the end: :attr:`Preview.spill_id`).
#[pyclass(module = "dory_wire", name = "StreamingBounder")]
pub(crate) struct StreamingBounder {
    inner: Option<preview::StreamingBounder>,
}

/// The error of a call after `finish`.
fn finished(py: Python<'_>) -> PyErr {
    let reason = "the streaming bounder was already finished".to_owned();
    to_py_err(py, Error::InvalidState { reason }, Vec::new())
}

impl StreamingBounder {
    fn live(&mut self, py: Python<'_>) -> PyResult<&mut preview::StreamingBounder> {
        self.inner.as_mut().ok_or_else(|| finished(py))
    }

    /// Ends the input (once).
    fn finish_inner(&mut self, py: Python<'_>) -> PyResult<Bounded<'static>> {
        let inner = self.inner.take().ok_or_else(|| finished(py))?;
        inner.finish().map_err(|e| to_py_err(py, e, Vec::new()))
    }
}

#[pymethods]
impl StreamingBounder {
    #[new]
    #[pyo3(signature = (
        max_lines, max_bytes, *, spill_id = None, keep = None, terminal = false, split = "even",
        max_tokens = None, tokenizer = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        max_lines: &Bound<'_, PyAny>,
        max_bytes: &Bound<'_, PyAny>,
        spill_id: Option<&Bound<'_, PyAny>>,
        keep: Option<&Bound<'_, PyAny>>,
        terminal: bool,
        split: &str,
        max_tokens: Option<&Bound<'_, PyAny>>,
        tokenizer: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let limits = limits_arg(py, max_lines, max_bytes, max_tokens, tokenizer)?;
        let keep = keep_arg(py, keep)?;
        let split = split_arg(py, split)?;
        let mut inner = preview::StreamingBounder::with_limits(limits)
            .with_keep(keep)
            .with_terminal(terminal)
            .with_split(split);
        if let Some(id) = opt_string(spill_id, "spill_id")? {
            inner = inner.with_spill_id(id);
        }
        Ok(StreamingBounder { inner: Some(inner) })
    }

    /// Feeds the next chunk (``str`` or bytes-like; any size, even empty).
    /// Raises :class:`InvalidState` after :meth:`finish`.
    fn push(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let input = data_input(data, "push")?;
        let bytes = input.as_slice();
        let inner = self.live(py)?;
        if bytes.len() >= DETACH_THRESHOLD {
            py.detach(|| inner.push(bytes));
        } else {
            inner.push(bytes);
        }
        Ok(())
    }

    /// Bytes pushed so far.
    #[getter]
    fn total_bytes(&mut self, py: Python<'_>) -> PyResult<u64> {
        Ok(self.live(py)?.total_bytes())
    }

    /// Bytes of buffer held (bounded by the limits, whatever was pushed);
    /// 0 once finished.
    #[getter]
    fn retained_bytes(&self) -> usize {
        self.inner.as_ref().map_or(0, |b| b.retained_bytes())
    }

    /// Ends the input and renders the preview. When it must be cut and
    /// ``spill`` is given, ``spill(spill_id)`` is called once and returns the
    /// path where the caller saved the chunks (or ``None``: nothing saved);
    /// the notice then names it, with ``hint``. A writer that raises or
    /// returns something else never escapes: see :attr:`Preview.spill_error`.
    /// An async writer belongs to :meth:`afinish`. Raises
    /// :class:`InvalidState` when called twice, :class:`InvalidLimits` when
    /// the input must be cut and the limits leave no room for a cut.
    #[pyo3(signature = (spill = None, hint = None))]
    fn finish(
        &mut self,
        py: Python<'_>,
        spill: Option<&Bound<'_, PyAny>>,
        hint: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Preview> {
        let spill = writer(spill)?;
        let hint = opt_string(hint, "hint")?;
        let pending = match self.finish_inner(py)? {
            Bounded::Fits(preview) => return preview_to_py(py, preview),
            Bounded::NeedsSpill(pending) => pending,
        };
        let outcome = match spill {
            None => SpillOutcome::NotSaved,
            Some(spill) => call_writer(py, &spill, pending.spill_id(), "afinish()")?,
        };
        preview_to_py(py, pending.render(outcome, hint.as_deref()))
    }

    /// :meth:`finish` with an async (or sync) writer: ``await
    /// spill(spill_id)`` gives the path. Returns an awaitable of the
    /// :class:`Preview`.
    #[pyo3(signature = (spill = None, hint = None))]
    fn afinish<'py>(
        &mut self,
        py: Python<'py>,
        spill: Option<&Bound<'py, PyAny>>,
        hint: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let spill = writer(spill)?;
        opt_string(hint, "hint")?;
        let bounded = match self.finish_inner(py)? {
            Bounded::Fits(preview) => preview_to_py(py, preview)?.into_bound_py_any(py)?,
            Bounded::NeedsSpill(pending) => PendingSpill(pending).into_bound_py_any(py)?,
        };
        py.import("dory_wire._preview")?
            .getattr("_afinish")?
            .call1((bounded, spill, hint))
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            Some(b) => format!("<StreamingBounder total_bytes={}>", b.total_bytes()),
            None => "<StreamingBounder finished>".to_owned(),
        }
    }
}
