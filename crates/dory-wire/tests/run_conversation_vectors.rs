//! Runs every `kind: "run-conversation"` vector of `tests/vectors/**/*.json`
//! through a [`Run`]: the requests it asks for, the scripted answers fed
//! whole, byte by byte and at seeded random splits, the steps it decides,
//! the actions it gives and the result — the same for every split, equal to
//! the vector's (docs/VECTORS.md, kind "run-conversation").
//!
//! `DORY_PRINT_RUN_VECTORS=1` prints what each vector produced (to write a
//! new vector's expectation, then check it by eye).

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use common::conversation::{
    body_bytes, command_of, error_json, options_of, reconnect_json, request_json,
};
use common::preview::keep_of;
use common::{subset_matches, vectors, Rng};
use dory_wire::preview::{Preview, SpillError, SpillOutcome, View};
use dory_wire::{Error, Run, RunActionBuf, RunOptions, RunResult, RunStep};
use serde_json::{json, Value};

fn run_of(v: &Value) -> Result<Run, Error> {
    let r = &v["run"];
    let flag = |k: &str| r.get(k).and_then(Value::as_bool).unwrap_or(false);
    let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut options = RunOptions::new()
        .follow(options_of(v))
        .kill_on_cancel(flag("kill_on_cancel"))
        .spill(flag("spill"))
        .on_output(flag("on_output"));
    options.idempotency_key = text("idempotency_key");
    options.hint = text("hint");
    options.timeout_seconds = r.get("timeout_seconds").and_then(Value::as_f64);
    if let Some(n) = r.get("max_lines").and_then(Value::as_u64) {
        options = options.max_lines(n as usize);
    }
    if let Some(n) = r.get("max_bytes").and_then(Value::as_u64) {
        options = options.max_bytes(n as usize);
    }
    if let Some(ms) = r.get("answer_timeout_ms").and_then(Value::as_u64) {
        options = options.answer_timeout(Duration::from_millis(ms));
    }
    // Absent: the run's defaults (the default patterns, terminal on).
    if let Some(keep) = r.get("keep") {
        options = options.keep(keep_of(keep).expect("a vector's keep")?);
    }
    if let Some(terminal) = r.get("terminal") {
        options = options.terminal(terminal.as_bool().expect("terminal is a bool"));
    }
    let mut random = [0u8; 16];
    if let Some(hex) = r.get("random_hex").and_then(Value::as_str) {
        for (i, byte) in random.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("random_hex");
        }
    }
    Run::new(
        r["computer_id"].as_str().expect("computer_id"),
        &command_of(&r["command"]),
        options,
        random,
    )
}

fn step_json(step: &RunStep) -> Value {
    match step {
        RunStep::Send => json!({"type": "send"}),
        RunStep::Wait { delay, reconnect } => json!({
            "type": "wait",
            "delay_ms": delay.as_secs_f64() * 1000.0,
            "reconnect": reconnect.as_ref().map(reconnect_json),
        }),
        RunStep::Done => json!({"type": "done"}),
        RunStep::Cancelled => json!({"type": "cancelled"}),
    }
}

fn preview_json(p: &Preview<'_>) -> Value {
    json!({
        "text": p.text, "truncated": p.truncated, "total_bytes": p.total_bytes,
        "total_lines": p.total_lines, "spill_id": p.spill_id, "spill_path": p.spill_path,
        "spill_error": p.spill_error,
    })
}

