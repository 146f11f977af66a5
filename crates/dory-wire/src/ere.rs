//! The `grep -E` form of a pattern: a [`regex`] pattern written as a POSIX
//! extended regular expression that selects exactly the same lines, or a
//! plain reason why none is given.
//!
//! The pattern is read with `regex-syntax` (the parser the `regex` crate
//! uses, with the same settings) and its high-level form written out again:
//! nothing is guessed from the pattern's text. The rules (`docs/api.md`,
//! "The grep command"):
//!
//! - Literals are written with the ERE metacharacters `. [ \ ( ) * + ? { | ^ $`
//!   escaped; a control character, U+2028/U+2029 or a byte that is not
//!   UTF-8 (`(?-u:\xFF)`) cannot be written on a notice's line: refused.
//! - Groups become `(…)`, non-capturing or not; lazy quantifiers are greedy
//!   (which lines match does not change); `{n,m}` is kept up to 255 (POSIX's
//!   least `RE_DUP_MAX`); an empty alternative `a|` becomes `(a)?`.
//! - `^`, `$`, `\A`, `\z` and `(?m)^`/`$` are the line's ends (the line is
//!   matched without its `\n`). `(?R)` line ends and every word boundary
//!   (`\b`, `\B`, `\<`, `\>`: not POSIX) are refused.
//! - A class is written as a bracket expression of its ASCII members
//!   (ranges only inside `0-9`, `a-z`, `A-Z`; the control characters as
//!   `[:space:]`, `[:blank:]` or `[:cntrl:]` when the class holds all of
//!   them, else refused), its non-ASCII members, up to 16, as alternatives
//!   (`(×|●)`: exact in the C locale too); a class holding every non-ASCII
//!   character but a few is a negated bracket (`[^ ]`, `.`). A class with
//!   many non-ASCII members but not all (`\d`, `\w`, `\s`, `\p{L}`) is
//!   written as its ASCII part — exact on ASCII lines only ([`Ere::ascii_only`]);
//!   one with none at all (`\p{Greek}`) is refused.
//! - Case-insensitive parts are expanded by `regex-syntax` itself into
//!   classes (`(?i)k` is `([Kk]|K)`, with the Kelvin sign); `grep -i` is
//!   used only for a wholly case-insensitive pattern on ASCII text, where
//!   it is exact ([`Grep::folded`]).
//!
//! Where the ERE is exact: on ASCII lines, in any locale; on other lines,
//! in a UTF-8 locale when it has wildcards or non-ASCII characters
//! ([`Ere::utf8`]), in the C locale when it has POSIX classes
//! ([`Ere::posix`]: `[[:space:]]` is ASCII there, as in `regex`). The
//! caller, which sees the text, chooses the locale or gives no command.

use regex_syntax::hir::{Class, ClassUnicode, Hir, HirKind, Look};

/// The longest ERE written, in bytes: past it, none is given.
const MAX_ERE_BYTES: usize = 16 * 1024;

/// The most non-ASCII characters a class is written out with.
const MAX_LISTED: u32 = 16;

/// The largest repetition count written (`RE_DUP_MAX` is at least 255).
const MAX_REPEAT: u32 = 255;

/// Every ASCII character but `\n` (never in a line).
const ASCII: u128 = u128::MAX - (1u128 << b'\n');

/// `[:space:]` in the C locale, `\n` aside.
const SPACE: u128 = 1 << b'\t' | 1 << 0x0b | 1 << 0x0c | 1 << b'\r' | 1 << b' ';

/// `[:blank:]` in the C locale.
const BLANK: u128 = 1 << b'\t' | 1 << b' ';

/// `[:cntrl:]` in the C locale, `\n` aside.
const CNTRL: u128 = ((1u128 << 32) - 1 - (1u128 << b'\n')) | 1 << 0x7f;

/// Scalar values above ASCII: `0x80..=0x10FFFF` less the surrogates.
const NON_ASCII: u32 = 0x10_FFFF - 0x7F - 0x800;

