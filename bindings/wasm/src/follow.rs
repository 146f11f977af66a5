//! `WasmFollower`: the core [`Follower`] behind the JavaScript `Follower`;
//! `WasmFollowOptions`, its options; and the request builders behind the
//! JavaScript `Request` namespace.
//!
//! Every decision (which request, what an answer means, when to reconnect
//! and after how long, when to give up) is the core's. This module converts
//! JavaScript numbers and strings into the core's types — a value that has
//! no such conversion is the core's `invalid_argument` error, naming the
//! JavaScript argument — and the core's requests and decisions into the JSON
//! the JavaScript layer turns into plain objects. Events cross exactly as a
//! reader's do (see [`crate::reader`]): numeric records read in wasm memory,
//! and a side document for the rest.

use std::fmt::Write as _;
use std::time::Duration;

use dory_wire::{
    Command, Cursor, Decision, Error, FollowOptions, Follower, GapPolicy, Request, ResumeState,
};
use wasm_bindgen::prelude::*;

use crate::json::{self, OutOfRange};
use crate::reader::{address, Batch, IntoTranscript, FLAG_SIDE, MAX_FRAME_BYTES_LIMIT, RECORDS};
use crate::transcript::WasmTranscript;

/// The core's `invalid_argument` error for a JavaScript argument.
pub(crate) fn invalid(name: &str, reason: String) -> Error {
    Error::InvalidArgument {
        argument: name.to_owned(),
        reason,
    }
}

/// The error-object JSON of an `invalid_argument` error (what the JavaScript
/// layer turns into an `InvalidArgument`).
fn invalid_json(name: &str, reason: String) -> String {
    json::write_error(&invalid(name, reason))
}

/// A JavaScript number as a byte offset: a safe integer `>= 0`.
fn offset_arg(name: &str, value: f64) -> Result<u64, String> {
    if (0.0..=json::MAX_SAFE_INTEGER as f64).contains(&value) && value.fract() == 0.0 {
        Ok(value as u64)
    } else {
        Err(invalid_json(
            name,
            format!(
                "must be an integer from 0 to {} (a byte offset), not {value}",
                json::MAX_SAFE_INTEGER
            ),
        ))
    }
}

/// A number of milliseconds as a [`Duration`]: finite and `>= 0`.
pub(crate) fn millis(name: &str, ms: f64) -> Result<Duration, Error> {
    if ms.is_nan() || ms < 0.0 {
        return Err(invalid(
            name,
            format!("must be a number of milliseconds >= 0, not {ms}"),
        ));
    }
    Duration::try_from_secs_f64(ms / 1000.0).map_err(|_| {
        invalid(
            name,
            format!("must be a finite number of milliseconds >= 0, not {ms}"),
        )
    })
}

/// A duration in milliseconds, as a JSON number (exact to the nanosecond
/// where an `f64` can be).
pub(crate) fn push_millis(out: &mut String, d: Duration) {
    let _ = write!(out, "{}", d.as_nanos() as f64 / 1_000_000.0);
}

/// The command of a start or an exec, from its JSON text: a string is a
/// shell line, an array of strings an argv (the JavaScript layer has
/// checked the types; anything else is `invalid_argument`).
fn command(command_json: &str) -> Result<Command, String> {
    let bad = || {
        invalid_json(
            "command",
            "must be a string (a shell line) or an array of strings (an argv)".to_owned(),
        )
    };
    match serde_json::from_str::<serde_json::Value>(command_json).map_err(|_| bad())? {
        serde_json::Value::String(line) => Ok(Command::shell(line)),
        serde_json::Value::Array(items) => {
            let mut argv = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    serde_json::Value::String(s) => argv.push(s),
                    _ => return Err(bad()),
                }
            }
            Ok(Command::argv(argv))
        }
        _ => Err(bad()),
    }
}

/// A request as the JSON document the JavaScript layer freezes into a plain
/// object: `{method, path, query: [[name, value]…], headers: {Name: value},
/// body: text|null, wait, idempotent, target}`. The body is JSON, so its
/// bytes are UTF-8 text.
pub(crate) fn request_json(request: &Request) -> String {
    let query: Vec<serde_json::Value> = request
        .query
        .iter()
        .map(|(name, value)| serde_json::json!([name, value]))
        .collect();
    let headers: serde_json::Map<String, serde_json::Value> = request
        .headers
        .iter()
        .map(|(name, value)| ((*name).to_owned(), serde_json::Value::from(value.as_str())))
        .collect();
    let body = request
        .body
        .as_deref()
        .map(|b| String::from_utf8_lossy(b).into_owned());
    serde_json::json!({
        "method": request.method.as_str(),
        "path": request.path,
        "query": query,
        "headers": headers,
        "body": body,
        "wait": request.wait.as_str(),
        "idempotent": request.idempotent,
        "target": request.target(),
    })
    .to_string()
}

