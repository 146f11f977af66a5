//! `WasmRun`: the core's run machine ([`dory_wire::Run`]) behind the
//! JavaScript `Run`. Every decision — which request comes next, what each
//! answer means, when to wait and how long, what goes to which spill and to
//! the output hook, what a cancel sends, the result — is the core's; this
//! module converts arguments ([`crate::args`]; the constructor's in
//! [`options`]) and maps errors, as `bindings/python/src/run/mod.rs` does
//! for Python. The actions of a call cross as [`actions`] writes them;
//! steps, the result and errors cross as small JSON documents
//! ([`crate::wire_json`]).

use dory_wire::preview::{SpillError, SpillOutcome};
use dory_wire::{Error, Run, RunStep};
use wasm_bindgen::prelude::*;

use crate::args::{millis, view};
use crate::json::{self, write_error, OutOfRange};
use crate::wire_json::{request_json, run_result_json, step_json};

mod actions;
mod options;

use actions::Actions;

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
            .map_err(|e| write_error(&e))
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
            Err(e) => return write_error(&e),
        };
        match self.inner.open(
            status,
            content_type,
            proc_id.as_deref(),
            retry_after.as_deref(),
        ) {
            Ok(()) => String::new(),
            Err(e) => write_error(&e),
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
            Err(e) => write_error(&e),
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

    /// The connection was never made. Returns `{"step":…|null,"error":…|null}`.
    pub fn not_connected(&mut self, detail: &str, jitter: f64) -> String {
        self.actions.clear();
        if let Some(failed) = &self.failed {
            return format!("{{\"step\":null,\"error\":{failed}}}");
        }
        let step = self.inner.not_connected(detail, jitter);
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
        let elapsed = millis("elapsedMs", elapsed_ms).map_err(|e| write_error(&e))?;
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

    /// The result's JSON ([`run_result_json`]: `procId`,
    /// `idempotencyKey`, `exitCode`, `timedOut`, the three previews,
    /// `stdoutLostBytes`, `stderrLostBytes`). Throws an error-object JSON
    /// string.
    pub fn result(&mut self) -> Result<String, String> {
        if let Some(failed) = &self.failed {
            return Err(failed.clone());
        }
        let r = self.inner.result().map_err(|e| write_error(&e))?;
        run_result_json(&r).map_err(|e| self.fail(&e))
    }
}

impl WasmRun {
    fn step_or_error(&mut self, step: Result<RunStep, Error>) -> String {
        match step {
            Ok(step) => match step_json(&step) {
                Ok(s) => format!("{{\"step\":{s},\"error\":null}}"),
                Err(e) => format!("{{\"step\":null,\"error\":{}}}", self.fail(&e)),
            },
            Err(e) => format!("{{\"step\":null,\"error\":{}}}", write_error(&e)),
        }
    }

    /// Makes an out-of-range integer the run's sticky error.
    fn fail(&mut self, e: &OutOfRange) -> String {
        let json = e.to_json();
        self.failed = Some(json.clone());
        json
    }
}
