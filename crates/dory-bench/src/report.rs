//! Results of every language's benchmark (JSON lines, one per measured run)
//! and the one markdown table they make.
//!
//! Each run is one child process (so its peak RSS is its own) and writes one
//! [`Record`]. Runs of the implementations compared are interleaved round by
//! round, so machine noise hits them alike; the table shows medians, and
//! every ratio is a ratio of medians from the same `make bench`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// One measured run of one implementation on one input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// `rust`, `python` or `node`.
    pub lang: String,
    /// What is compared: `reader`, `preview`, `preview-memory`, `bound`.
    pub group: String,
    /// The input: a corpus letter, possibly with a size (`P 10 MB`).
    pub corpus: String,
    /// A short, stable implementation id (`reader`, `json`, `orjson`, …).
    pub id: String,
    /// The label shown in the table.
    pub label: String,
    /// `ours`, `ours-variant`, `baseline` or `floor`.
    pub role: String,
    /// CPU seconds for one pass over the input (median of the passes in the run).
    pub secs: f64,
    /// Wall seconds for the same pass, when known.
    #[serde(default)]
    pub wall: Option<f64>,
    /// Input bytes of one pass.
    pub bytes: u64,
    /// Peak resident set of the process that ran it, bytes.
    #[serde(default)]
    pub peak_rss: Option<u64>,
    /// Resident set once the input was loaded, before the measured work, bytes.
    #[serde(default)]
    pub base_rss: Option<u64>,
}

/// Parses JSON lines of [`Record`]s, skipping blank lines.
pub fn parse(text: &str) -> Result<Vec<Record>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("line {}: {e}: {l}", i + 1)))
        .collect()
}

/// All runs of one implementation on one input.
#[derive(Debug, Clone)]
pub struct Row {
    /// Language.
    pub lang: String,
    /// Group.
    pub group: String,
    /// Input.
    pub corpus: String,
    /// Implementation id.
    pub id: String,
    /// Table label.
    pub label: String,
    /// Role.
    pub role: String,
    /// Seconds per pass, one per run.
    pub secs: Vec<f64>,
    /// Input bytes.
    pub bytes: u64,
    /// Largest peak RSS over the runs.
    pub peak_rss: Option<u64>,
    /// Smallest RSS before the work over the runs.
    pub base_rss: Option<u64>,
}

impl Row {
    /// Median seconds per pass.
    pub fn median(&self) -> f64 {
        median(&self.secs)
    }

    /// Input megabytes (10^6 bytes) per second, at the median.
    pub fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.median()
    }
}

/// The median of a non-empty slice (mean of the middle two for even lengths).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Groups records into rows, in the order they first appear.
pub fn rows(records: &[Record]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let mut index: BTreeMap<(String, String, String, String), usize> = BTreeMap::new();
    for r in records {
        let key = (
            r.lang.clone(),
            r.group.clone(),
            r.corpus.clone(),
            r.id.clone(),
        );
        let i = *index.entry(key).or_insert_with(|| {
            rows.push(Row {
                lang: r.lang.clone(),
                group: r.group.clone(),
                corpus: r.corpus.clone(),
                id: r.id.clone(),
                label: r.label.clone(),
                role: r.role.clone(),
                secs: Vec::new(),
                bytes: r.bytes,
                peak_rss: None,
                base_rss: None,
            });
            rows.len() - 1
        });
        let row = &mut rows[i];
        row.secs.push(r.secs);
        row.peak_rss = max_opt(row.peak_rss, r.peak_rss);
        row.base_rss = match (row.base_rss, r.base_rss) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    // Keep each (lang, group) block together, corpora in order within it.
    let mut order: Vec<(String, String)> = Vec::new();
    for r in &rows {
        let k = (r.lang.clone(), r.group.clone());
        if !order.contains(&k) {
            order.push(k);
        }
    }
    let mut sorted = Vec::with_capacity(rows.len());
    for (lang, group) in order {
        let mut block: Vec<Row> = rows
            .iter()
            .filter(|r| r.lang == lang && r.group == group)
            .cloned()
            .collect();
        block.sort_by(|a, b| a.corpus.cmp(&b.corpus));
        sorted.extend(block);
    }
    sorted
}

fn max_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn find<'a>(rows: &'a [Row], lang: &str, group: &str, corpus: &str, id: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.lang == lang && r.group == group && r.corpus == corpus && r.id == id)
}

