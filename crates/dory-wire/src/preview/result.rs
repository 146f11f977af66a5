//! The bounded preview and its accounting, as plain data.

/// A bounded preview of some output, with exact accounting.
///
/// When nothing was cut, `text` is the input rendered as UTF-8 and every
/// `omitted_*`/`spill_*` field is empty. Counts always add up:
/// `head_bytes + omitted_bytes + tail_bytes == total_bytes`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Preview {
    /// The preview: valid UTF-8 within both limits, notice included.
    pub text: String,
    /// Whether anything was cut (then `text` holds exactly one notice line).
    pub truncated: bool,
    /// Lines of the input (a final run without `\n` counts as a line).
    pub total_lines: u64,
    /// Bytes of the input.
    pub total_bytes: u64,
    /// Input bytes shown before the notice (all of them when not truncated).
    pub head_bytes: u64,
    /// Input bytes shown after the notice.
    pub tail_bytes: u64,
    /// Input lines with at least one byte not shown.
    pub omitted_lines: u64,
    /// Input bytes not shown.
    pub omitted_bytes: u64,
    /// First and last omitted line, 1-based and inclusive.
    pub omitted_range: Option<(u64, u64)>,
    /// The spill id the caller was asked to save the full output under.
    pub spill_id: Option<String>,
    /// The path the notice points at (only when it does).
    pub spill_path: Option<String>,
    /// Why the notice does not point at a saved file, when the caller tried to
    /// save one (writer failure, refused or oversized path or hint).
    pub spill_error: Option<String>,
}

impl Preview {
    /// The preview of input that fits: its rendering, unchanged.
    pub(crate) fn unchanged(text: String, total_lines: u64, total_bytes: u64) -> Self {
        Preview {
            text,
            truncated: false,
            total_lines,
            total_bytes,
            head_bytes: total_bytes,
            tail_bytes: 0,
            omitted_lines: 0,
            omitted_bytes: 0,
            omitted_range: None,
            spill_id: None,
            spill_path: None,
            spill_error: None,
        }
    }
}
