//! `WasmReader`: the core [`Reader`] behind the JavaScript `Reader`.

use std::time::Duration;

use dory_wire::{
    Cursor, Endpoint, Event, GapPolicy, Reader, ReaderOptions, ReaderState, ResumeState, Sink,
    Stream, Transcript,
};
use wasm_bindgen::prelude::*;

use crate::json::{self, OutOfRange};
use crate::transcript::WasmTranscript;

/// The largest `maxFrameBytes` accepted: 1 GiB. Larger limits would let one
/// line exhaust the 4 GiB address space of a wasm32 module.
pub(crate) const MAX_FRAME_BYTES_LIMIT: f64 = (1u64 << 30) as f64;

// The event layout (records, tags, the result number): crate::layout.
pub(crate) use crate::layout::{FLAG_SIDE, RECORDS};
use crate::layout::{RECORD_F64S, TAG_OTHER, TAG_STDERR, TAG_STDOUT};
/// A data buffer larger than this is released after the call instead of
/// being kept for the next one.
const KEEP_DATA_CAPACITY: usize = 4 << 20;

/// A [`Reader`] plus the binding's own sticky error (an integer that a
/// JavaScript number cannot hold exactly), and the batch of the last call.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmReader {
    inner: Reader,
    /// Set once an event could not be converted; every later call returns it.
    failed: Option<String>,
    /// The batch of the last `feed`/`finish` (kept between calls so its
    /// buffers are reused).
    batch: Batch,
    /// The side JSON of the last call, when it has one.
    side: Option<String>,
}

/// The events of one `feed`/`finish`, in the form that crosses the boundary
/// without serialization ([`crate::layout`]): one record of three numbers
/// per event, `(tag, start, end)`, in a `Vec<f64>` that JavaScript reads in
/// place; the output bytes of all events in one buffer; and, for the rare
/// events that are not output (and an error or an end), one small JSON side
/// document.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    /// `(tag, start, end)` per event (`start`/`end` are 0 for [`TAG_OTHER`]).
    pub(crate) meta: Vec<f64>,
    /// Output bytes of the events, in event order.
    pub(crate) data: Vec<u8>,
    /// The compact JSON arrays of the [`TAG_OTHER`] events, comma-separated
    /// (see [`json`]).
    pub(crate) other: String,
    /// An integer a JavaScript number cannot hold: conversion stops there
    /// (the events before it are kept).
    pub(crate) error: Option<OutOfRange>,
}

impl Batch {
    pub(crate) fn clear(&mut self) {
        self.meta.clear();
        if self.data.capacity() > KEEP_DATA_CAPACITY {
            self.data = Vec::new();
        } else {
            self.data.clear();
        }
        self.other.clear();
        self.error = None;
    }

    pub(crate) fn records(&self) -> f64 {
        (self.meta.len() / RECORD_F64S) as f64
    }
}

fn safe(field: &'static str, v: u64) -> Result<f64, OutOfRange> {
    if v > json::MAX_SAFE_INTEGER {
        Err(OutOfRange {
            field,
            value: v.to_string(),
        })
    } else {
        Ok(v as f64)
    }
}

impl Batch {
    /// Checks an output range; the first offset a JavaScript number cannot
    /// hold stops the conversion of the call.
    fn check_output(&mut self, start: u64, end: u64) -> Option<(f64, f64)> {
        if self.error.is_some() {
            return None;
        }
        match safe("output start offset", start)
            .and_then(|s| Ok((s, safe("output end offset", end)?)))
        {
            Ok(range) => Some(range),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }

    /// Appends the compact array of a non-output event (and its record).
    fn push_other(&mut self, event: &Event) -> bool {
        if self.error.is_some() {
            return false;
        }
        let mark = self.other.len();
        if mark != 0 {
            self.other.push(',');
        }
        // `push_event` appends the event's bytes (a result document's) to the
        // data buffer only when its record was written.
        match json::push_event(&mut self.other, &mut self.data, event) {
            Ok(()) => {
                self.meta.extend_from_slice(&[TAG_OTHER, 0.0, 0.0]);
                true
            }
            Err(e) => {
                self.other.truncate(mark);
                self.error = Some(e);
                false
            }
        }
    }
}

impl Sink for Batch {
    fn output(&mut self, stream: Stream, bytes: std::borrow::Cow<'_, [u8]>, start: u64, end: u64) {
        if let Some((s, e)) = self.check_output(start, end) {
            let tag = match stream {
                Stream::Stdout => TAG_STDOUT,
                Stream::Stderr => TAG_STDERR,
            };
            self.meta.extend_from_slice(&[tag, s, e]);
            self.data.extend_from_slice(&bytes);
        }
    }

