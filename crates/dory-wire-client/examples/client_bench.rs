//! The Rust client's benchmarks, run by `make bench` against a reference
//! server it started (`DORY_URL`); prints one JSON object per row.
//!
//! - `client_bench scale FOLLOWERS`: starts FOLLOWERS processes, then reads
//!   them all at once with `read_output` on one tokio runtime while the
//!   server cuts responses at seeded random points; every transcript must be
//!   byte-identical to what the command printed. Reports the peak RSS over
//!   the baseline per follower and the CPU time per MB read.
//! - `client_bench throughput MB RUNS`: one process with MB megabytes of
//!   retained output, read by `read_output` and by a plain reqwest +
//!   serde_json + base64 loop doing the same work, runs interleaved; reports
//!   both medians and their ratio.

use std::time::{Duration, Instant};

use base64::Engine as _;
use dory_wire::{Error, Stream};
use dory_wire_client::{Client, Process, ReadOptions, StartOptions};
use serde::Deserialize;

const LINES: u32 = 6000;

fn command(n: usize) -> String {
    format!("echo start-{n}; seq 1 {LINES}; echo end-{n} >&2")
}

fn expected(n: usize) -> (Vec<u8>, Vec<u8>) {
    let mut out = format!("start-{n}\n").into_bytes();
    for i in 1..=LINES {
        out.extend_from_slice(format!("{i}\n").as_bytes());
    }
    (out, format!("end-{n}\n").into_bytes())
}

/// A field of /proc/self/status, in KiB.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// User + system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<u64> = after
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    // After the command name: state is not a number, so utime and stime are
    // the 11th and 12th numeric fields.
    let ticks = fields.get(10).copied().unwrap_or(0) + fields.get(11).copied().unwrap_or(0);
    ticks as f64 / 100.0
}

async fn start(client: &Client, n: usize) -> Result<Process, Error> {
    let processes = client.computers().get("bench").processes();
    let started = processes
        .start(command(n), StartOptions::new().timeout_seconds(120.0))
        .await?;
    processes.get(&started.proc_id).await
}

async fn scale(followers: usize) -> Result<(), String> {
    let client = Client::new(None).map_err(|e| e.to_string())?;
    let mut processes = Vec::with_capacity(followers);
    for batch in (0..followers).collect::<Vec<_>>().chunks(50) {
        let mut set = tokio::task::JoinSet::new();
        for &n in batch {
            let client = client.clone();
            set.spawn(async move { (n, start(&client, n).await) });
        }
        while let Some(joined) = set.join_next().await {
            let (n, process) = joined.map_err(|e| e.to_string())?;
            processes.push((n, process.map_err(|e| format!("start {n}: {e}"))?));
        }
    }
    let base_rss = status_kib("VmRSS:");
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(base_rss));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(status_kib("VmRSS:"), std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let cpu = cpu_seconds();
    let began = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for (n, process) in processes {
        set.spawn(async move {
            let options = ReadOptions::new()
                .retries(20)
                .max_backoff(Duration::from_millis(500));
            (n, process.read_output(options).await)
        });
    }
    let (mut bytes, mut exact) = (0usize, 0usize);
    while let Some(joined) = set.join_next().await {
        let (n, transcript) = joined.map_err(|e| e.to_string())?;
        let transcript = transcript.map_err(|e| format!("read {n}: {e}"))?;
        let (out, err) = expected(n);
        let got = (
            transcript.stream(Stream::Stdout).bytes(),
            transcript.stream(Stream::Stderr).bytes(),
        );
        if got != (out.as_slice(), err.as_slice()) {
            return Err(format!(
                "follower {n}: the transcript differs from what the command printed"
            ));
        }
        bytes += out.len() + err.len();
        exact += 1;
    }
    let wall = began.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    sampler.abort();
    let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
    let mb = bytes as f64 / 1e6;
    println!(
        "{}",
        serde_json::json!({
            "lang": "rust", "bench": "scale", "followers": followers, "exact": exact,
            "mb": mb, "wall_s": wall, "cpu_s_per_mb": cpu / mb,
            "peak_rss_over_base_kib_per_follower": (peak.saturating_sub(base_rss)) as f64 / followers as f64,
        })
    );
    Ok(())
}

