//! `dory-bench`: the Rust side of `make bench`.
//!
//! ```text
//! dory-bench corpora [--dir DIR] [--mb N]           make the corpora if missing; print their paths
//! dory-bench rust [--dir DIR] [--mb N] [--runs N] [--min-secs S] [--out FILE]
//!                                                   run the Rust benchmarks, one child per run,
//!                                                   appending JSON-line records to FILE
//! dory-bench one --workload W --file F [--piece N] [--limit N] [--min-secs S] [--streamed]
//!                                                   (child) one measured run; prints a JSON line
//! dory-bench report FILE [--title TEXT]             print the markdown table and the targets
//! dory-bench preview-shown                          input bytes previews show on tight budgets
//! dory-bench preview-calls [--runs N]               only the per-call preview timings, with targets
//! dory-bench quality [--corpus DIR]                 preview quality on the labeled real failures
//!                                                   (default tests/corpus), with its targets
//! dory-bench quality-show NAME [--lines N] [--bytes N] [--brief]
//!                                                   every strategy's preview of one labeled log
//!                                                   (--brief: how much each shows, and run's preview)
//! ```

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use dory_bench::corpus::{self, Kind};
use dory_bench::measure::{self, Measurement};
use dory_bench::report::{self, Record};
use dory_bench::run::Workload;

const PIECE: usize = 64 * 1024;

struct Args {
    positional: Vec<String>,
    options: HashMap<String, String>,
    flags: Vec<String>,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        positional: Vec::new(),
        options: HashMap::new(),
        flags: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if let Some(name) = arg.strip_prefix("--") {
            if name == "streamed" || name == "brief" {
                a.flags.push(name.to_owned());
            } else {
                let value = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
                a.options.insert(name.to_owned(), value.clone());
            }
        } else {
            a.positional.push(arg.clone());
        }
    }
    Ok(a)
}

