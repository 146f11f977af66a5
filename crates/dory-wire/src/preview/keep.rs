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
use super::prefilter::Prefilter;

/// Bytes of each line the patterns are matched against (its start): a
/// longer line is matched on these only, so matching is linear in the input
/// and needs no more memory whatever a line's length.
pub(crate) const SCAN_BYTES: usize = 4096;

/// The largest compiled program of a set of patterns (bytes): a pattern
/// past it is refused.
const SIZE_LIMIT: usize = 1 << 20;

/// The longest pattern accepted, in bytes.
const MAX_PATTERN: usize = 1024;

/// Lines after a kept line (not weak) remembered as its context: a tool
/// often prints a failure's explanation on the lines after its heading
/// (a panic's message, a compiler's, an assertion's diff). One line before
/// it is remembered too (go test prints a failure's message above its
/// `--- FAIL`).
pub(crate) const CONTEXT_AFTER: usize = 6;

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
    /// The patterns as one POSIX extended regular expression for `grep -E`
    /// (`crate::ere`), or why there is none.
    grep: Result<String, String>,
    /// Matching lines that are boilerplate or noise ([`Keep::WEAK_PATTERNS`]
    /// for the defaults): kept after every other matching line.
    weak: Option<regex::bytes::Regex>,
    /// The literals that find the only lines the patterns can match (none
    /// when a pattern needs no literal: every line is then matched).
    prefilter: Option<Prefilter>,
}

impl Keep {
    /// The default patterns, in the order of the table in `docs/preview.md`.
    /// Each is written in the syntax common to [`regex`] and POSIX extended
    /// regular expressions, so that `grep -n -E` finds the same lines.
    pub const DEFAULT_PATTERNS: &'static [&'static str] = &[
        // pytest: the short summary's failed and erroring tests (a test id with `::`, or a ` - ` reason; not a logger's `ERROR name: …`).
        "^(FAILED|ERROR) [^ ]+(::| - )",
        // pytest -v: a failed or erroring test's progress line.
        "^[^ ]+::[^ ]+ (FAILED|ERROR)( |$)",
        // pytest: the assertion detail lines.
        "^E   ",
        // pytest: a section header of a failure or an error (`____ test_x ____`).
        "^_{3,} [^ ].* _{3,}$",
        // unittest: a failed test's heading.
        "^(FAIL|ERROR): [A-Za-z_][A-Za-z0-9_]* \\(",
        // Rust: a panic (cargo test, a crashed binary).
        "panicked at",
        // cargo test: one failed test.
        "^test .* \\.\\.\\. FAILED$",
        // go test: a failed test or subtest.
        "^[[:space:]]*--- FAIL: ",
        // jest, vitest, mocha, eslint, uv, xcpretty: a failure's mark (✕ ● × ✗ ✖).
        "^[[:space:]]*(✕|●|×|✗|✖) ",
        // jest, vitest: a failed test file (`FAIL  path`).
        "^[[:space:]]*FAIL[[:space:]]+[^ ]",
        // mocha, PHPUnit, ExUnit, RSpec, ScalaTest's numbered failures (`1) …`).
        "^[[:space:]]*[0-9]+\\) [^ ]",
        // rustc and cargo: errors, with or without a code.
        "^error(\\[E[0-9]+\\])?: ",
        // tsc, the C# compiler and others: an error with a code (`error TS2322: `, `error CS0103: `).
        "error [A-Z]{2,}[0-9]+: ",
        // gcc, clang, GHC, mypy, and other compilers: an error at a location (`: error:` then a space or the line's end).
        ": (fatal )?error:( |$)",
        // go build, go vet: an error at a Go file's location.
        "^[^ ]+\\.go:[0-9]+:[0-9]+: ",
        // flake8, ruff, pycodestyle: a code at a location (`x.py:1:1: F401 …`).
        "^[^ ]+:[0-9]+:[0-9]+: [A-Z]+[0-9]+ ",
        // RuboCop: an offense (`file:line:col: C: …`).
        "^[^ ]+:[0-9]+:[0-9]+: [CEFW]: ",
        // ESLint's stylish format: an error row (`  3:7  error  …`).
        "^[[:space:]]+[0-9]+:[0-9]+[[:space:]]+error[[:space:]]",
        // markdownlint: a rule at a location (`README.md:3 MD022/…`).
        "^[^ ]+:[0-9]+(:[0-9]+)? (error )?MD[0-9]+",
        // Prettier --check: a file not formatted, and its summary.
        "^\\[(warn|error)\\] ",
        // Perl::Critic: a violation (`… at line 3, column 1.`).
        " at line [0-9]+, column [0-9]+\\.",
        // ShellCheck: a finding's heading and its code.
        "^(In [^ ]+ line [0-9]+:$|[[:space:]]*\\^-*\\^? SC[0-9]+ )",
        // npm: errors, old and new style.
        "^npm (ERR!|error) ",
        // yarn and others: an error sentence (`error Command failed …`).
        "^error [A-Z]",
        // pip and others: an error line.
        "^ERROR: ",
        // git, PostgreSQL and others: a fatal error.
        "^(fatal|FATAL): ",
        // Maven, sbt, scalac, Gradle's `[ERROR]` / `[error]` lines.
        "^\\[(ERROR|error)\\] ",
        // Gradle: a failed test (`Class > test FAILED`) and what went wrong.
        "( > .* FAILED$|^\\* What went wrong:$)",
        // ScalaTest: a failed test.
        "\\*\\*\\* FAILED \\*\\*\\*",
        // PHPUnit: an assertion's message.
        "Failed asserting that",
        // Xcode / XCTest: a failed assertion.
        "XCTAssert[A-Za-z]* failed",
        // Elixir: an exception's banner (`** (CompileError) …`).
        "\\*\\* \\([A-Za-z.]*(Error|Exception)\\)",
        // Erlang Common Test and EUnit: a failure.
        "(failed on line [0-9]+|\\*failed\\*|^[[:space:]]*Failed: [0-9]+\\.)",
        // TAP (prove, tape, node:test): a failed test and a failed script.
        "(^[[:space:]]*not ok [0-9]+|Dubious, test returned [0-9]+)",
        // minitest: a failure's heading and its test (`Class#test_x`).
        "(^[[:space:]]*(Failure|Error):$|^[A-Z][A-Za-z0-9_:]*#test_[A-Za-z0-9_?!]*)",
        // RSpec: a failure's first line and the command that reruns it.
        "(Failure/Error: |^rspec \\./[^ ]+:[0-9]+)",
        // Pester (PowerShell): a failed test (`[-] …`).
        "^[[:space:]]*\\[-\\] ",
        // PowerShell, CI runners and scripts: a command that failed with a code.
        "failed with exit code [0-9]+",
        // CMake and CTest: an error and a failed test.
        "(^CMake Error|\\((Failed|SEGFAULT|Timeout)\\)$|tests FAILED:$)",
        // R: an error, and a failed check.
        "(^Error in |^Execution halted|Running the tests in .* failed|^\\* checking .* \\.\\.\\. ERROR$)",
        // AddressSanitizer and the other sanitizers: the report and its summary.
        "(==[0-9]+==ERROR: |^SUMMARY: [A-Za-z]+Sanitizer)",
        // A crash: a segmentation fault, an abort, a core dump.
        "(Segmentation fault|core dumped|^Aborted$)",
        // Java: an uncaught exception and its causes.
        "^(Exception in thread |Caused by: )",
        // Lua: an error and its traceback.
        "(^lua[0-9.]*: |^stack traceback:$)",
        // make: a recipe that failed.
        "^make(\\[[0-9]+\\])?: \\*\\*\\* ",
        // shells: a command that is not there.
        "command not found",
        // shells and tools: a missing file.
        "No such file or directory",
        // shells and tools: a refused access.
        "Permission denied",
        // Python: the start of a traceback.
        "^Traceback \\(most recent call last\\):",
        // Python, JavaScript, Java and others: an exception or error line (`ValueError: …`, `AssertionError [ERR_ASSERTION]: …`, `java.lang.AssertionError: …`), indented or not.
        "^[[:space:]]*([A-Za-z_][A-Za-z0-9_.]*)?(Error|Exception)( \\[[A-Za-z_]+\\])?(: |$)",
    ];

    /// Matching lines that are boilerplate or repeat an error shown above
    /// them (npm's and Maven's trailers, make's recipe failure, a runner's
    /// "failed with exit code"): with [`Keep::defaults`], such a line is
    /// still kept, but after every other matching line, so that it never
    /// crowds a tool's own failure out of the kept section. Documented in
    /// `docs/preview.md` with what each must and must not match.
    pub const WEAK_PATTERNS: &'static [&'static str] = &[
        // npm's trailer: the code, errno, paths, the log's location.
        "^npm (ERR!|error) (code |errno |syscall |path |A complete log|Log files|[[:space:]]*$)",
        // Maven's trailer: the help lines after a failure.
        "^\\[ERROR\\] (->|Re-run Maven|To see the full|For more information|Failed to execute goal|[[:space:]]*$)",
        // make's recipe failure, which repeats the error above it.
        "^make(\\[[0-9]+\\])?: \\*\\*\\* ",
        // A command's generic failure, which repeats the error above it.
        "(failed with exit code [0-9]+|^error Command failed)",
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
                Keep::patterns(Keep::DEFAULT_PATTERNS.iter().copied())
                    .unwrap_or_default()
                    .with_weak(Keep::WEAK_PATTERNS)
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
        let joined = if patterns.len() == 1 {
            patterns[0].clone()
        } else {
            patterns
                .iter()
                .map(|p| format!("(?:{p})"))
                .collect::<Vec<_>>()
                .join("|")
        };
        let grep = grep_form(&patterns);
        let regex = build(&joined).map_err(|e| bad(format!("the keep patterns: {e}")))?;
        let prefilter = Prefilter::new(&patterns, build);
        Ok(Keep {
            set: Some(Arc::new(Set {
                patterns,
                regex,
                grep,
                weak: None,
                prefilter,
            })),
        })
    }

    /// These patterns, with matching lines that also match a pattern of
    /// `weak` ranked after all others in the kept section.
    fn with_weak(self, weak: &[&str]) -> Keep {
        let Some(set) = self.set else {
            return self;
        };
        let joined = weak
            .iter()
            .map(|p| format!("(?:{p})"))
            .collect::<Vec<_>>()
            .join("|");
        let weak = build(&joined).ok();
        Keep {
            set: Some(Arc::new(Set {
                patterns: set.patterns.clone(),
                regex: set.regex.clone(),
                grep: set.grep.clone(),
                weak,
                prefilter: set.prefilter.clone(),
            })),
        }
    }

    /// Whether a matching `line` is weak (boilerplate or noise).
    fn is_weak(&self, line: &[u8]) -> bool {
        self.set
            .as_deref()
            .and_then(|s| s.weak.as_ref())
            .is_some_and(|w| w.is_match(line))
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

    /// The literal prefilter, when every pattern has one.
    fn prefilter(&self) -> Option<&Prefilter> {
        self.set.as_deref().and_then(|s| s.prefilter.as_ref())
    }

    /// The patterns as one `grep -E` expression, or why there is none.
    fn grep(&self) -> Result<&str, &str> {
        match self.set.as_deref() {
            Some(s) => s.grep.as_deref().map_err(String::as_str),
            None => Ok(""),
        }
    }
}

