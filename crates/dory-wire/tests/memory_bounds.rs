//! Memory bounds under hostile input, proven through the public API
//! (`Reader::buffered_bytes`, `StreamingBounder::retained_bytes`) and, where
//! the platform has it, the process's resident set (`/proc/self/statm`).
//!
//! Inputs are generated on the fly in 1 MiB pieces: a test never holds the
//! whole hostile body. The RSS checks use generous margins (the test harness
//! runs tests on parallel threads of one process) that still catch any
//! buffer that grows with the input.

use dory_wire::preview::{Bounded, SpillOutcome, StreamingBounder};
use dory_wire::{
    Cursor, DisconnectReason, End, Endpoint, Error, Event, Reader, ReaderOptions, Stream,
    DEFAULT_MAX_FRAME_BYTES, MAX_ERROR_BODY_BYTES,
};

const MIB: usize = 1024 * 1024;
const GIB: usize = 1024 * MIB;

/// Resident set size in bytes, when the platform reports it.
fn rss_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Fails if the resident set grew by more than `margin` since `before`.
fn assert_rss_within(before: Option<usize>, margin: usize, what: &str) {
    if let (Some(before), Some(after)) = (before, rss_bytes()) {
        let grown = after.saturating_sub(before);
        assert!(
            grown <= margin,
            "{what}: resident set grew by {} MiB (limit {} MiB)",
            grown / MIB,
            margin / MIB
        );
    }
}

fn open(endpoint: Endpoint, status: u16, content_type: &str) -> Reader {
    let mut reader = Reader::new(endpoint, Cursor::default(), ReaderOptions::default());
    reader
        .open(status, content_type, None)
        .expect("the response opens");
    reader
}

/// Feeds `prefix`, then 1 MiB pieces of `fill` until 1 GiB was fed or the
/// reader fails; checks `buffered_bytes() <= limit` after every feed.
/// Returns the error and how many bytes were fed when it came.
fn feed_one_gib(
    reader: &mut Reader,
    prefix: &[u8],
    fill: u8,
    limit: usize,
) -> (Option<Error>, usize) {
    let piece = vec![fill; MIB];
    let mut events = Vec::new();
    let mut fed = prefix.len();
    if let Err(e) = reader.feed(prefix, &mut events) {
        return (Some(e), fed);
    }
    while fed < GIB {
        let result = reader.feed(&piece, &mut events);
        fed += piece.len();
        assert!(
            reader.buffered_bytes() <= limit,
            "buffered {} bytes after {fed} fed, limit {limit}",
            reader.buffered_bytes()
        );
        if let Err(e) = result {
            return (Some(e), fed);
        }
    }
    assert!(events.is_empty(), "no frame ever completed, so no event");
    (None, fed)
}

#[test]
fn a_one_gib_line_without_newline_ends_in_frame_too_large_at_the_limit() {
    let rss = rss_bytes();
    // The same 16 MiB limit guards a frame line and a 2xx JSON document.
    let cases: [(Endpoint, &str, &[u8]); 3] = [
        (
            Endpoint::ProcessOutput,
            "application/x-ndjson",
            br#"{"type":"stdout","data":""#,
        ),
        (Endpoint::Exec, "application/x-ndjson", b""),
        (
            Endpoint::Document,
            "application/json",
            br#"{"proc_id":"p_1","status":""#,
        ),
    ];
    for (endpoint, content_type, prefix) in cases {
        let mut reader = open(endpoint, 200, content_type);
        let (error, fed) = feed_one_gib(&mut reader, prefix, b'a', DEFAULT_MAX_FRAME_BYTES);
        assert_eq!(
            error,
            Some(Error::FrameTooLarge {
                limit: DEFAULT_MAX_FRAME_BYTES
            }),
            "{content_type}"
        );
        // It fails fast: in the piece that crosses the limit, not at the end.
        assert!(
            fed <= DEFAULT_MAX_FRAME_BYTES + MIB + prefix.len(),
            "failed only after {fed} bytes"
        );
        // Sticky, and the buffer does not grow any more.
        let mut events = Vec::new();
        let again = reader.feed(&[b'a'; 4096], &mut events);
        assert_eq!(again.unwrap_err().code(), "frame_too_large");
        assert!(reader.buffered_bytes() <= DEFAULT_MAX_FRAME_BYTES);
        assert_eq!(
            reader.finish(&mut events).unwrap_err().code(),
            "frame_too_large"
        );
    }
    assert_rss_within(rss, 256 * MIB, "a 1 GiB line");
}

