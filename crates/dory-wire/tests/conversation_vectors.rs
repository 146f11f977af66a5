//! Runs every `kind: "conversation"` vector of `tests/vectors/**/*.json`
//! through a [`Follower`]: the requests it asks for, the scripted responses
//! fed whole, byte by byte and at seeded random splits, and the decisions it
//! makes — the same for every split, equal to the vector's.

mod common;

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use common::conversation::{
    body_bytes, command_of, cursor_of, error_json, options_of, reconnect_json, request_json,
};
use common::{cursor_json, event_json, subset_matches, vectors, Rng};
use dory_wire::{Decision, Error, Event, Follower, Request, ResumeState, Stream};
use serde_json::{json, Value};

fn follower_of(v: &Value) -> Result<Follower, Error> {
    let read = &v["read"];
    let s = |k: &str| read[k].as_str().expect(k);
    let options = options_of(v);
    match s("type") {
        "process_output" => Follower::process_output(
            s("computer_id"),
            s("proc_id"),
            read.get("cursor").map(cursor_of).unwrap_or_default(),
            options,
        ),
        "resume" => {
            let state: ResumeState =
                serde_json::from_value(read["state"].clone()).expect("a resume state");
            Follower::resume(s("computer_id"), &state, options)
        }
        "setup_logs" => Follower::setup_logs(
            s("computer_id"),
            read.get("offset").and_then(Value::as_u64).unwrap_or(0),
            options,
        ),
        // The one-answer calls (docs/PROTOCOL.md, "One-answer calls").
        "start" | "exec" => {
            let command = command_of(&read["command"]);
            let timeout = read.get("timeout_seconds").and_then(Value::as_f64);
            let key = read.get("idempotency_key").and_then(Value::as_str);
            let request = if s("type") == "start" {
                Request::start(s("computer_id"), &command, timeout, key)?
            } else {
                Request::exec(s("computer_id"), &command, timeout, key, false)?
            };
            Follower::call(request, options)
        }
        "get_process" => Follower::call(
            Request::get_process(s("computer_id"), s("proc_id"))?,
            options,
        ),
        "kill" => Follower::call(Request::kill(s("computer_id"), s("proc_id"))?, options),
        "exec_stream" => {
            let command = command_of(&read["command"]);
            Follower::exec_stream(
                s("computer_id"),
                &command,
                read.get("timeout_seconds").and_then(Value::as_f64),
                read.get("idempotency_key").and_then(Value::as_str),
                options,
            )
        }
        other => panic!("unknown read type {other}"),
    }
}

fn decision_json(d: &Decision) -> Value {
    match d {
        Decision::Done(done) => json!({
            "type": "done", "exited": done.exited, "exit_code": done.exit_code,
            "timed_out": done.timed_out, "cursor": cursor_json(&done.cursor), "proc_id": done.proc_id,
        }),
        Decision::Reconnect(r) => {
            let mut record = reconnect_json(r);
            record["type"] = json!("reconnect");
            record
        }
        Decision::Continue => json!({"type": "continue"}),
    }
}

/// What one run of a conversation produced.
#[derive(Debug, PartialEq)]
struct Run {
    requests: Vec<Value>,
    decisions: Vec<Value>,
    events: Vec<Event>,
    cursor: Value,
    proc_id: Value,
}

/// A `stall` (docs/VECTORS.md): the wait for the service runs out. The
/// follower offers a whole liveness timeout (`wait_limit`); a wait of
/// nothing is not over; a wait of the whole limit is.
fn stall_wait(follower: &mut Follower) {
    let liveness = follower.options().liveness_timeout;
    let limit = follower.wait_limit();
    assert_eq!(limit, Some(liveness), "a whole liveness timeout to wait");
    assert!(!follower.waited(Duration::ZERO), "not over as it begins");
    assert!(follower.waited(liveness), "over at the liveness timeout");
}

