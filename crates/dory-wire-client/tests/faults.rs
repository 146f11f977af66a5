//! The client against scripted faults: the same cases the Python and JS
//! client tests cover. Every decision is the core follower's; these tests
//! check that the client feeds it what the transport did.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{exit, json, ndjson, out, refusing_url, serve, Ending, Reply};
use dory_wire::{DisconnectReason, Error, GapPolicy, Reconnect, Stream};
use dory_wire_client::{Client, ExecAnswer, FrameType, ReadOptions, StartOptions};

const IDENTITY: &str = r#"{"proc_id":"p1","status":"running"}"#;

fn fast() -> ReadOptions {
    ReadOptions::new()
        .backoff(Duration::from_millis(1))
        .max_backoff(Duration::from_millis(4))
}

/// The script's replies after the identity of `p1`, and the process handle.
async fn handle(replies: Vec<Reply>) -> (common::Script, dory_wire_client::Process) {
    let mut all = vec![json(200, IDENTITY)];
    all.extend(replies);
    let script = serve(all).await;
    let client = Client::builder()
        .base_url(&script.url)
        .header("Authorization", "Bearer t0ken")
        .build()
        .expect("client");
    let process = client
        .computers()
        .get("c1")
        .processes()
        .get("p1")
        .await
        .expect("identity");
    (script, process)
}

fn recorder() -> (
    Arc<Mutex<Vec<Reconnect>>>,
    impl Fn(&Reconnect) + Send + Sync + 'static,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    (seen, move |r: &Reconnect| {
        log.lock().expect("not poisoned").push(r.clone())
    })
}

#[tokio::test]
async fn cut_mid_frame_resumes_from_the_consumed_offsets_and_trims_the_overlap() {
    let first = format!("{}{{\"type\":\"stdout\",\"da", out("stdout", "ab", 2));
    let second = format!(
        "{}{}{}",
        out("stdout", "ab", 2),
        out("stdout", "cd", 4),
        exit(0)
    );
    let (script, process) = handle(vec![
        ndjson(&first, Ending::Cut),
        ndjson(&second, Ending::Complete),
    ])
    .await;
    let (seen, hook) = recorder();
    let transcript = process
        .read_output(fast().on_reconnect(hook))
        .await
        .expect("read");
    assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"abcd");
    assert_eq!(transcript.exit(), Some((Some(0), false)));
    let records = seen.lock().expect("not poisoned").clone();
    assert_eq!(records.len(), 1);
    assert_eq!(
        (
            records[0].reason,
            records[0].cursor.stdout,
            records[0].failures
        ),
        (DisconnectReason::EndOfBody, 2, 0)
    );
    assert!(
        !records[0].detail.is_empty(),
        "the transport's reason is kept"
    );
    let targets = script.targets();
    assert_eq!(
        targets[1],
        "GET /computers/c1/processes/p1/output?stdout_offset=0&stderr_offset=0&follow=true"
    );
    assert_eq!(
        targets[2],
        "GET /computers/c1/processes/p1/output?stdout_offset=2&stderr_offset=0&follow=true"
    );
    let requests = script.requests();
    assert_eq!(requests[2].header("authorization"), Some("Bearer t0ken"));
    assert_eq!(requests[2].header("accept"), Some("application/x-ndjson"));
}

#[tokio::test]
async fn cut_between_frames_and_before_the_first_byte() {
    let (script, process) = handle(vec![
        ndjson(&out("stderr", "e", 1), Ending::Cut),
        ndjson("", Ending::Cut),
        ndjson(
            &format!("{}{}", out("stdout", "o", 1), exit(0)),
            Ending::Complete,
        ),
    ])
    .await;
    let (seen, hook) = recorder();
    let transcript = process
        .read_output(fast().jitter(false).on_reconnect(hook))
        .await
        .expect("read");
    assert_eq!(transcript.stream(Stream::Stderr).bytes(), b"e");
    assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"o");
    let records = seen.lock().expect("not poisoned").clone();
    assert_eq!(
        records.iter().map(|r| r.failures).collect::<Vec<_>>(),
        [0, 1]
    );
    assert_eq!(
        records[1].delay,
        Duration::from_millis(1),
        "no progress: the backoff"
    );
    assert_eq!(script.requests().len(), 4);
}

#[tokio::test]
async fn refused_connections_spend_the_budget_and_name_the_address() {
    let url = refusing_url().await;
    let client = Client::new(Some(&url)).expect("client");
    let computer = client.computers().get("c1");
    // A refused start never reached the service: it is sent again (keyed
    // or not) until the budget is spent, and says so.
    let err = computer
        .processes()
        .start("true", StartOptions::new())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "no_answer");
    let port = url.rsplit(':').next().expect("a port");
    assert!(err.to_string().contains(port), "{err}");
    assert!(
        err.to_string().ends_with("it never reached the service"),
        "{err}"
    );
    assert!(matches!(
        err,
        Error::NoAnswer {
            reason: DisconnectReason::NotConnected,
            reached: false,
            attempts: 6,
            ..
        }
    ));
    // A read reconnects until its budget is spent.
    let stream = computer.exec_stream(
        "true",
        StartOptions::new().idempotency_key("k"),
        fast().retries(2),
    );
    let mut stream = stream.expect("stream");
    let err = stream.next().await.expect("an item").unwrap_err();
    match err {
        Error::StreamDisconnected {
            reason,
            cursor,
            proc_id,
            ref detail,
        } => {
            assert_eq!(
                (reason, cursor.stdout, proc_id),
                (DisconnectReason::NotConnected, 0, None)
            );
            assert!(detail.contains(port), "{detail}");
        }
        other => panic!("{other}"),
    }
    assert!(stream.next().await.is_none(), "an error ends the stream");
}

