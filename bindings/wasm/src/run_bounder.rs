//! The run bounder: `WasmRunBounder`, the `WasmRunPending` it finishes into,
//! and `run_spill_id`. Streams cross as their record tags (0 stdout, 1
//! stderr), views as 0 stdout, 1 stderr, 2 combined; offsets and counts as
//! numbers (the JavaScript layer checks offsets are safe integers). Every
//! decision — what each view shows, the loss line, the stderr section, the
//! spill texts — is the core's ([`dory_wire::preview::RunBounder`]).
//!
//! As for `bound`, the spill handshake stays sans-IO: the JavaScript layer
//! writes each view's spill itself and renders each view with what saving
//! did, so no JavaScript callback is called from Rust.

use dory_wire::preview::{self, SpillError, SpillOutcome};
use dory_wire::Error;
use wasm_bindgen::prelude::*;

use crate::args::{stream, view};
use crate::json;
use crate::preview::{keep, limit, limits, preview_json, token_limit};

/// The error-object JSON of a call after `finish`.
fn finished() -> String {
    json::write_error(&Error::InvalidState {
        reason: "this RunBounder was already finished".to_owned(),
    })
}

/// A byte offset that crossed as a number (a safe integer: checked by the
/// JavaScript layer).
fn offset(value: f64) -> u64 {
    value as u64
}

/// The spill id a run keyed by `idempotency_key` uses
/// ([`dory_wire::preview::run_spill_id`]).
#[wasm_bindgen]
pub fn run_spill_id(idempotency_key: &str) -> String {
    preview::run_spill_id(idempotency_key)
}

/// The core's run bounder.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmRunBounder {
    /// `None` once finished.
    inner: Option<preview::RunBounder>,
}

#[wasm_bindgen]
impl WasmRunBounder {
    /// A run bounder; `spill_id` names the views' spills `<id>-<view>`;
    /// `max_tokens`, `tokenizer`, `keep_word`, `keep_patterns` and
    /// `terminal` as for `WasmBounder`. Throws an error-object JSON string
    /// (`invalid_limits`) for limits that are not integers in range, or
    /// (`invalid_argument`) for a tokenizer this build lacks; any integer
    /// limits are accepted.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        max_lines: f64,
        max_bytes: f64,
        max_tokens: Option<f64>,
        tokenizer: Option<String>,
        spill_id: Option<String>,
        keep_word: Option<String>,
        keep_patterns: Option<Vec<String>>,
        terminal: bool,
        split_name: Option<String>,
    ) -> Result<WasmRunBounder, String> {
        let bounder =
            preview::RunBounder::with_limits(limits(max_lines, max_bytes, max_tokens, tokenizer)?)
                .with_keep(keep(keep_word, keep_patterns)?)
                .with_terminal(terminal)
                .with_split(crate::preview::split(split_name)?);
        Ok(WasmRunBounder {
            inner: Some(match spill_id {
                Some(id) => bounder.with_spill_id(&id),
                None => bounder,
            }),
        })
    }

    /// [`preview::RunBounder::check_limits`]: throws an error-object JSON
    /// string (`invalid_limits`, or `range_error` for a limit that is not an
    /// integer in range).
    pub fn check_limits(max_lines: f64, max_bytes: f64) -> Result<(), String> {
        preview::RunBounder::check_limits(
            limit(max_lines, "maxLines")?,
            limit(max_bytes, "maxBytes")?,
        )
        .map_err(|e| json::write_error(&e))
    }

    /// [`preview::RunBounder::check_tokens`] of the `maxTokens` and
    /// `tokenizer` options (read as [`token_limit`] reads them): throws an
    /// error-object JSON string (`invalid_limits` for a `maxTokens` a run
    /// cannot honour or out of range, `invalid_argument` for the tokenizer).
    pub fn check_tokens(max_tokens: Option<f64>, tokenizer: Option<String>) -> Result<(), String> {
        preview::RunBounder::check_tokens(token_limit(max_tokens, tokenizer)?)
            .map_err(|e| json::write_error(&e))
    }

    fn live(&self) -> Result<&preview::RunBounder, String> {
        self.inner.as_ref().ok_or_else(finished)
    }

    /// Feeds the next bytes of stream `tag`.
    pub fn push(&mut self, tag: u8, data: &[u8]) -> Result<(), String> {
        self.inner
            .as_mut()
            .ok_or_else(finished)?
            .push(stream(tag), data);
        Ok(())
    }

    /// Records that stream `tag` lost offsets `[start, end)`.
    pub fn lose(&mut self, tag: u8, start: f64, end: f64) -> Result<(), String> {
        self.inner
            .as_mut()
            .ok_or_else(finished)?
            .lose(stream(tag), offset(start), offset(end));
        Ok(())
    }

    /// The id view `tag`'s spill is saved under, when a spill id was given.
    pub fn spill_id(&self, tag: u8) -> Result<Option<String>, String> {
        Ok(self.live()?.spill_id(view(tag)).map(str::to_owned))
    }

    /// Bytes of view `tag` pushed so far (exact below 2^53).
    pub fn total_bytes(&self, tag: u8) -> Result<f64, String> {
        Ok(self.live()?.total_bytes(view(tag)) as f64)
    }

    /// Bytes of view `tag` recorded as lost so far (exact below 2^53).
    pub fn lost_bytes(&self, tag: u8) -> Result<f64, String> {
        Ok(self.live()?.lost_bytes(view(tag)) as f64)
    }

    /// Bytes of buffer held (0 once finished).
    pub fn retained_bytes(&self) -> f64 {
        self.inner
            .as_ref()
            .map_or(0.0, |b| b.retained_bytes() as f64)
    }

    /// Ends the output; the bounder cannot be used afterwards. Throws an
    /// error-object JSON string (`invalid_limits`) when a view must be cut,
    /// or a loss said, and the limits leave no room for it.
    pub fn finish(&mut self) -> Result<WasmRunPending, String> {
        let inner = self.inner.take().ok_or_else(finished)?;
        Ok(WasmRunPending {
            inner: inner.finish().map_err(|e| json::write_error(&e))?,
        })
    }
}

