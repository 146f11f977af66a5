//! `WasmRun`: the core's run machine ([`dory_wire::Run`]) behind the
//! JavaScript `Run`. Every decision — which request comes next, what each
//! answer means, when to wait and how long, what goes to which spill and to
//! the output hook, what a cancel sends, the result — is the core's; this
//! module converts arguments, actions, steps and the result, and maps
//! errors (as `bindings/python/src/run_machine.rs` does for Python).
//!
//! # Crossing the boundary
//!
//! The actions of one call (`feed`, `finish`, `cancel`) cross without
//! serialization, as a reader's events do: one record of
//! [`ACTION_F64S`] numbers per action — `(kind, tag, data start, data end,
//! text start, text end)` — in a `Vec<f64>` JavaScript reads in place, the
//! bytes of all of them in one buffer, and the hook's texts in one string
//! (`take_text`, offsets in UTF-16 code units). The core gives each new
//! chunk, in order, to the spill of its stream's view, to the combined
//! view's and to the output hook, the same slice each time: those actions
//! share one range of the buffer (so one `Uint8Array` in JavaScript), by
//! the rule of the Python binding's `Actions`. Views and streams are tags
//! (0 stdout, 1 stderr, 2 combined). Steps, the result and errors cross as
//! small JSON documents.

use std::fmt::Write as _;

use dory_wire::preview::{SpillError, SpillOutcome, View};
use dory_wire::{Command, Error, Reconnect, Run, RunAction, RunOptions, RunSink, RunStep};
use wasm_bindgen::prelude::*;

use crate::follow::{invalid, millis, push_millis, request_json, WasmFollowOptions};
use crate::json::{self, OutOfRange};
use crate::preview::{keep, limit, preview_json, token_limit};
use crate::reader::address;

/// Numbers per action record.
const ACTION_F64S: usize = 6;
/// Action kinds (the record's first number).
const KIND_OPEN_SPILL: f64 = 0.0;
const KIND_WRITE_SPILL: f64 = 1.0;
const KIND_OUTPUT: f64 = 2.0;
const KIND_COMMIT_SPILL: f64 = 3.0;
const KIND_DISCARD_SPILL: f64 = 4.0;
/// A data buffer larger than this is released after the call instead of
/// being kept for the next one.
const KEEP_DATA_CAPACITY: usize = 4 << 20;

fn err_json(e: &Error) -> String {
    json::write_error(e)
}

/// A view's tag (the JavaScript layer has checked the name).
fn view(tag: u8) -> View {
    match tag {
        0 => View::Stdout,
        1 => View::Stderr,
        _ => View::Combined,
    }
}

/// The command of a run, from its JSON text: a string is a shell line, an
/// array of strings an argv.
fn command(command_json: &str) -> Result<Command, Error> {
    let bad = || {
        invalid(
            "command",
            "must be a string (a shell line) or an array of strings (an argv)".to_owned(),
        )
    };
    match serde_json::from_str::<serde_json::Value>(command_json).map_err(|_| bad())? {
        serde_json::Value::String(line) => Ok(Command::shell(line)),
        serde_json::Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                serde_json::Value::String(s) => Ok(s),
                _ => Err(bad()),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Command::argv),
        _ => Err(bad()),
    }
}

/// The process's deadline in seconds for `timeout_ms`: exactly `ms / 1000`
/// (the core writes whole seconds as an integer, others as a decimal, as
/// in Rust and Python; the HTTP client rounds up to whole seconds before).
/// A value that is not a positive, finite number is the core's
/// `invalid_argument`, naming `timeoutMs`.
fn timeout_seconds(timeout_ms: Option<f64>) -> Result<Option<f64>, Error> {
    let Some(ms) = timeout_ms else {
        return Ok(None);
    };
    if !(ms.is_finite() && ms > 0.0) {
        return Err(invalid(
            "timeoutMs",
            format!("must be a positive number of milliseconds, not {ms}"),
        ));
    }
    Ok(Some(ms / 1000.0))
}