fn ours<'a>(rows: &'a [Row], lang: &str, group: &str, corpus: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.lang == lang && r.group == group && r.corpus == corpus && r.role == "ours")
}

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(|| "–".into(), |b| format!("{:.0}", b as f64 / 1048576.0))
}

/// The results table (markdown).
pub fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    s.push_str("| lang | bench | input | implementation | MB/s | ours ÷ this (speed) | runs | peak RSS MiB | RSS over input MiB |\n");
    s.push_str("|---|---|---|---|--:|--:|--:|--:|--:|\n");
    for r in rows {
        let ratio = match ours(rows, &r.lang, &r.group, &r.corpus) {
            Some(o) if o.id != r.id => format!("{:.2}×", r.median() / o.median()),
            Some(_) => "—".into(),
            None => "".into(),
        };
        let over = match (r.peak_rss, r.base_rss) {
            (Some(p), Some(b)) => mib(Some(p.saturating_sub(b))),
            _ => "–".into(),
        };
        let label = if r.role == "ours" {
            format!("**{}**", r.label)
        } else {
            r.label.clone()
        };
        let speed = r.mb_per_s();
        let speed = if speed.is_finite() {
            format!("{speed:.0}")
        } else {
            "–".into()
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.lang,
            r.group,
            r.corpus,
            label,
            speed,
            ratio,
            r.secs.len(),
            mib(r.peak_rss),
            over
        );
    }
    s
}

/// One performance target and whether this run meets it.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The target, in words.
    pub target: String,
    /// What was measured.
    pub measured: String,
    /// `Some(true)` met, `Some(false)` missed, `None` not measured.
    pub met: Option<bool>,
}

/// Speed ratio ours ÷ baseline on each corpus where both ran.
fn ratios(rows: &[Row], lang: &str, group: &str, baseline: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.lang == lang && r.group == group && r.id == baseline)
    {
        if let Some(o) = ours(rows, lang, group, &r.corpus) {
            out.push((r.corpus.clone(), r.median() / o.median()));
        }
    }
    out
}

/// Speed ratio of implementation `ours_id` ÷ `baseline` on each corpus where both ran.
fn ratios_of(
    rows: &[Row],
    lang: &str,
    group: &str,
    ours_id: &str,
    baseline: &str,
) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.lang == lang && r.group == group && r.id == baseline)
    {
        if let Some(o) = find(rows, lang, group, &r.corpus, ours_id) {
            out.push((r.corpus.clone(), r.median() / o.median()));
        }
    }
    out
}

/// Speed ratio `slower` time ÷ `faster` time per corpus (both Rust reader
/// rows): how many times faster `faster` is.
fn rust_speedups(rows: &[Row], faster: &str, slower: &str) -> Vec<(String, f64)> {
    ratios_of(rows, "rust", "reader", faster, slower)
}

/// A target with a different bound per corpus: `need(corpus)`; corpora with
/// no bound are left out.
fn bounded_verdict(
    target: &str,
    got: &[(String, f64)],
    need: impl Fn(&str) -> Option<f64>,
    show: impl Fn(f64) -> String,
) -> Verdict {
    let got: Vec<_> = got
        .iter()
        .filter_map(|(c, x)| need(c).map(|n| (c, *x, n)))
        .collect();
    if got.is_empty() {
        return Verdict {
            target: target.into(),
            measured: "not measured".into(),
            met: None,
        };
    }
    Verdict {
        target: target.into(),
        measured: got
            .iter()
            .map(|(c, x, _)| format!("{c} {}", show(*x)))
            .collect::<Vec<_>>()
            .join(", "),
        met: Some(got.iter().all(|(_, x, n)| x >= n)),
    }
}

fn times(x: f64) -> String {
    format!("{x:.2}×")
}

fn mbps(x: f64) -> String {
    format!("{x:.0} MB/s")
}

