//! The notice line: its forms, their exact wording and length, and the paths
//! and hints it accepts.
//!
//! ```text
//! [... 219503 bytes omitted: lines 1001-3748 of 4748; sed -n '1001,3748p' /w/out.txt ...]    pointer
//! [... 219503 bytes omitted: lines 1001-3748 of 4748; sed -n '1001,3748p' /w/out.txt; <hint> ...]
//! [... 219503 bytes omitted: lines 1001-3748 of 4748 ...]                                      plain
//! [... 127 bytes omitted: line 1 of 1, partly shown ...]
//! [... 9000 bytes omitted: lines 5-9 of 20, 5 and 9 partly shown ...]
//! [... 219503 bytes omitted ...]                                                               compact
//! [... omitted ...]                                                                            minimal
//! ```
//! Counts are exact, without separators, and `1 byte` is singular. The range
//! names every line with a hidden byte; the lines of it that the preview shows
//! in part (the head's last line, the tail's first) are named after it. The
//! path is quoted for the shell when it needs to be, so the `sed` command runs
//! as it is written.

/// The numbers a notice reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) omitted_bytes: u64,
    /// 1-based number of the first line with a hidden byte.
    pub(crate) first: u64,
    /// 1-based number of the last line with a hidden byte.
    pub(crate) last: u64,
    pub(crate) total_lines: u64,
    /// The head ends inside line `first`: that line is shown in part.
    pub(crate) first_partial: bool,
    /// The tail starts inside line `last`: that line is shown in part.
    pub(crate) last_partial: bool,
}

impl Counts {
    /// Input lines with at least one hidden byte.
    pub(crate) fn omitted_lines(&self) -> u64 {
        self.last - self.first + 1
    }
}

/// Where the full output was saved, and an optional caller hint.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pointer<'a> {
    path: &'a str,
    hint: Option<&'a str>,
    /// Every byte of the path is shell-safe: written as it is, and no line break.
    safe: bool,
    /// Bytes of `" PATH[; HINT]"` as written (the path as a shell word).
    fixed_len: usize,
}

impl<'a> Pointer<'a> {
    pub(crate) fn new(path: &'a str, hint: Option<&'a str>) -> Self {
        let safe = all_shell_safe(path.as_bytes());
        let word = if safe {
            path.len()
        } else {
            // Each `'` becomes `'\''` (3 more bytes); two quotes around it all.
            path.len() + 2 + 3 * path.bytes().filter(|&b| b == b'\'').count()
        };
        Pointer {
            path,
            hint,
            safe,
            fixed_len: 1 + word + hint.map_or(0, |h| 2 + h.len()),
        }
    }

    /// Whether the path would break the notice's line.
    pub(crate) fn path_breaks_line(&self) -> bool {
        !self.safe && breaks_line(self.path)
    }
}

/// The notice forms, from the richest to the shortest.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Form<'a> {
    /// Counts, range, and the `sed` command reading the hidden lines from the path.
    Pointer(Pointer<'a>),
    /// Counts and range.
    Plain,
    /// Omitted bytes only.
    Compact,
    /// `[... omitted ...]`.
    Minimal,
}

const OPEN: &str = "[... ";
const CLOSE: &str = " ...]";
const MINIMAL: &str = "[... omitted ...]";