    fn event(&mut self, event: Event) {
        self.push_other(&event);
    }
}

/// The sink of `feed_into`: output bytes go into the transcript only (no
/// record, no copy out of wasm memory); every other event goes into the
/// transcript and the batch.
pub(crate) struct IntoTranscript<'a> {
    pub(crate) batch: &'a mut Batch,
    pub(crate) transcript: &'a mut Transcript,
}

impl Sink for IntoTranscript<'_> {
    fn output(&mut self, stream: Stream, bytes: std::borrow::Cow<'_, [u8]>, start: u64, end: u64) {
        // Checked like `feed`, so both report the same error at the same place.
        if self.batch.check_output(start, end).is_some() {
            self.transcript.push_output(stream, &bytes, start, end);
        }
    }

    fn event(&mut self, event: Event) {
        if self.batch.push_other(&event) {
            self.transcript.push(&event);
        }
    }
}

fn endpoint(name: &str) -> Result<Endpoint, String> {
    Endpoint::from_name(name).ok_or_else(|| {
        format!("unknown endpoint {name:?} (expected \"exec\", \"process_output\", \"setup_logs\" or \"document\")")
    })
}

/// Builds the options; the JavaScript layer has already checked types and ranges
/// (with `TypeError`/`RangeError`), so failures here are only a defence.
fn options(
    gap_policy: &str,
    max_frame_bytes: f64,
    liveness_timeout_ms: f64,
    strict: bool,
) -> Result<ReaderOptions, String> {
    let policy = GapPolicy::from_name(gap_policy).ok_or_else(|| {
        format!("unknown gap policy {gap_policy:?} (expected \"fail\" or \"skip\")")
    })?;
    if !((1.0..=MAX_FRAME_BYTES_LIMIT).contains(&max_frame_bytes) && max_frame_bytes.fract() == 0.0)
    {
        return Err(format!(
            "maxFrameBytes must be an integer from 1 to {MAX_FRAME_BYTES_LIMIT}"
        ));
    }
    let timeout = Duration::try_from_secs_f64(liveness_timeout_ms / 1000.0)
        .map_err(|_| "livenessTimeoutMs must be a finite number >= 0".to_owned())?;
    Ok(ReaderOptions::default()
        .gap_policy(policy)
        .max_frame_bytes(max_frame_bytes as usize)
        .liveness_timeout(timeout)
        .strict(strict))
}

fn offset(value: f64, what: &str) -> Result<u64, String> {
    if (0.0..=json::MAX_SAFE_INTEGER as f64).contains(&value) && value.fract() == 0.0 {
        Ok(value as u64)
    } else {
        Err(format!("{what} must be a safe integer >= 0"))
    }
}

/// A misuse message as an `invalid_state`-free error object the JavaScript layer
/// turns into a `RangeError`.
fn range_error(message: String) -> String {
    let mut out = String::from("{\"code\":\"range_error\",\"message\":");
    json::push_str(&mut out, &message);
    out.push('}');
    out
}

/// A pointer as a wasm32 address (the low 32 bits on a 64-bit host, where
/// the binding is only compiled for its lints and unit tests).
pub(crate) fn address(p: *const u8) -> u32 {
    (p as usize & 0xffff_ffff) as u32
}

/// The module's `WebAssembly.Memory`, through which JavaScript reads the
/// event records and bytes of a call in place.
#[wasm_bindgen]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

#[wasm_bindgen]
impl WasmReader {
    /// Builds a reader at `cursor`. Throws an error-object JSON string.
    #[wasm_bindgen(constructor)]
    pub fn new(
        endpoint_name: &str,
        cursor_stdout: f64,
        cursor_stderr: f64,
        gap_policy: &str,
        max_frame_bytes: f64,
        liveness_timeout_ms: f64,
        strict: bool,
    ) -> Result<WasmReader, String> {
        let endpoint = endpoint(endpoint_name).map_err(range_error)?;
        let options = options(gap_policy, max_frame_bytes, liveness_timeout_ms, strict)
            .map_err(range_error)?;
        let cursor = Cursor::new(
            offset(cursor_stdout, "cursor.stdout").map_err(range_error)?,
            offset(cursor_stderr, "cursor.stderr").map_err(range_error)?,
        );
        Ok(WasmReader::wrap(Reader::new(endpoint, cursor, options)))
    }