/// MB/s of one Rust reader row per corpus.
fn rust_speeds(rows: &[Row], id: &str) -> Vec<(String, f64)> {
    rows.iter()
        .filter(|r| r.lang == "rust" && r.group == "reader" && r.id == id)
        .map(|r| (r.corpus.clone(), r.mb_per_s()))
        .collect()
}

/// Checks every performance target against the rows.
pub fn verdicts(rows: &[Row]) -> Vec<Verdict> {
    let mut v = Vec::new();
    let every = |_: &str| Some(0.9);
    v.push(bounded_verdict(
        "Rust: the Transcript sink ≥ 0.9× the Vec-per-stream sink, every corpus",
        &rust_speedups(rows, "reader-transcript", "reader-sink"),
        every,
        times,
    ));
    v.push(bounded_verdict(
        "Rust: the Follower ≥ 0.98× the bare Reader into the same Sink (≤ 2 % over), every corpus",
        &rust_speedups(rows, "follower-sink", "reader-sink"),
        |_| Some(0.98),
        times,
    ));
    v.push(bounded_verdict(
        "Rust: the run machine ≥ 0.98× the follower and run bounder it replaced (≤ 2 % over), every corpus",
        &rust_speedups(rows, "run-machine", "run-follower"),
        |_| Some(0.98),
        times,
    ));
    v.push(bounded_verdict(
        "Python: the Follower ≥ 0.98× the bare Reader into a Transcript (≤ 2 % over), every corpus",
        &ratios_of(
            rows,
            "python",
            "reader",
            "follower-into-kept",
            "reader-into-kept",
        ),
        |_| Some(0.98),
        times,
    ));
    v.push(bounded_verdict(
        "Node: the Follower ≥ 0.98× the bare Reader (≤ 2 % over), every corpus",
        &ratios_of(rows, "node", "reader", "follower", "wasm"),
        |_| Some(0.98),
        times,
    ));
    v.push(bounded_verdict(
        "Rust: Transcript text views ≥ 1 GB/s on text (A, B, D), ≥ 300 MB/s on binary (C)",
        &rust_speeds(rows, "transcript-text"),
        |c| Some(if c == "C" { 300.0 } else { 1000.0 }),
        mbps,
    ));
    let floor_need = |c: &str| Some(if c == "D" { 0.6 } else { 0.85 });
    v.push(with_decode_needed(
        bounded_verdict(
            "Rust: collecting ≥ 0.85× the collecting floor on A, B, C, ≥ 0.6× on D",
            &rust_speedups(rows, "reader-sink", "copy"),
            floor_need,
            times,
        ),
        rows,
        "copy",
        floor_need,
    ));
    let serde_need = |c: &str| (c == "D").then_some(2.5);
    v.push(with_decode_needed(
        bounded_verdict(
            "Rust: collecting ≥ 2.5× the serde_json loop on D",
            &rust_speedups(rows, "reader-sink", "serde-lines"),
            serde_need,
            times,
        ),
        rows,
        "serde-lines",
        serde_need,
    ));
    v.push(bounded_verdict(
        "Rust: decoding alone ≥ 3 GB/s on A and B, ≥ 2.5 GB/s on C, ≥ 1.5 GB/s on D",
        &rust_speeds(rows, "reader-decode"),
        |c| match c {
            "A" | "B" => Some(3000.0),
            "C" => Some(2500.0),
            "D" => Some(1500.0),
            _ => None,
        },
        mbps,
    ));
    v.push(bounded_verdict(
        "Rust: decoding alone ≥ 0.4× the memchr floor on A and B, ≥ 0.25× on D",
        &rust_speedups(rows, "reader-decode", "memchr"),
        |c| match c {
            "A" | "B" => Some(0.4),
            "D" => Some(0.25),
            _ => None,
        },
        times,
    ));
    v.push(bounded_verdict(
        "Rust (moonshot): decoding alone ≥ half the memchr floor on A and B",
        &rust_speedups(rows, "reader-decode", "memchr"),
        |c| matches!(c, "A" | "B").then_some(0.5),
        times,
    ));
    let recommended = "reader-into";
    let orjson_need = |_: &str| Some(2.0);
    v.push(with_copy_left_out(
        bounded_verdict(
            "Python: the recommended path (`feed_into` a Transcript, then `bytes`) ≥ 2× the orjson loop, every corpus",
            &ratios_of(rows, "python", "reader", recommended, "orjson"),
            orjson_need,
            times,
        ),
        rows,
        "orjson",
        orjson_need,
    ));
    let json_need = |c: &str| Some(if matches!(c, "C" | "D") { 5.0 } else { 3.0 });
    v.push(with_copy_left_out(
        bounded_verdict(
            "Python: the recommended path ≥ 3× the json loop on A and B, ≥ 5× on C and D",
            &ratios_of(rows, "python", "reader", recommended, "json"),
            json_need,
            times,
        ),
        rows,
        "json",
        json_need,
    ));
    v.push(bounded_verdict(
        "Python: the recommended path ≥ plain `Reader.feed`, every corpus",
        &ratios_of(rows, "python", "reader", recommended, "reader"),
        |_| Some(1.0),
        times,
    ));
    v.push(documented_paths_verdict(rows));
    v.push(bounded_verdict(
        "Node: the wasm Reader ≥ 1.5× the plain-JS loop, every corpus",
        &ratios(rows, "node", "reader", "pure-js"),
        |_| Some(1.5),
        times,
    ));

    // Preview: the floor's speed over ours must be at most 3.
    let floor: Vec<(String, f64)> = ratios(rows, "rust", "preview", "memchr")
        .into_iter()
        .map(|(c, x)| (c, 1.0 / x))
        .collect();
    v.push(if floor.is_empty() {
        Verdict {
            target: "Streaming preview within 3× of the memchr floor".into(),
            measured: "not measured".into(),
            met: None,
        }
    } else {
        Verdict {
            target: "Streaming preview within 3× of the memchr floor".into(),
            measured: floor
                .iter()
                .map(|(c, x)| format!("{c}: floor is {x:.2}× faster"))
                .collect::<Vec<_>>()
                .join(", "),
            met: Some(floor.iter().all(|(_, x)| *x <= 3.0)),
        }
    });
    v.push(keep_terminal_verdict(rows));
    v.push(keep_terminal_grep_verdict(rows));
    v.push(keep_terminal_rg_verdict(rows, crate::run::rg_version()));
    v.push(tokens_verdict(rows));
    v.push(search_verdict(rows));
    v.push(memory_verdict(rows));
    v
}

