//! The run bounder: `RunBounder`, `RunPending` and `run_spill_id`. Streams
//! and views are `str` (`"stdout"`, `"stderr"`, `"combined"`); every decision
//! — what each view shows, the loss line, the stderr section, the spill
//! texts — is the core's (`dory_wire::preview::RunBounder`).

use dory_wire::preview::{self, View};
use dory_wire::Error;
use pyo3::prelude::*;

use crate::args::{self, opt_string};
use crate::errors::to_py_err;
use crate::preview::{
    data_input, keep_arg, limit, limits_arg, outcome, preview_to_py, split_arg, token_limit_arg,
    writer_outcome, Preview, DETACH_THRESHOLD,
};

/// The error of a call after `finish`.
fn finished(py: Python<'_>) -> PyErr {
    let reason = "the run bounder was already finished".to_owned();
    to_py_err(py, Error::InvalidState { reason }, Vec::new())
}

/// The spill id a run keyed by ``idempotency_key`` uses: ``run-`` and 32
/// hex digits derived from the key, so a second call with the same key names
/// the same files and renders the same previews. Give it to
/// :class:`RunBounder` as ``spill_id``; each view's spill is then
/// ``<id>-stdout``, ``<id>-stderr`` and ``<id>-combined``.
#[pyfunction]
pub(crate) fn run_spill_id(idempotency_key: &Bound<'_, PyAny>) -> PyResult<String> {
    let key = args::string(idempotency_key, "idempotency_key")?;
    Ok(preview::run_spill_id(&key))
}

/// Bounds a run's output as it arrives: a preview of stdout, of stderr and
/// of both combined in arrival order, each within ``max_lines`` lines and
/// ``max_bytes`` bytes (and, with ``max_tokens``, that many tokens under
/// ``tokenizer``, as for :class:`Bounder`), in memory proportional to the
/// limits whatever the output's size (see docs/preview.md, "A run's three
/// views").
///
/// Without losses, each view's preview is exactly :func:`bound` of that
/// view's bytes with the same limits and spill id, however the output was
/// split. A range recorded with :meth:`lose` (a ``Skipped`` event) is said
/// in a loss line (``[... N bytes lost: stdout offsets A-B were not retained
/// ...]``); when the combined cut would hide stderr's end, a section shows
/// stderr's last lines.
///
/// ``spill_id`` names the views' spills ``<spill_id>-stdout``,
/// ``<spill_id>-stderr`` and ``<spill_id>-combined`` (default: derived from
/// each view's content, known at :meth:`finish`). Write each chunk to the
/// spills of its stream and of ``"combined"`` as you :meth:`push` it, then
/// render each view of the :class:`RunPending` with what saving did.
///
/// Any limits are accepted here; :meth:`check_limits` says whether they can
/// be honoured for any output (a client's ``run`` calls it first).
#[pyclass(module = "dory_wire", name = "RunBounder")]
pub(crate) struct RunBounder {
    inner: Option<preview::RunBounder>,
}

impl RunBounder {
    fn live(&self, py: Python<'_>) -> PyResult<&preview::RunBounder> {
        self.inner.as_ref().ok_or_else(|| finished(py))
    }

    fn live_mut(&mut self, py: Python<'_>) -> PyResult<&mut preview::RunBounder> {
        self.inner.as_mut().ok_or_else(|| finished(py))
    }
}