fn result_json(r: &RunResult) -> Value {
    // The canonical JSON (RunResult::to_json) says the same as the fields.
    let canonical: Value = serde_json::from_str(&r.to_json()).expect("to_json is JSON");
    for (key, preview) in [
        ("stdout", &r.stdout),
        ("stderr", &r.stderr),
        ("combined", &r.combined),
    ] {
        let mine = preview_json(preview);
        for field in mine.as_object().expect("an object").keys() {
            assert_eq!(canonical[key][field], mine[field], "{key}.{field}");
        }
        let kinds: Vec<&str> = preview.notices.iter().map(|n| n.kind.as_str()).collect();
        let written: Vec<&str> = canonical[key]["notices"]
            .as_array()
            .expect("notices")
            .iter()
            .map(|n| n["kind"].as_str().expect("kind"))
            .collect();
        assert_eq!(kinds, written, "{key}");
    }
    assert_eq!(canonical["proc_id"], r.proc_id);
    assert_eq!(canonical["exit_code"], json!(r.exit_code));
    assert_eq!(canonical["stdout_lost_bytes"], r.stdout_lost_bytes);
    json!({
        "proc_id": r.proc_id, "idempotency_key": r.idempotency_key,
        "exit_code": r.exit_code, "timed_out": r.timed_out,
        "stdout_lost_bytes": r.stdout_lost_bytes, "stderr_lost_bytes": r.stderr_lost_bytes,
        "stdout": preview_json(&r.stdout), "stderr": preview_json(&r.stderr),
        "combined": preview_json(&r.combined),
    })
}

/// One view's spill file as the runner's writer saw it.
#[derive(Debug, Clone, PartialEq, Default)]
struct File {
    spill_id: String,
    data: Vec<u8>,
    end: Option<&'static str>,
    /// Order problems (a write before the open, anything after the end).
    problems: Vec<String>,
}

/// The runner's client: a spill writer that records (or fails as the
/// vector says) and an output hook that records.
#[derive(Debug, PartialEq, Default)]
struct Client {
    files: BTreeMap<&'static str, File>,
    output: BTreeMap<&'static str, (Vec<u8>, String)>,
    /// (view, at, error) of the failing writer.
    fail: Option<(View, String, String)>,
    /// Failures to report once the call that gave the actions returned.
    failed: Vec<View>,
    commits: Vec<View>,
}

impl Client {
    fn fails(&self, view: View, at: &str) -> bool {
        self.fail
            .as_ref()
            .is_some_and(|(v, a, _)| *v == view && a == at)
    }

    fn act(&mut self, actions: Vec<RunActionBuf>) {
        for action in actions {
            match action {
                RunActionBuf::OpenSpill { view, spill_id } => {
                    let failing = self.fails(view, "open");
                    let file = self.files.entry(view.as_str()).or_default();
                    if !file.spill_id.is_empty() {
                        file.problems.push("opened twice".into());
                    }
                    file.spill_id = spill_id;
                    if failing {
                        file.end = Some("failed");
                        self.failed.push(view);
                    }
                }
                RunActionBuf::WriteSpill { view, data } => {
                    let failing = self.fails(view, "write");
                    let file = self.files.entry(view.as_str()).or_default();
                    if file.spill_id.is_empty() {
                        file.problems.push("a write before the open".into());
                    }
                    match file.end {
                        Some("failed") => {} // the writer failed: nothing more
                        Some(end) => file.problems.push(format!("a write after {end}")),
                        None if failing => {
                            file.end = Some("failed");
                            self.failed.push(view);
                        }
                        None => file.data.extend_from_slice(&data),
                    }
                }
                RunActionBuf::CommitSpill { view } => {
                    let failing = self.fails(view, "commit");
                    let file = self.files.entry(view.as_str()).or_default();
                    if file.end.is_some() {
                        file.problems.push("a commit after its end".into());
                    }
                    file.end = Some(if failing { "failed" } else { "commit" });
                    self.commits.push(view);
                }
                RunActionBuf::DiscardSpill { view } => {
                    let file = self.files.entry(view.as_str()).or_default();
                    if file.end.is_some_and(|e| e != "failed") {
                        file.problems.push("a discard after its end".into());
                    }
                    if file.end.is_none() {
                        file.end = Some("discard");
                    }
                }
                RunActionBuf::Output { stream, data, text } => {
                    let out = self.output.entry(stream.as_str()).or_default();
                    out.0.extend_from_slice(&data);
                    out.1.push_str(&text);
                }
            }
        }
    }