/// The core's argument names, as the JavaScript `Run` calls them.
fn js_argument(error: Error) -> Error {
    match error {
        Error::InvalidArgument { argument, reason } => {
            let name = match argument.as_str() {
                "computer_id" => "computerId",
                "idempotency_key" => "idempotencyKey",
                "timeout_seconds" => "timeoutMs",
                "answer_timeout" => "answerTimeoutMs",
                "liveness_timeout" => "livenessTimeoutMs",
                "backoff" => "backoffMs",
                "max_backoff" => "maxBackoffMs",
                "max_frame_bytes" => "maxFrameBytes",
                "gap_policy" => "gapPolicy",
                other => other,
            };
            Error::InvalidArgument {
                argument: name.to_owned(),
                reason,
            }
        }
        other => other,
    }
}

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
struct Actions {
    meta: Vec<f64>,
    data: Vec<u8>,
    text: String,
    /// The UTF-16 length of `text`.
    units: usize,
    last: Option<Last>,
}

impl Actions {
    fn clear(&mut self) {
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

/// Appends a reconnect record, as the follower's `reconnect` decision
/// crosses (the same keys: the reconnect hook gets the same object).
fn push_reconnect(out: &mut String, r: &Reconnect) -> Result<(), OutOfRange> {
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
    match r.proc_id.as_deref() {
        Some(id) => json::push_str(out, id),
        None => out.push_str("null"),
    }
    out.push_str(",\"detail\":");
    json::push_str(out, &r.detail);
    out.push('}');
    Ok(())
}

/// A step as its JSON object.
fn step_json(step: &RunStep) -> Result<String, OutOfRange> {
    Ok(match step {
        RunStep::Send => "{\"type\":\"send\"}".to_owned(),
        RunStep::Done => "{\"type\":\"done\"}".to_owned(),
        RunStep::Cancelled => "{\"type\":\"cancelled\"}".to_owned(),
        RunStep::Wait { delay, reconnect } => {
            let mut out = String::from("{\"type\":\"wait\",\"delayMs\":");
            push_millis(&mut out, *delay);
            out.push_str(",\"reconnect\":");
            match reconnect {
                Some(r) => push_reconnect(&mut out, r)?,
                None => out.push_str("null"),
            }
            out.push('}');
            out
        }
    })
}

/// The core's run machine, plus the binding's own sticky error (an integer
/// that a JavaScript number cannot hold exactly) and the actions of the
/// last call.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmRun {
    inner: Run,
    failed: Option<String>,
    actions: Actions,
}

#[wasm_bindgen]
impl WasmRun {
    /// A run of `command_json` on `computer_id`, checked whole before any
    /// request (see [`Run::new`]); `follow` holds the follow options,
    /// converted as a `Follower`'s. `keep_word` and `keep_patterns` are the
    /// `keep` option as a bounder's (see [`keep`]) when `keep_given`, else
    /// the run's default ([`RunOptions::keep`]: the default patterns);
    /// `terminal` none is the run's default (on). `max_tokens` and
    /// `tokenizer` are the token limit of each preview, read by the core's
    /// rule (see [`token_limit`]; neither: none). Throws an error-object
    /// JSON string.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        computer_id: &str,
        command_json: &str,
        random: &[u8],
        follow: WasmFollowOptions,
        max_lines: Option<f64>,
        max_bytes: Option<f64>,
        idempotency_key: Option<String>,
        timeout_ms: Option<f64>,
        hint: Option<String>,
        kill_on_cancel: bool,
        spill: bool,
        on_output: bool,
        answer_timeout_ms: Option<f64>,
        keep_given: bool,
        keep_word: Option<String>,
        keep_patterns: Option<Vec<String>>,
        terminal: Option<bool>,
        max_tokens: Option<f64>,
        tokenizer: Option<String>,
    ) -> Result<WasmRun, String> {
        let random = <[u8; 16]>::try_from(random).map_err(|_| {
            err_json(&invalid(
                "random",
                format!("must be 16 random bytes, not {}", random.len()),
            ))
        })?;
        let mut o = RunOptions::new()
            .follow(follow.options().clone())
            .kill_on_cancel(kill_on_cancel)
            .spill(spill)
            .on_output(on_output);
        if keep_given {
            o = o.keep(keep(keep_word, keep_patterns)?);
        }
        if let Some(terminal) = terminal {
            o = o.terminal(terminal);
        }
        if let Some(n) = max_lines {
            o = o.max_lines(limit(n, "maxLines")?);
        }
        if let Some(n) = max_bytes {
            o = o.max_bytes(limit(n, "maxBytes")?);
        }
        o.tokens = token_limit(max_tokens, tokenizer)?;
        o.idempotency_key = idempotency_key;
        o.timeout_seconds = timeout_seconds(timeout_ms).map_err(|e| err_json(&e))?;
        o.hint = hint;
        if let Some(ms) = answer_timeout_ms {
            // A zero timeout is the core's to refuse.
            o = o.answer_timeout(millis("answerTimeoutMs", ms).map_err(|e| err_json(&e))?);
        }
        let command = command(command_json).map_err(|e| err_json(&e))?;
        Run::new(computer_id, &command, o, random)
            .map(|inner| WasmRun {
                inner,
                failed: None,
                actions: Actions::default(),
            })
            .map_err(|e| err_json(&js_argument(e)))
    }