impl Args {
    fn get<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.options.get(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("--{name}: bad value {v:?}")),
        }
    }

    fn dir(&self) -> PathBuf {
        PathBuf::from(
            self.options
                .get("dir")
                .map_or("target/bench-corpora", String::as_str),
        )
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = match argv.first().map(String::as_str) {
        Some("corpora") => parse_args(&argv[1..]).and_then(|a| cmd_corpora(&a)),
        Some("rust") => parse_args(&argv[1..]).and_then(|a| cmd_rust(&a)),
        Some("one") => parse_args(&argv[1..]).and_then(|a| cmd_one(&a)),
        Some("report") => parse_args(&argv[1..]).and_then(|a| cmd_report(&a)),
        Some("tokenizer-load") => {
            println!("{:.1}", dory_bench::run::tokenizer_load());
            Ok(())
        }
        Some("preview-shown") => {
            print!("{}", dory_bench::preview::shown());
            Ok(())
        }
        Some("preview-calls") => parse_args(&argv[1..]).and_then(|a| {
            let rows = report::rows(&dory_bench::preview::calls(a.get("runs", 5usize)?));
            println!("{}", report::table(&rows));
            println!(
                "{}",
                report::verdict_table(&dory_bench::preview::verdicts(&rows))
            );
            Ok(())
        }),
        Some("quality") => parse_args(&argv[1..]).and_then(|a| {
            let dir = PathBuf::from(a.get("corpus", "tests/corpus".to_owned())?);
            let cases = dory_bench::quality::load(&dir)?;
            let q = dory_bench::quality::measure(&cases);
            print!("{}", dory_bench::quality::report(&q, cases.len()));
            Ok(())
        }),
        Some("quality-show") => parse_args(&argv[1..]).and_then(|a| {
            // dory-bench quality-show NAME [--lines N] [--bytes N] [--corpus DIR]:
            // every strategy's preview of one labeled log, and what it shows.
            let dir = PathBuf::from(a.get("corpus", "tests/corpus".to_owned())?);
            let name = a.positional.first().ok_or("quality-show NAME")?;
            let (lines, bytes) = (a.get("lines", 100usize)?, a.get("bytes", 16384usize)?);
            let cases = dory_bench::quality::load(&dir)?;
            let case = cases
                .iter()
                .find(|c| &c.name == name)
                .ok_or("no such labeled log")?;
            if a.flags.iter().any(|f| f == "brief") {
                // For make demo: what each strategy shows of the labeled
                // lines, then run's preview itself.
                use dory_bench::quality::{normalise, Strategy};
                println!(
                    "{} ({} bytes, {} lines), cut to {lines} lines / {bytes} bytes; the lines that say why it failed:",
                    case.name,
                    case.log.len(),
                    memchr::memchr_iter(b'\n', &case.log).count()
                );
                for k in &case.must_keep {
                    println!("    {k}");
                }
                for s in [Strategy::HeadTail, Strategy::TailOnly, Strategy::Run] {
                    let p = s.preview(&case.log, lines, bytes);
                    let text = normalise(&p);
                    let found = case
                        .must_keep
                        .iter()
                        .filter(|k| text.contains(&normalise(k)))
                        .count();
                    println!(
                        "{:<32} shows {found} of {} of them",
                        s.name(),
                        case.must_keep.len()
                    );
                }
                println!("--- `run`'s preview:");
                print!("{}", Strategy::Run.preview(&case.log, lines, bytes));
                return Ok(());
            }
            for s in dory_bench::quality::Strategy::ALL {
                let p = s.preview(&case.log, lines, bytes);
                let shown = dory_bench::quality::shown(&p, &case.must_keep);
                println!("===== {} ({shown:?})\n{p}", s.name());
            }
            println!("===== must_keep: {:?}", case.must_keep);
            Ok(())
        }),
        _ => Err(
            "usage: dory-bench corpora|rust|one|report|quality|quality-show … (see the source header)"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dory-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn cmd_corpora(a: &Args) -> Result<(), String> {
    let mb = a.get("mb", 100u64)?;
    let paths = corpus::ensure(&a.dir(), mb).map_err(|e| format!("corpora: {e}"))?;
    for (kind, path) in paths {
        println!("{} {}", kind.letter(), path.display());
    }
    Ok(())
}

fn cmd_one(a: &Args) -> Result<(), String> {
    let workload = a
        .options
        .get("workload")
        .and_then(|w| Workload::from_id(w))
        .ok_or("--workload: one of reader-sink, follower-sink, run-follower, run-machine, reader, reader-decode, reader-transcript, transcript-text, serde-lines, memchr, copy, preview, preview-digest, preview-keep-terminal, preview-keep-terminal-tokens, token-count, preview-keep, preview-terminal, search, grep-keep, grep-keep-bytes, grep-search, rg-keep")?;
    let file = PathBuf::from(a.options.get("file").ok_or("--file is required")?);
    let piece = a.get("piece", PIECE)?.max(1);
    let limit = a
        .options
        .get("limit")
        .map(|l| l.parse::<u64>())
        .transpose()
        .map_err(|e| e.to_string())?;
    let min_secs = a.get("min-secs", 0.25f64)?;
    let m = if a.flags.iter().any(|f| f == "streamed") {
        measure::streamed_preview(&file, limit, piece)
    } else {
        measure::in_memory(workload, &file, limit, piece, min_secs)
    }
    .map_err(|e| format!("{}: {e}", file.display()))?;
    println!("{}", serde_json::to_string(&m).map_err(|e| e.to_string())?);
    Ok(())
}

/// Runs `dory-bench one` in a child process and returns its measurement.
fn child(extra: &[String]) -> Result<Measurement, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .arg("one")
        .args(extra)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "child {extra:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).map_err(|e| format!("child output {text:?}: {e}"))
}

fn record(group: &str, corpus: &str, w: Workload, label: &str, m: &Measurement) -> Record {
    Record {
        lang: "rust".into(),
        group: group.into(),
        corpus: corpus.into(),
        id: w.id().into(),
        label: label.into(),
        role: w.role().into(),
        secs: m.secs,
        wall: Some(m.wall),
        bytes: m.bytes,
        peak_rss: m.peak_rss,
        base_rss: m.base_rss,
    }
}

fn cmd_rust(a: &Args) -> Result<(), String> {
    let mb = a.get("mb", 100u64)?;
    let runs = a.get("runs", 5usize)?.max(1);
    let min_secs = a.get("min-secs", 0.25f64)?;
    let out_path = PathBuf::from(
        a.options
            .get("out")
            .map_or("target/bench-results/results.jsonl", String::as_str),
    );
    let paths = corpus::ensure(&a.dir(), mb).map_err(|e| format!("corpora: {e}"))?;
    let path_of = |k: Kind| -> &Path {
        paths
            .iter()
            .find(|(kind, _)| *kind == k)
            .map(|(_, p)| p.as_path())
            .unwrap_or_else(|| Path::new(""))
    };
    if let Some(parent) = out_path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&out_path)
        .map_err(|e| format!("{}: {e}", out_path.display()))?;
    let mut emit = |r: Record| -> Result<(), String> {
        let line = serde_json::to_string(&r).map_err(|e| e.to_string())?;
        writeln!(out, "{line}").map_err(|e| e.to_string())
    };
    let common = |w: Workload, file: &Path| -> Vec<String> {
        vec![
            "--workload".into(),
            w.id().into(),
            "--file".into(),
            file.display().to_string(),
            "--piece".into(),
            PIECE.to_string(),
            "--min-secs".into(),
            min_secs.to_string(),
        ]
    };

    let readers = [
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
    ];
    for kind in Kind::READER {
        eprintln!("rust: reader on {} …", kind.letter());
        for _ in 0..runs {
            for w in readers {
                let m = child(&common(w, path_of(kind)))?;
                emit(record("reader", kind.letter(), w, w.label(), &m))?;
            }
        }
    }

    eprintln!("rust: streaming preview …");
    let previews = [
        Workload::Preview,
        Workload::PreviewDigest,
        Workload::PreviewKeepTerminal,
        Workload::PreviewTokens,
        Workload::TokenCount,
        Workload::PreviewKeep,
        Workload::PreviewTerminal,
        Workload::GrepKeep,
        Workload::GrepKeepBytes,
        Workload::RgKeep,
        Workload::Search,
        Workload::GrepSearch,
        Workload::Floor,
    ];
    // A baseline is left out, said on stderr, where its program cannot run
    // (grep's together, ripgrep's alone: the report says skipped).
    let mut grep_failed = false;
    let mut rg_failed = false;
    for _ in 0..runs {
        for w in previews {
            let rg = w == Workload::RgKeep;
            if w.is_external() && (if rg { rg_failed } else { grep_failed }) {
                continue;
            }
            let m = match child(&common(w, path_of(Kind::P))) {
                Err(e) if w.is_external() => {
                    if rg {
                        eprintln!("rust: the ripgrep baseline is left out: {e}");
                        rg_failed = true;
                    } else {
                        eprintln!("rust: the grep baselines are left out: {e}");
                        grep_failed = true;
                    }
                    continue;
                }
                m => m?,
            };
            emit(record("preview", "P", w, w.label(), &m))?;
        }
    }

    // Peak memory of the streaming bounder fed from disk: a tenth of P, then all of it.
    let p = path_of(Kind::P);
    let size = std::fs::metadata(p).map_err(|e| e.to_string())?.len();
    for limit in [size / 10, size] {
        let mut extra = common(Workload::Preview, p);
        extra.extend(["--streamed".into(), "--limit".into(), limit.to_string()]);
        let m = child(&extra)?;
        let input = format!("P, first {} MB", m.bytes / 1_000_000);
        emit(record(
            "preview-memory",
            &input,
            Workload::Preview,
            "StreamingBounder fed from disk (64 KiB reads)",
            &m,
        ))?;
    }
    eprintln!("rust: preview calls on small inputs …");
    for r in dory_bench::preview::calls(runs) {
        emit(r)?;
    }
    eprintln!("rust: records appended to {}", out_path.display());
    Ok(())
}

fn cmd_report(a: &Args) -> Result<(), String> {
    let path = a
        .positional
        .first()
        .ok_or("report: results file required")?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let records = report::parse(&text)?;
    let rows = report::rows(&records);
    if let Some(title) = a.options.get("title") {
        println!("{title}\n");
    }
    println!("{}", report::table(&rows));
    let mut verdicts = report::verdicts(&rows);
    verdicts.extend(dory_bench::preview::verdicts(&rows));
    println!("{}", report::verdict_table(&verdicts));
    Ok(())
}
