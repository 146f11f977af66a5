//! Hostile requests: every one is answered cleanly, the server
//! stays up, memory per connection stays bounded, and shutdown leaves no
//! process behind.

mod common;

use std::io::{Read, Write};
use std::time::Duration;

use common::Server;
use serde_json::json;

fn assert_error(r: &mut common::Response, status: u16, code: &str) {
    assert_eq!(r.status, status);
    assert!(r.content_type().starts_with("application/json"));
    let e = r.json();
    assert_eq!(e["error"], code, "{e}");
    assert!(e["message"].is_string());
}

#[test]
fn bad_query_values_are_400_bad_request() {
    let server = Server::start(&[]);
    let id = server.start_process("printf x");
    server.wait_exited(&id);
    for q in [
        "stdout_offset=abc",
        "stdout_offset=-1",
        "stdout_offset=+1",
        "stdout_offset=",
        "stdout_offset=1.5",
        "stdout_offset=1e3",
        "stdout_offset=%20",
        "stderr_offset=99999999999999999999999",
        "stdout_offset=0&stdout_offset=0",
        "follow=yes",
        "follow=",
        "follow=TRUE",
    ] {
        let mut r = server.get(&format!("/computers/c1/processes/{id}/output?{q}"));
        assert_error(&mut r, 400, "bad_request");
    }
    for q in ["offset=x", "offset=-5", "follow=1", "offset=1&offset=2"] {
        let mut r = server.get(&format!("/computers/c1/setup/logs?{q}"));
        assert_error(&mut r, 400, "bad_request");
    }
    // The largest u64 is a valid number, merely beyond the output.
    let mut r = server.get(&format!(
        "/computers/c1/processes/{id}/output?stdout_offset=18446744073709551615"
    ));
    assert_error(&mut r, 400, "offset_beyond_output");
}

#[test]
fn unknown_processes_routes_and_methods() {
    let server = Server::start(&[]);
    for path in [
        "/computers/c1/processes/p_nope/output",
        "/computers/c1/processes/p_nope",
        "/computers/c1/processes/..%2F..%2Fetc/output",
    ] {
        let mut r = server.get(path);
        assert_error(&mut r, 404, "not_found");
    }
    let mut k = server.request("POST", "/computers/c1/processes/p_nope/kill", &[], b"");
    assert_error(&mut k, 404, "not_found");
    for path in [
        "/",
        "/computers",
        "/computers//exec",
        "/computers/c1/nope",
        "/computers/c1/setup/logs/x",
    ] {
        let mut r = server.get(path);
        assert_error(&mut r, 404, "not_found");
    }
    let mut m = server.request("DELETE", "/computers/c1/exec", &[], b"");
    assert_error(&mut m, 405, "method_not_allowed");
    assert_eq!(m.header("allow"), Some("POST"));
    let mut g = server.get("/computers/c1/processes");
    assert_error(&mut g, 405, "method_not_allowed");
}

#[test]
fn bad_start_bodies_are_rejected() {
    let server = Server::start(&["--max-body-bytes", "4096"]);
    for body in [
        &b"not json"[..],
        b"",
        b"{}",
        b"[]",
        b"{\"command\": 5}",
        b"{\"command\": []}",
        b"{\"command\": [\"sh\", 1]}",
        b"{\"command\": \"true\", \"timeout_seconds\": -1}",
        b"{\"command\": \"true\", \"timeout_seconds\": 0}",
        b"{\"command\": \"true\", \"timeout_seconds\": \"10\"}",
        b"{\"command\": \"true\", \"timeout_seconds\": 1e300}",
        b"{\"command\": [\"a\\u0000b\"]}",
        b"{\"command\": [\"/nonexistent/program\"]}",
        b"{\"command\": \"\xff\"}",
    ] {
        for path in ["/computers/c1/processes", "/computers/c1/exec"] {
            let mut r = server.request("POST", path, &[], body);
            assert_error(&mut r, 400, "bad_request");
        }
    }
    let long_key = "k".repeat(300);
    let mut r = server.request(
        "POST",
        "/computers/c1/processes",
        &[("Idempotency-Key", &long_key)],
        b"{\"command\":\"true\"}",
    );
    assert_error(&mut r, 400, "bad_request");
}

