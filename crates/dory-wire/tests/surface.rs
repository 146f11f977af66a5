//! The public surface of the crate, against `tests/api/surface.json` (the
//! machine-checked table of `docs/api.md`).
//!
//! - The `use` lines below name every Rust path of that file, one per line:
//!   if an item is renamed or removed, this file stops compiling.
//! - The functions after them name every type, and the fields and methods
//!   that `docs/api.md` gives, so a changed shape stops compiling too.
//! - The tests check that the `use` lines and the file list the same paths,
//!   and that the crate exports nothing the file does not list.
#![allow(unused_imports, dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

// ---- the list: exactly the "rust" paths of tests/api/surface.json
use dory_wire::base_url;
use dory_wire::exec_answer;
use dory_wire::fresh_run_key;
use dory_wire::http_status;
use dory_wire::identity_answer;
use dory_wire::names::camel_case;
use dory_wire::names::js_argument;
use dory_wire::preview::checked_limit;
use dory_wire::preview::count_tokens;
use dory_wire::preview::run_spill_id;
use dory_wire::preview::spill_file_name;
use dory_wire::preview::token_limit;
use dory_wire::preview::tokenizers;
use dory_wire::preview::Bounded;
use dory_wire::preview::Bounder;
use dory_wire::preview::Keep;
use dory_wire::preview::Limits;
use dory_wire::preview::Notice;
use dory_wire::preview::NoticeKind;
use dory_wire::preview::PendingSpill;
use dory_wire::preview::Preview;
use dory_wire::preview::RunBounder;
use dory_wire::preview::RunEnd;
use dory_wire::preview::RunPending;
use dory_wire::preview::SpillError;
use dory_wire::preview::SpillOutcome;
use dory_wire::preview::Split;
use dory_wire::preview::StreamingBounder;
use dory_wire::preview::TokenLimit;
use dory_wire::preview::View;
use dory_wire::preview::DEFAULT_RUN_MAX_BYTES;
use dory_wire::preview::DEFAULT_RUN_MAX_LINES;
use dory_wire::preview::DEFAULT_TOKENIZER;
use dory_wire::preview::MAX_LIMIT;
use dory_wire::preview::MAX_SPILL_ID_LEN;
use dory_wire::preview::MIN_MAX_BYTES;
use dory_wire::preview::MIN_RUN_MAX_BYTES;
use dory_wire::records::Field;
use dory_wire::records::FieldType;
use dory_wire::records::Record;
use dory_wire::records::Value;
use dory_wire::records::DECISIONS;
use dory_wire::records::DISCONNECT_REASONS;
use dory_wire::records::ENDS;
use dory_wire::records::END_REASONS;
use dory_wire::records::EVENTS;
use dory_wire::search::SearchOptions;
use dory_wire::search::SearchResult;
use dory_wire::search::Searcher;
use dory_wire::search::MAX_MATCH_BYTES;
use dory_wire::search::MAX_PATTERN_BYTES;
use dory_wire::wire_form;
use dory_wire::Command;
use dory_wire::Cursor;
use dory_wire::Decision;
use dory_wire::Decision::Continue;
use dory_wire::DisconnectReason;
use dory_wire::Done;
use dory_wire::Encoding;
use dory_wire::End;
use dory_wire::End::Disconnected;
use dory_wire::End::Document;
use dory_wire::End::Exited;
use dory_wire::Endpoint;
use dory_wire::Error;
use dory_wire::Error::Api;
use dory_wire::Error::FrameTooLarge;
use dory_wire::Error::IdentityMismatch;
use dory_wire::Error::InvalidArgument;
use dory_wire::Error::InvalidLimits;
use dory_wire::Error::InvalidState;
use dory_wire::Error::MalformedFrame;
use dory_wire::Error::NoAnswer;
use dory_wire::Error::OffsetBeyondOutput;
use dory_wire::Error::OutputExpired;
use dory_wire::Error::OutputGap;
use dory_wire::Error::StreamDisconnected;
use dory_wire::Error::UnexpectedFrame;
use dory_wire::Error::UnsupportedContentType;
use dory_wire::ErrorCode;
use dory_wire::ErrorKind;
use dory_wire::Event;
use dory_wire::Event::ExecResult as ExecResultEvent;
use dory_wire::Event::Exit;
use dory_wire::Event::Heartbeat;
use dory_wire::Event::Identity as IdentityEvent;
use dory_wire::Event::Output;
use dory_wire::Event::Skipped;
use dory_wire::Event::Started;
use dory_wire::Event::Unknown;
use dory_wire::ExecResult;
use dory_wire::FieldValue;
use dory_wire::FollowOptions;
use dory_wire::Follower;
use dory_wire::FollowerState;
use dory_wire::GapPolicy;
use dory_wire::Identity;
use dory_wire::Method;
use dory_wire::Piece;
use dory_wire::ProcessStatus;
use dory_wire::Reader;
use dory_wire::ReaderOptions;
use dory_wire::ReaderState;
use dory_wire::Reconnect;
use dory_wire::Request;
use dory_wire::ResumeState;
use dory_wire::Run;
use dory_wire::RunAction;
use dory_wire::RunActionBuf;
use dory_wire::RunOptions;
use dory_wire::RunResult;
use dory_wire::RunSink;
use dory_wire::RunState;
use dory_wire::RunStep;
use dory_wire::Sink;
use dory_wire::Stream;
use dory_wire::StreamTranscript;
use dory_wire::Transcript;
use dory_wire::Utf8Decoder;
use dory_wire::Wait;
use dory_wire::BASE_URL_ENV;
use dory_wire::DEFAULT_ANSWER_TIMEOUT;
use dory_wire::DEFAULT_BACKOFF;
use dory_wire::DEFAULT_LIVENESS_TIMEOUT;
use dory_wire::DEFAULT_MAX_BACKOFF;
use dory_wire::DEFAULT_MAX_FRAME_BYTES;
use dory_wire::DEFAULT_RETRIES;
use dory_wire::ERROR_CODES;
use dory_wire::HTTP_STATUSES;
use dory_wire::MAX_ERROR_BODY_BYTES;
use dory_wire::RESUME_STATE_VERSION;
// ---- end of the list

