//! The endpoints of PROTOCOL.md §1 against real processes.

mod common;

use common::{frame_bytes, Server, Transcript};
use serde_json::{json, Value};

const SEED_CMD: &str = "printf 'hello\\000\\377'; printf 'notice' >&2";

fn exec_stream(server: &Server, command: &str, key: Option<&str>) -> common::Response {
    let mut headers = vec![("Accept", "application/x-ndjson")];
    if let Some(k) = key {
        headers.push(("Idempotency-Key", k));
    }
    server.post_json(
        "/computers/c1/exec",
        &headers,
        &json!({"command": ["sh", "-c", command], "timeout_seconds": 30}),
    )
}

fn transcript(frames: &[Value]) -> Transcript {
    let mut t = Transcript::default();
    for f in frames {
        t.apply(f);
    }
    t
}

#[test]
fn exec_stream_sends_started_binary_chunks_and_exit() {
    let server = Server::start(&[]);
    let mut r = exec_stream(&server, SEED_CMD, None);
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type(), "application/x-ndjson");
    let header_id = r.header("ce-process-id").expect("CE-Process-Id").to_owned();
    // No proxy may buffer a stream (docs/PROTOCOL.md, "Proxies").
    assert_eq!(r.header("x-accel-buffering"), Some("no"));
    let cache = r.header("cache-control").unwrap_or_default();
    assert!(
        cache.contains("no-cache") && cache.contains("no-transform"),
        "{cache}"
    );
    let body = r.body();
    assert!(body.complete);
    let frames = common::parse_frames(&body.bytes);
    assert_eq!(frames[0], json!({"type": "started", "proc_id": header_id}));
    let t = transcript(&frames);
    assert_eq!(t.stdout, b"hello\x00\xff");
    assert_eq!(t.stderr, b"notice");
    assert_eq!(
        t.exit,
        Some(json!({"type": "exit", "exit_code": 0, "timed_out": false}))
    );
    assert_eq!(frames.last(), t.exit.as_ref(), "exit is the last frame");
    // Non-UTF-8 stdout travels as base64; valid UTF-8 as text.
    for f in &frames {
        match f["type"].as_str() {
            Some("stdout") => assert_eq!(f["encoding"], "base64"),
            Some("stderr") => assert!(f.get("encoding").is_none()),
            _ => {}
        }
    }
    // Offsets are end positions in raw bytes.
    let last_stdout = frames.iter().rev().find(|f| f["type"] == "stdout").unwrap();
    assert_eq!(last_stdout["offset"], 7);
}

#[test]
fn idempotency_key_replays_the_same_identity() {
    let server = Server::start(&[]);
    let body = json!({"command": ["sh", "-c", "sleep 5"], "timeout_seconds": 30});
    let mut a = server.post_json(
        "/computers/c1/processes",
        &[("Idempotency-Key", "k-1")],
        &body,
    );
    assert_eq!(a.status, 200);
    assert!(a.content_type().starts_with("application/json"));
    let a = a.json();
    assert_eq!(a["status"], "running");
    let mut b = server.post_json(
        "/computers/c1/processes",
        &[("Idempotency-Key", "k-1")],
        &body,
    );
    let b = b.json();
    assert_eq!(a["proc_id"], b["proc_id"]);

    // A keyed replay of a streaming exec answers a JSON identity.
    let mut first = exec_stream(&server, "printf once", Some("k-2"));
    assert_eq!(first.content_type(), "application/x-ndjson");
    let id = first.header("ce-process-id").unwrap().to_owned();
    let t = transcript(&first.frames());
    assert_eq!(t.stdout, b"once");
    let mut replay = exec_stream(&server, "printf once", Some("k-2"));
    assert_eq!(replay.status, 200);
    assert!(replay.content_type().starts_with("application/json"));
    assert_eq!(replay.json(), json!({"proc_id": id, "status": "exited"}));

    // The key of a background start also replays on exec.
    let mut cross = exec_stream(&server, "printf other", Some("k-1"));
    assert!(cross.content_type().starts_with("application/json"));
    assert_eq!(cross.json()["proc_id"], a["proc_id"]);

    let mut k = server.request(
        "POST",
        &format!(
            "/computers/c1/processes/{}/kill",
            a["proc_id"].as_str().unwrap()
        ),
        &[],
        b"",
    );
    assert_eq!(k.json()["status"], "exited");
}

