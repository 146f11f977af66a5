//! Retention, eviction, gap frames and expiry.

mod common;

use common::{Server, Transcript};
use serde_json::{json, Value};

/// Writes `n` bytes of `a` on stdout.
fn produce(n: u64) -> String {
    format!("head -c {n} /dev/zero | tr '\\000' a")
}

#[test]
fn evicted_offsets_get_409_with_both_earliest_offsets() {
    let server = Server::start(&[
        "--retention-bytes",
        "1000",
        "--max-chunk-bytes",
        "100",
        "--setup-command",
        &produce(3000),
    ]);
    let id = server.start_process(&format!("{}; printf err >&2", produce(5000)));
    server.wait_exited(&id);

    let mut r = server.get(&format!(
        "/computers/c1/processes/{id}/output?stdout_offset=0&stderr_offset=0"
    ));
    assert_eq!(r.status, 409);
    assert!(r.content_type().starts_with("application/json"));
    let e = r.json();
    assert_eq!(e["error"], "output_gap");
    let earliest_out = e["earliest_stdout_offset"]
        .as_u64()
        .expect("stdout earliest");
    let earliest_err = e["earliest_stderr_offset"]
        .as_u64()
        .expect("stderr earliest");
    // At most 1000 bytes retained, evicted whole chunks of at most 100 bytes.
    assert!(
        (4000..5000).contains(&earliest_out),
        "earliest stdout {earliest_out}"
    );
    // The two pipes are read concurrently, so the 3-byte stderr chunk may
    // enter retention before the last stdout chunks and be evicted with the
    // oldest: it is either wholly retained or wholly gone.
    assert!(
        earliest_err == 0 || earliest_err == 3,
        "earliest stderr {earliest_err}"
    );

    // Reading from the earliest offsets gives exactly the retained tail.
    let mut tail = server.get(&format!(
        "/computers/c1/processes/{id}/output?stdout_offset={earliest_out}&stderr_offset={earliest_err}&follow=false"
    ));
    assert_eq!(tail.status, 200);
    let mut t = Transcript {
        stdout: vec![b'a'; earliest_out as usize],
        ..Transcript::default()
    };
    for f in tail.frames() {
        t.apply(&f);
    }
    assert_eq!(t.stdout.len(), 5000);
    assert_eq!(t.stderr, &b"err"[earliest_err as usize..]);
    assert!(t.exit.is_some());

    // Setup logs: one stream, `earliest_offset`.
    server.get("/computers/c1/setup/logs?follow=true").body();
    let mut s = server.get("/computers/c1/setup/logs?offset=0");
    assert_eq!(s.status, 409);
    let e = s.json();
    assert_eq!(e["error"], "output_gap");
    let earliest = e["earliest_offset"].as_u64().expect("earliest_offset");
    assert!(
        (2000..3000).contains(&earliest),
        "setup earliest {earliest}"
    );
    assert!(e.get("earliest_stdout_offset").is_none());
}

#[test]
fn a_follower_that_falls_behind_gets_a_gap_frame_and_no_exit() {
    // Retention far smaller than what the socket buffers can hold in flight.
    let server = Server::start(&["--retention-bytes", "262144"]);
    let id = server.start_process(&format!(
        "sleep 0.2; {}; printf done >&2",
        produce(64_000_000)
    ));
    // Connect at offset 0 before output exists, then do not read.
    let mut r = server.get(&format!("/computers/c1/processes/{id}/output?follow=true"));
    assert_eq!(r.status, 200);
    server.wait_exited(&id);
    // The stalled connection did not queue the 64 MB: the server holds the
    // retention limit plus one frame and its write buffer per connection.
    let rss = common::rss_kib(server.pid());
    assert!(rss < 48 * 1024, "server RSS {rss} KiB");

    let body = r.body();
    assert!(body.complete, "the server ends the body after the gap");
    let frames = common::parse_frames(&body.bytes);
    let last = frames.last().expect("frames");
    assert_eq!(last["type"], "gap", "last frame: {last}");
    assert!(frames.iter().all(|f| f["type"] != "exit"));
    let mut t = Transcript::default();
    for f in &frames {
        t.apply(f);
    }
    let (out, _) = t.offsets();
    let earliest = last["earliest_stdout_offset"].as_u64().unwrap();
    assert!(
        earliest > out,
        "gap means lost bytes: earliest {earliest}, consumed {out}"
    );
    assert_eq!(last["earliest_stderr_offset"], 0);

    // Setup-style frame fields are not used on process output.
    assert!(last.get("earliest_offset").is_none());
}

#[test]
fn expired_output_answers_410() {
    let server = Server::start(&["--expiry-ms", "100", "--sweep-interval-ms", "10"]);
    let id = server.start_process("printf gone");
    server.wait_exited(&id);
    let deadline = std::time::Instant::now() + common::READ_GUARD;
    let e: Value = loop {
        let mut r = server.get(&format!("/computers/c1/processes/{id}/output?follow=false"));
        if r.status == 410 {
            break r.json();
        }
        assert_eq!(r.status, 200);
        r.body();
        assert!(std::time::Instant::now() < deadline, "output never expired");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(e["error"], "output_expired");
    // The process is still known: its identity stays available.
    let mut ident = server.get(&format!("/computers/c1/processes/{id}"));
    assert_eq!(ident.json(), json!({"proc_id": id, "status": "exited"}));
}

#[test]
fn eviction_never_blocks_or_kills_the_process() {
    let server = Server::start(&["--retention-bytes", "4096"]);
    let mut r = server.post_json(
        "/computers/c1/exec",
        &[("Accept", "application/json")],
        &json!({"command": ["sh", "-c", format!("{}; exit 7", produce(5_000_000))]}),
    );
    let doc = r.json();
    assert_eq!(doc["exit_code"], 7);
    assert_eq!(doc["stdout_truncated"], true);
    assert_eq!(doc["stdout"].as_str().unwrap().len(), 1_048_576);
}