/// Names every type of the list.
#[allow(clippy::too_many_arguments)]
fn names_every_type(
    _: Reader,
    _: ReaderOptions,
    _: ReaderState,
    _: Endpoint,
    _: GapPolicy,
    _: Stream,
    _: Cursor,
    _: ResumeState,
    _: ProcessStatus,
    _: DisconnectReason,
    _: Event,
    _: Identity,
    _: ExecResult,
    _: End,
    _: Transcript,
    _: &StreamTranscript,
    _: Piece,
    _: Utf8Decoder,
    _: Error,
    _: ErrorCode,
    _: ErrorKind,
    _: FieldValue,
    _: Bounder,
    _: StreamingBounder,
    _: Preview,
    _: PendingSpill,
    _: Bounded,
    _: SpillOutcome,
    _: Limits,
    _: Split,
    _: &mut dyn Sink,
) {
}

/// The search of a spill: its options, methods and result fields.
fn search_methods(data: &[u8]) -> Result<SearchResult, Error> {
    let options = SearchOptions {
        context: 0,
        max_lines: 400,
        max_bytes: 16384,
        ignore_case: false,
    };
    let mut searcher: Searcher = Searcher::new("error", options)?;
    searcher.push(data);
    let _: usize = searcher.buffered_bytes();
    let result = searcher.finish(Some("/w/out.txt"));
    let SearchResult {
        text: _,
        truncated: _,
        total_lines: _,
        total_bytes: _,
        matched_lines: _,
        shown_lines: _,
        omitted_lines: _,
        partial_line: _,
        long_lines: _,
        first_long_line: _,
        spill_path: _,
        command: _,
        ..
    } = &result;
    let _: usize = MAX_MATCH_BYTES + MAX_PATTERN_BYTES;
    Ok(result)
}

/// Names every constant of the list, with the type it has.
fn names_every_constant() {
    let _: usize = DEFAULT_MAX_FRAME_BYTES;
    let _: Duration = DEFAULT_LIVENESS_TIMEOUT;
    let _: usize = MAX_ERROR_BODY_BYTES;
    let _: u32 = RESUME_STATE_VERSION;
    let _: usize = MIN_MAX_BYTES;
    let _: &[ErrorCode] = ERROR_CODES;
}