/// A built request, or the error-object JSON of the builder's error.
fn built(request: Result<Request, Error>) -> Result<String, String> {
    request
        .map(|r| request_json(&r))
        .map_err(|e| json::write_error(&e))
}

/// Appends a decision object: `{"type":"done",…}`, `{"type":"reconnect",…}`
/// or `{"type":"continue"}` (the keys of the JavaScript objects).
fn push_decision(out: &mut String, decision: &Decision) -> Result<(), OutOfRange> {
    let mark = out.len();
    let result = (|| {
        match decision {
            Decision::Done(done) => {
                out.push_str("{\"type\":\"done\",\"exited\":");
                out.push_str(if done.exited { "true" } else { "false" });
                out.push_str(",\"exitCode\":");
                json::push_opt_i64(out, "exit_code", done.exit_code)?;
                out.push_str(",\"timedOut\":");
                out.push_str(if done.timed_out { "true" } else { "false" });
                out.push_str(",\"cursor\":");
                json::push_cursor(out, done.cursor)?;
                out.push_str(",\"procId\":");
                push_opt_str(out, done.proc_id.as_deref());
            }
            Decision::Reconnect(r) => {
                let _ = write!(
                    out,
                    "{{\"type\":\"reconnect\",\"attempt\":{},\"failures\":{},\"reason\":",
                    r.attempt, r.failures
                );
                json::push_str(out, r.reason.as_str());
                out.push_str(",\"cursor\":");
                json::push_cursor(out, r.cursor)?;
                out.push_str(",\"delayMs\":");
                push_millis(out, r.delay);
                out.push_str(",\"procId\":");
                push_opt_str(out, r.proc_id.as_deref());
                out.push_str(",\"detail\":");
                json::push_str(out, &r.detail);
            }
            Decision::Continue => out.push_str("{\"type\":\"continue\""),
        }
        out.push('}');
        Ok(())
    })();
    if result.is_err() {
        out.truncate(mark);
    }
    result
}

fn push_opt_str(out: &mut String, v: Option<&str>) {
    match v {
        Some(s) => json::push_str(out, s),
        None => out.push_str("null"),
    }
}

/// The options of a follower in their JavaScript names and units (`{follow,
/// gapPolicy, retries, backoffMs, maxBackoffMs, jitter, livenessTimeoutMs,
/// maxFrameBytes, strict}`): with [`FollowOptions::default`], the defaults
/// the JavaScript layer exposes (and whose keys and value types are the
/// options it accepts).
pub(crate) fn options_json(o: &FollowOptions) -> String {
    let mut out = String::with_capacity(256);
    let _ = write!(
        out,
        "{{\"follow\":{},\"gapPolicy\":",
        if o.follow { "true" } else { "false" }
    );
    json::push_str(&mut out, o.gap_policy.as_str());
    let _ = write!(out, ",\"retries\":{},\"backoffMs\":", o.retries);
    push_millis(&mut out, o.backoff);
    out.push_str(",\"maxBackoffMs\":");
    push_millis(&mut out, o.max_backoff);
    let _ = write!(
        out,
        ",\"jitter\":{},\"livenessTimeoutMs\":",
        if o.jitter { "true" } else { "false" }
    );
    push_millis(&mut out, o.liveness_timeout);
    let _ = write!(
        out,
        ",\"maxFrameBytes\":{},\"strict\":{}}}",
        o.max_frame_bytes,
        if o.strict { "true" } else { "false" }
    );
    out
}

/// The options of a follower being built: the core's defaults, then each
/// option the caller gave, converted (the JavaScript layer has checked
/// names and types: booleans go to `set_bool`, numbers to `set_number`,
/// strings to `set_string`). A value with no conversion is
/// `invalid_argument`, naming the option.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct WasmFollowOptions {
    inner: FollowOptions,
}

#[wasm_bindgen]
impl WasmFollowOptions {
    /// The core's defaults.
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmFollowOptions {
        WasmFollowOptions::default()
    }

