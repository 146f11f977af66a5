//! The bounded preview and its accounting, as plain data.

use std::borrow::Cow;

/// A bounded preview of some output, with exact accounting.
///
/// When nothing was cut, `text` is the input rendered as UTF-8 and every
/// `omitted_*`/`spill_*` field is empty. Counts always add up:
/// `head_bytes + omitted_bytes + tail_bytes == total_bytes`.
///
/// Like [`String::from_utf8_lossy`], the text borrows the input when it is
/// the input unchanged (it fits and is valid UTF-8): no copy is made. A
/// preview that was cut, or that comes from a
/// [`StreamingBounder`](super::StreamingBounder), owns its text
/// (`Preview<'static>`); [`Preview::into_owned`] gives one that outlives
/// the input.
///
/// ```
/// use std::borrow::Cow;
/// use dory_wire::preview::{Bounder, Preview, SpillOutcome};
///
/// let input = b"short output\n".to_vec();
/// let preview = Bounder::new(10, 100).bound(&input)?.render(SpillOutcome::NotSaved, None);
/// assert!(matches!(preview.text, Cow::Borrowed("short output\n")));
/// let kept: Preview<'static> = preview.into_owned();
/// drop(input);
/// assert_eq!(kept.text, "short output\n");
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Preview<'a> {
    /// The preview: valid UTF-8 within both limits, notice included;
    /// borrowed from the input when it is the input unchanged.
    pub text: Cow<'a, str>,
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

impl Preview<'_> {
    /// The same preview, owning its text (a copy only when it was borrowed).
    pub fn into_owned(self) -> Preview<'static> {
        Preview {
            text: Cow::Owned(self.text.into_owned()),
            truncated: self.truncated,
            total_lines: self.total_lines,
            total_bytes: self.total_bytes,
            head_bytes: self.head_bytes,
            tail_bytes: self.tail_bytes,
            omitted_lines: self.omitted_lines,
            omitted_bytes: self.omitted_bytes,
            omitted_range: self.omitted_range,
            spill_id: self.spill_id,
            spill_path: self.spill_path,
            spill_error: self.spill_error,
        }
    }
}

impl<'a> Preview<'a> {
    /// The preview of input that fits: its rendering, unchanged.
    pub(crate) fn unchanged(text: Cow<'a, str>, total_lines: u64, total_bytes: u64) -> Self {
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