/// Every event variant with the fields of docs/api.md: a variant or field
/// renamed or removed stops this compiling. (`Event`, `End`, `Identity` and
/// `ExecResult` are `#[non_exhaustive]`, hence the `_` arms; a variant added
/// is caught by `every_variant_is_listed` instead, and a field added by the
/// record tables' tests in `dory_wire::records`, hence the `..`.)
fn event_fields(event: Event) {
    match event {
        Started { proc_id: _, .. } => {}
        Output {
            stream: _,
            data: _,
            start: _,
            end: _,
            ..
        } => {}
        Skipped {
            stream: _,
            start: _,
            end: _,
            ..
        } => {}
        Heartbeat => {}
        Exit {
            exit_code: _,
            timed_out: _,
            ..
        } => {}
        Unknown { frame_type: _, .. } => {}
        IdentityEvent(Identity {
            proc_id: _,
            status: _,
            ..
        }) => {}
        ExecResultEvent(ExecResult {
            proc_id: _,
            stdout: _,
            stderr: _,
            stdout_truncated: _,
            stderr_truncated: _,
            exit_code: _,
            timed_out: _,
            ..
        }) => {}
        _ => {}
    }
}

/// Every end with the fields of docs/api.md (renamed or removed: no longer compiles).
fn end_fields(end: End) {
    match end {
        Exited {
            exit_code: _,
            timed_out: _,
            ..
        } => {}
        Disconnected {
            cursor: _,
            reason: _,
            ..
        } => {}
        Document => {}
        _ => {}
    }
    let _ = [
        DisconnectReason::EndOfBody,
        DisconnectReason::Gap,
        DisconnectReason::Stalled,
    ];
}

/// The plain-data structs of docs/api.md, field by field.
fn data_fields(cursor: Cursor, state: ResumeState, options: ReaderOptions) {
    // `#[non_exhaustive]`: the fields of docs/api.md must be there.
    let ReaderOptions {
        gap_policy: _,
        max_frame_bytes: _,
        liveness_timeout: _,
        strict: _,
        ..
    } = options;
    let Cursor {
        stdout: _,
        stderr: _,
    } = cursor;
    let ResumeState {
        version: _,
        proc_id: _,
        cursor: _,
        exit_seen: _,
        exit_code: _,
        timed_out: _,
    } = state;
    let _ = [
        Endpoint::Exec,
        Endpoint::ProcessOutput,
        Endpoint::SetupLogs,
        Endpoint::Document,
    ];
    let _ = [GapPolicy::Fail, GapPolicy::Skip];
    let _ = [Stream::Stdout, Stream::Stderr];
    let _ = [ProcessStatus::Running, ProcessStatus::Exited];
}

/// Every error variant of the list (the enum is `#[non_exhaustive]`, so
/// `ERROR_CODES` is the completeness check: see the tests).
fn error_variants(error: &Error) -> &'static str {
    match error {
        Api { .. } => "api_error",
        OffsetBeyondOutput { .. } => "offset_beyond_output",
        OutputGap { .. } => "output_gap",
        OutputExpired { .. } => "output_expired",
        UnsupportedContentType { .. } => "unsupported_content_type",
        MalformedFrame { .. } => "malformed_frame",
        UnexpectedFrame { .. } => "unexpected_frame",
        IdentityMismatch { .. } => "identity_mismatch",
        FrameTooLarge { .. } => "frame_too_large",
        InvalidState { .. } => "invalid_state",
        InvalidLimits { .. } => "invalid_limits",
        NoAnswer { .. } => "no_answer",
        _ => "",
    }
}