    /// Sets a boolean option (`follow`, `jitter`, `strict`). Returns an
    /// empty string, or an error-object JSON string.
    pub fn set_bool(&mut self, name: &str, value: bool) -> String {
        let o = self.inner.clone();
        self.inner = match name {
            "follow" => o.follow(value),
            "jitter" => o.jitter(value),
            "strict" => o.strict(value),
            _ => return invalid_json(name, "is not a boolean option".to_owned()),
        };
        String::new()
    }

    /// Sets a number option (`retries`, `backoffMs`, `maxBackoffMs`,
    /// `livenessTimeoutMs`, `maxFrameBytes`). Returns an empty string, or an
    /// error-object JSON string.
    pub fn set_number(&mut self, name: &str, value: f64) -> String {
        match self.number(name, value) {
            Ok(()) => String::new(),
            Err(e) => json::write_error(&e),
        }
    }

    /// Sets a string option (`gapPolicy`). Returns an empty string, or an
    /// error-object JSON string.
    pub fn set_string(&mut self, name: &str, value: &str) -> String {
        if name != "gapPolicy" {
            return invalid_json(name, "is not a string option".to_owned());
        }
        match GapPolicy::from_name(value) {
            Some(policy) => {
                self.inner = self.inner.clone().gap_policy(policy);
                String::new()
            }
            None => invalid_json(name, format!("must be \"fail\" or \"skip\", not {value:?}")),
        }
    }

    /// The options as they stand, in their JavaScript names and units.
    pub fn to_json(&self) -> String {
        options_json(&self.inner)
    }
}

impl WasmFollowOptions {
    /// The core's options as they stand (a `Run` takes them as they are).
    pub(crate) fn options(&self) -> &FollowOptions {
        &self.inner
    }

    fn number(&mut self, name: &str, value: f64) -> Result<(), Error> {
        let o = self.inner.clone();
        self.inner = match name {
            "retries" => {
                let max = f64::from(u32::MAX);
                if !((0.0..=max).contains(&value) && value.fract() == 0.0) {
                    return Err(invalid(
                        name,
                        format!("must be an integer from 0 to {max}, not {value}"),
                    ));
                }
                o.retries(value as u32)
            }
            "backoffMs" => o.backoff(millis(name, value)?),
            "maxBackoffMs" => o.max_backoff(millis(name, value)?),
            "livenessTimeoutMs" => o.liveness_timeout(millis(name, value)?),
            "maxFrameBytes" => {
                if !((1.0..=MAX_FRAME_BYTES_LIMIT).contains(&value) && value.fract() == 0.0) {
                    return Err(invalid(
                        name,
                        format!(
                            "must be an integer from 1 to {MAX_FRAME_BYTES_LIMIT}, not {value}"
                        ),
                    ));
                }
                o.max_frame_bytes(value as usize)
            }
            _ => return Err(invalid(name, "is not a number option".to_owned())),
        };
        Ok(())
    }
}

/// A [`Follower`] plus the binding's own sticky error (an integer that a
/// JavaScript number cannot hold exactly), and the batch of the last call.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmFollower {
    inner: Follower,
    /// Set once an event or decision could not be converted; every later
    /// call returns it.
    failed: Option<String>,
    /// The events of the last `feed`/`finish`.
    batch: Batch,
    /// The side JSON of the last call, when it has one.
    side: Option<String>,
}

impl WasmFollower {
    fn call(
        request: Result<Request, dory_wire::Error>,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        request
            .and_then(|request| Follower::call(request, options.inner))
            .map(WasmFollower::wrap)
            .map_err(|e| json::write_error(&e))
    }
}

#[wasm_bindgen]
impl WasmFollower {
    /// Follows the output of process `proc_id` from the cursor. Throws an
    /// error-object JSON string.
    pub fn process_output(
        computer_id: &str,
        proc_id: &str,
        cursor_stdout: f64,
        cursor_stderr: f64,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let cursor = Cursor::new(
            offset_arg("cursor.stdout", cursor_stdout)?,
            offset_arg("cursor.stderr", cursor_stderr)?,
        );
        Follower::process_output(computer_id, proc_id, cursor, options.inner)
            .map(WasmFollower::wrap)
            .map_err(|e| json::write_error(&e))
    }