/// A pattern written as a POSIX ERE, with where it is exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ere {
    /// The ERE (valid UTF-8, no control character).
    pub(crate) text: String,
    /// A class is written as its ASCII part only: exact on ASCII lines only.
    pub(crate) ascii_only: bool,
    /// A wildcard (`.`, a negated bracket) or a non-ASCII character: on
    /// non-ASCII lines, exact in a UTF-8 locale only.
    pub(crate) utf8: bool,
    /// A POSIX class (`[:space:]`, `[:blank:]`, `[:cntrl:]`): on non-ASCII
    /// lines, exact in the C locale only.
    pub(crate) posix: bool,
    /// It can read a `\r` that ends a line (`$`, or a class holding `\r`):
    /// not exact where the matcher drops a `\r` before `\n` and grep keeps it.
    pub(crate) sees_cr: bool,
}

/// The `grep -E` forms of one pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Grep {
    /// The pattern written out (case-insensitive parts as classes), or why
    /// it cannot be.
    pub(crate) expanded: Result<Ere, String>,
    /// For a wholly case-insensitive pattern (`ignore_case`, or a leading
    /// `(?i)` and no other flag): the pattern without it, for `grep -i`.
    /// Exact on ASCII lines only (`grep -i` does not fold the Kelvin sign).
    pub(crate) folded: Option<Ere>,
}

impl Grep {
    /// The forms of `pattern`, matched case-insensitively when `ignore_case`.
    pub(crate) fn new(pattern: &str, ignore_case: bool) -> Grep {
        let expanded = translate(pattern, ignore_case);
        let rest = if ignore_case {
            Some(pattern)
        } else {
            pattern.strip_prefix("(?i)")
        };
        let folded = rest
            .filter(|rest| !rest.contains("(?"))
            .and_then(|rest| translate(rest, false).ok())
            .map(|mut e| {
                e.ascii_only = true;
                e
            });
        Grep { expanded, folded }
    }
}

/// `pattern` (valid in the `regex` crate, matched on bytes) as a POSIX ERE
/// selecting the same lines, or why it cannot be: a short phrase to follow
/// "has" (`a word boundary (\b)`).
pub(crate) fn translate(pattern: &str, case_insensitive: bool) -> Result<Ere, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .utf8(false)
        .build()
        .parse(pattern)
        .map_err(|_| "a syntax this translation does not read".to_owned())?;
    let mut w = Writer::default();
    let out = w.hir(&hir, 0)?;
    if out.text.len() > MAX_ERE_BYTES {
        return Err(format!("a grep form over {MAX_ERE_BYTES} bytes"));
    }
    Ok(Ere {
        text: out.text,
        ascii_only: w.ascii_only,
        utf8: w.utf8,
        posix: w.posix,
        sees_cr: w.sees_cr,
    })
}

/// How a written part binds, for the parentheses around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Matches the empty string only: written as nothing.
    Empty,
    /// One unit a quantifier applies to (`a`, `[ab]`, `.`, `(…)`).
    Atom,
    /// A sequence, or a quantified unit: grouped before a quantifier.
    Seq,
    /// An alternation: grouped inside a sequence.
    Alt,
}

struct Out {
    text: String,
    shape: Shape,
}

impl Out {
    fn empty() -> Out {
        Out {
            text: String::new(),
            shape: Shape::Empty,
        }
    }

    /// The part as one unit.
    fn grouped(self) -> String {
        match self.shape {
            Shape::Atom | Shape::Empty => self.text,
            Shape::Seq | Shape::Alt => format!("({})", self.text),
        }
    }
}

#[derive(Default)]
struct Writer {
    ascii_only: bool,
    utf8: bool,
    posix: bool,
    sees_cr: bool,
}

/// Nesting deeper than this is refused (the parser's own limit is 250).
const MAX_DEPTH: usize = 300;

