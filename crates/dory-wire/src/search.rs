//! Searching a spill: the matching lines of a saved output, bounded like a
//! preview, with an exact notice of what was not shown.
//!
//! A cut preview points at the full output, saved ("spilled") to a file. An
//! agent's next question is usually "where does it say `error`?": a
//! [`Searcher`] answers it from the saved bytes, fed in chunks of any size,
//! in memory bounded by the limits whatever the input.
//!
//! ## The result, exactly
//!
//! The text is what `grep -n -E PATTERN` prints (`grep -n -C N` with
//! context), cut to the limits:
//!
//! - Lines end at `\n`; a `\r` just before the `\n` is part of the end, not
//!   of the text. A last run of bytes without `\n` is a line. Line numbers
//!   count the raw lines from 1, as `sed -n 'Np'` does.
//! - A matching line is written `N:TEXT`, a context line `N-TEXT`, each
//!   followed by `\n`; with context, groups of lines that do not touch are
//!   separated by a line `--`. Text is UTF-8, invalid bytes replaced by
//!   U+FFFD as [`String::from_utf8_lossy`] does.
//! - The pattern is matched on the raw bytes of each line's text
//!   ([`regex::bytes::Regex`]: linear time on any input), on its first
//!   [`MAX_MATCH_BYTES`] bytes only: a longer line is matched and shown on
//!   that part, and counted in [`SearchResult::long_lines`].
//! - The text never exceeds `max_lines` lines or `max_bytes` bytes. When the
//!   whole output does not fit, it is cut after a whole line or inside one
//!   (between characters; the line is then named "partly shown"), never
//!   after a `--`, and a notice line follows. A notice line also ends the
//!   text when no line matched or a line was too long to match whole.
//!
//! ## The notice
//!
//! ```text
//! [... 12 more matching lines of 40; grep -n -E 'error' /w/out.txt ...]      pointer
//! [... 12 more matching lines of 40; no grep command: the pattern has a word boundary (\b, \B, \< or \>) ...]
//! [... 12 more matching lines of 40, line 57 partly shown ...]              plain
//! [... 1 more matching line of 3, 1 line over 65536 bytes matched on its first 65536 ...]
//! [... 3 matching lines, all shown, 1 line over 65536 bytes matched on its first 65536 ...]
//! [... no matching lines ...]
//! [... 12 more matching lines ...]                                           short
//! ```
//!
//! "More" counts the matching lines not shown at all (a line shown in part
//! is shown). The `grep` command is written when the output was cut and a
//! path is known (see below), the path as a shell word (quoted when it needs
//! to be); it is left out when the path would break the notice's line. When
//! there is no exact command, the pointer form says so instead: `no grep
//! command: REASON`. The richest form whose line takes at most half of
//! `max_bytes` is used, else the short form (which always fits: `max_bytes`
//! is at least [`MIN_RUN_MAX_BYTES`](crate::preview::MIN_RUN_MAX_BYTES)).
//!
//! ## The grep command
//!
//! [`SearchResult::command`] lists exactly the lines the search matched
//! (`matched_lines` of them, same numbers), or is `None`. The pattern is
//! not copied: `grep -E` does not read the `regex` crate's syntax. It is
//! written out as a POSIX ERE from its parsed form (`\d` as `[0-9]`,
//! `(?:…)` as `(…)`, `(?i)k` as `([Kk]|K)`; the rules are in
//! `docs/api.md`, "The grep command"), and the search, which reads every
//! line, says where that ERE is exact:
//!
//! - `grep -n -i -E 'P'` for a wholly case-insensitive pattern (the
//!   `ignore_case` option or a leading `(?i)`) on ASCII text; otherwise the
//!   case-insensitive parts are written out as classes.
//! - `-a` when a line holds a NUL or bytes that are not UTF-8 (else grep
//!   prints "binary file matches" instead of the lines).
//! - `LC_ALL=C.UTF-8 ` first when a line is not ASCII and the ERE has a
//!   wildcard (`.`, `[^ ]`) or a non-ASCII character; `LC_ALL=C ` when it
//!   has a POSIX class (`[[:space:]]` is ASCII in `regex` and in C).
//!   On ASCII text no locale is named: every locale reads it alike.
//! - None, with the reason in the notice: the pattern has no ERE form (a
//!   word boundary `\b`, a class with no ASCII member such as `\p{Greek}`,
//!   a control character, a byte escape, a count over 255, `(?R)`); a line
//!   over [`MAX_MATCH_BYTES`] (grep would match all of it); a line whose
//!   `\r` before `\n`, dropped here and read by grep, changes whether it
//!   matches (`^b$` on `b\r\n`: checked on each such line when the ERE can
//!   read a `\r`); or the text is not ASCII and the ERE has both kinds of
//!   class above, or a Unicode class written as its ASCII part (`\d`, `\w`).
//!
//! ```
//! use dory_wire::search::{SearchOptions, Searcher};
//!
//! let mut searcher = Searcher::new("err", SearchOptions::default())?;
//! searcher.push(b"ok\nerror: one\r\nok\n");
//! searcher.push(b"error: two");
//! let result = searcher.finish(Some("/w/out.txt"));
//! assert_eq!(result.text, "2:error: one\n4:error: two\n");
//! assert_eq!((result.matched_lines, result.shown_lines, result.truncated), (2, 2, false));
//! # Ok::<(), dory_wire::Error>(())
//! ```

