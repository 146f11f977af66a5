//! `WasmReader`: the core [`Reader`] behind the JavaScript `Reader`. Its
//! events cross as [`crate::feed`] writes them.

use std::time::Duration;

use dory_wire::{Cursor, Endpoint, GapPolicy, Reader, ReaderOptions, ReaderState, ResumeState};
use wasm_bindgen::prelude::*;

use crate::feed::Feed;
use crate::json;
use crate::transcript::WasmTranscript;

/// The largest `maxFrameBytes` accepted: 1 GiB. Larger limits would let one
/// line exhaust the 4 GiB address space of a wasm32 module.
pub(crate) const MAX_FRAME_BYTES_LIMIT: f64 = (1u64 << 30) as f64;

/// A [`Reader`] plus what its calls keep (see [`Feed`]): the binding's own
/// sticky error (an integer that a JavaScript number cannot hold exactly),
/// and the batch of the last call.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmReader {
    inner: Reader,
    feed: Feed,
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
        if let Some(failed) = self.feed.failed() {
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
        let inner = &mut self.inner;
        self.feed.feed(|batch| inner.feed(chunk, batch))
    }

    /// Feeds body bytes like [`WasmReader::feed`], but output bytes go into
    /// `transcript` inside wasm memory: the records returned are those of
    /// the other events only (which are also pushed into the transcript).
    pub fn feed_into(&mut self, chunk: &[u8], transcript: &mut WasmTranscript) -> f64 {
        let inner = &mut self.inner;
        self.feed
            .feed_into(transcript.core_mut(), |sink| inner.feed(chunk, sink))
    }

    /// Ends the body. Returns `records * 2 + 1` like [`WasmReader::feed`];
    /// the side JSON is `{"events":[…],"end":null|{…},"error":null|{…}}`.
    pub fn finish(&mut self) -> f64 {
        let inner = &mut self.inner;
        self.feed
            .finish("end", |batch| inner.finish(batch), json::push_end)
    }

    /// The side JSON of the last `feed`/`finish` (see [`WasmReader::feed`]).
    pub fn take_side(&mut self) -> String {
        self.feed.take_side()
    }

    /// The address in wasm memory of the event records of the last call
    /// (valid until the next call on this reader).
    pub fn meta_ptr(&self) -> u32 {
        self.feed.meta_ptr()
    }

    /// The address in wasm memory of the output bytes of the last call.
    pub fn data_ptr(&self) -> u32 {
        self.feed.data_ptr()
    }

    /// The number of output bytes of the last call.
    pub fn data_len(&self) -> u32 {
        self.feed.data_len()
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
        if self.feed.failed().is_some() {
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
            feed: Feed::default(),
        }
    }
}