impl Writer {
    fn hir(&mut self, hir: &Hir, depth: usize) -> Result<Out, String> {
        if depth > MAX_DEPTH {
            return Err("nesting too deep".into());
        }
        match hir.kind() {
            HirKind::Empty => Ok(Out::empty()),
            HirKind::Literal(lit) => self.literal(&lit.0),
            HirKind::Class(Class::Unicode(class)) => self.class(class),
            HirKind::Class(Class::Bytes(class)) => match class.to_unicode_class() {
                Some(class) if class.ranges().iter().all(|r| r.end().is_ascii()) => {
                    self.class(&class)
                }
                _ => Err("a class of bytes that are not ASCII".into()),
            },
            HirKind::Look(look) => self.look(*look),
            HirKind::Repetition(rep) => {
                if rep.max == Some(0) {
                    return Ok(Out::empty());
                }
                if rep.min > MAX_REPEAT || rep.max.is_some_and(|m| m > MAX_REPEAT) {
                    return Err(format!("a repetition over {MAX_REPEAT}"));
                }
                let sub = self.hir(&rep.sub, depth + 1)?;
                if sub.shape == Shape::Empty {
                    return Ok(Out::empty());
                }
                let op = match (rep.min, rep.max) {
                    (0, None) => "*".to_owned(),
                    (1, None) => "+".to_owned(),
                    (n, None) => format!("{{{n},}}"),
                    (0, Some(1)) => "?".to_owned(),
                    (1, Some(1)) => return Ok(sub),
                    (n, Some(m)) if n == m => format!("{{{n}}}"),
                    (n, Some(m)) => format!("{{{n},{m}}}"),
                };
                Ok(Out {
                    text: sub.grouped() + &op,
                    shape: Shape::Seq,
                })
            }
            HirKind::Capture(cap) => {
                let sub = self.hir(&cap.sub, depth + 1)?;
                Ok(match sub.shape {
                    Shape::Empty | Shape::Atom => sub,
                    Shape::Seq | Shape::Alt => Out {
                        text: format!("({})", sub.text),
                        shape: Shape::Atom,
                    },
                })
            }
            HirKind::Concat(subs) => {
                let mut text = String::new();
                let mut parts = 0;
                let mut last = Shape::Empty;
                for sub in subs {
                    let out = self.hir(sub, depth + 1)?;
                    match out.shape {
                        Shape::Empty => continue,
                        Shape::Alt => text.push_str(&format!("({})", out.text)),
                        _ => text.push_str(&out.text),
                    }
                    last = if out.shape == Shape::Alt {
                        Shape::Atom
                    } else {
                        out.shape
                    };
                    parts += 1;
                }
                let shape = match parts {
                    0 => Shape::Empty,
                    1 => last,
                    _ => Shape::Seq,
                };
                Ok(Out { text, shape })
            }
            HirKind::Alternation(subs) => {
                let mut branches = Vec::with_capacity(subs.len());
                let mut optional = false;
                for sub in subs {
                    let out = self.hir(sub, depth + 1)?;
                    if out.shape == Shape::Empty {
                        optional = true;
                    } else {
                        branches.push(out);
                    }
                }
                let out = match branches.len() {
                    0 => return Ok(Out::empty()),
                    1 => branches.pop().unwrap_or_else(Out::empty),
                    _ => Out {
                        text: branches
                            .into_iter()
                            .map(|b| b.text)
                            .collect::<Vec<_>>()
                            .join("|"),
                        shape: Shape::Alt,
                    },
                };
                if optional {
                    Ok(Out {
                        text: out.grouped() + "?",
                        shape: Shape::Seq,
                    })
                } else {
                    Ok(out)
                }
            }
        }
    }