/// The spill search: at least 1 GB/s.
fn search_verdict(rows: &[Row]) -> Verdict {
    let target = "Search a spill (`error`, 2 lines of context): ≥ 1 GB/s".to_string();
    match find(rows, "rust", "preview", "P", "search") {
        Some(row) => Verdict {
            target,
            measured: match find(rows, "rust", "preview", "P", "grep-search") {
                Some(grep) => format!(
                    "P: {:.0} MB/s; `grep -c error` on the same input: {:.0} MB/s (ours {:.2}× its speed)",
                    row.mb_per_s(),
                    grep.mb_per_s(),
                    grep.median() / row.median()
                ),
                None => format!("P: {:.0} MB/s", row.mb_per_s()),
            },
            met: Some(row.mb_per_s() >= 1000.0),
        },
        None => Verdict {
            target,
            measured: "not measured".into(),
            met: None,
        },
    }
}

/// The streaming preview with the default keep patterns and terminal
/// rendering: at least 1 GB/s, and within 2× of the plain streaming preview
/// (the same rows, the same run).
fn keep_terminal_verdict(rows: &[Row]) -> Verdict {
    let target = "Streaming preview with keep (default patterns) + terminal: ≥ 1 GB/s and within 2× of the plain one".to_string();
    let (Some(both), Some(plain)) = (
        find(rows, "rust", "preview", "P", "preview-keep-terminal"),
        find(rows, "rust", "preview", "P", "preview"),
    ) else {
        return Verdict {
            target,
            measured: "not measured".into(),
            met: None,
        };
    };
    let speed = both.mb_per_s();
    let slower = both.median() / plain.median();
    Verdict {
        target,
        measured: format!("P: {speed:.0} MB/s, {slower:.2}× the plain preview's time"),
        met: Some(speed >= 1000.0 && slower <= 2.0),
    }
}