#[test]
fn command_string_runs_with_sh() {
    let server = Server::start(&[]);
    let mut r = server.post_json(
        "/computers/c1/exec",
        &[("Accept", "application/x-ndjson")],
        &json!({"command": "printf a; printf b >&2"}),
    );
    let t = transcript(&r.frames());
    assert_eq!(
        (t.stdout.as_slice(), t.stderr.as_slice()),
        (&b"a"[..], &b"b"[..])
    );
}

#[test]
fn output_resumes_from_offsets_and_rejects_offsets_beyond() {
    let server = Server::start(&[]);
    let id = server.start_process("printf 0123456789; printf abc >&2");
    server.wait_exited(&id);
    let path = |q: &str| format!("/computers/c1/processes/{id}/output?{q}");

    let mut all = server.get(&path("stdout_offset=0&stderr_offset=0&follow=false"));
    assert_eq!(all.status, 200);
    let t = transcript(&all.frames());
    assert_eq!(t.stdout, b"0123456789");
    assert_eq!(t.stderr, b"abc");
    assert!(t.exit.is_some(), "finished process ends with exit");

    // Resume mid-stream: a chunk containing the offset may come whole; the
    // client trims it. Seed the transcript with what was consumed.
    let mut r = server.get(&path("stdout_offset=4&stderr_offset=1&follow=true"));
    assert_eq!(r.status, 200);
    let mut t = Transcript {
        stdout: b"0123".to_vec(),
        stderr: b"a".to_vec(),
        ..Transcript::default()
    };
    for f in r.frames() {
        assert_ne!(f["type"], "started", "process output never sends started");
        t.apply(&f);
    }
    assert_eq!(t.stdout, b"0123456789");
    assert_eq!(t.stderr, b"abc");
    assert_eq!(t.exit.unwrap()["exit_code"], 0);

    // At the end: nothing but exit.
    let mut end = server.get(&path("stdout_offset=10&stderr_offset=3"));
    let frames = end.frames();
    assert_eq!(
        frames,
        vec![json!({"type": "exit", "exit_code": 0, "timed_out": false})]
    );

    let mut beyond = server.get(&path("stdout_offset=11&stderr_offset=0"));
    assert_eq!(beyond.status, 400);
    let e = beyond.json();
    assert_eq!(e["error"], "offset_beyond_output");
    assert_eq!(e["stdout_offset"], 11);
    let mut beyond_err = server.get(&path("stdout_offset=0&stderr_offset=4"));
    assert_eq!(beyond_err.status, 400);
    assert_eq!(beyond_err.json()["error"], "offset_beyond_output");
}

