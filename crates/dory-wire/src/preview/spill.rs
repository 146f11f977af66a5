//! The spill handshake: the core says a spill is needed, the caller saves the
//! full output and answers, the core renders the preview.

use std::borrow::Cow;
use std::fmt;

use super::fit;
use super::limits::{Limits, TokenLimit};
use super::notice::{self, Form, Pointer};
use super::plan::{Plan, Planner, Retained};
use super::result::{Notice, NoticeKind, Preview};
use super::shape::SpillExtras;
use super::stream::Kept;

/// The longest spill id a spill file is named after ([`spill_file_name`]).
pub const MAX_SPILL_ID_LEN: usize = 128;

/// The file name a spill writer saves `spill_id`'s output under:
/// `<spill_id><suffix>`, when both are plain file-name parts — the id 1 to
/// [`MAX_SPILL_ID_LEN`] of `A-Z a-z 0-9 . _ -` and not `.` or `..`, the
/// suffix of the same characters. One rule for every client's spill
/// directory (Rust `SpillDirectory`, Python `SpillDirectory`, JS
/// `SpillDirectory`): an id the bounder made always passes; an id a caller
/// chose that could name another directory never does.
///
/// ```
/// use dory_wire::preview::spill_file_name;
///
/// assert_eq!(spill_file_name("run-0123-combined", ".txt")?, "run-0123-combined.txt");
/// for bad in ["", ".", "..", "a/b", "../etc", "a b", "é"] {
///     let err = spill_file_name(bad, ".txt").unwrap_err();
///     assert_eq!(err.code(), "invalid_argument");
/// }
/// assert!(spill_file_name("ok", "/x").is_err());
/// # Ok::<(), dory_wire::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) (argument
/// `spill_id`, or `suffix`) otherwise.
pub fn spill_file_name(spill_id: &str, suffix: &str) -> Result<String, crate::Error> {
    let plain = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    };
    if spill_id.is_empty()
        || spill_id.len() > MAX_SPILL_ID_LEN
        || !plain(spill_id)
        || spill_id == "."
        || spill_id == ".."
    {
        return Err(crate::Error::InvalidArgument {
            argument: "spill_id".to_owned(),
            reason: format!(
                "{spill_id:?} is not a plain file name (1 to {MAX_SPILL_ID_LEN} of A-Z, a-z, 0-9, '.', '_', '-'; not . or ..)"
            ),
        });
    }
    if !plain(suffix) {
        return Err(crate::Error::InvalidArgument {
            argument: "suffix".to_owned(),
            reason: format!(
                "{suffix:?} is not part of a plain file name (A-Z, a-z, 0-9, '.', '_', '-')"
            ),
        });
    }
    Ok(format!("{spill_id}{suffix}"))
}

/// What the caller did with the full output it was asked to spill.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SpillOutcome {
    /// Saved at `path`: the notice names it and how to read the hidden lines.
    Saved {
        /// Where the full output now is (one line, no control characters).
        path: String,
    },
    /// Saving failed: no path in the notice, and `reason` (or, when empty,
    /// "spill writer failed") becomes [`Preview::spill_error`].
    Failed {
        /// What went wrong, in the caller's words.
        reason: String,
    },
    /// Nothing was saved (no writer): no path in the notice, no error.
    NotSaved,
}

impl From<SpillError> for SpillOutcome {
    /// A failure the bindings detect around a spill writer, as an outcome
    /// whose reason is the error's text.
    fn from(error: SpillError) -> Self {
        SpillOutcome::Failed {
            reason: error.to_string(),
        }
    }
}

/// Why a preview's notice names no saved file although a save was attempted:
/// the text of [`Preview::spill_error`]. One wording for every language: the
/// Python and JavaScript packages build these values around their spill
/// writers and take the text from here.
///
/// ```
/// use dory_wire::preview::SpillError;
///
/// let raised = SpillError::WriterFailed { error: "OSError: disk full".into() };
/// assert_eq!(raised.to_string(), "spill writer failed: OSError: disk full");
/// let wrong = SpillError::NotAPath { returned: "int".into() };
/// assert_eq!(wrong.to_string(), "spill writer returned int instead of a path string");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SpillError {
    /// The writer raised, threw or rejected; `error` describes it
    /// (`Type: message`). Empty: "spill writer failed".
    WriterFailed {
        /// The error, as the language names it.
        error: String,
    },
    /// The writer returned something that is neither a path string nor
    /// "nothing saved" (`None`, `null`, `undefined`).
    NotAPath {
        /// What it returned (a type name).
        returned: String,
    },
    /// A synchronous call got a writer that returned an awaitable.
    Asynchronous {
        /// The asynchronous call to use instead (`abound()`, `boundAsync()`…).
        use_instead: String,
    },
    /// The writer returned an empty path.
    EmptyPath,
    /// The path holds a line break or control character.
    PathBreaksLine,
    /// The hint holds a line break or control character.
    HintBreaksLine,
    /// No preview naming the path fits in `max_bytes`.
    PathTooLong {
        /// The byte limit.
        max_bytes: usize,
    },
}