/// The methods of `Reader` and `Transcript` that docs/api.md names, with
/// their argument and result types.
fn reader_methods(endpoint: Endpoint, cursor: Cursor, state: &ResumeState) -> Result<(), Error> {
    let mut reader: Reader = Reader::new(endpoint, cursor, ReaderOptions::default());
    let _: Reader = Reader::resume(endpoint, state, ReaderOptions::default());
    let _: ReaderOptions = ReaderOptions::default()
        .gap_policy(GapPolicy::Skip)
        .max_frame_bytes(DEFAULT_MAX_FRAME_BYTES)
        .liveness_timeout(DEFAULT_LIVENESS_TIMEOUT)
        .strict(true);
    let mut transcript = Transcript::new();
    reader.open(200, "application/x-ndjson", Some("p_1"))?;
    reader.feed(b"", &mut transcript)?;
    let mut events: Vec<Event> = Vec::new();
    reader.feed(b"", &mut events)?;
    let _: End = reader.finish(&mut events)?;
    let _: Cursor = reader.cursor();
    let _: Option<&str> = reader.proc_id();
    let _: ResumeState = reader.resume_state();
    let _: ReaderState = reader.state();
    let _: Option<Duration> = reader.poll_timeout();
    let _: bool = reader.handle_timeout(Duration::ZERO);
    let _: String = state.to_json();
    let _: ResumeState = ResumeState::from_json("{}")?;

    let view: &StreamTranscript = transcript.stream(Stream::Stdout);
    let _: &[u8] = view.bytes();
    let _: String = view.text();
    let _: Vec<std::ops::Range<u64>> = view.skipped().collect();
    let _: bool = view.is_complete();
    let _: Option<(Option<i64>, bool)> = transcript.exit();

    let _: &'static str = error_variants(&reader.finish(&mut events).unwrap_err());
    Ok(())
}

/// The preview entry points of docs/api.md.
fn preview_methods(data: &[u8]) -> Result<Preview<'static>, Error> {
    let bounder: Bounder = Bounder::new(10, 1000);
    let _: Bounded = bounder.bound(data)?;
    let mut streaming: StreamingBounder = StreamingBounder::new(10, 1000);
    streaming.push(data);
    let preview = match streaming.finish()? {
        Bounded::Fits(preview) => preview,
        Bounded::NeedsSpill(pending) => pending.render(SpillOutcome::NotSaved, None),
    };
    let _: String = preview.to_json();
    let notices: &[Notice] = &preview.notices;
    for notice in notices {
        let _: (NoticeKind, usize, usize, &str) = (
            notice.kind,
            notice.start,
            notice.end,
            preview.notice_text(notice),
        );
        let _: Option<NoticeKind> = NoticeKind::from_name(notice.kind.as_str());
    }
    let _: [NoticeKind; 6] = NoticeKind::ALL;
    let _: Notice = Notice::new(NoticeKind::Omitted, 0, 0);
    let _: Vec<(NoticeKind, u64, &str)> = preview.notice_lines().collect();
    let _: Preview<'static> = Preview::new(String::new());
    Ok(preview)
}

/// The run bounder's entry points of docs/api.md.
fn run_methods(data: &[u8]) -> Result<Preview<'static>, Error> {
    RunBounder::check_limits(
        DEFAULT_RUN_MAX_LINES,
        DEFAULT_RUN_MAX_BYTES.max(MIN_RUN_MAX_BYTES),
    )?;
    let mut run: RunBounder = RunBounder::new(DEFAULT_RUN_MAX_LINES, DEFAULT_RUN_MAX_BYTES)
        .with_spill_id(&run_spill_id("key"));
    run.push(dory_wire::Stream::Stdout, data);
    run.lose(dory_wire::Stream::Stderr, 0, 10);
    let _: Option<&str> = run.spill_id(View::Stdout);
    let _: (u64, u64, usize) = (
        run.total_bytes(View::Combined),
        run.lost_bytes(View::Stderr),
        run.retained_bytes(),
    );
    let pending: RunPending = run.finish()?;
    let _: (&str, bool, u64, (u64, u64)) = (
        pending.spill_id(View::Combined),
        pending.needs_spill(View::Stdout),
        pending.total_bytes(View::Stderr),
        pending.lost(View::Stderr),
    );
    let _: Option<View> = View::from_name(View::Combined.as_str());
    let end: RunEnd = RunEnd::new(Some(0), false).timeout_seconds(Some(30.0));
    let _: (Option<i64>, bool, Option<f64>, String) =
        (end.exit_code, end.timed_out, end.timeout, end.line(4096));
    let ended: RunPending = RunBounder::new(10, 1000).finish_ended(&end)?;
    let _: Preview<'static> = ended.render(View::Combined, SpillOutcome::NotSaved, None);
    Ok(pending.render(View::Combined, SpillOutcome::NotSaved, None))
}