/// A finished run, waiting for each view's spill outcome.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmRunPending {
    inner: preview::RunPending,
}

#[wasm_bindgen]
impl WasmRunPending {
    /// The id to save view `tag`'s full bytes under.
    pub fn spill_id(&self, tag: u8) -> String {
        self.inner.spill_id(view(tag)).to_owned()
    }

    /// Whether view `tag` is cut, so that its preview points at a spill.
    pub fn needs_spill(&self, tag: u8) -> bool {
        self.inner.needs_spill(view(tag))
    }

    /// Bytes of view `tag` (lost bytes not included; exact below 2^53).
    pub fn total_bytes(&self, tag: u8) -> f64 {
        self.inner.total_bytes(view(tag)) as f64
    }

    /// Bytes of view `tag` that were lost (exact below 2^53).
    pub fn lost_bytes(&self, tag: u8) -> f64 {
        self.inner.lost(view(tag)).0 as f64
    }

    /// How many ranges of view `tag` were lost.
    pub fn lost_ranges(&self, tag: u8) -> f64 {
        self.inner.lost(view(tag)).1 as f64
    }

    /// The preview JSON of view `tag` for a file saved at `path`.
    pub fn render_saved(&self, tag: u8, path: String, hint: Option<String>) -> String {
        self.render(tag, SpillOutcome::Saved { path }, hint)
    }

    /// The preview JSON of view `tag` when saving failed for `reason` (the
    /// caller's words).
    pub fn render_failed(&self, tag: u8, reason: String, hint: Option<String>) -> String {
        self.render(tag, SpillOutcome::Failed { reason }, hint)
    }

    /// The preview JSON of view `tag` after the writer threw `error` (its
    /// description, `Name: message`).
    pub fn render_writer_failed(&self, tag: u8, error: String, hint: Option<String>) -> String {
        self.render(tag, SpillError::WriterFailed { error }.into(), hint)
    }

    /// The preview JSON of view `tag` after the writer returned `returned`
    /// (a type name) instead of a path string or nothing.
    pub fn render_not_a_path(&self, tag: u8, returned: String, hint: Option<String>) -> String {
        self.render(tag, SpillError::NotAPath { returned }.into(), hint)
    }

    /// The preview JSON of view `tag` after a synchronous call got a
    /// promise from its writer; `use_instead` names the asynchronous call.
    pub fn render_asynchronous(
        &self,
        tag: u8,
        use_instead: String,
        hint: Option<String>,
    ) -> String {
        self.render(tag, SpillError::Asynchronous { use_instead }.into(), hint)
    }

