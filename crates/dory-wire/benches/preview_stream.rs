//! Bounds 100 MB of generated log text with the streaming bounder (64 KiB
//! pushes, 2000 lines / 50 KiB limits) and compares it, in the same run, with
//! the floor: a plain `memchr_iter(b'\n', ..).count()` over the same bytes.
//! Reports the median of several runs of each, and their ratio.
//!
//! Run: `cargo bench -p dory-wire --bench preview_stream`

use std::hint::black_box;
use std::time::{Duration, Instant};

use dory_wire::preview::{SpillOutcome, StreamingBounder};

const TOTAL: usize = 100_000_000;
const CHUNK: usize = 64 * 1024;
const RUNS: usize = 9;

/// Deterministic log-like text: mostly short ASCII lines, some long ones, a
/// little UTF-8.
fn log_text() -> Vec<u8> {
    let mut out = Vec::with_capacity(TOTAL + 200);
    let mut i = 0u64;
    while out.len() < TOTAL {
        i += 1;
        let line = match i % 50 {
            0 => format!(
                "{i:>9} WARN  retrying request {} after timeout — état dégradé ✓\n",
                i * 31
            ),
            7 => format!("{i:>9} DEBUG payload={}\n", "ab0123456789".repeat(20)),
            _ => format!(
                "{i:>9} INFO  compiled module_{} in {} ms\n",
                i % 977,
                i % 89
            ),
        };
        out.extend_from_slice(line.as_bytes());
    }
    out.truncate(TOTAL);
    out
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn bound(data: &[u8], spill_id: Option<&str>) -> usize {
    let mut bounder = StreamingBounder::new(2000, 50 * 1024);
    if let Some(id) = spill_id {
        bounder = bounder.with_spill_id(id);
    }
    for chunk in data.chunks(CHUNK) {
        bounder.push(chunk);
    }
    bounder
        .finish()
        .expect("limits that allow a cut")
        .render(SpillOutcome::NotSaved, None)
        .text
        .len()
}

fn main() {
    let data = log_text();
    let (mut floor, mut default_id, mut given_id) = (Vec::new(), Vec::new(), Vec::new());
    // Interleaved, so that machine noise hits all three alike.
    for _ in 0..RUNS {
        let start = Instant::now();
        black_box(memchr::memchr_iter(b'\n', black_box(&data)).count());
        floor.push(start.elapsed());

        let start = Instant::now();
        black_box(bound(black_box(&data), None));
        default_id.push(start.elapsed());

        let start = Instant::now();
        black_box(bound(
            black_box(&data),
            Some("0123456789abcdef0123456789abcdef"),
        ));
        given_id.push(start.elapsed());
    }
    let (floor, default_id, given_id) = (median(floor), median(default_id), median(given_id));
    let mb = TOTAL as f64 / 1e6;
    let report = |name: &str, time: Duration| {
        println!(
            "{name:<44} {:>8.2} ms  {:>7.0} MB/s  {:>5.2}x the floor",
            time.as_secs_f64() * 1e3,
            mb / time.as_secs_f64(),
            time.as_secs_f64() / floor.as_secs_f64()
        );
    };
    println!("preview_stream: {mb} MB of log text, 64 KiB pushes, median of {RUNS} runs");
    report("floor: memchr_iter(b'\\n').count()", floor);
    report("StreamingBounder (content-derived spill id)", default_id);
    report("StreamingBounder (caller's spill id)", given_id);
}
