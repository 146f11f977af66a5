//! Preview quality on real failures: how often a preview shows why a
//! command failed, measured on the labeled corpus of real tool logs
//! (`tests/corpus/`), beside what peers do, at the budgets agents use.
//!
//! Each log of `tests/corpus/manifest.json` carries `must_keep`: the
//! substrings of the lines that say why the command failed. A preview shows
//! the failure *fully* when it holds every one of them, *partly* when it
//! holds some, and *not* when it holds none. Both sides are normalised
//! first: ANSI escape sequences removed, `\r` and runs of white space made
//! one space, so that colouring or a terminal's redraws do not decide.
//!
//! The strategies, at the same line and byte budget:
//! - **head + tail**: half the budget to the first lines, half to the last
//!   (Codex, OpenHands, Cline): the bare [`Bounder`], raw bytes;
//! - **tail only**: the last lines that fit (Goose);
//! - **head only**: the first lines that fit (Claude Code keeps a head);
//! - **run**: `run`'s previews, [`Bounder::run_preset`]: the shape `run`
//!   gives every view by default.
//!
//! `dory-bench quality` prints the table and the targets; the test
//! `tests/quality.rs` fails when `run`'s previews fall behind the targets on
//! this corpus.

use std::fmt::Write as _;
use std::path::Path;

use dory_wire::preview::{Bounded, Bounder, SpillOutcome};

/// The budgets measured: (lines, bytes).
pub const BUDGETS: [(usize, usize); 3] = [(40, 4096), (100, 16384), (400, 16384)];

/// A preview strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Half the budget to the head, half to the tail.
    HeadTail,
    /// The last lines that fit.
    TailOnly,
    /// The first lines that fit.
    HeadOnly,
    /// `run`'s previews.
    Run,
}

impl Strategy {
    /// Every strategy, in the table's order.
    pub const ALL: [Strategy; 4] = [
        Strategy::HeadTail,
        Strategy::TailOnly,
        Strategy::HeadOnly,
        Strategy::Run,
    ];

    /// The name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::HeadTail => "head + tail (Codex, OpenHands)",
            Strategy::TailOnly => "tail only (Goose)",
            Strategy::HeadOnly => "head only (Claude Code)",
            Strategy::Run => "`run`'s previews",
        }
    }

    /// The preview of `log` at `lines` / `bytes`.
    pub fn preview(self, log: &[u8], lines: usize, bytes: usize) -> String {
        match self {
            Strategy::HeadTail => bound(Bounder::new(lines, bytes), log),
            Strategy::Run => bound(Bounder::run_preset(lines, bytes), log),
            Strategy::TailOnly => tail_only(log, lines, bytes),
            Strategy::HeadOnly => head_only(log, lines, bytes),
        }
    }
}

fn bound(bounder: Bounder, log: &[u8]) -> String {
    match bounder.bound(log) {
        Ok(Bounded::Fits(p)) => p.text.into_owned(),
        Ok(Bounded::NeedsSpill(p)) => p
            .render(SpillOutcome::NotSaved, Some("/spill/output.log"))
            .text
            .into_owned(),
        Err(e) => format!("(error: {e})"),
    }
}

/// The last whole lines of `log` within `lines` lines and `bytes` bytes.
pub fn tail_only(log: &[u8], lines: usize, bytes: usize) -> String {
    let text = String::from_utf8_lossy(log);
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let mut used = 0;
    let mut from = all.len();
    while from > 0 && all.len() - from < lines {
        let len = all[from - 1].len();
        if used + len > bytes {
            break;
        }
        used += len;
        from -= 1;
    }
    all[from..].concat()
}

/// The first whole lines of `log` within `lines` lines and `bytes` bytes.
pub fn head_only(log: &[u8], lines: usize, bytes: usize) -> String {
    let text = String::from_utf8_lossy(log);
    let mut used = 0;
    let mut out = String::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i >= lines || used + line.len() > bytes {
            break;
        }
        used += line.len();
        out.push_str(line);
    }
    out
}

/// `text` without ANSI escape sequences, with every run of white space
/// (`\r` included) one space.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut space = false;
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            match chars.peek() {
                Some('[') => {
                    chars.next();
                    // Parameters and intermediates, then one final byte.
                    for d in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&d) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    // An OSC string ends at BEL or ST.
                    while let Some(d) = chars.next() {
                        if d == '\u{7}' {
                            break;
                        }
                        if d == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            }
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

/// How much of a failure a preview shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Every labeled substring.
    Fully,
    /// Some.
    Partly,
    /// None.
    None,
}