    /// Reports the writer's failures to the run, after the call returned.
    fn report(&mut self, run: &mut Run) {
        let error = self.fail.as_ref().map(|f| f.2.clone()).unwrap_or_default();
        for view in self.failed.drain(..) {
            run.spill_failed(
                view,
                SpillError::WriterFailed {
                    error: error.clone(),
                },
            );
        }
    }

    /// Reports each commit's outcome.
    fn commit(&mut self, run: &mut Run) {
        let error = self.fail.as_ref().map(|f| f.2.clone()).unwrap_or_default();
        for view in self.commits.drain(..) {
            let outcome = if self.files[view.as_str()].end == Some("failed") {
                SpillError::WriterFailed {
                    error: error.clone(),
                }
                .into()
            } else {
                SpillOutcome::Saved {
                    path: format!("/spill/{}", run.spill_id(view)),
                }
            };
            run.spill_committed(view, outcome);
        }
    }
}

/// What one play of a run conversation produced.
#[derive(Debug, PartialEq)]
struct Played {
    requests: Vec<Value>,
    steps: Vec<Value>,
    client: Client,
    result: Value,
    state: &'static str,
}

fn play(v: &Value, split: &mut dyn FnMut(usize) -> Vec<usize>) -> Played {
    let mut client = Client::default();
    if let Some(f) = v.get("spill_writer") {
        client.fail = Some((
            View::from_name(f["view"].as_str().expect("view")).expect("a view"),
            f["at"].as_str().expect("at").to_owned(),
            f["error"].as_str().unwrap_or("").to_owned(),
        ));
    }
    let mut played = Played {
        requests: Vec::new(),
        steps: Vec::new(),
        client,
        result: Value::Null,
        state: "failed",
    };
    let mut run = match run_of(v) {
        Ok(run) => run,
        Err(e) => {
            played.steps.push(error_json(&e));
            return played;
        }
    };
    let client = &mut played.client;
    for exchange in v["exchanges"].as_array().expect("exchanges") {
        let cancel = exchange
            .get("cancel")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let step = if exchange.get("request").is_none() {
            let mut actions = Vec::new();
            let step = run.cancel(&mut actions);
            client.act(actions);
            Ok(step)
        } else {
            play_exchange(
                &mut run,
                exchange,
                cancel,
                client,
                &mut played.requests,
                split,
            )
        };
        match step {
            Ok(step) => {
                played.steps.push(step_json(&step));
                if step == RunStep::Done {
                    client.commit(&mut run);
                    played.result = match run.result() {
                        Ok(r) => result_json(&r),
                        Err(e) => error_json(&e),
                    };
                }
            }
            Err(e) => {
                played.steps.push(error_json(&e));
                break;
            }
        }
    }
    played.state = run.state().as_str();
    played
}