/// The options of every bounder (`preview_options` of surface.json): the
/// builders each listed type has, by the names the file gives.
fn preview_option_methods() -> Result<(), Error> {
    let keep: Keep = Keep::patterns(["^error"])?;
    let _: &[&str] = Keep::DEFAULT_PATTERNS;
    let _ = Bounder::new(10, 1000)
        .with_keep(Keep::defaults())
        .with_terminal(true)
        .with_split(Split::Tail);
    let _ = StreamingBounder::new(10, 1000)
        .with_keep(keep.clone())
        .with_terminal(false)
        .with_split(Split::Even);
    let _ = RunBounder::new(10, 1000)
        .with_keep(Keep::none())
        .with_terminal(true)
        .with_split(Split::from_name("tail").expect("a split"));
    // max_tokens and tokenizer: in the limits every bounder is built with.
    let limits = Limits::new(10, 1000).with_token_limit(token_limit(Some(100), Some("approx"))?);
    let _ = Bounder::with_limits(limits);
    let _ = StreamingBounder::with_limits(limits);
    let _ = RunBounder::with_limits(limits);
    Ok(())
}

#[test]
fn the_preview_options_are_the_builders() {
    preview_option_methods().expect("the options build");
    let json: serde_json::Value =
        serde_json::from_str(&read(&repo_root().join("tests/api/surface.json")))
            .expect("tests/api/surface.json is JSON");
    let names: BTreeSet<&str> = json["preview_options"]
        .as_array()
        .expect("a preview_options array")
        .iter()
        .map(|o| o["rust"].as_str().expect("a rust builder name"))
        .collect();
    // The builders `preview_option_methods` calls on every listed type.
    assert_eq!(
        names,
        BTreeSet::from(["with_keep", "with_terminal", "with_split", "with_limits"])
    );
    let types: BTreeSet<&str> = json["preview_option_calls"]["rust"]
        .as_array()
        .expect("the rust calls")
        .iter()
        .filter_map(|t| t.as_str())
        .collect();
    assert_eq!(
        types,
        BTreeSet::from([
            "dory_wire::preview::Bounder",
            "dory_wire::preview::RunBounder",
            "dory_wire::preview::StreamingBounder",
        ])
    );
}