/// The patterns as one `grep -E` expression: each written as a POSIX ERE
/// that selects the same lines (`crate::ere`), the one ERE or `(e1)|(e2)|…`;
/// or why there is none.
fn grep_form(patterns: &[String]) -> Result<String, String> {
    let eres = patterns
        .iter()
        .map(|p| crate::ere::translate(p, false).map(|e| e.text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|reason| format!("a keep pattern has {reason}"))?;
    Ok(if eres.len() == 1 {
        eres.concat()
    } else {
        eres.iter()
            .map(|e| format!("({e})"))
            .collect::<Vec<_>>()
            .join("|")
    })
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
    /// Boilerplate or noise: kept after the others.
    weak: bool,
    /// The line before it, when that line is not kept itself (first bytes).
    before: Option<Vec<u8>>,
    /// Up to [`CONTEXT_AFTER`] lines after it, none of them kept itself.
    after: Vec<Vec<u8>>,
}

impl Entry {
    /// Bytes of text held.
    fn bytes(&self) -> usize {
        self.text.len()
            + self.before.as_ref().map_or(0, Vec::len)
            + self.after.iter().map(Vec::len).sum::<usize>()
    }
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
    /// The keep patterns' prefilter (see [`Matches::push`]).
    prefilter: Option<Prefilter>,
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
    /// The previous line's first bytes, and whether it was kept.
    prev: Vec<u8>,
    prev_kept: bool,
    /// Lines still to remember as the last kept line's context.
    after_left: usize,
}

impl Matches {
    pub(crate) fn new(keep: Keep, limits: Limits) -> Self {
        let text_cap = (limits.max_bytes() / 4).saturating_add(4).min(SCAN_BYTES);
        Matches {
            prefilter: keep.prefilter().cloned(),
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
            prev: Vec::new(),
            prev_kept: false,
            after_left: 0,
        }
    }

    /// Bytes of buffer held.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.buf.capacity()
            + self.prev.capacity()
            + self.first_bytes
            + self.last_bytes
            + (self.first.capacity() + self.last.capacity()) * std::mem::size_of::<Entry>()
    }

    /// Reads more of the (rendered) input.
    ///
    /// With a prefilter, the lines that hold none of its literals are
    /// skipped whole (counted, the last one remembered as the line before
    /// the next): the patterns cannot match them. The others, the line
    /// begun in an earlier piece, the piece's first line (no `\n` before
    /// it here) and the context lines after a kept one are read one by one
    /// as without it, so the matches are the same.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        // The end of the piece's last whole line.
        let whole = match self.prefilter {
            Some(_) => memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1),
            None => 0,
        };
        let mut at = 0;
        while at < bytes.len() {
            if at > 0 && at < whole && !self.open && self.buf.is_empty() && self.after_left == 0 {
                // bytes[at - 1] is the `\n` that ends the line before.
                let next = self.prefilter.as_ref().map_or(at, |pre| {
                    pre.candidate(&bytes[at - 1..whole])
                        .map_or(whole, |i| at - 1 + i)
                });
                self.skip(&bytes[at..next]);
                at = next;
                if at == bytes.len() {
                    break;
                }
            }
            at = self.push_line(bytes, at);
        }
    }

    /// Reads the line at `bytes[at..]` (to its `\n`, or the piece's end);
    /// returns where the next starts.
    fn push_line(&mut self, bytes: &[u8], at: usize) -> usize {
        let rest = &bytes[at..];
        let nl = memchr::memchr(b'\n', rest);
        let part = &rest[..nl.unwrap_or(rest.len())];
        let room = SCAN_BYTES.saturating_sub(self.buf.len()).min(part.len());
        self.buf.extend_from_slice(&part[..room]);
        self.open |= !part.is_empty();
        match nl {
            Some(i) => {
                self.end_line();
                at + i + 1
            }
            None => bytes.len(),
        }
    }

    /// Skips whole `lines` (each with its `\n`) that no pattern matches,
    /// no kept line's context: as [`end_line`](Self::end_line) would.
    fn skip(&mut self, lines: &[u8]) {
        let Some(body) = lines.strip_suffix(b"\n") else {
            return;
        };
        let last = memchr::memrchr(b'\n', body).map_or(body, |i| &body[i + 1..]);
        self.line += count_newlines(lines);
        self.prev.clear();
        self.prev
            .extend_from_slice(&last[..last.len().min(SCAN_BYTES)]);
        self.prev_kept = false;
    }

    /// Ends the input (a last line without `\n`).
    pub(crate) fn finish(&mut self) {
        if self.open {
            self.end_line();
        }
    }

    fn end_line(&mut self) {
        let len = line_len(&self.buf);
        let line = &self.buf[..len];
        let kept = match &self.prefilter {
            Some(p) => p.is_match(line),
            None => self.keep.is_match(line),
        };
        if kept {
            self.record(len.min(self.text_cap));
        } else if self.after_left > 0 {
            self.after_left -= 1;
            self.add_after(len.min(self.text_cap));
        }
        // The line just read becomes the previous one (no copy).
        std::mem::swap(&mut self.buf, &mut self.prev);
        self.prev_kept = kept;
        self.buf.clear();
        self.open = false;
        self.line += 1;
    }

    fn record(&mut self, len: usize) {
        self.total += 1;
        let text = self.buf[..len].to_vec();
        let weak = self.keep.is_weak(&text);
        let before = (!weak && !self.prev_kept && self.line > 1).then(|| {
            let prev = &self.prev[..line_len(&self.prev)];
            prev[..prev.len().min(self.text_cap)].to_vec()
        });
        let entry = Entry {
            line: self.line,
            weak,
            text,
            before,
            after: Vec::new(),
        };
        self.after_left = if weak { 0 } else { CONTEXT_AFTER };
        let size = entry.bytes();
        if !self.first_full {
            if self.first.len() < self.max_entries && self.first_bytes + size <= self.max_bytes {
                self.first.push(entry.clone());
                self.first_bytes += size;
            } else {
                self.first_full = true;
            }
        }
        self.last_bytes += size;
        self.last.push_back(entry);
        self.evict();
    }

    /// The line being read, as context after the last kept line.
    fn add_after(&mut self, len: usize) {
        let text = &self.buf[..len];
        // The kept line is as many lines above as context lines taken.
        let anchor = self.line - (CONTEXT_AFTER - self.after_left) as u64;
        if let Some(e) = self.first.last_mut() {
            if e.line == anchor && !self.first_full && self.first_bytes + len <= self.max_bytes {
                e.after.push(text.to_vec());
                self.first_bytes += len;
            }
        }
        if let Some(e) = self.last.back_mut() {
            if e.line == anchor {
                e.after.push(text.to_vec());
                self.last_bytes += len;
            }
        }
        self.evict();
    }

    /// Drops the oldest of the last matches past the store's bounds.
    fn evict(&mut self) {
        while self.last.len() > self.max_entries || self.last_bytes > self.max_bytes {
            match self.last.pop_front() {
                Some(e) => self.last_bytes -= e.bytes(),
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
        range: (u64, u64),
        path: Option<&str>,
        max_lines: usize,
        max_bytes: usize,
    ) -> Option<(String, usize)> {
        self.section_capped(range, path, max_lines, max_bytes, max_bytes)
    }

    /// [`section`](Self::section) in `max_bytes`, with its rows' length and
    /// whether it names the `grep` command decided as for a section of
    /// `room` bytes: a section chosen again in the room a larger one took
    /// keeps the larger one's rows and pointer.
    pub(crate) fn section_capped(
        &self,
        (first, last): (u64, u64),
        path: Option<&str>,
        max_lines: usize,
        max_bytes: usize,
        room_judged: usize,
    ) -> Option<(String, usize)> {
        let line_cap = (room_judged / 4).max(4 * MIN_PARTIAL);
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
        if header(hidden, hidden, pointer).len() + 1 > room_judged / 2 {
            pointer = None;
        }
        let base = header(hidden, 0, pointer).len() + 1;
        let mut room = max_bytes.checked_sub(base)?;
        let mut rows = max_lines - 1;
        // The same text kept more than once is one row, at its first line,
        // with its count; the strong rows are chosen first, then the weak
        // ones, each tier first and last alternately, like a head and a tail.
        let mut groups: Vec<(&Entry, u64)> = Vec::with_capacity(inside.len());
        {
            let mut seen: std::collections::HashMap<&[u8], usize> =
                std::collections::HashMap::with_capacity(inside.len());
            for e in &inside {
                match seen.get(e.text.as_slice()) {
                    Some(&i) => groups[i].1 += 1,
                    None => {
                        seen.insert(e.text.as_slice(), groups.len());
                        groups.push((e, 1));
                    }
                }
            }
        }
        // (first line, row, matches it stands for: 0 for a context line)
        let mut chosen: Vec<(u64, String, u64)> = Vec::new();
        // 1. The kept lines that are not weak.
        let strong: Vec<&(&Entry, u64)> = groups.iter().filter(|g| !g.0.weak).collect();
        let mut anchors = pick(&strong, line_cap, &mut chosen, &mut room, &mut rows);
        // 2. Their context, in line order, where it is omitted too.
        anchors.sort_by_key(|e| e.line);
        let mut taken: std::collections::HashSet<u64> = chosen.iter().map(|c| c.0).collect();
        'context: for e in &anchors {
            let before = e.before.as_ref().map(|t| (e.line.saturating_sub(1), t));
            let after = e
                .after
                .iter()
                .enumerate()
                .map(|(i, t)| (e.line + 1 + i as u64, t));
            for (n, text) in before.into_iter().chain(after) {
                if n < first || n > last || !taken.insert(n) {
                    continue;
                }
                let row = context_row(n, text, line_cap);
                if rows == 0 || row.len() + 1 > room {
                    break 'context;
                }
                room -= row.len() + 1;
                rows -= 1;
                chosen.push((n, row, 0));
            }
        }
        // 3. The weak ones, with the room left.
        let weak: Vec<&(&Entry, u64)> = groups.iter().filter(|g| g.0.weak).collect();
        pick(&weak, line_cap, &mut chosen, &mut room, &mut rows);
        // The header names the hidden ones when some are: drop the last
        // chosen rows until it fits beside them.
        let kept_of = |chosen: &[(u64, String, u64)]| chosen.iter().map(|c| c.2).sum::<u64>();
        while !chosen.is_empty() {
            let kept = kept_of(&chosen);
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
        let kept = kept_of(&chosen);
        let mut text = header(kept, hidden - kept, pointer);
        text.push('\n');
        for (_, row, _) in &chosen {
            text.push_str(row);
            text.push('\n');
        }
        Some((text, 1 + chosen.len()))
    }
}

/// Chooses rows of `tier` (first and last alternately, like a head and a
/// tail) while they fit in `room` bytes and `rows` lines; returns the
/// entries chosen.
fn pick<'e>(
    tier: &[&(&'e Entry, u64)],
    line_cap: usize,
    chosen: &mut Vec<(u64, String, u64)>,
    room: &mut usize,
    rows: &mut usize,
) -> Vec<&'e Entry> {
    let mut anchors = Vec::new();
    let (mut lo, mut hi) = (0usize, tier.len());
    let mut from_front = true;
    while lo < hi && *rows > 0 {
        let (entry, count) = if from_front { tier[lo] } else { tier[hi - 1] };
        let row = row(entry, *count, line_cap);
        if row.len() + 1 > *room {
            break;
        }
        *room -= row.len() + 1;
        *rows -= 1;
        chosen.push((entry.line, row, *count));
        anchors.push(*entry);
        if from_front {
            lo += 1;
        } else {
            hi -= 1;
        }
        from_front = !from_front;
    }
    anchors
}

/// The `\n` in `bytes`.
fn count_newlines(bytes: &[u8]) -> u64 {
    // Counted in blocks of u8 counters, which compilers vectorize.
    bytes
        .chunks(255)
        .map(|c| u64::from(c.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>()))
        .sum()
}

/// A remembered line's length without its `\r` (a `\r` at the scan's cut
/// is part of the line's first bytes, not its end).
fn line_len(buf: &[u8]) -> usize {
    if buf.len() < SCAN_BYTES && buf.last() == Some(&b'\r') {
        buf.len() - 1
    } else {
        buf.len()
    }
}

/// One context line: `N-text`, cut as a kept line is.
fn context_row(line: u64, text: &[u8], cap: usize) -> String {
    let entry = Entry {
        line,
        text: text.to_vec(),
        weak: false,
        before: None,
        after: Vec::new(),
    };
    let mut row = row(&entry, 1, cap);
    // `N:` becomes `N-`, as grep -n writes a context line.
    let colon = row.find(':').unwrap_or(0);
    row.replace_range(colon..=colon, "-");
    row
}

/// One kept line: `N:text`, the text rendered as UTF-8 (U+FFFD) and cut
/// between characters to `cap` bytes in all, ending `…` when cut; a text
/// kept `count > 1` times ends ` [×count]` (within the cap).
fn row(entry: &Entry, count: u64, cap: usize) -> String {
    let text = String::from_utf8_lossy(&entry.text);
    let mut out = format!("{}:", entry.line);
    let times = if count > 1 {
        format!(" [×{count}]")
    } else {
        String::new()
    };
    let room = cap.saturating_sub(out.len() + times.len());
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
    out.push_str(&times);
    out
}

/// The section's header: `[... kept K omitted lines matching the keep
/// patterns, H more hidden; all matches: grep -n -a -E 'P' PATH ...]`, or
/// `…; no grep command: REASON ...]` when the patterns have no ERE form.
fn header(kept: u64, more: u64, pointer: Option<(Result<&str, &str>, &str)>) -> String {
    let lines = if kept == 1 { "line" } else { "lines" };
    let mut out = format!("[... kept {kept} omitted {lines} matching the keep patterns");
    if more > 0 {
        out.push_str(&format!(", {more} more hidden"));
    }
    match pointer {
        Some((Ok(pattern), path)) => {
            out.push_str("; all matches: grep -n -a -E ");
            push_quoted(&mut out, pattern);
            out.push(' ');
            super::notice::push_shell_path(&mut out, path);
        }
        Some((Err(reason), _)) => {
            out.push_str("; no grep command: ");
            out.push_str(reason);
        }
        None => {}
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
            "^(FAILED|ERROR) [^ ]+(::| - )",
            &[
                "FAILED tests/test_a.py::test_x - assert 1 == 2",
                "ERROR tests/test_b.py - ImportError: no module",
                "FAILED tests/test_a.py::test_x",
            ],
            &[
                "0 FAILED",
                "FAILED",
                "ERRORS: 0",
                "tests FAILED here",
                "ERROR balancer: dialer.go:190 dial tcp: i/o timeout",
            ],
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
            &[
                "E       assert 1 == 2",
                "E   AssertionError",
            ],
            &[
                "E  two spaces",
                "Error: x",
                "  E   indented",
            ],
        ),
        (
            "^_{3,} [^ ].* _{3,}$",
            &[
                "________________________ test_gamma_017 ________________________",
                "_____ ERROR collecting tests/test_b.py _____",
            ],
            &[
                "____",
                "___ partial",
                "foo ___ bar ___",
            ],
        ),
        (
            "^(FAIL|ERROR): [A-Za-z_][A-Za-z0-9_]* \\(",
            &[
                "FAIL: test_add (test_math.MathTest.test_add)",
                "ERROR: test_io (tests.test_io.IOTest)",
            ],
            &[
                "FAIL",
                "FAILED (failures=1)",
                "ERROR: Could not find a version",
            ],
        ),
        (
            "panicked at",
            &[
                "thread 'main' panicked at src/main.rs:2:5:",
            ],
            &[
                "the test panicked",
                "panic at the disco",
            ],
        ),
        (
            "^test .* \\.\\.\\. FAILED$",
            &[
                "test tests::it_works ... FAILED",
            ],
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
            &[
                "--- PASS: TestAdd (0.00s)",
                "FAIL\tpkg 0.01s",
            ],
        ),
        (
            "^[[:space:]]*(✕|●|×|✗|✖) ",
            &[
                "    ✕ adds 1 + 2 (3 ms)",
                "  ● math › adds",
                "   × src/a.test.ts > adds 5ms",
                "    ✗ testLogin, XCTAssertEqual failed",
                "✖ 3 problems (3 errors, 0 warnings)",
                "  × No solution found when resolving dependencies:",
            ],
            &[
                "    ✓ adds 1 + 2 (3 ms)",
                "●",
                "a × b = c",
            ],
        ),
        (
            "^[[:space:]]*FAIL[[:space:]]+[^ ]",
            &[
                " FAIL  src/math.test.js",
                " FAIL  src/a.test.ts > math > adds",
            ],
            &[
                " PASS  src/math.test.js",
                "FAILED (failures=1)",
                "FAIL",
            ],
        ),
        (
            "^[[:space:]]*[0-9]+\\) [^ ]",
            &[
                "  1) Calculator",
                "1) Tests\\MathTest::testAdd",
                "  1) test adds two numbers (MathTest)",
            ],
            &[
                "(1) first",
                "1)",
                "step 1) done",
            ],
        ),
        (
            "^error(\\[E[0-9]+\\])?: ",
            &[
                "error[E0308]: mismatched types",
                "error: could not compile `x`",
            ],
            &[
                "error_count: 0",
                "errors: 2",
                "warning: unused",
            ],
        ),
        (
            "error [A-Z]{2,}[0-9]+: ",
            &[
                "src/a.ts(3,7): error TS2322: Type 'string' is not assignable",
                "Program.cs(3,13): error CS0103: The name 'x' does not exist",
            ],
            &[
                "error TS: nothing",
                "0 error TS",
            ],
        ),
        (
            ": (fatal )?error:( |$)",
            &[
                "main.c:3:5: error: expected ';'",
                "main.c:1:10: fatal error: x.h: No such file",
                "src/Lib.hs:38:10: error:",
                "app.py:3: error: Incompatible types",
            ],
            &[
                "error: alone",
                "no error: here",
                "x: errors: 2",
            ],
        ),
        (
            "^[^ ]+\\.go:[0-9]+:[0-9]+: ",
            &[
                "./main.go:12:5: undefined: foo",
                "pkg/x/y.go:3:2: imported and not used: \"os\"",
            ],
            &[
                "main.go is fine",
                "go: downloading x v1.0.0",
            ],
        ),
        (
            "^[^ ]+:[0-9]+:[0-9]+: [A-Z]+[0-9]+ ",
            &[
                "app.py:1:1: F401 'os' imported but unused",
                "src/x.py:10:80: E501 line too long (88 > 79 characters)",
            ],
            &[
                "app.py:1:1: all good",
                "app.py:1: F401 no column",
            ],
        ),
        (
            "^[^ ]+:[0-9]+:[0-9]+: [CEFW]: ",
            &[
                "lib/a.rb:3:5: C: Style/StringLiterals: Prefer single-quoted strings",
                "app.rb:1:1: E: Lint/Syntax: unexpected token",
            ],
            &[
                "lib/a.rb:3:5: ok",
                "1 file inspected, 1 offense detected",
            ],
        ),
        (
            "^[[:space:]]+[0-9]+:[0-9]+[[:space:]]+error[[:space:]]",
            &[
                "   3:7  error  'x' is assigned a value but never used  no-unused-vars",
            ],
            &[
                "   3:7  warning  Unexpected console statement  no-console",
                "error 3:7",
            ],
        ),
        (
            "^[^ ]+:[0-9]+(:[0-9]+)? (error )?MD[0-9]+",
            &[
                "README.md:3 MD022/blanks-around-headings Headings should be surrounded",
                "docs/a.md:10:81 error MD013/line-length Line length",
            ],
            &[
                "MD022 is a rule",
                "README.md: ok",
            ],
        ),
        (
            "^\\[(warn|error)\\] ",
            &[
                "[warn] src/index.js",
                "[warn] Code style issues found in 2 files. Run Prettier with --write to fix.",
                "[error] src/a.js: SyntaxError: Unexpected token",
            ],
            &[
                "[info] ok",
                "warn: x",
            ],
        ),
        (
            " at line [0-9]+, column [0-9]+\\.",
            &[
                "Code before strictures are enabled at line 3, column 1.  See page 429 of PBP.  (Severity: 5)",
            ],
            &[
                "at line 3",
                "died at line 3.",
            ],
        ),
        (
            "^(In [^ ]+ line [0-9]+:$|[[:space:]]*\\^-*\\^? SC[0-9]+ )",
            &[
                "In build.sh line 3:",
                "     ^-- SC2086 (info): Double quote to prevent globbing and word splitting.",
                "  ^----^ SC2046 (warning): Quote this to prevent word splitting.",
            ],
            &[
                "In the line 3",
                "SC2086 alone",
            ],
        ),
        (
            "^npm (ERR!|error) ",
            &[
                "npm ERR! code E404",
                "npm error 404 Not Found - GET https://registry.npmjs.org/x",
            ],
            &[
                "npm WARN deprecated x",
                "npm notice",
                "npm http fetch GET 200",
            ],
        ),
        (
            "^error [A-Z]",
            &[
                "error Command failed with exit code 1.",
                "error Couldn't find package \"x\" on the \"npm\" registry.",
            ],
            &[
                "error: lower",
                "errors found",
                "error handling works",
            ],
        ),
        (
            "^ERROR: ",
            &[
                "ERROR: No matching distribution found for x",
                "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io",
            ],
            &[
                "ERRORS: 0",
                "error: lower case",
            ],
        ),
        (
            "^(fatal|FATAL): ",
            &[
                "fatal: not a git repository (or any of the parent directories): .git",
                "FATAL: checksum mismatch in shard 7431",
            ],
            &[
                "fatality: none",
                "non-fatal: ok",
            ],
        ),
        (
            "^\\[(ERROR|error)\\] ",
            &[
                "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0",
                "[error] /p/src/main/scala/A.scala:3:7: type mismatch;",
            ],
            &[
                "[INFO] BUILD SUCCESS",
                "[warn] x",
                "ERROR x",
            ],
        ),
        (
            "( > .* FAILED$|^\\* What went wrong:$)",
            &[
                "AppTest > testAdd() FAILED",
                "* What went wrong:",
            ],
            &[
                "AppTest > testAdd() PASSED",
                "What went wrong",
            ],
        ),
        (
            "\\*\\*\\* FAILED \\*\\*\\*",
            &[
                "- adds two numbers *** FAILED ***",
            ],
            &[
                "*** RUN ABORTED ***",
                "FAILED",
            ],
        ),
        (
            "Failed asserting that",
            &[
                "Failed asserting that 3 matches expected 4.",
            ],
            &[
                "asserting that x",
                "Failed to assert",
            ],
        ),
        (
            "XCTAssert[A-Za-z]* failed",
            &[
                "/p/Tests/ATests.swift:12: error: -[ATests testX] : XCTAssertEqual failed: (\"1\") is not equal to (\"2\")",
            ],
            &[
                "XCTAssertEqual passed",
                "XCTest failed",
            ],
        ),
        (
            "\\*\\* \\([A-Za-z.]*(Error|Exception)\\)",
            &[
                "** (CompileError) lib/a.ex:3: undefined function foo/0",
                "** (RuntimeError) boom",
            ],
            &[
                "** (exit) normal",
                "(CompileError)",
            ],
        ),
        (
            "(failed on line [0-9]+|\\*failed\\*|^[[:space:]]*Failed: [0-9]+\\.)",
            &[
                "Testing a.b: TEST COMPLETE, 3 ok, 1 failed on line 696",
                "a_tests: add_test...*failed*",
                "  Failed: 1.  Skipped: 0.  Passed: 5.",
            ],
            &[
                "0 failed",
                "Failed: none",
            ],
        ),
        (
            "(^[[:space:]]*not ok [0-9]+|Dubious, test returned [0-9]+)",
            &[
                "not ok 12 - parses dates",
                "    not ok 3 - subtest",
                "t/a.t ... Dubious, test returned 1 (wstat 256, 0x100)",
            ],
            &[
                "ok 12 - parses dates",
                "not okay",
            ],
        ),
        (
            "(^[[:space:]]*(Failure|Error):$|^[A-Z][A-Za-z0-9_:]*#test_[A-Za-z0-9_?!]*)",
            &[
                "Failure:",
                "  Error:",
                "MathTest#test_add [test/math_test.rb:7]:",
            ],
            &[
                "Failure: x",
                "test_add",
            ],
        ),
        (
            "(Failure/Error: |^rspec \\./[^ ]+:[0-9]+)",
            &[
                "     Failure/Error: expect(add(1, 2)).to eq(4)",
                "rspec ./spec/math_spec.rb:4 # Math adds",
            ],
            &[
                "rspec ./spec passes",
                "Failure",
            ],
        ),
        (
            "^[[:space:]]*\\[-\\] ",
            &[
                "    [-] adds two numbers 12ms (10ms|2ms)",
            ],
            &[
                "    [+] adds two numbers 12ms",
                "[-]",
            ],
        ),
        (
            "failed with exit code [0-9]+",
            &[
                "##[error]Process 'make' failed with exit code 2",
                "Command 'npm test' failed with exit code 1",
            ],
            &[
                "exit code 0",
                "failed with exit",
            ],
        ),
        (
            "(^CMake Error|\\((Failed|SEGFAULT|Timeout)\\)$|tests FAILED:$)",
            &[
                "CMake Error at CMakeLists.txt:3 (add_executable):",
                "  1 - test_add (Failed)",
                "The following tests FAILED:",
            ],
            &[
                "CMake Warning",
                "test passed (Failed tests: 0)",
            ],
        ),
        (
            "(^Error in |^Execution halted|Running the tests in .* failed|^\\* checking .* \\.\\.\\. ERROR$)",
            &[
                "Error in f(x) : object 'y' not found",
                "Execution halted",
                "Running the tests in 'tests/testthat.R' failed.",
                "* checking examples ... ERROR",
            ],
            &[
                "Error inside",
                "* checking examples ... OK",
            ],
        ),
        (
            "(==[0-9]+==ERROR: |^SUMMARY: [A-Za-z]+Sanitizer)",
            &[
                "==12345==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014",
                "SUMMARY: AddressSanitizer: heap-buffer-overflow /p/a.c:5 in main",
            ],
            &[
                "==12345== HEAP SUMMARY:",
                "SUMMARY: 2 passed",
            ],
        ),
        (
            "(Segmentation fault|core dumped|^Aborted$)",
            &[
                "Segmentation fault (core dumped)",
                "bash: line 1: 42 Segmentation fault ./a.out",
                "Aborted",
            ],
            &[
                "segmentation is fine",
                "Aborted by user request",
            ],
        ),
        (
            "^(Exception in thread |Caused by: )",
            &[
                "Exception in thread \"main\" java.lang.IllegalStateException: boom",
                "Caused by: java.io.IOException: disk full",
            ],
            &[
                "exception in thread",
                "  Caused by nothing",
            ],
        ),
        (
            "(^lua[0-9.]*: |^stack traceback:$)",
            &[
                "lua: app.lua:12: attempt to index a nil value (local 't')",
                "lua5.4: x.lua:1: boom",
                "stack traceback:",
            ],
            &[
                "luarocks: ok",
                "stack traceback: here",
            ],
        ),
        (
            "^make(\\[[0-9]+\\])?: \\*\\*\\* ",
            &[
                "make: *** [Makefile:3: all] Error 1",
                "make[1]: *** [sub/Makefile:9: x.o] Error 2",
            ],
            &[
                "make: Nothing to be done for 'all'.",
                "make[1]: Entering directory '/p'",
            ],
        ),
        (
            "command not found",
            &[
                "bash: frobnicate: command not found",
                "build.sh: line 16: frobnicate: command not found",
            ],
            &[
                "command found",
                "not found",
            ],
        ),
        (
            "No such file or directory",
            &[
                "cat: build/missing.txt: No such file or directory",
            ],
            &[
                "no such file",
                "file or directory",
            ],
        ),
        (
            "Permission denied",
            &[
                "bash: ./run.sh: Permission denied",
            ],
            &[
                "permission denied",
                "Permission granted",
            ],
        ),
        (
            "^Traceback \\(most recent call last\\):",
            &[
                "Traceback (most recent call last):",
            ],
            &[
                "  Traceback (most recent call last):",
                "Traceback",
            ],
        ),
        (
            "^[[:space:]]*([A-Za-z_][A-Za-z0-9_.]*)?(Error|Exception)( \\[[A-Za-z_]+\\])?(: |$)",
            &[
                "ValueError: invalid amount '12x'",
                "Error: connect ECONNREFUSED 127.0.0.1:5432",
                "      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
                "java.lang.AssertionError: expected:<1> but was:<2>",
                "KeyError",
            ],
            &[
                "error_handler.py",
                "0 errors",
                "ErrorHandler started",
                "No Exceptions were raised",
            ],
        ),
    ];

    /// Each weak pattern, boilerplate it must match and failures it must not.
    const WEAK_CASES: &[(&str, &[&str], &[&str])] = &[
        (
            "^npm (ERR!|error) (code |errno |syscall |path |A complete log|Log files|[[:space:]]*$)",
            &[
                "npm ERR! code E404",
                "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log",
                "npm ERR! ",
            ],
            &[
                "npm error 404 Not Found - GET https://registry.npmjs.org/x",
            ],
        ),
        (
            "^\\[ERROR\\] (->|Re-run Maven|To see the full|For more information|Failed to execute goal|[[:space:]]*$)",
            &[
                "[ERROR] -> [Help 1]",
                "[ERROR] Re-run Maven using the -X switch to enable full debug logging.",
                "[ERROR] ",
            ],
            &[
                "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0",
            ],
        ),
        (
            "^make(\\[[0-9]+\\])?: \\*\\*\\* ",
            &[
                "make: *** [Makefile:3: all] Error 1",
            ],
            &[
                "main.c:3:5: error: expected ';'",
            ],
        ),
        (
            "(failed with exit code [0-9]+|^error Command failed)",
            &[
                "##[error]Process 'make' failed with exit code 2",
                "error Command failed with exit code 1.",
            ],
            &[
                "error Couldn't find package \"x\"",
            ],
        ),
    ];

    #[test]
    fn every_weak_pattern_matches_and_does_not() {
        assert_eq!(WEAK_CASES.len(), Keep::WEAK_PATTERNS.len());
        let all = Keep::defaults();
        for (pattern, (listed, yes, no)) in Keep::WEAK_PATTERNS.iter().zip(WEAK_CASES) {
            assert_eq!(pattern, listed);
            let weak = build(pattern).expect("a weak pattern compiles");
            for line in *yes {
                assert!(
                    weak.is_match(line.as_bytes()),
                    "{pattern} must match {line:?}"
                );
                assert!(all.is_weak(line.as_bytes()), "weak: {line:?}");
            }
            for line in *no {
                assert!(
                    !weak.is_match(line.as_bytes()),
                    "{pattern} must not match {line:?}"
                );
                assert!(
                    all.is_match(line.as_bytes()),
                    "a default must keep {line:?}"
                );
                assert!(!all.is_weak(line.as_bytes()), "not weak: {line:?}");
            }
        }
    }

    /// `grep -E` (where the machine has it) finds the same lines as the
    /// patterns, each in the form the header writes (`crate::ere`): the
    /// kept section's command lists what it counts.
    #[test]
    fn grep_finds_what_every_default_pattern_finds() {
        use std::io::Write as _;
        use std::process::{Command, Stdio};
        for (pattern, yes, no) in CASES.iter().chain(WEAK_CASES) {
            let ere = crate::ere::translate(pattern, false)
                .unwrap_or_else(|e| panic!("{pattern:?} has no grep form: {e}"));
            let pattern = &ere.text.as_str();
            let input: String = yes
                .iter()
                .chain(no.iter())
                .map(|l| format!("{l}\n"))
                .collect();
            let Ok(mut child) = Command::new("grep")
                .args(["-E", "--", pattern])
                .env("LC_ALL", "C.UTF-8")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
            else {
                eprintln!("no grep here: skipped");
                return;
            };
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(input.as_bytes())
                .expect("write");
            let out = child.wait_with_output().expect("grep runs");
            let found: Vec<&str> = std::str::from_utf8(&out.stdout)
                .expect("utf-8")
                .lines()
                .collect();
            assert_eq!(found, yes.to_vec(), "grep -E {pattern:?}");
        }
    }

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
        let keep = Keep::patterns(["it's", "a|bc"]).unwrap();
        assert_eq!(keep.grep(), Ok("(it's)|(a|bc)"));
        let h = header(2, 3, Some((keep.grep(), "/tmp/x y.txt")));
        assert_eq!(
            h,
            "[... kept 2 omitted lines matching the keep patterns, 3 more hidden; all matches: grep -n -a -E '(it'\\''s)|(a|bc)' '/tmp/x y.txt' ...]"
        );
        assert_eq!(
            header(1, 0, None),
            "[... kept 1 omitted line matching the keep patterns ...]"
        );
        // A pattern with no ERE form: the header says so plainly.
        let keep = Keep::patterns(["^error", "\\bpanic\\b"]).unwrap();
        assert_eq!(
            header(1, 0, Some((keep.grep(), "/tmp/x.txt"))),
            "[... kept 1 omitted line matching the keep patterns; no grep command: a keep pattern has a word boundary (\\b, \\B, \\< or \\>) ...]"
        );
        // Translated, not copied: `\d` is `[0-9]` for grep.
        let keep = Keep::patterns(["^line \\d+5 ok$", "(?i)ERROR"]).unwrap();
        assert_eq!(
            keep.grep(),
            Ok("(^line [0-9]+5 ok$)|([Ee][Rr][Rr][Oo][Rr])")
        );
        assert!(Keep::defaults().grep().is_ok());
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

    /// `input` read in `pieces` by `keep`'s matches with the literal
    /// prefilter, and by the same without it (every line matched by the
    /// patterns' regular expression): the same state, entries, context and
    /// counts included.
    fn same_with_and_without_prefilter(keep: &Keep, limits: Limits, input: &[u8], cuts: &[usize]) {
        let mut fast = Matches::new(keep.clone(), limits);
        let mut slow = Matches::new(keep.clone(), limits);
        slow.prefilter = None;
        let mut from = 0;
        for &cut in cuts.iter().chain([input.len()].iter()) {
            let cut = cut.clamp(from, input.len());
            fast.push(&input[from..cut]);
            slow.push(&input[from..cut]);
            from = cut;
        }
        same(&fast, &slow, input.len(), cuts);
        fast.finish();
        slow.finish();
        same(&fast, &slow, input.len(), cuts);
        // Everything else too (a prefilter compares equal to any other).
        slow.prefilter = fast.prefilter.clone();
        assert!(fast == slow);
    }

    fn same(fast: &Matches, slow: &Matches, len: usize, cuts: &[usize]) {
        let state = |m: &Matches| {
            (
                m.total,
                m.line,
                m.open,
                m.buf.clone(),
                m.prev.clone(),
                m.prev_kept,
                m.after_left,
            )
        };
        assert_eq!(state(fast), state(slow), "{len} bytes cut at {cuts:?}");
        let show = |e: &Entry| {
            format!(
                "{} {:?} {:?} {:?}",
                e.line,
                String::from_utf8_lossy(&e.text),
                e.before
                    .as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned()),
                e.after.len()
            )
        };
        for (a, b) in fast
            .first
            .iter()
            .zip(&slow.first)
            .chain(fast.last.iter().zip(&slow.last))
        {
            assert!(
                a == b,
                "{len} bytes cut at {cuts:?}: {} != {}",
                show(a),
                show(b)
            );
        }
        assert_eq!(
            (fast.first.len(), fast.last.len()),
            (slow.first.len(), slow.last.len())
        );
    }

    /// The cuts a terminal renders a text in: each line, then its `\n`.
    fn line_cuts(input: &[u8]) -> Vec<usize> {
        let mut cuts = Vec::new();
        for (i, &b) in input.iter().enumerate() {
            if b == b'\n' {
                cuts.push(i);
                cuts.push(i + 1);
            }
        }
        cuts
    }

    #[test]
    fn the_prefilter_keeps_the_same_lines_on_the_corpus() {
        assert!(Keep::defaults().prefilter().is_some());
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus/logs");
        let mut logs: Vec<_> = std::fs::read_dir(dir)
            .expect("the corpus logs")
            .map(|e| e.expect("an entry").path())
            .collect();
        logs.sort();
        assert!(logs.len() > 20);
        let mut all = Vec::new();
        for path in &logs {
            let input = std::fs::read(path).expect("a log");
            all.extend_from_slice(&input);
            for limits in [Limits::new(10, 300), Limits::new(200, 20_000)] {
                let keep = Keep::defaults();
                same_with_and_without_prefilter(&keep, limits, &input, &[]);
                same_with_and_without_prefilter(&keep, limits, &input, &line_cuts(&input));
                // Pieces of every size from 1 byte to a few lines.
                for piece in [1, 2, 3, 7, 64, 333, 4097] {
                    let cuts: Vec<usize> = (piece..input.len()).step_by(piece).collect();
                    same_with_and_without_prefilter(&keep, limits, &input, &cuts);
                }
            }
        }
        // Every log after another, cut in two at 40 places.
        let keep = Keep::defaults();
        for cut in (0..all.len()).step_by(all.len() / 40 + 1) {
            same_with_and_without_prefilter(&keep, Limits::new(40, 4000), &all, &[cut]);
        }
    }

    #[test]
    fn the_prefilter_keeps_the_same_lines_on_generated_input() {
        let sets: &[&[&str]] = &[
            Keep::DEFAULT_PATTERNS,
            &["^[^ ]+ FAILED$"],
            &["x$", "\\r$"],
            &["\\bend\\b", "^$"],
            &["[^a]+b"],
            &["(?i)error", "(?:warn|fail)ed"],
            &["(?-m)^only", "\\Atop", "(?m)^E  "],
            &["a{3}b", "c{2,}d", "(xy)+z", "[0-9]+\\) x", "q?r?s"],
            &["^(ab|cd)$", "✗|×", "\\x{2717}", "(?i)ǅx"],
        ];
        let long = "y".repeat(SCAN_BYTES - 2);
        let words: &[&str] = &[
            "ok",
            "a b FAILED",
            "zx\r",
            "\r",
            "",
            "end",
            "the end\r",
            "bb",
            "ab",
            "cd",
            "a\rb",
            "ERROR: x",
            "warned",
            "only",
            "top",
            "test t ... FAILED",
            "E   assert",
            "E  x",
            "--- FAIL: T",
            "aaab",
            "ccd",
            "xyxyz",
            "12) x",
            "rs",
            "✗ no",
            "× x",
            "ǆX",
            "Ǆx",
            "panicked at",
            "x.go:1:2: y",
            "error[E1]: x",
            " at line 3, column 4.",
            "Error",
            &long,
        ];
        let mut rng: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n.max(1) as u64) as usize
        };
        for set in sets {
            let keep = Keep::patterns(set.iter().copied()).unwrap();
            for round in 0..40 {
                let mut input = Vec::new();
                for _ in 0..next(60) {
                    // A line of words, or words glued at a line's end.
                    for _ in 0..=next(3) {
                        input.extend_from_slice(words[next(words.len())].as_bytes());
                        if next(2) == 0 {
                            input.push(b' ');
                        }
                    }
                    input.push(b'\n');
                }
                if next(2) == 0 {
                    input.extend_from_slice(b"last x");
                }
                let limits = if round % 2 == 0 {
                    Limits::new(6, 200)
                } else {
                    Limits::new(400, 16384)
                };
                same_with_and_without_prefilter(&keep, limits, &input, &[]);
                same_with_and_without_prefilter(&keep, limits, &input, &line_cuts(&input));
                if input.len() < 3000 {
                    for cut in 0..=input.len() {
                        same_with_and_without_prefilter(&keep, limits, &input, &[cut]);
                    }
                } else {
                    let cuts: Vec<usize> = (0..40).map(|_| next(input.len() + 1)).collect();
                    let mut cuts = cuts;
                    cuts.sort_unstable();
                    same_with_and_without_prefilter(&keep, limits, &input, &cuts);
                }
            }
        }
    }

    #[test]
    fn every_default_pattern_has_literals() {
        use super::super::prefilter::req;
        let all: Vec<String> = Keep::DEFAULT_PATTERNS
            .iter()
            .map(|p| p.to_string())
            .collect();
        for p in &all {
            assert!(req(p).is_some(), "{p}: {:?}", req(p));
        }
        assert!(Prefilter::new(&all, regex::bytes::Regex::new).is_some());
    }
}