use std::collections::VecDeque;

use regex::bytes::{Regex, RegexBuilder};

use crate::ere::{Ere, Grep};
use crate::error::Error;
use crate::preview::{RunBounder, DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES};

/// A line is matched (and shown) on its first `MAX_MATCH_BYTES` bytes (64
/// KiB): what keeps memory bounded when a line has no end.
pub const MAX_MATCH_BYTES: usize = 64 * 1024;

/// The longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;

/// The most memory a compiled pattern may take (its program and its lazy
/// DFA each), so that a hostile pattern is refused rather than built.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The limits and switches of a search.
///
/// ```
/// use dory_wire::search::SearchOptions;
///
/// let options = SearchOptions { context: 2, ..SearchOptions::default() };
/// assert_eq!((options.max_lines, options.max_bytes), (400, 16384));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SearchOptions {
    /// Lines of context shown before and after each matching line (`grep -C`).
    pub context: usize,
    /// The most lines of the text, notice included (at least 2, as for a run).
    pub max_lines: usize,
    /// The most bytes of the text, notice included (at least
    /// [`MIN_RUN_MAX_BYTES`](crate::preview::MIN_RUN_MAX_BYTES), as for a run).
    pub max_bytes: usize,
    /// Match letters of either case (`grep -i`).
    pub ignore_case: bool,
}

impl Default for SearchOptions {
    /// No context, the run's limits (400 lines, 16 KiB), case matters.
    fn default() -> Self {
        SearchOptions {
            context: 0,
            max_lines: DEFAULT_RUN_MAX_LINES,
            max_bytes: DEFAULT_RUN_MAX_BYTES,
            ignore_case: false,
        }
    }
}

/// The matching lines of a search, bounded, with exact counts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SearchResult {
    /// The lines shown and, when needed, the notice: valid UTF-8 within both
    /// limits, every line ending with `\n`.
    pub text: String,
    /// Whether a line of the full `grep` output is not shown, or shown in part.
    pub truncated: bool,
    /// Lines of the input (a final run without `\n` counts as a line).
    pub total_lines: u64,
    /// Bytes of the input.
    pub total_bytes: u64,
    /// Lines that matched, shown or not.
    pub matched_lines: u64,
    /// Matching lines shown, whole or in part.
    pub shown_lines: u64,
    /// Matching lines not shown: `matched_lines - shown_lines`.
    pub omitted_lines: u64,
    /// The line shown in part (the last one shown), 1-based.
    pub partial_line: Option<u64>,
    /// Lines longer than [`MAX_MATCH_BYTES`], matched and shown on their
    /// first [`MAX_MATCH_BYTES`] bytes only.
    pub long_lines: u64,
    /// The first such line, 1-based.
    pub first_long_line: Option<u64>,
    /// The path the search was told the input is saved at.
    pub spill_path: Option<String>,
    /// The command that lists exactly the matching lines of that file
    /// (`grep -n -E 'ERE' PATH`, the pattern written as a POSIX ERE), when
    /// a path was given and such a command exists for this pattern and
    /// input (see "The grep command" in the module docs).
    pub command: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Match,
    Context,
    Separator,
}