#[derive(Deserialize)]
struct WireFrame {
    #[serde(rename = "type")]
    frame_type: String,
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
}

/// What the plain loop does: GET, lines, serde_json, base64, a Vec per stream.
async fn plain(http: &reqwest::Client, url: &str) -> Result<[Vec<u8>; 2], String> {
    let mut response = http.get(url).send().await.map_err(|e| e.to_string())?;
    let mut streams = [Vec::new(), Vec::new()];
    let mut partial: Vec<u8> = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        partial.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(i) = partial[start..].iter().position(|&b| b == b'\n') {
            let line = &partial[start..start + i];
            start += i + 1;
            let frame: WireFrame = serde_json::from_slice(line).map_err(|e| e.to_string())?;
            let index = match frame.frame_type.as_str() {
                "stdout" => 0,
                "stderr" => 1,
                "exit" => return Ok(streams),
                _ => continue,
            };
            let data = frame.data.unwrap_or_default();
            if frame.encoding.as_deref() == Some("base64") {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|e| e.to_string())?;
                streams[index].extend_from_slice(&bytes);
            } else {
                streams[index].extend_from_slice(data.as_bytes());
            }
        }
        partial.drain(..start);
    }
    Err("the plain loop's body ended before exit".to_owned())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

async fn throughput(mb: usize, runs: usize) -> Result<(), String> {
    let client = Client::new(None).map_err(|e| e.to_string())?;
    let bytes = mb * 1_000_000;
    let line = "the quick brown fox jumps over the lazy dog 0123456789";
    let cmd = format!("yes '{line}' | head -c {bytes}");
    let processes = client.computers().get("bench").processes();
    let started = processes
        .start(cmd, StartOptions::new().timeout_seconds(300.0))
        .await
        .map_err(|e| e.to_string())?;
    let process = processes
        .get(&started.proc_id)
        .await
        .map_err(|e| e.to_string())?;
    // Wait for the exit: both then read the same retained output.
    let first = process
        .read_output(ReadOptions::new())
        .await
        .map_err(|e| e.to_string())?;
    let total = first.stream(Stream::Stdout).bytes().len();
    if total != bytes {
        return Err(format!(
            "retained {total} bytes, expected {bytes} (raise --retention-bytes)"
        ));
    }
    let http = reqwest::Client::new();
    let url = format!(
        "{}/computers/bench/processes/{}/output?stdout_offset=0&stderr_offset=0&follow=true",
        client.base_url(),
        started.proc_id
    );
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let transcript = process
            .read_output(ReadOptions::new())
            .await
            .map_err(|e| e.to_string())?;
        ours.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let streams = plain(&http, &url).await?;
        theirs.push(t.elapsed().as_secs_f64());
        if streams[0] != transcript.stream(Stream::Stdout).bytes() {
            return Err("the plain loop read other bytes".to_owned());
        }
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "{}",
        serde_json::json!({
            "lang": "rust", "bench": "throughput", "mb": bytes as f64 / 1e6, "runs": runs,
            "read_output_mb_per_s": bytes as f64 / 1e6 / ours,
            "plain_loop_mb_per_s": bytes as f64 / 1e6 / theirs,
            "ratio": theirs / ours,
        })
    );
    processes
        .kill(&started.proc_id)
        .await
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number =
        |i: usize, default: usize| args.get(i).and_then(|v| v.parse().ok()).unwrap_or(default);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("tokio: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = match args.first().map(String::as_str) {
        Some("scale") => runtime.block_on(scale(number(1, 1000))),
        Some("throughput") => runtime.block_on(throughput(number(1, 50), number(2, 5))),
        _ => Err("usage: client_bench scale [FOLLOWERS] | throughput [MB] [RUNS]".to_owned()),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("client_bench: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
