//! `Computer::run` against the scripted server: arrival order, drops,
//! gaps, re-attaching with the same key, cancellation, live output, spill
//! writers and bad input (docs/run.md).

mod common;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use common::{json, ndjson, serve, Ending, Reply, Script};
use dory_wire::preview::{run_spill_id, Bounder, SpillOutcome, View};
use dory_wire::{Error, GapPolicy, Stream};
use dory_wire_client::{
    Client, Computer, ReadOptions, RunOptions, RunResult, RunSpill, SpillDirectory,
};

const IDENTITY: &str = r#"{"proc_id":"p1","status":"running"}"#;
const START: &str = "POST /computers/c1/processes";
const OUTPUT: &str =
    "GET /computers/c1/processes/p1/output?stdout_offset=0&stderr_offset=0&follow=true";

/// One output frame: text when the bytes are UTF-8, else base64.
fn frame(stream: &str, data: &[u8], end: u64) -> String {
    let value = match std::str::from_utf8(data) {
        Ok(text) => serde_json::json!({"type": stream, "data": text, "offset": end}),
        Err(_) => serde_json::json!({
            "type": stream,
            "data": base64::engine::general_purpose::STANDARD.encode(data),
            "encoding": "base64",
            "offset": end,
        }),
    };
    format!("{value}\n")
}

fn exit(code: i64) -> String {
    common::exit(code)
}

/// The NDJSON body of `chunks` (stream, bytes) in order, then `exit(code)`.
fn body(chunks: &[(Stream, &[u8])], code: i64) -> String {
    let (mut out, mut err) = (0u64, 0u64);
    let mut text = String::new();
    for (stream, data) in chunks {
        let end = match stream {
            Stream::Stdout => {
                out += data.len() as u64;
                out
            }
            Stream::Stderr => {
                err += data.len() as u64;
                err
            }
        };
        text.push_str(&frame(stream.as_str(), data, end));
    }
    text.push_str(&exit(code));
    text
}

/// The script's replies after the start's identity, and computer `c1`.
async fn computer(replies: Vec<Reply>) -> (Script, Computer) {
    let mut all = vec![json(201, IDENTITY)];
    all.extend(replies);
    let script = serve(all).await;
    let client = Client::new(Some(&script.url)).expect("client");
    (script, client.computers().get("c1"))
}

fn fast() -> ReadOptions {
    ReadOptions::new()
        .backoff(Duration::from_millis(1))
        .max_backoff(Duration::from_millis(4))
}

/// A fresh directory under the target's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "run-{name}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Noisy output: `lines` numbered lines on stdout, a warning on stderr
/// every 50 lines, and the line that matters on stderr at the end.
fn noisy(lines: usize) -> Vec<(Stream, Vec<u8>)> {
    let mut chunks = Vec::new();
    let mut batch = Vec::new();
    for i in 0..lines {
        batch.extend_from_slice(format!("compiling unit {i:05} ... ok\n").as_bytes());
        if i % 50 == 49 {
            chunks.push((Stream::Stdout, std::mem::take(&mut batch)));
            chunks.push((Stream::Stderr, format!("warning: unit {i}\n").into_bytes()));
        }
    }
    if !batch.is_empty() {
        chunks.push((Stream::Stdout, batch));
    }
    chunks.push((
        Stream::Stderr,
        b"error: the one line that matters\n".to_vec(),
    ));
    chunks
}

fn borrowed(chunks: &[(Stream, Vec<u8>)]) -> Vec<(Stream, &[u8])> {
    chunks.iter().map(|(s, d)| (*s, d.as_slice())).collect()
}

/// The full bytes of each view of `chunks`.
fn views(chunks: &[(Stream, Vec<u8>)]) -> [Vec<u8>; 3] {
    let (mut out, mut err, mut both) = (Vec::new(), Vec::new(), Vec::new());
    for (stream, data) in chunks {
        match stream {
            Stream::Stdout => out.extend_from_slice(data),
            Stream::Stderr => err.extend_from_slice(data),
        }
        both.extend_from_slice(data);
    }
    [out, err, both]
}