#[tokio::test]
async fn a_stall_is_detected_by_the_liveness_timeout_and_read_again() {
    let (_script, process) = handle(vec![
        ndjson(&out("stdout", "a", 1), Ending::Stall),
        ndjson(
            &format!("{}{}", out("stdout", "b", 2), exit(0)),
            Ending::Complete,
        ),
    ])
    .await;
    let (seen, hook) = recorder();
    let options = fast()
        .liveness_timeout(Duration::from_millis(300))
        .on_reconnect(hook);
    let transcript = process.read_output(options).await.expect("read");
    assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"ab");
    assert_eq!(
        seen.lock().expect("not poisoned")[0].reason,
        DisconnectReason::Stalled
    );
}

#[tokio::test]
async fn a_trickle_that_never_completes_a_frame_cannot_hold_the_reader() {
    let trickle = ndjson(
        "{\"type\":\"stdout\",\"data\":\"never ends\"",
        Ending::Trickle(Duration::from_millis(50)),
    );
    let (_script, process) = handle(vec![trickle.clone(), trickle]).await;
    let options = fast()
        .retries(1)
        .liveness_timeout(Duration::from_millis(400));
    let started = std::time::Instant::now();
    let err = process.read_output(options).await.unwrap_err();
    assert_eq!(err.code(), "stream_disconnected");
    assert!(
        matches!(
            err,
            Error::StreamDisconnected {
                reason: DisconnectReason::Stalled,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "bounded by the liveness timeout"
    );
}

#[tokio::test]
async fn a_gap_frame_fails_by_default_and_is_an_exact_range_when_skipped() {
    let gap = "{\"type\":\"gap\",\"earliest_stdout_offset\":9,\"earliest_stderr_offset\":0}\n";
    let (_s, process) = handle(vec![ndjson(
        &format!("{}{gap}", out("stdout", "ab", 2)),
        Ending::Complete,
    )])
    .await;
    let err = process.read_output(fast()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutputGap {
                stream: Stream::Stdout,
                ..
            }
        ),
        "{err}"
    );

    let (_s, process) = handle(vec![
        ndjson(
            &format!("{}{gap}", out("stdout", "ab", 2)),
            Ending::Complete,
        ),
        ndjson(
            &format!("{}{}", out("stdout", "z", 10), exit(0)),
            Ending::Complete,
        ),
    ])
    .await;
    let transcript = process
        .read_output(fast().gap_policy(GapPolicy::Skip))
        .await
        .expect("read");
    assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"abz");
    assert_eq!(
        transcript
            .stream(Stream::Stdout)
            .skipped()
            .collect::<Vec<_>>(),
        vec![std::ops::Range { start: 2, end: 9 }]
    );
}