/// Powers of ten that fit in a `u64`.
const POWERS: [u64; 20] = {
    let mut table = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// Decimal digits of `n` (a notice's length is computed several times per
/// preview: `log10(2) ≈ 1233 / 4096` gives the estimate, one table look-up
/// corrects it).
fn digits(n: u64) -> usize {
    let bits = (64 - (n | 1).leading_zeros()) as usize;
    let guess = (bits * 1233) >> 12;
    (guess + usize::from(n >= POWERS[guess])).max(1)
}

/// `"00"` to `"99"`, back to back.
const PAIRS: &str = "\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// Appends `n` in decimal (no formatting machinery: this runs per preview):
/// the digit pairs are found from the most significant down, then appended
/// as slices of [`PAIRS`].
fn push_u64(out: &mut String, n: u64) {
    // Pairs of digits, least significant first; the top one may be a single digit.
    let mut pairs = [0usize; 10];
    let mut count = 0;
    let mut rest = n;
    while rest >= 100 {
        pairs[count] = (rest % 100) as usize;
        rest /= 100;
        count += 1;
    }
    let top = rest as usize;
    if top >= 10 {
        out.push_str(PAIRS.get(2 * top..2 * top + 2).unwrap_or_default());
    } else {
        out.push_str(PAIRS.get(2 * top + 1..2 * top + 2).unwrap_or_default());
    }
    for &pair in pairs[..count].iter().rev() {
        out.push_str(PAIRS.get(2 * pair..2 * pair + 2).unwrap_or_default());
    }
}

/// Bytes a POSIX shell word may hold without quoting: `[A-Za-z0-9/._+,:@%=-]`,
/// tested as ranges (`+` to `:` holds `+,-./0-9:`; `@` to `Z`) so that a whole
/// path is checked by vector compares, without a branch or look-up per byte.
fn shell_safe(byte: u8) -> bool {
    byte.wrapping_sub(b'+') <= b':' - b'+'
        || byte.wrapping_sub(b'@') <= b'Z' - b'@'
        || byte.wrapping_sub(b'a') <= b'z' - b'a'
        || byte == b'_'
        || byte == b'%'
        || byte == b'='
}

/// Whether every byte of `text` is [`shell_safe`] (no early exit: the loop
/// is vectorised, and paths are short).
fn all_shell_safe(text: &[u8]) -> bool {
    text.iter().fold(true, |all, &b| all & shell_safe(b))
}

/// Appends `path` as one shell word: as it is when every byte is safe, else
/// in single quotes with each `'` written `'\''`.
fn push_shell_word(out: &mut String, path: &str, safe: bool) {
    if safe {
        out.push_str(path);
        return;
    }
    out.push('\'');
    for (i, part) in path.split('\'').enumerate() {
        if i > 0 {
            out.push_str("'\\''");
        }
        out.push_str(part);
    }
    out.push('\'');
}

/// Appends `path` as one shell word (see [`push_shell_word`]).
pub(crate) fn push_shell_path(out: &mut String, path: &str) {
    push_shell_word(out, path, all_shell_safe(path.as_bytes()));
}

/// `" bytes omitted"` or `" byte omitted"`.
fn bytes_word(n: u64) -> &'static str {
    if n == 1 {
        " byte omitted"
    } else {
        " bytes omitted"
    }
}

/// At least the bytes the notice grows by when it says that line `line` is
/// shown in part (`", N partly shown"`; naming both ends costs less).
pub(crate) fn partial_len(line: u64) -> usize {
    ", ".len() + digits(line) + " partly shown".len()
}

fn push_range(out: &mut String, c: &Counts) {
    if c.first == c.last {
        out.push_str(": line ");
        push_u64(out, c.first);
    } else {
        out.push_str(": lines ");
        push_u64(out, c.first);
        out.push('-');
        push_u64(out, c.last);
    }
    out.push_str(" of ");
    push_u64(out, c.total_lines);
    match (c.first == c.last, c.first_partial, c.last_partial) {
        (_, false, false) => return,
        (true, _, _) => {}
        (false, true, true) => {
            out.push_str(", ");
            push_u64(out, c.first);
            out.push_str(" and ");
            push_u64(out, c.last);
        }
        (false, true, false) => {
            out.push_str(", ");
            push_u64(out, c.first);
        }
        (false, false, true) => {
            out.push_str(", ");
            push_u64(out, c.last);
        }
    }
    out.push_str(if c.first == c.last {
        ", partly shown"
    } else {
        " partly shown"
    });
}

/// Length of the words naming the lines shown in part (`", partly shown"`,
/// `", F and L partly shown"`…): what [`len`] adds for `first_partial` and
/// `last_partial`.
pub(crate) fn partial_words_len(form: &Form<'_>, c: &Counts) -> usize {
    if !matches!(form, Form::Plain | Form::Pointer(_)) {
        return 0;
    }
    partial_len_of(c, digits(c.first), digits(c.last))
}

