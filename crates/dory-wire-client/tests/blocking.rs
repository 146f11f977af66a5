//! The blocking client: the same calls without `async`, against the same
//! scripted server (run on a runtime of its own, on another thread).
#![cfg(feature = "blocking")]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{exit, json, ndjson, out, serve, Ending};
use dory_wire::{Error, Stream};
use dory_wire_client::blocking::Client;
use dory_wire_client::{FrameType, ReadOptions, RunOptions, StartOptions};

/// Starts the scripted server on a thread of its own; its URL.
fn server(replies: Vec<common::Reply>) -> String {
    server_seen(replies).0
}

/// The scripted server on a thread of its own: its URL and what it saw.
fn server_seen(replies: Vec<common::Reply>) -> (String, Arc<Mutex<Vec<common::Seen>>>) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let script = serve(replies).await;
            tx.send((script.url.clone(), script.seen.clone()))
                .expect("send the URL");
            tokio::time::sleep(Duration::from_secs(60)).await;
        });
    });
    rx.recv().expect("the server's URL")
}

#[test]
fn the_blocking_client_reads_through_a_cut_and_iterates_frames() {
    let identity = r#"{"proc_id":"p1","status":"running"}"#;
    let url = server(vec![
        json(201, identity),
        json(200, identity),
        ndjson(&out("stdout", "ab", 2), Ending::Cut),
        ndjson(
            &format!("{}{}", out("stdout", "abc", 3), exit(0)),
            Ending::Complete,
        ),
        ndjson(&out("stderr", "e", 1), Ending::Cut),
    ]);
    let client = Client::new(Some(&url)).expect("client");
    let processes = client.computers().get("c1").processes();
    let started = processes.start("true", StartOptions::new()).expect("start");
    let process = processes.get(&started.proc_id).expect("get");
    let options = ReadOptions::new()
        .backoff(Duration::from_millis(1))
        .max_backoff(Duration::from_millis(2));
    let transcript = process.read_output(options).expect("read");
    assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"abc");

    let mut stream = process.iter_output(ReadOptions::new()).expect("stream");
    let frame = stream.next().expect("a frame").expect("ok");
    assert_eq!(
        (frame.frame_type, frame.bytes.as_slice()),
        (FrameType::Stderr, &b"e"[..])
    );
    let err = stream.next().expect("the end").unwrap_err();
    assert!(
        matches!(err, Error::StreamDisconnected { cursor, .. } if cursor.stderr == 1),
        "{err}"
    );
    assert!(stream.next().is_none());
}

#[test]
fn the_blocking_run_reads_through_a_cut_and_a_panicking_hook_kills_when_asked() {
    let identity = r#"{"proc_id":"p1","status":"running"}"#;
    let (url, seen) = server_seen(vec![
        json(201, identity),
        ndjson(
            &format!("{}{}", out("stdout", "ab", 2), out("stderr", "e", 1)),
            Ending::Cut,
        ),
        ndjson(
            &format!(
                "{}{}{}",
                out("stdout", "ab", 2),
                out("stdout", "c", 3),
                exit(4)
            ),
            Ending::Complete,
        ),
        json(201, identity),
        ndjson(&out("stdout", "x", 1), Ending::Stall),
        json(200, r#"{"proc_id":"p1","status":"exited"}"#),
    ]);
    let client = Client::new(Some(&url)).expect("client");
    let computer = client.computers().get("c1");
    let fast = ReadOptions::new()
        .backoff(Duration::from_millis(1))
        .max_backoff(Duration::from_millis(2));
    let result = computer
        .run("abc", RunOptions::new().read_options(fast))
        .expect("run");
    assert_eq!(
        (result.combined.text.as_ref(), result.exit_code),
        ("abec\n[... exit code 4 ...]\n", Some(4))
    );

    // A hook that panics: the panic continues once the kill was sent.
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        computer.run(
            "sleepy",
            RunOptions::new()
                .kill_on_cancel(true)
                .on_output(|_, _, _| panic!("the hook gave up")),
        )
    }));
    assert!(panicked.is_err());
    let targets: Vec<String> = seen
        .lock()
        .expect("not poisoned")
        .iter()
        .map(|s| format!("{} {}", s.method, s.target))
        .collect();
    assert_eq!(
        targets.last().map(String::as_str),
        Some("POST /computers/c1/processes/p1/kill"),
        "{targets:?}"
    );
}