impl fmt::Display for SpillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpillError::WriterFailed { error } if error.is_empty() => {
                f.write_str("spill writer failed")
            }
            SpillError::WriterFailed { error } => write!(f, "spill writer failed: {error}"),
            SpillError::NotAPath { returned } => {
                write!(
                    f,
                    "spill writer returned {returned} instead of a path string"
                )
            }
            SpillError::Asynchronous { use_instead } => {
                write!(f, "spill writer is asynchronous: use {use_instead}")
            }
            SpillError::EmptyPath => f.write_str("spill path is empty"),
            SpillError::PathBreaksLine => {
                f.write_str("spill path contains a line break or control character")
            }
            SpillError::HintBreaksLine => {
                f.write_str("spill hint contains a line break or control character")
            }
            SpillError::PathTooLong { max_bytes } => write!(
                f,
                "spill path too long: no preview naming it fits in max_bytes={max_bytes}"
            ),
        }
    }
}

/// The outcome of bounding: a preview, or a request to spill first.
///
/// From [`Bounder::bound`](super::Bounder::bound) it borrows the input (the
/// preview of input that fits is the input itself, and a pending spill keeps
/// its head and tail without copying them); [`Bounded::into_owned`] makes it
/// `'static`. From [`StreamingBounder::finish`](super::StreamingBounder::finish)
/// it is `Bounded<'static>`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a spill may be needed before the preview can be rendered"]
pub enum Bounded<'a> {
    /// The input fits both limits: the preview is the input, unchanged.
    Fits(Preview<'a>),
    /// The input must be cut. Save the full output under
    /// [`PendingSpill::spill_id`], then call [`PendingSpill::render`].
    NeedsSpill(PendingSpill<'a>),
}

impl<'a> Bounded<'a> {
    /// The same, owning what it borrowed from the input (a copy of it when
    /// it fits, of the retained head and tail when it must be cut).
    pub fn into_owned(self) -> Bounded<'static> {
        match self {
            Bounded::Fits(preview) => Bounded::Fits(preview.into_owned()),
            Bounded::NeedsSpill(pending) => Bounded::NeedsSpill(pending.into_owned()),
        }
    }

    /// The spill id when a spill is needed.
    pub fn spill_id(&self) -> Option<&str> {
        match self {
            Bounded::Fits(_) => None,
            Bounded::NeedsSpill(pending) => Some(pending.spill_id()),
        }
    }

    /// The preview: unchanged input, or [`PendingSpill::render`] with
    /// `outcome` and `hint` (both ignored when the input fits).
    pub fn render(self, outcome: SpillOutcome, hint: Option<&str>) -> Preview<'a> {
        match self {
            Bounded::Fits(preview) => preview,
            Bounded::NeedsSpill(mut pending) => {
                // An id the bounder derived is moved, not copied.
                let id = std::mem::take(&mut pending.spill_id).into_owned();
                pending.render_with_id(outcome, hint, id)
            }
        }
    }
}

/// Input that must be cut, waiting for the caller's spill outcome.
///
/// Holds only the first and last `2 × max_bytes + 8` input bytes (rendered
/// once), whatever the input's size: borrowed from the input when it came
/// from [`Bounder::bound`](super::Bounder::bound) (see
/// [`PendingSpill::into_owned`]). Render it as often as needed (e.g. again
/// with [`SpillOutcome::NotSaved`] if the saved file is later lost); the
/// preview it renders owns its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSpill<'a> {
    pub(crate) limits: Limits,
    pub(crate) retained: Retained<'a>,
    /// The caller's id (borrowed from `bound_with_spill_id`) or the digest's.
    pub(crate) spill_id: Cow<'a, str>,
    /// What the bounder's options add when rendering (`None` when off).
    pub(crate) extras: Option<Box<SpillExtras>>,
    /// Under a token limit: what renders it again at smaller byte budgets.
    pub(crate) fit: Option<Box<TokenFit>>,
}

