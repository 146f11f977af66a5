//! Reader behaviour that the shared vectors cannot express: resume states,
//! misuse, liveness, sticky errors raised by `open`.

use std::time::Duration;

use dory_wire::{
    Cursor, DisconnectReason, End, Endpoint, Error, ErrorKind, Reader, ReaderOptions, ReaderState,
    ResumeState,
};

fn resumed(proc_id: &str) -> Reader {
    let mut state = ResumeState::new(Some(proc_id.to_owned()));
    state.cursor = Cursor::new(5, 2);
    Reader::resume(Endpoint::ProcessOutput, &state, ReaderOptions::default())
}

#[test]
fn a_header_contradicting_the_resume_state_is_a_sticky_identity_mismatch() {
    // Found by the `reader` and `document` fuzz targets.
    let mut reader = resumed("p_1");
    let err = reader
        .open(200, "application/x-ndjson", Some("p_2"))
        .unwrap_err();
    assert_eq!(err.code(), "identity_mismatch");
    assert_eq!(reader.state(), ReaderState::Failed);
    assert_eq!(reader.feed(b"{}\n", &mut Vec::new()), Err(err.clone()));
    assert_eq!(
        reader.open(200, "application/x-ndjson", Some("p_1")),
        Err(err.clone())
    );
    assert_eq!(reader.finish(&mut Vec::new()), Err(err));
    assert_eq!(reader.cursor(), Cursor::new(5, 2));
}

#[test]
fn the_resume_state_round_trips_through_json_and_a_new_reader() {
    let mut reader = resumed("p_1");
    reader
        .open(200, "application/x-ndjson", Some("p_1"))
        .unwrap();
    let body = b"{\"type\":\"stdout\",\"data\":\"abcdefg\",\"offset\":7}\n{\"type\":\"exit\",\"exit_code\":3,\"timed_out\":false}\n";
    let mut events = Vec::new();
    reader.feed(body, &mut events).unwrap();
    assert_eq!(
        reader.finish(&mut events).unwrap(),
        End::Exited {
            exit_code: Some(3),
            timed_out: false
        }
    );
    let json = reader.resume_state().to_json();
    let state = ResumeState::from_json(&json).unwrap();
    assert_eq!(state, reader.resume_state());
    assert_eq!(state.cursor, Cursor::new(7, 2));
    assert!(state.exit_seen);
    assert_eq!(state.exit_code, Some(3));
    let again = Reader::resume(Endpoint::ProcessOutput, &state, ReaderOptions::default());
    assert_eq!(again.resume_state(), state);
    let bad = json.replace("\"version\":1", "\"version\":99");
    assert_eq!(
        ResumeState::from_json(&bad).unwrap_err().code(),
        "invalid_state"
    );
    assert_eq!(
        ResumeState::from_json("{").unwrap_err().code(),
        "invalid_state"
    );
}

#[test]
fn misuse_is_invalid_state() {
    let mut reader = Reader::new(Endpoint::Exec, Cursor::default(), ReaderOptions::default());
    assert_eq!(
        reader.feed(b"x", &mut Vec::new()).unwrap_err().code(),
        "invalid_state"
    );
    let mut reader = Reader::new(Endpoint::Exec, Cursor::default(), ReaderOptions::default());
    reader.open(200, "application/x-ndjson", None).unwrap();
    assert_eq!(
        reader
            .open(200, "application/x-ndjson", None)
            .unwrap_err()
            .code(),
        "invalid_state"
    );
    let mut reader = Reader::new(Endpoint::Exec, Cursor::default(), ReaderOptions::default());
    reader.open(200, "application/x-ndjson", None).unwrap();
    reader.finish(&mut Vec::new()).unwrap();
    assert_eq!(reader.state(), ReaderState::Done);
    assert_eq!(
        reader.finish(&mut Vec::new()).unwrap_err().code(),
        "invalid_state"
    );
}