/// Plays a conversation; `split` gives the cut points of each body.
fn play(v: &Value, split: &mut dyn FnMut(usize) -> Vec<usize>) -> Run {
    let mut run = Run {
        requests: Vec::new(),
        decisions: Vec::new(),
        events: Vec::new(),
        cursor: Value::Null,
        proc_id: Value::Null,
    };
    let mut follower = match follower_of(v) {
        Ok(f) => f,
        Err(e) => {
            run.decisions.push(error_json(&e));
            return run;
        }
    };
    for exchange in v["exchanges"].as_array().expect("exchanges") {
        let request = match follower.request() {
            Ok(r) => r,
            Err(e) => {
                run.decisions.push(error_json(&e));
                break;
            }
        };
        run.requests.push(request_json(&request));
        let response = &exchange["response"];
        let jitter = exchange
            .get("jitter")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let stall = response
            .get("stall")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let decision = if let Some(detail) = response.get("not_connected") {
            follower.not_connected(detail.as_str().expect("not_connected"), jitter)
        } else if response.get("no_response").is_some()
            || (stall && response.get("status").is_none())
        {
            if stall {
                // The wait for the headers runs out.
                stall_wait(&mut follower);
            }
            follower.no_response(response["no_response"].as_str().unwrap_or(""), jitter)
        } else {
            let status = response["status"].as_u64().expect("status") as u16;
            let header = |k: &str| response.get(k).and_then(Value::as_str);
            let opened = follower.open(
                status,
                header("content_type").unwrap_or(""),
                header("proc_id"),
                header("retry_after"),
            );
            let body = body_bytes(response);
            let mut fed = opened;
            if fed.is_ok() {
                let mut at = 0;
                for cut in split(body.len())
                    .into_iter()
                    .chain(std::iter::once(body.len()))
                {
                    fed = follower.feed(&body[at..cut], &mut run.events);
                    if fed.is_err() {
                        break;
                    }
                    at = cut;
                }
            }
            match fed {
                Err(e) => Err(e),
                Ok(()) => {
                    if stall {
                        // The wait for more of the body runs out.
                        stall_wait(&mut follower);
                    }
                    follower.finish(header("broken"), jitter, &mut run.events)
                }
            }
        };
        match decision {
            Ok(d) => run.decisions.push(decision_json(&d)),
            Err(e) => {
                run.decisions.push(error_json(&e));
                break;
            }
        }
    }
    run.cursor = cursor_json(&follower.cursor());
    run.proc_id = json!(follower.proc_id());
    run
}

fn check(v: &Value, run: &Run) -> Vec<String> {
    let mut problems = Vec::new();
    let exchanges = v["exchanges"].as_array().expect("exchanges");
    if run.decisions.len() != exchanges.len() {
        problems.push(format!(
            "{} exchanges scripted, the conversation had {}: {:?}",
            exchanges.len(),
            run.decisions.len(),
            run.decisions
        ));
    }
    for (i, exchange) in exchanges.iter().enumerate() {
        if let (Some(expected), Some(got)) = (exchange.get("request"), run.requests.get(i)) {
            let mut expected = expected.clone();
            let obj = expected.as_object_mut().expect("request object");
            obj.entry("body").or_insert(Value::Null);
            if &expected != got {
                problems.push(format!(
                    "request {i}\n    expected {expected}\n    got      {got}"
                ));
            }
        }
        if let (Some(expected), Some(got)) = (exchange.get("decision"), run.decisions.get(i)) {
            let mut e = expected.clone();
            let mut g = got.clone();
            let delay = |d: &mut Value| {
                d.as_object_mut()
                    .and_then(|o| o.remove("delay_ms"))
                    .and_then(|x| x.as_f64())
            };
            let (ed, gd) = (delay(&mut e), delay(&mut g));
            let delay_ok = match (ed, gd) {
                (Some(a), Some(b)) => (a - b).abs() < 1e-3,
                (None, _) => true,
                (Some(_), None) => false,
            };
            if !subset_matches(&e, &g) || !delay_ok {
                problems.push(format!(
                    "decision {i}\n    expected {expected}\n    got      {got}"
                ));
            }
        }
    }
    if let Some(last) = exchanges.last().and_then(|e| e.get("decision")) {
        let t = last["type"].as_str().unwrap_or("");
        if t != "done" && t != "error" {
            problems.push(format!("the last decision must be done or error, not {t}"));
        }
    }
    let expect = &v["expect"];
    let bytes = |stream: Stream| -> Vec<u8> {
        run.events
            .iter()
            .filter_map(|e| match e {
                Event::Output {
                    stream: s, data, ..
                } if *s == stream => Some(data.as_slice()),
                _ => None,
            })
            .flatten()
            .copied()
            .collect()
    };
    for stream in [Stream::Stdout, Stream::Stderr] {
        let name = stream.as_str();
        let expected = if let Some(text) = expect.get(name).and_then(Value::as_str) {
            Some(text.as_bytes().to_vec())
        } else {
            expect
                .get(format!("{name}_b64"))
                .and_then(Value::as_str)
                .map(|b| STANDARD.decode(b).expect("base64"))
        };
        if let Some(expected) = expected {
            let got = bytes(stream);
            if got != expected {
                problems.push(format!(
                    "{name}\n    expected {:?}\n    got      {:?}",
                    String::from_utf8_lossy(&expected),
                    String::from_utf8_lossy(&got)
                ));
            }
        }
    }
    let skipped: Vec<Value> = run
        .events
        .iter()
        .filter(|e| matches!(e, Event::Skipped { .. }))
        .map(event_json)
        .collect();
    let expected_skipped = expect.get("skipped").cloned().unwrap_or(json!([]));
    if json!(skipped) != expected_skipped {
        problems.push(format!(
            "skipped\n    expected {expected_skipped}\n    got      {}",
            json!(skipped)
        ));
    }
    if let Some(exit) = expect.get("exit") {
        let got = run
            .events
            .iter()
            .find_map(|e| match e {
                Event::Exit { .. } => {
                    let mut fields = common::event_json(e);
                    fields.as_object_mut()?.remove("type");
                    Some(fields)
                }
                _ => None,
            })
            .unwrap_or(Value::Null);
        if &got != exit {
            problems.push(format!("exit\n    expected {exit}\n    got      {got}"));
        }
    }
    if let Some(events) = expect.get("events") {
        let got: Vec<Value> = run
            .events
            .iter()
            .filter(|e| !matches!(e, Event::Output { .. }))
            .map(event_json)
            .collect();
        if events != &json!(got) {
            problems.push(format!(
                "events\n    expected {events}\n    got      {}",
                json!(got)
            ));
        }
    }
    if let Some(cursor) = expect.get("cursor") {
        if cursor != &run.cursor {
            problems.push(format!(
                "cursor\n    expected {cursor}\n    got      {}",
                run.cursor
            ));
        }
    }
    if let Some(proc_id) = expect.get("proc_id") {
        if proc_id != &run.proc_id {
            problems.push(format!(
                "proc_id\n    expected {proc_id}\n    got      {}",
                run.proc_id
            ));
        }
    }
    problems
}