#[pymethods]
impl RunBounder {
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
        let mut inner = preview::RunBounder::with_limits(limits)
            .with_keep(keep)
            .with_terminal(terminal)
            .with_split(split);
        if let Some(id) = opt_string(spill_id, "spill_id")? {
            inner = inner.with_spill_id(&id);
        }
        Ok(RunBounder { inner: Some(inner) })
    }

    /// Whether these limits can be honoured for any output of a run (a cut
    /// needs a line for its notice and one for a loss line, and
    /// ``MIN_RUN_MAX_BYTES`` bytes, and as many tokens with ``max_tokens``).
    /// Raises :class:`InvalidLimits` (a ``ValueError``) when ``max_lines <
    /// 2``, ``max_bytes < MIN_RUN_MAX_BYTES`` or ``max_tokens <
    /// MIN_RUN_MAX_BYTES``, :class:`InvalidArgument` for an unknown
    /// ``tokenizer``; returns ``None`` otherwise.
    #[staticmethod]
    #[pyo3(signature = (max_lines, max_bytes, *, max_tokens = None, tokenizer = None))]
    fn check_limits(
        py: Python<'_>,
        max_lines: &Bound<'_, PyAny>,
        max_bytes: &Bound<'_, PyAny>,
        max_tokens: Option<&Bound<'_, PyAny>>,
        tokenizer: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let max_lines = limit(py, max_lines, "max_lines")?;
        let max_bytes = limit(py, max_bytes, "max_bytes")?;
        let tokens = token_limit_arg(py, max_tokens, tokenizer)?;
        preview::RunBounder::check_limits(max_lines, max_bytes)
            .and_then(|()| preview::RunBounder::check_tokens(tokens))
            .map_err(|e| to_py_err(py, e, Vec::new()))
    }

    /// The most lines of each preview.
    #[getter]
    fn max_lines(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.live(py)?.limits().max_lines())
    }

    /// The most bytes of each preview.
    #[getter]
    fn max_bytes(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.live(py)?.limits().max_bytes())
    }

    /// Feeds the next bytes of ``stream`` (``"stdout"`` or ``"stderr"``),
    /// in the order they arrived: ``data`` is bytes-like (or ``str``, its
    /// UTF-8 bytes). Raises :class:`InvalidState` after :meth:`finish`.
    fn push(
        &mut self,
        py: Python<'_>,
        stream: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let stream = args::stream(stream)?;
        let input = data_input(data, "push")?;
        let bytes = input.as_slice();
        let inner = self.live_mut(py)?;
        if bytes.len() >= DETACH_THRESHOLD {
            py.detach(|| inner.push(stream, bytes));
        } else {
            inner.push(stream, bytes);
        }
        Ok(())
    }

    /// Records that ``stream`` lost offsets ``[start, end)`` (a ``Skipped``
    /// event). An empty or inverted range records nothing.
    fn lose(
        &mut self,
        py: Python<'_>,
        stream: &Bound<'_, PyAny>,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let stream = args::stream(stream)?;
        let start = args::offset(start, "start")?;
        let end = args::offset(end, "end")?;
        self.live_mut(py)?.lose(stream, start, end);
        Ok(())
    }

    /// The id ``view``'s spill is saved under (``<spill_id>-<view>``), or
    /// ``None`` when no ``spill_id`` was given (the id is then known at
    /// :meth:`finish`: :meth:`RunPending.spill_id`).
    fn spill_id(&self, py: Python<'_>, view: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let view = args::view(view)?;
        Ok(self.live(py)?.spill_id(view).map(str::to_owned))
    }

    /// Bytes of ``view`` pushed so far.
    fn total_bytes(&self, py: Python<'_>, view: &Bound<'_, PyAny>) -> PyResult<u64> {
        let view = args::view(view)?;
        Ok(self.live(py)?.total_bytes(view))
    }

    /// Bytes of ``view`` recorded as lost so far.
    fn lost_bytes(&self, py: Python<'_>, view: &Bound<'_, PyAny>) -> PyResult<u64> {
        let view = args::view(view)?;
        Ok(self.live(py)?.lost_bytes(view))
    }

    /// Bytes of buffer held: bounded by the limits (at most ``6 × (2 ×
    /// max_bytes + 8)`` plus a quarter of ``max_bytes``), whatever was
    /// pushed; 0 once finished.
    #[getter]
    fn retained_bytes(&self) -> usize {
        self.inner
            .as_ref()
            .map_or(0, preview::RunBounder::retained_bytes)
    }

    /// Ends the output: a :class:`RunPending` to render each view from.
    /// Raises :class:`InvalidState` when called twice, :class:`InvalidLimits`
    /// when a view must be cut and the limits leave no room for a cut, or
    /// output was lost and they leave no room for the line saying so.
    fn finish(&mut self, py: Python<'_>) -> PyResult<RunPending> {
        let inner = self.inner.take().ok_or_else(|| finished(py))?;
        let pending = inner.finish().map_err(|e| to_py_err(py, e, Vec::new()))?;
        Ok(RunPending(pending))
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            Some(b) => format!(
                "<RunBounder stdout={} stderr={} bytes>",
                b.total_bytes(View::Stdout),
                b.total_bytes(View::Stderr)
            ),
            None => "<RunBounder finished>".to_owned(),
        }
    }
}