/// The target that can be met (the plain preview never reads the middle,
/// keep must run its patterns over every byte): the streaming preview with
/// keep + terminal at least as fast as `grep -c -E` with the same patterns
/// over the same input, in the UTF-8 locale the patterns' meaning needs.
fn keep_terminal_grep_verdict(rows: &[Row]) -> Verdict {
    let target = "Streaming preview with keep (default patterns) + terminal: ≥ `grep -c -E` with the same patterns (LC_ALL=C.UTF-8), the same input".to_string();
    let (Some(both), Some(grep)) = (
        find(rows, "rust", "preview", "P", "preview-keep-terminal"),
        find(rows, "rust", "preview", "P", "grep-keep"),
    ) else {
        return Verdict {
            target,
            measured: "not measured".into(),
            met: None,
        };
    };
    let ratio = grep.median() / both.median();
    let bytes = find(rows, "rust", "preview", "P", "grep-keep-bytes")
        .map(|c| {
            format!(
                "; in LC_ALL=C (bytes) grep reads {:.0} MB/s, ours {:.2}× its speed",
                c.mb_per_s(),
                c.median() / both.median()
            )
        })
        .unwrap_or_default();
    Verdict {
        target,
        measured: format!(
            "P: ours {:.0} MB/s, grep {:.0} MB/s: ours {ratio:.2}× its speed{bytes}",
            both.mb_per_s(),
            grep.mb_per_s()
        ),
        met: Some(ratio >= 1.0),
    }
}

/// The streaming preview with a token limit within 10 % of the same preview
/// without one (the same run), beside what counting the whole input would
/// cost and the vocabulary's load time.
fn tokens_verdict(rows: &[Row]) -> Verdict {
    let target = "Streaming preview (keep + terminal) with max_tokens (o200k_base): within 10 % of the same without it".to_string();
    let (Some(tokens), Some(without)) = (
        find(rows, "rust", "preview", "P", "preview-keep-terminal-tokens"),
        find(rows, "rust", "preview", "P", "preview-keep-terminal"),
    ) else {
        return Verdict {
            target,
            measured: "not measured".into(),
            met: None,
        };
    };
    let slower = tokens.median() / without.median();
    let whole = find(rows, "rust", "preview", "P", "token-count")
        .map(|c| {
            format!(
                "; counting the whole input would read {:.0} MB/s ({:.0}× the preview's time)",
                c.mb_per_s(),
                c.median() / without.median()
            )
        })
        .unwrap_or_default();
    let load = crate::run::tokenizer_load_ms()
        .map(|ms| format!("; o200k_base loads in {ms:.0} ms, once per process"))
        .unwrap_or_default();
    Verdict {
        target,
        measured: format!(
            "P: {:.0} MB/s with, {:.0} MB/s without: {slower:.3}× the time{whole}{load}",
            tokens.mb_per_s(),
            without.mb_per_s()
        ),
        met: Some(slower <= 1.10),
    }
}

/// The streaming preview with keep + terminal ahead of ripgrep (`rg -c`)
/// counting the same patterns' lines over the same input (the same run);
/// skipped, not failed, when ripgrep could not be installed. `version` is
/// the ripgrep measured, when known.
fn keep_terminal_rg_verdict(rows: &[Row], version: Option<String>) -> Verdict {
    let target = "Streaming preview with keep (default patterns) + terminal: ahead of ripgrep (`rg --crlf -c` with the same patterns), the same input".to_string();
    let Some(both) = find(rows, "rust", "preview", "P", "preview-keep-terminal") else {
        return Verdict {
            target,
            measured: "not measured".into(),
            met: None,
        };
    };
    let Some(rg) = find(rows, "rust", "preview", "P", "rg-keep") else {
        return Verdict {
            target,
            measured: "skipped: ripgrep is not installed (scripts/bench.sh installs it with cargo)"
                .into(),
            met: None,
        };
    };
    let ratio = rg.median() / both.median();
    let version = version.unwrap_or_else(|| "ripgrep".into());
    Verdict {
        target,
        measured: format!(
            "P: ours {:.0} MB/s, {version} {:.0} MB/s: ours {ratio:.2}× its speed",
            both.mb_per_s(),
            rg.mb_per_s()
        ),
        met: Some(ratio > 1.0),
    }
}