/// How much of `must_keep` (normalised) `preview` shows.
pub fn shown(preview: &str, must_keep: &[String]) -> Shown {
    let preview = normalise(preview);
    let found = must_keep
        .iter()
        .filter(|k| preview.contains(&normalise(k)))
        .count();
    match found {
        n if n == must_keep.len() => Shown::Fully,
        0 => Shown::None,
        _ => Shown::Partly,
    }
}

/// One labeled log.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its name in the manifest.
    pub name: String,
    /// Its ecosystem, when the manifest says.
    pub ecosystem: String,
    /// Its bytes.
    pub log: Vec<u8>,
    /// The labeled substrings.
    pub must_keep: Vec<String>,
}

/// The labeled logs of the corpus at `dir` (`tests/corpus`): every manifest
/// entry with a non-empty `must_keep`.
pub fn load(dir: &Path) -> Result<Vec<Case>, String> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let logs = manifest
        .get("logs")
        .and_then(|l| l.as_object())
        .ok_or_else(|| format!("{}: no \"logs\" object", path.display()))?;
    let mut cases = Vec::new();
    for (name, entry) in logs {
        let must_keep: Vec<String> = entry
            .get("must_keep")
            .and_then(|m| m.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if must_keep.is_empty() {
            continue;
        }
        let file = entry
            .get("file")
            .and_then(|f| f.as_str())
            .ok_or_else(|| format!("{name}: no \"file\""))?;
        let log = std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
        cases.push(Case {
            name: name.clone(),
            ecosystem: entry
                .get("ecosystem")
                .and_then(|e| e.as_str())
                .unwrap_or("")
                .to_owned(),
            log,
            must_keep,
        });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

/// Counts of fully / partly / not shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Logs whose failure is shown fully.
    pub fully: usize,
    /// Partly.
    pub partly: usize,
    /// Not at all.
    pub none: usize,
}

impl Tally {
    fn add(&mut self, s: Shown) {
        match s {
            Shown::Fully => self.fully += 1,
            Shown::Partly => self.partly += 1,
            Shown::None => self.none += 1,
        }
    }

    /// Logs counted.
    pub fn total(&self) -> usize {
        self.fully + self.partly + self.none
    }

    /// `n` as a percentage of the logs counted.
    pub fn pct(&self, n: usize) -> f64 {
        if self.total() == 0 {
            0.0
        } else {
            100.0 * n as f64 / self.total() as f64
        }
    }
}

/// A budget: (lines, bytes).
pub type Budget = (usize, usize);

/// The measurement: per budget, per strategy, the tally over the cut logs
/// (those larger than the budget: a log that fits is shown whole by all).
#[derive(Debug, Clone)]
pub struct Quality {
    /// `(budget, [(strategy, tally)])`.
    pub rows: Vec<(Budget, Vec<(Strategy, Tally)>)>,
    /// Per budget, the logs `run` shows less of than tail only.
    pub behind_tail: Vec<(Budget, Vec<String>)>,
}

/// Whether `log` must be cut at `lines` / `bytes`.
fn is_cut(log: &[u8], lines: usize, bytes: usize) -> bool {
    log.len() > bytes || memchr::memchr_iter(b'\n', log).count() > lines
}

fn rank(s: Shown) -> u8 {
    match s {
        Shown::Fully => 2,
        Shown::Partly => 1,
        Shown::None => 0,
    }
}

/// Measures every strategy on `cases`.
pub fn measure(cases: &[Case]) -> Quality {
    let mut rows = Vec::new();
    let mut behind_tail = Vec::new();
    for &(lines, bytes) in &BUDGETS {
        let mut tallies: Vec<(Strategy, Tally)> = Strategy::ALL
            .iter()
            .map(|&s| (s, Tally::default()))
            .collect();
        let mut behind = Vec::new();
        for case in cases.iter().filter(|c| is_cut(&c.log, lines, bytes)) {
            let mut got = Vec::new();
            for (strategy, tally) in &mut tallies {
                let s = shown(&strategy.preview(&case.log, lines, bytes), &case.must_keep);
                tally.add(s);
                got.push((*strategy, s));
            }
            let of = |w: Strategy| got.iter().find(|(s, _)| *s == w).map(|(_, s)| rank(*s));
            if of(Strategy::Run) < of(Strategy::TailOnly) {
                behind.push(case.name.clone());
            }
        }
        rows.push(((lines, bytes), tallies));
        behind_tail.push(((lines, bytes), behind));
    }
    Quality { rows, behind_tail }
}

/// One target of `run`'s previews at a budget, and whether it holds.
#[derive(Debug, Clone)]
pub struct Target {
    /// The budget.
    pub budget: (usize, usize),
    /// What is required.
    pub what: String,
    /// What was measured.
    pub measured: String,
    /// Whether it holds.
    pub met: bool,
}

/// The targets: at each budget, `run`'s previews show the failure fully in
/// at least 15 points more logs than tail only, show none of it in at most
/// half as many, and never show it fully in fewer than head + tail.
pub fn targets(q: &Quality) -> Vec<Target> {
    let mut out = Vec::new();
    for (budget, tallies) in &q.rows {
        let get = |w: Strategy| {
            tallies
                .iter()
                .find(|(s, _)| *s == w)
                .map(|(_, t)| *t)
                .unwrap_or_default()
        };
        let (run, tail, ht) = (
            get(Strategy::Run),
            get(Strategy::TailOnly),
            get(Strategy::HeadTail),
        );
        let mut target = |what: &str, measured: String, met: bool| {
            out.push(Target {
                budget: *budget,
                what: what.into(),
                measured,
                met,
            });
        };
        let (run_fully, tail_fully, ht_fully) =
            (run.pct(run.fully), tail.pct(tail.fully), ht.pct(ht.fully));
        let (run_none, tail_none) = (run.pct(run.none), tail.pct(tail.none));
        target(
            "fully ≥ tail only's + 15 points",
            format!("{run_fully:.0} % vs {tail_fully:.0} % + 15"),
            run_fully >= tail_fully + 15.0,
        );
        target(
            "none ≤ half of tail only's",
            format!("{run_none:.0} % vs {tail_none:.0} % / 2"),
            run_none <= tail_none / 2.0,
        );
        target(
            "fully ≥ head + tail's",
            format!("{run_fully:.0} % vs {ht_fully:.0} %"),
            run_fully >= ht_fully,
        );
    }
    out
}

/// The markdown table and the targets.
pub fn report(q: &Quality, cases: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Preview quality on {cases} labeled real failures (tests/corpus); \
         counted over the logs each budget cuts."
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| budget | strategy | logs | fully shown | partly | none |"
    );
    let _ = writeln!(s, "|---|---|--:|--:|--:|--:|");
    for ((lines, bytes), tallies) in &q.rows {
        for (i, (strategy, t)) in tallies.iter().enumerate() {
            let budget = if i == 0 {
                format!("{lines} lines / {} KiB", bytes / 1024)
            } else {
                String::new()
            };
            let bold = |x: String| {
                if *strategy == Strategy::Run {
                    format!("**{x}**")
                } else {
                    x
                }
            };
            let _ = writeln!(
                s,
                "| {budget} | {} | {} | {} | {} | {} |",
                strategy.name(),
                t.total(),
                bold(format!("{:.0} %", t.pct(t.fully))),
                format_args!("{:.0} %", t.pct(t.partly)),
                bold(format!("{:.0} %", t.pct(t.none))),
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| budget | target of `run`'s previews | measured | met |"
    );
    let _ = writeln!(s, "|---|---|---|---|");
    for t in targets(q) {
        let _ = writeln!(
            s,
            "| {} / {} KiB | {} | {} | {} |",
            t.budget.0,
            t.budget.1 / 1024,
            t.what,
            t.measured,
            if t.met { "yes" } else { "**no**" }
        );
    }
    for ((lines, bytes), names) in &q.behind_tail {
        if !names.is_empty() {
            let _ = writeln!(
                s,
                "\nAt {lines} / {} KiB, `run` shows less than tail only of: {}",
                bytes / 1024,
                names.join(", ")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_drops_escapes_and_folds_space() {
        assert_eq!(
            normalise("\u{1b}[31merror\u{1b}[0m:\r\n  x\t y"),
            "error: x y"
        );
        assert_eq!(normalise("\u{1b}]0;title\u{7}a"), "a");
    }

    #[test]
    fn shown_counts_substrings() {
        let keep = vec!["a b".to_owned(), "c".to_owned()];
        assert_eq!(shown("x a  b c", &keep), Shown::Fully);
        assert_eq!(shown("x a\r\nb", &keep), Shown::Partly);
        assert_eq!(shown("nothing", &keep), Shown::None);
    }

    #[test]
    fn tail_and_head_take_whole_lines_within_both_limits() {
        let log = b"1\n22\n333\n4444\n";
        assert_eq!(tail_only(log, 2, 100), "333\n4444\n");
        assert_eq!(tail_only(log, 9, 9), "333\n4444\n");
        assert_eq!(head_only(log, 2, 100), "1\n22\n");
        assert_eq!(head_only(log, 9, 5), "1\n22\n");
    }
}