/// The run machine's conversation, as `docs/api.md` gives it.
fn run_machine_methods(sink: &mut Vec<RunActionBuf>) -> Result<RunResult, Error> {
    let options: RunOptions = RunOptions::new()
        .max_lines(10)
        .max_bytes(1000)
        .idempotency_key("k")
        .timeout_seconds(5.0)
        .hint("h")
        .kill_on_cancel(true)
        .follow(dory_wire::FollowOptions::default())
        .answer_timeout(DEFAULT_ANSWER_TIMEOUT)
        .spill(true)
        .on_output(true);
    let mut run = Run::new("c1", &Command::shell("true"), options, [0; 16])?;
    let _: (&str, Option<&str>, &str, Cursor, RunState) = (
        run.idempotency_key(),
        run.proc_id(),
        run.spill_id(View::Combined),
        run.cursor(),
        run.state(),
    );
    let _: Request = run.request()?;
    run.open(200, "application/json", None, None)?;
    run.feed(b"{}", sink)?;
    let _: RunStep = run.finish(None, 0.0, sink)?;
    let _: RunStep = run.no_response("", 0.0)?;
    let _: (Option<Duration>, bool) = (run.wait_limit(), run.waited(Duration::ZERO));
    run.spill_failed(View::Stdout, SpillError::EmptyPath);
    run.spill_committed(View::Combined, SpillOutcome::NotSaved);
    let _: RunStep = run.cancel(&mut |_: RunAction<'_>| {});
    let _: String = fresh_run_key([0; 16]);
    let result = run.result()?;
    let _: (&str, &str, Option<i64>, bool, u64, u64) = (
        &result.proc_id,
        &result.idempotency_key,
        result.exit_code,
        result.timed_out,
        result.stdout_lost_bytes,
        result.stderr_lost_bytes,
    );
    let _: [&Preview<'static>; 3] = [&result.stdout, &result.stderr, &result.combined];
    let _: String = result.to_json();
    let _: RunResult = RunResult::new(
        String::new(),
        String::new(),
        [
            result.stdout.clone(),
            result.stderr.clone(),
            result.combined.clone(),
        ],
    );
    fn sink_of(_: &mut impl RunSink) {}
    sink_of(&mut |_: RunAction<'_>| {});
    Ok(result)
}

/// The protocol facts every client takes from the core: a frame's wire
/// form, the cursor after an event, what a document answer means.
fn client_facts(events: &[Event], cursor: Cursor) -> Result<(String, &'static str, Cursor), Error> {
    let (data, encoding): (String, Encoding) = wire_form(b"hi");
    let _: Option<Encoding> = Encoding::from_name(encoding.as_str());
    let _: &Identity = identity_answer(events)?;
    let _: &Event = exec_answer(events)?;
    Ok((data, encoding.as_str(), cursor.after(&Event::Heartbeat)))
}

// ---- the checks

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The "rust" paths of tests/api/surface.json.
fn listed_paths() -> BTreeSet<String> {
    let json: serde_json::Value =
        serde_json::from_str(&read(&repo_root().join("tests/api/surface.json")))
            .expect("tests/api/surface.json is JSON");
    let concepts = json["concepts"].as_array().expect("a concepts array");
    let mut paths = BTreeSet::new();
    for concept in concepts {
        match &concept["rust"] {
            serde_json::Value::String(path) => {
                assert!(
                    paths.insert(path.clone()),
                    "{path} is listed twice in surface.json"
                );
            }
            serde_json::Value::Null => assert!(
                concept["note"].is_string(),
                "{concept}: a null needs a note saying why"
            ),
            other => panic!("{concept}: rust is {other}, not a path or null"),
        }
    }
    paths
}

/// The paths of the `use dory_wire::…` lines of this file.
fn used_paths() -> BTreeSet<String> {
    let source = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/surface.rs"));
    let mut paths = BTreeSet::new();
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("use dory_wire::") else {
            continue;
        };
        let rest = rest.strip_suffix(';').expect("one path per use line");
        let path = rest.split(" as ").next().unwrap_or(rest);
        assert!(
            !path.contains('{') && !path.contains('*'),
            "one path per use line: {line}"
        );
        assert!(paths.insert(format!("dory_wire::{path}")), "{line} twice");
    }
    paths
}

#[test]
fn the_use_list_is_the_surface_file() {
    let listed = listed_paths();
    let used = used_paths();
    let missing: Vec<_> = listed.difference(&used).collect();
    let extra: Vec<_> = used.difference(&listed).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "tests/api/surface.json and tests/surface.rs disagree:\n  listed, not used here: {missing:?}\n  used here, not listed: {extra:?}"
    );
}

/// The names a module exports, read from its source: its `pub use`
/// statements (a glob reads the named module's own `pub` items) and the
/// items it defines `pub` at the top level. `pub mod` is not an item here.
fn exported_names(src: &Path, module_file: &Path) -> BTreeSet<String> {
    let text = read(module_file);
    let mut names = BTreeSet::new();
    let mut statements = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(statement) = current.as_mut() {
            statement.push_str(line.trim());
        } else if let Some(rest) = line.strip_prefix("pub use ") {
            current = Some(rest.trim().to_owned());
        } else {
            names.extend(defined_name(line));
        }
        if current.as_deref().is_some_and(|s| s.ends_with(';')) {
            statements.extend(current.take());
        }
    }
    for statement in statements {
        let statement = statement.trim_end_matches(';');
        let (module, items) = match statement.split_once("::{") {
            Some((module, items)) => (module, items.trim_end_matches('}').to_owned()),
            None => match statement.rsplit_once("::") {
                Some((module, item)) => (module, item.to_owned()),
                None => panic!("unexpected pub use {statement}"),
            },
        };
        for item in items.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            if item == "*" {
                let dir = module_file.parent().unwrap_or(src);
                let file = dir.join(format!("{module}.rs"));
                let file = if file.exists() {
                    file
                } else {
                    dir.join(module).join("mod.rs")
                };
                let glob = read(&file);
                names.extend(glob.lines().filter_map(defined_name));
            } else {
                let name = item.rsplit(" as ").next().unwrap_or(item);
                names.insert(name.to_owned());
            }
        }
    }
    names
}

/// The name of a top-level `pub` item defined on this line, if any.
fn defined_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("pub ")?;
    let rest = rest.strip_prefix("const fn ").unwrap_or(rest);
    let (keyword, rest) = rest.split_once(' ')?;
    if !["enum", "struct", "const", "static", "fn", "trait", "type"].contains(&keyword) {
        return None;
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    Some(name)
}