#[tokio::test]
async fn both_streams_interleaved_come_combined_in_arrival_order() {
    let chunks: [(Stream, &[u8]); 5] = [
        (Stream::Stdout, b"a\n"),
        (Stream::Stderr, b"E1\n"),
        (Stream::Stdout, b"b\n"),
        (Stream::Stderr, b"E2\n"),
        (Stream::Stdout, b"c"),
    ];
    let (script, computer) = computer(vec![ndjson(&body(&chunks, 3), Ending::Complete)]).await;
    let result = computer
        .run(["sh", "-c", "noisy"], RunOptions::new())
        .await
        .expect("run");
    assert_eq!(
        result.combined.text,
        "a\nE1\nb\nE2\nc\n[... exit code 3 ...]\n"
    );
    assert_eq!(result.stdout.text, "a\nb\nc");
    assert_eq!(result.stderr.text, "E1\nE2\n");
    assert!(!result.combined.truncated);
    assert_eq!(
        (result.proc_id.as_str(), result.exit_code, result.timed_out),
        ("p1", Some(3), false)
    );
    assert_eq!((result.stdout_lost_bytes, result.stderr_lost_bytes), (0, 0));
    // A fresh key: run- and 32 hex digits, sent with the start.
    let key = &result.idempotency_key;
    assert!(
        key.len() == 36
            && key.starts_with("run-")
            && key[4..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{key}"
    );
    assert_eq!(script.targets(), vec![START.to_owned(), OUTPUT.to_owned()]);
    let start = &script.requests()[0];
    assert_eq!(start.header("idempotency-key"), Some(key.as_str()));
    let sent: serde_json::Value = serde_json::from_slice(&start.body).expect("JSON body");
    assert_eq!(sent["command"], serde_json::json!(["sh", "-c", "noisy"]));

    // Another call draws another key.
    let (_s, computer) = computer_again().await;
    let again = computer.run("true", RunOptions::new()).await.expect("run");
    assert_ne!(&again.idempotency_key, key);
}

async fn computer_again() -> (Script, Computer) {
    computer(vec![ndjson(&exit(0), Ending::Complete)]).await
}

/// The replies of a run of `text` whose responses are cut at `cuts` (byte
/// positions in the body, mid-frame): each reconnect is answered from
/// offset 0 again (the follower trims what it already has).
fn cut_replies(text: &str, cuts: &[usize]) -> Vec<Reply> {
    let mut replies: Vec<Reply> = cuts
        .iter()
        .map(|&at| ndjson(&text[..at], Ending::Cut))
        .collect();
    replies.push(ndjson(text, Ending::Complete));
    replies
}

#[tokio::test]
async fn drops_mid_frame_give_the_result_of_a_clean_run() {
    let chunks = noisy(2000);
    let text = body(&borrowed(&chunks), 1);
    let dir = temp_dir("drops");
    let options = || {
        RunOptions::new()
            .max_lines(40)
            .max_bytes(2000)
            .idempotency_key("job-drops")
            .spill(SpillDirectory::new(&dir))
            .read_options(fast())
    };
    let (_s, clean_computer) = computer(cut_replies(&text, &[])).await;
    let clean = clean_computer.run("noisy", options()).await.expect("clean");
    let spilled: Vec<Vec<u8>> = View::ALL
        .iter()
        .map(|v| {
            let path = match v {
                View::Stdout => clean.stdout.spill_path.clone(),
                View::Stderr => clean.stderr.spill_path.clone(),
                View::Combined => clean.combined.spill_path.clone(),
            };
            std::fs::read(path.expect("a cut view names its spill")).expect("the spill")
        })
        .collect();
    assert_eq!(
        spilled,
        views(&chunks).to_vec(),
        "the spills are the output"
    );

    // Cut mid-frame three times (a frame's JSON, inside base64 would be the
    // same), at different places.
    let cuts = [text.len() / 7 + 3, text.len() / 2 + 11, text.len() - 20];
    assert!(cuts.iter().all(|&c| text.as_bytes()[c - 1] != b'\n'));
    let (script, cut_computer) = computer(cut_replies(&text, &cuts)).await;
    let reconnects = Arc::new(Mutex::new(0));
    let counted = reconnects.clone();
    let cut = cut_computer
        .run(
            "noisy",
            options().read_options(fast().on_reconnect(move |_| {
                *counted.lock().expect("not poisoned") += 1;
            })),
        )
        .await
        .expect("cut");
    assert_eq!(*reconnects.lock().expect("not poisoned"), 3);
    assert_eq!(cut, clean, "identical to the clean run");
    assert!(cut.combined.truncated);
    assert!(cut
        .combined
        .text
        .contains("error: the one line that matters\n"));
    assert!(cut.combined.text.len() <= 2000);
    // One start; the reconnects read the output from the consumed offsets.
    let targets = script.targets();
    assert_eq!(targets.iter().filter(|t| t.starts_with("POST")).count(), 1);
    assert_eq!(targets.len(), 5);
    assert!(targets[2].contains("stdout_offset=") && !targets[2].contains("stdout_offset=0&"));
    for (view, bytes) in View::ALL.iter().zip(views(&chunks)) {
        let name = format!("{}-{}.txt", run_spill_id("job-drops"), view.as_str());
        assert_eq!(std::fs::read(dir.join(name)).expect("spill"), bytes);
    }
    assert!(
        files_in(&dir).iter().all(|f| !f.ends_with(".tmp")),
        "no temporary file left: {:?}",
        files_in(&dir)
    );
}

const GAP: &str = "{\"type\":\"gap\",\"earliest_stdout_offset\":9,\"earliest_stderr_offset\":0}\n";

#[tokio::test]
async fn a_gap_under_skip_is_a_loss_line_with_the_exact_count() {
    let (_s, computer) = computer(vec![
        ndjson(
            &format!("{}{GAP}", frame("stdout", b"a\n", 2)),
            Ending::Complete,
        ),
        ndjson(
            &format!("{}{}", frame("stdout", b"z\n", 11), exit(0)),
            Ending::Complete,
        ),
    ])
    .await;
    let result = computer
        .run(
            "evicting",
            RunOptions::new()
                .read_options(fast())
                .gap_policy(GapPolicy::Skip),
        )
        .await
        .expect("run");
    let line = "[... 7 bytes lost: stdout offsets 2-9 were not retained ...]\n";
    assert_eq!(result.stdout.text, format!("a\nz\n{line}"));
    assert_eq!(
        result.combined.text,
        format!("a\nz\n{line}[... exit code 0 ...]\n")
    );
    assert_eq!(result.stderr.text, "");
    assert_eq!((result.stdout_lost_bytes, result.stderr_lost_bytes), (7, 0));
}

#[tokio::test]
async fn a_gap_under_fail_is_the_error_and_nothing_is_saved() {
    let dir = temp_dir("gap-fail");
    let (_s, computer) = computer(vec![ndjson(
        &format!("{}{GAP}", frame("stdout", b"a\n", 2)),
        Ending::Complete,
    )])
    .await;
    let err = computer
        .run(
            "evicting",
            RunOptions::new()
                .spill(SpillDirectory::new(&dir))
                .read_options(fast()),
        )
        .await
        .unwrap_err();
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
    assert_eq!(
        files_in(&dir),
        Vec::<String>::new(),
        "uncommitted spills discarded"
    );
}

#[tokio::test]
async fn the_same_key_re_attaches_and_gives_the_same_result() {
    let chunks = noisy(600);
    let text = body(&borrowed(&chunks), 0);
    let dir = temp_dir("reattach");
    // The service answers the second keyed start with the same process.
    let (script, computer) = computer(vec![
        ndjson(&text, Ending::Complete),
        json(200, r#"{"proc_id":"p1","status":"exited"}"#),
        ndjson(&text, Ending::Complete),
    ])
    .await;
    let options = || {
        RunOptions::new()
            .max_bytes(1500)
            .idempotency_key("tool-call-7")
            .spill(SpillDirectory::new(&dir))
    };
    let first = computer.run("build", options()).await.expect("first");
    let second = computer.run("build", options()).await.expect("second");
    assert_eq!(first, second);
    assert_eq!(first.idempotency_key, "tool-call-7");
    assert_eq!(
        first.combined.spill_id.as_deref(),
        Some(format!("{}-combined", run_spill_id("tool-call-7")).as_str())
    );
    let requests = script.requests();
    let starts: Vec<_> = requests.iter().filter(|r| r.method == "POST").collect();
    assert_eq!(starts.len(), 2);
    for start in &starts {
        assert_eq!(start.target, "/computers/c1/processes", "never the exec");
        assert_eq!(start.header("idempotency-key"), Some("tool-call-7"));
        assert_eq!(start.body, starts[0].body);
    }
}

/// A run cancelled (its future dropped) once its first chunk was seen; the
/// server stalls the output. What the server saw after.
async fn cancelled(kill: bool, dir: &Path) -> Script {
    let (script, computer) = computer(vec![
        ndjson(&frame("stdout", &vec![b'x'; 5000], 5000), Ending::Stall),
        json(200, r#"{"proc_id":"p1","status":"exited"}"#),
    ])
    .await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let spilling = dir.to_owned();
    let options = RunOptions::new()
        .max_bytes(200)
        .spill(SpillDirectory::new(dir))
        .kill_on_cancel(kill)
        .on_output(move |_, data, _| {
            let _ = tx.send((data.len(), files_in(&spilling)));
        });
    let run = computer.run("sleepy", options);
    tokio::select! {
        result = run => panic!("the run ended: {result:?}"),
        seen = rx.recv() => {
            let (len, files) = seen.expect("a chunk");
            assert_eq!(len, 5000);
            // stdout's and the combined view's, being written.
            assert!(files.len() == 2 && files.iter().all(|f| f.ends_with(".tmp")), "{files:?}");
        }
    }
    // The future is dropped here.
    assert_eq!(
        files_in(dir),
        Vec::<String>::new(),
        "the spills are discarded"
    );
    script
}

#[tokio::test]
async fn cancelling_with_kill_on_cancel_kills_the_process() {
    let dir = temp_dir("cancel-kill");
    let script = cancelled(true, &dir).await;
    let kill = "POST /computers/c1/processes/p1/kill".to_owned();
    for _ in 0..200 {
        if script.targets().contains(&kill) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        script.targets(),
        vec![START.to_owned(), OUTPUT.to_owned(), kill]
    );
}

#[tokio::test]
async fn cancelling_without_kill_on_cancel_leaves_the_process_running() {
    let dir = temp_dir("cancel-nokill");
    let script = cancelled(false, &dir).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(script.targets(), vec![START.to_owned(), OUTPUT.to_owned()]);
}

#[tokio::test]
async fn on_output_sees_each_byte_once_across_a_reconnect_and_decodes_a_split_euro() {
    let euro = "€".as_bytes(); // e2 82 ac
    let mut first = b"price: ".to_vec();
    first.push(euro[0]);
    let mut second = euro[1..].to_vec();
    second.extend_from_slice(b" 5\n");
    let chunks: [(Stream, &[u8]); 4] = [
        (Stream::Stdout, &first),
        (Stream::Stderr, b"warn\n"),
        (Stream::Stdout, &second),
        (Stream::Stderr, &euro[..2]), // an incomplete character at the end
    ];
    let text = body(&chunks, 0);
    // Cut inside the third frame: it comes again whole after the reconnect.
    let third = text
        .match_indices('\n')
        .nth(1)
        .map(|(i, _)| i)
        .expect("frames")
        + 10;
    let (_s, computer) = computer(cut_replies(&text, &[third])).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let result = computer
        .run(
            "price",
            RunOptions::new()
                .read_options(fast())
                .on_output(move |stream, data, text| {
                    log.lock().expect("not poisoned").push((
                        stream,
                        data.to_vec(),
                        text.to_owned(),
                    ));
                }),
        )
        .await
        .expect("run");
    let seen = seen.lock().expect("not poisoned").clone();
    let expected: Vec<(Stream, Vec<u8>, String)> = vec![
        (Stream::Stdout, first.clone(), "price: ".into()),
        (Stream::Stderr, b"warn\n".to_vec(), "warn\n".into()),
        (Stream::Stdout, second.clone(), "€ 5\n".into()),
        (Stream::Stderr, euro[..2].to_vec(), String::new()),
        (Stream::Stderr, Vec::new(), "\u{FFFD}".into()),
    ];
    assert_eq!(seen, expected);
    assert_eq!(result.stdout.text, "price: € 5\n");
}

#[test]
fn spill_directory_writes_atomically_with_mode_0600_and_refuses_bad_names() {
    let dir = temp_dir("spilldir").join("created");
    let spill = SpillDirectory::new(&dir);
    let mut file = spill.open("run-1-combined").expect("open");
    spill.write(&mut file, b"partial ").expect("write");
    let target = dir.join("run-1-combined.txt");
    assert!(!target.exists(), "no reader sees a partial file");
    let temps = files_in(&dir);
    assert!(
        temps.len() == 1 && temps[0].starts_with(".spill-") && temps[0].ends_with(".tmp"),
        "{temps:?}"
    );
    spill.write(&mut file, b"output\n").expect("write");
    let path = spill.commit(file).expect("commit");
    assert!(Path::new(&path).is_absolute());
    assert_eq!(
        Path::new(&path),
        std::fs::canonicalize(&target).expect("saved")
    );
    assert_eq!(std::fs::read(&target).expect("saved"), b"partial output\n");
    assert_eq!(files_in(&dir), vec!["run-1-combined.txt".to_owned()]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&target)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Discarded, or dropped uncommitted: no file left.
    let file = spill.open("run-2-stdout").expect("open");
    spill.discard(file);
    let mut file = spill.open("run-3-stdout").expect("open");
    spill.write(&mut file, b"x").expect("write");
    drop(file);
    assert_eq!(files_in(&dir), vec!["run-1-combined.txt".to_owned()]);

    let long = "a".repeat(129);
    for bad in [
        "",
        ".",
        "..",
        "a/b",
        "../x",
        "x y",
        "caf\u{e9}",
        long.as_str(),
    ] {
        let err = spill.open(bad).expect_err("refused");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{bad:?}");
        assert!(err.to_string().contains("not a plain file name"), "{err}");
    }
    let err = SpillDirectory::new(&dir)
        .with_suffix("/x")
        .open("ok")
        .expect_err("refused");
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert_eq!(
        SpillDirectory::new(&dir)
            .with_suffix(".log")
            .path_for("run-1")
            .expect("plain"),
        dir.join("run-1.log")
    );
}

/// A writer that fails where told to, else saves in memory.
#[derive(Clone, Default)]
struct Flaky {
    fail_open: Option<&'static str>,
    fail_write: Option<&'static str>,
    fail_commit: Option<&'static str>,
    saved: Arc<Mutex<Vec<String>>>,
}

impl RunSpill for Flaky {
    type File = String;
    fn open(&self, spill_id: &str) -> io::Result<String> {
        if self.fail_open.is_some_and(|v| spill_id.ends_with(v)) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "read-only directory",
            ));
        }
        Ok(spill_id.to_owned())
    }
    fn write(&self, file: &mut String, _data: &[u8]) -> io::Result<()> {
        if self.fail_write.is_some_and(|v| file.ends_with(v)) {
            return Err(io::Error::other("No space left on device"));
        }
        Ok(())
    }
    fn commit(&self, file: String) -> io::Result<String> {
        if self.fail_commit.is_some_and(|v| file.ends_with(v)) {
            return Err(io::Error::other("rename failed"));
        }
        self.saved.lock().expect("not poisoned").push(file.clone());
        Ok(format!("/saved/{file}"))
    }
    fn discard(&self, _file: String) {}
}

