//! The JSON shapes of the conversation vectors, shared by the runners of
//! kinds "conversation" and "run-conversation".

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use dory_wire::{Command, Cursor, Error, FieldValue, FollowOptions, GapPolicy, Reconnect, Request};
use serde_json::{json, Map, Value};

use super::cursor_json;

pub fn cursor_of(v: &Value) -> Cursor {
    Cursor::new(
        v["stdout"].as_u64().unwrap_or(0),
        v["stderr"].as_u64().unwrap_or(0),
    )
}

pub fn options_of(v: &Value) -> FollowOptions {
    let mut o = FollowOptions::default();
    let Some(opts) = v.get("options") else {
        return o;
    };
    let ms = |k: &str| {
        opts.get(k)
            .and_then(Value::as_u64)
            .map(Duration::from_millis)
    };
    if let Some(f) = opts.get("follow").and_then(Value::as_bool) {
        o = o.follow(f);
    }
    if let Some(p) = opts.get("gap_policy").and_then(Value::as_str) {
        o = o.gap_policy(GapPolicy::from_name(p).expect("known gap policy"));
    }
    if let Some(r) = opts.get("retries").and_then(Value::as_u64) {
        o = o.retries(r as u32);
    }
    if let Some(d) = ms("backoff_ms") {
        o = o.backoff(d);
    }
    if let Some(d) = ms("max_backoff_ms") {
        o = o.max_backoff(d);
    }
    if let Some(j) = opts.get("jitter").and_then(Value::as_bool) {
        o = o.jitter(j);
    }
    if let Some(d) = ms("liveness_timeout_ms") {
        o = o.liveness_timeout(d);
    }
    if let Some(m) = opts.get("max_frame_bytes").and_then(Value::as_u64) {
        o = o.max_frame_bytes(m as usize);
    }
    if let Some(s) = opts.get("strict").and_then(Value::as_bool) {
        o = o.strict(s);
    }
    o
}

/// An error decision: its code and every field of its code, named as the
/// core's table names them (as every other runner does).
pub fn error_json(e: &Error) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("error"));
    m.insert("code".into(), json!(e.code()));
    for (name, value) in e.fields() {
        let value = match value {
            FieldValue::Str(s) => json!(s),
            FieldValue::OptStr(s) => json!(s),
            FieldValue::U64(n) => json!(n),
            FieldValue::Stream(s) => json!(s.as_str()),
            FieldValue::Cursor(c) => cursor_json(&c),
            FieldValue::Bool(b) => json!(b),
        };
        m.insert(name.into(), value);
    }
    Value::Object(m)
}

pub fn command_of(value: &Value) -> Command {
    match value {
        Value::String(line) => Command::shell(line.clone()),
        Value::Array(args) => Command::argv(args.iter().map(|a| a.as_str().expect("str"))),
        other => panic!("command {other}"),
    }
}

pub fn request_json(r: &Request) -> Value {
    let headers: Map<String, Value> = r
        .headers
        .iter()
        .map(|(k, v)| ((*k).to_owned(), json!(v)))
        .collect();
    let body = match &r.body {
        Some(b) => serde_json::from_slice(b).expect("a JSON body"),
        None => Value::Null,
    };
    json!({"method": r.method.as_str(), "target": r.target(), "headers": headers, "body": body})
}

/// A reconnect record in the vectors' shape (without its `type`).
pub fn reconnect_json(r: &Reconnect) -> Value {
    json!({
        "attempt": r.attempt, "failures": r.failures,
        "reason": r.reason.as_str(), "cursor": cursor_json(&r.cursor),
        "delay_ms": r.delay.as_secs_f64() * 1000.0, "proc_id": r.proc_id, "detail": r.detail,
    })
}

pub fn body_bytes(response: &Value) -> Vec<u8> {
    if let Some(b) = response.get("body_b64").and_then(Value::as_str) {
        STANDARD.decode(b).expect("body_b64 is base64")
    } else {
        response
            .get("body")
            .and_then(Value::as_str)
            .unwrap_or("")
            .as_bytes()
            .to_vec()
    }
}