/// One line of the full output, kept while it may be shown.
#[derive(Debug, Clone)]
struct Entry {
    kind: Kind,
    number: u64,
    /// The rendered text (without marker and `\n`).
    text: String,
    /// Only a prefix of the line was kept: it cannot be shown whole.
    capped: bool,
}

impl Entry {
    /// Bytes of the entry's line in the text, `\n` included.
    fn len(&self) -> usize {
        match self.kind {
            Kind::Separator => 3,
            _ => digits(self.number) + 1 + self.text.len() + 1,
        }
    }
}

/// A streaming search of one output: [`push`](Self::push) its bytes in
/// chunks of any size, then [`finish`](Self::finish). The result is the same
/// however the bytes are split.
///
/// Memory: the current line (at most [`MAX_MATCH_BYTES`] + 1 bytes), the
/// lines kept for the text (at most `max_lines`, `max_bytes` bytes in all,
/// plus one) and up to `context` lines of before-context (each at most
/// `max_bytes` + 4 bytes) — never more, whatever the input.
#[derive(Debug, Clone)]
pub struct Searcher {
    regex: Regex,
    /// The pattern's `grep -E` forms.
    grep: Grep,
    options: SearchOptions,
    /// The current line's first bytes (at most `MAX_MATCH_BYTES + 1`).
    line: Vec<u8>,
    /// Raw bytes of the current line so far.
    line_len: u64,
    total_lines: u64,
    total_bytes: u64,
    matched: u64,
    long_lines: u64,
    first_long_line: Option<u64>,
    /// Before-context: the last lines that did not match (number, rendered, capped).
    ring: VecDeque<(u64, String, bool)>,
    /// After-context lines still to show.
    after_left: usize,
    /// The last line number written to `entries`.
    last_emitted: Option<u64>,
    entries: Vec<Entry>,
    kept_bytes: usize,
    /// An entry did not fit: nothing more is kept.
    stopped: bool,
    /// Whether the pattern's `grep -E` form can read a `\r` that ends a line.
    sees_cr: bool,
    /// The first line whose `\r` before its `\n` (dropped here, read by
    /// grep) changes whether it matches.
    cr_changes: Option<u64>,
    /// A line holds a byte that is not ASCII.
    non_ascii: bool,
    /// A line holds a NUL or bytes that are not UTF-8 (`grep -a`).
    binary: bool,
}