#[tokio::test]
async fn a_failing_writer_keeps_the_preview_and_says_why() {
    let chunks = noisy(400);
    let text = body(&borrowed(&chunks), 0);
    let flaky = Flaky {
        fail_open: Some("-stderr"),
        fail_write: Some("-stdout"),
        fail_commit: Some("-combined"),
        saved: Arc::default(),
    };
    let (_s, computer) = computer(vec![ndjson(&text, Ending::Complete)]).await;
    let result = computer
        .run(
            "noisy",
            RunOptions::new()
                .max_lines(5)
                .max_bytes(1000)
                .idempotency_key("k")
                .spill(flaky.clone()),
        )
        .await
        .expect("run");
    let previews = [&result.stdout, &result.stderr, &result.combined];
    let errors: Vec<Option<&str>> = previews.iter().map(|p| p.spill_error.as_deref()).collect();
    assert_eq!(
        errors,
        vec![
            Some("spill writer failed: Other: No space left on device"),
            Some("spill writer failed: PermissionDenied: read-only directory"),
            Some("spill writer failed: Other: rename failed"),
        ]
    );
    let [out, err, both] = views(&chunks);
    for (preview, bytes) in previews.iter().zip([&out, &err, &both]) {
        assert!(preview.truncated && preview.spill_path.is_none());
        assert_eq!(preview.total_bytes, bytes.len() as u64);
        assert!(!preview.text.is_empty() && preview.text.len() <= 1000);
    }
    // Without a spill error, the same preview as bound() with no spill (and
    // run's split).
    let id = format!("{}-stdout", run_spill_id("k"));
    let bound = Bounder::new(5, 1000)
        .with_split(dory_wire::preview::Split::Tail)
        .bound_with_spill_id(&out, &id)
        .expect("bound")
        .render(SpillOutcome::NotSaved, None);
    assert_eq!(result.stdout.text, bound.text);
    assert_eq!(flaky.saved.lock().expect("not poisoned").len(), 0);
}