    /// Follows a process's output from a resume state in its JSON form.
    /// Throws an error-object JSON string.
    pub fn resume(
        computer_id: &str,
        state_json: &str,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let state = ResumeState::from_json(state_json).map_err(|e| json::write_error(&e))?;
        Follower::resume(computer_id, &state, options.inner)
            .map(WasmFollower::wrap)
            .map_err(|e| json::write_error(&e))
    }

    /// Follows the setup logs from `offset`. Throws an error-object JSON string.
    pub fn setup_logs(
        computer_id: &str,
        offset: f64,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let offset = offset_arg("offset", offset)?;
        Follower::setup_logs(computer_id, offset, options.inner)
            .map(WasmFollower::wrap)
            .map_err(|e| json::write_error(&e))
    }

    /// Runs a command as an exec stream, followed to its exit. Throws an
    /// error-object JSON string.
    pub fn exec_stream(
        computer_id: &str,
        command_json: &str,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let command = command(command_json)?;
        Follower::exec_stream(
            computer_id,
            &command,
            timeout_seconds,
            idempotency_key.as_deref(),
            options.inner,
        )
        .map(WasmFollower::wrap)
        .map_err(|e| json::write_error(&e))
    }

    /// A one-answer call of [`Request::start`] (see [`Follower::call`]).
    /// Throws an error-object JSON string.
    pub fn call_start(
        computer_id: &str,
        command_json: &str,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let command = command(command_json)?;
        Self::call(
            Request::start(
                computer_id,
                &command,
                timeout_seconds,
                idempotency_key.as_deref(),
            ),
            options,
        )
    }

    /// A one-answer call of a synchronous [`Request::exec`]. Throws an
    /// error-object JSON string.
    pub fn call_exec(
        computer_id: &str,
        command_json: &str,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let command = command(command_json)?;
        Self::call(
            Request::exec(
                computer_id,
                &command,
                timeout_seconds,
                idempotency_key.as_deref(),
                false,
            ),
            options,
        )
    }

    /// A one-answer call of [`Request::get_process`]. Throws an
    /// error-object JSON string.
    pub fn call_get_process(
        computer_id: &str,
        proc_id: &str,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        Self::call(Request::get_process(computer_id, proc_id), options)
    }

    /// A one-answer call of [`Request::kill`]. Throws an error-object JSON
    /// string.
    pub fn call_kill(
        computer_id: &str,
        proc_id: &str,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        Self::call(Request::kill(computer_id, proc_id), options)
    }

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

