//! The preview bounder: `WasmBounder`, `WasmStreamingBounder` and the pending
//! spill they hand back, `WasmBounded`.
//!
//! The spill handshake stays sans-IO across the boundary: the JavaScript layer
//! asks for the spill id, runs the caller's writer (sync or async) itself, and
//! answers with the outcome, so no JavaScript callback is ever called from Rust.

use dory_wire::preview::{
    Bounded, Bounder, Keep, Limits, Preview, SpillError, SpillOutcome, StreamingBounder, TokenLimit,
};
use wasm_bindgen::prelude::*;

use crate::json::{self, OutOfRange};

/// A JavaScript number as the limit `what`: the core decides
/// (`preview::checked_limit`: a whole number from 0 to `MAX_LIMIT`, else
/// its `invalid_limits` error, as JSON).
pub(crate) fn limit(value: f64, what: &str) -> Result<usize, String> {
    dory_wire::preview::checked_limit(value, what).map_err(|e| json::write_error(&e))
}

/// The `maxTokens` and `tokenizer` options as the core reads them: the
/// number converted as `maxBytes` is (`preview::checked_limit`), then the
/// core's one rule (`preview::token_limit`: neither is no token limit, a
/// tokenizer alone only counts, `maxTokens` alone uses the core's default
/// tokenizer; a name this build lacks is `invalid_argument` for
/// `tokenizer`). Throws an error-object JSON string.
pub(crate) fn token_limit(
    max_tokens: Option<f64>,
    tokenizer: Option<String>,
) -> Result<Option<TokenLimit>, String> {
    let max_tokens = max_tokens.map(|n| limit(n, "maxTokens")).transpose()?;
    dory_wire::preview::token_limit(max_tokens, tokenizer.as_deref())
        .map_err(|e| json::write_error(&e))
}

/// How many tokens `text` encodes to under the tokenizer named `tokenizer`
/// (the core's default when none): the core's `preview::count_tokens`.
/// Throws an error-object JSON string (`invalid_argument`, argument
/// `tokenizer`) for a name this build lacks.
#[wasm_bindgen]
pub fn count_tokens(text: &str, tokenizer: Option<String>) -> Result<f64, String> {
    // A count is at most the text's bytes (< 2^32 in wasm32): exact as an f64.
    dory_wire::preview::count_tokens(text, tokenizer.as_deref())
        .map(|n| n as f64)
        .map_err(|e| json::write_error(&e))
}

/// The file name a spill directory saves `spill_id`'s output under: the
/// core's one rule (`preview::spill_file_name`). Throws an error-object JSON
/// string (`invalid_argument`, argument `spillId` or `suffix`).
#[wasm_bindgen]
pub fn spill_file_name(spill_id: &str, suffix: &str) -> Result<String, String> {
    dory_wire::preview::spill_file_name(spill_id, suffix).map_err(|e| json::write_error(&e))
}

/// The `keep` option: `word` is the string given (only `"defaults"` is
/// one; another is the core's `invalid_argument` for `keep`), `patterns`
/// the array of strings; neither is [`Keep::none`]. Throws an error-object
/// JSON string for a pattern the core refuses.
/// The `split` option: `"even"` (also when absent) or `"tail"`.
pub(crate) fn split(name: Option<String>) -> Result<dory_wire::preview::Split, String> {
    match name {
        None => Ok(dory_wire::preview::Split::Even),
        Some(name) => dory_wire::preview::Split::from_name(&name).ok_or_else(|| {
            json::write_error(&dory_wire::Error::InvalidArgument {
                argument: "split".to_owned(),
                reason: format!("split must be \"even\" or \"tail\", not {name:?}"),
            })
        }),
    }
}

pub(crate) fn keep(word: Option<String>, patterns: Option<Vec<String>>) -> Result<Keep, String> {
    match (word, patterns) {
        (Some(word), _) if word == "defaults" => Ok(Keep::defaults()),
        (Some(word), _) => {
            let err = dory_wire::Error::InvalidArgument {
                argument: "keep".to_owned(),
                reason: format!(
                    "keep must be null, \"defaults\" or an array of patterns, not the string {word:?}"
                ),
            };
            Err(json::write_error(&err))
        }
        (None, Some(patterns)) => Keep::patterns(patterns).map_err(|e| json::write_error(&e)),
        (None, None) => Ok(Keep::none()),
    }
}