/// For a missed Rust collecting target: the speed decoding alone would need
/// on each missed corpus if the rest of collecting (the collecting row's time
/// minus the decode-only row's, both from this run: writing the output into
/// fresh memory) stayed as measured, beside today's decoding and the memchr
/// floor (one read of the input).
fn with_decode_needed(
    verdict: Verdict,
    rows: &[Row],
    baseline: &str,
    need: impl Fn(&str) -> Option<f64>,
) -> Verdict {
    explain_missed(verdict, "would need", || {
        let mut parts = Vec::new();
        for sink in rows
            .iter()
            .filter(|r| r.lang == "rust" && r.group == "reader" && r.id == "reader-sink")
        {
            let c = sink.corpus.as_str();
            let (Some(n), Some(dec), Some(base), Some(floor)) = (
                need(c),
                find(rows, "rust", "reader", c, "reader-decode"),
                find(rows, "rust", "reader", c, baseline),
                find(rows, "rust", "reader", c, "memchr"),
            ) else {
                continue;
            };
            if base.median() / sink.median() >= n {
                continue;
            }
            let rest = sink.median() - dec.median();
            let budget = base.median() / n - rest;
            parts.push(if budget <= 0.0 {
                format!("{c}: out of reach even with free decoding (the rest alone takes longer)")
            } else {
                let mb = sink.bytes as f64 / 1e6;
                format!(
                    "{c}: decoding alone at ≥ {:.0} MB/s (now {:.0}; memchr floor {:.0})",
                    mb / budget,
                    dec.mb_per_s(),
                    floor.mb_per_s()
                )
            });
        }
        parts
    })
}

/// For a missed Python target: the same ratio with `bytes()` left out
/// (`reader-into-kept`), which shows what the copy into a new `bytes`
/// object costs against the target.
fn with_copy_left_out(
    verdict: Verdict,
    rows: &[Row],
    baseline: &str,
    need: impl Fn(&str) -> Option<f64>,
) -> Verdict {
    explain_missed(verdict, "without the copy `bytes()` makes:", || {
        ratios_of(rows, "python", "reader", "reader-into-kept", baseline)
            .into_iter()
            .filter(|(c, _)| need(c).is_some())
            .map(|(c, x)| format!("{c} {}", times(x)))
            .collect()
    })
}

/// Appends `lead` and the `parts` (computed only then) to the measured text
/// of a missed verdict.
fn explain_missed(
    mut verdict: Verdict,
    lead: &str,
    parts: impl FnOnce() -> Vec<String>,
) -> Verdict {
    if verdict.met == Some(false) {
        let parts = parts();
        if !parts.is_empty() {
            verdict.measured = format!("{}; {lead} {}", verdict.measured, parts.join(", "));
        }
    }
    verdict
}

/// No documented Python path is slower than per-event `feed` (speed of
/// `feed` ÷ each other path's, ≤ 1 means that path is at least as fast).
fn documented_paths_verdict(rows: &[Row]) -> Verdict {
    let target = "Python: no documented path slower than `feed`, every corpus";
    let mut parts = Vec::new();
    let mut met = None;
    let others: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.lang == "python"
                && r.group == "reader"
                && r.id != "reader"
                // Not a path: the recommended one without its `bytes()`.
                && r.id != "reader-into-kept"
                && (r.role == "ours" || r.role == "ours-variant")
        })
        .collect();
    for r in others {
        if let Some(feed) = find(rows, "python", "reader", &r.corpus, "reader") {
            let x = feed.median() / r.median();
            met = Some(met.unwrap_or(true) && x >= 1.0);
            parts.push(format!("`{}` on {} {x:.2}×", r.id, r.corpus));
        }
    }
    Verdict {
        target: target.into(),
        measured: if parts.is_empty() {
            "not measured".into()
        } else {
            parts.join(", ")
        },
        met,
    }
}