/// The variants of `pub enum NAME` in the crate's sources.
fn variants_in_source(name: &str) -> BTreeSet<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let header = format!("pub enum {name} {{");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&src)
        .expect("src/ is readable")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .map(|path| {
            if path.is_dir() {
                path.join("mod.rs")
            } else {
                path
            }
        })
        .filter(|path| path.extension().is_some_and(|e| e == "rs") && path.exists())
        .collect();
    files.sort();
    for file in files {
        let text = read(&file);
        let Some(start) = text.lines().position(|line| line == header) else {
            continue;
        };
        return text
            .lines()
            .skip(start + 1)
            .take_while(|line| *line != "}")
            .filter_map(|line| {
                let rest = line.strip_prefix("    ")?;
                rest.starts_with(|c: char| c.is_ascii_uppercase()).then(|| {
                    rest.chars()
                        .take_while(|c| c.is_ascii_alphanumeric())
                        .collect()
                })
            })
            .collect();
    }
    panic!("no `{header}` in the crate's sources");
}

#[test]
fn every_variant_is_listed() {
    // The enums whose variants the list names (the other languages have a
    // class or type per variant): all of them, or a new one goes unnoticed.
    let listed = listed_paths();
    for name in ["Event", "End", "Error"] {
        let prefix = format!("dory_wire::{name}::");
        let in_list: BTreeSet<String> = listed
            .iter()
            .filter_map(|path| path.strip_prefix(&prefix).map(str::to_owned))
            .collect();
        let in_source = variants_in_source(name);
        assert!(!in_source.is_empty(), "no variants of {name} found");
        assert_eq!(in_list, in_source, "the variants of {name}");
    }
}

#[test]
fn the_crate_exports_nothing_unlisted() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut exported = BTreeSet::new();
    for name in exported_names(&src, &src.join("lib.rs")) {
        exported.insert(format!("dory_wire::{name}"));
    }
    for name in exported_names(&src.join("preview"), &src.join("preview/mod.rs")) {
        exported.insert(format!("dory_wire::preview::{name}"));
    }
    for name in exported_names(&src, &src.join("search.rs")) {
        exported.insert(format!("dory_wire::search::{name}"));
    }
    for module in ["records", "names"] {
        for name in exported_names(&src, &src.join(format!("{module}.rs"))) {
            exported.insert(format!("dory_wire::{module}::{name}"));
        }
    }
    // Items, not variants: no segment after dory_wire:: but the last is a type.
    let listed: BTreeSet<String> = listed_paths()
        .into_iter()
        .filter(|path| {
            let segments: Vec<&str> = path.split("::").collect();
            segments[1..segments.len() - 1]
                .iter()
                .all(|s| s.starts_with(|c: char| c.is_ascii_lowercase()))
        })
        .collect();
    let unlisted: Vec<_> = exported.difference(&listed).collect();
    let absent: Vec<_> = listed.difference(&exported).collect();
    assert!(
        unlisted.is_empty() && absent.is_empty(),
        "the crate's exports and tests/api/surface.json disagree:\n  exported, not listed: {unlisted:?}\n  listed, not exported: {absent:?}"
    );
}

/// The (python, js) names of every concept of tests/api/surface.json.
fn binding_names() -> (BTreeSet<String>, BTreeSet<String>) {
    let json: serde_json::Value =
        serde_json::from_str(&read(&repo_root().join("tests/api/surface.json")))
            .expect("tests/api/surface.json is JSON");
    let mut python = BTreeSet::new();
    let mut js = BTreeSet::new();
    for concept in json["concepts"].as_array().expect("a concepts array") {
        python.extend(concept["python"].as_str().map(str::to_owned));
        js.extend(concept["js"].as_str().map(str::to_owned));
    }
    (python, js)
}

#[test]
fn every_error_code_is_listed_in_every_language() {
    // ERROR_CODES is the core's table: the list names one Rust variant per
    // code, and each code's class (and its kind's base class) in Python and JS.
    let variants = listed_paths()
        .into_iter()
        .filter(|path| path.starts_with("dory_wire::Error::"))
        .count();
    assert_eq!(variants, ERROR_CODES.len(), "one Error variant per code");
    let (python, js) = binding_names();
    for row in ERROR_CODES {
        let mut classes = vec![row.class];
        classes.extend(row.kind.base_class());
        for class in classes {
            assert!(python.contains(class), "{}: no Python {class}", row.code);
            assert!(js.contains(class), "{}: no JS {class}", row.code);
        }
    }
}

