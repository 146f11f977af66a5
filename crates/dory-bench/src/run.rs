//! The measured workloads: each takes the whole input and a piece size, feeds
//! the input in pieces of that size (as an HTTP body arrives), and returns a
//! small checksum so the work cannot be optimised away.

use std::hint::black_box;

use dory_wire::preview::{Bounded, SpillOutcome, StreamingBounder};
use std::borrow::Cow;

use dory_wire::{Cursor, End, Endpoint, Event, Reader, ReaderOptions, Sink, Stream};

use crate::baseline::{newline_floor, SerdeLines};

/// The preview limits measured: what an agent tool typically allows.
pub const PREVIEW_MAX_LINES: usize = 2000;
/// See [`PREVIEW_MAX_LINES`].
pub const PREVIEW_MAX_BYTES: usize = 50 * 1024;

/// One workload of the Rust benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// `dory_wire::Reader` into a [`Sink`] that appends each stream's bytes to a `Vec`.
    ReaderSink,
    /// `dory_wire::Follower` (one response, no faults) into the same Sink as
    /// [`Workload::ReaderSink`]: what the whole conversation costs over the reader.
    FollowerSink,
    /// `dory_wire::Reader` into a `Vec<Event>`, each `Event::Output` appended to a `Vec` per stream.
    Reader,
    /// `dory_wire::Reader` into a [`Sink`] that only counts: decoding alone.
    ReaderDecodeOnly,
    /// `dory_wire::Reader` feeding a `dory_wire::Transcript`: the README's example.
    ReaderTranscript,
    /// The text views of a filled `Transcript` (timed alone; MB/s of the streams' bytes).
    TranscriptText,
    /// The serde_json-per-line baseline, collecting each stream's bytes.
    SerdeLines,
    /// The `memchr` newline count.
    Floor,
    /// Copying the input into a growing `Vec`: what collecting ≈100 MB costs by itself.
    CopyFloor,
    /// `StreamingBounder` with a caller-chosen spill id (what the bindings default to).
    Preview,
    /// `StreamingBounder` deriving the spill id from the content (hashes every byte).
    PreviewDigest,
}

impl Workload {
    /// Every workload.
    pub const ALL: [Workload; 11] = [
        Workload::ReaderSink,
        Workload::FollowerSink,
        Workload::Reader,
        Workload::ReaderDecodeOnly,
        Workload::ReaderTranscript,
        Workload::TranscriptText,
        Workload::SerdeLines,
        Workload::Floor,
        Workload::CopyFloor,
        Workload::Preview,
        Workload::PreviewDigest,
    ];

