//! Names in each language: one concept has one name, in snake_case in the
//! core, Rust and Python, camelCase in JavaScript, kebab-case in WIT. The
//! bindings spell the core's names with these functions rather than keep
//! their own tables.
//!
//! ```
//! use dory_wire::names::{camel_case, js_argument};
//!
//! assert_eq!(camel_case("idempotency_key"), "idempotencyKey");
//! // JavaScript takes durations in milliseconds, under names that say so.
//! assert_eq!(js_argument("timeout_seconds"), "timeoutMs");
//! assert_eq!(js_argument("liveness_timeout"), "livenessTimeoutMs");
//! assert_eq!(js_argument("base_url"), "baseUrl");
//! ```

/// `snake_case` → `camelCase` (a name without `_` is unchanged).
pub fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The durations the core takes as a [`Duration`](std::time::Duration) or
/// in seconds, and the JavaScript names that take them in milliseconds.
const JS_DURATIONS: &[(&str, &str)] = &[
    ("timeout_seconds", "timeoutMs"),
    ("answer_timeout", "answerTimeoutMs"),
    ("liveness_timeout", "livenessTimeoutMs"),
    ("backoff", "backoffMs"),
    ("max_backoff", "maxBackoffMs"),
];

/// The JavaScript name of an argument the core names (what the `argument`
/// of an `invalid_argument` error says in JavaScript): its camelCase, or the
/// millisecond name of a duration. A name already in camelCase is kept.
pub fn js_argument(name: &str) -> String {
    match JS_DURATIONS.iter().find(|(core, _)| *core == name) {
        Some((_, js)) => (*js).to_owned(),
        None => camel_case(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_and_idempotence() {
        assert_eq!(camel_case("max_frame_bytes"), "maxFrameBytes");
        assert_eq!(camel_case("tokenizer"), "tokenizer");
        assert_eq!(camel_case("spillId"), "spillId");
        for (core, js) in JS_DURATIONS {
            assert_eq!(js_argument(core), *js);
            assert_eq!(js_argument(js), *js, "a JavaScript name stays");
        }
        assert_eq!(js_argument("computer_id"), "computerId");
        assert_eq!(js_argument("gap_policy"), "gapPolicy");
    }
}
