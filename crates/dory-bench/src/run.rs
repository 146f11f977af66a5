//! The measured workloads: each takes the whole input and a piece size, feeds
//! the input in pieces of that size (as an HTTP body arrives), and returns a
//! small checksum so the work cannot be optimised away.

use std::hint::black_box;

use dory_wire::preview::Limits;
use dory_wire::preview::{
    run_spill_id, Bounded, Keep, RunBounder, SpillOutcome, StreamingBounder, View,
    DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES,
};
use dory_wire::search::{SearchOptions, Searcher};
use dory_wire::tokens::Tokenizer;
use std::borrow::Cow;

use dory_wire::{
    Command, Cursor, End, Endpoint, Event, Reader, ReaderOptions, Run, RunAction, RunOptions,
    RunSink, RunStep, Sink, Stream, Utf8Decoder,
};

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
    /// What every client's `run` did before the run machine: the
    /// Follower into a sink pushing each chunk to the run bounder, to the
    /// spills of its view and the combined one (counted, not kept) and to
    /// the per-stream UTF-8 decoder of the output hook.
    RunFollower,
    /// The same through the core's run machine (`dory_wire::Run`), its
    /// actions done by a sink that counts the spill bytes and the hook's text.
    RunMachine,
    /// The `memchr` newline count.
    Floor,
    /// Copying the input into a growing `Vec`: what collecting ≈100 MB costs by itself.
    CopyFloor,
    /// `StreamingBounder` with a caller-chosen spill id (what the bindings default to).
    Preview,
    /// `StreamingBounder` deriving the spill id from the content (hashes every byte).
    PreviewDigest,
    /// `StreamingBounder` with the default keep patterns and terminal
    /// rendering (what an agent's preview of a build log asks for).
    PreviewKeepTerminal,
    /// The spill search (`dory_wire::search::Searcher`) for `error` with two
    /// lines of context, at the run's limits.
    Search,
    /// Baseline of [`Workload::PreviewKeepTerminal`]: `grep -c -E` with the
    /// default keep patterns, the input on its standard input in pieces
    /// (its CPU time is measured, not ours), in the `C.UTF-8` locale (a
    /// shell's usual one: UTF-8 aware, as the core's patterns are).
    GrepKeep,
    /// The same in the `C` locale (bytes, no UTF-8).
    GrepKeepBytes,
    /// Baseline of [`Workload::Search`]: `grep -c error`, fed the same way.
    GrepSearch,
    /// Baseline of [`Workload::PreviewKeepTerminal`]: ripgrep (`rg -c`)
    /// with the default keep patterns, fed the same way (see [`rg_program`]).
    RgKeep,
    /// `StreamingBounder` with the default keep patterns only (the share
    /// of keep in [`Workload::PreviewKeepTerminal`]).
    PreviewKeep,
    /// `StreamingBounder` with terminal rendering only (the terminal's share).
    PreviewTerminal,
    /// [`Workload::PreviewKeepTerminal`] with a token limit as well
    /// ([`PREVIEW_MAX_TOKENS`] under `o200k_base`): the cost of `max_tokens`.
    PreviewTokens,
    /// The `o200k_base` count of the whole input, for the record: what a
    /// bounder would pay if it counted everything (it counts previews only).
    TokenCount,
}