#[tokio::test]
async fn answers_409_410_400_and_a_non_json_502_are_typed_and_never_retried() {
    let cases = [
        (
            json(
                409,
                r#"{"error":"output_gap","message":"evicted","earliest_stdout_offset":5,"earliest_stderr_offset":0}"#,
            ),
            "output_gap",
        ),
        (
            json(410, r#"{"error":"output_expired","message":"gone"}"#),
            "output_expired",
        ),
        (
            json(
                400,
                r#"{"error":"offset_beyond_output","message":"beyond"}"#,
            ),
            "offset_beyond_output",
        ),
        (
            Reply {
                status: 502,
                headers: vec![("Content-Type".into(), "text/html".into())],
                body: b"<html>bad gateway</html>".to_vec(),
                ending: Ending::Complete,
            },
            "api_error",
        ),
    ];
    for (reply, code) in cases {
        let (script, process) = handle(vec![reply]).await;
        let err = process.read_output(fast()).await.unwrap_err();
        assert_eq!(err.code(), code, "{err}");
        if let Error::Api {
            status, api_code, ..
        } = &err
        {
            assert_eq!((*status, api_code.as_deref()), (502, None));
        }
        assert_eq!(script.requests().len(), 2, "{code}: never retried");
    }
}

#[tokio::test]
async fn a_keyed_replay_is_answered_by_the_same_identity() {
    let script = serve(vec![json(201, IDENTITY), json(200, IDENTITY)]).await;
    let client = Client::new(Some(&script.url)).expect("client");
    let processes = client.computers().get("c1").processes();
    let options = StartOptions::new()
        .timeout_seconds(30.0)
        .idempotency_key("key-1");
    let first = processes
        .start(["sh", "-c", "x"], options.clone())
        .await
        .expect("start");
    let again = processes
        .start(["sh", "-c", "x"], options)
        .await
        .expect("replay");
    assert_eq!(first, again);
    let requests = script.requests();
    assert_eq!(requests[1].header("idempotency-key"), Some("key-1"));
    assert_eq!(
        requests[1].body,
        br#"{"command":["sh","-c","x"],"timeout_seconds":30}"#
    );
}

#[tokio::test]
async fn an_exec_stream_cut_after_started_continues_on_the_process_output_never_exec_again() {
    let first = format!(
        "{{\"type\":\"started\",\"proc_id\":\"p9\"}}\n{}",
        out("stdout", "a", 1)
    );
    let script = serve(vec![
        ndjson(&first, Ending::Cut).header("CE-Process-Id", "p9"),
        ndjson(
            &format!("{}{}", out("stdout", "ab", 2), exit(0)),
            Ending::Complete,
        ),
    ])
    .await;
    let client = Client::new(Some(&script.url)).expect("client");
    let mut stream = client
        .computers()
        .get("c1")
        .exec_stream("echo", StartOptions::new(), fast())
        .expect("stream");
    let mut frames = Vec::new();
    while let Some(frame) = stream.next().await {
        frames.push(frame.expect("frame"));
    }
    let kinds: Vec<_> = frames.iter().map(|f| f.frame_type).collect();
    assert_eq!(
        kinds,
        [
            FrameType::Started,
            FrameType::Stdout,
            FrameType::Stdout,
            FrameType::Exit
        ]
    );
    assert_eq!(frames[2].bytes, b"b", "the overlap is trimmed");
    assert_eq!(
        (frames[3].stdout_offset(), frames[3].exit_code),
        (2, Some(0))
    );
    assert_eq!(
        script.targets(),
        [
            "POST /computers/c1/exec",
            "GET /computers/c1/processes/p9/output?stdout_offset=1&stderr_offset=0&follow=true"
        ]
    );
}

#[tokio::test]
async fn a_keyed_exec_stream_answered_by_a_json_identity_follows_that_process() {
    let script = serve(vec![
        json(200, r#"{"proc_id":"p9","status":"exited"}"#),
        ndjson(
            &format!("{}{}", out("stdout", "once", 4), exit(0)),
            Ending::Complete,
        ),
    ])
    .await;
    let client = Client::new(Some(&script.url)).expect("client");
    let stream = client.computers().get("c1").exec_stream(
        "echo once",
        StartOptions::new().idempotency_key("k"),
        ReadOptions::new(),
    );
    let mut stream = stream.expect("stream");
    let mut types = Vec::new();
    while let Some(frame) = stream.next().await {
        types.push(frame.expect("frame").frame_type);
    }
    assert_eq!(
        types,
        [FrameType::Identity, FrameType::Stdout, FrameType::Exit]
    );
    assert_eq!(stream.proc_id(), Some("p9"));
}

#[tokio::test]
async fn iter_output_is_one_response_and_ends_with_the_disconnect() {
    let (_s, process) = handle(vec![ndjson(&out("stdout", "ab", 2), Ending::Cut)]).await;
    let mut stream = process.iter_output(ReadOptions::new()).expect("stream");
    let frame = stream.next().await.expect("a frame").expect("ok");
    assert_eq!(
        (frame.frame_type, frame.data.as_str(), frame.stdout_offset()),
        (FrameType::Stdout, "ab", 2)
    );
    let err = stream.next().await.expect("the end").unwrap_err();
    assert!(
        matches!(err, Error::StreamDisconnected { cursor, .. } if cursor.stdout == 2),
        "{err}"
    );
}

#[tokio::test]
async fn a_sync_exec_answers_its_result_and_bad_arguments_are_the_cores() {
    let result = r#"{"proc_id":"p1","stdout":"hi","stderr":"","stdout_truncated":false,"stderr_truncated":false,"exit_code":0,"timed_out":false}"#;
    let script = serve(vec![json(200, result)]).await;
    let client = Client::new(Some(&script.url)).expect("client");
    let computer = client.computers().get("c1");
    match computer
        .exec("echo hi", StartOptions::new())
        .await
        .expect("exec")
    {
        ExecAnswer::Result(r) => assert_eq!(r.stdout, b"hi"),
        other => panic!("{other:?}"),
    }
    let err = computer
        .processes()
        .start("", StartOptions::new())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    // The core's rule, the same inputs as the Python and JS tests.
    for bad in [
        "ftp://x",
        "not a url",
        "localhost:8080",
        "http://",
        "http://h/?q=1",
        "",
    ] {
        let err = Client::new(Some(bad)).unwrap_err();
        assert!(
            matches!(err, Error::InvalidArgument { ref argument, .. } if argument == "base_url"),
            "{bad}: {err}"
        );
    }
    assert_eq!(
        Client::new(Some("http://h:9/api/")).unwrap().base_url(),
        "http://h:9/api"
    );
}