impl Searcher {
    /// A search for `pattern` (the syntax of the `regex` crate; `grep -E`
    /// patterns in their common subset mean the same) within `options`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] with argument `"pattern"` when the pattern
    /// does not compile, is longer than [`MAX_PATTERN_BYTES`] or would
    /// compile too large; with argument `"context"` when `context` is not
    /// below `max_lines`. [`Error::InvalidLimits`] when the limits are
    /// refused as a run refuses them
    /// ([`RunBounder::check_limits`]: `max_lines >= 2`, `max_bytes >= 80`).
    pub fn new(pattern: &str, options: SearchOptions) -> Result<Searcher, Error> {
        RunBounder::check_limits(options.max_lines, options.max_bytes)?;
        if options.context >= options.max_lines {
            return Err(Error::InvalidArgument {
                argument: "context".to_owned(),
                reason: format!(
                    "context={} must be below max_lines={}",
                    options.context, options.max_lines
                ),
            });
        }
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(Error::InvalidArgument {
                argument: "pattern".to_owned(),
                reason: format!(
                    "the pattern has {} bytes, more than {MAX_PATTERN_BYTES}",
                    pattern.len()
                ),
            });
        }
        let regex = RegexBuilder::new(pattern)
            .case_insensitive(options.ignore_case)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| Error::InvalidArgument {
                argument: "pattern".to_owned(),
                reason: e.to_string(),
            })?;
        let grep = Grep::new(pattern, options.ignore_case);
        let sees_cr = grep.expanded.as_ref().map_or(true, |e| e.sees_cr)
            || grep.folded.as_ref().is_some_and(|e| e.sees_cr);
        Ok(Searcher {
            regex,
            grep,
            sees_cr,
            cr_changes: None,
            options,
            line: Vec::new(),
            line_len: 0,
            total_lines: 0,
            total_bytes: 0,
            matched: 0,
            long_lines: 0,
            first_long_line: None,
            ring: VecDeque::new(),
            after_left: 0,
            last_emitted: None,
            entries: Vec::new(),
            kept_bytes: 0,
            stopped: false,
            non_ascii: false,
            binary: false,
        })
    }

    /// Feeds the next bytes of the output.
    pub fn push(&mut self, chunk: &[u8]) {
        self.total_bytes = self.total_bytes.saturating_add(chunk.len() as u64);
        let mut rest = chunk;
        while !rest.is_empty() {
            match memchr::memchr(b'\n', rest) {
                Some(at) => {
                    self.append(&rest[..at]);
                    self.end_line(true);
                    rest = &rest[at + 1..];
                }
                None => {
                    self.append(rest);
                    rest = &[];
                }
            }
        }
    }

    /// Input bytes held now (the current line's first bytes, the kept lines
    /// and the before-context): bounded by the options, whatever was pushed.
    pub fn buffered_bytes(&self) -> usize {
        self.line.capacity()
            + self.kept_bytes
            + self.ring.iter().map(|(_, t, _)| t.len()).sum::<usize>()
    }

    /// Ends the input and gives the result. `path` is where the input is
    /// saved: the notice's `grep` command reads it.
    pub fn finish(mut self, path: Option<&str>) -> SearchResult {
        if self.line_len > 0 {
            self.end_line(false);
        }
        let command = path.map(|p| self.command(p));
        let pointer = match (&command, path) {
            (Some(Ok(c)), Some(p)) if !breaks_line(p) => Some(c.clone()),
            (Some(Err(reason)), _) => Some(format!("no grep command: {reason}")),
            _ => None,
        };
        let (text, cut) = self.render(pointer.as_deref());
        SearchResult {
            text,
            truncated: cut.truncated,
            total_lines: self.total_lines,
            total_bytes: self.total_bytes,
            matched_lines: self.matched,
            shown_lines: cut.shown,
            omitted_lines: self.matched - cut.shown,
            partial_line: cut.partial,
            long_lines: self.long_lines,
            first_long_line: self.first_long_line,
            spill_path: path.map(str::to_owned),
            command: command.and_then(Result::ok),
        }
    }

    /// The `grep` command that lists exactly the lines this search
    /// matched in the file at `path`, or why there is none.
    fn command(&self, path: &str) -> Result<String, String> {
        if self.long_lines > 0 {
            return Err(format!("a line is over {MAX_MATCH_BYTES} bytes"));
        }
        // `grep -i` where it is exact (ASCII text), else the pattern written out.
        let (ere, fold): (&Ere, bool) = match (&self.grep.folded, &self.grep.expanded) {
            (Some(folded), _) if !self.non_ascii => (folded, true),
            (_, Ok(ere)) => (ere, false),
            (_, Err(reason)) => return Err(format!("the pattern has {reason}")),
        };
        if let Some(line) = self.cr_changes.filter(|_| ere.sees_cr) {
            return Err(format!("line {line} ends in \\r\\n and grep reads the \\r"));
        }
        let locale = match (self.non_ascii, ere.ascii_only, ere.utf8, ere.posix) {
            (false, ..) | (true, false, false, false) => "",
            (true, false, true, false) => "LC_ALL=C.UTF-8 ",
            (true, false, false, true) => "LC_ALL=C ",
            _ => {
                return Err(
                    "the output is not ASCII and grep reads the pattern's classes otherwise".into(),
                )
            }
        };
        let mut out = format!(
            "{locale}grep -n{}{} -E ",
            if self.binary { " -a" } else { "" },
            if fold { " -i" } else { "" }
        );
        push_quoted(&mut out, &ere.text);
        out.push(' ');
        if path.bytes().all(shell_safe) && !path.is_empty() {
            out.push_str(path);
        } else {
            push_quoted(&mut out, path);
        }
        Ok(out)
    }

    /// Appends bytes of the current line, keeping at most
    /// `MAX_MATCH_BYTES + 1` of them (the `+ 1` tells a `\r` before the end
    /// of a line of exactly `MAX_MATCH_BYTES` from a longer line).
    fn append(&mut self, bytes: &[u8]) {
        self.line_len = self.line_len.saturating_add(bytes.len() as u64);
        let room = (MAX_MATCH_BYTES + 1).saturating_sub(self.line.len());
        self.line.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn end_line(&mut self, newline: bool) {
        self.total_lines += 1;
        let number = self.total_lines;
        let mut held = self.line.len();
        let whole = self.line_len == held as u64;
        if newline && whole && self.line.last() == Some(&b'\r') {
            held -= 1;
        }
        let long = !whole || held > MAX_MATCH_BYTES;
        if long {
            self.long_lines += 1;
            self.first_long_line.get_or_insert(number);
        }
        let end = held.min(MAX_MATCH_BYTES);
        let text = &self.line[..end];
        if !text.is_ascii() {
            self.non_ascii = true;
            self.binary |= simdutf8::basic::from_utf8(text).is_err();
        }
        self.binary |= memchr::memchr(0, text).is_some();
        let is_match = self.regex.is_match(text);
        // grep reads the line with the `\r` dropped here: the grep form
        // is exact on it when the pattern answers the same with it.
        if held < self.line.len() && self.sees_cr && self.cr_changes.is_none() {
            let with_cr = self.regex.is_match(&self.line[..=held]);
            if with_cr != is_match {
                self.cr_changes = Some(number);
            }
        }
        if is_match {
            self.matched += 1;
        }
        if !self.stopped {
            self.collect(number, is_match, end);
        }
        self.line.clear();
        if self.line.capacity() > 4096 {
            self.line.shrink_to(4096);
        }
        self.line_len = 0;
    }

    /// The rendered text of the current line's first `end` bytes, capped so
    /// that it stays bounded and still tells whether it fits `max_bytes`.
    fn rendered(&self, end: usize) -> (String, bool) {
        let cap = self.options.max_bytes.saturating_add(4);
        let capped = end > cap;
        let part = &self.line[..end.min(cap)];
        (String::from_utf8_lossy(part).into_owned(), capped)
    }

    fn collect(&mut self, number: u64, is_match: bool, end: usize) {
        let context = self.options.context;
        if is_match {
            let first = number - self.ring.len() as u64;
            if context > 0 && self.last_emitted.is_some_and(|last| first > last + 1) {
                self.emit(Entry {
                    kind: Kind::Separator,
                    number: 0,
                    text: String::new(),
                    capped: false,
                });
            }
            let ring = std::mem::take(&mut self.ring);
            for (n, text, capped) in ring {
                self.emit(Entry {
                    kind: Kind::Context,
                    number: n,
                    text,
                    capped,
                });
            }
            let (text, capped) = self.rendered(end);
            self.emit(Entry {
                kind: Kind::Match,
                number,
                text,
                capped,
            });
            self.after_left = context;
        } else if self.after_left > 0 {
            self.after_left -= 1;
            let (text, capped) = self.rendered(end);
            self.emit(Entry {
                kind: Kind::Context,
                number,
                text,
                capped,
            });
        } else if context > 0 {
            let (text, capped) = self.rendered(end);
            self.ring.push_back((number, text, capped));
            if self.ring.len() > context {
                self.ring.pop_front();
            }
        }
    }

    fn emit(&mut self, entry: Entry) {
        if self.stopped {
            return;
        }
        if entry.kind != Kind::Separator {
            self.last_emitted = Some(entry.number);
        }
        let len = entry.len();
        let fits = !entry.capped
            && self.entries.len() < self.options.max_lines
            && self.kept_bytes + len <= self.options.max_bytes;
        if !fits {
            self.stopped = true;
            self.ring.clear();
        }
        self.kept_bytes += len.min(self.options.max_bytes.saturating_add(32));
        self.entries.push(entry);
    }
}

