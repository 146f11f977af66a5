//! Lines that matter, kept from the omitted middle: the patterns, the
//! matches a bounder remembers in bounded memory, and the kept section.
//! The rules are in `docs/preview.md` ("Kept lines").

use std::collections::VecDeque;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::error::Error;

use super::limits::Limits;
use super::plan::MIN_PARTIAL;

/// Bytes of each line the patterns are matched against (its start): a
/// longer line is matched on these only, so matching is linear in the input
/// and needs no more memory whatever a line's length.
pub(crate) const SCAN_BYTES: usize = 4096;

/// The largest compiled program of a set of patterns (bytes): a pattern
/// past it is refused.
const SIZE_LIMIT: usize = 1 << 20;

/// The longest pattern accepted, in bytes.
const MAX_PATTERN: usize = 1024;

/// Which lines a preview keeps when they fall in its omitted middle:
/// regular expressions ([`regex`] syntax, matched on a line's bytes without
/// its `\n` or a `\r` before it, linear in the input whatever the pattern).
///
/// Off by default ([`Keep::none`]). [`Keep::defaults`] holds
/// [`Keep::DEFAULT_PATTERNS`], the common shapes of failure across test
/// runners, compilers, package managers, shells and Python, each documented
/// in `docs/preview.md` with what it must not match.
///
/// ```
/// use dory_wire::preview::{Keep, SpillOutcome, StreamingBounder};
///
/// let mut bounder = StreamingBounder::new(12, 600).with_keep(Keep::defaults());
/// for i in 0..500 {
///     bounder.push(format!("test case_{i} ... ok\n").as_bytes());
///     if i == 250 {
///         bounder.push(b"test case_x ... FAILED\n");
///     }
/// }
/// let preview = bounder.finish()?.render(SpillOutcome::NotSaved, None);
/// assert!(preview.text.contains("\n252:test case_x ... FAILED\n"));
/// assert!(preview.text.contains("[... kept 1 omitted line matching the keep patterns ...]"));
/// assert!(Keep::patterns(["("]).is_err());
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct Keep {
    set: Option<Arc<Set>>,
}

struct Set {
    patterns: Vec<String>,
    regex: regex::bytes::Regex,
    /// The patterns as one extended regular expression for `grep -E`.
    grep: String,
}