#[tokio::test]
async fn bad_input_fails_before_any_request() {
    let script = serve(vec![]).await;
    let client = Client::new(Some(&script.url)).expect("client");
    let computer = client.computers().get("c1");
    let code = |r: Result<RunResult, Error>| r.expect_err("refused").code();
    let argument = |r: Result<RunResult, Error>| match r {
        Err(Error::InvalidArgument { argument, .. }) => argument,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        code(computer.run("true", RunOptions::new().max_lines(1)).await),
        "invalid_limits"
    );
    assert_eq!(
        code(computer.run("true", RunOptions::new().max_bytes(79)).await),
        "invalid_limits"
    );
    for key in [String::new(), "a\nb".into(), "k".repeat(256), "clé".into()] {
        assert_eq!(
            argument(
                computer
                    .run("true", RunOptions::new().idempotency_key(key))
                    .await
            ),
            "idempotency_key"
        );
    }
    assert_eq!(
        argument(computer.run(Vec::<String>::new(), RunOptions::new()).await),
        "command"
    );
    assert_eq!(
        argument(
            computer
                .run("true", RunOptions::new().timeout_seconds(-1.0))
                .await
        ),
        "timeout_seconds"
    );
    for read in [
        ReadOptions::new().offsets(5, 0),
        ReadOptions::new().follow(false),
    ] {
        assert_eq!(
            argument(
                computer
                    .run("true", RunOptions::new().read_options(read))
                    .await
            ),
            "options"
        );
    }
    let zero = ReadOptions::new().liveness_timeout(Duration::ZERO);
    assert_eq!(
        argument(
            computer
                .run("true", RunOptions::new().read_options(zero))
                .await
        ),
        "liveness_timeout"
    );
    assert_eq!(script.requests().len(), 0, "no request was sent");
}