    fn literal(&mut self, bytes: &[u8]) -> Result<Out, String> {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| "a byte that is not UTF-8 (such as (?-u:\\xFF))".to_owned())?;
        let mut out = String::with_capacity(text.len());
        let mut count = 0;
        for c in text.chars() {
            push_literal(&mut out, c)?;
            if !c.is_ascii() {
                self.utf8 = true;
            }
            count += 1;
        }
        let one_ascii = count == 1 && text.is_ascii();
        Ok(Out {
            text: out,
            shape: if one_ascii { Shape::Atom } else { Shape::Seq },
        })
    }

    fn look(&mut self, look: Look) -> Result<Out, String> {
        let text = match look {
            Look::Start | Look::StartLF => "^",
            Look::End | Look::EndLF => {
                self.sees_cr = true;
                "$"
            }
            Look::StartCRLF | Look::EndCRLF => return Err("(?R) line ends".into()),
            _ => return Err("a word boundary (\\b, \\B, \\< or \\>)".into()),
        };
        Ok(Out {
            text: text.to_owned(),
            shape: Shape::Seq,
        })
    }

    fn class(&mut self, class: &ClassUnicode) -> Result<Out, String> {
        let mut ascii: u128 = 0;
        let mut wide: u32 = 0;
        for r in class.ranges() {
            let (start, end) = (u32::from(r.start()), u32::from(r.end()));
            for c in start.min(0x80)..=end.min(0x7F) {
                ascii |= 1 << c;
            }
            if end >= 0x80 {
                wide += scalars(start.max(0x80), end);
            }
        }
        ascii &= ASCII;
        if ascii == 0 && wide == 0 {
            return Err("a class that matches nothing".into());
        }
        if ascii == ASCII && wide == NON_ASCII {
            self.utf8 = true;
            self.sees_cr = true;
            return Ok(atom("."));
        }
        if wide == 0 {
            return self.bracket(ascii);
        }
        if wide <= MAX_LISTED {
            self.utf8 = true;
            let mut parts = Vec::new();
            if ascii != 0 {
                parts.push(self.bracket(ascii)?.text);
            }
            for c in listed(class) {
                let mut s = String::new();
                push_literal(&mut s, c)?;
                parts.push(s);
            }
            return Ok(if parts.len() == 1 {
                Out {
                    text: parts.concat(),
                    shape: Shape::Seq,
                }
            } else {
                Out {
                    text: format!("({})", parts.join("|")),
                    shape: Shape::Atom,
                }
            });
        }
        if NON_ASCII - wide <= MAX_LISTED {
            // Every non-ASCII character but a few: a negated bracket.
            self.utf8 = true;
            let outside = !ascii & ASCII;
            if outside & 1 << b'\r' == 0 {
                self.sees_cr = true;
            }
            let mut body = self.body(outside)?;
            for c in unlisted(class) {
                if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                    return Err("a control character".into());
                }
                body.push(c);
            }
            return Ok(atom(&if body.is_empty() {
                ".".to_owned()
            } else {
                format!("[^{body}]")
            }));
        }
        if ascii == 0 {
            return Err("a class of non-ASCII characters only (such as \\p{Greek})".into());
        }
        // Many non-ASCII members, many outside: its ASCII part, as a
        // bracket or (`\S`: the controls cannot be written) a negated one.
        self.ascii_only = true;
        self.bracket(ascii).or_else(|_| {
            let body = self.body(!ascii & ASCII)?;
            Ok(atom(&format!("[^{body}]")))
        })
    }

    /// A positive bracket expression of ASCII characters (a literal when one).
    fn bracket(&mut self, set: u128) -> Result<Out, String> {
        if set & 1 << b'\r' != 0 {
            self.sees_cr = true;
        }
        if set.count_ones() == 1 {
            let c = char::from(set.trailing_zeros() as u8);
            let mut text = String::new();
            push_literal(&mut text, c)?;
            return Ok(atom(&text));
        }
        let body = self.body(set)?;
        Ok(atom(&format!("[{body}]")))
    }

    /// The inside of a bracket expression holding exactly `set` (ASCII, `\n`
    /// aside), in an order POSIX reads literally: `]` first, `[` before
    /// neither `.`, `:` nor `=`, `^` never first, `-` last.
    fn body(&mut self, mut set: u128) -> Result<String, String> {
        let mut out = String::new();
        if set & 1 << b']' != 0 {
            out.push(']');
            set &= !(1 << b']');
        }
        for (class, members) in [
            ("[:space:]", SPACE),
            ("[:blank:]", BLANK),
            ("[:cntrl:]", CNTRL),
        ] {
            if set & members == members {
                out.push_str(class);
                set &= !members;
                self.posix = true;
            }
        }
        if set & CNTRL != 0 {
            return Err("a control character in a class".into());
        }
        let tail: Vec<u8> = [b'[', b'^', b'-']
            .into_iter()
            .filter(|&b| set & 1 << b != 0)
            .collect();
        for &b in &tail {
            set &= !(1 << b);
        }
        let mut c = 0u8;
        while c < 128 {
            if set & 1 << c == 0 {
                c += 1;
                continue;
            }
            let mut end = c;
            while end < 127 && set & 1 << (end + 1) != 0 && same_run(c, end + 1) {
                end += 1;
            }
            if end - c >= 2 {
                out.push(char::from(c));
                out.push('-');
                out.push(char::from(end));
            } else {
                for b in c..=end {
                    out.push(char::from(b));
                }
            }
            c = end + 1;
        }
        let mut tail: String = tail.into_iter().map(char::from).collect();
        if out.is_empty() && tail.starts_with('^') {
            // `^-` would negate: `-^`.
            tail = tail.chars().rev().collect();
        }
        out.push_str(&tail);
        Ok(out)
    }
}