/// [`partial_words_len`] for a form with a range, given the digits of `first`
/// and `last`.
fn partial_len_of(c: &Counts, first_digits: usize, last_digits: usize) -> usize {
    const WORDS: usize = " partly shown".len();
    match (c.first == c.last, c.first_partial, c.last_partial) {
        (_, false, false) => 0,
        (true, _, _) => ", partly shown".len(),
        (false, true, true) => ", ".len() + first_digits + " and ".len() + last_digits + WORDS,
        (false, true, false) => ", ".len() + first_digits + WORDS,
        (false, false, true) => ", ".len() + last_digits + WORDS,
    }
}

fn push_pointer(out: &mut String, c: &Counts, p: &Pointer<'_>) {
    out.push_str("; sed -n '");
    push_u64(out, c.first);
    out.push(',');
    push_u64(out, c.last);
    out.push_str("p' ");
    push_shell_word(out, p.path, p.safe);
    if let Some(hint) = p.hint {
        out.push_str("; ");
        out.push_str(hint);
    }
}

/// The length of the notice [`write`] appends (each count's digits are
/// found once: the planner asks this for every candidate cut).
pub(crate) fn len(form: &Form<'_>, c: &Counts) -> usize {
    if let Form::Minimal = form {
        return MINIMAL.len();
    }
    let counted = OPEN.len() + digits(c.omitted_bytes) + bytes_word(c.omitted_bytes).len();
    if let Form::Compact = form {
        return counted + CLOSE.len();
    }
    let first = digits(c.first);
    let (last, range) = if c.first == c.last {
        (first, ": line ".len() + first)
    } else {
        let last = digits(c.last);
        (last, ": lines ".len() + first + "-".len() + last)
    };
    let plain = counted
        + range
        + " of ".len()
        + digits(c.total_lines)
        + partial_len_of(c, first, last)
        + CLOSE.len();
    match form {
        Form::Pointer(p) => {
            plain + "; sed -n '".len() + first + ",".len() + last + "p'".len() + p.fixed_len
        }
        _ => plain,
    }
}

/// Appends the notice (without any line break) to `out`.
pub(crate) fn write(out: &mut String, form: &Form<'_>, c: &Counts) {
    if let Form::Minimal = form {
        out.push_str(MINIMAL);
        return;
    }
    out.push_str(OPEN);
    push_u64(out, c.omitted_bytes);
    out.push_str(bytes_word(c.omitted_bytes));
    if let Form::Plain | Form::Pointer(_) = form {
        push_range(out, c);
    }
    if let Form::Pointer(p) = form {
        push_pointer(out, c, p);
    }
    out.push_str(CLOSE);
}