/// How long `o200k_base` takes to load in a fresh process (this binary run
/// as `dory-bench tokenizer-load`, which prints the milliseconds), or
/// `None` when it could not be measured.
pub fn tokenizer_load_ms() -> Option<f64> {
    let exe = std::env::current_exe().ok()?;
    let out = std::process::Command::new(exe)
        .arg("tokenizer-load")
        .output()
        .ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// Loads `o200k_base` and returns the milliseconds it took (the
/// `tokenizer-load` command).
pub fn tokenizer_load() -> f64 {
    let started = std::time::Instant::now();
    Tokenizer::O200kBase.preload();
    started.elapsed().as_secs_f64() * 1000.0
}

/// The token limit of [`Workload::PreviewTokens`]: a model-sized budget
/// that binds on these previews (50 KiB of log is far more tokens).
pub const PREVIEW_MAX_TOKENS: usize = 4096;

impl Workload {
    /// Every workload.
    pub const ALL: [Workload; 23] = [
        Workload::ReaderSink,
        Workload::FollowerSink,
        Workload::RunFollower,
        Workload::RunMachine,
        Workload::Reader,
        Workload::ReaderDecodeOnly,
        Workload::ReaderTranscript,
        Workload::TranscriptText,
        Workload::SerdeLines,
        Workload::Floor,
        Workload::CopyFloor,
        Workload::Preview,
        Workload::PreviewDigest,
        Workload::PreviewKeepTerminal,
        Workload::Search,
        Workload::GrepKeep,
        Workload::GrepKeepBytes,
        Workload::GrepSearch,
        Workload::RgKeep,
        Workload::PreviewKeep,
        Workload::PreviewTerminal,
        Workload::PreviewTokens,
        Workload::TokenCount,
    ];

    /// The short id used on the command line and in results.
    pub fn id(self) -> &'static str {
        match self {
            Workload::ReaderSink => "reader-sink",
            Workload::FollowerSink => "follower-sink",
            Workload::RunFollower => "run-follower",
            Workload::RunMachine => "run-machine",
            Workload::Reader => "reader",
            Workload::ReaderDecodeOnly => "reader-decode",
            Workload::ReaderTranscript => "reader-transcript",
            Workload::TranscriptText => "transcript-text",
            Workload::SerdeLines => "serde-lines",
            Workload::Floor => "memchr",
            Workload::CopyFloor => "copy",
            Workload::Preview => "preview",
            Workload::PreviewDigest => "preview-digest",
            Workload::PreviewKeepTerminal => "preview-keep-terminal",
            Workload::Search => "search",
            Workload::GrepKeep => "grep-keep",
            Workload::GrepKeepBytes => "grep-keep-bytes",
            Workload::GrepSearch => "grep-search",
            Workload::RgKeep => "rg-keep",
            Workload::PreviewKeep => "preview-keep",
            Workload::PreviewTerminal => "preview-terminal",
            Workload::PreviewTokens => "preview-keep-terminal-tokens",
            Workload::TokenCount => "token-count",
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
            Workload::RunFollower => {
                "run before the machine: Follower into run bounder, spills, decoder"
            }
            Workload::RunMachine => "run through dory_wire::Run (the same work, as actions)",
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
            Workload::PreviewKeepTerminal => {
                "StreamingBounder, default keep patterns + terminal rendering"
            }
            Workload::Search => "Searcher for `error`, 2 lines of context (search a spill)",
            Workload::GrepKeep => {
                "grep -c -E with the default keep patterns, LC_ALL=C.UTF-8 (baseline)"
            }
            Workload::GrepKeepBytes => "the same grep in LC_ALL=C (bytes, no UTF-8)",
            Workload::GrepSearch => "grep -c error, LC_ALL=C.UTF-8 (baseline of the search)",
            Workload::RgKeep => "ripgrep: rg --crlf -c with the default keep patterns (baseline)",
            Workload::PreviewKeep => "StreamingBounder, default keep patterns only",
            Workload::PreviewTerminal => "StreamingBounder, terminal rendering only",
            Workload::PreviewTokens => {
                "the same with max_tokens 4096 (o200k_base): the preview counted, never the input"
            }
            Workload::TokenCount => "o200k_base count of the whole input (for the record)",
        }
    }

    /// `ours`, `baseline` or `floor`.
    pub fn role(self) -> &'static str {
        match self {
            Workload::ReaderSink | Workload::Preview => "ours",
            Workload::Reader
            | Workload::FollowerSink
            | Workload::RunFollower
            | Workload::RunMachine
            | Workload::ReaderDecodeOnly
            | Workload::ReaderTranscript
            | Workload::TranscriptText
            | Workload::PreviewDigest
            | Workload::PreviewKeepTerminal
            | Workload::PreviewKeep
            | Workload::PreviewTerminal
            | Workload::PreviewTokens
            | Workload::Search => "ours-variant",
            Workload::SerdeLines
            | Workload::GrepKeep
            | Workload::GrepKeepBytes
            | Workload::GrepSearch
            | Workload::RgKeep
            | Workload::TokenCount => "baseline",
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
            Workload::RunFollower => run_follower(body, piece),
            Workload::RunMachine => run_machine(body, piece),
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
            Workload::Search => {
                let options = SearchOptions {
                    context: 2,
                    ..SearchOptions::default()
                };
                let mut searcher = match Searcher::new("error", options) {
                    Ok(searcher) => searcher,
                    Err(e) => panic!("the benchmark's search is valid: {e}"),
                };
                for p in body.chunks(piece) {
                    searcher.push(black_box(p));
                }
                searcher
                    .finish(Some("/tmp/dory-bench/spill.txt"))
                    .text
                    .len() as u64
            }
            Workload::GrepKeep | Workload::GrepKeepBytes | Workload::GrepSearch => {
                let locale = if self == Workload::GrepKeepBytes {
                    "C"
                } else {
                    "C.UTF-8"
                };
                count_lines("grep", self.grep_args(), &[("LC_ALL", locale)], body, piece)
            }
            Workload::RgKeep => count_lines(&rg_program(), self.grep_args(), &[], body, piece),
            Workload::PreviewKeep | Workload::PreviewTerminal => {
                let keep = self == Workload::PreviewKeep;
                let mut bounder = streaming_bounder(true)
                    .with_keep(if keep { Keep::defaults() } else { Keep::none() })
                    .with_terminal(!keep);
                for p in body.chunks(piece) {
                    bounder.push(black_box(p));
                }
                preview_len(bounder)
            }
            Workload::PreviewKeepTerminal => {
                let mut bounder = streaming_bounder(true)
                    .with_keep(Keep::defaults())
                    .with_terminal(true);
                for p in body.chunks(piece) {
                    bounder.push(black_box(p));
                }
                preview_len(bounder)
            }
            Workload::PreviewTokens => {
                let limits = Limits::new(PREVIEW_MAX_LINES, PREVIEW_MAX_BYTES)
                    .with_max_tokens(PREVIEW_MAX_TOKENS, Tokenizer::O200kBase);
                let mut bounder = StreamingBounder::with_limits(limits)
                    .with_spill_id("0123456789abcdef0123456789abcdef")
                    .with_keep(Keep::defaults())
                    .with_terminal(true);
                for p in body.chunks(piece) {
                    bounder.push(black_box(p));
                }
                preview_len(bounder)
            }
            Workload::TokenCount => {
                // Whole lines per count (a piece may end inside a character).
                let mut total = 0u64;
                let mut rest: Vec<u8> = Vec::new();
                for p in body.chunks(piece) {
                    rest.extend_from_slice(black_box(p));
                    let Some(end) = memchr::memrchr(b'\n', &rest) else {
                        continue;
                    };
                    total +=
                        Tokenizer::O200kBase.count(&String::from_utf8_lossy(&rest[..=end])) as u64;
                    rest.drain(..=end);
                }
                total + Tokenizer::O200kBase.count(&String::from_utf8_lossy(&rest)) as u64
            }
        }
    }
}

