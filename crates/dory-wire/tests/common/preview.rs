//! What the preview tests share: the reference notice wording and the
//! counting rules of docs/preview.md, written independently of the crate.

use dory_wire::preview::{Keep, Preview};
use serde_json::Value;

/// A vector's `keep` value (docs/VECTORS.md): `null` (none), `"defaults"`,
/// or a list of patterns, which the core may refuse (the inner error). The
/// outer error is a malformed vector.
pub fn keep_of(value: &Value) -> Result<Result<Keep, dory_wire::Error>, String> {
    match value {
        Value::Null => Ok(Ok(Keep::none())),
        Value::String(s) if s == "defaults" => Ok(Ok(Keep::defaults())),
        Value::Array(patterns) => {
            let patterns: Option<Vec<&str>> = patterns.iter().map(Value::as_str).collect();
            Ok(Keep::patterns(
                patterns.ok_or("a keep pattern is not a string")?,
            ))
        }
        other => Err(format!("bad keep {other}")),
    }
}

/// How every language renders kept bytes: U+FFFD per maximal invalid run.
pub fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Lines as docs/preview.md counts them: runs ending with `\n`, plus a last
/// run without one.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// `path` as one POSIX shell word: unchanged when every byte is in
/// `[A-Za-z0-9/._+,:@%=-]`, else single-quoted with `'` written `'\''`.
pub fn shell_word(path: &str) -> String {
    let safe = |b: u8| b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b);
    if path.bytes().all(safe) {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// The notices a truncated preview of `data` may carry, richest first: the
/// pointer form when it names a path, else the plain, compact and minimal
/// forms. Empty when the preview has no range.
pub fn expected_notices(p: &Preview, data: &[u8], hint: Option<&str>) -> Vec<String> {
    let Some((first, last)) = p.omitted_range else {
        return Vec::new();
    };
    let head = p.head_bytes as usize;
    let tail_start = data.len() - p.tail_bytes as usize;
    // A side that ends (starts) inside a line shows that line in part.
    let first_partial = head > 0 && data[head - 1] != b'\n';
    let last_partial = p.tail_bytes > 0 && data[tail_start - 1] != b'\n';
    let bytes = match p.omitted_bytes {
        1 => "1 byte omitted".to_owned(),
        n => format!("{n} bytes omitted"),
    };
    let mut range = if first == last {
        format!(": line {first} of {}", p.total_lines)
    } else {
        format!(": lines {first}-{last} of {}", p.total_lines)
    };
    match (first == last, first_partial, last_partial) {
        (_, false, false) => {}
        (true, _, _) => range += ", partly shown",
        (false, true, true) => range += &format!(", {first} and {last} partly shown"),
        (false, true, false) => range += &format!(", {first} partly shown"),
        (false, false, true) => range += &format!(", {last} partly shown"),
    }
    if let Some(path) = &p.spill_path {
        let mut pointer = format!("; sed -n '{first},{last}p' {}", shell_word(path));
        if let Some(hint) = hint.filter(|h| !h.is_empty()) {
            pointer += &format!("; {hint}");
        }
        return vec![format!("[... {bytes}{range}{pointer} ...]")];
    }
    vec![
        format!("[... {bytes}{range} ...]"),
        format!("[... {bytes} ...]"),
        "[... omitted ...]".to_owned(),
    ]
}

/// The notice line of a truncated preview's text: what lies between the
/// rendered head (plus its line break) and the line break before the tail.
pub fn notice_of<'a>(p: &'a Preview, data: &[u8]) -> Option<&'a str> {
    let head = p.head_bytes as usize;
    let tail_start = data.len().checked_sub(p.tail_bytes as usize)?;
    let mut rest = p.text.strip_prefix(lossy(&data[..head]).as_str())?;
    if head > 0 && data[head - 1] != b'\n' {
        rest = rest.strip_prefix('\n')?;
    }
    if tail_start < data.len() {
        rest = rest
            .strip_suffix(lossy(&data[tail_start..]).as_str())?
            .strip_suffix('\n')?;
    }
    Some(rest)
}
