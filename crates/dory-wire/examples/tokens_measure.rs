//! Measures the token counters on the real-log corpus (`tests/corpus/logs`):
//! vocabulary load time, counting speed, bytes per token, the approximate
//! counter's error against `o200k_base`, whether counts add up across line
//! breaks, and that the fitting functions are exact on every log.
//!
//! `cargo run --release -p dory-wire --features tokens --example tokens_measure [DIR]`
//!
//! The numbers are in `docs/tokens-design.md`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use dory_wire::tokens::Tokenizer;

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

fn main() -> ExitCode {
    let dir = std::env::args().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/logs"),
        PathBuf::from,
    );
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("cannot read {}", dir.display());
        return ExitCode::FAILURE;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let logs: Vec<(String, String)> = paths
        .iter()
        .filter_map(|p| {
            let bytes = std::fs::read(p).ok()?;
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect();
    let total: usize = logs.iter().map(|l| l.1.len()).sum();
    println!("{} logs, {} bytes", logs.len(), total);

    // Load time: the first count decodes the vocabulary.
    for &t in Tokenizer::ALL {
        let start = Instant::now();
        let _ = t.count("x");
        let first = start.elapsed();
        let start = Instant::now();
        let _ = t.count("x");
        println!(
            "{:12} first count (load) {:7.1} ms, second {:5.1} µs",
            t.name(),
            first.as_secs_f64() * 1e3,
            start.elapsed().as_secs_f64() * 1e6
        );
    }

    // Speed and bytes per token.
    let mut o200k_counts = Vec::new();
    for &t in Tokenizer::ALL {
        let rounds = 3;
        let start = Instant::now();
        let mut counts = Vec::new();
        for _ in 0..rounds {
            counts = logs.iter().map(|(_, s)| t.count(s)).collect::<Vec<_>>();
        }
        let secs = start.elapsed().as_secs_f64();
        let tokens: usize = counts.iter().sum();
        let per_log: Vec<f64> = logs
            .iter()
            .zip(&counts)
            .filter(|(_, &n)| n > 0)
            .map(|((_, s), &n)| s.len() as f64 / n as f64)
            .collect();
        let (min, median, max) = stats(per_log);
        println!(
            "{:12} {:8} tokens, {:6.2} MB/s, bytes/token overall {:.2}, per log min {:.2} median {:.2} max {:.2}",
            t.name(),
            tokens,
            (rounds * total) as f64 / secs / 1e6,
            total as f64 / tokens as f64,
            min,
            median,
            max
        );
        if t.name() == "o200k_base" {
            o200k_counts = counts;
        }
    }

    // The approximate counters against o200k_base: ratio estimate / exact.
    let exact = &o200k_counts;
    let approx = Tokenizer::Approx;
    let pairs: Vec<(&str, Vec<f64>)> = vec![
        (
            "approx",
            logs.iter()
                .zip(exact)
                .filter(|(_, &n)| n > 0)
                .map(|((_, s), &n)| approx.count(s) as f64 / n as f64)
                .collect(),
        ),
        (
            "bytes/4",
            logs.iter()
                .zip(exact)
                .filter(|(_, &n)| n > 0)
                .map(|((_, s), &n)| s.len().div_ceil(4) as f64 / n as f64)
                .collect(),
        ),
    ];
    for (name, ratios) in pairs {
        let under = ratios.iter().filter(|&&r| r < 1.0).count();
        let (min, median, max) = stats(ratios);
        println!(
            "{name:8} / o200k_base per log: min {min:.2} median {median:.2} max {max:.2}; under-counts {under} of {} logs",
            logs.len()
        );
    }
    let mut worst: Vec<(f64, &str, f64)> = logs
        .iter()
        .zip(exact)
        .filter(|(_, &n)| n > 0)
        .map(|((name, s), &n)| {
            (
                approx.count(s) as f64 / n as f64,
                name.as_str(),
                s.len() as f64 / n as f64,
            )
        })
        .collect();
    worst.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (ratio, name, bpt) in worst.iter().take(4).chain(worst.iter().rev().take(3)) {
        println!("    approx/o200k {ratio:.2} on {name} ({bpt:.2} bytes/token)");
    }
    let approx_total: usize = logs.iter().map(|(_, s)| approx.count(s)).sum();
    let exact_total: usize = exact.iter().sum();
    println!(
        "approx / o200k_base overall {:.2}",
        approx_total as f64 / exact_total as f64
    );

    // Additivity across line breaks, and the rule that predicts it.
    let mut failures = 0;
    for &t in Tokenizer::ALL.iter().filter(|t| t.is_exact()) {
        let (mut pairs, mut glued, mut unpredicted, mut whole_equal) = (0, 0, 0, 0);
        for (_, s) in &logs {
            let lines: Vec<&str> = s.split_inclusive('\n').collect();
            let counts: Vec<usize> = lines.iter().map(|l| t.count(l)).collect();
            if counts.iter().sum::<usize>() == t.count(s) {
                whole_equal += 1;
            }
            for i in 1..lines.len() {
                if !lines[i - 1].ends_with('\n') {
                    continue;
                }
                pairs += 1;
                let joined = t.count(&format!("{}{}", lines[i - 1], lines[i]));
                if joined != counts[i - 1] + counts[i] {
                    glued += 1;
                    if t.joins_additively(lines[i - 1], lines[i]) {
                        unpredicted += 1;
                    }
                }
            }
        }
        failures += unpredicted;
        println!(
            "{:12} {pairs} adjacent line pairs: {glued} not additive, {unpredicted} of them not predicted by joins_additively; whole log == sum of its lines in {whole_equal}/{} logs",
            t.name(),
            logs.len()
        );
    }

    // The fitting functions on every log: exact counts (checked with a
    // full count of the kept text), within budget.
    for &t in Tokenizer::ALL {
        let mut checks = 0;
        let start = Instant::now();
        for (name, s) in &logs {
            let text = &s[..s.floor_char_boundary_compat(16 * 1024)];
            for budget in [0, 1, 7, 50, 200, 1000, 5000] {
                let p = t.fit_prefix_lines(text, budget);
                let q = t.fit_suffix_lines(text, budget);
                let ok = p.tokens <= budget
                    && q.tokens <= budget
                    && p.tokens == t.count(&text[..p.bytes])
                    && q.tokens == t.count(&text[text.len() - q.bytes..]);
                let line = text.lines().next().unwrap_or("");
                let c = t.fit_prefix_chars(line, budget);
                let d = t.fit_suffix_chars(line, budget);
                let ok = ok
                    && c.tokens == t.count(&line[..c.bytes])
                    && d.tokens == t.count(&line[line.len() - d.bytes..])
                    && c.tokens <= budget
                    && d.tokens <= budget;
                if !ok {
                    failures += 1;
                    println!("MISMATCH {} {name} budget {budget}", t.name());
                }
                checks += 1;
            }
        }
        println!(
            "{:12} fit checks: {checks} (first 16 KiB of each log, 7 budgets), {:.0} ms",
            t.name(),
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `str::floor_char_boundary` (unstable): the largest char boundary ≤ `at`.
trait FloorCharBoundary {
    fn floor_char_boundary_compat(&self, at: usize) -> usize;
}

impl FloorCharBoundary for str {
    fn floor_char_boundary_compat(&self, at: usize) -> usize {
        let mut at = at.min(self.len());
        while !self.is_char_boundary(at) {
            at -= 1;
        }
        at
    }
}
