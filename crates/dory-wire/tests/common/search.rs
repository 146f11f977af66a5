//! The search vectors' options (VECTORS.md, "search").

use dory_wire::search::SearchOptions;
use serde_json::Value;

/// The vector's `context`, `max_lines`, `max_bytes` and `ignore_case`, each
/// the default when absent.
pub fn options_of(v: &Value) -> SearchOptions {
    let d = SearchOptions::default();
    let n = |k: &str, default: usize| {
        v.get(k)
            .and_then(Value::as_u64)
            .map_or(default, |n| n as usize)
    };
    SearchOptions {
        context: n("context", d.context),
        max_lines: n("max_lines", d.max_lines),
        max_bytes: n("max_bytes", d.max_bytes),
        ignore_case: v
            .get("ignore_case")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}