/// Peak memory of the streaming bounder over inputs of two sizes, streamed
/// from disk: independent of the input size when the larger input costs at
/// most 1 MiB (page-granularity noise) more than the smaller.
fn memory_verdict(rows: &[Row]) -> Verdict {
    let target = "Streaming preview: peak memory independent of input size";
    let mut mem: Vec<&Row> = rows
        .iter()
        .filter(|r| r.group == "preview-memory" && r.peak_rss.is_some())
        .collect();
    mem.sort_by_key(|r| r.bytes);
    let by_lang: BTreeMap<&str, Vec<&Row>> = mem.iter().fold(BTreeMap::new(), |mut m, r| {
        m.entry(r.lang.as_str()).or_insert_with(Vec::new).push(r);
        m
    });
    if by_lang.is_empty() {
        return Verdict {
            target: target.into(),
            measured: "not measured".into(),
            met: None,
        };
    }
    let mut parts = Vec::new();
    let mut met = true;
    for (lang, rs) in by_lang {
        let (Some(small), Some(large)) = (rs.first(), rs.last()) else {
            continue;
        };
        let (s, l) = (small.peak_rss.unwrap_or(0), large.peak_rss.unwrap_or(0));
        met &= l <= s + 1048576;
        parts.push(format!(
            "{lang}: {:.1} MiB at {} MB, {:.1} MiB at {} MB",
            s as f64 / 1048576.0,
            small.bytes / 1_000_000,
            l as f64 / 1048576.0,
            large.bytes / 1_000_000
        ));
    }
    Verdict {
        target: target.into(),
        measured: parts.join("; "),
        met: Some(met),
    }
}

/// The targets table (markdown).
pub fn verdict_table(verdicts: &[Verdict]) -> String {
    let mut s = String::from("| target | measured (same run) | met |\n|---|---|---|\n");
    for v in verdicts {
        let met = match v.met {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "not measured",
        };
        let _ = writeln!(s, "| {} | {} | {} |", v.target, v.measured, met);
    }
    s
}