/// Where the text was cut, and what that shows.
#[derive(Debug, Clone, Copy)]
struct Cut {
    truncated: bool,
    shown: u64,
    partial: Option<u64>,
}

/// The notice's forms, from the richest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    Pointer,
    Plain,
    Short,
}

/// The numbers a notice says.
#[derive(Debug, Clone, Copy)]
struct Counts {
    truncated: bool,
    matched: u64,
    more: u64,
    partial: Option<u64>,
    long: u64,
}

impl Searcher {
    /// The text: the kept lines, cut to leave room for the notice when one is needed.
    fn render(&self, command: Option<&str>) -> (String, Cut) {
        let entries = &self.entries;
        let n = entries.len();
        let needs_notice = self.stopped || self.matched == 0 || self.long_lines > 0;
        // bytes[k] and matches[k]: of the first k entries.
        let mut bytes = Vec::with_capacity(n + 1);
        let mut matches = Vec::with_capacity(n + 1);
        let (mut b, mut m) = (0usize, 0u64);
        bytes.push(0);
        matches.push(0);
        for e in entries {
            b += e.len();
            m += u64::from(e.kind == Kind::Match);
            bytes.push(b);
            matches.push(m);
        }
        if !needs_notice {
            let mut text = String::with_capacity(b);
            for e in entries {
                write_entry(&mut text, e, e.text.len());
            }
            let cut = Cut {
                truncated: false,
                shown: m,
                partial: None,
            };
            return (text, cut);
        }
        let max_bytes = self.options.max_bytes;
        let max_lines = self.options.max_lines;
        let counts = |truncated: bool, shown: u64, partial: Option<u64>| Counts {
            truncated,
            matched: self.matched,
            more: self.matched - shown,
            partial,
            long: self.long_lines,
        };
        // The richest form that takes at most half of the bytes, said of
        // the longest numbers any cut can give.
        let worst = counts(self.matched > 0, 0, Some(self.total_lines.max(1)));
        let tier = [Tier::Pointer, Tier::Plain]
            .into_iter()
            .find(|&t| notice_len(t, &worst, command) < max_bytes / 2)
            .unwrap_or(Tier::Short);
        let finish = |k: usize, partial: Option<(usize, usize)>, c: Counts| {
            let mut text = String::with_capacity(max_bytes.min(bytes[k] + 256));
            for e in &entries[..k] {
                write_entry(&mut text, e, e.text.len());
            }
            if let Some((i, cut)) = partial {
                write_entry(&mut text, &entries[i], cut);
            }
            write_notice(&mut text, tier, &c, command);
            text.push('\n');
            let cut = Cut {
                truncated: c.truncated,
                shown: self.matched - c.more,
                partial: c.partial,
            };
            (text, cut)
        };
        for k in (0..=n).rev() {
            if k > 0 && entries[k - 1].kind == Kind::Separator {
                continue;
            }
            if let Some(e) = entries.get(k).filter(|e| e.kind != Kind::Separator) {
                let shown = matches[k] + u64::from(e.kind == Kind::Match);
                let c = counts(true, shown, Some(e.number));
                let used = bytes[k] + notice_len(tier, &c, command) + 1;
                let marker = digits(e.number) + 1;
                if k + 2 <= max_lines && used + marker + 2 <= max_bytes {
                    let cut = floor_boundary(&e.text, max_bytes - used - marker - 1);
                    if cut > 0 && (cut < e.text.len() || e.capped) {
                        return finish(k, Some((k, cut)), c);
                    }
                }
            }
            let c = counts(self.stopped || k < n, matches[k], None);
            if k < max_lines && bytes[k] + notice_len(tier, &c, command) < max_bytes {
                return finish(k, None, c);
            }
        }
        // Unreachable with limits a run accepts: the short notice fits alone.
        finish(0, None, counts(self.matched > 0, 0, None))
    }
}