    /// The preview JSON of view `tag` when nothing was saved.
    pub fn render_not_saved(&self, tag: u8, hint: Option<String>) -> String {
        self.render(tag, SpillOutcome::NotSaved, hint)
    }
}

impl WasmRunPending {
    fn render(&self, tag: u8, outcome: SpillOutcome, hint: Option<String>) -> String {
        preview_json(&self.inner.render(view(tag), outcome, hint.as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_renders_its_views_and_says_a_loss() {
        let mut run = WasmRunBounder::new(
            20.0,
            400.0,
            None,
            None,
            Some("run-x".into()),
            None,
            None,
            false,
            None,
        )
        .unwrap();
        run.push(0, b"out\n").unwrap();
        run.push(1, b"err\n").unwrap();
        run.lose(1, 4.0, 10.0).unwrap();
        assert_eq!(run.spill_id(2).unwrap().as_deref(), Some("run-x-combined"));
        assert_eq!(run.total_bytes(2).unwrap(), 8.0);
        assert_eq!(run.lost_bytes(1).unwrap(), 6.0);
        let pending = run.finish().unwrap();
        assert!(run.push(0, b"x").unwrap_err().contains("invalid_state"));
        assert_eq!(pending.spill_id(1), "run-x-stderr");
        assert_eq!((pending.lost_bytes(2), pending.lost_ranges(2)), (6.0, 1.0));
        let v: serde_json::Value =
            serde_json::from_str(&pending.render_not_saved(1, None)).unwrap();
        assert!(v["text"].as_str().unwrap().contains("6 bytes lost"));
        let v: serde_json::Value =
            serde_json::from_str(&pending.render_not_a_path(0, "number".into(), None)).unwrap();
        assert_eq!(v["spillError"], serde_json::Value::Null, "fits: no spill");
    }

    #[test]
    fn limits_are_checked_by_the_core() {
        assert!(WasmRunBounder::check_limits(2.0, 80.0).is_ok());
        let e = WasmRunBounder::check_limits(1.0, 80.0).unwrap_err();
        assert!(e.contains("\"code\":\"invalid_limits\""), "{e}");
        // Out of the core's range: its invalid_limits too, as in Python.
        let e = WasmRunBounder::check_limits(2.5, 80.0).unwrap_err();
        assert!(e.contains("\"code\":\"invalid_limits\""), "{e}");
        assert_eq!(run_spill_id("k"), preview::run_spill_id("k"));
        // Tokens: the core's MIN_RUN_MAX_BYTES, its names and its rule.
        let min = preview::MIN_RUN_MAX_BYTES as f64;
        assert!(WasmRunBounder::check_tokens(Some(min), Some("approx".into())).is_ok());
        assert!(WasmRunBounder::check_tokens(None, Some("approx".into())).is_ok());
        assert!(WasmRunBounder::check_tokens(None, None).is_ok());
        let e = WasmRunBounder::check_tokens(Some(min - 1.0), Some("approx".into())).unwrap_err();
        assert!(e.contains("\"code\":\"invalid_limits\""), "{e}");
        let e = WasmRunBounder::check_tokens(Some(1.5), Some("approx".into())).unwrap_err();
        assert!(e.contains("maxTokens"), "{e}");
        let e = WasmRunBounder::check_tokens(Some(min), Some("gpt-9".into())).unwrap_err();
        assert!(e.contains("\"argument\":\"tokenizer\""), "{e}");
    }

    #[test]
    fn a_token_limit_bounds_every_view_and_counts() {
        let log: String = (0..400)
            .map(|i| format!("step {i}: compiled module_{i}\n"))
            .collect();
        let mut run = WasmRunBounder::new(
            400.0,
            16384.0,
            Some(200.0),
            Some("approx".into()),
            None,
            None,
            None,
            false,
            None,
        )
        .unwrap();
        run.push(0, log.as_bytes()).unwrap();
        let pending = run.finish().unwrap();
        for tag in 0..3 {
            let v: serde_json::Value =
                serde_json::from_str(&pending.render_not_saved(tag, None)).unwrap();
            let text = v["text"].as_str().unwrap();
            let tokens = v["tokens"].as_u64().unwrap();
            assert!(tokens <= 200, "{tag}: {tokens}");
            assert_eq!(
                tokens,
                dory_wire::preview::count_tokens(text, Some("approx")).unwrap()
            );
        }
    }
}
