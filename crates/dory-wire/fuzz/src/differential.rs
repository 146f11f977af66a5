//! The differential check: on a valid stream the reader must deliver exactly
//! the bytes, cursor, process id and exit of the plain reference decoder.

use arbitrary::Unstructured;
use dory_wire::{DisconnectReason, End, Event, Reader, ReaderOptions};

use crate::reference::decode_stream;
use crate::split::pieces;
use crate::streamgen::generate_stream;

/// Generates a valid stream from `data`, decodes it with the reader (split by
/// the input's seed) and with the reference decoder, and compares them.
pub fn check(data: &[u8]) {
    let Ok(generated) = generate_stream(&mut Unstructured::new(data)) else {
        return;
    };
    let cursor = generated.cursor;
    let reference = decode_stream(&generated.body, [cursor.stdout, cursor.stderr]);

    let options = ReaderOptions::default().gap_policy(generated.gap_policy);
    let mut reader = Reader::new(generated.endpoint, cursor, options);
    let mut events = Vec::new();
    let body = String::from_utf8_lossy(&generated.body);
    reader
        .open(
            200,
            "application/x-ndjson",
            generated.proc_id_header.as_deref(),
        )
        .unwrap_or_else(|e| panic!("open: {e}"));
    for piece in pieces(&generated.body, generated.split_seed) {
        reader
            .feed(piece, &mut events)
            .unwrap_or_else(|e| panic!("valid stream rejected: {e}\nbody: {body}"));
    }
    let end = reader
        .finish(&mut events)
        .unwrap_or_else(|e| panic!("valid stream rejected at the end: {e}\nbody: {body}"));

    let mut bytes: [Vec<u8>; 2] = Default::default();
    let mut started = None;
    let mut exit = None;
    for event in events {
        match event {
            Event::Output { stream, data, .. } => {
                bytes[usize::from(stream == dory_wire::Stream::Stderr)].extend_from_slice(&data);
            }
            Event::Started { proc_id } => started = Some(proc_id),
            Event::Exit {
                exit_code,
                timed_out,
                ..
            } => exit = Some((exit_code, timed_out)),
            Event::Heartbeat | Event::Unknown { .. } => {}
            other => panic!("unexpected event on a valid stream: {other:?}\nbody: {body}"),
        }
    }
    assert_eq!(
        bytes[0], reference.bytes[0],
        "stdout bytes differ\nbody: {body}"
    );
    assert_eq!(
        bytes[1], reference.bytes[1],
        "stderr bytes differ\nbody: {body}"
    );
    let got = reader.cursor();
    assert_eq!([got.stdout, got.stderr], reference.cursor, "cursor differs");
    assert_eq!(started, reference.started, "process id differs");
    assert_eq!(exit, reference.exit, "exit differs");
    match (end, reference.exit) {
        (
            End::Exited {
                exit_code,
                timed_out,
            },
            Some(expected),
        ) => assert_eq!((exit_code, timed_out), expected),
        (
            End::Disconnected {
                cursor,
                reason: DisconnectReason::EndOfBody,
            },
            None,
        ) => assert_eq!(cursor, got),
        (end, expected) => panic!("end {end:?}, reference exit {expected:?}\nbody: {body}"),
    }
}