/// Appends an entry's line, its text cut to `cut` bytes.
fn write_entry(out: &mut String, e: &Entry, cut: usize) {
    match e.kind {
        Kind::Separator => out.push_str("--"),
        Kind::Match | Kind::Context => {
            out.push_str(&e.number.to_string());
            out.push(if e.kind == Kind::Match { ':' } else { '-' });
            out.push_str(e.text.get(..cut).unwrap_or_default());
        }
    }
    out.push('\n');
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// Appends the notice, without its `\n`.
fn write_notice(out: &mut String, tier: Tier, c: &Counts, command: Option<&str>) {
    use std::fmt::Write as _;
    out.push_str("[... ");
    // Writing to a String cannot fail.
    if c.matched == 0 {
        out.push_str("no matching lines");
    } else if c.truncated {
        let _ = write!(
            out,
            "{} more matching {}",
            c.more,
            plural(c.more, "line", "lines")
        );
        if tier != Tier::Short {
            let _ = write!(out, " of {}", c.matched);
        }
    } else {
        let _ = write!(
            out,
            "{} matching {}, all shown",
            c.matched,
            plural(c.matched, "line", "lines")
        );
    }
    if tier != Tier::Short {
        if let Some(line) = c.partial {
            let _ = write!(out, ", line {line} partly shown");
        }
        if c.long > 0 {
            let _ = write!(
                out,
                ", {} {} over {MAX_MATCH_BYTES} bytes matched on {} first {MAX_MATCH_BYTES}",
                c.long,
                plural(c.long, "line", "lines"),
                plural(c.long, "its", "their"),
            );
        }
        if let (Tier::Pointer, true, Some(command)) = (tier, c.truncated, command) {
            out.push_str("; ");
            out.push_str(command);
        }
    }
    out.push_str(" ...]");
}

fn notice_len(tier: Tier, c: &Counts, command: Option<&str>) -> usize {
    let mut out = String::new();
    write_notice(&mut out, tier, c, command);
    out.len()
}

fn digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Bytes a POSIX shell word may hold unquoted: `[A-Za-z0-9/._+,:@%=-]`.
fn shell_safe(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b)
}