#[test]
fn liveness_is_driven_by_the_callers_clock() {
    let options = ReaderOptions::default().liveness_timeout(Duration::from_secs(30));
    let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::default(), options.clone());
    reader.open(200, "application/x-ndjson", None).unwrap();
    assert_eq!(
        reader.poll_timeout(),
        None,
        "not armed before the first call"
    );
    assert!(!reader.handle_timeout(Duration::from_secs(100)));
    assert_eq!(reader.poll_timeout(), Some(Duration::from_secs(130)));
    // A heartbeat arrives: the clock restarts at the next call.
    reader
        .feed(b"{\"type\":\"heartbeat\"}\n", &mut Vec::new())
        .unwrap();
    assert!(!reader.handle_timeout(Duration::from_secs(125)));
    assert_eq!(reader.poll_timeout(), Some(Duration::from_secs(155)));
    assert!(!reader.handle_timeout(Duration::from_secs(154)));
    assert!(
        reader.handle_timeout(Duration::from_secs(155)),
        "30 s without a byte"
    );
    assert_eq!(reader.poll_timeout(), None);
    assert_eq!(
        reader.feed(b"x", &mut Vec::new()).unwrap_err().code(),
        "invalid_state"
    );
    // A stall is a disconnect, not an error (the feed above failed, so start over).
    let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::default(), options);
    reader.open(200, "application/x-ndjson", None).unwrap();
    reader.handle_timeout(Duration::ZERO);
    assert!(reader.handle_timeout(Duration::from_secs(30)));
    assert_eq!(
        reader.finish(&mut Vec::new()).unwrap(),
        End::Disconnected {
            cursor: Cursor::default(),
            reason: DisconnectReason::Stalled
        }
    );
}

#[test]
fn documents_and_error_bodies_have_no_liveness_deadline() {
    let mut reader = Reader::new(
        Endpoint::Document,
        Cursor::default(),
        ReaderOptions::default(),
    );
    reader.open(200, "application/json", None).unwrap();
    assert!(!reader.handle_timeout(Duration::ZERO));
    assert!(!reader.handle_timeout(Duration::from_secs(3600)));
    reader
        .feed(br#"{"proc_id":"p","status":"running"}"#, &mut Vec::new())
        .unwrap();
    assert_eq!(reader.finish(&mut Vec::new()).unwrap(), End::Document);
    assert_eq!(reader.proc_id(), Some("p"));
    let err = Error::OutputExpired {
        server_message: String::new(),
    };
    assert_eq!(err.code(), "output_expired");
    assert_eq!(err.kind(), ErrorKind::Loss);
    assert!(!err.is_protocol_error());
}

/// Whatever fails a reader — a frame, an answer, a misuse, in any method —
/// every later call returns that same error, and the cursor stays put.
#[test]
fn every_error_is_sticky() {
    type Step = fn(&mut Reader) -> Result<(), Error>;
    let ndjson: Step = |r| r.open(200, "application/x-ndjson", None);
    let cases: Vec<(&str, Vec<Step>)> = vec![
        (
            "feed before open",
            vec![|r| r.feed(b"{}\n", &mut Vec::new())],
        ),
        (
            "finish before open",
            vec![|r| r.finish(&mut Vec::new()).map(drop)],
        ),
        ("bad content type", vec![|r| r.open(200, "text/html", None)]),
        (
            "bad frame",
            vec![ndjson, |r| {
                r.feed(
                    b"{\"type\":\"stdout\",\"data\":\"ab\",\"offset\":2}\n{",
                    &mut Vec::new(),
                )?;
                r.feed(b"x\n", &mut Vec::new())
            }],
        ),
        (
            "too large",
            vec![|r| r.open(200, "application/json", None), |r| {
                r.feed(&[b' '; 65], &mut Vec::new())
            }],
        ),
        (
            "feed after finish",
            vec![ndjson, |r| r.finish(&mut Vec::new()).map(drop), |r| {
                r.feed(b"", &mut Vec::new())
            }],
        ),
        (
            "error answer",
            vec![
                |r| r.open(410, "application/json", None),
                |r| r.feed(br#"{"error":"output_expired"}"#, &mut Vec::new()),
                |r| r.finish(&mut Vec::new()).map(drop),
            ],
        ),
    ];
    for (name, steps) in cases {
        let options = ReaderOptions::default().max_frame_bytes(64);
        let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::default(), options);
        let error = steps
            .iter()
            .find_map(|step| step(&mut reader).err())
            .unwrap_or_else(|| panic!("{name}: no error"));
        assert_eq!(reader.state(), ReaderState::Failed, "{name}");
        assert_eq!(reader.buffered_bytes(), 0, "{name}: buffers are dropped");
        let cursor = reader.cursor();
        let mut events = Vec::new();
        assert_eq!(
            reader.open(200, "application/x-ndjson", None),
            Err(error.clone()),
            "{name}"
        );
        assert_eq!(
            reader.feed(b"{\"type\":\"heartbeat\"}\n", &mut events),
            Err(error.clone()),
            "{name}"
        );
        assert_eq!(reader.finish(&mut events), Err(error.clone()), "{name}");
        assert!(
            events.is_empty(),
            "{name}: a failed reader delivers nothing"
        );
        assert_eq!(reader.cursor(), cursor, "{name}");
        assert_eq!(reader.state(), ReaderState::Failed, "{name}");
    }
}