#[test]
fn the_client_list_names_the_rust_client_and_the_cores_own_names() {
    // `client_concepts` lists the HTTP clients' names (dory_wire.client,
    // dory-wire/client, the dory-wire-client crate). A Rust path there is the
    // client crate's (checked by its own tests/surface.rs) or the core's own
    // name, which must then be listed in `concepts` too.
    let json: serde_json::Value =
        serde_json::from_str(&read(&repo_root().join("tests/api/surface.json")))
            .expect("tests/api/surface.json is JSON");
    let client = &json["client"];
    assert_eq!(client["rust"], "dory_wire_client", "client: {client}");
    assert!(
        client["python"].is_string() && client["js"].is_string(),
        "client: the Python module and the JS entry point: {client}"
    );
    let core = listed_paths();
    let concepts = json["client_concepts"]
        .as_array()
        .expect("a client_concepts array");
    assert!(!concepts.is_empty(), "client_concepts is empty");
    for concept in concepts {
        assert!(
            concept["concept"].is_string(),
            "{concept}: every entry says its concept"
        );
        if let Some(path) = concept["rust"].as_str() {
            assert!(
                path.starts_with("dory_wire_client::") || core.contains(path),
                "{concept}: a Rust path of the client crate, or one listed in concepts"
            );
        }
        for language in ["python", "js"] {
            match &concept[language] {
                serde_json::Value::String(name) => assert!(!name.is_empty(), "{concept}"),
                serde_json::Value::Null => assert!(
                    concept["note"].is_string(),
                    "{concept}: a null needs a note saying why"
                ),
                other => panic!("{concept}: {language} is {other}, not a name or null"),
            }
        }
    }
}

/// The status range every binding's open() applies, the core's.
#[test]
fn an_answer_status_is_read_by_the_core() {
    assert_eq!(HTTP_STATUSES, 100..=599);
    assert_eq!(http_status(200.0).ok(), Some(200));
    assert!(matches!(
        http_status(600.0),
        Err(InvalidArgument { ref argument, .. }) if argument == "status"
    ));
}

/// The token options every binding reads with the core's one rule.
#[test]
fn the_token_options_are_read_by_the_core() {
    assert_eq!(DEFAULT_TOKENIZER, "o200k_base");
    assert!(tokenizers().contains(&"approx"));
    let limit: TokenLimit = token_limit(Some(50), Some("approx"))
        .expect("approx is in every build")
        .expect("a limit");
    assert_eq!(limit.max_tokens, 50);
    assert!(matches!(
        token_limit(Some(50), Some("nope")),
        Err(InvalidArgument { ref argument, .. }) if argument == "tokenizer"
    ));
    assert_eq!(count_tokens("", Some("approx")).ok(), Some(0));
}

/// The spill-file rule every client's spill directory applies, the core's.
#[test]
fn a_spill_file_name_is_the_cores() {
    assert_eq!(
        spill_file_name("run-1-stdout", ".txt").ok().as_deref(),
        Some("run-1-stdout.txt")
    );
    let long = "a".repeat(MAX_SPILL_ID_LEN + 1);
    for bad in ["", ".", "..", "a/b", long.as_str()] {
        assert!(matches!(
            spill_file_name(bad, ".txt"),
            Err(InvalidArgument { ref argument, .. }) if argument == "spill_id"
        ));
    }
}

/// The limit range every binding applies, the core's.
#[test]
fn a_limit_is_read_by_the_core() {
    assert_eq!(MAX_LIMIT, u32::MAX);
    assert_eq!(
        checked_limit(f64::from(MAX_LIMIT), "max_bytes").ok(),
        Some(u32::MAX as usize)
    );
    for bad in [-1.0, 1.5, f64::NAN, 2f64.powi(32), f64::INFINITY] {
        assert!(
            matches!(checked_limit(bad, "max_bytes"), Err(InvalidLimits { .. })),
            "{bad}"
        );
    }
}