impl Workload {
    /// The arguments of `grep` for a grep baseline (empty for the others).
    pub fn grep_args(self) -> Vec<String> {
        match self {
            Workload::GrepKeep | Workload::GrepKeepBytes => {
                let mut args = vec!["-c".to_string(), "-E".to_string()];
                for pattern in Keep::defaults().as_slice() {
                    args.push("-e".into());
                    args.push(pattern.clone());
                }
                args
            }
            Workload::GrepSearch => vec!["-c".into(), "error".into()],
            Workload::RgKeep => {
                // No configuration file; a `\r` before `\n` is not part of
                // the line, as for keep (`--crlf`); the input on standard input.
                let mut args = vec![
                    "--no-config".to_string(),
                    "--crlf".to_string(),
                    "-c".to_string(),
                ];
                for pattern in Keep::defaults().as_slice() {
                    args.push("-e".into());
                    args.push(pattern.clone());
                }
                args.push("-".into());
                args
            }
            _ => Vec::new(),
        }
    }

    /// Whether the work is done by a child process (`grep`), whose CPU
    /// time is the measure.
    pub fn is_external(self) -> bool {
        matches!(
            self,
            Workload::GrepKeep | Workload::GrepKeepBytes | Workload::GrepSearch | Workload::RgKeep
        )
    }
}

/// The ripgrep the baseline runs: `$DORY_BENCH_RG`, else the one
/// `scripts/bench.sh` installs (`target/tools/ripgrep/bin/rg`), else `rg`.
pub fn rg_program() -> String {
    if let Ok(rg) = std::env::var("DORY_BENCH_RG") {
        return rg;
    }
    let local = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../target/tools/ripgrep/bin/rg"
    );
    if std::path::Path::new(local).is_file() {
        return local.to_string();
    }
    "rg".to_string()
}

/// `ripgrep X.Y.Z` of [`rg_program`], when it runs.
pub fn rg_version() -> Option<String> {
    let out = std::process::Command::new(rg_program())
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.lines().next()?.trim().to_string()).filter(|v| out.status.success() && !v.is_empty())
}