fn play_exchange(
    run: &mut Run,
    exchange: &Value,
    cancel: bool,
    client: &mut Client,
    requests: &mut Vec<Value>,
    split: &mut dyn FnMut(usize) -> Vec<usize>,
) -> Result<RunStep, Error> {
    let request = run.request()?;
    requests.push(request_json(&request));
    let response = exchange.get("response");
    let cancelled = |run: &mut Run, client: &mut Client| {
        let mut actions = Vec::new();
        let step = run.cancel(&mut actions);
        client.act(actions);
        Ok(step)
    };
    let Some(response) = response else {
        assert!(cancel, "an exchange without a response cancels");
        return cancelled(run, client);
    };
    let jitter = exchange
        .get("jitter")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let stall = response
        .get("stall")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(detail) = response.get("not_connected") {
        return run.not_connected(detail.as_str().expect("not_connected"), jitter);
    }
    if response.get("no_response").is_some() || (stall && response.get("status").is_none()) {
        if stall {
            let limit = run.wait_limit().expect("a bounded wait for the headers");
            assert!(run.waited(limit), "the headers wait is over");
        }
        return run.no_response(response["no_response"].as_str().unwrap_or(""), jitter);
    }
    let header = |k: &str| response.get(k).and_then(Value::as_str);
    let status = response["status"].as_u64().expect("status") as u16;
    run.open(
        status,
        header("content_type").unwrap_or(""),
        header("proc_id"),
        header("retry_after"),
    )?;
    let mut trickled = false;
    if let Some(pieces) = response.get("pieces").and_then(Value::as_array) {
        for piece in pieces {
            let wait = Duration::from_millis(piece["wait_ms"].as_u64().expect("wait_ms"));
            if run.waited(wait) {
                trickled = true;
                break;
            }
            let mut actions = Vec::new();
            let fed = run.feed(
                piece["body"].as_str().expect("body").as_bytes(),
                &mut actions,
            );
            client.act(actions);
            client.report(run);
            fed?;
        }
    } else {
        let body = body_bytes(response);
        let mut at = 0;
        for cut in split(body.len())
            .into_iter()
            .chain(std::iter::once(body.len()))
        {
            let mut actions = Vec::new();
            let fed = run.feed(&body[at..cut], &mut actions);
            client.act(actions);
            client.report(run);
            fed?;
            at = cut;
        }
    }
    if cancel {
        return cancelled(run, client);
    }
    if stall && !trickled {
        let limit = run.wait_limit().expect("a bounded wait for the body");
        assert!(run.waited(limit), "the stream stalls");
    }
    let broken = if trickled { None } else { header("broken") };
    let mut actions = Vec::new();
    let step = run.finish(broken, jitter, &mut actions);
    client.act(actions);
    client.report(run);
    step
}

fn bytes_of(v: &Value, key: &str) -> Option<Vec<u8>> {
    if let Some(text) = v.get(key).and_then(Value::as_str) {
        return Some(text.as_bytes().to_vec());
    }
    v.get(format!("{key}_b64"))
        .and_then(Value::as_str)
        .map(|b| STANDARD.decode(b).expect("base64"))
}

