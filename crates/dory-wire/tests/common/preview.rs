//! What the preview tests share: the reference notice wording and the
//! counting rules of docs/preview.md, written independently of the crate.

use dory_wire::preview::Preview;

/// How every language renders kept bytes: U+FFFD per maximal invalid run.
pub fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Lines as docs/preview.md counts them: runs ending with `\n`, plus a last run
/// without one.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// The notice a truncated preview must carry; `None` when it has no range.
pub fn expected_notice(p: &Preview, hint: Option<&str>) -> Option<String> {
    let (first, last) = p.omitted_range?;
    let n = |count: u64, word: &str| format!("{count} {word}{}", if count == 1 { "" } else { "s" });
    let mut text = format!(
        "[... {} ({}) omitted: lines {first}-{last} of {}; ",
        n(p.omitted_lines, "line"),
        n(p.omitted_bytes, "byte"),
        p.total_lines
    );
    match &p.spill_path {
        None => text += "full output not saved ...]",
        Some(path) => {
            text += &format!("full output: {path}; read it with sed -n '{first},{last}p'");
            if let Some(hint) = hint.filter(|h| !h.is_empty()) {
                text += &format!("; {hint}");
            }
            text += " ...]";
        }
    }
    Some(text)
}
