//! Property tests of the reader: exact bytes through any framing, encoding
//! and split; exact transcripts across disconnects and resumes; losses that
//! are either an error or exact `skipped` ranges; no panic on any input.

mod common;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use dory_wire::{
    Cursor, DisconnectReason, End, Endpoint, Error, GapPolicy, Piece, Reader, ReaderOptions,
    Stream, Transcript,
};
use proptest::prelude::*;

/// One chunk of output as the server frames it.
#[derive(Debug, Clone)]
struct Chunk {
    stream: Stream,
    start: u64,
    data: Vec<u8>,
    base64: bool,
}

impl Chunk {
    fn end(&self) -> u64 {
        self.start + self.data.len() as u64
    }

    fn line(&self) -> String {
        let ty = self.stream.as_str();
        match std::str::from_utf8(&self.data) {
            Ok(text) if !self.base64 => format!(
                "{{\"type\":\"{ty}\",\"data\":{},\"offset\":{}}}\n",
                serde_json::to_string(text).unwrap(),
                self.end()
            ),
            _ => format!(
                "{{\"offset\":{},\"encoding\":\"base64\",\"type\":\"{ty}\",\"data\":\"{}\"}}\n",
                self.end(),
                STANDARD.encode(&self.data)
            ),
        }
    }
}

/// Bytes that stress both encodings: text, multi-byte characters, invalid UTF-8.
fn output_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            4 => Just("log line ".as_bytes().to_vec()),
            2 => Just("é漢😀\n".as_bytes().to_vec()),
            1 => Just(vec![0u8, 0xff, 0xc3]),
            1 => Just(b"\"quoted\\ \t\r\n".to_vec()),
            2 => prop::collection::vec(any::<u8>(), 0..20),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// Both streams cut into chunks at random points and interleaved.
fn chunked() -> impl Strategy<Value = (Vec<u8>, Vec<u8>, Vec<Chunk>)> {
    (output_bytes(), output_bytes(), any::<u64>()).prop_map(|(out, err, seed)| {
        let mut rng = common::Rng(seed);
        let mut chunks = Vec::new();
        let split = |stream, bytes: &[u8], rng: &mut common::Rng| {
            let mut list = Vec::new();
            let mut at = 0;
            while at < bytes.len() {
                let n = 1 + rng.below(bytes.len().min(24) as u64) as usize;
                let end = (at + n).min(bytes.len());
                list.push(Chunk {
                    stream,
                    start: at as u64,
                    data: bytes[at..end].to_vec(),
                    base64: rng.below(3) == 0,
                });
                at = end;
            }
            list
        };
        let a = split(Stream::Stdout, &out, &mut rng);
        let b = split(Stream::Stderr, &err, &mut rng);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if j == b.len() || (i < a.len() && rng.below(2) == 0) {
                chunks.push(a[i].clone());
                i += 1;
            } else {
                chunks.push(b[j].clone());
                j += 1;
            }
        }
        (out, err, chunks)
    })
}

const EXIT: &str = "{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n";

fn body(chunks: &[Chunk], exit: bool) -> Vec<u8> {
    let mut body: String = chunks.iter().map(Chunk::line).collect();
    if exit {
        body.push_str(EXIT);
    }
    body.into_bytes()
}

/// Feeds `body` in the pieces `cuts` makes; returns the end (or error).
fn run(
    reader: &mut Reader,
    body: &[u8],
    cuts: &[usize],
    transcript: &mut Transcript,
) -> Result<End, Error> {
    run_response(reader, 200, "application/x-ndjson", body, cuts, transcript)
}

fn run_response(
    reader: &mut Reader,
    status: u16,
    content_type: &str,
    body: &[u8],
    cuts: &[usize],
    transcript: &mut Transcript,
) -> Result<End, Error> {
    reader.open(status, content_type, None)?;
    let mut events = Vec::new();
    let mut at = 0;
    let mut result = Ok(());
    for &cut in cuts.iter().chain(std::iter::once(&body.len())) {
        result = reader.feed(&body[at..cut], &mut events);
        if result.is_err() {
            break;
        }
        at = cut;
    }
    let end = result.and_then(|_| reader.finish(&mut events));
    for e in &events {
        transcript.push(e);
    }
    end
}

