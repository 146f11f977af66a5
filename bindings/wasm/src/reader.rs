//! `WasmReader`: the core [`Reader`] behind the JavaScript `OutputReader`.

use std::time::Duration;

use dory_wire::{
    Cursor, Endpoint, Event, GapPolicy, Reader, ReaderOptions, ReaderState, ResumeState,
};
use wasm_bindgen::prelude::*;

use crate::json::{self, OutOfRange};

/// The largest `maxFrameBytes` accepted: 1 GiB. Larger limits would let one
/// line exhaust the 4 GiB address space of a wasm32 module.
pub(crate) const MAX_FRAME_BYTES_LIMIT: f64 = (1u64 << 30) as f64;

/// A [`Reader`] plus the binding's own sticky error (an integer that a
/// JavaScript number cannot hold exactly), and the output bytes of the last call.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmReader {
    inner: Reader,
    /// Set once an event could not be converted; every later call returns it.
    failed: Option<String>,
    /// Output bytes of the events of the last `feed`/`finish`, in event order.
    data: Vec<u8>,
}

/// Receives the reader's events and writes them straight into the batch that
/// crosses the boundary: one compact JSON record per event, and the output
/// bytes appended to one data buffer (no allocation per event).
struct Batch<'a> {
    out: &'a mut String,
    data: &'a mut Vec<u8>,
    first: bool,
    /// An integer a JavaScript number cannot hold: conversion stops there
    /// (the events before it are kept).
    error: Option<OutOfRange>,
}

impl Batch<'_> {
    fn record(&mut self, write: impl FnOnce(&mut String) -> Result<(), OutOfRange>) -> bool {
        if self.error.is_some() {
            return false;
        }
        let mark = self.out.len();
        if !self.first {
            self.out.push(',');
        }
        match write(self.out) {
            Ok(()) => {
                self.first = false;
                true
            }
            Err(e) => {
                self.out.truncate(mark);
                self.error = Some(e);
                false
            }
        }
    }
}

impl dory_wire::Sink for Batch<'_> {
    fn output(
        &mut self,
        stream: dory_wire::Stream,
        bytes: std::borrow::Cow<'_, [u8]>,
        start: u64,
        end: u64,
    ) {
        if self.record(|out| json::push_output(out, stream, start, end)) {
            self.data.extend_from_slice(&bytes);
        }
    }

    fn event(&mut self, event: Event) {
        // `push_event` appends the event's bytes (a result document's) to the
        // data buffer only when its record was written.
        let mut bytes = Vec::new();
        if self.record(|out| json::push_event(out, &mut bytes, &event)) {
            self.data.extend_from_slice(&bytes);
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
    pub fn open(&mut self, status: u16, content_type: &str, process_id: Option<String>) -> String {
        if let Some(failed) = &self.failed {
            return failed.clone();
        }
        match self.inner.open(status, content_type, process_id.as_deref()) {
            Ok(()) => String::new(),
            Err(e) => json::write_error(&e),
        }
    }

    /// Feeds body bytes. Returns `{"events":[…],"error":null|{…}}`; the bytes
    /// of the events are then taken with [`WasmReader::take_data`].
    pub fn feed(&mut self, chunk: &[u8]) -> String {
        if let Some(failed) = &self.failed {
            return format!("{{\"events\":[],\"error\":{failed}}}");
        }
        let mut out = String::with_capacity(64);
        out.push_str("{\"events\":[");
        self.data.clear();
        let mut batch = Batch {
            out: &mut out,
            data: &mut self.data,
            first: true,
            error: None,
        };
        let result = self.inner.feed(chunk, &mut batch);
        let converted = batch.error.take();
        out.push_str("],\"error\":");
        match (converted, result) {
            (Some(e), _) => out.push_str(&self.fail(&e)),
            (None, Err(e)) => out.push_str(&json::write_error(&e)),
            (None, Ok(())) => out.push_str("null"),
        }
        out.push('}');
        out
    }

    /// Ends the body. Returns `{"events":[…],"end":null|{…},"error":null|{…}}`.
    pub fn finish(&mut self) -> String {
        if let Some(failed) = &self.failed {
            return format!("{{\"events\":[],\"end\":null,\"error\":{failed}}}");
        }
        let mut out = String::with_capacity(64);
        out.push_str("{\"events\":[");
        self.data.clear();
        let mut batch = Batch {
            out: &mut out,
            data: &mut self.data,
            first: true,
            error: None,
        };
        let result = self.inner.finish(&mut batch);
        let converted = batch.error.take();
        out.push(']');
        let (end, error) = match (converted, result) {
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
        out.push_str(",\"end\":");
        out.push_str(&end);
        out.push_str(",\"error\":");
        out.push_str(&error);
        out.push('}');
        out
    }

    /// The bytes of the events returned by the last `feed`/`finish`, in order.
    pub fn take_data(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.data)
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

    /// The process id, once known.
    pub fn process_id(&self) -> Option<String> {
        self.inner.process_id().map(str::to_owned)
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
            data: Vec::new(),
        }
    }

    /// Makes an out-of-range integer the reader's sticky error.
    fn fail(&mut self, e: &OutOfRange) -> String {
        let json = e.to_json();
        self.failed = Some(json.clone());
        json
    }
}