fn atom(text: &str) -> Out {
    Out {
        text: text.to_owned(),
        shape: Shape::Atom,
    }
}

/// Whether `b` continues a range begun at `start` (`0-9`, `a-z`, `A-Z` only).
fn same_run(start: u8, b: u8) -> bool {
    [b'0'..=b'9', b'a'..=b'z', b'A'..=b'Z']
        .iter()
        .any(|r| r.contains(&start) && r.contains(&b))
}

/// Scalar values in `start..=end`, surrogates aside.
fn scalars(start: u32, end: u32) -> u32 {
    let all = end - start + 1;
    let lo = start.max(0xD800);
    let hi = end.min(0xDFFF);
    all - if lo <= hi { hi - lo + 1 } else { 0 }
}

/// The non-ASCII members of a class with few of them.
fn listed(class: &ClassUnicode) -> Vec<char> {
    let mut out = Vec::new();
    for r in class.ranges() {
        let start = u32::from(r.start()).max(0x80);
        for c in start..=u32::from(r.end()) {
            if let Some(c) = char::from_u32(c) {
                out.push(c);
            }
        }
    }
    out
}

/// The non-ASCII characters outside a class holding all but a few.
fn unlisted(class: &ClassUnicode) -> Vec<char> {
    let mut out = Vec::new();
    let mut next = 0x80u32;
    let gap = |from: u32, to: u32, out: &mut Vec<char>| {
        for c in from..to {
            if let Some(c) = char::from_u32(c) {
                out.push(c);
            }
        }
    };
    for r in class.ranges() {
        let (start, end) = (u32::from(r.start()), u32::from(r.end()));
        if end < 0x80 {
            continue;
        }
        gap(next, start.max(0x80), &mut out);
        next = end + 1;
    }
    gap(next, 0x11_0000, &mut out);
    out
}

