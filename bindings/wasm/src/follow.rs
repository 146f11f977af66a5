//! `WasmFollower`: the core [`Follower`] behind the JavaScript `Follower`;
//! [`conversations`], the conversations it is built for (the followed
//! reads and the one-answer calls); [`options`], its options
//! (`WasmFollowOptions`).
//!
//! Every decision (which request, what an answer means, when to reconnect
//! and after how long, when to give up) is the core's. This module converts
//! JavaScript numbers and strings into the core's types ([`crate::args`]:
//! a value that has no such conversion is the core's `invalid_argument`
//! error, naming the JavaScript argument) and the core's requests and
//! decisions into the JSON the JavaScript layer turns into plain objects
//! ([`crate::wire_json`]). Events cross exactly as a reader's do (see
//! [`crate::feed`]): numeric records read in wasm memory, and a side
//! document for the rest.

use dory_wire::Follower;
use wasm_bindgen::prelude::*;

use crate::args::millis;
use crate::feed::Feed;
use crate::json;
use crate::request::built;
use crate::transcript::WasmTranscript;
use crate::wire_json::{options_json, push_decision};

mod conversations;
mod options;

pub use options::WasmFollowOptions;

/// A [`Follower`] plus what its calls keep (see [`Feed`]): the binding's
/// own sticky error (an integer that a JavaScript number cannot hold
/// exactly), and the batch of the last call.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmFollower {
    inner: Follower,
    feed: Feed,
}

impl WasmFollower {
    fn wrap(inner: Follower) -> Self {
        WasmFollower {
            inner,
            feed: Feed::default(),
        }
    }
}

#[wasm_bindgen]
impl WasmFollower {
    /// The longest the next wait for the service may last, in ms (`None`:
    /// no limit); see [`Follower::wait_limit`].
    pub fn wait_limit_ms(&mut self) -> Option<f64> {
        self.inner
            .wait_limit()
            .map(|d| d.as_nanos() as f64 / 1_000_000.0)
    }

    /// One wait for the service took `elapsed_ms`; true when the liveness
    /// timeout is spent (see [`Follower::waited`]). Throws an error-object
    /// JSON string (`invalid_argument`) for a time that is not a number of
    /// ms `>= 0`.
    pub fn waited(&mut self, elapsed_ms: f64) -> Result<bool, String> {
        let elapsed = millis("elapsedMs", elapsed_ms).map_err(|e| json::write_error(&e))?;
        Ok(self.inner.waited(elapsed))
    }

    /// The next request, as the JSON of [`crate::wire_json::request_json`].
    /// Throws an error-object JSON string.
    pub fn request(&mut self) -> Result<String, String> {
        if let Some(failed) = self.feed.failed() {
            return Err(failed.clone());
        }
        built(self.inner.request())
    }

    /// The response's status and headers. Returns an empty string, or an
    /// error-object JSON string. A status that is not an HTTP status is
    /// `invalid_argument` and leaves the follower as it was.
    pub fn open(
        &mut self,
        status: f64,
        content_type: &str,
        proc_id: Option<String>,
        retry_after: Option<String>,
    ) -> String {
        if let Some(failed) = self.feed.failed() {
            return failed.clone();
        }
        let status = match dory_wire::http_status(status) {
            Ok(status) => status,
            Err(e) => return json::write_error(&e),
        };
        match self.inner.open(
            status,
            content_type,
            proc_id.as_deref(),
            retry_after.as_deref(),
        ) {
            Ok(()) => String::new(),
            Err(e) => json::write_error(&e),
        }
    }

    /// Feeds body bytes; returns `records * 2 + flags` like `WasmReader::feed`.
    pub fn feed(&mut self, chunk: &[u8]) -> f64 {
        let inner = &mut self.inner;
        self.feed.feed(|batch| inner.feed(chunk, batch))
    }

    /// Feeds body bytes with the output going into `transcript` (see
    /// `WasmReader::feed_into`).
    pub fn feed_into(&mut self, chunk: &[u8], transcript: &mut WasmTranscript) -> f64 {
        let inner = &mut self.inner;
        self.feed
            .feed_into(transcript.core_mut(), |sink| inner.feed(chunk, sink))
    }