/// The limits of a bounder: lines, bytes and the token limit (see
/// [`token_limit`]). Throws an error-object JSON string: the core's
/// `invalid_limits` for a number out of its range
/// (`preview::checked_limit`), `invalid_argument` for the tokenizer.
pub(crate) fn limits(
    max_lines: f64,
    max_bytes: f64,
    max_tokens: Option<f64>,
    tokenizer: Option<String>,
) -> Result<Limits, String> {
    Ok(
        Limits::new(limit(max_lines, "maxLines")?, limit(max_bytes, "maxBytes")?)
            .with_token_limit(token_limit(max_tokens, tokenizer)?),
    )
}

/// The preview as a JSON object with camelCase keys, its notices
/// (`kind`, `line`, `text`) as the core's `Preview::to_json` gives them.
pub(crate) fn preview_json(p: &Preview<'_>) -> String {
    let mut out = String::with_capacity(p.text.len() + 256);
    let result: Result<(), OutOfRange> = (|| {
        out.push_str("{\"text\":");
        json::push_str(&mut out, &p.text);
        out.push_str(if p.truncated {
            ",\"truncated\":true"
        } else {
            ",\"truncated\":false"
        });
        for (key, field, value) in [
            (",\"totalLines\":", "totalLines", p.total_lines),
            (",\"totalBytes\":", "totalBytes", p.total_bytes),
            (",\"headBytes\":", "headBytes", p.head_bytes),
            (",\"tailBytes\":", "tailBytes", p.tail_bytes),
            (",\"omittedLines\":", "omittedLines", p.omitted_lines),
            (",\"omittedBytes\":", "omittedBytes", p.omitted_bytes),
        ] {
            out.push_str(key);
            json::push_u64(&mut out, field, value)?;
        }
        out.push_str(",\"omittedRange\":");
        match p.omitted_range {
            Some((first, last)) => {
                out.push('[');
                json::push_u64(&mut out, "omittedRange", first)?;
                out.push(',');
                json::push_u64(&mut out, "omittedRange", last)?;
                out.push(']');
            }
            None => out.push_str("null"),
        }
        for (key, value) in [
            (",\"spillId\":", &p.spill_id),
            (",\"spillPath\":", &p.spill_path),
            (",\"spillError\":", &p.spill_error),
        ] {
            out.push_str(key);
            match value {
                Some(s) => json::push_str(&mut out, s),
                None => out.push_str("null"),
            }
        }
        // The notice lines, as the core's canonical JSON gives them.
        out.push_str(",\"notices\":[");
        for (i, (kind, line, text)) in p.notice_lines().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"kind\":\"");
            out.push_str(kind.as_str());
            out.push_str("\",\"line\":");
            json::push_u64(&mut out, "notices", line)?;
            out.push_str(",\"text\":");
            json::push_str(&mut out, text);
            out.push('}');
        }
        out.push_str("],\"tokens\":");
        match p.tokens {
            Some(n) => json::push_u64(&mut out, "tokens", n)?,
            None => out.push_str("null"),
        }
        out.push('}');
        Ok(())
    })();
    match result {
        Ok(()) => out,
        Err(e) => format!("{{\"error\":{}}}", e.to_json()),
    }
}

/// The whole-input bounder.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmBounder {
    inner: Bounder,
}

#[wasm_bindgen]
impl WasmBounder {
    /// A bounder for previews of at most `max_lines` lines and `max_bytes`
    /// bytes (and `max_tokens` tokens under `tokenizer`: see
    /// [`token_limit`]), with the `keep` option (see [`keep`]) and terminal
    /// rendering.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        max_lines: f64,
        max_bytes: f64,
        max_tokens: Option<f64>,
        tokenizer: Option<String>,
        keep_word: Option<String>,
        keep_patterns: Option<Vec<String>>,
        terminal: bool,
        split_name: Option<String>,
    ) -> Result<WasmBounder, String> {
        Ok(WasmBounder {
            inner: Bounder::with_limits(limits(max_lines, max_bytes, max_tokens, tokenizer)?)
                .with_keep(keep(keep_word, keep_patterns)?)
                .with_terminal(terminal)
                .with_split(split(split_name)?),
        })
    }

    /// Bounds `data`: the preview when it fits, else a pending spill. Throws
    /// an error-object JSON string (`invalid_limits`) when `data` must be cut
    /// and the limits leave no room for a cut.
    pub fn bound(&self, data: &[u8], spill_id: Option<String>) -> Result<WasmBounded, String> {
        let bounded = match &spill_id {
            Some(id) => self.inner.bound_with_spill_id(data, id),
            None => self.inner.bound(data),
        };
        Ok(WasmBounded {
            inner: bounded.map_err(|e| json::write_error(&e))?.into_owned(),
        })
    }

    /// Bounds `data` with no spill writer: the preview JSON in one call
    /// (throws as [`WasmBounder::bound`]).
    pub fn bound_not_saved(&self, data: &[u8], hint: Option<String>) -> Result<String, String> {
        let bounded = self.inner.bound(data).map_err(|e| json::write_error(&e))?;
        Ok(preview_json(
            &bounded.render(SpillOutcome::NotSaved, hint.as_deref()),
        ))
    }
}

