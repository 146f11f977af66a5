//! Measuring one run in a child process: peak memory from `/proc`, time from
//! a monotonic clock, several passes for fast workloads.

use std::fs;
use std::io::{self, Read};
use std::path::Path;
use std::time::Instant;

use crate::run::Workload;

/// What one child run reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Measurement {
    /// CPU seconds per pass (mean over the passes of this run).
    pub secs: f64,
    /// Wall seconds per pass (mean over the passes of this run).
    pub wall: f64,
    /// Passes made.
    pub passes: usize,
    /// Input bytes per pass.
    pub bytes: u64,
    /// Peak RSS of this process (`VmHWM`), bytes.
    pub peak_rss: Option<u64>,
    /// RSS once the input was loaded (`VmRSS`), bytes.
    pub base_rss: Option<u64>,
}

/// CPU time this thread has run, from `/proc/thread-self/schedstat`
/// (nanosecond resolution), falling back to wall time where it is missing.
///
/// On a shared machine, wall time counts the time other processes held the
/// CPU; CPU time does not, so it is the fairer measure of work (cache
/// pollution by neighbours still shows).
#[derive(Debug, Clone, Copy)]
pub struct CpuClock {
    cpu_ns: Option<u64>,
    wall: Instant,
}

fn thread_cpu_ns() -> Option<u64> {
    let stat = fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

impl CpuClock {
    /// Starts a measurement.
    pub fn start() -> Self {
        CpuClock {
            cpu_ns: thread_cpu_ns(),
            wall: Instant::now(),
        }
    }

    /// (CPU seconds, wall seconds) since [`CpuClock::start`]; CPU is wall when
    /// the CPU clock is unavailable.
    pub fn elapsed(&self) -> (f64, f64) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = match (self.cpu_ns, thread_cpu_ns()) {
            (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e9,
            _ => wall,
        };
        (cpu, wall)
    }
}

/// A `kB` field of `/proc/self/status`, in bytes.
pub fn proc_status_bytes(field: &str) -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map(|kb| kb * 1024)
}

/// Loads up to `limit` bytes of `path` into memory, then runs `workload` over
/// them in pieces of `piece` bytes: at least one pass, more until `min_secs`
/// have passed (at most 1000), and reports the mean pass.
pub fn in_memory(
    workload: Workload,
    path: &Path,
    limit: Option<u64>,
    piece: usize,
    min_secs: f64,
) -> io::Result<Measurement> {
    let mut body = Vec::new();
    let file = fs::File::open(path)?;
    file.take(limit.unwrap_or(u64::MAX))
        .read_to_end(&mut body)?;
    body.shrink_to_fit();
    if workload == Workload::TranscriptText {
        return text_views(&body, piece, min_secs);
    }
    let bytes = body.len() as u64;
    if matches!(workload, Workload::PreviewTokens | Workload::TokenCount) {
        // The vocabulary loads once per process: not part of a pass (its
        // time is reported on its own, `dory-bench tokenizer-load`).
        dory_wire::tokens::Tokenizer::O200kBase.preload();
    }
    if workload.is_external() {
        return Ok(external_passes(bytes, min_secs, || {
            workload.run(&body, piece)
        }));
    }
    Ok(timed_passes(bytes, min_secs, || workload.run(&body, piece)))
}