/// Appends `c` as an ERE literal, escaped when it is a metacharacter.
fn push_literal(out: &mut String, c: char) -> Result<(), String> {
    if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
        return Err("a control character".into());
    }
    if ".[\\()*+?{|^$".contains(c) {
        out.push('\\');
    }
    out.push(c);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ere(pattern: &str) -> String {
        translate(pattern, false)
            .unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
            .text
    }

    #[test]
    fn forms() {
        for (pattern, want) in [
            ("error", "error"),
            ("^line \\d+5 ok$", "^line [0-9]+5 ok$"),
            ("a.b", "a.b"),
            ("(?:ab)+c", "(ab)+c"),
            ("(ab|cd)e", "(ab|cd)e"),
            ("ab|cd", "ab|cd"),
            ("(?:ab|cd)e", "(ab|cd)e"),
            ("a|", "a?"),
            ("(?:ab|)c", "(ab)?c"),
            ("a{2,5}?b{3}c{4,}", "a{2,5}b{3}c{4,}"),
            ("a+?", "a+"),
            ("[^ ]+", "[^ ]+"),
            ("[[:space:]]*x", "[[:space:]]*x"),
            ("[A-Za-z_][A-Za-z0-9_]*", "[A-Z_a-z][0-9A-Z_a-z]*"),
            ("[]a^-]", "[]a^-]"),
            ("[-^]", "[-^]"),
            ("[.:=\\[]", "[.:=[]"),
            (
                "\\.\\*\\(\\)\\[\\]\\{\\}\\|\\^\\$\\?\\+\\\\",
                "\\.\\*\\(\\)\\[]\\{}\\|\\^\\$\\?\\+\\\\",
            ),
            ("(✕|●|×)", "(×|●|✕)"),
            ("é+", "(é)+"),
            ("(?i)ERROR", "[Ee][Rr][Rr][Oo][Rr]"),
            ("(?i)k", "([Kk]|\u{212A})"),
            ("\\Astart\\z", "^start$"),
            ("(?m)^a$", "^a$"),
            ("", ""),
            ("a{0}b", "b"),
            ("[^\\n]", "."),
            ("(?s).", "."),
            ("\\w+", "[0-9A-Z_a-z]+"),
            ("\\S", "[^[:space:]]"),
            ("\\D", "[^0-9]"),
        ] {
            assert_eq!(ere(pattern), want, "{pattern:?}");
        }
    }

    #[test]
    fn refusals() {
        for pattern in [
            "\\bword\\b",
            "\\Bx",
            "\\p{Greek}",
            "(?-u:\\xff)",
            "a\\tb",
            "(?Rm)^a$",
            "a{256}",
            "[a&&b]",
            "(?-u:.)",
        ] {
            assert!(translate(pattern, false).is_err(), "{pattern:?}");
        }
    }

    #[test]
    fn where_each_form_is_exact() {
        let e = translate("\\d", false).unwrap();
        assert!(e.ascii_only && !e.utf8 && !e.posix && !e.sees_cr);
        let e = translate("[^ ]$", false).unwrap();
        assert!(!e.ascii_only && e.utf8 && e.sees_cr);
        let e = translate("[[:space:]]x", false).unwrap();
        assert!(e.posix && e.sees_cr && !e.utf8);
        let e = translate("error", false).unwrap();
        assert!(!e.ascii_only && !e.utf8 && !e.posix && !e.sees_cr);
        let g = Grep::new("(?i)ERROR", false);
        assert_eq!(g.folded.map(|e| e.text), Some("ERROR".to_owned()));
        let g = Grep::new("ERROR", true);
        assert_eq!(g.folded.map(|e| e.text), Some("ERROR".to_owned()));
        assert_eq!(g.expanded.unwrap().text, "[Ee][Rr][Rr][Oo][Rr]");
        assert!(Grep::new("(?i)a(?-i)b", false).folded.is_none());
    }

    /// Every default keep pattern has an ERE form, exact on ASCII and
    /// UTF-8 text alike (none is a Unicode class read as ASCII).
    #[test]
    fn the_default_keep_patterns_translate() {
        use crate::preview::Keep;
        for p in Keep::DEFAULT_PATTERNS.iter().chain(Keep::WEAK_PATTERNS) {
            let e = translate(p, false).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            assert!(!e.ascii_only, "{p:?}");
        }
    }

    /// Lines built from pieces that exercise the classes, anchors and case.
    fn lines(seed: u64, n: usize) -> Vec<String> {
        const PIECES: &[&str] = &[
            "a", "b", "A", "B", "e", "E", "r", "R", "o", "k", "K", "s", "\u{17f}", "\u{212a}", " ",
            "  ", "\t", "0", "5", "9", "٣", "line ", " ok", "error", "ERROR", "Error", "é", "É",
            "×", "●", "✕", "_", "-", ".", "[", "]", "^", "$", "(", ")", "*", "+", "?", "{", "}",
            "|", "\\", "'", "\u{a0}", "\u{2003}", "\r", "x", "::", "FAILED", "word", "ab", "cd",
        ];
        let mut rng = seed | 1;
        let mut next = |k: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % k as u64) as usize
        };
        (0..n)
            .map(|_| (0..next(8)).map(|_| PIECES[next(PIECES.len())]).collect())
            .collect()
    }

    /// The patterns the property test translates and runs.
    const PATTERNS: &[&str] = &[
        "error",
        "^line \\d+5 ok$",
        "(?i)ERROR",
        "(?i)k",
        "(?i)s+",
        "a.b",
        "^[^ ]+::[^ ]+ (FAILED|ERROR)( |$)",
        "^[[:space:]]*(✕|●|×) ",
        "[A-Za-z_][A-Za-z0-9_]*\\(",
        "\\d{2,}",
        "\\w+ \\w+",
        "\\s",
        "[]a^-]",
        "[.:=\\[]",
        "\\.|\\*|\\[|\\]|\\{|\\}|\\^|\\$|\\(|\\)|\\||\\\\",
        "é+|É",
        "ab|",
        "(?:ab|cd)+$",
        "^$",
        "^.$",
        "^..?$",
        "[^a-z ]",
        "[^é ]x",
        "x{2}",
        "(a|b){2,3}",
        "(?i)[a-c]r",
        "^(?:\\s*)?[0-9]+\\)",
        "\\S+$",
        "\\D\\W",
        "[^ ]+$",
        "(?i)straße|ẞ",
        "",
    ];

    /// Runs `grep -n -a [-i] -E ere` in `locale` over `lines`: the numbers
    /// of the lines it prints.
    fn grep_lines(ere: &str, fold: bool, locale: &str, lines: &[&String]) -> Vec<usize> {
        use std::io::Write as _;
        use std::process::{Command, Stdio};
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut args = vec!["-n", "-a"];
        if fold {
            args.push("-i");
        }
        args.extend(["-E", "--", ere]);
        let mut child = Command::new("grep")
            .args(&args)
            .env("LC_ALL", locale)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("grep runs");
        let mut stdin = child.stdin.take().expect("stdin");
        let feed = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
        let out = child.wait_with_output().expect("grep ends");
        feed.join().expect("fed").expect("written");
        assert!(
            out.stderr.is_empty(),
            "{ere:?}: {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split(':').next()?.parse().ok())
            .collect()
    }

    /// Random patterns of many constructs: the translation never panics,
    /// and every ERE it gives selects the lines `regex` selects, where its
    /// flags say it is exact.
    #[test]
    fn random_patterns_agree_with_grep() {
        const TOKENS: &[&str] = &[
            "a",
            "b",
            "k",
            "s",
            "E",
            "é",
            "●",
            ".",
            "\\d",
            "\\w",
            "\\s",
            "\\S",
            "\\D",
            "[^ ]",
            "[a-c]",
            "[^a-c]",
            "[[:space:]]",
            "[[:alpha:]]",
            "[]x]",
            "(?i)",
            "(?-i)",
            "(?:",
            "(",
            ")",
            ")",
            "|",
            "*",
            "+",
            "?",
            "*?",
            "{1,2}",
            "{2}",
            "^",
            "$",
            " ",
            "x",
            "\\.",
            "\\[",
            "]",
            "-",
            "\\b",
            "\\p{Greek}",
            "\\p{L}",
            "\\A",
            "\\z",
            "(?m)",
            "(?s)",
            "\\x41",
            "\\u{e9}",
        ];
        let have_grep = std::process::Command::new("grep")
            .arg("--version")
            .output()
            .is_ok();
        if !have_grep {
            eprintln!("no grep on this machine: only the translation is checked");
        }
        let mut rng: u64 = 0x0123_4567_89AB_CDEF;
        let mut next = |k: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % k as u64) as usize
        };
        let all = lines(0xABCDEF, 300);
        let ascii: Vec<&String> = all.iter().filter(|l| l.is_ascii()).collect();
        let every: Vec<&String> = all.iter().collect();
        let (mut checked, mut refused) = (0, 0);
        for _ in 0..3000 {
            let pattern: String = (0..1 + next(7))
                .map(|_| TOKENS[next(TOKENS.len())])
                .collect();
            let Ok(regex) = regex::bytes::Regex::new(&pattern) else {
                continue;
            };
            let grep = Grep::new(&pattern, false);
            let Ok(ere) = grep.expanded else {
                refused += 1;
                continue;
            };
            if !have_grep || checked >= 400 {
                continue;
            }
            checked += 1;
            let mut runs = vec![("C.UTF-8", &ascii)];
            if !(ere.ascii_only || ere.utf8 && ere.posix) {
                runs.push((if ere.posix { "C" } else { "C.UTF-8" }, &every));
            }
            for (locale, input) in runs {
                let want: Vec<usize> = input
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| regex.is_match(l.as_bytes()))
                    .map(|(n, _)| n + 1)
                    .collect();
                let got = grep_lines(&ere.text, false, locale, input);
                assert_eq!(got, want, "{pattern:?} as {:?} in {locale}", ere.text);
            }
        }
        eprintln!("{checked} patterns checked, {refused} refused");
        assert!(
            !have_grep || checked >= 200,
            "only {checked} checked ({refused} refused)"
        );
    }

    /// `grep -E` reads each translated pattern as `regex` does, on lines
    /// of every kind, in the locale the flags name (ASCII lines in C).
    #[test]
    fn grep_agrees_with_regex() {
        use std::process::Command;
        if Command::new("grep").arg("--version").output().is_err() {
            eprintln!("no grep on this machine: grep_agrees_with_regex skipped");
            return;
        }
        let mut matched = 0;
        for (i, pattern) in PATTERNS.iter().enumerate() {
            let all = lines(0x9E37_79B9 + i as u64, 400);
            let regex = regex::bytes::Regex::new(pattern).unwrap();
            let grep = Grep::new(pattern, false);
            let mut forms = vec![(grep.expanded.clone().unwrap(), false)];
            forms.extend(grep.folded.map(|f| (f, true)));
            for (ere, fold) in forms {
                for ascii in [true, false] {
                    if !ascii && (ere.ascii_only || (ere.utf8 && ere.posix)) {
                        continue;
                    }
                    let locale = if !ascii && ere.posix { "C" } else { "C.UTF-8" };
                    let input: Vec<&String> = all
                        .iter()
                        .filter(|l| !l.contains('\r') || !ere.sees_cr)
                        .filter(|l| !ascii || l.is_ascii())
                        .collect();
                    let got = grep_lines(&ere.text, fold, locale, &input);
                    let want: Vec<usize> = input
                        .iter()
                        .enumerate()
                        .filter(|(_, l)| regex.is_match(l.as_bytes()))
                        .map(|(n, _)| n + 1)
                        .collect();
                    assert_eq!(
                        got, want,
                        "{pattern:?} as {:?} (fold {fold}, ascii {ascii}, {locale})",
                        ere.text
                    );
                    matched += want.len();
                }
            }
        }
        assert!(matched > 2000, "only {matched} matching lines checked");
    }
}