fn check(v: &Value, played: &Played) -> Vec<String> {
    let mut problems = Vec::new();
    let exchanges = v["exchanges"].as_array().expect("exchanges");
    if played.steps.len() != exchanges.len() {
        problems.push(format!(
            "{} exchanges scripted, the run had {}: {:?}",
            exchanges.len(),
            played.steps.len(),
            played.steps
        ));
    }
    let expected_requests: Vec<&Value> =
        exchanges.iter().filter_map(|e| e.get("request")).collect();
    for (i, (expected, got)) in expected_requests
        .iter()
        .zip(played.requests.iter())
        .enumerate()
    {
        let mut expected = (*expected).clone();
        expected
            .as_object_mut()
            .expect("request object")
            .entry("body")
            .or_insert(Value::Null);
        if &expected != got {
            problems.push(format!(
                "request {i}\n    expected {expected}\n    got      {got}"
            ));
        }
    }
    for (i, (exchange, got)) in exchanges.iter().zip(played.steps.iter()).enumerate() {
        let Some(expected) = exchange.get("step") else {
            problems.push(format!("exchange {i} has no step"));
            continue;
        };
        if !step_matches(expected, got) {
            problems.push(format!(
                "step {i}\n    expected {expected}\n    got      {got}"
            ));
        }
    }
    let expect = &v["expect"];
    if let Some(state) = expect.get("state").and_then(Value::as_str) {
        if state != played.state {
            problems.push(format!(
                "state\n    expected {state}\n    got      {}",
                played.state
            ));
        }
    }
    let spills = expect.get("spills").cloned().unwrap_or(json!({}));
    let spills = spills.as_object().expect("spills object");
    for (view, file) in &played.client.files {
        for p in &file.problems {
            problems.push(format!("spill {view}: {p}"));
        }
        let Some(expected) = spills.get(*view) else {
            problems.push(format!("spill {view} was opened, the vector has none"));
            continue;
        };
        if let Some(id) = expected.get("spill_id").and_then(Value::as_str) {
            if id != file.spill_id {
                problems.push(format!("spill {view} id {} not {id}", file.spill_id));
            }
        }
        if let Some(data) = bytes_of(expected, "data") {
            if data != file.data {
                problems.push(format!(
                    "spill {view} data\n    expected {:?}\n    got      {:?}",
                    String::from_utf8_lossy(&data),
                    String::from_utf8_lossy(&file.data)
                ));
            }
        }
        let end = file.end.unwrap_or("open");
        if expected.get("end").and_then(Value::as_str) != Some(end) {
            problems.push(format!(
                "spill {view} ended {end}, expected {}",
                expected["end"]
            ));
        }
    }
    for view in spills.keys() {
        if !played.client.files.contains_key(view.as_str()) {
            problems.push(format!("spill {view} was never opened"));
        }
    }
    let output = expect.get("output").cloned().unwrap_or(json!({}));
    let output = output.as_object().expect("output object");
    for (stream, (data, text)) in &played.client.output {
        let Some(expected) = output.get(*stream) else {
            problems.push(format!("the hook got {stream}, the vector has none"));
            continue;
        };
        if bytes_of(expected, "data").is_some_and(|d| &d != data) {
            problems.push(format!(
                "output {stream} data {:?}",
                String::from_utf8_lossy(data)
            ));
        }
        if expected.get("text").and_then(Value::as_str) != Some(text.as_str()) {
            problems.push(format!("output {stream} text {text:?}"));
        }
    }
    for stream in output.keys() {
        if !played.client.output.contains_key(stream.as_str()) {
            problems.push(format!("the hook never got {stream}"));
        }
    }
    let expected_result = expect.get("result").cloned().unwrap_or(Value::Null);
    let result_ok = match (&expected_result, &played.result) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        (e, g) => subset_matches(e, g),
    };
    if !result_ok {
        problems.push(format!(
            "result\n    expected {expected_result}\n    got      {}",
            played.result
        ));
    }
    problems
}

fn step_matches(expected: &Value, got: &Value) -> bool {
    let mut e = expected.clone();
    let mut g = got.clone();
    fn delays(v: &mut Value) -> Vec<f64> {
        let mut out = Vec::new();
        if let Some(o) = v.as_object_mut() {
            if let Some(d) = o.remove("delay_ms").and_then(|x| x.as_f64()) {
                out.push(d);
            }
            if let Some(r) = o.get_mut("reconnect").and_then(Value::as_object_mut) {
                if let Some(d) = r.remove("delay_ms").and_then(|x| x.as_f64()) {
                    out.push(d);
                }
            }
        }
        out
    }
    let (ed, gd) = (delays(&mut e), delays(&mut g));
    let delays_ok = ed.len() <= gd.len() && ed.iter().zip(&gd).all(|(a, b)| (a - b).abs() < 1e-3);
    let reconnect_ok = match (e.get("reconnect"), g.get("reconnect")) {
        (Some(Value::Null), Some(g)) => g.is_null(),
        _ => true,
    };
    subset_matches(&e, &g) && delays_ok && reconnect_ok
}

/// `expect`'s values (only the keys it has) made `got`'s.
fn refresh(expected: &mut Value, got: &Value) {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e.iter_mut() {
                if let Some(gv) = g.get(k) {
                    refresh(ev, gv);
                }
            }
        }
        (Value::Array(e), Value::Array(g)) if e.len() == g.len() => {
            for (ev, gv) in e.iter_mut().zip(g) {
                refresh(ev, gv);
            }
        }
        (e, g) => *e = g.clone(),
    }
}