    /// The key the start is sent with (the caller's, or the fresh one).
    pub fn idempotency_key(&self) -> String {
        self.inner.idempotency_key().to_owned()
    }

    /// The process, once the start answered.
    pub fn proc_id(&self) -> Option<String> {
        self.inner.proc_id().map(str::to_owned)
    }

    /// `"starting"`, `"following"`, `"cancelling"`, `"done"`, `"finished"`,
    /// `"cancelled"` or `"failed"`.
    pub fn state(&self) -> String {
        if self.failed.is_some() {
            return "failed".to_owned();
        }
        self.inner.state().as_str().to_owned()
    }

    /// The name view `tag`'s spill is saved under.
    pub fn spill_id(&self, tag: u8) -> String {
        self.inner.spill_id(view(tag)).to_owned()
    }

    /// The consumed offsets as `{"stdout":…,"stderr":…}`, or an error object.
    pub fn cursor_json(&self) -> String {
        let mut out = String::new();
        match json::push_cursor(&mut out, self.inner.cursor()) {
            Ok(()) => out,
            Err(e) => format!("{{\"error\":{}}}", e.to_json()),
        }
    }

    /// The next request, as the JSON of a follower's. Throws an
    /// error-object JSON string.
    pub fn request(&mut self) -> Result<String, String> {
        if let Some(failed) = &self.failed {
            return Err(failed.clone());
        }
        self.inner
            .request()
            .map(|r| request_json(&r))
            .map_err(|e| err_json(&e))
    }