    /// Builds a reader from a resume state in its JSON form. Throws an
    /// error-object JSON string (`invalid_state` for a bad state).
    pub fn resume(
        endpoint_name: &str,
        state_json: &str,
        gap_policy: &str,
        max_frame_bytes: f64,
        liveness_timeout_ms: f64,
        strict: bool,
    ) -> Result<WasmReader, String> {
        let endpoint = endpoint(endpoint_name).map_err(range_error)?;
        let options = options(gap_policy, max_frame_bytes, liveness_timeout_ms, strict)
            .map_err(range_error)?;
        let state = ResumeState::from_json(state_json).map_err(|e| json::write_error(&e))?;
        Ok(WasmReader::wrap(Reader::resume(endpoint, &state, options)))
    }

    /// Gives the status, Content-Type and `CE-Process-Id` header. Returns an
    /// error-object JSON string, or an empty string on success.
    pub fn open(&mut self, status: f64, content_type: &str, proc_id: Option<String>) -> String {
        if let Some(failed) = &self.failed {
            return failed.clone();
        }
        let status = match dory_wire::http_status(status) {
            Ok(status) => status,
            Err(e) => return json::write_error(&e),
        };
        match self.inner.open(status, content_type, proc_id.as_deref()) {
            Ok(()) => String::new(),
            Err(e) => json::write_error(&e),
        }
    }

    /// Feeds body bytes. Returns `records * 2 + flags` ([`crate::layout`]):
    /// the events are the `records` records of [`WasmReader::meta_ptr`]
    /// (three `f64` each: tag, start, end) with their bytes at
    /// [`WasmReader::data_ptr`]; when
    /// the flag is set, [`WasmReader::take_side`] returns
    /// `{"events":[…],"error":null|{…}}` with the arrays of the events whose
    /// tag is "other", in order.
    pub fn feed(&mut self, chunk: &[u8]) -> f64 {
        self.batch.clear();
        if let Some(failed) = &self.failed {
            self.side = Some(format!("{{\"events\":[],\"error\":{failed}}}"));
            return FLAG_SIDE;
        }
        let result = self.inner.feed(chunk, &mut self.batch);
        self.after_feed(result)
    }

    /// Feeds body bytes like [`WasmReader::feed`], but output bytes go into
    /// `transcript` inside wasm memory: the records returned are those of
    /// the other events only (which are also pushed into the transcript).
    pub fn feed_into(&mut self, chunk: &[u8], transcript: &mut WasmTranscript) -> f64 {
        self.batch.clear();
        if let Some(failed) = &self.failed {
            self.side = Some(format!("{{\"events\":[],\"error\":{failed}}}"));
            return FLAG_SIDE;
        }
        let mut sink = IntoTranscript {
            batch: &mut self.batch,
            transcript: transcript.core_mut(),
        };
        let result = self.inner.feed(chunk, &mut sink);
        self.after_feed(result)
    }

    /// Ends the body. Returns `records * 2 + 1` like [`WasmReader::feed`];
    /// the side JSON is `{"events":[…],"end":null|{…},"error":null|{…}}`.
    pub fn finish(&mut self) -> f64 {
        self.batch.clear();
        if let Some(failed) = &self.failed {
            self.side = Some(format!("{{\"events\":[],\"end\":null,\"error\":{failed}}}"));
            return FLAG_SIDE;
        }
        let result = self.inner.finish(&mut self.batch);
        let (end, error) = match (self.batch.error.take(), result) {
            (Some(e), _) => ("null".to_owned(), self.fail(&e)),
            (None, Err(e)) => ("null".to_owned(), json::write_error(&e)),
            (None, Ok(end)) => {
                let mut s = String::new();
                match json::push_end(&mut s, &end) {
                    Ok(()) => (s, "null".to_owned()),
                    Err(e) => ("null".to_owned(), self.fail(&e)),
                }
            }
        };
        self.side = Some(format!(
            "{{\"events\":[{}],\"end\":{end},\"error\":{error}}}",
            self.batch.other
        ));
        self.batch.records() * RECORDS + FLAG_SIDE
    }