/// A pending spill's token limit: the kept input and the limits it was
/// bounded at, to bound it again at smaller byte budgets when the preview
/// at these limits encodes to too many tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TokenFit {
    /// Lines, bytes and split, without the token limit.
    pub(crate) limits: Limits,
    pub(crate) limit: TokenLimit,
    pub(crate) kept: Kept,
}

impl PendingSpill<'_> {
    /// The same, owning the retained head and tail (a copy of them when they
    /// were borrowed from the input).
    pub fn into_owned(self) -> PendingSpill<'static> {
        PendingSpill {
            limits: self.limits,
            retained: self.retained.into_owned(),
            spill_id: Cow::Owned(self.spill_id.into_owned()),
            extras: self.extras,
            fit: self.fit,
        }
    }

    /// The id to save the full output under: the caller's, or by default 32 hex
    /// digits derived from the content (deterministic, not cryptographic).
    pub fn spill_id(&self) -> &str {
        &self.spill_id
    }

    /// Bytes of the input.
    pub fn total_bytes(&self) -> u64 {
        self.retained.total
    }

    /// Lines of the input.
    pub fn total_lines(&self) -> u64 {
        self.retained.total_lines()
    }

    /// Renders the preview for the caller's spill outcome.
    ///
    /// With [`SpillOutcome::Saved`] the notice ends `; sed -n 'F,Lp' <path>`
    /// (the path quoted for the shell when needed), then `; <hint>` when a
    /// hint is given and not empty, then ` ...]`. No path is named, and
    /// [`Preview::spill_error`] says why, when the path is empty, the path or
    /// hint holds a line break or control character, or no preview naming the
    /// path fits in `max_bytes`. Without a path the notice takes the richest
    /// form that fits in half of `max_bytes` (see `docs/preview.md`).
    pub fn render(&self, outcome: SpillOutcome, hint: Option<&str>) -> Preview<'static> {
        self.render_with_id(outcome, hint, self.spill_id.to_string())
    }

    /// [`PendingSpill::render`] with the preview's copy of the spill id made
    /// by the caller (built in place: no move of the finished preview).
    fn render_with_id(
        &self,
        outcome: SpillOutcome,
        hint: Option<&str>,
        spill_id: String,
    ) -> Preview<'static> {
        let Some(fit) = &self.fit else {
            return self.render_unfitted(outcome, hint, spill_id);
        };
        let mut preview = self.render_unfitted(outcome.clone(), hint, spill_id.clone());
        if fit::count(&mut preview, fit.limit) {
            return preview;
        }
        let over = preview.tokens.unwrap_or(0) as usize;
        let hi = fit.limits.max_bytes();
        let lines = fit.limits.max_lines();
        let at = |b: usize| match fit.kept.bound(fit.limits.resized(lines, b)) {
            Ok(Bounded::NeedsSpill(p)) => {
                Some(p.render_unfitted(outcome.clone(), hint, spill_id.clone()))
            }
            // Not reached: what is cut at a larger budget is cut at a
            // smaller one.
            Ok(Bounded::Fits(p)) => Some(p),
            Err(_) => None,
        };
        // `Limits::check_cut` refused max_tokens below the least budget,
        // whose preview (at most that many bytes) always fits.
        fit::bisect(fit.limit, fit::LEAST_BUDGET, hi, over, at).unwrap_or(preview)
    }

    /// The preview at this pending spill's limits, the token limit ignored.
    fn render_unfitted(
        &self,
        outcome: SpillOutcome,
        hint: Option<&str>,
        spill_id: String,
    ) -> Preview<'static> {
        match &self.extras {
            None => self.render_plain(outcome, hint, spill_id).0,
            Some(extras) => {
                let again = outcome.clone();
                let (preview, _) = self.render_plain(outcome, hint, spill_id);
                extras.apply(preview, self.limits, again, hint)
            }
        }
    }

    /// The preview without the options' additions, and where its notice
    /// ends in its text.
    pub(crate) fn render_parts(
        &self,
        outcome: SpillOutcome,
        hint: Option<&str>,
    ) -> (Preview<'static>, usize) {
        self.render_plain(outcome, hint, self.spill_id.to_string())
    }

    /// [`PendingSpill::render_with_id`] of the bounded bytes alone.
    #[inline]
    fn render_plain(
        &self,
        outcome: SpillOutcome,
        hint: Option<&str>,
        spill_id: String,
    ) -> (Preview<'static>, usize) {
        let hint = hint.filter(|h| !h.is_empty());
        let (path, mut error) = match outcome {
            SpillOutcome::Saved { path } if path.is_empty() => {
                (None, Some(SpillError::EmptyPath.to_string()))
            }
            SpillOutcome::Saved { path } => (Some(path), None),
            SpillOutcome::Failed { reason } if reason.is_empty() => (
                None,
                Some(
                    SpillError::WriterFailed {
                        error: String::new(),
                    }
                    .to_string(),
                ),
            ),
            SpillOutcome::Failed { reason } => (None, Some(reason)),
            SpillOutcome::NotSaved => (None, None),
        };
        let mut chosen = None;
        if let Some(path) = &path {
            let pointer = Pointer::new(path, hint);
            let refused = if pointer.path_breaks_line() {
                Some(SpillError::PathBreaksLine)
            } else if hint.is_some_and(notice::breaks_line) {
                Some(SpillError::HintBreaksLine)
            } else {
                let form = Form::Pointer(pointer);
                let planner = Planner::new(&self.retained, self.limits, form);
                match planner.solve() {
                    Some(plan) => {
                        chosen = Some((plan, form, planner));
                        None
                    }
                    None => Some(SpillError::PathTooLong {
                        max_bytes: self.limits.max_bytes(),
                    }),
                }
            };
            error = refused.map(|e| e.to_string());
        }
        let (plan, form, planner) = chosen.unwrap_or_else(|| {
            // The shorter forms read further into the input: a line table
            // reaching as far as the minimal marker leaves room for.
            let planner = Planner::new(&self.retained, self.limits, Form::Minimal);
            let (plan, form) = self.shortened(&planner);
            (plan, form, planner)
        });
        let text = planner.assemble(&plan, &form);
        // The notice is one line: it ends at the next `\n` or the text's end.
        let start = planner.notice_start(&plan);
        let notice_end = text
            .get(start..)
            .and_then(|t| t.find('\n'))
            .map_or(text.len(), |i| start + i);
        debug_assert!(text.len() <= self.limits.max_bytes());
        debug_assert!(plan.cut.preview_lines() <= self.limits.max_lines());
        let total_bytes = self.retained.total;
        let counts = plan.counts;
        let preview = Preview {
            text: Cow::Owned(text),
            truncated: true,
            total_lines: counts.total_lines,
            total_bytes,
            head_bytes: plan.cut.head_bytes(),
            tail_bytes: plan.cut.tail_bytes(total_bytes),
            omitted_lines: counts.omitted_lines(),
            omitted_bytes: counts.omitted_bytes,
            omitted_range: Some((counts.first, counts.last)),
            spill_id: Some(spill_id),
            spill_path: match form {
                Form::Pointer(_) => path,
                _ => None,
            },
            spill_error: error,
            notices: vec![Notice::new(NoticeKind::Omitted, start, notice_end)],
            tokens: None,
        };
        (preview, notice_end)
    }

    /// The notice without a path: the plain form, shortened (compact, then
    /// minimal) while it takes more than half of `max_bytes` and the shorter
    /// form shows more of the input.
    fn shortened(&self, planner: &Planner<'_>) -> (Plan, Form<'static>) {
        let half = self.limits.max_bytes() / 2;
        let total = self.retained.total;
        let mut best: Option<(Plan, Form<'static>)> = None;
        for form in [Form::Plain, Form::Compact, Form::Minimal] {
            if let Some((plan, _)) = &best {
                if plan.notice_len <= half {
                    break;
                }
            }
            let Some(plan) = planner.solve_as(&form) else {
                continue;
            };
            match &best {
                Some((current, _)) if plan.shown(total) <= current.shown(total) => {}
                _ => best = Some((plan, form)),
            }
        }
        // `Limits::check_cut` (max_bytes ≥ 32) guarantees the minimal marker
        // fits; the notice alone is only a total fallback.
        best.unwrap_or_else(|| (planner.notice_only(), Form::Minimal))
    }
}