    /// The short id used on the command line and in results.
    pub fn id(self) -> &'static str {
        match self {
            Workload::ReaderSink => "reader-sink",
            Workload::FollowerSink => "follower-sink",
            Workload::Reader => "reader",
            Workload::ReaderDecodeOnly => "reader-decode",
            Workload::ReaderTranscript => "reader-transcript",
            Workload::TranscriptText => "transcript-text",
            Workload::SerdeLines => "serde-lines",
            Workload::Floor => "memchr",
            Workload::CopyFloor => "copy",
            Workload::Preview => "preview",
            Workload::PreviewDigest => "preview-digest",
        }
    }

    /// Parses [`Workload::id`].
    pub fn from_id(id: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.id() == id)
    }

    /// The label shown in the table.
    pub fn label(self) -> &'static str {
        match self {
            Workload::ReaderSink => "dory_wire::Reader into a Sink, Vec per stream",
            Workload::FollowerSink => "dory_wire::Follower into the same Sink (no faults)",
            Workload::Reader => "dory_wire::Reader into Vec<Event>, then Vec per stream",
            Workload::ReaderDecodeOnly => "dory_wire::Reader into a counting Sink (decode only)",
            Workload::ReaderTranscript => {
                "dory_wire::Reader into a Transcript (the README's example)"
            }
            Workload::TranscriptText => {
                "Transcript text views of both streams (MB/s of the streams' bytes)"
            }
            Workload::SerdeLines => "serde_json per line + base64 + Vec",
            Workload::Floor => "memchr newline count (floor)",
            Workload::CopyFloor => "input copied into a growing Vec (collecting floor)",
            Workload::Preview => "StreamingBounder, caller's spill id",
            Workload::PreviewDigest => "StreamingBounder, content-derived id",
        }
    }

    /// `ours`, `baseline` or `floor`.
    pub fn role(self) -> &'static str {
        match self {
            Workload::ReaderSink | Workload::Preview => "ours",
            Workload::Reader
            | Workload::FollowerSink
            | Workload::ReaderDecodeOnly
            | Workload::ReaderTranscript
            | Workload::TranscriptText
            | Workload::PreviewDigest => "ours-variant",
            Workload::SerdeLines => "baseline",
            Workload::Floor | Workload::CopyFloor => "floor",
        }
    }

    /// Runs the workload once over `body` in pieces of `piece` bytes.
    pub fn run(self, body: &[u8], piece: usize) -> u64 {
        match self {
            Workload::ReaderSink => {
                let [out, err] = reader_sink(body, piece);
                (out.len() + err.len()) as u64
            }
            Workload::FollowerSink => {
                let [out, err] = follower_sink(body, piece);
                (out.len() + err.len()) as u64
            }
            Workload::Reader => {
                let [out, err] = reader_collect(body, piece);
                (out.len() + err.len()) as u64
            }
            Workload::ReaderDecodeOnly => reader_decode_only(body, piece),
            Workload::ReaderTranscript => {
                let t = reader_transcript(body, piece);
                (t.stream(Stream::Stdout).bytes().len() + t.stream(Stream::Stderr).bytes().len())
                    as u64
            }
            Workload::TranscriptText => text_views(&reader_transcript(body, piece)),
            Workload::SerdeLines => {
                let mut base = SerdeLines::new();
                for p in body.chunks(piece) {
                    if let Err(e) = base.feed(black_box(p)) {
                        panic!("baseline failed on the corpus: {}", e.0);
                    }
                }
                base.finish();
                (base.streams[0].len() + base.streams[1].len()) as u64
            }
            Workload::Floor => newline_floor(body.chunks(piece).map(black_box)),
            Workload::CopyFloor => {
                let mut out = Vec::new();
                for p in body.chunks(piece) {
                    out.extend_from_slice(black_box(p));
                }
                black_box(&out).len() as u64
            }
            Workload::Preview | Workload::PreviewDigest => {
                let mut bounder = streaming_bounder(self == Workload::Preview);
                for p in body.chunks(piece) {
                    bounder.push(black_box(p));
                }
                preview_len(bounder)
            }
        }
    }
}

/// A streaming bounder at the measured limits.
pub fn streaming_bounder(caller_id: bool) -> StreamingBounder {
    let bounder = StreamingBounder::new(PREVIEW_MAX_LINES, PREVIEW_MAX_BYTES);
    if caller_id {
        bounder.with_spill_id("0123456789abcdef0123456789abcdef")
    } else {
        bounder
    }
}

/// Ends a streaming bounder and returns the preview's length.
pub fn preview_len(bounder: StreamingBounder) -> u64 {
    let preview = match bounder.finish() {
        Err(e) => panic!("the benchmark's preview limits allow a cut: {e}"),
        Ok(Bounded::Fits(p)) => p,
        Ok(Bounded::NeedsSpill(pending)) => pending.render(
            SpillOutcome::Saved {
                path: "/tmp/dory-bench/spill.txt".into(),
            },
            None,
        ),
    };
    preview.text.len() as u64
}

fn new_reader() -> Reader {
    let mut reader = Reader::new(
        Endpoint::ProcessOutput,
        Cursor::default(),
        ReaderOptions::default(),
    );
    if let Err(e) = reader.open(200, "application/x-ndjson", None) {
        panic!("open: {e}");
    }
    reader
}

fn expect_exit(end: Result<End, dory_wire::Error>) {
    match end {
        Ok(End::Exited { .. }) => {}
        other => panic!("the corpus must end with exit: {other:?}"),
    }
}

/// Decodes `body` with the reader, in pieces, collecting each stream's bytes
/// (stdout, stderr): what an SDK's "read all output" does.
pub fn reader_collect(body: &[u8], piece: usize) -> [Vec<u8>; 2] {
    let mut reader = new_reader();
    let mut events = Vec::new();
    let mut out = [Vec::new(), Vec::new()];
    for p in body.chunks(piece) {
        if let Err(e) = reader.feed(black_box(p), &mut events) {
            panic!("reader failed on the corpus: {e}");
        }
        for event in events.drain(..) {
            if let Event::Output { stream, data, .. } = event {
                out[usize::from(stream == Stream::Stderr)].extend_from_slice(&data);
            }
        }
    }
    expect_exit(reader.finish(&mut events));
    out
}

