//! The clients' edges, decided by the core and the same in every language:
//! a consumer slower than the liveness timeout, a start on a refused
//! connection, a redirect to another origin with credentials, and a start
//! whose answer was lost (keyed: sent again; unkeyed: `no_answer`). The
//! same four cases, against this server, are in
//! `tests/e2e/python/test_client_edges.py` and
//! `tests/e2e/node/client-edges.test.mjs`; here for the Rust client.

mod common;

use std::time::Duration;

use common::Server;
use dory_wire::{DisconnectReason, Error};
use dory_wire_client::{Client, FrameType, ReadOptions, StartOptions};

const SLOW_LINES: &str = "for i in 1 2 3 4 5 6; do echo $i; sleep 0.25; done";
const LINES: &[u8] = b"1\n2\n3\n4\n5\n6\n";

fn url(server: &Server) -> String {
    format!("http://127.0.0.1:{}", server.port)
}

/// A loopback URL where nothing listens (the port was bound, then freed).
fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_consumer_reads_every_frame() {
    let server = Server::start(&["--port", "0", "--heartbeat-ms", "200"]);
    let client = Client::builder()
        .base_url(url(&server))
        .liveness_timeout(Duration::from_millis(500))
        .build()
        .expect("client");
    let processes = client.computers().get("e2e").processes();
    let started = processes
        .start(SLOW_LINES, StartOptions::new())
        .await
        .expect("start");
    let process = processes.get(&started.proc_id).await.expect("get");
    // One response (iter_output never reconnects): a false stall would end it.
    let mut stream = process
        .iter_output(ReadOptions::new())
        .expect("iter_output");
    let mut got = Vec::new();
    while let Some(frame) = stream.next().await {
        let frame = frame.expect("no false stall");
        if frame.frame_type == FrameType::Stdout {
            got.extend_from_slice(&frame.bytes);
            // The consumer's time (longer than the liveness timeout) is not a wait.
            tokio::time::sleep(Duration::from_millis(800)).await;
        }
    }
    assert_eq!(got, LINES);
}

#[tokio::test]
async fn an_unkeyed_start_on_a_refused_connection_is_retried_then_no_answer_that_never_reached() {
    // Nothing listens: every attempt is refused, so the unkeyed start is
    // sent again (it cannot have taken effect) until the budget is spent.
    let client = Client::new(Some(&closed_port_url())).expect("client");
    let err = client
        .computers()
        .get("c1")
        .processes()
        .start("true", StartOptions::new())
        .await
        .unwrap_err();
    let text = err.to_string();
    match err {
        Error::NoAnswer {
            reason,
            method,
            target,
            attempts,
            reached,
            ..
        } => {
            assert_eq!(reason, DisconnectReason::NotConnected);
            assert_eq!(
                (method.as_str(), target.as_str(), attempts, reached),
                ("POST", "/computers/c1/processes", 6, false)
            );
            assert!(
                text.ends_with("; tried 6 times; it never reached the service"),
                "{text}"
            );
        }
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn a_redirect_is_an_answer_never_followed() {
    // Followed, the request would be refused instead.
    let server = Server::start(&["--port", "0", "--redirect-to", &closed_port_url()]);
    let client = Client::builder()
        .base_url(url(&server))
        .header("Authorization", "Bearer secret")
        .build()
        .expect("client");
    let processes = client.computers().get("e2e").processes();
    let errors = [
        processes.get("p_1").await.unwrap_err(),
        processes
            .start("true", StartOptions::new())
            .await
            .unwrap_err(),
    ];
    for err in errors {
        match &err {
            Error::Api { status: 302, .. } => {
                assert!(
                    err.to_string().contains("redirects are not followed"),
                    "{err}"
                );
            }
            other => panic!("{other}"),
        }
    }
}

#[tokio::test]
async fn a_keyed_start_whose_answer_was_lost_is_sent_again() {
    let dir = std::env::temp_dir().join(format!("dory-edges-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let marks = dir.join("started");
    let command = format!("echo started >> {}", marks.display());

    let server = Server::start(&["--port", "0", "--lose-start-answers", "1"]);
    let client = Client::new(Some(&url(&server))).expect("client");
    let processes = client.computers().get("e2e").processes();
    let identity = processes
        .start(
            command.as_str(),
            StartOptions::new().idempotency_key("edge-1"),
        )
        .await
        .expect("the keyed start is sent again");
    server.wait_exited(&identity.proc_id);
    assert_eq!(std::fs::read_to_string(&marks).expect("ran"), "started\n");
    std::fs::remove_file(&marks).expect("rm");

    let server = Server::start(&["--port", "0", "--lose-start-answers", "1"]);
    let client = Client::new(Some(&url(&server))).expect("client");
    let err = client
        .computers()
        .get("e2e")
        .processes()
        .start(command.as_str(), StartOptions::new())
        .await
        .unwrap_err();
    match &err {
        Error::NoAnswer {
            reason, attempts, ..
        } => {
            // Lost before or after its headers, as the connection closed.
            assert!(
                matches!(
                    reason,
                    DisconnectReason::NoResponse | DisconnectReason::EndOfBody
                ),
                "{err}"
            );
            assert_eq!(*attempts, 1);
            assert!(err.to_string().contains("it may have taken effect"));
        }
        other => panic!("{other}"),
    }
    for _ in 0..200 {
        if marks.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        std::fs::read_to_string(&marks).expect("ran"),
        "started\n",
        "never sent twice"
    );
    std::fs::remove_dir_all(&dir).expect("rm");
}