#[test]
fn every_conversation_vector_at_every_split() {
    let vectors = vectors("conversation");
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (path, v) in &vectors {
        let name = v["name"].as_str().unwrap_or("<unnamed>").to_owned();
        assert!(names.insert(name.clone()), "duplicate vector name {name}");
        let whole = play(v, &mut |_| Vec::new());
        let mut problems = check(v, &whole);
        let bytewise = play(v, &mut |len| (1..len).collect());
        if bytewise != whole {
            problems.push("byte-by-byte feeding differs from feeding whole".into());
        }
        let mut rng = Rng::new(0xC0_4E ^ name.len() as u64);
        for round in 0..6 {
            let split = play(v, &mut |len| rng.cuts(len, 5));
            if split != whole {
                problems.push(format!(
                    "random split round {round} differs from feeding whole"
                ));
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{name} ({}):\n  {}",
                path.display(),
                problems.join("\n  ")
            ));
        }
    }
    println!("ran {} conversation vectors", vectors.len());
    assert!(
        vectors.len() >= 40,
        "at least 40 conversation vectors, found {}",
        vectors.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} conversation vectors failed:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}

#[test]
fn the_runner_reports_a_vector_that_disagrees() {
    // A wrong request, delay, output or exchange count is each caught.
    let (_, original) = vectors("conversation")
        .into_iter()
        .find(|(_, v)| v["name"] == "conversation-cut-mid-frame-overlap-trimmed")
        .expect("the vector");
    let mutations: [fn(&mut Value); 4] = [
        |v| v["exchanges"][1]["request"]["target"] = json!("/elsewhere"),
        |v| v["exchanges"][0]["decision"]["delay_ms"] = json!(7.0),
        |v| v["expect"]["stdout"] = json!("abcx"),
        |v| {
            let first = v["exchanges"][0].clone();
            v["exchanges"]
                .as_array_mut()
                .expect("exchanges")
                .insert(0, first);
        },
    ];
    assert!(check(&original, &play(&original, &mut |_| Vec::new())).is_empty());
    for (i, mutate) in mutations.iter().enumerate() {
        let mut v = original.clone();
        mutate(&mut v);
        let run = play(&v, &mut |_| Vec::new());
        assert!(!check(&v, &run).is_empty(), "mutation {i} went unnoticed");
    }
}