/// Runs `program ARGS` (`grep` or `rg`) with `env` and `body` on its standard input, written in pieces of
/// `piece` bytes, and returns the count it prints. Exit status 1 (no line
/// matched) is a count of 0; anything else that is not success panics: the
/// baseline must have run.
fn count_lines(
    program: &str,
    args: Vec<String>,
    env: &[(&str, &str)],
    body: &[u8],
    piece: usize,
) -> u64 {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = match Command::new(program)
        .args(&args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => panic!("{program} could not be started: {e}"),
    };
    if let Some(mut stdin) = child.stdin.take() {
        for p in body.chunks(piece) {
            if let Err(e) = stdin.write_all(p) {
                panic!("writing to {program}: {e}");
            }
        }
    }
    let out = match child.wait_with_output() {
        Ok(out) => out,
        Err(e) => panic!("{program}: {e}"),
    };
    match out.status.code() {
        // ripgrep prints nothing when no line matched (exit status 1).
        Some(1) if out.stdout.trim_ascii().is_empty() => 0,
        Some(0) | Some(1) => String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{program} printed no count ({e}): {out:?}")),
        _ => panic!("{program} {args:?} failed: {out:?}"),
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

/// The old run sink: the run bounder, counted spill writes, the decoder.
struct RunFollowerSink {
    bounder: RunBounder,
    written: [u64; 3],
    decoders: [Utf8Decoder; 2],
    text: String,
    hooked: u64,
}

impl Sink for RunFollowerSink {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, _start: u64, _end: u64) {
        self.bounder.push(stream, &data);
        self.written[View::from(stream) as usize] += black_box(data.len()) as u64;
        self.written[2] += black_box(data.len()) as u64;
        self.text.clear();
        self.decoders[stream as usize].push(&data, &mut self.text);
        self.hooked += black_box(self.text.len()) as u64;
    }

    fn event(&mut self, event: Event) {
        if let Event::Skipped { stream, start, end } = event {
            self.bounder.lose(stream, start, end);
        }
    }
}

/// [`Workload::RunFollower`].
pub fn run_follower(body: &[u8], piece: usize) -> u64 {
    let options = dory_wire::FollowOptions::default();
    let mut follower =
        dory_wire::Follower::process_output("bench", "p1", Cursor::default(), options)
            .unwrap_or_else(|e| panic!("follower: {e}"));
    let _ = follower.request();
    let _ = follower.open(200, "application/x-ndjson", Some("p1"), None);
    let mut sink = RunFollowerSink {
        bounder: RunBounder::new(DEFAULT_RUN_MAX_LINES, DEFAULT_RUN_MAX_BYTES)
            .with_spill_id(&run_spill_id("k")),
        written: [0; 3],
        decoders: [Utf8Decoder::new(), Utf8Decoder::new()],
        text: String::new(),
        hooked: 0,
    };
    for p in body.chunks(piece) {
        if let Err(e) = follower.feed(black_box(p), &mut sink) {
            panic!("follower failed on the corpus: {e}");
        }
    }
    let _ = follower.finish(None, 0.0, &mut sink);
    let pending = sink
        .bounder
        .finish()
        .unwrap_or_else(|e| panic!("run bounder: {e}"));
    let combined = pending.render(View::Combined, SpillOutcome::NotSaved, None);
    combined.text.len() as u64 + sink.written.iter().sum::<u64>() + sink.hooked
}

/// The run machine's actions, counted.
#[derive(Default)]
struct RunCount {
    written: [u64; 3],
    hooked: u64,
}

impl RunSink for RunCount {
    fn act(&mut self, action: RunAction<'_>) {
        match action {
            RunAction::WriteSpill { view, data } => {
                self.written[view as usize] += black_box(data.len()) as u64;
            }
            RunAction::Output { text, .. } => self.hooked += black_box(text.len()) as u64,
            _ => {}
        }
    }
}

/// [`Workload::RunMachine`].
pub fn run_machine(body: &[u8], piece: usize) -> u64 {
    // The same work as run-follower's bare RunBounder: the previews' options
    // off (a run's default turns keep and terminal on; preview-keep-terminal
    // measures those).
    let options = RunOptions::new()
        .keep(Keep::none())
        .terminal(false)
        .idempotency_key("k")
        .spill(true)
        .on_output(true);
    let mut run = Run::new("bench", &Command::shell("bench"), options, [0; 16])
        .unwrap_or_else(|e| panic!("run: {e}"));
    let mut io = RunCount::default();
    let _ = run.request();
    let _ = run.open(200, "application/json", None, None);
    let _ = run.feed(br#"{"proc_id":"p1","status":"running"}"#, &mut io);
    let _ = run.finish(None, 0.0, &mut io);
    let _ = run.request();
    let _ = run.open(200, "application/x-ndjson", Some("p1"), None);
    for p in body.chunks(piece) {
        if let Err(e) = run.feed(black_box(p), &mut io) {
            panic!("run failed on the corpus: {e}");
        }
    }
    match run.finish(None, 0.0, &mut io) {
        Ok(RunStep::Done) => {}
        other => panic!("the corpus must end with exit: {other:?}"),
    }
    let result = run.result().unwrap_or_else(|e| panic!("result: {e}"));
    result.combined.text.len() as u64 + io.written.iter().sum::<u64>() + io.hooked
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
