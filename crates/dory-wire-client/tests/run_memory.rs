//! `Computer::run` on 10 MB of output: memory stays in proportion to the
//! limits, each spill is the output (sha256), stdout's and stderr's
//! previews are `Bounder::bound` of their full bytes with the same spill id,
//! and the combined one is what a `RunBounder` given the whole output and
//! the exit gives (`finish_ended`: it holds a stderr section, the warnings
//! before the last line being hidden, and the end line).
//!
//! The only test of this binary: it counts the heap with a global
//! allocator, which other tests running beside it would disturb.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{exit, json, ndjson, serve, Ending};
use dory_wire::preview::{run_spill_id, Bounder, RunBounder, RunEnd, SpillOutcome, View};
use dory_wire::Stream;
use dory_wire_client::{Client, ReadOptions, RunOptions, SpillDirectory};
use peak_alloc::PeakAlloc;
use sha2::{Digest, Sha256};

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

const TOTAL: usize = 10_000_000;

/// About 10 MB of build-log lines in 64 KiB stdout chunks, a stderr
/// warning every 16 chunks, and stderr's last line at the very end.
fn output() -> Vec<(Stream, Vec<u8>)> {
    let mut chunks = Vec::new();
    let (mut size, mut i, mut batch) = (0usize, 0u64, Vec::new());
    while size < TOTAL {
        let line = format!(
            "step {i:08}: compiled module_{} in {} ms\n",
            i * 7919 % 100_003,
            i % 997
        );
        size += line.len();
        batch.extend_from_slice(line.as_bytes());
        i += 1;
        if batch.len() >= 64 * 1024 {
            chunks.push((Stream::Stdout, std::mem::take(&mut batch)));
            if chunks.len() % 17 == 16 {
                chunks.push((
                    Stream::Stderr,
                    format!("warning: step {i} was slow\n").into_bytes(),
                ));
            }
        }
    }
    chunks.push((Stream::Stdout, batch));
    chunks.push((
        Stream::Stderr,
        b"error: 1 test failed (see step 00123456)\n".to_vec(),
    ));
    chunks
}

fn ndjson_body(chunks: &[(Stream, Vec<u8>)]) -> String {
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
        let data = std::str::from_utf8(data).expect("text");
        let frame = serde_json::json!({"type": stream.as_str(), "data": data, "offset": end});
        text.push_str(&format!("{frame}\n"));
    }
    text.push_str(&exit(1));
    text
}

fn sha256(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_megabytes_through_a_drop_in_bounded_memory() {
    let chunks = output();
    let body = ndjson_body(&chunks);
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("run-10mb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // The first response is cut halfway, mid-frame; the second replays all.
    let half = body.len() / 2 + 5;
    let script = serve(vec![
        json(201, r#"{"proc_id":"p1","status":"running"}"#),
        ndjson(&body[..half], Ending::Cut),
        ndjson(&body, Ending::Complete),
    ])
    .await;
    let computer = Client::new(Some(&script.url))
        .expect("client")
        .computers()
        .get("c1");
    let options = RunOptions::new()
        .idempotency_key("ten-megabytes")
        .spill(SpillDirectory::new(&dir))
        .read_options(ReadOptions::new().backoff(Duration::from_millis(1)));

    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let started = Instant::now();
    let result = computer.run("build", options).await.expect("run");
    let elapsed = started.elapsed();
    let retained = HEAP.peak_usage().saturating_sub(before);
    drop(script);

    let (mut out, mut err, mut both) = (Vec::new(), Vec::new(), Vec::new());
    for (stream, data) in &chunks {
        match stream {
            Stream::Stdout => out.extend_from_slice(data),
            Stream::Stderr => err.extend_from_slice(data),
        }
        both.extend_from_slice(data);
    }
    assert!(both.len() >= TOTAL);
    eprintln!(
        "run of {} bytes (one drop): {retained} bytes of heap at the peak beyond the start, {elapsed:?}",
        both.len()
    );
    // The bytes retained are in proportion to the limits (the run bounder
    // holds about 200 KB at 16 KiB), not to the output.
    assert!(retained < 2 * 1024 * 1024, "{retained} bytes retained");

    let key = "ten-megabytes";
    // run's split (docs/preview.md, "The split").
    let bounder = Bounder::new(400, 16 * 1024).with_split(dory_wire::preview::Split::Tail);
    let mut whole = RunBounder::new(400, 16 * 1024)
        .with_split(dory_wire::preview::Split::Tail)
        .with_spill_id(&run_spill_id(key));
    for (stream, data) in &chunks {
        whole.push(*stream, data);
    }
    // The run's combined view ends with how the process ended.
    let end = RunEnd::new(result.exit_code, result.timed_out);
    let whole = whole.finish_ended(&end).expect("the whole run");
    for (view, bytes, preview) in [
        (View::Stdout, &out, &result.stdout),
        (View::Stderr, &err, &result.stderr),
        (View::Combined, &both, &result.combined),
    ] {
        let id = format!("{}-{}", run_spill_id(key), view.as_str());
        let outcome = match &preview.spill_path {
            Some(path) => {
                let saved = std::fs::read(path).expect("the spill");
                assert_eq!(sha256(&saved), sha256(bytes), "{} spill", view.as_str());
                SpillOutcome::Saved { path: path.clone() }
            }
            None => SpillOutcome::NotSaved,
        };
        let expected = match view {
            // A stderr section is added: the run bounder's own rule.
            View::Combined => whole.render(view, outcome, None),
            _ => bounder
                .bound_with_spill_id(bytes, &id)
                .expect("bound")
                .render(outcome, None)
                .into_owned(),
        };
        assert_eq!(
            preview,
            &expected,
            "{}: the whole output's preview",
            view.as_str()
        );
    }
    assert!(result
        .combined
        .text
        .contains("[... the last 307 of 307 bytes of stderr ...]\nwarning: step 22426 was slow\n"));
    assert!(result.stdout.truncated && result.combined.truncated && !result.stderr.truncated);
    assert!(result
        .combined
        .text
        .ends_with("error: 1 test failed (see step 00123456)\n[... exit code 1 ...]\n"));
    assert_eq!((result.exit_code, result.stdout_lost_bytes), (Some(1), 0));
    let _ = std::fs::remove_dir_all(&dir);
}