/// The outcome of bounding: a preview that fits, or a spill to answer.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmBounded {
    inner: Bounded<'static>,
}

#[wasm_bindgen]
impl WasmBounded {
    /// The id to save the full output under, or `undefined` when the input fits.
    pub fn spill_id(&self) -> Option<String> {
        self.inner.spill_id().map(str::to_owned)
    }

    /// The preview JSON for a file saved at `path`.
    pub fn render_saved(&self, path: String, hint: Option<String>) -> String {
        self.render(SpillOutcome::Saved { path }, hint)
    }

    /// The preview JSON after the writer threw or rejected `error` (its
    /// description, `Name: message`).
    pub fn render_writer_failed(&self, error: String, hint: Option<String>) -> String {
        self.render(SpillError::WriterFailed { error }.into(), hint)
    }

    /// The preview JSON after the writer returned `returned` (a type name)
    /// instead of a path string or nothing.
    pub fn render_not_a_path(&self, returned: String, hint: Option<String>) -> String {
        self.render(SpillError::NotAPath { returned }.into(), hint)
    }

    /// The preview JSON after a synchronous call got a promise from its
    /// writer; `use_instead` names the asynchronous call.
    pub fn render_asynchronous(&self, use_instead: String, hint: Option<String>) -> String {
        self.render(SpillError::Asynchronous { use_instead }.into(), hint)
    }

    /// The preview JSON when nothing was saved.
    pub fn render_not_saved(&self, hint: Option<String>) -> String {
        self.render(SpillOutcome::NotSaved, hint)
    }
}

impl WasmBounded {
    fn render(&self, outcome: SpillOutcome, hint: Option<String>) -> String {
        match &self.inner {
            Bounded::Fits(preview) => preview_json(preview),
            Bounded::NeedsSpill(pending) => preview_json(&pending.render(outcome, hint.as_deref())),
        }
    }
}

/// The streaming bounder: chunks in, memory bounded by the limits.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmStreamingBounder {
    /// `None` once finished.
    inner: Option<StreamingBounder>,
}

fn finished() -> String {
    let mut out = String::from("{\"code\":\"invalid_state\",\"message\":");
    json::push_str(
        &mut out,
        "invalid_state: this StreamingBounder was already finished",
    );
    out.push_str(",\"reason\":\"this StreamingBounder was already finished\"}");
    out
}

#[wasm_bindgen]
impl WasmStreamingBounder {
    /// A streaming bounder; `spill_id` replaces the content-derived id;
    /// `max_tokens`, `tokenizer`, `keep_word`, `keep_patterns` and
    /// `terminal` as for [`WasmBounder`].
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
    ) -> Result<WasmStreamingBounder, String> {
        let streaming = Bounder::with_limits(limits(max_lines, max_bytes, max_tokens, tokenizer)?)
            .with_keep(keep(keep_word, keep_patterns)?)
            .with_terminal(terminal)
            .with_split(split(split_name)?)
            .streaming();
        Ok(WasmStreamingBounder {
            inner: Some(match spill_id {
                Some(id) => streaming.with_spill_id(id),
                None => streaming,
            }),
        })
    }

    /// Feeds the next chunk.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.inner.as_mut().ok_or_else(finished)?.push(chunk);
        Ok(())
    }

    /// Bytes pushed so far (exact below 2^53).
    pub fn total_bytes(&self) -> f64 {
        self.inner.as_ref().map_or(0.0, |b| b.total_bytes() as f64)
    }

    /// Bytes of buffer held, bounded by the limits.
    pub fn retained_bytes(&self) -> f64 {
        self.inner
            .as_ref()
            .map_or(0.0, |b| b.retained_bytes() as f64)
    }

    /// Ends the input; the bounder cannot be used afterwards. Throws an
    /// error-object JSON string (`invalid_limits`) when the input must be cut
    /// and the limits leave no room for a cut.
    pub fn finish(&mut self) -> Result<WasmBounded, String> {
        let inner = self.inner.take().ok_or_else(finished)?;
        Ok(WasmBounded {
            inner: inner.finish().map_err(|e| json::write_error(&e))?,
        })
    }
}