    /// The response's status and headers. Returns an empty string, or an
    /// error-object JSON string. A status that is not an HTTP status is
    /// `invalid_argument` and leaves the run as it was.
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
            Err(e) => return err_json(&e),
        };
        match self.inner.open(
            status,
            content_type,
            proc_id.as_deref(),
            retry_after.as_deref(),
        ) {
            Ok(()) => String::new(),
            Err(e) => err_json(&e),
        }
    }

    /// Feeds the next piece of the body; its actions are the batch's.
    /// Returns an empty string, or an error-object JSON string.
    pub fn feed(&mut self, chunk: &[u8]) -> String {
        self.actions.clear();
        if let Some(failed) = &self.failed {
            return failed.clone();
        }
        match self.inner.feed(chunk, &mut self.actions) {
            Ok(()) => String::new(),
            Err(e) => err_json(&e),
        }
    }

    /// The body ended: cleanly (`transport_error` undefined) or broken.
    /// Its actions are the batch's; returns `{"step":…|null,"error":…|null}`.
    pub fn finish(&mut self, transport_error: Option<String>, jitter: f64) -> String {
        self.actions.clear();
        if let Some(failed) = &self.failed {
            return format!("{{\"step\":null,\"error\":{failed}}}");
        }
        let step = self
            .inner
            .finish(transport_error.as_deref(), jitter, &mut self.actions);
        self.step_or_error(step)
    }

    /// No response came. Returns `{"step":…|null,"error":…|null}`.
    pub fn no_response(&mut self, detail: &str, jitter: f64) -> String {
        self.actions.clear();
        if let Some(failed) = &self.failed {
            return format!("{{\"step\":null,\"error\":{failed}}}");
        }
        let step = self.inner.no_response(detail, jitter);
        self.step_or_error(step)
    }

    /// The caller cancelled: the actions are the batch's (the open spills'
    /// discards); returns the step's JSON.
    pub fn cancel(&mut self) -> String {
        self.actions.clear();
        let step = self.inner.cancel(&mut self.actions);
        // A cancel's step names no cursor: it always converts.
        step_json(&step).unwrap_or_else(|_| "{\"type\":\"cancelled\"}".to_owned())
    }

    /// The longest the next wait for the service may last, in ms (`None`:
    /// no limit).
    pub fn wait_limit_ms(&mut self) -> Option<f64> {
        self.inner
            .wait_limit()
            .map(|d| d.as_nanos() as f64 / 1_000_000.0)
    }

    /// One wait for the service took `elapsed_ms`; true when the liveness
    /// timeout is spent. Throws an error-object JSON string for a time that
    /// is not a number of ms `>= 0`.
    pub fn waited(&mut self, elapsed_ms: f64) -> Result<bool, String> {
        let elapsed = millis("elapsedMs", elapsed_ms).map_err(|e| err_json(&e))?;
        Ok(self.inner.waited(elapsed))
    }

    /// View `tag`'s spill writer threw `error` (its description, `Name:
    /// message`), opening or writing: nothing more is written to it.
    pub fn spill_failed(&mut self, tag: u8, error: String) {
        self.inner
            .spill_failed(view(tag), SpillError::WriterFailed { error });
    }

    /// View `tag`'s commit saved its bytes at `path`.
    pub fn spill_saved(&mut self, tag: u8, path: String) {
        self.inner
            .spill_committed(view(tag), SpillOutcome::Saved { path });
    }

    /// View `tag`'s commit saved nothing.
    pub fn spill_not_saved(&mut self, tag: u8) {
        self.inner
            .spill_committed(view(tag), SpillOutcome::NotSaved);
    }

    /// View `tag`'s commit threw `error` (`Name: message`).
    pub fn spill_commit_failed(&mut self, tag: u8, error: String) {
        self.inner
            .spill_committed(view(tag), SpillError::WriterFailed { error }.into());
    }

    /// View `tag`'s commit returned `returned` (a type name) instead of a
    /// path string or nothing.
    pub fn spill_not_a_path(&mut self, tag: u8, returned: String) {
        self.inner
            .spill_committed(view(tag), SpillError::NotAPath { returned }.into());
    }

    /// The result's JSON (`procId`, `idempotencyKey`, `exitCode`,
    /// `timedOut`, the three previews, `stdoutLostBytes`,
    /// `stderrLostBytes`). Throws an error-object JSON string.
    pub fn result(&mut self) -> Result<String, String> {
        if let Some(failed) = &self.failed {
            return Err(failed.clone());
        }
        let r = self.inner.result().map_err(|e| err_json(&e))?;
        let mut out = String::with_capacity(1024);
        let converted: Result<(), OutOfRange> = (|| {
            out.push_str("{\"procId\":");
            json::push_str(&mut out, &r.proc_id);
            out.push_str(",\"idempotencyKey\":");
            json::push_str(&mut out, &r.idempotency_key);
            out.push_str(",\"exitCode\":");
            json::push_opt_i64(&mut out, "exit_code", r.exit_code)?;
            out.push_str(if r.timed_out {
                ",\"timedOut\":true"
            } else {
                ",\"timedOut\":false"
            });
            for (key, preview) in [
                (",\"stdout\":", &r.stdout),
                (",\"stderr\":", &r.stderr),
                (",\"combined\":", &r.combined),
            ] {
                out.push_str(key);
                out.push_str(&preview_json(preview));
            }
            out.push_str(",\"stdoutLostBytes\":");
            json::push_u64(&mut out, "stdoutLostBytes", r.stdout_lost_bytes)?;
            out.push_str(",\"stderrLostBytes\":");
            json::push_u64(&mut out, "stderrLostBytes", r.stderr_lost_bytes)?;
            out.push('}');
            Ok(())
        })();
        match converted {
            Ok(()) => Ok(out),
            Err(e) => Err(self.fail(&e)),
        }
    }

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

