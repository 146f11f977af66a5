//! The run machine's actions and steps as Python tuples. Actions are tuples
//! whose first item names them (`("open_spill", view, spill_id)`,
//! `("write_spill", view, data)`, `("output", stream, data, text)`,
//! `("commit_spill", view)`, `("discard_spill", view)`); steps too
//! (`("send",)`, `("wait", delay_seconds, reconnect)`, `("done",)`,
//! `("cancelled",)`). Names are interned `str`s, and the writes of one chunk
//! share one `bytes` object (see [`Actions`]).

use dory_wire::preview::View;
use dory_wire::{Error, RunAction, RunSink, RunStep, Stream};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use pyo3::{intern, IntoPyObjectExt};

use crate::errors::to_py_err;

/// The interned name of `view` (the stream views share the streams' names).
fn view_name(py: Python<'_>, view: View) -> &Bound<'_, PyString> {
    match view {
        View::Stdout => intern!(py, "stdout"),
        View::Stderr => intern!(py, "stderr"),
        View::Combined => intern!(py, "combined"),
    }
}

/// What one data-bearing action was, for sharing its `bytes` (see [`Actions`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rank {
    /// A write to a stream's view.
    StreamWrite(View),
    /// A write to the combined view.
    CombinedWrite,
}

/// The last `bytes` object made for a chunk, and where it came from.
struct Last<'py> {
    ptr: usize,
    len: usize,
    rank: Rank,
    bytes: Bound<'py, PyBytes>,
}

/// The sink of one call of the run: each action as its Python tuple, in
/// order, into `list`.
///
/// The core gives each new chunk, in this order, to the spill of its
/// stream's view, to the combined view's and to the output hook — the same
/// slice each time (`docs/run.md`; `Views::output` in the core). Those
/// actions share one `bytes` object: a write to the combined view reuses the
/// `bytes` of the write to a stream's view just before it, and an output
/// reuses the `bytes` of the write just before it to its stream's view or to
/// the combined view, when the slice is the same (address and length). A
/// chunk's writes are never preceded by another chunk's write of the same
/// rank-or-lower (a view writable for one chunk is for every chunk of the
/// call, and the hook ends each chunk), so an address reused by a later
/// chunk is never mistaken for the same slice.
pub(super) struct Actions<'py> {
    py: Python<'py>,
    list: Bound<'py, PyList>,
    last: Option<Last<'py>>,
    /// The first failure to build a Python object (raised after the call).
    error: Option<PyErr>,
}

impl<'py> Actions<'py> {
    pub(super) fn new(py: Python<'py>) -> Self {
        Actions {
            py,
            list: PyList::empty(py),
            last: None,
            error: None,
        }
    }

    /// The `bytes` of `data`: the last one when it is the same chunk's.
    fn bytes(&mut self, data: &[u8], shares: impl Fn(Rank) -> bool) -> Bound<'py, PyBytes> {
        let (ptr, len) = (data.as_ptr() as usize, data.len());
        if let Some(last) = &self.last {
            if last.ptr == ptr && last.len == len && shares(last.rank) {
                return last.bytes.clone();
            }
        }
        PyBytes::new(self.py, data)
    }

    fn build(&mut self, action: RunAction<'_>) -> PyResult<Bound<'py, PyTuple>> {
        let py = self.py;
        Ok(match action {
            RunAction::OpenSpill { view, spill_id } => PyTuple::new(
                py,
                [
                    intern!(py, "open_spill").clone().into_any(),
                    view_name(py, view).clone().into_any(),
                    PyString::new(py, spill_id).into_any(),
                ],
            )?,
            RunAction::WriteSpill { view, data } => {
                let (bytes, rank) = if view == View::Combined {
                    let bytes = self.bytes(data, |r| matches!(r, Rank::StreamWrite(_)));
                    (bytes, Rank::CombinedWrite)
                } else {
                    (PyBytes::new(py, data), Rank::StreamWrite(view))
                };
                self.last = Some(Last {
                    ptr: data.as_ptr() as usize,
                    len: data.len(),
                    rank,
                    bytes: bytes.clone(),
                });
                PyTuple::new(
                    py,
                    [
                        intern!(py, "write_spill").clone().into_any(),
                        view_name(py, view).clone().into_any(),
                        bytes.into_any(),
                    ],
                )?
            }
            RunAction::Output { stream, data, text } => {
                let own = View::from(stream);
                let bytes = self.bytes(data, |r| {
                    r == Rank::CombinedWrite || r == Rank::StreamWrite(own)
                });
                // The hook ends the chunk.
                self.last = None;
                PyTuple::new(
                    py,
                    [
                        intern!(py, "output").clone().into_any(),
                        stream_name(py, stream),
                        bytes.into_any(),
                        PyString::new(py, text).into_any(),
                    ],
                )?
            }
            RunAction::CommitSpill { view } => PyTuple::new(
                py,
                [
                    intern!(py, "commit_spill").clone().into_any(),
                    view_name(py, view).clone().into_any(),
                ],
            )?,
            RunAction::DiscardSpill { view } => PyTuple::new(
                py,
                [
                    intern!(py, "discard_spill").clone().into_any(),
                    view_name(py, view).clone().into_any(),
                ],
            )?,
        })
    }

    /// The list of actions, or the first failure to build one.
    pub(super) fn into_list(self) -> PyResult<Bound<'py, PyList>> {
        match self.error {
            Some(err) => Err(err),
            None => Ok(self.list),
        }
    }
}

impl RunSink for Actions<'_> {
    fn act(&mut self, action: RunAction<'_>) {
        if self.error.is_some() {
            return;
        }
        let built = self.build(action).and_then(|tuple| self.list.append(tuple));
        if let Err(err) = built {
            self.error = Some(err);
        }
    }
}

/// The interned name of `stream`: the object events carry (interned names
/// are one object per text).
fn stream_name(py: Python<'_>, stream: Stream) -> Bound<'_, PyAny> {
    view_name(py, View::from(stream)).clone().into_any()
}

/// A step as its tuple.
pub(super) fn step_to_py(py: Python<'_>, step: RunStep) -> PyResult<Bound<'_, PyTuple>> {
    match step {
        RunStep::Send => PyTuple::new(py, [intern!(py, "send")]),
        RunStep::Done => PyTuple::new(py, [intern!(py, "done")]),
        RunStep::Cancelled => PyTuple::new(py, [intern!(py, "cancelled")]),
        RunStep::Wait { delay, reconnect } => {
            let reconnect = match reconnect {
                Some(r) => {
                    let (record, values) = r.record();
                    crate::records::to_py(py, record, values)?
                }
                None => py.None().into_bound(py),
            };
            PyTuple::new(
                py,
                [
                    intern!(py, "wait").clone().into_any(),
                    delay.as_secs_f64().into_bound_py_any(py)?,
                    reconnect,
                ],
            )
        }
    }
}

/// The core's error as its Python exception, with the actions the failing
/// call gave before it as its ``events`` (as `Follower.finish` attaches the
/// events it decoded).
pub(super) fn error_with(
    py: Python<'_>,
    err: Error,
    actions: PyResult<Bound<'_, PyList>>,
) -> PyErr {
    let exc = to_py_err(py, err, Vec::new());
    if let Ok(actions) = actions {
        if !actions.is_empty() {
            if let Ok(tuple) = actions.to_tuple().into_bound_py_any(py) {
                // The class is dory_wire's own: `events` is a plain attribute.
                let _ = exc.value(py).setattr(intern!(py, "events"), tuple);
            }
        }
    }
    exc
}