/// A finished run, waiting for each view's spill outcome: render each view
/// (``"stdout"``, ``"stderr"``, ``"combined"``) with :meth:`render` once you
/// know whether its spill was saved. A view whose :meth:`needs_spill` is
/// false shows every byte it has, so its spill (if one was written) can be
/// discarded. It may be rendered any number of times.
#[pyclass(frozen, module = "dory_wire", name = "RunPending")]
pub(crate) struct RunPending(preview::RunPending);

#[pymethods]
impl RunPending {
    /// The id to save ``view``'s full bytes under.
    fn spill_id(&self, view: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(self.0.spill_id(args::view(view)?).to_owned())
    }

    /// Whether ``view`` is cut, so that its preview points at a spill.
    fn needs_spill(&self, view: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.0.needs_spill(args::view(view)?))
    }

    /// Bytes of ``view`` (lost bytes not included).
    fn total_bytes(&self, view: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(self.0.total_bytes(args::view(view)?))
    }

    /// ``(bytes, ranges)`` of ``view`` that were lost.
    fn lost(&self, view: &Bound<'_, PyAny>) -> PyResult<(u64, u64)> {
        Ok(self.0.lost(args::view(view)?))
    }

    /// Renders ``view`` for its spill outcome (ignored when the view is not
    /// cut): ``spill_path`` when its bytes were saved there (the notice
    /// points at it, plus ``hint``), ``spill_error`` when saving failed
    /// (plain notice, reported in :attr:`Preview.spill_error`), neither when
    /// nothing was saved. The text is the view bounded as by :func:`bound`,
    /// then (combined view) the stderr section, then the loss line.
    #[pyo3(signature = (view, *, spill_path = None, spill_error = None, hint = None))]
    fn render(
        &self,
        py: Python<'_>,
        view: &Bound<'_, PyAny>,
        spill_path: Option<&Bound<'_, PyAny>>,
        spill_error: Option<&Bound<'_, PyAny>>,
        hint: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Preview> {
        let view = args::view(view)?;
        let outcome = outcome(spill_path, spill_error)?;
        let hint = opt_string(hint, "hint")?;
        preview_to_py(py, self.0.render(view, outcome, hint.as_deref()))
    }

    /// Renders ``view`` for what a spill writer did: returned ``returned``
    /// (a path, ``None``, or anything else), or raised ``raised``, or
    /// (``use_instead`` set) returned an awaitable a synchronous call cannot
    /// wait for. The failure texts are the core's, as for :func:`bound`.
    /// Used by the clients' ``run``.
    #[pyo3(signature = (view, *, returned = None, raised = None, use_instead = None, hint = None))]
    fn _render_writer(
        &self,
        py: Python<'_>,
        view: &Bound<'_, PyAny>,
        returned: Option<&Bound<'_, PyAny>>,
        raised: Option<&Bound<'_, PyAny>>,
        use_instead: Option<String>,
        hint: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Preview> {
        let view = args::view(view)?;
        let hint = opt_string(hint, "hint")?;
        let outcome = writer_outcome(py, returned, raised, use_instead)?;
        preview_to_py(py, self.0.render(view, outcome, hint.as_deref()))
    }

    fn __repr__(&self) -> String {
        format!(
            "<RunPending stdout={} stderr={} bytes>",
            self.0.total_bytes(View::Stdout),
            self.0.total_bytes(View::Stderr)
        )
    }
}