/// `DORY_BLESS_RUN_CONVERSATION=1`: rewrites each vector's expected steps
/// and result (the keys it lists) with what the run machine gives now, for
/// a deliberate change of the previews; review the diff.
fn bless() {
    let dir = common::vectors_dir().join("run-conversation");
    for path in common::json_files(&dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut file: Value = serde_json::from_str(&text).unwrap();
        for v in file["vectors"].as_array_mut().unwrap() {
            let played = play(v, &mut |_| Vec::new());
            if let Some(exchanges) = v["exchanges"].as_array_mut() {
                for (exchange, got) in exchanges.iter_mut().zip(played.steps.iter()) {
                    if let Some(step) = exchange.get_mut("step") {
                        refresh(step, got);
                    }
                }
            }
            if let Some(result) = v["expect"].get_mut("result") {
                if !result.is_null() {
                    refresh(result, &played.result);
                }
            }
        }
        let mut out = serde_json::to_string_pretty(&file).unwrap();
        out.push('\n');
        std::fs::write(&path, out).unwrap();
    }
}

#[test]
fn every_run_conversation_vector_at_every_split() {
    let vectors = vectors("run-conversation");
    if std::env::var_os("DORY_BLESS_RUN_CONVERSATION").is_some() {
        bless();
        return;
    }
    let mut failures = Vec::new();
    let print = std::env::var_os("DORY_PRINT_RUN_VECTORS").is_some();
    for (path, v) in &vectors {
        let name = v["name"].as_str().unwrap_or("<unnamed>").to_owned();
        let whole = play(v, &mut |_| Vec::new());
        if print {
            println!(
                "{name}\n  steps {}\n  result {}\n  files {:?}\n  output {:?}\n  state {}",
                json!(whole.steps),
                whole.result,
                whole.client.files,
                whole.client.output,
                whole.state
            );
        }
        let mut problems = check(v, &whole);
        let bytewise = play(v, &mut |len| (1..len).collect());
        if bytewise != whole {
            problems.push("byte-by-byte feeding differs from feeding whole".into());
        }
        let mut rng = Rng::new(0x2B_4E ^ name.len() as u64);
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
    println!("ran {} run-conversation vectors", vectors.len());
    assert!(
        failures.is_empty(),
        "{} of {} run-conversation vectors failed:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
    assert!(
        vectors.len() >= 25,
        "at least 25 run-conversation vectors, found {}",
        vectors.len()
    );
}

#[test]
fn the_runner_reports_a_vector_that_disagrees() {
    // A wrong request, step, delay, spill, hook text, result or state is
    // each caught.
    let (_, original) = vectors("run-conversation")
        .into_iter()
        .find(|(_, v)| v["name"] == "run-output-cut-mid-frame-resumes-from-the-cursor")
        .expect("the vector");
    let mutations: [fn(&mut Value); 8] = [
        |v| v["exchanges"][1]["request"]["target"] = json!("/elsewhere"),
        |v| v["exchanges"][0]["step"] = json!({"type": "done"}),
        |v| v["exchanges"][1]["step"]["reconnect"]["delay_ms"] = json!(7.0),
        |v| v["expect"]["spills"]["stdout"]["data"] = json!("abcx\n"),
        |v| v["expect"]["spills"]["combined"]["end"] = json!("commit"),
        |v| v["expect"]["output"]["stdout"]["text"] = json!("abc\n"),
        |v| v["expect"]["result"]["combined"]["text"] = json!("ab\n"),
        |v| v["expect"]["state"] = json!("cancelled"),
    ];
    assert!(check(&original, &play(&original, &mut |_| Vec::new())).is_empty());
    for (i, mutate) in mutations.iter().enumerate() {
        let mut v = original.clone();
        mutate(&mut v);
        let played = play(&v, &mut |_| Vec::new());
        assert!(
            !check(&v, &played).is_empty(),
            "mutation {i} went unnoticed"
        );
    }
}