#[test]
fn a_small_frame_limit_is_enforced_before_the_newline_arrives() {
    let limit = 1000;
    let options = ReaderOptions::default().max_frame_bytes(limit);
    let mut reader = Reader::new(Endpoint::ProcessOutput, Cursor::default(), options);
    reader
        .open(200, "application/x-ndjson", None)
        .expect("opens");
    let mut events = Vec::new();
    let mut fed = 0;
    let error = loop {
        // 7-byte pieces never contain a newline: the line only grows.
        match reader.feed(b"aaaaaaa", &mut events) {
            Ok(()) => fed += 7,
            Err(e) => break e,
        }
        assert!(reader.buffered_bytes() <= limit);
    };
    assert_eq!(error, Error::FrameTooLarge { limit });
    assert!(
        fed <= limit,
        "accepted {fed} bytes of a line longer than {limit}"
    );
}

#[test]
fn an_error_body_of_one_gib_is_capped_at_64_kib() {
    let rss = rss_bytes();
    let cases: [(u16, &str, &[u8]); 3] = [
        (502, "text/html", b"<html><body>bad gateway"),
        (
            500,
            "application/json",
            br#"{"error":"internal","message":""#,
        ),
        (
            409,
            "application/json",
            br#"{"error":"output_gap","earliest_stdout_offset":5,"x":""#,
        ),
    ];
    for (status, content_type, prefix) in cases {
        let mut reader = open(Endpoint::ProcessOutput, status, content_type);
        let (error, fed) = feed_one_gib(&mut reader, prefix, b'x', MAX_ERROR_BODY_BYTES);
        assert_eq!(error, None, "an error body is read to its end");
        assert!(fed >= GIB, "stopped after {fed} bytes");
        assert_eq!(reader.buffered_bytes(), MAX_ERROR_BODY_BYTES);
        let mut events = Vec::new();
        match reader.finish(&mut events) {
            // Past 64 KiB a body is not read as JSON: the status is the information.
            Err(Error::Api {
                status: s,
                api_code: None,
                server_message,
            }) => {
                assert_eq!(s, status);
                let len = server_message.len();
                assert!(len < 1024, "a {len} byte message");
            }
            other => panic!("{status} {content_type}: {other:?}"),
        }
        assert!(events.is_empty());
    }
    assert_rss_within(rss, 256 * MIB, "a 1 GiB error body");
}

#[test]
fn a_million_tiny_frames_keep_buffered_bytes_flat() {
    const FRAMES: u64 = 1_000_000;
    let mut reader = open(Endpoint::ProcessOutput, 200, "application/x-ndjson");
    let mut events = Vec::new();
    let mut batch = Vec::with_capacity(70_000);
    let mut longest_line = 0;
    let mut delivered = [0u64; 2];
    let mut rss_at_start = None;
    let mut offsets = [0u64; 2];
    let mut next = 1;
    while next <= FRAMES {
        // About 64 KiB of frames, cut 7 bytes before the end so a partial
        // line is always carried into the next feed.
        while batch.len() < 64 * 1024 && next <= FRAMES {
            let index = usize::from(next % 3 == 0);
            offsets[index] += 1;
            let stream = ["stdout", "stderr"][index];
            let line = format!(
                "{{\"type\":\"{stream}\",\"data\":\"x\",\"offset\":{}}}\n",
                offsets[index]
            );
            longest_line = longest_line.max(line.len());
            batch.extend_from_slice(line.as_bytes());
            if next % 1000 == 0 {
                batch.extend_from_slice(b"{\"type\":\"heartbeat\"}\n");
            }
            next += 1;
        }
        let cut = if next <= FRAMES {
            batch.len() - 7
        } else {
            batch.len()
        };
        reader
            .feed(&batch[..cut], &mut events)
            .expect("valid frames");
        assert!(
            reader.buffered_bytes() < longest_line,
            "buffered {} bytes: more than one line",
            reader.buffered_bytes()
        );
        for event in events.drain(..) {
            if let Event::Output { stream, data, .. } = event {
                delivered[usize::from(stream == Stream::Stderr)] += data.len() as u64;
            }
        }
        batch.drain(..cut);
        if next > FRAMES / 10 && rss_at_start.is_none() {
            rss_at_start = rss_bytes();
        }
    }
    assert!(batch.is_empty());
    let end = reader.finish(&mut events).expect("ends");
    let cursor = Cursor::new(FRAMES - FRAMES / 3, FRAMES / 3);
    assert_eq!(
        end,
        End::Disconnected {
            cursor,
            reason: DisconnectReason::EndOfBody
        }
    );
    assert_eq!(delivered, [cursor.stdout, cursor.stderr]);
    assert_eq!(reader.buffered_bytes(), 0);
    assert_rss_within(rss_at_start, 64 * MIB, "a million frames");
}