#[tokio::test]
async fn cancelling_while_the_start_is_in_flight_replays_the_keyed_start_then_kills() {
    let stalled = Reply {
        ending: Ending::Stall,
        ..json(201, "")
    };
    let script = serve(vec![
        stalled,
        json(200, IDENTITY),
        json(200, r#"{"proc_id":"p1","status":"exited"}"#),
    ])
    .await;
    let computer = Client::new(Some(&script.url))
        .expect("client")
        .computers()
        .get("c1");
    let run = computer.run(
        "sleepy",
        RunOptions::new()
            .idempotency_key("in-flight")
            .kill_on_cancel(true),
    );
    let cancelled = tokio::time::timeout(Duration::from_millis(200), run).await;
    assert!(cancelled.is_err(), "the start never answers: {cancelled:?}");
    let kill = "POST /computers/c1/processes/p1/kill".to_owned();
    for _ in 0..200 {
        if script.targets().contains(&kill) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        script.targets(),
        vec![START.to_owned(), START.to_owned(), kill]
    );
    let requests = script.requests();
    assert_eq!(requests[1].header("idempotency-key"), Some("in-flight"));
    assert_eq!(requests[1].body, requests[0].body, "the same keyed start");
}

/// The kinds of a preview document's notices, each checked to be the line
/// of its `text` it names.
fn notice_kinds(doc: &serde_json::Value) -> Vec<String> {
    let text = doc["text"].as_str().expect("text");
    let lines: Vec<&str> = text.split('\n').collect();
    doc["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .map(|n| {
            let line = n["line"].as_u64().expect("line") as usize;
            assert_eq!(lines[line - 1], n["text"].as_str().expect("text"));
            n["kind"].as_str().expect("kind").to_owned()
        })
        .collect()
}