impl Keep {
    /// The default patterns, in the order of the table in `docs/preview.md`.
    /// Each is written in the syntax common to [`regex`] and POSIX extended
    /// regular expressions, so that `grep -n -E` finds the same lines.
    pub const DEFAULT_PATTERNS: &'static [&'static str] = &[
        // pytest: the short summary's failed and erroring tests.
        "^(FAILED|ERROR) [^ ]",
        // pytest -v: a failed or erroring test's progress line.
        "^[^ ]+::[^ ]+ (FAILED|ERROR)( |$)",
        // pytest: the assertion detail lines.
        "^E   ",
        // Rust: a panic (cargo test, a crashed binary).
        "panicked at",
        // cargo test: one failed test.
        "^test .* \\.\\.\\. FAILED$",
        // go test: a failed test or subtest.
        "^[[:space:]]*--- FAIL: ",
        // jest: a failed test, and the heading of its failure.
        "^[[:space:]]*(✕|●) ",
        // rustc and cargo: errors, with or without a code.
        "^error(\\[E[0-9]+])?: ",
        // tsc: a type error.
        "error TS[0-9]+: ",
        // gcc and clang: an error at a location.
        ": (fatal )?error: ",
        // npm: errors, old and new style.
        "^npm (ERR!|error) ",
        // pip and others: an error line.
        "^ERROR: ",
        // git, PostgreSQL and others: a fatal error.
        "^(fatal|FATAL): ",
        // shells: a command that is not there.
        "command not found",
        // shells and tools: a missing file.
        "No such file or directory",
        // shells and tools: a refused access.
        "Permission denied",
        // Python: the start of a traceback.
        "^Traceback \\(most recent call last\\):",
        // Python: the traceback's last line (and JavaScript's `Error: …`).
        "^([A-Za-z_][A-Za-z0-9_.]*)?(Error|Exception)(: |$)",
    ];

    /// No kept lines (the default).
    pub fn none() -> Keep {
        Keep { set: None }
    }

    /// [`Keep::DEFAULT_PATTERNS`].
    pub fn defaults() -> Keep {
        // Compiled once. They compile (a unit test checks it); `none` is
        // only a fallback.
        static DEFAULTS: std::sync::OnceLock<Keep> = std::sync::OnceLock::new();
        DEFAULTS
            .get_or_init(|| {
                Keep::patterns(Keep::DEFAULT_PATTERNS.iter().copied()).unwrap_or_default()
            })
            .clone()
    }

    /// These patterns; none at all is [`Keep::none`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (argument `keep`) when a pattern is empty,
    /// longer than 1024 bytes, holds a control character (it would break the
    /// notice's line), is not a valid regular expression, or the patterns
    /// compile to more than 1 MiB.
    pub fn patterns<I, S>(patterns: I) -> Result<Keep, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let patterns: Vec<String> = patterns
            .into_iter()
            .map(|p| p.as_ref().to_owned())
            .collect();
        if patterns.is_empty() {
            return Ok(Keep::none());
        }
        let bad = |reason: String| Error::InvalidArgument {
            argument: "keep".to_owned(),
            reason,
        };
        for p in &patterns {
            if p.is_empty() {
                return Err(bad(
                    "a keep pattern is empty (it would keep every line)".into()
                ));
            }
            if p.len() > MAX_PATTERN {
                return Err(bad(format!(
                    "a keep pattern is {} bytes long, more than {MAX_PATTERN}",
                    p.len()
                )));
            }
            if p.chars().any(char::is_control) {
                return Err(bad(format!(
                    "the keep pattern {p:?} holds a control character"
                )));
            }
            build(p).map_err(|e| bad(format!("the keep pattern {p:?} is invalid: {e}")))?;
        }
        let (joined, grep) = if patterns.len() == 1 {
            (patterns[0].clone(), patterns[0].clone())
        } else {
            let groups: Vec<String> = patterns.iter().map(|p| format!("({p})")).collect();
            (
                patterns
                    .iter()
                    .map(|p| format!("(?:{p})"))
                    .collect::<Vec<_>>()
                    .join("|"),
                groups.join("|"),
            )
        };
        let regex = build(&joined).map_err(|e| bad(format!("the keep patterns: {e}")))?;
        Ok(Keep {
            set: Some(Arc::new(Set {
                patterns,
                regex,
                grep,
            })),
        })
    }

    /// Whether no line is kept.
    pub fn is_none(&self) -> bool {
        self.set.is_none()
    }

    /// The patterns (empty for [`Keep::none`]).
    pub fn as_slice(&self) -> &[String] {
        self.set.as_deref().map_or(&[], |s| &s.patterns)
    }

    /// Whether `line` (without its line end) matches, on its first
    /// [`SCAN_BYTES`].
    pub(crate) fn is_match(&self, line: &[u8]) -> bool {
        self.set.as_deref().is_some_and(|s| {
            let line = &line[..line.len().min(SCAN_BYTES)];
            s.regex.is_match(line)
        })
    }

    /// The patterns as one `grep -E` expression.
    fn grep(&self) -> &str {
        self.set.as_deref().map_or("", |s| &s.grep)
    }
}

fn build(pattern: &str) -> Result<regex::bytes::Regex, regex::Error> {
    regex::bytes::RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
}

impl fmt::Debug for Keep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Keep").field(&self.as_slice()).finish()
    }
}