/// Collects each stream's bytes straight from the reader; keeps other events.
#[derive(Debug, Default)]
struct Collect {
    streams: [Vec<u8>; 2],
    other: Vec<Event>,
}

impl Sink for Collect {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, _start: u64, _end: u64) {
        self.streams[usize::from(stream == Stream::Stderr)].extend_from_slice(&data);
    }

    fn event(&mut self, event: Event) {
        self.other.push(event);
    }
}

/// Decodes `body` with the reader into a [`Sink`] that appends each stream's
/// bytes to a `Vec` (stdout, stderr): no event per output frame.
pub fn reader_sink(body: &[u8], piece: usize) -> [Vec<u8>; 2] {
    let mut reader = new_reader();
    let mut sink = Collect::default();
    for p in body.chunks(piece) {
        if let Err(e) = reader.feed(black_box(p), &mut sink) {
            panic!("reader failed on the corpus: {e}");
        }
        sink.other.clear();
    }
    expect_exit(reader.finish(&mut sink));
    sink.streams
}

/// Follows `body` as the one response of a process-output read with the
/// follower, into the same [`Sink`] as [`reader_sink`]: the request, the
/// headers, the body in pieces, the decision.
pub fn follower_sink(body: &[u8], piece: usize) -> [Vec<u8>; 2] {
    let options = dory_wire::FollowOptions::default();
    let mut follower =
        match dory_wire::Follower::process_output("bench", "p1", Cursor::default(), options) {
            Ok(f) => f,
            Err(e) => panic!("follower: {e}"),
        };
    if let Err(e) = follower.request() {
        panic!("request: {e}");
    }
    if let Err(e) = follower.open(200, "application/x-ndjson", None, None) {
        panic!("open: {e}");
    }
    let mut sink = Collect::default();
    for p in body.chunks(piece) {
        if let Err(e) = follower.feed(black_box(p), &mut sink) {
            panic!("follower failed on the corpus: {e}");
        }
        sink.other.clear();
    }
    match follower.finish(None, 0.0, &mut sink) {
        Ok(dory_wire::Decision::Done(done)) if done.exited => {}
        other => panic!("the corpus must end with exit: {other:?}"),
    }
    sink.streams
}

/// Counts output bytes without keeping them: the reader's own throughput.
#[derive(Debug, Default)]
struct Count {
    bytes: u64,
    events: u64,
}

impl Sink for Count {
    fn output(&mut self, _stream: Stream, data: Cow<'_, [u8]>, _start: u64, _end: u64) {
        self.bytes += black_box(&data).len() as u64;
    }

    fn event(&mut self, event: Event) {
        black_box(event);
        self.events += 1;
    }
}

fn reader_decode_only(body: &[u8], piece: usize) -> u64 {
    let mut reader = new_reader();
    let mut sink = Count::default();
    for p in body.chunks(piece) {
        if let Err(e) = reader.feed(black_box(p), &mut sink) {
            panic!("reader failed on the corpus: {e}");
        }
    }
    expect_exit(reader.finish(&mut sink));
    sink.bytes + sink.events
}

/// Decodes `body` into a finished `Transcript`, as the README does.
pub fn reader_transcript(body: &[u8], piece: usize) -> dory_wire::Transcript {
    let mut reader = new_reader();
    let mut transcript = dory_wire::Transcript::new();
    for p in body.chunks(piece) {
        if let Err(e) = reader.feed(black_box(p), &mut transcript) {
            panic!("reader failed on the corpus: {e}");
        }
    }
    expect_exit(reader.finish(&mut transcript));
    transcript.finish();
    transcript
}

/// Builds both text views of `transcript`; returns their length.
pub fn text_views(transcript: &dory_wire::Transcript) -> u64 {
    let stdout = transcript.stream(Stream::Stdout).text();
    let stderr = transcript.stream(Stream::Stderr).text();
    (black_box(stdout).len() + black_box(stderr).len()) as u64
}