#[tokio::test]
async fn the_result_is_one_canonical_json_document() {
    let chunks = noisy(3000);
    let (_s, computer) =
        computer(vec![ndjson(&body(&borrowed(&chunks), 1), Ending::Complete)]).await;
    let options = RunOptions::new().max_lines(40).max_bytes(2000);
    let result = computer.run("make", options).await.expect("run");
    let json = result.to_json();
    let doc: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert!(
        json.starts_with(r#"{"proc_id":"p1","idempotency_key":"run-"#),
        "{json:.80}"
    );
    assert_eq!(doc["exit_code"], 1);
    assert_eq!(doc["timed_out"], false);
    assert_eq!(doc.as_object().map(|o| o.len()), Some(9));
    for (view, preview) in [
        ("stdout", &result.stdout),
        ("stderr", &result.stderr),
        ("combined", &result.combined),
    ] {
        assert!(
            json.contains(&format!("\"{view}\":{},", preview.to_json())),
            "{view}"
        );
        assert_eq!(doc[view]["text"], *preview.text);
        assert_eq!(doc[view]["total_bytes"], preview.total_bytes);
    }
    let kinds = notice_kinds(&doc["combined"]);
    assert_eq!(kinds.first().map(String::as_str), Some("omitted"));
    assert_eq!(kinds[kinds.len() - 2..], ["stderr", "end"], "{kinds:?}");
    assert_eq!(notice_kinds(&doc["stdout"]), ["omitted"]);
}