    /// The next request, as the JSON of [`request_json`]. Throws an
    /// error-object JSON string.
    pub fn request(&mut self) -> Result<String, String> {
        if let Some(failed) = &self.failed {
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
        if let Some(failed) = &self.failed {
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
        self.batch.clear();
        if let Some(failed) = &self.failed {
            self.side = Some(format!("{{\"events\":[],\"error\":{failed}}}"));
            return FLAG_SIDE;
        }
        let result = self.inner.feed(chunk, &mut self.batch);
        self.after_feed(result)
    }

    /// Feeds body bytes with the output going into `transcript` (see
    /// `WasmReader::feed_into`).
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

    /// Ends the body: cleanly (`transport_error` undefined) or broken.
    /// Returns `records * 2 + 1`; the side JSON is
    /// `{"events":[…],"decision":null|{…},"error":null|{…}}`.
    pub fn finish(&mut self, transport_error: Option<String>, jitter: f64) -> f64 {
        self.batch.clear();
        if let Some(failed) = &self.failed {
            self.side = Some(format!(
                "{{\"events\":[],\"decision\":null,\"error\":{failed}}}"
            ));
            return FLAG_SIDE;
        }
        let result = self
            .inner
            .finish(transport_error.as_deref(), jitter, &mut self.batch);
        let (decision, error) = match (self.batch.error.take(), result) {
            (Some(e), _) => ("null".to_owned(), self.fail(&e)),
            (None, Err(e)) => ("null".to_owned(), json::write_error(&e)),
            (None, Ok(decision)) => {
                let mut s = String::new();
                match push_decision(&mut s, &decision) {
                    Ok(()) => (s, "null".to_owned()),
                    Err(e) => ("null".to_owned(), self.fail(&e)),
                }
            }
        };
        self.side = Some(format!(
            "{{\"events\":[{}],\"decision\":{decision},\"error\":{error}}}",
            self.batch.other
        ));
        self.batch.records() * RECORDS + FLAG_SIDE
    }

    /// No response came. Returns the decision's JSON; throws an
    /// error-object JSON string.
    pub fn no_response(&mut self, detail: &str, jitter: f64) -> Result<String, String> {
        if let Some(failed) = &self.failed {
            return Err(failed.clone());
        }
        let decision = self
            .inner
            .no_response(detail, jitter)
            .map_err(|e| json::write_error(&e))?;
        let mut out = String::new();
        match push_decision(&mut out, &decision) {
            Ok(()) => Ok(out),
            Err(e) => Err(self.fail(&e)),
        }
    }

    /// The side JSON of the last `feed`/`finish`.
    pub fn take_side(&mut self) -> String {
        self.side.take().unwrap_or_default()
    }

    /// The address in wasm memory of the event records of the last call.
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

    /// The deadline for the headers or the next complete frame, in ms on the
    /// caller's clock.
    pub fn poll_timeout_ms(&self) -> Option<f64> {
        self.inner
            .poll_timeout()
            .map(|d| d.as_nanos() as f64 / 1_000_000.0)
    }

    /// Tells the follower the time (ms on the caller's monotonic clock);
    /// true when the wait is over. Throws an error-object JSON string
    /// (`invalid_argument`) for a time that is not a number of ms `>= 0`.
    pub fn handle_timeout(&mut self, now_ms: f64) -> Result<bool, String> {
        let now = millis("nowMs", now_ms).map_err(|e| json::write_error(&e))?;
        Ok(self.inner.handle_timeout(now))
    }

    /// `"ready"`, `"sent"`, `"body"`, `"done"` or `"failed"`.
    pub fn state(&self) -> String {
        if self.failed.is_some() {
            return "failed".to_owned();
        }
        self.inner.state().as_str().to_owned()
    }
}

impl WasmFollower {
    fn wrap(inner: Follower) -> Self {
        WasmFollower {
            inner,
            failed: None,
            batch: Batch::default(),
            side: None,
        }
    }

    /// The result of a `feed`/`feed_into` (as `WasmReader`'s).
    fn after_feed(&mut self, result: Result<(), Error>) -> f64 {
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

    /// Makes an out-of-range integer the follower's sticky error.
    fn fail(&mut self, e: &OutOfRange) -> String {
        let json = e.to_json();
        self.failed = Some(json.clone());
        json
    }
}

/// `POST /computers/{id}/processes` (see [`Request::start`]). Throws an
/// error-object JSON string.
#[wasm_bindgen]
pub fn request_start(
    computer_id: &str,
    command_json: &str,
    timeout_seconds: Option<f64>,
    idempotency_key: Option<String>,
) -> Result<String, String> {
    let command = command(command_json)?;
    built(Request::start(
        computer_id,
        &command,
        timeout_seconds,
        idempotency_key.as_deref(),
    ))
}

/// `POST /computers/{id}/exec` (see [`Request::exec`]). Throws an
/// error-object JSON string.
#[wasm_bindgen]
pub fn request_exec(
    computer_id: &str,
    command_json: &str,
    timeout_seconds: Option<f64>,
    idempotency_key: Option<String>,
    stream: bool,
) -> Result<String, String> {
    let command = command(command_json)?;
    built(Request::exec(
        computer_id,
        &command,
        timeout_seconds,
        idempotency_key.as_deref(),
        stream,
    ))
}

/// `GET /computers/{id}/processes/{proc_id}`. Throws an error-object JSON string.
#[wasm_bindgen]
pub fn request_get_process(computer_id: &str, proc_id: &str) -> Result<String, String> {
    built(Request::get_process(computer_id, proc_id))
}

/// `POST /computers/{id}/processes/{proc_id}/kill`. Throws an error-object JSON string.
#[wasm_bindgen]
pub fn request_kill(computer_id: &str, proc_id: &str) -> Result<String, String> {
    built(Request::kill(computer_id, proc_id))
}

/// `GET /computers/{id}/processes/{proc_id}/output` from the cursor. Throws
/// an error-object JSON string.
#[wasm_bindgen]
pub fn request_output(
    computer_id: &str,
    proc_id: &str,
    cursor_stdout: f64,
    cursor_stderr: f64,
    follow: bool,
) -> Result<String, String> {
    let cursor = Cursor::new(
        offset_arg("cursor.stdout", cursor_stdout)?,
        offset_arg("cursor.stderr", cursor_stderr)?,
    );
    built(Request::output(computer_id, proc_id, cursor, follow))
}

/// `GET /computers/{id}/setup/logs` from `offset`. Throws an error-object
/// JSON string.
#[wasm_bindgen]
pub fn request_setup_logs(computer_id: &str, offset: f64, follow: bool) -> Result<String, String> {
    let offset = offset_arg("offset", offset)?;
    built(Request::setup_logs(computer_id, offset, follow))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn the_defaults_are_the_cores_in_javascript_names_and_units() {
        let d = value(&options_json(&FollowOptions::default()));
        assert_eq!(
            d,
            serde_json::json!({"follow": true, "gapPolicy": "fail", "retries": 5, "backoffMs": 250,
                "maxBackoffMs": 5000, "jitter": true, "livenessTimeoutMs": 30000,
                "maxFrameBytes": dory_wire::DEFAULT_MAX_FRAME_BYTES, "strict": false})
        );
    }

    #[test]
    fn options_convert_or_are_invalid_argument_naming_the_option() {
        let mut o = WasmFollowOptions::new();
        assert_eq!(o.set_number("backoffMs", 12.5), "");
        assert_eq!(o.set_number("retries", 0.0), "");
        assert_eq!(o.set_string("gapPolicy", "skip"), "");
        assert_eq!(o.set_bool("jitter", false), "");
        let v = value(&o.to_json());
        assert_eq!(
            (
                &v["backoffMs"],
                &v["retries"],
                &v["gapPolicy"],
                &v["jitter"]
            ),
            (
                &serde_json::json!(12.5),
                &serde_json::json!(0),
                &serde_json::json!("skip"),
                &serde_json::json!(false)
            )
        );
        for (name, bad) in [
            ("retries", -1.0),
            ("retries", 1.5),
            ("backoffMs", f64::NAN),
            ("maxBackoffMs", f64::INFINITY),
            ("livenessTimeoutMs", -1.0),
            ("maxFrameBytes", 0.0),
            ("maxFrameBytes", 2f64.powi(31)),
        ] {
            let e = value(&o.set_number(name, bad));
            assert_eq!(e["code"], "invalid_argument", "{name} {bad}");
            assert_eq!(e["argument"], name);
        }
        let e = value(&o.set_string("gapPolicy", "ignore"));
        assert_eq!(
            (&e["code"], &e["argument"]),
            (
                &serde_json::json!("invalid_argument"),
                &serde_json::json!("gapPolicy")
            )
        );
        // A refused value leaves the options as they were.
        assert_eq!(value(&o.to_json())["retries"], 0);
    }

    #[test]
    fn requests_cross_as_json_with_the_cores_values() {
        let r = value(&request_output("c 1", "p", 5.0, 0.0, true).unwrap());
        assert_eq!(r["method"], "GET");
        assert_eq!(r["path"], "/computers/c%201/processes/p/output");
        assert_eq!(
            r["target"],
            "/computers/c%201/processes/p/output?stdout_offset=5&stderr_offset=0&follow=true"
        );
        assert_eq!(
            r["query"],
            serde_json::json!([
                ["stdout_offset", "5"],
                ["stderr_offset", "0"],
                ["follow", "true"]
            ])
        );
        assert_eq!(
            r["headers"],
            serde_json::json!({"Accept": "application/x-ndjson"})
        );
        assert_eq!(
            (&r["body"], &r["wait"], &r["idempotent"]),
            (
                &serde_json::Value::Null,
                &serde_json::json!("stream"),
                &serde_json::json!(true)
            )
        );
        let s =
            value(&request_start("c", "[\"echo\",\"hi\"]", Some(30.0), Some("k".into())).unwrap());
        // The body is the core's JSON text (compared as JSON numbers: how a
        // float is written is serde_json's choice).
        let body = value(s["body"].as_str().unwrap());
        assert_eq!(body["command"], serde_json::json!(["echo", "hi"]));
        assert_eq!(body["timeout_seconds"].as_f64(), Some(30.0));
        assert_eq!(s["headers"]["Idempotency-Key"], "k");
        let e = value(&request_start("", "\"true\"", None, None).unwrap_err());
        assert_eq!(
            (&e["code"], &e["argument"]),
            (
                &serde_json::json!("invalid_argument"),
                &serde_json::json!("computer_id")
            )
        );
        let e = value(&request_setup_logs("c", -1.0, true).unwrap_err());
        assert_eq!(e["argument"], "offset");
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