/// CPU seconds of the waited-for children of this process (`cutime` +
/// `cstime` of `/proc/self/stat`, in clock ticks of 1/100 s, Linux's
/// `USER_HZ`).
fn children_cpu_secs() -> Option<f64> {
    let stat = fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 16 and 17 of proc(5), counted from 3 (the state) here.
    let ticks: u64 = fields.get(13)?.parse::<u64>().ok()? + fields.get(14)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Like [`timed_passes`] for work done by a child process: the CPU time is
/// the children's, read when they have been waited for (at least 1 s of it
/// or 20 passes, the clock being in ticks of 10 ms); wall time where
/// `/proc` is missing. Peak RSS is this process's, not the child's.
fn external_passes(bytes: u64, min_secs: f64, mut pass: impl FnMut() -> u64) -> Measurement {
    let base_rss = proc_status_bytes("VmRSS");
    let before = children_cpu_secs();
    let started = Instant::now();
    let mut passes = 0usize;
    let mut check = 0u64;
    loop {
        check = check.wrapping_add(pass());
        passes += 1;
        let cpu = match (before, children_cpu_secs()) {
            (Some(a), Some(b)) => b - a,
            _ => started.elapsed().as_secs_f64(),
        };
        if passes >= 20 || (cpu >= 1.0_f64.max(min_secs) && passes >= 1) {
            break;
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let cpu = match (before, children_cpu_secs()) {
        (Some(a), Some(b)) => b - a,
        _ => wall,
    };
    std::hint::black_box(check);
    mean_pass(bytes, cpu, wall, passes, base_rss)
}

/// The mean pass of `passes` that took `cpu` and `wall` seconds in all,
/// with this process's peak RSS.
fn mean_pass(bytes: u64, cpu: f64, wall: f64, passes: usize, base_rss: Option<u64>) -> Measurement {
    Measurement {
        secs: cpu / passes as f64,
        wall: wall / passes as f64,
        passes,
        bytes,
        peak_rss: proc_status_bytes("VmHWM"),
        base_rss,
    }
}

/// Runs `pass` at least once and until `min_secs` of work (at most 1000
/// passes), under one clock: the CPU clock is read from /proc, which is
/// current only to the last scheduler tick (a few ms), so it is read around
/// at least `min_secs` of work, never around one fast pass. `pass` returns a
/// checksum that keeps its work from being optimised away.
fn timed_passes(bytes: u64, min_secs: f64, mut pass: impl FnMut() -> u64) -> Measurement {
    let base_rss = proc_status_bytes("VmRSS");
    let clock = CpuClock::start();
    let started = Instant::now();
    let mut passes = 0usize;
    let mut check = 0u64;
    while passes == 0 || (started.elapsed().as_secs_f64() < min_secs && passes < 1000) {
        check = check.wrapping_add(pass());
        passes += 1;
    }
    let (cpu, wall) = clock.elapsed();
    std::hint::black_box(check);
    mean_pass(bytes, cpu, wall, passes, base_rss)
}

/// Fills a `Transcript` from `body` (not timed), then times building its two
/// text views, as [`in_memory`] times a workload. The bytes counted are the
/// streams' bytes: what the views read.
fn text_views(body: &[u8], piece: usize, min_secs: f64) -> io::Result<Measurement> {
    let transcript = crate::run::reader_transcript(body, piece);
    let bytes = (transcript.stream(dory_wire::Stream::Stdout).bytes().len()
        + transcript.stream(dory_wire::Stream::Stderr).bytes().len()) as u64;
    Ok(timed_passes(bytes, min_secs, || {
        crate::run::text_views(&transcript)
    }))
}

/// Streams up to `limit` bytes of `path` from disk through the streaming
/// bounder in pieces of `piece` bytes, never holding the input: its peak RSS
/// shows whether memory depends on the input size. One pass, IO included.
pub fn streamed_preview(path: &Path, limit: Option<u64>, piece: usize) -> io::Result<Measurement> {
    let base_rss = proc_status_bytes("VmRSS");
    let mut file = fs::File::open(path)?.take(limit.unwrap_or(u64::MAX));
    let mut buf = vec![0u8; piece];
    let clock = CpuClock::start();
    let mut bounder = crate::run::streaming_bounder(true);
    let mut total = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        bounder.push(&buf[..n]);
    }
    std::hint::black_box(crate::run::preview_len(bounder));
    let (cpu, wall) = clock.elapsed();
    Ok(Measurement {
        // One pass of a few ms can end before the CPU clock's next tick:
        // then the wall time is the measure.
        secs: if cpu > 0.0 { cpu } else { wall },
        wall,
        passes: 1,
        bytes: total,
        peak_rss: proc_status_bytes("VmHWM"),
        base_rss,
    })
}
