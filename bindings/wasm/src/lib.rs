//! WebAssembly bindings of [`dory_wire`] for the npm package `dory-wire`.
//!
//! This crate only converts types and maps errors; every decision about the
//! protocol is taken by the core. The JavaScript layer in `npm/src` wraps these
//! low-level exports into the public, camelCase API (`Reader`, `Transcript`,
//! `Follower`, `Run`, `Request`, `bound`, the error classes), so nothing here is
//! meant to be called by users directly. A follower's events cross exactly
//! as a reader's; its requests and decisions cross as small JSON documents.
//!
//! # Crossing the boundary
//!
//! Calls between JavaScript and WebAssembly are cheap but not free, and
//! building JavaScript objects from Rust costs one call per property. So each
//! `feed` of a reader returns one number; its events are then read in place in
//! the module's memory (`wasm_memory`): one record of three `f64` per event
//! (tag, start, end), and the output bytes of all of them in one buffer (one
//! copy out of wasm memory per call, whatever the number of events). Only the
//! rare events that are not output, and errors, cross as a small JSON document
//! (parsed with one `JSON.parse`). [`layout`] defines that layout, once; the
//! JavaScript layer checks its own copy against [`event_layout_hash`]. `feed_into` keeps output bytes in a
//! [`WasmTranscript`] inside wasm memory: nothing crosses per output frame.
//!
//! # One table of errors and constants
//!
//! [`core_tables_json`] hands the JavaScript layer the core's error table
//! ([`dory_wire::ERROR_CODES`]), the base class of each error kind, and the
//! core's constants, so the JavaScript classes and defaults are built from
//! the core rather than typed again.
//!
//! # Integers
//!
//! JavaScript numbers are exact only up to `Number.MAX_SAFE_INTEGER`
//! (2^53 − 1). Offsets and exit codes beyond that are never rounded: the value
//! is reported as an `integer_out_of_range` error instead (see [`json`]).
#![forbid(unsafe_code)]

mod answers;
mod args;
mod feed;
mod follow;
pub mod json;
pub mod layout;
mod preview;
mod reader;
mod request;
mod run;
mod run_bounder;
mod search;
mod text;
mod transcript;
mod wire_json;

use std::fmt::Write as _;

pub use answers::{cursor_after, exec_answer, identity_answer, wire_form};
pub use follow::{WasmFollowOptions, WasmFollower};
pub use layout::event_layout_hash;
pub use preview::{count_tokens, spill_file_name, WasmBounded, WasmBounder, WasmStreamingBounder};
pub use reader::{wasm_memory, WasmReader};
pub use request::{
    request_base_url, request_exec, request_get_process, request_kill, request_output,
    request_setup_logs, request_start,
};
pub use run::WasmRun;
pub use run_bounder::{run_spill_id, WasmRunBounder, WasmRunPending};
pub use text::WasmUtf8Decoder;
pub use transcript::WasmTranscript;

/// The size of the module's WebAssembly memory in bytes (for diagnostics and
/// the leak tests: it grows when memory is not released).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn memory_bytes() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        (core::arch::wasm32::memory_size::<0>() * 65536) as f64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}

/// The core's message of a `stream_disconnected` error with these fields:
/// what a frame iterator raises where the follower would reconnect (from
/// the reconnect's record), so every language has the core's words.
/// `None` for a reason the core does not know.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn stream_disconnected_message(
    reason: &str,
    stdout: u64,
    stderr: u64,
    detail: &str,
) -> Option<String> {
    let reason = dory_wire::DisconnectReason::from_name(reason)?;
    let error = dory_wire::Error::StreamDisconnected {
        reason,
        cursor: dory_wire::Cursor::new(stdout, stderr),
        proc_id: None,
        detail: detail.to_owned(),
    };
    Some(error.to_string())
}

/// Appends `{"code":…,"class":…,"kind":…,"fields":[…]}`.
fn push_code(out: &mut String, code: &str, class: &str, kind: &str, fields: &[&str]) {
    out.push_str("{\"code\":");
    json::push_str(out, code);
    out.push_str(",\"class\":");
    json::push_str(out, class);
    out.push_str(",\"kind\":");
    json::push_str(out, kind);
    out.push_str(",\"fields\":[");
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json::push_str(out, field);
    }
    out.push_str("]}");
}

