//! The notice line: its exact wording, and the paths and hints it accepts.
//!
//! ```text
//! [... 2748 lines (219503 bytes) omitted: lines 1001-3748 of 4748; full output not saved ...]
//! [... 2748 lines (219503 bytes) omitted: lines 1001-3748 of 4748; full output: <path>; read it with sed -n '1001,3748p' ...]
//! [... 2748 lines (219503 bytes) omitted: lines 1001-3748 of 4748; full output: <path>; read it with sed -n '1001,3748p'; <hint> ...]
//! ```
//! Counts say `1 line` / `1 byte` in the singular; the range always reads
//! `lines F-L` so that it parses the same way every time.

use std::fmt::Write;

/// The numbers a notice reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) omitted_lines: u64,
    pub(crate) omitted_bytes: u64,
    /// 1-based number of the first omitted line.
    pub(crate) first: u64,
    /// 1-based number of the last omitted line.
    pub(crate) last: u64,
    pub(crate) total_lines: u64,
}

/// Where the full output was saved, and an optional caller hint.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pointer<'a> {
    pub(crate) path: &'a str,
    pub(crate) hint: Option<&'a str>,
}

/// Appends the notice (without any line break) to `out`.
pub(crate) fn write(out: &mut String, counts: &Counts, pointer: Option<Pointer<'_>>) {
    let unit = |n: u64, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    // Writing into a String cannot fail.
    let _ = write!(
        out,
        "[... {} {} ({} {}) omitted: lines {}-{} of {}; ",
        counts.omitted_lines,
        unit(counts.omitted_lines, "line", "lines"),
        counts.omitted_bytes,
        unit(counts.omitted_bytes, "byte", "bytes"),
        counts.first,
        counts.last,
        counts.total_lines,
    );
    match pointer {
        None => out.push_str("full output not saved ...]"),
        Some(pointer) => {
            let _ = write!(
                out,
                "full output: {}; read it with sed -n '{},{}p'",
                pointer.path, counts.first, counts.last
            );
            if let Some(hint) = pointer.hint {
                out.push_str("; ");
                out.push_str(hint);
            }
            out.push_str(" ...]");
        }
    }
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

    fn counts(omitted_lines: u64, omitted_bytes: u64, first: u64, last: u64, total: u64) -> Counts {
        Counts {
            omitted_lines,
            omitted_bytes,
            first,
            last,
            total_lines: total,
        }
    }

    #[test]
    fn reference_wording() {
        let c = counts(2748, 219503, 1001, 3748, 4748);
        let mut plain = String::new();
        write(&mut plain, &c, None);
        assert_eq!(
            plain,
            "[... 2748 lines (219503 bytes) omitted: lines 1001-3748 of 4748; full output not saved ...]"
        );
        let mut saved = String::new();
        let pointer = Pointer {
            path: "/w/o.txt",
            hint: None,
        };
        write(&mut saved, &c, Some(pointer));
        assert_eq!(
            saved,
            "[... 2748 lines (219503 bytes) omitted: lines 1001-3748 of 4748; full output: /w/o.txt; read it with sed -n '1001,3748p' ...]"
        );
        let mut hinted = String::new();
        let pointer = Pointer {
            path: "/w/o.txt",
            hint: Some("use exec_command"),
        };
        write(&mut hinted, &c, Some(pointer));
        assert!(hinted.ends_with("sed -n '1001,3748p'; use exec_command ...]"));
    }

    #[test]
    fn singular_counts() {
        let mut text = String::new();
        write(&mut text, &counts(1, 1, 3, 3, 5), None);
        assert_eq!(
            text,
            "[... 1 line (1 byte) omitted: lines 3-3 of 5; full output not saved ...]"
        );
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
