//! How the actions of one call of a [`WasmRun`] (`feed`, `finish`,
//! `no_response`, `cancel`) cross the boundary: without serialization, as a
//! reader's events do. One record of [`ACTION_F64S`] numbers per action —
//! `(kind, tag, data start, data end, text start, text end)` — in a
//! `Vec<f64>` JavaScript reads in place (`meta_ptr`), the bytes of all of
//! them in one buffer (`data_ptr`, `data_len`), and the hook's texts in one
//! string (`take_text`, offsets in UTF-16 code units). Views and streams
//! are tags (0 stdout, 1 stderr, 2 combined).
//!
//! The core gives each new chunk, in order, to the spill of its stream's
//! view, to the combined view's and to the output hook, the same slice
//! each time: those actions share one range of the buffer (so one
//! `Uint8Array` in JavaScript), by the rule of the Python binding's
//! `Actions` (`bindings/python/src/run/actions.rs`).

use dory_wire::preview::View;
use dory_wire::{RunAction, RunSink};
use wasm_bindgen::prelude::*;

use super::WasmRun;
use crate::feed::address;

/// Numbers per action record.
pub(super) const ACTION_F64S: usize = 6;
/// Action kinds (the record's first number).
const KIND_OPEN_SPILL: f64 = 0.0;
const KIND_WRITE_SPILL: f64 = 1.0;
const KIND_OUTPUT: f64 = 2.0;
const KIND_COMMIT_SPILL: f64 = 3.0;
const KIND_DISCARD_SPILL: f64 = 4.0;
/// A data buffer larger than this is released after the call instead of
/// being kept for the next one.
const KEEP_DATA_CAPACITY: usize = 4 << 20;

/// What one data-bearing action was, for sharing its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rank {
    /// A write to a stream's view.
    StreamWrite(View),
    /// A write to the combined view.
    CombinedWrite,
}

/// The last slice pushed: its address and length, its range in `data`.
#[derive(Debug, Clone, Copy)]
struct Last {
    ptr: usize,
    len: usize,
    rank: Rank,
    start: usize,
    end: usize,
}

/// The actions of one call, in the form that crosses the boundary.
#[derive(Debug, Default)]
pub(super) struct Actions {
    meta: Vec<f64>,
    data: Vec<u8>,
    text: String,
    /// The UTF-16 length of `text`.
    units: usize,
    last: Option<Last>,
}

impl Actions {
    /// Empties the actions for the next call.
    pub(super) fn clear(&mut self) {
        self.meta.clear();
        if self.data.capacity() > KEEP_DATA_CAPACITY {
            self.data = Vec::new();
        } else {
            self.data.clear();
        }
        self.text.clear();
        self.units = 0;
        self.last = None;
    }

    fn count(&self) -> usize {
        self.meta.len() / ACTION_F64S
    }

    /// The range of `data` in the buffer: the last one when it is the same
    /// chunk's (`shares` says which ranks may be shared).
    fn bytes(
        &mut self,
        data: &[u8],
        rank: Option<Rank>,
        shares: impl Fn(Rank) -> bool,
    ) -> (usize, usize) {
        let (ptr, len) = (data.as_ptr() as usize, data.len());
        let range = match self.last {
            Some(l) if l.ptr == ptr && l.len == len && shares(l.rank) => (l.start, l.end),
            _ => {
                let start = self.data.len();
                self.data.extend_from_slice(data);
                (start, self.data.len())
            }
        };
        self.last = rank.map(|rank| Last {
            ptr,
            len,
            rank,
            start: range.0,
            end: range.1,
        });
        range
    }

    fn push(&mut self, kind: f64, tag: u8, data: (usize, usize), text: (usize, usize)) {
        self.meta.extend_from_slice(&[
            kind,
            f64::from(tag),
            data.0 as f64,
            data.1 as f64,
            text.0 as f64,
            text.1 as f64,
        ]);
    }
}