/// The core's tables for the JavaScript layer, as one JSON document:
///
/// - `errorCodes`: [`dory_wire::ERROR_CODES`], in order, each
///   `{code, class, kind, fields}` with the core's (snake_case) field names;
/// - `kinds`: each kind of that table with its base class (`null` when the
///   classes of the kind derive from `DoryWireError` directly);
/// - `bindingErrorCodes`: the codes only this binding raises
///   (`integer_out_of_range`), in the same shape;
/// - `constants`: `DEFAULT_MAX_FRAME_BYTES`, `DEFAULT_LIVENESS_TIMEOUT_MS`,
///   `MAX_FRAME_BYTES_LIMIT`, `MIN_MAX_BYTES`, and a run's
///   `DEFAULT_RUN_MAX_LINES`, `DEFAULT_RUN_MAX_BYTES` and `MIN_RUN_MAX_BYTES`,
///   and `DEFAULT_KEEP_PATTERNS` ([`dory_wire::preview::Keep::DEFAULT_PATTERNS`]),
///   and `TOKENIZERS` ([`dory_wire::preview::tokenizers`]: the names this
///   build counts with),
///   and `RUN_PRESET` (the options of [`dory_wire::preview::Bounder::run_preset`]:
///   `keep`, `terminal`, `split`);
/// - `followDefaults`: the core's [`dory_wire::FollowOptions::default`] in
///   the JavaScript names and units of the `Follower` options (its keys and
///   the types of its values are the options the JavaScript layer accepts).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn core_tables_json() -> String {
    let mut out = String::with_capacity(2048);
    out.push_str("{\"errorCodes\":[");
    let mut kinds = Vec::new();
    for (i, entry) in dory_wire::ERROR_CODES.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_code(
            &mut out,
            entry.code,
            entry.class,
            entry.kind.as_str(),
            entry.fields,
        );
        if !kinds.contains(&entry.kind) {
            kinds.push(entry.kind);
        }
    }
    out.push_str("],\"kinds\":[");
    for (i, kind) in kinds.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"kind\":");
        json::push_str(&mut out, kind.as_str());
        out.push_str(",\"base\":");
        match kind.base_class() {
            Some(base) => json::push_str(&mut out, base),
            None => out.push_str("null"),
        }
        out.push('}');
    }
    out.push_str("],\"bindingErrorCodes\":[");
    push_code(
        &mut out,
        json::INTEGER_OUT_OF_RANGE,
        "IntegerOutOfRange",
        dory_wire::ErrorKind::Limits.as_str(),
        &["field", "value"],
    );
    let _ = write!(
        out,
        "],\"constants\":{{\"DEFAULT_MAX_FRAME_BYTES\":{},\"DEFAULT_LIVENESS_TIMEOUT_MS\":{},\"MAX_FRAME_BYTES_LIMIT\":{},\"MIN_MAX_BYTES\":{},\"DEFAULT_RUN_MAX_LINES\":{},\"DEFAULT_RUN_MAX_BYTES\":{},\"MIN_RUN_MAX_BYTES\":{},\"DEFAULT_KEEP_PATTERNS\":[",
        dory_wire::DEFAULT_MAX_FRAME_BYTES,
        dory_wire::DEFAULT_LIVENESS_TIMEOUT.as_millis(),
        reader::MAX_FRAME_BYTES_LIMIT,
        dory_wire::preview::MIN_MAX_BYTES,
        dory_wire::preview::DEFAULT_RUN_MAX_LINES,
        dory_wire::preview::DEFAULT_RUN_MAX_BYTES,
        dory_wire::preview::MIN_RUN_MAX_BYTES,
    );
    for (i, pattern) in dory_wire::preview::Keep::DEFAULT_PATTERNS
        .iter()
        .enumerate()
    {
        if i > 0 {
            out.push(',');
        }
        json::push_str(&mut out, pattern);
    }
    out.push_str("],\"TOKENIZERS\":[");
    for (i, name) in dory_wire::preview::tokenizers().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json::push_str(&mut out, name);
    }
    // RUN_PRESET: the options of Bounder::run_preset, in bound()'s names.
    let preset = dory_wire::preview::Bounder::run_preset(1, dory_wire::preview::MIN_MAX_BYTES);
    out.push_str("],\"RUN_PRESET\":{\"keep\":");
    if *preset.keep() == dory_wire::preview::Keep::defaults() {
        json::push_str(&mut out, "defaults");
    } else {
        out.push('[');
        for (i, pattern) in preset.keep().as_slice().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json::push_str(&mut out, pattern);
        }
        out.push(']');
    }
    let _ = write!(out, ",\"terminal\":{},\"split\":", preset.terminal());
    json::push_str(&mut out, preset.limits().split().as_str());
    let _ = write!(
        out,
        "}}}},\"followDefaults\":{}}}",
        wire_json::options_json(&dory_wire::FollowOptions::default()),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_json_and_hold_every_core_code() {
        let v: serde_json::Value = serde_json::from_str(&core_tables_json()).unwrap();
        let codes = v["errorCodes"].as_array().unwrap();
        assert_eq!(codes.len(), dory_wire::ERROR_CODES.len());
        for (got, want) in codes.iter().zip(dory_wire::ERROR_CODES) {
            assert_eq!(got["code"], want.code);
            assert_eq!(got["class"], want.class);
            assert_eq!(got["kind"], want.kind.as_str());
            assert_eq!(got["fields"], serde_json::json!(want.fields));
        }
        assert_eq!(
            v["constants"]["DEFAULT_MAX_FRAME_BYTES"],
            dory_wire::DEFAULT_MAX_FRAME_BYTES
        );
        assert_eq!(
            v["constants"]["DEFAULT_RUN_MAX_BYTES"],
            dory_wire::preview::DEFAULT_RUN_MAX_BYTES
        );
        assert_eq!(
            v["constants"]["MIN_RUN_MAX_BYTES"],
            dory_wire::preview::MIN_RUN_MAX_BYTES
        );
        assert_eq!(
            v["constants"]["DEFAULT_KEEP_PATTERNS"],
            serde_json::json!(dory_wire::preview::Keep::DEFAULT_PATTERNS)
        );
        assert_eq!(
            v["constants"]["RUN_PRESET"],
            serde_json::json!({"keep": "defaults", "terminal": true, "split": "tail"})
        );
        assert_eq!(
            v["constants"]["TOKENIZERS"],
            serde_json::json!(dory_wire::preview::tokenizers())
        );
        assert_eq!(v["bindingErrorCodes"][0]["code"], "integer_out_of_range");
        assert_eq!(v["followDefaults"]["retries"], dory_wire::DEFAULT_RETRIES);
        assert_eq!(
            v["followDefaults"]["backoffMs"],
            dory_wire::DEFAULT_BACKOFF.as_millis() as u64
        );
    }
}
