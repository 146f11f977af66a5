//! The spill handshake: the core says a spill is needed, the caller saves the
//! full output and answers, the core renders the preview.

use super::limits::Limits;
use super::notice::{self, Pointer};
use super::plan::{self, Retained};
use super::result::Preview;

/// What the caller did with the full output it was asked to spill.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SpillOutcome {
    /// Saved at `path`: the notice names it and how to read the hidden lines.
    Saved {
        /// Where the full output now is (one line, no control characters).
        path: String,
    },
    /// The writer failed or raised: the plain notice is used and `reason`
    /// becomes [`Preview::spill_error`].
    Failed {
        /// What went wrong.
        reason: String,
    },
    /// Nothing was saved (no writer): the plain notice, no error.
    NotSaved,
}

/// The outcome of bounding: a preview, or a request to spill first.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a spill may be needed before the preview can be rendered"]
pub enum Bounded {
    /// The input fits both limits: the preview is the input, unchanged.
    Fits(Preview),
    /// The input must be cut. Save the full output under
    /// [`PendingSpill::spill_id`], then call [`PendingSpill::render`].
    NeedsSpill(PendingSpill),
}

impl Bounded {
    /// The spill id when a spill is needed.
    pub fn spill_id(&self) -> Option<&str> {
        match self {
            Bounded::Fits(_) => None,
            Bounded::NeedsSpill(pending) => Some(pending.spill_id()),
        }
    }

    /// The preview: unchanged input, or [`PendingSpill::render`] with
    /// `outcome` and `hint` (both ignored when the input fits).
    pub fn render(self, outcome: SpillOutcome, hint: Option<&str>) -> Preview {
        match self {
            Bounded::Fits(preview) => preview,
            Bounded::NeedsSpill(pending) => pending.render(outcome, hint),
        }
    }
}

/// Input that must be cut, waiting for the caller's spill outcome.
///
/// Holds only the first and last `2 × max_bytes + 8` input bytes, whatever the
/// input's size. Render it as often as needed (e.g. again with
/// [`SpillOutcome::NotSaved`] if the saved file is later lost).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSpill {
    pub(crate) limits: Limits,
    pub(crate) head: Vec<u8>,
    pub(crate) tail: Vec<u8>,
    pub(crate) total_bytes: u64,
    pub(crate) newlines: u64,
    pub(crate) spill_id: String,
}

impl PendingSpill {
    /// The id to save the full output under: the caller's, or by default 32 hex
    /// digits derived from the content (deterministic, not cryptographic).
    pub fn spill_id(&self) -> &str {
        &self.spill_id
    }

    /// Bytes of the input.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Lines of the input.
    pub fn total_lines(&self) -> u64 {
        self.retained().total_lines()
    }

    fn retained(&self) -> Retained<'_> {
        Retained {
            head: &self.head,
            tail: &self.tail,
            total: self.total_bytes,
            newlines: self.newlines,
        }
    }

    /// Renders the preview for the caller's spill outcome.
    ///
    /// With [`SpillOutcome::Saved`] the notice ends
    /// `full output: <path>; read it with sed -n 'F,Lp'` followed, when `hint`
    /// is given and not empty, by `; <hint>`, then ` ...]`. The plain notice
    /// (`full output not saved`) is used instead, with the reason in
    /// [`Preview::spill_error`], when the path is empty, the path or hint holds
    /// a line break or control character, or the notice naming it cannot fit
    /// in `max_bytes`. The hint is only used together with a path.
    pub fn render(&self, outcome: SpillOutcome, hint: Option<&str>) -> Preview {
        let retained = self.retained();
        let hint = hint.filter(|h| !h.is_empty());
        let (path, mut error) = match outcome {
            SpillOutcome::Saved { path } => {
                let refused = if path.is_empty() {
                    Some("spill path is empty".to_owned())
                } else if notice::breaks_line(&path) {
                    Some("spill path contains a line break or control character".to_owned())
                } else if hint.is_some_and(notice::breaks_line) {
                    Some("spill hint contains a line break or control character".to_owned())
                } else {
                    None
                };
                match refused {
                    Some(reason) => (None, Some(reason)),
                    None => (Some(path), None),
                }
            }
            SpillOutcome::Failed { reason } if reason.is_empty() => {
                (None, Some("spill writer failed".to_owned()))
            }
            SpillOutcome::Failed { reason } => (None, Some(reason)),
            SpillOutcome::NotSaved => (None, None),
        };
        let mut solved = None;
        if let Some(path) = &path {
            let pointer = Pointer { path, hint };
            solved = plan::solve(&retained, &self.limits, Some(pointer)).map(|s| (s, pointer));
            if solved.is_none() {
                error = Some(format!(
                    "spill path too long: the notice naming it does not fit in max_bytes={}",
                    self.limits.max_bytes()
                ));
            }
        }
        let ((cut, counts), pointer) = match solved {
            Some((solution, pointer)) => (solution, Some(pointer)),
            None => match plan::solve(&retained, &self.limits, None) {
                Some(solution) => (solution, None),
                // Unreachable: limits always hold the plain notice (MIN_MAX_BYTES).
                None => return self.notice_only_fallback(),
            },
        };
        let text = plan::assemble(&retained, &cut, &counts, pointer);
        debug_assert!(text.len() <= self.limits.max_bytes());
        debug_assert!(plan::preview_lines(&cut) <= self.limits.max_lines() as u64);
        Preview {
            text,
            truncated: true,
            total_lines: counts.total_lines,
            total_bytes: self.total_bytes,
            head_bytes: cut.head_bytes(),
            tail_bytes: cut.tail_bytes(self.total_bytes),
            omitted_lines: counts.omitted_lines,
            omitted_bytes: counts.omitted_bytes,
            omitted_range: Some((counts.first, counts.last)),
            spill_id: Some(self.spill_id.clone()),
            spill_path: pointer.map(|p| p.path.to_owned()),
            spill_error: error,
        }
    }

    /// A preview with an empty text, for the impossible case where not even
    /// the plain notice fits; keeps `render` total without panicking.
    fn notice_only_fallback(&self) -> Preview {
        Preview {
            text: String::new(),
            truncated: true,
            total_lines: self.total_lines(),
            total_bytes: self.total_bytes,
            head_bytes: 0,
            tail_bytes: 0,
            omitted_lines: self.total_lines(),
            omitted_bytes: self.total_bytes,
            omitted_range: Some((1, self.total_lines())),
            spill_id: Some(self.spill_id.clone()),
            spill_path: None,
            spill_error: Some("limits too small for the notice".to_owned()),
        }
    }
}