impl WasmRun {
    fn step_or_error(&mut self, step: Result<RunStep, Error>) -> String {
        match step {
            Ok(step) => match step_json(&step) {
                Ok(s) => format!("{{\"step\":{s},\"error\":null}}"),
                Err(e) => format!("{{\"step\":null,\"error\":{}}}", self.fail(&e)),
            },
            Err(e) => format!("{{\"step\":null,\"error\":{}}}", err_json(&e)),
        }
    }

    /// Makes an out-of-range integer the run's sticky error.
    fn fail(&mut self, e: &OutOfRange) -> String {
        let json = e.to_json();
        self.failed = Some(json.clone());
        json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn arguments_are_refused_in_javascript_names() {
        let bad = |key: Option<&str>, timeout: Option<f64>, random: &[u8]| {
            value(
                &WasmRun::new(
                    "c1",
                    "\"make\"",
                    random,
                    WasmFollowOptions::new(),
                    None,
                    None,
                    key.map(str::to_owned),
                    timeout,
                    None,
                    false,
                    false,
                    false,
                    None,
                    false,
                    None,
                    None,
                    None,
                    None,
                    None,
                )
                .unwrap_err(),
            )
        };
        assert_eq!(bad(Some(""), None, &[0; 16])["argument"], "idempotencyKey");
        assert_eq!(bad(None, Some(0.0), &[0; 16])["argument"], "timeoutMs");
        assert_eq!(bad(None, None, &[0; 3])["argument"], "random");
        assert_eq!(timeout_seconds(Some(30_000.0)).unwrap(), Some(30.0));
    }

    #[test]
    fn a_refused_keep_pattern_is_invalid_argument_keep() {
        let with_keep = |word: Option<&str>, patterns: Option<Vec<String>>| {
            WasmRun::new(
                "c1",
                "\"make\"",
                &[0; 16],
                WasmFollowOptions::new(),
                None,
                None,
                None,
                None,
                None,
                false,
                false,
                false,
                None,
                true,
                word.map(str::to_owned),
                patterns,
                Some(false),
                None,
                None,
            )
        };
        let err = value(&with_keep(None, Some(vec!["(".into()])).unwrap_err());
        assert_eq!(
            (err["code"].as_str(), err["argument"].as_str()),
            (Some("invalid_argument"), Some("keep"))
        );
        let err = value(&with_keep(Some("all"), None).unwrap_err());
        assert_eq!(err["argument"], "keep");
        assert!(with_keep(Some("defaults"), None).is_ok());
        assert!(with_keep(None, None).is_ok(), "given and empty: off");
    }

    #[test]
    fn the_token_options_are_the_cores() {
        let with_tokens = |max_tokens: Option<f64>, tokenizer: Option<&str>| {
            WasmRun::new(
                "c1",
                "\"make\"",
                &[0; 16],
                WasmFollowOptions::new(),
                None,
                None,
                None,
                None,
                None,
                false,
                false,
                false,
                None,
                false,
                None,
                None,
                None,
                max_tokens,
                tokenizer.map(str::to_owned),
            )
        };
        assert!(with_tokens(None, None).is_ok());
        assert!(with_tokens(Some(80.0), Some("approx")).is_ok());
        assert!(
            with_tokens(None, Some("approx")).is_ok(),
            "a tokenizer alone counts"
        );
        let code = |r: Result<WasmRun, String>| value(&r.unwrap_err())["code"].clone();
        assert_eq!(
            code(with_tokens(Some(79.0), Some("approx"))),
            "invalid_limits"
        );
        assert_eq!(
            code(with_tokens(Some(1.5), Some("approx"))),
            "invalid_limits"
        );
        assert_eq!(
            code(with_tokens(Some(-1.0), Some("approx"))),
            "invalid_limits"
        );
        let err = value(&with_tokens(Some(100.0), Some("gpt-9")).unwrap_err());
        assert_eq!(
            (err["code"].as_str(), err["argument"].as_str()),
            (Some("invalid_argument"), Some("tokenizer"))
        );
    }
}