    /// The side JSON of the last `feed`/`finish` (see [`WasmReader::feed`]).
    pub fn take_side(&mut self) -> String {
        self.side.take().unwrap_or_default()
    }

    /// The address in wasm memory of the event records of the last call
    /// (valid until the next call on this reader).
    pub fn meta_ptr(&self) -> u32 {
        address(self.batch.meta.as_ptr().cast())
    }

    /// The address in wasm memory of the output bytes of the last call.
    pub fn data_ptr(&self) -> u32 {
        address(self.batch.data.as_ptr())
    }

    /// The number of output bytes of the last call.
    pub fn data_len(&self) -> u32 {
        u32::try_from(self.batch.data.len()).unwrap_or(u32::MAX)
    }

    /// The consumed offsets as `{"stdout":…,"stderr":…}`, or an error object.
    pub fn cursor_json(&self) -> String {
        let mut out = String::new();
        match json::push_cursor(&mut out, self.inner.cursor()) {
            Ok(()) => out,
            Err(e) => format!("{{\"error\":{}}}", e.to_json()),
        }
    }

    /// The resume state in its JSON form (exact, language-neutral).
    pub fn resume_state_json(&self) -> String {
        self.inner.resume_state().to_json()
    }

    /// The resume state with the JavaScript (camelCase) keys, or
    /// `{"error":{…}}` when an integer is beyond `Number.MAX_SAFE_INTEGER`.
    pub fn resume_state_js(&self) -> String {
        match json::resume_state(&self.inner.resume_state()) {
            Ok(s) => s,
            Err(e) => format!("{{\"error\":{}}}", e.to_json()),
        }
    }

    /// The process id, once known.
    pub fn proc_id(&self) -> Option<String> {
        self.inner.proc_id().map(str::to_owned)
    }

    /// The deadline for the next byte, in milliseconds on the caller's clock.
    pub fn poll_timeout_ms(&self) -> Option<f64> {
        self.inner
            .poll_timeout()
            .map(|d| d.as_nanos() as f64 / 1_000_000.0)
    }

    /// Tells the reader the time (ms on the caller's monotonic clock); true
    /// when the stream stalled. Returns an error-object JSON string for a bad time.
    pub fn handle_timeout(&mut self, now_ms: f64) -> Result<bool, String> {
        let now = Duration::try_from_secs_f64(now_ms / 1000.0)
            .map_err(|_| range_error("nowMs must be a finite number >= 0".to_owned()))?;
        Ok(self.inner.handle_timeout(now))
    }

    /// `"new"`, `"open"`, `"done"` or `"failed"`.
    pub fn state(&self) -> String {
        if self.failed.is_some() {
            return "failed".to_owned();
        }
        match self.inner.state() {
            ReaderState::New => "new",
            ReaderState::Open => "open",
            ReaderState::Done => "done",
            ReaderState::Failed => "failed",
        }
        .to_owned()
    }
}

impl WasmReader {
    fn wrap(inner: Reader) -> Self {
        WasmReader {
            inner,
            failed: None,
            batch: Batch::default(),
            side: None,
        }
    }

    /// The result of a `feed`/`feed_into` (see [`WasmReader::feed`]).
    fn after_feed(&mut self, result: Result<(), dory_wire::Error>) -> f64 {
        let error = match (self.batch.error.take(), result) {
            (Some(e), _) => Some(self.fail(&e)),
            (None, Err(e)) => Some(json::write_error(&e)),
            (None, Ok(())) => None,
        };
        let records = self.batch.records();
        if error.is_none() && self.batch.other.is_empty() {
            return records * RECORDS;
        }
        self.side = Some(format!(
            "{{\"events\":[{}],\"error\":{}}}",
            self.batch.other,
            error.as_deref().unwrap_or("null")
        ));
        records * RECORDS + FLAG_SIDE
    }

    /// Makes an out-of-range integer the reader's sticky error.
    fn fail(&mut self, e: &OutOfRange) -> String {
        let json = e.to_json();
        self.failed = Some(json.clone());
        json
    }
}