#[test]
fn the_streaming_bounder_retains_a_bounded_amount_of_a_large_input() {
    let rss = rss_bytes();
    let (max_lines, max_bytes) = (50, 4096);
    let bound = 2 * (2 * max_bytes + 8);
    // A content-derived spill id hashes everything; a caller's id skips that.
    for (total, spill_id) in [(64 * MIB, None), (512 * MIB, Some("caller-id"))] {
        let mut bounder = StreamingBounder::new(max_lines, max_bytes);
        if let Some(id) = spill_id {
            bounder = bounder.with_spill_id(id);
        }
        let mut piece = Vec::with_capacity(MIB);
        let mut line = 0u64;
        while piece.len() < MIB {
            piece.extend_from_slice(format!("line {line}: some build output\n").as_bytes());
            line += 1;
        }
        let mut pushed = 0;
        let mut size = 1;
        while pushed < total {
            // Chunks of 1 byte up to 1 MiB, cycling.
            let take = size.min(total - pushed).min(piece.len());
            bounder.push(&piece[..take]);
            pushed += take;
            size = if size >= MIB { 1 } else { size * 4 + 3 };
            assert!(
                bounder.retained_bytes() <= bound,
                "retained {} bytes after {pushed}, bound {bound}",
                bounder.retained_bytes()
            );
        }
        assert_eq!(bounder.total_bytes(), total as u64);
        let preview = match bounder.finish().expect("limits that allow a cut") {
            Bounded::NeedsSpill(pending) => {
                if let Some(id) = spill_id {
                    assert_eq!(pending.spill_id(), id);
                }
                pending.render(SpillOutcome::NotSaved, None)
            }
            Bounded::Fits(_) => panic!("{total} bytes cannot fit in {max_bytes}"),
        };
        assert!(preview.truncated);
        assert!(preview.text.len() <= max_bytes);
        assert!(preview.text.lines().count() <= max_lines);
        assert_eq!(preview.total_bytes, total as u64);
    }
    assert_rss_within(rss, 256 * MIB, "a large streamed preview");
}

/// The terminal renderer's documented bound for one view (docs/preview.md,
/// "Terminal rendering"): `8 × cap + 16 KiB` with
/// `cap = max(2 × max_bytes + 8, 4096)`, on top of the bounder's own.
fn terminal_bound(max_bytes: usize) -> usize {
    8 * (2 * max_bytes + 8).max(4096) + 16 * 1024
}

/// Hostile terminal input: long rows, many rows of half the cap, cursor-up
/// redraws of wide rows, backspace spinners and random control bytes, for
/// small and large limits, in a streaming bounder and a run bounder (three
/// views, each with its terminal).
#[test]
fn the_terminal_window_retains_a_bounded_amount() {
    use dory_wire::preview::{Keep, RunBounder};
    use dory_wire::Stream;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for max_bytes in [64usize, 700, 4096, 16384] {
        let cap = (2 * max_bytes + 8).max(4096);
        let mut inputs: Vec<Vec<Vec<u8>>> = Vec::new();
        inputs.push(
            (0..70)
                .map(|_| [vec![b'x'; 3 * cap], vec![b'\n']].concat())
                .collect(),
        );
        inputs.push(
            (0..200)
                .map(|_| [vec![b'y'; cap / 2], vec![b'\n']].concat())
                .collect(),
        );
        let mut redraws = Vec::new();
        for frame in 0..30 {
            let mut rows = Vec::new();
            for row in 0..10 {
                rows.extend_from_slice(format!("row {row} frame {frame} ").as_bytes());
                rows.extend(std::iter::repeat_n(b'z', cap / 3));
                rows.push(b'\n');
            }
            redraws.push(rows);
            redraws.push(b"\x1b[10A".to_vec());
        }
        inputs.push(redraws);
        inputs.push(
            (0..10)
                .map(|_| [b"|\x08/\x08-\x08\\\x08".repeat(2000), vec![b'\n']].concat())
                .collect(),
        );
        let alphabet = b"ab\n\r\x1b[A\x08K2 ";
        inputs.push(
            (0..300)
                .map(|_| {
                    let n = 1 + (next() as usize) % (cap / 4);
                    (0..n)
                        .map(|_| alphabet[(next() as usize) % alphabet.len()])
                        .collect()
                })
                .collect(),
        );
        for chunks in &inputs {
            let mut streaming = StreamingBounder::new(40, max_bytes)
                .with_terminal(true)
                .with_keep(Keep::defaults());
            let mut run = RunBounder::new(40, max_bytes)
                .with_terminal(true)
                .with_keep(Keep::defaults());
            let one = 2 * (2 * max_bytes + 8) + terminal_bound(max_bytes);
            let three = 6 * (2 * max_bytes + 8)
                + max_bytes / 4
                + 4
                + 32 * (max_bytes / 4 + 5)
                + 3 * terminal_bound(max_bytes);
            for (i, chunk) in chunks.iter().enumerate() {
                streaming.push(chunk);
                run.push(
                    if i % 3 == 0 {
                        Stream::Stderr
                    } else {
                        Stream::Stdout
                    },
                    chunk,
                );
                assert!(
                    streaming.retained_bytes() <= one,
                    "streaming, max_bytes {max_bytes}: {} > {one}",
                    streaming.retained_bytes()
                );
                assert!(
                    run.retained_bytes() <= three,
                    "run, max_bytes {max_bytes}: {} > {three}",
                    run.retained_bytes()
                );
            }
        }
    }
}
