//! The JSON documents of a conversation with the service, written by hand
//! as [`crate::json`]'s are (every integer checked against
//! `Number.MAX_SAFE_INTEGER`, never rounded), with the keys of the
//! JavaScript objects: a request ([`request_json`]), the options of a
//! follower ([`options_json`]), a follower's decision ([`push_decision`]),
//! a reconnect ([`push_reconnect`]), a run's step ([`step_json`]) and a
//! run's result ([`run_result_json`]).

use std::fmt::Write as _;
use std::time::Duration;

use dory_wire::{Decision, FollowOptions, Reconnect, Request, RunResult, RunStep};

use crate::json::{self, OutOfRange};
use crate::preview::preview_json;

/// A duration in milliseconds, as a JSON number (exact to the nanosecond
/// where an `f64` can be).
pub(crate) fn push_millis(out: &mut String, d: Duration) {
    let _ = write!(out, "{}", d.as_nanos() as f64 / 1_000_000.0);
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

/// Appends a decision as its object, by its row of the core's record table
/// (`{"type":"done",…}`, `{"type":"reconnect",…,"delayMs":…}`,
/// `{"type":"continue"}`; see [`json::push_record_object`]).
pub(crate) fn push_decision(out: &mut String, decision: &Decision) -> Result<(), OutOfRange> {
    let (record, values) = decision.record();
    json::push_record_object(out, record, &values)
}

/// Appends a reconnect record: a follower's `reconnect` decision, and the
/// `reconnect` of a run's `wait` step (the same keys: the reconnect hook
/// gets the same object).
pub(crate) fn push_reconnect(out: &mut String, r: &Reconnect) -> Result<(), OutOfRange> {
    let (record, values) = r.record();
    json::push_record_object(out, record, &values)
}

/// A run's step as its JSON object: `{"type":"send"}`, `{"type":"done"}`,
/// `{"type":"cancelled"}` or `{"type":"wait","delayMs":…,"reconnect":…|null}`.
pub(crate) fn step_json(step: &RunStep) -> Result<String, OutOfRange> {
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

/// A run's result with the keys of the JavaScript object (`procId`,
/// `idempotencyKey`, `exitCode`, `timedOut`, the three previews as
/// [`preview_json`] writes them, `stdoutLostBytes`, `stderrLostBytes`).
/// The core's [`RunResult::to_json`] is the canonical, snake_case document
/// (which the JavaScript result's `toJSON` gives back); this one checks
/// every integer, so none is rounded by `JSON.parse`.
pub(crate) fn run_result_json(r: &RunResult) -> Result<String, OutOfRange> {
    let mut out = String::with_capacity(1024);
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
    Ok(out)
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
    fn steps_and_decisions_have_the_javascript_keys() {
        assert_eq!(step_json(&RunStep::Send).unwrap(), "{\"type\":\"send\"}");
        let mut out = String::new();
        push_decision(&mut out, &Decision::Continue).unwrap();
        assert_eq!(out, "{\"type\":\"continue\"}");
        let preview = || dory_wire::preview::Preview::new("a\n".into());
        let mut result = RunResult::new("p".into(), "k".into(), [preview(), preview(), preview()]);
        let v = value(&run_result_json(&result).unwrap());
        assert_eq!(
            (&v["procId"], &v["exitCode"], &v["stdoutLostBytes"]),
            (
                &serde_json::json!("p"),
                &serde_json::Value::Null,
                &serde_json::json!(0)
            )
        );
        assert_eq!(v["stdout"]["totalLines"], 1);
        result.stderr_lost_bytes = json::MAX_SAFE_INTEGER + 1;
        assert_eq!(
            run_result_json(&result).unwrap_err().field,
            "stderrLostBytes"
        );
    }
}