/// Finds a row (for callers that want one figure).
pub fn lookup<'a>(
    rows: &'a [Row],
    lang: &str,
    group: &str,
    corpus: &str,
    id: &str,
) -> Option<&'a Row> {
    find(rows, lang, group, corpus, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(lang: &str, group: &str, corpus: &str, id: &str, role: &str, secs: f64) -> Record {
        Record {
            lang: lang.into(),
            group: group.into(),
            corpus: corpus.into(),
            id: id.into(),
            label: id.into(),
            role: role.into(),
            secs,
            wall: None,
            bytes: 100_000_000,
            peak_rss: Some(10 << 20),
            base_rss: Some(5 << 20),
        }
    }

    #[test]
    fn medians_and_ratios() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let records = vec![
            rec("rust", "reader", "D", "reader-sink", "ours", 0.05),
            rec("rust", "reader", "D", "serde-lines", "baseline", 0.2),
            rec("rust", "reader", "D", "reader-sink", "ours", 0.04),
            rec("rust", "reader", "D", "serde-lines", "baseline", 0.1),
            rec("rust", "reader", "D", "reader-sink", "ours", 0.06),
            rec("rust", "reader", "D", "serde-lines", "baseline", 0.15),
            rec("rust", "reader", "D", "reader-decode", "ours-variant", 0.1),
            rec("rust", "reader", "C", "reader-decode", "ours-variant", 0.02),
        ];
        let rows = rows(&records);
        assert_eq!(rows.len(), 4);
        let v = verdicts(&rows);
        let by = |name: &str| v.iter().find(|x| x.target.contains(name)).unwrap();
        let serde = by("serde_json loop on D");
        assert_eq!(serde.met, Some(true), "{v:?}"); // 0.15 / 0.05 = 3×
        assert_eq!(serde.measured, "D 3.00×");
        let decode = by("decoding alone ≥ 3 GB/s");
        assert_eq!(decode.met, Some(false)); // D at 1000 MB/s, C at 5000
        assert_eq!(decode.measured, "C 5000 MB/s, D 1000 MB/s");
        assert_eq!(by("Node").met, None);
        // D decodes at 0.1 s against a memchr floor of 0.02 s: 0.2×, under 0.25×.
        let mut floor = records.clone();
        floor.push(rec("rust", "reader", "D", "memchr", "floor", 0.02));
        let floor_rows = super::rows(&floor);
        let v = verdicts(&floor_rows);
        let memchr = v
            .iter()
            .find(|x| x.target.contains("0.4× the memchr floor"))
            .unwrap();
        assert_eq!(memchr.measured, "D 0.20×");
        assert_eq!(memchr.met, Some(false));
        let t = table(&rows);
        assert!(t.contains("| 3.00× |"), "{t}");
    }

    #[test]
    fn keep_and_search_against_grep() {
        let p = |id: &str, role: &str, secs: f64| rec("rust", "preview", "P", id, role, secs);
        let records = vec![
            p("preview", "ours", 0.01),
            p("preview-keep-terminal", "ours-variant", 0.25),
            p("grep-keep", "baseline", 0.30),
            p("grep-keep-bytes", "baseline", 0.20),
            p("search", "ours-variant", 0.05),
            p("grep-search", "baseline", 0.10),
        ];
        let v = verdicts(&rows(&records));
        let by = |name: &str| v.iter().find(|x| x.target.contains(name)).unwrap();
        let grep = by("≥ `grep -c -E`");
        assert_eq!(grep.met, Some(true), "{v:?}"); // 0.30 / 0.25 = 1.2×
        assert_eq!(
            grep.measured,
            "P: ours 400 MB/s, grep 333 MB/s: ours 1.20× its speed; in LC_ALL=C (bytes) grep reads 500 MB/s, ours 0.80× its speed"
        );
        assert_eq!(by("within 2× of the plain one").met, Some(false)); // 25× the plain time
        let search = by("Search a spill");
        assert_eq!(search.met, Some(true));
        assert!(
            search.measured.contains("ours 2.00× its speed"),
            "{search:?}"
        );
        // Slower than grep: missed.
        let mut slow = records.clone();
        slow[1] = p("preview-keep-terminal", "ours-variant", 0.40);
        let v = verdicts(&rows(&slow));
        let grep = v
            .iter()
            .find(|x| x.target.contains("≥ `grep -c -E`"))
            .unwrap();
        assert_eq!(grep.met, Some(false));
    }

    #[test]
    fn keep_against_ripgrep_or_skipped() {
        let p = |id: &str, role: &str, secs: f64| rec("rust", "preview", "P", id, role, secs);
        let mut records = vec![
            p("preview", "ours", 0.01),
            p("preview-keep-terminal", "ours-variant", 0.25),
        ];
        let rg = keep_terminal_rg_verdict(&rows(&records), None);
        assert_eq!(rg.met, None);
        assert!(
            rg.measured.starts_with("skipped: ripgrep is not installed"),
            "{rg:?}"
        );
        records.push(p("rg-keep", "baseline", 0.20));
        let rg = keep_terminal_rg_verdict(&rows(&records), Some("ripgrep 15.2.0".into()));
        assert_eq!(rg.met, Some(false));
        assert_eq!(
            rg.measured,
            "P: ours 400 MB/s, ripgrep 15.2.0 500 MB/s: ours 0.80× its speed"
        );
        records[1] = p("preview-keep-terminal", "ours-variant", 0.10);
        assert_eq!(
            keep_terminal_rg_verdict(&rows(&records), None).met,
            Some(true)
        );
    }

    #[test]
    fn records_round_trip_as_json_lines() {
        let r = rec("python", "reader", "A", "json", "baseline", 1.5);
        let line = serde_json::to_string(&r).unwrap();
        assert_eq!(
            parse(&format!("{line}\n\n{line}\n")).unwrap(),
            vec![r.clone(), r]
        );
        let minimal = r#"{"lang":"node","group":"reader","corpus":"A","id":"x","label":"x","role":"baseline","secs":1,"bytes":5}"#;
        assert_eq!(parse(minimal).unwrap()[0].peak_rss, None);
    }
}