    /// Ends the body: cleanly (`transport_error` undefined) or broken.
    /// Returns `records * 2 + 1`; the side JSON is
    /// `{"events":[…],"decision":null|{…},"error":null|{…}}`.
    pub fn finish(&mut self, transport_error: Option<String>, jitter: f64) -> f64 {
        let inner = &mut self.inner;
        self.feed.finish(
            "decision",
            |batch| inner.finish(transport_error.as_deref(), jitter, batch),
            push_decision,
        )
    }

    /// No response came. Returns the decision's JSON; throws an
    /// error-object JSON string.
    pub fn no_response(&mut self, detail: &str, jitter: f64) -> Result<String, String> {
        self.transport_failure(detail, jitter, false)
    }

    /// The connection was never made (refused, name lookup failed, connect
    /// timeout). Returns the decision's JSON; throws an error-object JSON
    /// string.
    pub fn not_connected(&mut self, detail: &str, jitter: f64) -> Result<String, String> {
        self.transport_failure(detail, jitter, true)
    }

    fn transport_failure(
        &mut self,
        detail: &str,
        jitter: f64,
        never_connected: bool,
    ) -> Result<String, String> {
        if let Some(failed) = self.feed.failed() {
            return Err(failed.clone());
        }
        let decided = if never_connected {
            self.inner.not_connected(detail, jitter)
        } else {
            self.inner.no_response(detail, jitter)
        };
        let decision = decided.map_err(|e| json::write_error(&e))?;
        let mut out = String::new();
        match push_decision(&mut out, &decision) {
            Ok(()) => Ok(out),
            Err(e) => Err(self.feed.fail(&e)),
        }
    }

    /// The side JSON of the last `feed`/`finish`.
    pub fn take_side(&mut self) -> String {
        self.feed.take_side()
    }

    /// The address in wasm memory of the event records of the last call.
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

    /// The process id, once known.
    pub fn proc_id(&self) -> Option<String> {
        self.inner.proc_id().map(str::to_owned)
    }

    /// Reconnects decided so far.
    pub fn attempts(&self) -> u32 {
        self.inner.attempts()
    }

    /// The follower's options, in their JavaScript names and units.
    pub fn options_json(&self) -> String {
        options_json(self.inner.options())
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

    /// `"ready"`, `"sent"`, `"body"`, `"done"` or `"failed"`.
    pub fn state(&self) -> String {
        if self.feed.failed().is_some() {
            return "failed".to_owned();
        }
        self.inner.state().as_str().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn decisions_and_errors_of_a_conversation() {
        let mut f =
            WasmFollower::process_output("c", "p", 0.0, 0.0, WasmFollowOptions::new()).unwrap();
        let e = value(&f.open(200.0, "application/x-ndjson", None, None));
        assert_eq!(e["code"], "invalid_state");
        assert_eq!(f.state(), "failed");
        let mut options = WasmFollowOptions::new();
        options.set_bool("jitter", false);
        let mut f = WasmFollower::process_output("c", "p", 0.0, 0.0, options).unwrap();
        value(&f.request().unwrap());
        assert_eq!(
            value(&f.open(70000.0, "", None, None))["argument"],
            "status"
        );
        assert_eq!(f.state(), "sent", "a bad status changes nothing");
        let d = value(&f.no_response("connection refused", 0.0).unwrap());
        assert_eq!(
            d,
            serde_json::json!({"type": "reconnect", "attempt": 1, "failures": 1, "reason": "no_response",
                "cursor": {"stdout": 0, "stderr": 0}, "delayMs": 250, "procId": "p", "detail": "connection refused"})
        );
        value(&f.request().unwrap());
        assert_eq!(
            f.open(200.0, "application/x-ndjson", Some("p".into()), None),
            ""
        );
        f.feed(b"{\"type\":\"exit\",\"exit_code\":3,\"timed_out\":false}\n");
        f.finish(None, 0.0);
        let side = value(&f.take_side());
        assert_eq!(
            side["decision"],
            serde_json::json!({"type": "done", "exited": true, "exitCode": 3, "timedOut": false,
                "cursor": {"stdout": 0, "stderr": 0}, "procId": "p"})
        );
    }
}