impl PartialEq for Keep {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Keep {}

impl Hash for Keep {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

/// One remembered matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// 1-based line number.
    line: u64,
    /// The line's first bytes.
    text: Vec<u8>,
}

/// The matching lines of one input, in memory bounded by the limits: the
/// first ones (a prefix of all matches) and the last ones, and their count.
///
/// Every match in the lines a preview shows whole is remembered: a head or
/// tail shows at most `min(max_lines, max_bytes)` whole lines of at most
/// `max_bytes` bytes, and each store holds more than that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Matches {
    keep: Keep,
    total: u64,
    first: Vec<Entry>,
    first_bytes: usize,
    first_full: bool,
    last: VecDeque<Entry>,
    last_bytes: usize,
    max_entries: usize,
    max_bytes: usize,
    text_cap: usize,
    /// The line being read: its number and first bytes, and whether any.
    line: u64,
    buf: Vec<u8>,
    open: bool,
}

impl Matches {
    pub(crate) fn new(keep: Keep, limits: Limits) -> Self {
        let text_cap = (limits.max_bytes() / 4).saturating_add(4).min(SCAN_BYTES);
        Matches {
            keep,
            total: 0,
            first: Vec::new(),
            first_bytes: 0,
            first_full: false,
            last: VecDeque::new(),
            last_bytes: 0,
            max_entries: limits
                .max_lines()
                .min(limits.max_bytes())
                .saturating_add(2)
                .saturating_mul(2),
            max_bytes: limits
                .max_bytes()
                .saturating_mul(2)
                .saturating_add(text_cap),
            text_cap,
            line: 1,
            buf: Vec::new(),
            open: false,
        }
    }

    /// Bytes of buffer held.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.buf.capacity()
            + self.first_bytes
            + self.last_bytes
            + (self.first.capacity() + self.last.capacity()) * std::mem::size_of::<Entry>()
    }

    /// Reads more of the (rendered) input.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let nl = memchr::memchr(b'\n', bytes);
            let part = &bytes[..nl.unwrap_or(bytes.len())];
            let room = SCAN_BYTES.saturating_sub(self.buf.len()).min(part.len());
            self.buf.extend_from_slice(&part[..room]);
            self.open |= !part.is_empty();
            match nl {
                Some(i) => {
                    self.end_line();
                    bytes = &bytes[i + 1..];
                }
                None => break,
            }
        }
    }

    /// Ends the input (a last line without `\n`).
    pub(crate) fn finish(&mut self) {
        if self.open {
            self.end_line();
        }
    }

    fn end_line(&mut self) {
        let mut line = &self.buf[..];
        if line.len() < SCAN_BYTES {
            line = line.strip_suffix(b"\r").unwrap_or(line);
        }
        if self.keep.is_match(line) {
            self.record(line.len().min(self.text_cap));
        }
        self.buf.clear();
        self.open = false;
        self.line += 1;
    }

    fn record(&mut self, len: usize) {
        self.total += 1;
        let entry = Entry {
            line: self.line,
            text: self.buf[..len].to_vec(),
        };
        if !self.first_full {
            if self.first.len() < self.max_entries && self.first_bytes + len <= self.max_bytes {
                self.first.push(entry.clone());
                self.first_bytes += len;
            } else {
                self.first_full = true;
            }
        }
        self.last_bytes += len;
        self.last.push_back(entry);
        while self.last.len() > self.max_entries || self.last_bytes > self.max_bytes {
            match self.last.pop_front() {
                Some(e) => self.last_bytes -= e.text.len(),
                None => break,
            }
        }
    }

    /// The remembered matches, each once, by line.
    fn entries(&self) -> Vec<&Entry> {
        let mut all: Vec<&Entry> = self.first.iter().chain(self.last.iter()).collect();
        all.sort_by_key(|e| e.line);
        all.dedup_by_key(|e| e.line);
        all
    }

    /// The kept section for a preview whose omitted lines are `first..=last`,
    /// within `max_lines` lines and `max_bytes` bytes (each line with its
    /// `\n`), naming `path` in the `grep` command when given: its text and
    /// lines, or `None` when no match is omitted or none fits.
    pub(crate) fn section(
        &self,
        (first, last): (u64, u64),
        path: Option<&str>,
        max_lines: usize,
        max_bytes: usize,
    ) -> Option<(String, usize)> {
        let entries = self.entries();
        let outside = entries
            .iter()
            .filter(|e| e.line < first || e.line > last)
            .count() as u64;
        let hidden = self.total.checked_sub(outside)?;
        let inside: Vec<&Entry> = entries
            .into_iter()
            .filter(|e| (first..=last).contains(&e.line))
            .collect();
        if hidden == 0 || inside.is_empty() || max_lines < 2 {
            return None;
        }
        // With the command while its longest header takes at most half of
        // the section, else without.
        let mut pointer = path.map(|p| (self.keep.grep(), p));
        if header(hidden, hidden, pointer).len() + 1 > max_bytes / 2 {
            pointer = None;
        }
        let base = header(hidden, 0, pointer).len() + 1;
        let mut room = max_bytes.checked_sub(base)?;
        let line_cap = (max_bytes / 4).max(4 * MIN_PARTIAL);
        let mut rows = max_lines - 1;
        // First and last alternately, like a head and a tail.
        let (mut lo, mut hi) = (0usize, inside.len());
        let mut chosen: Vec<(u64, String)> = Vec::new();
        let mut from_front = true;
        while lo < hi && rows > 0 {
            let entry = if from_front {
                inside[lo]
            } else {
                inside[hi - 1]
            };
            let row = row(entry, line_cap);
            if row.len() + 1 > room {
                break;
            }
            room -= row.len() + 1;
            rows -= 1;
            chosen.push((entry.line, row));
            if from_front {
                lo += 1;
            } else {
                hi -= 1;
            }
            from_front = !from_front;
        }
        // The header names the hidden ones when some are: drop the last
        // chosen rows until it fits beside them.
        while !chosen.is_empty() {
            let kept = chosen.len() as u64;
            let rows_len: usize = chosen.iter().map(|c| c.1.len() + 1).sum();
            if header(kept, hidden - kept, pointer).len() + 1 + rows_len <= max_bytes {
                break;
            }
            chosen.pop();
        }
        if chosen.is_empty() {
            return None;
        }
        chosen.sort_by_key(|c| c.0);
        let kept = chosen.len() as u64;
        let mut text = header(kept, hidden - kept, pointer);
        text.push('\n');
        for (_, row) in &chosen {
            text.push_str(row);
            text.push('\n');
        }
        Some((text, 1 + chosen.len()))
    }
}