impl RunSink for Actions {
    fn act(&mut self, action: RunAction<'_>) {
        match action {
            RunAction::OpenSpill { view, .. } => {
                self.push(KIND_OPEN_SPILL, view as u8, (0, 0), (0, 0));
            }
            RunAction::WriteSpill { view, data } => {
                let range = if view == View::Combined {
                    self.bytes(data, Some(Rank::CombinedWrite), |r| {
                        matches!(r, Rank::StreamWrite(_))
                    })
                } else {
                    self.bytes(data, Some(Rank::StreamWrite(view)), |_| false)
                };
                self.push(KIND_WRITE_SPILL, view as u8, range, (0, 0));
            }
            RunAction::Output { stream, data, text } => {
                let own = View::from(stream);
                // The hook ends the chunk.
                let range = self.bytes(data, None, |r| {
                    r == Rank::CombinedWrite || r == Rank::StreamWrite(own)
                });
                let start = self.units;
                self.text.push_str(text);
                self.units += text.encode_utf16().count();
                self.push(KIND_OUTPUT, stream as u8, range, (start, self.units));
            }
            RunAction::CommitSpill { view } => {
                self.push(KIND_COMMIT_SPILL, view as u8, (0, 0), (0, 0));
            }
            RunAction::DiscardSpill { view } => {
                self.push(KIND_DISCARD_SPILL, view as u8, (0, 0), (0, 0));
            }
        }
    }
}

#[wasm_bindgen]
impl WasmRun {
    /// The number of actions of the last `feed`, `finish`, `no_response`
    /// or `cancel`.
    pub fn actions_len(&self) -> u32 {
        u32::try_from(self.actions.count()).unwrap_or(u32::MAX)
    }

    /// The address in wasm memory of the action records of the last call.
    pub fn meta_ptr(&self) -> u32 {
        address(self.actions.meta.as_ptr().cast())
    }

    /// The address in wasm memory of the bytes of the last call.
    pub fn data_ptr(&self) -> u32 {
        address(self.actions.data.as_ptr())
    }

    /// The number of bytes of the last call.
    pub fn data_len(&self) -> u32 {
        u32::try_from(self.actions.data.len()).unwrap_or(u32::MAX)
    }

    /// The hook's texts of the last call, concatenated.
    pub fn take_text(&mut self) -> String {
        std::mem::take(&mut self.actions.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::follow::WasmFollowOptions;

    fn value(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap()
    }

    fn started(spill: bool, on_output: bool) -> WasmRun {
        let mut options = WasmFollowOptions::new();
        options.set_bool("jitter", false);
        let mut run = WasmRun::new(
            "c1",
            "\"make\"",
            &[0; 16],
            options,
            None,
            None,
            Some("k".into()),
            Some(1500.0),
            None,
            true,
            spill,
            on_output,
            None,
            false,
            None,
            None,
            None,
            None,
            None,
        )
        .unwrap();
        let start = value(&run.request().unwrap());
        assert_eq!(start["target"], "/computers/c1/processes");
        assert_eq!(
            value(start["body"].as_str().unwrap())["timeout_seconds"],
            1.5,
            "the milliseconds in seconds"
        );
        assert_eq!(run.open(200.0, "application/json", None, None), "");
        assert_eq!(run.feed(br#"{"proc_id":"p1","status":"running"}"#), "");
        assert_eq!(
            value(&run.finish(None, 0.0))["step"],
            serde_json::json!({"type": "send"})
        );
        run
    }

    #[test]
    fn a_chunk_shares_its_bytes_across_its_actions() {
        let mut run = started(true, true);
        value(&run.request().unwrap());
        assert_eq!(
            run.open(200.0, "application/x-ndjson", Some("p1".into()), None),
            ""
        );
        assert_eq!(
            run.feed(b"{\"type\":\"stdout\",\"data\":\"h\xc3\xa9\",\"offset\":3}\n"),
            ""
        );
        // open stdout, write stdout, open combined, write combined, output.
        assert_eq!(run.actions_len(), 5);
        let m = &run.actions.meta;
        let kinds: Vec<f64> = m.chunks(ACTION_F64S).map(|r| r[0]).collect();
        assert_eq!(kinds, [0.0, 1.0, 0.0, 1.0, 2.0]);
        for r in m.chunks(ACTION_F64S).filter(|r| r[0] != 0.0) {
            assert_eq!((r[2], r[3]), (0.0, 3.0), "one range of the buffer");
        }
        assert_eq!(run.actions.data, "hé".as_bytes());
        assert_eq!((m[4 * ACTION_F64S + 4], m[4 * ACTION_F64S + 5]), (0.0, 2.0));
        assert_eq!(run.take_text(), "hé");
        let step = value(&run.cancel());
        assert_eq!(step, serde_json::json!({"type": "send"}), "the kill");
        assert_eq!(run.actions_len(), 2, "both open files discarded");
        assert_eq!(
            value(&run.request().unwrap())["target"],
            "/computers/c1/processes/p1/kill"
        );
    }
}