#[test]
fn follow_false_on_a_running_process_does_not_fabricate_exit() {
    let server = Server::start(&[]);
    let id = server.start_process("printf early; sleep 30");
    let path = format!("/computers/c1/processes/{id}/output?follow=false");
    // Wait (bounded) until the first bytes are there.
    let deadline = std::time::Instant::now() + common::READ_GUARD;
    let t = loop {
        let mut r = server.get(&path);
        assert_eq!(r.status, 200);
        let body = r.body();
        assert!(body.complete, "a finite read ends the body properly");
        let t = transcript(&common::parse_frames(&body.bytes));
        assert!(t.exit.is_none(), "no exit while the process runs");
        if !t.stdout.is_empty() {
            break t;
        }
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert_eq!(t.stdout, b"early");
    let mut k = server.request(
        "POST",
        &format!("/computers/c1/processes/{id}/kill"),
        &[],
        b"",
    );
    assert_eq!(k.status, 200);
    assert_eq!(k.json(), json!({"proc_id": id, "status": "exited"}));
    let mut after = server.get(&path);
    let t = transcript(&after.frames());
    assert_eq!(
        t.exit,
        Some(json!({"type": "exit", "exit_code": null, "timed_out": false}))
    );
}

#[test]
fn kill_mid_stream_ends_the_stream_with_a_null_exit_code() {
    let server = Server::start(&[]);
    let mut r = exec_stream(&server, "printf x; exec sleep 30", None);
    let id = r.header("ce-process-id").unwrap().to_owned();
    let mut pending = Vec::new();
    let started = r.next_frame(&mut pending).expect("started");
    assert_eq!(started["type"], "started");
    let out = r.next_frame(&mut pending).expect("stdout");
    assert_eq!(frame_bytes(&out), b"x");
    let mut k = server.request(
        "POST",
        &format!("/computers/c1/processes/{id}/kill"),
        &[],
        b"",
    );
    assert_eq!(k.status, 200);
    assert_eq!(k.json()["proc_id"], id.as_str());
    let mut t = Transcript::default();
    while let Some(f) = r.next_frame(&mut pending) {
        t.apply(&f);
    }
    assert_eq!(
        t.exit,
        Some(json!({"type": "exit", "exit_code": null, "timed_out": false}))
    );
}

#[test]
fn timeout_kills_and_reports_timed_out() {
    let server = Server::start(&[]);
    let mut r = server.post_json(
        "/computers/c1/exec",
        &[("Accept", "application/x-ndjson")],
        &json!({"command": ["sh", "-c", "exec sleep 30"], "timeout_seconds": 0.2}),
    );
    let t = transcript(&r.frames());
    assert_eq!(
        t.exit,
        Some(json!({"type": "exit", "exit_code": null, "timed_out": true}))
    );
}

#[test]
fn heartbeats_are_sent_on_followed_output() {
    let server = Server::start(&["--heartbeat-ms", "20"]);
    let mut r = exec_stream(&server, "sleep 0.5; printf done", None);
    let frames = r.frames();
    let t = transcript(&frames);
    assert!(t.heartbeats >= 1, "expected a heartbeat in {frames:?}");
    assert_eq!(t.stdout, b"done");
    assert_eq!(t.exit.unwrap()["exit_code"], 0);
}

#[test]
fn sync_exec_truncates_each_stream_and_flags_it() {
    let server = Server::start(&["--sync-limit-bytes", "10"]);
    let mut r = server.post_json(
        "/computers/c1/exec",
        &[("Accept", "application/json")],
        &json!({"command": ["sh", "-c", "printf 0123456789abc; printf 'x\\377' >&2; exit 3"]}),
    );
    assert_eq!(r.status, 200);
    assert!(r.content_type().starts_with("application/json"));
    let doc = r.json();
    assert!(doc["proc_id"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(doc["stdout"], "0123456789");
    assert_eq!(doc["stdout_truncated"], true);
    assert!(doc.get("stdout_encoding").is_none());
    assert_eq!(doc["stderr"], "eP8=");
    assert_eq!(doc["stderr_encoding"], "base64");
    assert_eq!(doc["stderr_truncated"], false);
    assert_eq!(doc["exit_code"], 3);
    assert_eq!(doc["timed_out"], false);
}

#[test]
fn setup_logs_merge_stderr_into_one_stdout_stream() {
    let server = Server::start(&["--setup-command", "echo out; echo err >&2; exit 3"]);
    let mut r = server.get("/computers/c1/setup/logs?offset=0&follow=true");
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type(), "application/x-ndjson");
    let frames = r.frames();
    assert!(frames
        .iter()
        .all(|f| f["type"] != "stderr" && f["type"] != "started"));
    let t = transcript(&frames);
    assert_eq!(t.stdout, b"out\nerr\n");
    assert_eq!(
        t.exit,
        Some(json!({"type": "exit", "exit_code": 3, "timed_out": false}))
    );

    let mut mid = server.get("/computers/c1/setup/logs?offset=4&follow=false");
    let mut t = Transcript {
        stdout: b"out\n".to_vec(),
        ..Transcript::default()
    };
    for f in mid.frames() {
        t.apply(&f);
    }
    assert_eq!(t.stdout, b"out\nerr\n");

    let mut beyond = server.get("/computers/c1/setup/logs?offset=9");
    assert_eq!(beyond.status, 400);
    assert_eq!(beyond.json()["error"], "offset_beyond_output");
}

#[test]
fn unfinished_setup_with_follow_false_has_no_exit() {
    let server = Server::start(&["--setup-command", "echo starting; exec sleep 30"]);
    let deadline = std::time::Instant::now() + common::READ_GUARD;
    loop {
        let mut r = server.get("/computers/c1/setup/logs?follow=false");
        let body = r.body();
        assert!(body.complete);
        let t = transcript(&common::parse_frames(&body.bytes));
        assert!(t.exit.is_none());
        if t.stdout == b"starting\n" {
            break;
        }
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn computer_id_is_checked_when_configured() {
    let server = Server::start(&["--computer-id", "cmp-1"]);
    let mut ok = server.get("/computers/cmp-1/setup/logs?follow=false");
    assert_eq!(ok.status, 200);
    ok.body();
    let mut other = server.get("/computers/c1/setup/logs?follow=false");
    assert_eq!(other.status, 404);
    assert_eq!(other.json()["error"], "not_found");
}