#[test]
fn huge_bodies_get_413_and_huge_headers_431() {
    let server = Server::start(&["--max-body-bytes", "1024", "--max-header-bytes", "8192"]);
    let big = vec![b' '; 2 * 1024 * 1024];
    let mut r = server.request("POST", "/computers/c1/processes", &[], &big);
    assert_error(&mut r, 413, "payload_too_large");

    // Chunked upload without a declared length is capped while reading.
    let mut s = common::connect(server.port);
    s.write_all(
        b"POST /computers/c1/exec HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    for _ in 0..4 {
        if s.write_all(b"400\r\n").is_err()
            || s.write_all(&[b' '; 1024]).is_err()
            || s.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let mut chunked = common::read_response(s);
    assert_error(&mut chunked, 413, "payload_too_large");

    // A head larger than the limit.
    let mut s = common::connect(server.port);
    let huge = "a".repeat(100_000);
    let _ = s.write_all(
        format!("GET /computers/c1/setup/logs HTTP/1.1\r\nHost: x\r\nX-Big: {huge}\r\n\r\n")
            .as_bytes(),
    );
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    assert!(
        reply.starts_with(b"HTTP/1.1 431"),
        "{:?}",
        String::from_utf8_lossy(&reply[..reply.len().min(80)])
    );

    // Garbage instead of HTTP: the connection is closed, the server lives on.
    let mut s = common::connect(server.port);
    let _ = s.write_all(b"\x00\xff\r\n\r\nNOT HTTP AT ALL\r\n\r\n");
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    assert!(reply.is_empty() || reply.starts_with(b"HTTP/1.1 400"));

    let ok = server.get("/computers/c1/setup/logs?follow=false");
    assert_eq!(ok.status, 200);
}

#[test]
fn many_concurrent_followers_keep_memory_bounded() {
    let server = Server::start(&["--heartbeat-ms", "50", "--max-connections", "300"]);
    // A process with 100 kB of retained output, still running.
    let id = server.start_process("head -c 100000 /dev/zero | tr '\\000' a; exec sleep 30");
    let deadline = std::time::Instant::now() + common::READ_GUARD;
    loop {
        let mut r = server.get(&format!("/computers/c1/processes/{id}/output?follow=false"));
        let frames = r.frames();
        if frames.last().and_then(|f| f["offset"].as_u64()) == Some(100_000) {
            break;
        }
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(10));
    }
    let before = common::rss_kib(server.pid());
    // 100 followers that never read their body.
    let mut idle = Vec::new();
    for _ in 0..100 {
        let mut s = common::connect(server.port);
        s.write_all(
            format!(
                "GET /computers/c1/processes/{id}/output?follow=true HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
        idle.push(s);
    }
    // One that reads still gets served: it sees a heartbeat after the replay.
    let mut r = server.get(&format!(
        "/computers/c1/processes/{id}/output?stdout_offset=100000&follow=true"
    ));
    assert_eq!(r.status, 200);
    let mut pending = Vec::new();
    let f = r.next_frame(&mut pending).expect("frame");
    assert_eq!(f["type"], "heartbeat");
    let after = common::rss_kib(server.pid());
    // A sanity bound: the server stays small with 100 stalled followers.
    // (The stalled-follower test in retention.rs bounds memory against
    // 64 MB of output that no socket buffer can absorb.)
    assert!(
        after.saturating_sub(before) < 64 * 1024,
        "RSS grew from {before} KiB to {after} KiB"
    );
    drop(idle);
    let k = server.request(
        "POST",
        &format!("/computers/c1/processes/{id}/kill"),
        &[],
        b"",
    );
    assert_eq!(k.status, 200);
}

#[test]
fn connections_beyond_the_limit_get_503() {
    let server = Server::start(&["--max-connections", "2"]);
    let hold: Vec<_> = (0..2).map(|_| common::connect(server.port)).collect();
    // Let the server accept the held connections first (bounded retries).
    let mut status = 0;
    for _ in 0..200 {
        let mut r = server.get("/computers/c1/setup/logs?follow=false");
        status = r.status;
        if status == 503 {
            assert_error(&mut r, 503, "overloaded");
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(status, 503);
    drop(hold);
}

#[test]
fn too_many_processes_get_503() {
    let server = Server::start(&["--max-processes", "1"]);
    let first = server.start_process("exec sleep 30");
    let mut r = server.post_json("/computers/c1/processes", &[], &json!({"command": "true"}));
    assert_error(&mut r, 503, "too_many_processes");
    server
        .request(
            "POST",
            &format!("/computers/c1/processes/{first}/kill"),
            &[],
            b"",
        )
        .body();
    server.wait_exited(&first);
    let ok = server.post_json("/computers/c1/processes", &[], &json!({"command": "true"}));
    assert_eq!(ok.status, 200);
}

fn alive(pid: i32) -> bool {
    // A zombie (not yet reaped by whoever inherited it) counts as dead.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X'),
        Err(_) => false,
    }
}

#[test]
fn sigterm_kills_every_process_group_and_exits() {
    let mut server = Server::start(&["--setup-command", "exec sleep 60"]);
    // The shell reports its own pid and a background grandchild's.
    let mut r = server.post_json(
        "/computers/c1/exec",
        &[("Accept", "application/x-ndjson")],
        &json!({"command": "sleep 60 & echo $$ $!; wait"}),
    );
    let mut pending = Vec::new();
    let mut pids = Vec::new();
    while pids.is_empty() {
        let f = r.next_frame(&mut pending).expect("frame");
        if f["type"] == "stdout" {
            pids = f["data"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .map(|p| p.parse::<i32>().unwrap())
                .collect();
        }
    }
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|p| alive(*p)));
    let status = server.terminate().expect("server exits on SIGTERM");
    assert!(status.success(), "{status:?}");
    for p in pids {
        // The server reaped its child; an orphaned grandchild may need its
        // new parent to reap it, so allow a bounded moment.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while alive(p) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(p), "process {p} survived shutdown");
    }
}
