//! The blocking client: the same calls without `async`, against the same
//! scripted server (run on a runtime of its own, on another thread).
#![cfg(feature = "blocking")]

mod common;

use std::time::Duration;

use common::{exit, json, ndjson, out, serve, Ending};
use dory_wire::{Error, Stream};
use dory_wire_client::blocking::Client;
use dory_wire_client::{FrameType, ReadOptions, StartOptions};

/// Starts the scripted server on a thread of its own; its URL.
fn server(replies: Vec<common::Reply>) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let script = serve(replies).await;
            tx.send(script.url.clone()).expect("send the URL");
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