/// Appends `text` in single quotes, each `'` written `'\''`.
fn push_quoted(out: &mut String, text: &str) {
    out.push('\'');
    out.push_str(&text.replace('\'', "'\\''"));
    out.push('\'');
}

/// True when `text` would break the notice's single line.
fn breaks_line(text: &str) -> bool {
    text.chars()
        .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(
        pattern: &str,
        context: usize,
        max_lines: usize,
        max_bytes: usize,
        input: &[u8],
    ) -> SearchResult {
        let options = SearchOptions {
            context,
            max_lines,
            max_bytes,
            ignore_case: false,
        };
        let mut s = Searcher::new(pattern, options).expect("valid");
        s.push(input);
        s.finish(Some("/w/out.txt"))
    }

    #[test]
    fn grep_like_output() {
        let r = search("b", 1, 400, 16384, b"a\nb\nc\nd\ne\nb\nf");
        assert_eq!(r.text, "1-a\n2:b\n3-c\n--\n5-e\n6:b\n7-f\n");
        assert_eq!((r.matched_lines, r.total_lines, r.truncated), (2, 7, false));
        let r = search("x", 0, 400, 16384, b"a\r\nx\r\n");
        assert_eq!(r.text, "2:x\n");
        let r = search("x", 0, 400, 16384, b"a\n");
        assert_eq!(r.text, "[... no matching lines ...]\n");
    }

    #[test]
    fn cut_with_notice() {
        let input = "error\n".repeat(100);
        let r = search("err", 0, 10, 16384, input.as_bytes());
        assert!(r.truncated);
        assert_eq!(r.shown_lines, 9);
        assert!(
            r.text.ends_with(
                "9:error\n[... 91 more matching lines of 100; grep -n -E 'err' /w/out.txt ...]\n"
            ),
            "{}",
            r.text
        );
        assert!(r.text.lines().count() <= 10);
    }

    #[test]
    fn long_lines_are_bounded() {
        let mut s = Searcher::new("z", SearchOptions::default()).expect("valid");
        for _ in 0..1000 {
            s.push(&[b'a'; 4096]);
            assert!(s.buffered_bytes() <= 2 * MAX_MATCH_BYTES);
        }
        s.push(b"z\nz\n");
        let r = s.finish(None);
        assert_eq!(
            (r.long_lines, r.first_long_line, r.matched_lines),
            (1, Some(1), 1)
        );
        assert_eq!(r.text, "2:z\n[... 1 matching line, all shown, 1 line over 65536 bytes matched on its first 65536 ...]\n");
    }

    #[test]
    fn bad_arguments() {
        let e = Searcher::new("(", SearchOptions::default()).unwrap_err();
        assert!(matches!(&e, Error::InvalidArgument { argument, .. } if argument == "pattern"));
        let options = SearchOptions {
            max_lines: 1,
            ..SearchOptions::default()
        };
        assert_eq!(
            Searcher::new("a", options).unwrap_err().code(),
            "invalid_limits"
        );
        let options = SearchOptions {
            context: 400,
            ..SearchOptions::default()
        };
        assert_eq!(
            Searcher::new("a", options).unwrap_err().code(),
            "invalid_argument"
        );
    }
}