/// One kept line: `N:text`, the text rendered as UTF-8 (U+FFFD) and cut
/// between characters to `cap` bytes in all, ending `…` when cut.
fn row(entry: &Entry, cap: usize) -> String {
    let text = String::from_utf8_lossy(&entry.text);
    let mut out = format!("{}:", entry.line);
    let room = cap.saturating_sub(out.len());
    if text.len() <= room {
        out.push_str(&text);
    } else {
        let mut at = room.saturating_sub('…'.len_utf8());
        while at > 0 && !text.is_char_boundary(at) {
            at -= 1;
        }
        out.push_str(&text[..at]);
        out.push('…');
    }
    out
}

/// The section's header: `[... kept K omitted lines matching the keep
/// patterns, H more hidden; all matches: grep -n -E 'P' PATH ...]`.
fn header(kept: u64, more: u64, pointer: Option<(&str, &str)>) -> String {
    let lines = if kept == 1 { "line" } else { "lines" };
    let mut out = format!("[... kept {kept} omitted {lines} matching the keep patterns");
    if more > 0 {
        out.push_str(&format!(", {more} more hidden"));
    }
    if let Some((pattern, path)) = pointer {
        out.push_str("; all matches: grep -n -E ");
        push_quoted(&mut out, pattern);
        out.push(' ');
        super::notice::push_shell_path(&mut out, path);
    }
    out.push_str(" ...]");
    out
}