/// True when `text` would break the notice's single line: a control
/// character (`\n`, `\r`, tab, NUL, C1 controls…) or U+2028 / U+2029.
pub(crate) fn breaks_line(text: &str) -> bool {
    text.chars()
        .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(bytes: u64, first: u64, last: u64, total: u64) -> Counts {
        Counts {
            omitted_bytes: bytes,
            first,
            last,
            total_lines: total,
            first_partial: false,
            last_partial: false,
        }
    }

    fn text(form: &Form<'_>, c: &Counts) -> String {
        let mut out = String::new();
        write(&mut out, form, c);
        assert_eq!(out.len(), len(form, c), "{out}");
        out
    }

    #[test]
    fn reference_wording() {
        let c = counts(219503, 1001, 3748, 4748);
        assert_eq!(
            text(&Form::Plain, &c),
            "[... 219503 bytes omitted: lines 1001-3748 of 4748 ...]"
        );
        let pointer = Pointer::new("/w/o.txt", None);
        assert_eq!(
            text(&Form::Pointer(pointer), &c),
            "[... 219503 bytes omitted: lines 1001-3748 of 4748; sed -n '1001,3748p' /w/o.txt ...]"
        );
        let hinted = Pointer::new("/w/o.txt", Some("use exec_command"));
        assert!(text(&Form::Pointer(hinted), &c)
            .ends_with("sed -n '1001,3748p' /w/o.txt; use exec_command ...]"));
        assert_eq!(text(&Form::Compact, &c), "[... 219503 bytes omitted ...]");
        assert_eq!(text(&Form::Minimal, &c), "[... omitted ...]");
    }

    #[test]
    fn partial_lines_and_singulars() {
        let mut c = counts(1, 3, 3, 5);
        assert_eq!(
            text(&Form::Plain, &c),
            "[... 1 byte omitted: line 3 of 5 ...]"
        );
        c.first_partial = true;
        assert_eq!(
            text(&Form::Plain, &c),
            "[... 1 byte omitted: line 3 of 5, partly shown ...]"
        );
        let mut c = counts(900, 5, 9, 20);
        c.first_partial = true;
        assert!(text(&Form::Plain, &c).ends_with("lines 5-9 of 20, 5 partly shown ...]"));
        c.last_partial = true;
        assert!(text(&Form::Plain, &c).ends_with("lines 5-9 of 20, 5 and 9 partly shown ...]"));
        c.first_partial = false;
        assert!(text(&Form::Plain, &c).ends_with("lines 5-9 of 20, 9 partly shown ...]"));
    }

    #[test]
    fn digits_are_counted() {
        for n in [0u64, 1, 9, 10, 99, 100, 999, 1000, u64::MAX / 10, u64::MAX]
            .into_iter()
            .chain((0..64).map(|b| 1u64 << b))
            .chain((1..20).flat_map(|i| [POWERS[i] - 1, POWERS[i], POWERS[i] + 1]))
        {
            assert_eq!(digits(n), n.to_string().len(), "{n}");
        }
    }

    #[test]
    fn shell_safe_bytes_are_exactly_the_listed_ones() {
        for b in 0..=255u8 {
            let listed = b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b);
            assert_eq!(shell_safe(b), listed, "byte {b:#04x}");
            assert_eq!(all_shell_safe(&[b'a', b, b'z']), listed, "byte {b:#04x}");
        }
        assert!(all_shell_safe(b""));
    }

    #[test]
    fn paths_are_shell_words() {
        let c = counts(10, 1, 2, 3);
        for (path, word) in [
            ("/a/b-c_d.txt", "/a/b-c_d.txt"),
            ("/tmp/out put.txt", "'/tmp/out put.txt'"),
            ("/it's.txt", "'/it'\\''s.txt'"),
            ("/é😀", "'/é😀'"),
        ] {
            let form = Form::Pointer(Pointer::new(path, None));
            assert!(
                text(&form, &c).ends_with(&format!("p' {word} ...]")),
                "{path}"
            );
        }
    }

    #[test]
    fn lengths_match_for_extreme_counts() {
        for n in [0, 1, 9, 10, 99, 100, u64::MAX / 10, u64::MAX] {
            for (first_partial, last_partial) in
                [(false, false), (true, false), (false, true), (true, true)]
            {
                let c = Counts {
                    omitted_bytes: n,
                    first: n.max(1) / 2 + 1,
                    last: n.max(1),
                    total_lines: n.max(1),
                    first_partial,
                    last_partial,
                };
                let pointer = Pointer::new("/x y", Some("h"));
                for form in [
                    Form::Pointer(pointer),
                    Form::Plain,
                    Form::Compact,
                    Form::Minimal,
                ] {
                    text(&form, &c);
                }
            }
        }
    }

    #[test]
    fn line_breakers_are_refused() {
        for bad in [
            "a\nb",
            "a\rb",
            "a\tb",
            "\u{0}",
            "\u{85}",
            "a\u{2028}b",
            "\u{7f}",
        ] {
            assert!(breaks_line(bad), "{bad:?}");
        }
        assert!(!breaks_line("/tmp/out put/é😀.txt"));
    }
}