fn sorted_cuts(seed: u64, len: usize) -> Vec<usize> {
    common::Rng(seed).cuts(len, 12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    #[test]
    fn any_framing_and_split_gives_the_exact_bytes((out, err, chunks) in chunked(), seed: u64) {
        let body = body(&chunks, true);
        let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::default(), ReaderOptions::default());
        let mut t = Transcript::new();
        let end = run(&mut reader, &body, &sorted_cuts(seed, body.len()), &mut t).unwrap();
        prop_assert_eq!(end, End::Exited { exit_code: Some(0), timed_out: false });
        prop_assert_eq!(t.stream(Stream::Stdout).bytes(), &out[..]);
        prop_assert_eq!(t.stream(Stream::Stderr).bytes(), &err[..]);
        prop_assert_eq!(reader.cursor(), Cursor::new(out.len() as u64, err.len() as u64));
    }

    #[test]
    fn resuming_after_random_disconnects_rebuilds_the_transcript(
        (out, err, chunks) in chunked(),
        seed: u64,
    ) {
        let mut rng = common::Rng(seed);
        let mut cursor = Cursor::default();
        let mut t = Transcript::new();
        let mut finished = false;
        for attempt in 0..24 {
            // The server re-sends from any chunk at or before the first one
            // not fully consumed (duplicates and overlap are the client's job).
            let first_needed = chunks
                .iter()
                .position(|c| c.end() > cursor.get(c.stream))
                .unwrap_or(chunks.len());
            let from = rng.below(first_needed as u64 + 1) as usize;
            let full = body(&chunks[from..], true);
            let last = attempt == 23;
            let cut = if last { full.len() } else { rng.below(full.len() as u64 + 1) as usize };
            let mut reader = Reader::new(Endpoint::ProcessOutput, cursor, ReaderOptions::default());
            let cuts = sorted_cuts(rng.next_u64(), cut);
            match run(&mut reader, &full[..cut], &cuts, &mut t).unwrap() {
                End::Exited { .. } => {
                    finished = true;
                    break;
                }
                End::Disconnected { cursor: c, reason } => {
                    prop_assert_eq!(reason, DisconnectReason::EndOfBody);
                    prop_assert_eq!(c, reader.cursor());
                    cursor = c;
                }
                other => prop_assert!(false, "unexpected end {:?}", other),
            }
        }
        prop_assert!(finished);
        prop_assert_eq!(t.stream(Stream::Stdout).bytes(), &out[..]);
        prop_assert_eq!(t.stream(Stream::Stderr).bytes(), &err[..]);
    }

    #[test]
    fn lost_output_is_an_error_or_exactly_skipped(
        (out, err, chunks) in chunked(),
        lose_from in any::<prop::sample::Index>(),
        lose_len in 0usize..10,
        gap_frame: bool,
        skip: bool,
        seed: u64,
    ) {
        // Chunks [a, b) are evicted: either silently missing (a hole), or the
        // stream stops at `a` with a `gap` frame naming the earliest retained offsets.
        let a = if chunks.is_empty() { 0 } else { lose_from.index(chunks.len()) };
        let b = (a + lose_len).min(chunks.len());
        let mut body_text: String = chunks[..a].iter().map(Chunk::line).collect();
        if gap_frame {
            let earliest = |s: Stream| {
                chunks[b..].iter().find(|c| c.stream == s).map(|c| c.start).unwrap_or(
                    if s == Stream::Stdout { out.len() as u64 } else { err.len() as u64 },
                )
            };
            body_text.push_str(&format!(
                "{{\"type\":\"gap\",\"earliest_stdout_offset\":{},\"earliest_stderr_offset\":{}}}\n",
                earliest(Stream::Stdout),
                earliest(Stream::Stderr)
            ));
        } else {
            body_text.extend(chunks[b..].iter().map(Chunk::line));
            body_text.push_str(EXIT);
        }
        let body = body_text.into_bytes();
        let policy = if skip { GapPolicy::Skip } else { GapPolicy::Fail };
        let mut reader = Reader::new(
            Endpoint::ProcessOutput,
            Cursor::default(),
            ReaderOptions::default().gap_policy(policy),
        );
        let mut t = Transcript::new();
        let end = run(&mut reader, &body, &sorted_cuts(seed, body.len()), &mut t);
        // A loss is visible through a gap frame, or as a hole before a later
        // chunk of the same stream (a loss at the very end, followed by
        // `exit`, is indistinguishable from complete output).
        let lost_any = chunks[a..b].iter().any(|c| {
            !c.data.is_empty()
                && (gap_frame || chunks[b..].iter().any(|k| k.stream == c.stream))
        });
        match (&end, skip) {
            (Err(Error::OutputGap { .. }), false) => prop_assert!(lost_any),
            (Err(e), _) => prop_assert!(false, "unexpected error {}", e),
            (Ok(_), false) => prop_assert!(!lost_any),
            (Ok(_), true) => {}
        }
        // Whatever was delivered is exact, and the pieces tile [0, cursor).
        for (stream, original) in [(Stream::Stdout, &out), (Stream::Stderr, &err)] {
            let s = t.stream(stream);
            let mut next = 0u64;
            for piece in s.pieces() {
                match piece {
                    Piece::Data { range, at } => {
                        prop_assert_eq!(range.start, next);
                        let n = (range.end - range.start) as usize;
                        prop_assert_eq!(
                            &s.bytes()[*at..*at + n],
                            &original[range.start as usize..range.end as usize]
                        );
                        next = range.end;
                    }
                    Piece::Skipped { range } => {
                        prop_assert!(skip);
                        prop_assert_eq!(range.start, next);
                        prop_assert!(range.end > range.start);
                        next = range.end;
                    }
                }
            }
            prop_assert_eq!(next, reader.cursor().get(stream));
        }
    }

    #[test]
    fn no_input_panics(
        endpoint in prop::sample::select(vec![
            Endpoint::Exec, Endpoint::ProcessOutput, Endpoint::SetupLogs, Endpoint::Document,
        ]),
        status in prop::sample::select(vec![200u16, 204, 400, 409, 410, 500]),
        json in any::<bool>(),
        body in prop::collection::vec(
            prop_oneof![
                Just(b"{\"type\":\"stdout\",\"data\":\"x\",\"offset\":1}\n".to_vec()),
                Just(b"{\"type\":\"started\",\"proc_id\":\"p\"}\n".to_vec()),
                Just(b"{\"type\":\"gap\",\"earliest_stdout_offset\":9,\"earliest_stderr_offset\":18446744073709551615}\n".to_vec()),
                Just(b"{\"error\":\"output_gap\",\"earliest_offset\":3}".to_vec()),
                Just(b"\"\\ud800\\u".to_vec()),
                prop::collection::vec(any::<u8>(), 0..16),
            ],
            0..12,
        ),
        skip: bool,
        max in 1usize..64,
        cursor in (any::<u64>(), any::<u64>()),
    ) {
        let body = body.concat();
        let options = ReaderOptions::default()
            .gap_policy(if skip { GapPolicy::Skip } else { GapPolicy::Fail })
            .max_frame_bytes(max);
        let mut reader = Reader::new(endpoint, Cursor::new(cursor.0, cursor.1), options);
        let ct = if json { "application/json" } else { "application/x-ndjson" };
        let mut t = Transcript::new();
        let first = run_response(&mut reader, status, ct, &body, &[body.len() / 2], &mut t);
        // Sticky: a second finish returns an error, the same one if it failed.
        let mut events = Vec::new();
        let again = reader.finish(&mut events);
        prop_assert!(again.is_err());
        if let Err(e) = first {
            prop_assert_eq!(again.unwrap_err(), e);
        }
    }
}