/// `text` as one single-quoted shell word (`'` written `'\''`).
fn push_quoted(out: &mut String, text: &str) {
    out.push('\'');
    out.push_str(&text.replace('\'', "'\\''"));
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each default pattern, lines it must match and lines it must not.
    const CASES: &[(&str, &[&str], &[&str])] = &[
        (
            "^(FAILED|ERROR) [^ ]",
            &[
                "FAILED tests/test_a.py::test_x - assert 1 == 2",
                "ERROR tests/test_b.py - ImportError: no module",
            ],
            &["0 FAILED", "FAILED", "ERRORS: 0", "tests FAILED here"],
        ),
        (
            "^[^ ]+::[^ ]+ (FAILED|ERROR)( |$)",
            &[
                "tests/test_a.py::test_x FAILED                  [ 39%]",
                "tests/test_b.py::TestC::test_y ERROR",
            ],
            &[
                "tests/test_a.py::test_x PASSED                  [ 38%]",
                "tests/test_a.py::test_FAILED_case PASSED",
                "FAILED tests/test_a.py::test_x - assert 1 == 2",
            ],
        ),
        (
            "^E   ",
            &["E       assert 1 == 2", "E   AssertionError"],
            &["E  two spaces", "Error: x", "  E   indented"],
        ),
        (
            "panicked at",
            &["thread 'main' panicked at src/main.rs:2:5:"],
            &["the test panicked", "panic at the disco"],
        ),
        (
            "^test .* \\.\\.\\. FAILED$",
            &["test tests::it_works ... FAILED"],
            &[
                "test tests::it_works ... ok",
                "test result: FAILED. 1 passed; 1 failed",
            ],
        ),
        (
            "^[[:space:]]*--- FAIL: ",
            &[
                "--- FAIL: TestAdd (0.00s)",
                "    --- FAIL: TestAdd/neg (0.00s)",
            ],
            &["--- PASS: TestAdd (0.00s)", "FAIL\tpkg 0.01s"],
        ),
        (
            "^[[:space:]]*(✕|●) ",
            &["    ✕ adds 1 + 2 (3 ms)", "  ● math › adds"],
            &["    ✓ adds 1 + 2 (3 ms)", "x ✕ y"],
        ),
        (
            "^error(\\[E[0-9]+])?: ",
            &[
                "error[E0308]: mismatched types",
                "error: could not compile `x`",
            ],
            &[
                "0 errors",
                "error_handler.py",
                "warning: unused variable",
                "errors: 0",
                "  error: indented",
            ],
        ),
        (
            "error TS[0-9]+: ",
            &["src/a.ts(3,5): error TS2322: Type 'string' is not assignable"],
            &["Found 0 errors.", "errorTS2322"],
        ),
        (
            ": (fatal )?error: ",
            &[
                "main.c:3:5: error: expected ';'",
                "main.c:1:10: fatal error: x.h: No such file",
            ],
            &["main.c:3:5: warning: unused", "no error: fine"],
        ),
        (
            "^npm (ERR!|error) ",
            &["npm ERR! code ENOENT", "npm error code E404"],
            &["npm WARN deprecated", "npm notice"],
        ),
        (
            "^ERROR: ",
            &["ERROR: Could not find a version that satisfies the requirement x"],
            &["ERRORS: 0", "NO ERROR: ok", "ERROR:x"],
        ),
        (
            "^(fatal|FATAL): ",
            &[
                "fatal: not a git repository (or any of the parent directories): .git",
                "FATAL:  password authentication failed for user \"app\"",
            ],
            &[
                "non-fatal: retrying",
                "  fatal: indented",
                "FATALITY: x",
                "Fatal: mixed case",
                "fatal:no space",
            ],
        ),
        (
            "command not found",
            &[
                "bash: foo: command not found",
                "zsh: command not found: foo",
            ],
            &["command found", "commands not found in cache"],
        ),
        (
            "No such file or directory",
            &["cat: x: No such file or directory"],
            &["no such file or directory (lowercase)"],
        ),
        (
            "Permission denied",
            &["bash: ./run.sh: Permission denied"],
            &["permission granted", "permissions denied"],
        ),
        (
            "^Traceback \\(most recent call last\\):",
            &["Traceback (most recent call last):"],
            &["  Traceback (most recent call last):", "Traceback"],
        ),
        (
            "^([A-Za-z_][A-Za-z0-9_.]*)?(Error|Exception)(: |$)",
            &[
                "ValueError: invalid literal",
                "requests.exceptions.HTTPError: 404",
                "Exception: boom",
                "KeyError",
                "Error: ENOENT",
            ],
            &[
                "error_handler.py",
                "errors: 0",
                "0 errors",
                "  File \"x.py\", line 3",
                "ValueErrors: 2",
                "Errors found",
            ],
        ),
    ];

    #[test]
    fn every_default_pattern_matches_and_does_not() {
        assert_eq!(CASES.len(), Keep::DEFAULT_PATTERNS.len());
        for (pattern, (listed, yes, no)) in Keep::DEFAULT_PATTERNS.iter().zip(CASES) {
            assert_eq!(pattern, listed);
            let keep = Keep::patterns([pattern]).expect("a default compiles");
            for line in *yes {
                assert!(
                    keep.is_match(line.as_bytes()),
                    "{pattern} must match {line:?}"
                );
            }
            for line in *no {
                assert!(
                    !keep.is_match(line.as_bytes()),
                    "{pattern} must not match {line:?}"
                );
            }
        }
        let all = Keep::defaults();
        assert_eq!(all.as_slice().len(), Keep::DEFAULT_PATTERNS.len());
        for (_, yes, _) in CASES {
            for line in *yes {
                assert!(
                    all.is_match(line.as_bytes()),
                    "defaults must match {line:?}"
                );
            }
        }
        for line in [
            "warning: unused",
            "0 errors",
            "errors: 0",
            "error_handler.py",
            "ok",
        ] {
            assert!(
                !all.is_match(line.as_bytes()),
                "defaults must not match {line:?}"
            );
        }
    }

    #[test]
    fn bad_patterns_are_the_keep_argument() {
        for bad in ["(", "", "a\nb", "[z-a]", &"a".repeat(2000)] {
            let e = Keep::patterns([bad]).unwrap_err();
            assert_eq!(e.code(), "invalid_argument", "{bad:?}");
            assert!(matches!(e, Error::InvalidArgument { ref argument, .. } if argument == "keep"));
        }
        // Too big once compiled.
        assert!(Keep::patterns(["\\w{1000}\\w{1000}"]).is_err());
        assert!(Keep::patterns(Vec::<String>::new()).unwrap().is_none());
        assert_eq!(Keep::none(), Keep::default());
        assert_ne!(Keep::defaults(), Keep::none());
    }

    #[test]
    fn the_grep_command_is_quoted() {
        let keep = Keep::patterns(["it's", "a|b"]).unwrap();
        assert_eq!(keep.grep(), "(it's)|(a|b)");
        let h = header(2, 3, Some((keep.grep(), "/tmp/x y.txt")));
        assert_eq!(
            h,
            "[... kept 2 omitted lines matching the keep patterns, 3 more hidden; all matches: grep -n -E '(it'\\''s)|(a|b)' '/tmp/x y.txt' ...]"
        );
        assert_eq!(
            header(1, 0, None),
            "[... kept 1 omitted line matching the keep patterns ...]"
        );
    }

    #[test]
    fn the_stores_stay_bounded_and_count_exactly() {
        let keep = Keep::patterns(["^hit"]).unwrap();
        let limits = Limits::new(10, 200);
        let mut m = Matches::new(keep, limits);
        for i in 0..100_000 {
            m.push(format!("hit {i} {}\nmiss\n", "x".repeat(i % 90)).as_bytes());
        }
        m.finish();
        assert_eq!(m.total, 100_000);
        assert!(m.retained_bytes() < 64 * 200, "{}", m.retained_bytes());
        assert_eq!(m.first[0].line, 1);
        assert_eq!(m.last.back().map(|e| e.line), Some(199_999));
        let (text, lines) = m.section((3, 199_998), None, 4, 200).unwrap();
        assert!(
            text.starts_with(
                "[... kept 3 omitted lines matching the keep patterns, 99995 more hidden ...]\n"
            ),
            "{text}"
        );
        assert_eq!(lines, 4);
        assert!(text.len() <= 200);
        assert!(text.contains("\n3:hit 1 x\n"));
    }
    /// Every match (line and text) of `m`, first and last stores merged.
    fn all(m: &Matches) -> (u64, Vec<(u64, Vec<u8>)>) {
        let mut v: Vec<(u64, Vec<u8>)> = m.first.iter().map(|e| (e.line, e.text.clone())).collect();
        v.extend(m.last.iter().map(|e| (e.line, e.text.clone())));
        v.sort();
        v.dedup();
        (m.total, v)
    }

    #[test]
    fn the_matches_are_the_rule_written_out_line_by_line() {
        // The remembered matches are those of the rule, written out line by
        // line, on hostile inputs split anywhere: `$` before `\r\n` and at
        // the 4096-byte cut, lone `\r`, words at line ends, empty lines, a
        // last line without `\n`, anchors and flags.
        let patterns: &[&[&str]] = &[
            Keep::DEFAULT_PATTERNS,
            &["^[^ ]+ FAILED$"],
            &["x$", "\\r$"],
            &["\\bend\\b", "^$"],
            &["[^a]+b"],
            &["(?i)error", "(?:warn|fail)ed"],
            &["(?-m)^only", "\\Atop"],
        ];
        let long = "y".repeat(SCAN_BYTES - 1);
        let pieces: &[&str] = &[
            "ok\n",
            "a b FAILED\n",
            "a b FAILED\r\n",
            "zx\r\n",
            "zx\r\r\n",
            "\n",
            "\r\n",
            "end\n",
            "the end\r\n",
            "bb\n",
            "ab\n",
            "a\rb\n",
            "ERROR: x\n",
            "warned\n",
            "only\n",
            "top\n",
            "test t ... FAILED\n",
            "E   assert\n",
            "--- FAIL: T\n",
        ];
        let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        for set in patterns {
            let keep = Keep::patterns(set.iter().copied()).unwrap();
            for _ in 0..60 {
                let mut input = String::new();
                for _ in 0..next(40) {
                    match next(12) {
                        0 => input.push_str(&format!("{long}x\r\n")),
                        1 => input.push_str(&format!("{long}\r\n")),
                        2 => input.push_str(&format!("{long}{long}x\n")),
                        _ => input.push_str(pieces[next(pieces.len())]),
                    }
                }
                if next(3) == 0 {
                    input.push_str("tail without end x");
                }
                let limits = Limits::new(400, 16384);
                let mut matches = Matches::new(keep.clone(), limits);
                let cut = next(input.len() + 1);
                matches.push(&input.as_bytes()[..cut]);
                matches.push(&input.as_bytes()[cut..]);
                matches.finish();
                // The rule, line by line, written out: each line's first
                // SCAN_BYTES, a `\r` before the `\n` dropped when shorter.
                let text_cap = matches.text_cap;
                let mut expected = Vec::new();
                let mut lines: Vec<&[u8]> = input.as_bytes().split(|&b| b == b'\n').collect();
                if input.is_empty() || input.ends_with('\n') {
                    lines.pop();
                }
                for (i, line) in lines.iter().enumerate() {
                    let mut line = &line[..line.len().min(SCAN_BYTES)];
                    if line.len() < SCAN_BYTES {
                        line = line.strip_suffix(b"\r").unwrap_or(line);
                    }
                    if keep.is_match(line) {
                        expected.push((i as u64 + 1, line[..line.len().min(text_cap)].to_vec()));
                    }
                }
                let got = all(&matches);
                assert!(
                    got == (expected.len() as u64, expected.clone()),
                    "{set:?} on {} bytes: {:?} != {:?}",
                    input.len(),
                    got.1.iter().map(|e| e.0).collect::<Vec<_>>(),
                    expected.iter().map(|e| e.0).collect::<Vec<_>>()
                );
                assert_eq!(matches.line, lines.len() as u64 + 1);
            }
        }
    }
}
