//! The spill search: `WasmSearcher`. Types are converted and errors mapped
//! here; every decision is the core's (`dory_wire::search`).

use dory_wire::search::{SearchOptions, SearchResult, Searcher};
use wasm_bindgen::prelude::*;

use crate::json::{self, OutOfRange};
use crate::preview::limit;

/// The result as a JSON object with camelCase keys.
fn result_json(r: &SearchResult) -> String {
    let mut out = String::with_capacity(r.text.len() + 256);
    let result: Result<(), OutOfRange> = (|| {
        out.push_str("{\"text\":");
        json::push_str(&mut out, &r.text);
        out.push_str(if r.truncated {
            ",\"truncated\":true"
        } else {
            ",\"truncated\":false"
        });
        for (key, field, value) in [
            (",\"totalLines\":", "totalLines", r.total_lines),
            (",\"totalBytes\":", "totalBytes", r.total_bytes),
            (",\"matchedLines\":", "matchedLines", r.matched_lines),
            (",\"shownLines\":", "shownLines", r.shown_lines),
            (",\"omittedLines\":", "omittedLines", r.omitted_lines),
            (",\"longLines\":", "longLines", r.long_lines),
        ] {
            out.push_str(key);
            json::push_u64(&mut out, field, value)?;
        }
        for (key, field, value) in [
            (",\"partialLine\":", "partialLine", r.partial_line),
            (",\"firstLongLine\":", "firstLongLine", r.first_long_line),
        ] {
            out.push_str(key);
            match value {
                Some(n) => json::push_u64(&mut out, field, n)?,
                None => out.push_str("null"),
            }
        }
        for (key, value) in [
            (",\"spillPath\":", &r.spill_path),
            (",\"command\":", &r.command),
        ] {
            out.push_str(key);
            match value {
                Some(s) => json::push_str(&mut out, s),
                None => out.push_str("null"),
            }
        }
        out.push('}');
        Ok(())
    })();
    match result {
        Ok(()) => out,
        Err(e) => format!("{{\"error\":{}}}", e.to_json()),
    }
}

fn finished() -> String {
    let mut out = String::from("{\"code\":\"invalid_state\",\"message\":");
    json::push_str(
        &mut out,
        "invalid_state: this Searcher was already finished",
    );
    out.push_str(",\"reason\":\"this Searcher was already finished\"}");
    out
}

/// A streaming search of one saved output.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WasmSearcher {
    /// `None` once finished.
    inner: Option<Searcher>,
}

#[wasm_bindgen]
impl WasmSearcher {
    /// A search for `pattern`; throws an error-object JSON string
    /// (`range_error`, `invalid_argument`, `invalid_limits`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        pattern: &str,
        context: f64,
        max_lines: f64,
        max_bytes: f64,
        ignore_case: bool,
    ) -> Result<WasmSearcher, String> {
        let options = SearchOptions {
            context: limit(context, "context")?,
            max_lines: limit(max_lines, "maxLines")?,
            max_bytes: limit(max_bytes, "maxBytes")?,
            ignore_case,
        };
        let inner = Searcher::new(pattern, options).map_err(|e| json::write_error(&e))?;
        Ok(WasmSearcher { inner: Some(inner) })
    }

    /// Feeds the next chunk.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.inner.as_mut().ok_or_else(finished)?.push(chunk);
        Ok(())
    }

    /// Bytes held, bounded by the options.
    pub fn buffered_bytes(&self) -> f64 {
        self.inner
            .as_ref()
            .map_or(0.0, |s| s.buffered_bytes() as f64)
    }

    /// Ends the input: the result as JSON (camelCase keys).
    pub fn finish(&mut self, path: Option<String>) -> Result<String, String> {
        let inner = self.inner.take().ok_or_else(finished)?;
        Ok(result_json(&inner.finish(path.as_deref())))
    }
}
