//! The spill search: `Searcher` and `SearchResult`. Types are converted and
//! errors mapped here; every decision is the core's (`dory_wire::search`).

use dory_wire::search::{self, SearchOptions};
use dory_wire::Error;
use pyo3::prelude::*;

use crate::args;
use crate::errors::to_py_err;
use crate::preview::{limit, DETACH_THRESHOLD};

/// Searches a saved output for a pattern, from chunks of any size, in memory
/// bounded by the limits: the matching lines with their 1-based numbers
/// (``N:text``; context lines ``N-text``, groups separated by ``--``, as
/// ``grep -n`` prints them), cut to ``max_lines`` lines and ``max_bytes``
/// bytes with an exact notice. Raises :class:`InvalidArgument` (argument
/// ``pattern`` or ``context``) or :class:`InvalidLimits`, as the core does.
#[pyclass(module = "dory_wire", name = "Searcher")]
pub(crate) struct Searcher {
    inner: Option<search::Searcher>,
}

fn finished(py: Python<'_>) -> PyErr {
    let reason = "the searcher was already finished".to_owned();
    to_py_err(py, Error::InvalidState { reason }, Vec::new())
}

#[pymethods]
impl Searcher {
    #[new]
    #[pyo3(signature = (pattern, *, context = None, max_lines = None, max_bytes = None, ignore_case = false))]
    fn py_new(
        py: Python<'_>,
        pattern: &Bound<'_, PyAny>,
        context: Option<&Bound<'_, PyAny>>,
        max_lines: Option<&Bound<'_, PyAny>>,
        max_bytes: Option<&Bound<'_, PyAny>>,
        ignore_case: bool,
    ) -> PyResult<Self> {
        let pattern = args::string(pattern, "pattern")?;
        let defaults = SearchOptions::default();
        let get = |obj: Option<&Bound<'_, PyAny>>, name: &str, default: usize| match obj {
            Some(o) if !o.is_none() => limit(py, o, name),
            _ => Ok(default),
        };
        let options = SearchOptions {
            context: get(context, "context", defaults.context)?,
            max_lines: get(max_lines, "max_lines", defaults.max_lines)?,
            max_bytes: get(max_bytes, "max_bytes", defaults.max_bytes)?,
            ignore_case,
        };
        let inner =
            search::Searcher::new(&pattern, options).map_err(|e| to_py_err(py, e, Vec::new()))?;
        Ok(Searcher { inner: Some(inner) })
    }

    /// Feeds the next bytes of the output (bytes-like, any size, even empty).
    /// Raises :class:`InvalidState` after :meth:`finish`.
    fn push(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let input = args::bytes_like(data, "push", "data")?;
        let bytes = input.as_slice();
        let inner = self.inner.as_mut().ok_or_else(|| finished(py))?;
        if bytes.len() >= DETACH_THRESHOLD {
            py.detach(|| inner.push(bytes));
        } else {
            inner.push(bytes);
        }
        Ok(())
    }

    /// Bytes held now (bounded by the limits, whatever was pushed); 0 once
    /// finished.
    #[getter]
    fn buffered_bytes(&self) -> usize {
        self.inner
            .as_ref()
            .map_or(0, search::Searcher::buffered_bytes)
    }

    /// Ends the input and gives the :class:`SearchResult`. ``path`` is where
    /// the output is saved: the notice's ``grep`` command reads it. Raises
    /// :class:`InvalidState` when called twice.
    #[pyo3(signature = (path = None))]
    fn finish(
        &mut self,
        py: Python<'_>,
        path: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<SearchResult> {
        let path = args::opt_string(path, "path")?;
        let inner = self.inner.take().ok_or_else(|| finished(py))?;
        Ok(SearchResult(inner.finish(path.as_deref())))
    }
}

/// The matching lines of a search, bounded, with exact counts.
#[pyclass(frozen, eq, hash, module = "dory_wire", name = "SearchResult")]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct SearchResult(search::SearchResult);

#[pymethods]
impl SearchResult {
    /// The lines shown and, when needed, the notice (every line ends with ``\n``).
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }

    /// Whether a line of the full ``grep`` output is not shown, or shown in part.
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

    /// Lines that matched, shown or not.
    #[getter]
    fn matched_lines(&self) -> u64 {
        self.0.matched_lines
    }

    /// Matching lines shown, whole or in part.
    #[getter]
    fn shown_lines(&self) -> u64 {
        self.0.shown_lines
    }

    /// Matching lines not shown.
    #[getter]
    fn omitted_lines(&self) -> u64 {
        self.0.omitted_lines
    }

    /// The line shown in part, 1-based.
    #[getter]
    fn partial_line(&self) -> Option<u64> {
        self.0.partial_line
    }

    /// Lines longer than ``MAX_MATCH_BYTES``, matched on their first bytes only.
    #[getter]
    fn long_lines(&self) -> u64 {
        self.0.long_lines
    }

    /// The first such line, 1-based.
    #[getter]
    fn first_long_line(&self) -> Option<u64> {
        self.0.first_long_line
    }

    /// The path the output is saved at, as given to :meth:`Searcher.finish`.
    #[getter]
    fn spill_path(&self) -> Option<&str> {
        self.0.spill_path.as_deref()
    }

    /// ``grep -n -E 'PATTERN' PATH``, listing every match, when a path was given.
    #[getter]
    fn command(&self) -> Option<&str> {
        self.0.command.as_deref()
    }

    fn __repr__(&self) -> String {
        format!(
            "<SearchResult matched_lines={} shown_lines={} truncated={}>",
            self.0.matched_lines,
            self.0.shown_lines,
            if self.0.truncated { "True" } else { "False" },
        )
    }
}
