//! The outcome of bounding, and the retained input it comes from: the
//! spill handshake's core side ([`Bounded`], [`PendingSpill`] and its
//! rendering), the head and tail a streaming bounder retained
//! ([`RetainedInput`]) and its cutting, and what the options (`keep`,
//! `terminal`) add to a preview at the end.
//!
//! One module because these call each other: a retained input is bounded
//! into a pending spill, and a pending spill renders under a token limit, or
//! beside a kept section, by bounding its retained input again.

use std::borrow::Cow;

use crate::error::Error;

use super::fit;
use super::keep::Matches;
use super::limits::{may_fit, Limits, TokenLimit, MIN_MAX_BYTES};
use super::notice::{self, Form, Pointer};
use super::plan::{Hidden, Plan, Planner, Retained};
use super::render::Window;
use super::result::{Notice, NoticeKind, Preview};
use super::shape::Extras;
use super::spill::{SpillError, SpillOutcome};

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

/// A pending spill's token limit: the retained input and the limits it was
/// bounded at, to bound it again at smaller byte budgets when the preview
/// at these limits encodes to too many tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TokenFit {
    /// Lines, bytes and split, without the token limit.
    pub(crate) limits: Limits,
    pub(crate) limit: TokenLimit,
    pub(crate) input: RetainedInput,
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
        let at = |b: usize| match fit.input.bound(fit.limits.resized(lines, b)) {
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

/// The head and tail a [`StreamingBounder`](super::StreamingBounder)
/// retained of its input (with the counts, the spill id and what the options
/// add), which any limits not larger than its own can bound: exactly what a
/// streaming bounder built with those limits would have retained of the same
/// input is a prefix and a suffix of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RetainedInput {
    pub(super) limits: Limits,
    pub(super) head: Vec<u8>,
    /// The last bytes (contiguous); meaningless when `head` holds everything.
    pub(super) tail: Vec<u8>,
    pub(super) total: u64,
    pub(super) newlines: u64,
    pub(super) spill_id: String,
    /// What the options add (the bytes above are the rendered input).
    pub(super) extras: Option<Box<Extras>>,
    /// The raw lines terminal rendering hid.
    pub(super) hidden: Option<Box<Hidden>>,
}

impl RetainedInput {
    /// The spill id (the caller's or the content's).
    pub(crate) fn spill_id(&self) -> &str {
        &self.spill_id
    }

    fn whole_in_head(&self) -> bool {
        self.head.len() as u64 == self.total
    }

    /// The bounded result at `limits`, which must not exceed the limits the
    /// bytes were kept for (else the result would not be the whole input's).
    /// A token limit in `limits` is ignored: see
    /// [`RetainedInput::bound_fitted`].
    pub(crate) fn bound(&self, limits: Limits) -> Result<Bounded<'static>, Error> {
        let limits = limits.without_tokens();
        match &self.extras {
            None => self.bound_plain(limits),
            Some(extras) => bound_with_extras(extras, limits, &self.plain()),
        }
    }

    /// The same bytes without the options' extras.
    fn plain(&self) -> RetainedInput {
        RetainedInput {
            limits: self.limits,
            head: self.head.clone(),
            tail: self.tail.clone(),
            total: self.total,
            newlines: self.newlines,
            spill_id: self.spill_id.clone(),
            extras: None,
            hidden: self.hidden.clone(),
        }
    }

    /// [`RetainedInput::bound`] under the token limit of `limits` too: a
    /// preview that fits lines and bytes but not tokens is bounded again at
    /// the byte budget of its length less one (each time smaller) until it
    /// fits or must be cut; a cut is fitted when it is rendered
    /// ([`PendingSpill::render`]), from a copy of these bytes.
    pub(crate) fn bound_fitted(&self, limits: Limits) -> Result<Bounded<'static>, Error> {
        let Some(limit) = limits.tokens() else {
            return self.bound(limits);
        };
        let base = limits.without_tokens();
        let mut at = base;
        loop {
            match self.bound(at)? {
                Bounded::Fits(mut p) => {
                    if fit::count(&mut p, limit) {
                        return Ok(Bounded::Fits(p));
                    }
                    // It must be cut: every token is a byte or more, so the
                    // preview is longer than max_tokens and the smaller
                    // budget is at least max_tokens once that is allowed.
                    limits.check_cut()?;
                    at = base.resized(base.max_lines(), p.text.len() - 1);
                }
                Bounded::NeedsSpill(mut pending) => {
                    // A cut's least budget must fit the token limit too.
                    limits.check_cut()?;
                    pending.fit = Some(Box::new(TokenFit {
                        limits: at,
                        limit,
                        input: self.clone(),
                    }));
                    return Ok(Bounded::NeedsSpill(pending));
                }
            }
        }
    }

    /// Bytes of the rendered input.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// [`RetainedInput::bound`] of the bytes alone (the options' extras
    /// ignored).
    pub(crate) fn bound_plain(&self, limits: Limits) -> Result<Bounded<'static>, Error> {
        let limits = limits.without_tokens();
        debug_assert!(limits.max_bytes() <= self.limits.max_bytes());
        if self.whole_in_head() {
            return whole(
                limits,
                self.head.clone(),
                self.total,
                self.newlines,
                self.spill_id.clone(),
                self.hidden.clone(),
            );
        }
        cut(
            limits,
            self.head.clone(),
            self.tail.clone(),
            self.total,
            self.newlines,
            self.spill_id.clone(),
            self.hidden.clone(),
        )
    }

    /// [`RetainedInput::bound`], consuming the buffers.
    pub(super) fn bound_owned(self, limits: Limits) -> Result<Bounded<'static>, Error> {
        if self.extras.is_some() {
            return self.bound(limits);
        }
        if self.whole_in_head() {
            return whole(
                limits,
                self.head,
                self.total,
                self.newlines,
                self.spill_id,
                self.hidden,
            );
        }
        cut(
            limits,
            self.head,
            self.tail,
            self.total,
            self.newlines,
            self.spill_id,
            self.hidden,
        )
    }
}

/// Input held whole in `head` (`total` bytes, `newlines` line breaks),
/// bounded at `limits`: valid UTF-8 that fits is moved into the preview,
/// not copied. With `hidden` (lines terminal rendering hid), counts and
/// line numbers are the raw input's.
fn whole(
    limits: Limits,
    head: Vec<u8>,
    total: u64,
    newlines: u64,
    spill_id: String,
    hidden: Option<Box<Hidden>>,
) -> Result<Bounded<'static>, Error> {
    let lines = newlines + u64::from(head.last().is_some_and(|&b| b != b'\n'));
    let raw_lines = |lines: u64| lines + hidden.as_ref().map_or(0, |h| h.total);
    let head = if may_fit(&limits, total, lines) {
        match String::from_utf8(head) {
            Ok(text) => {
                return Ok(Bounded::Fits(Preview::unchanged(
                    Cow::Owned(text),
                    raw_lines(lines),
                    total,
                )))
            }
            Err(e) => {
                let window = Window::from_checked(Err(e), 0);
                if window.text().len() <= limits.max_bytes() {
                    return Ok(Bounded::Fits(Preview::unchanged(
                        window.into_text(),
                        raw_lines(lines),
                        total,
                    )));
                }
                window
            }
        }
    } else {
        Window::new(head, 0)
    };
    limits.check_cut()?;
    Ok(Bounded::NeedsSpill(PendingSpill {
        limits,
        retained: Retained {
            head,
            tail: None,
            total,
            newlines,
            hidden,
        },
        spill_id: Cow::Owned(spill_id),
        extras: None,
        fit: None,
    }))
}

/// Input longer than the head window: never fits, always cut.
fn cut(
    limits: Limits,
    mut head: Vec<u8>,
    mut tail: Vec<u8>,
    total: u64,
    newlines: u64,
    spill_id: String,
    hidden: Option<Box<Hidden>>,
) -> Result<Bounded<'static>, Error> {
    limits.check_cut()?;
    head.truncate(limits.head_window());
    let keep = tail.len().min(limits.tail_window());
    tail.drain(..tail.len() - keep);
    let base = total - tail.len() as u64;
    Ok(Bounded::NeedsSpill(PendingSpill {
        limits,
        retained: Retained {
            head: Window::new(head, 0),
            tail: Some(Window::new(tail, base)),
            total,
            newlines,
            hidden,
        },
        spill_id: Cow::Owned(spill_id),
        extras: None,
        fit: None,
    }))
}

/// What a pending spill's options add when it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpillExtras {
    /// The terminal line, with room reserved for it.
    term_line: Option<String>,
    /// The matches and the rendered input, bounded again beside a section.
    keep: Option<(Matches, RetainedInput)>,
}

/// Lines of `text` (a last line without `\n` counts).
fn lines_of(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
        + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// [`RetainedInput::bound`] for an input with options: `plain` is the
/// rendered input (without options).
fn bound_with_extras(
    extras: &Extras,
    limits: Limits,
    plain: &RetainedInput,
) -> Result<Bounded<'static>, crate::Error> {
    let bound_plain = |limits: Limits| plain.bound_plain(limits);
    // The terminal line: only when something changed and it takes at most a
    // quarter of max_bytes.
    let line = extras
        .term
        .and_then(|c| c.line())
        .filter(|l| l.len() <= limits.max_bytes() / 4);
    match bound_plain(limits)? {
        Bounded::Fits(mut p) => {
            if let Some(line) = line {
                let fits = p.text.len() + line.len() + 2 <= limits.max_bytes()
                    && lines_of(&p.text) < limits.max_lines();
                if fits {
                    p.append_notice(NoticeKind::Terminal, &line);
                }
            }
            Ok(Bounded::Fits(p))
        }
        Bounded::NeedsSpill(pending) => {
            let content = line.as_ref().and_then(|l| {
                let need = l.len() + 2;
                let content = limits.resized(
                    limits.max_lines().checked_sub(1)?,
                    limits.max_bytes().checked_sub(need)?,
                );
                (content.max_lines() >= 1 && content.max_bytes() >= MIN_MAX_BYTES)
                    .then_some(content)
            });
            let (mut pending, term_line) = match content {
                None => (pending, None),
                Some(content) => match bound_plain(content)? {
                    Bounded::NeedsSpill(p) => (p, line),
                    // Not reached: what does not fit larger limits does not
                    // fit smaller ones.
                    fits @ Bounded::Fits(_) => return Ok(fits),
                },
            };
            pending.extras = Some(Box::new(SpillExtras {
                term_line,
                keep: extras.matches.clone().map(|m| (m, plain.clone())),
            }));
            Ok(Bounded::NeedsSpill(pending))
        }
    }
}

impl SpillExtras {
    /// The final preview: `preview` (the rendered input at `limits`), with
    /// the kept section after the notice when omitted lines match, and the
    /// terminal line last.
    pub(crate) fn apply(
        &self,
        preview: Preview<'static>,
        limits: Limits,
        outcome: SpillOutcome,
        hint: Option<&str>,
    ) -> Preview<'static> {
        let mut preview = preview;
        if let Some(kept) = self.kept_section(&preview, limits, outcome, hint) {
            preview = kept;
        }
        if let Some(line) = &self.term_line {
            preview.append_notice(NoticeKind::Terminal, line);
        }
        preview
    }

    /// The preview bounded again beside the kept section, when omitted lines
    /// match: the section takes at most a quarter of `limits`, and what it
    /// leaves of that quarter goes back to the head and tail.
    fn kept_section(
        &self,
        preview: &Preview<'static>,
        limits: Limits,
        outcome: SpillOutcome,
        hint: Option<&str>,
    ) -> Option<Preview<'static>> {
        let (matches, input) = self.keep.as_ref()?;
        let range = preview.omitted_range?;
        // A first look with the whole quarter: nothing to keep, no section.
        let r_lines = limits.max_lines() / 4;
        let r_bytes = limits.max_bytes() / 4;
        matches.section(range, None, r_lines, usize::MAX)?;
        let rest = limits.resized(
            limits.max_lines() - r_lines,
            limits.max_bytes().checked_sub(r_bytes + 1)?,
        );
        rest.check_cut().ok()?;
        let Ok(Bounded::NeedsSpill(again)) = input.bound_plain(rest) else {
            return None;
        };
        let (p, at) = again.render_parts(outcome.clone(), hint);
        let (section, used_lines) =
            matches.section(p.omitted_range?, p.spill_path.as_deref(), r_lines, r_bytes)?;
        // What the section leaves of its quarter goes back to the rest: the
        // input is bounded again beside a section of the size it took, and
        // the section is chosen again, within that size, for the (smaller)
        // omitted middle of the larger head and tail.
        let (p, at, section) = if used_lines < r_lines || section.len() < r_bytes {
            let (cap_lines, cap_bytes) = (used_lines, section.len());
            let rest = limits.resized(
                limits.max_lines() - cap_lines,
                limits.max_bytes().checked_sub(cap_bytes + 1)?,
            );
            match input.bound_plain(rest) {
                Ok(Bounded::NeedsSpill(again)) => {
                    let (q, q_at) = again.render_parts(outcome, hint);
                    match q.omitted_range.and_then(|range| {
                        matches.section_capped(
                            range,
                            q.spill_path.as_deref(),
                            cap_lines,
                            cap_bytes,
                            r_bytes,
                        )
                    }) {
                        Some((s2, _)) => (q, q_at, s2),
                        None => (p, at, section),
                    }
                }
                _ => (p, at, section),
            }
        } else {
            (p, at, section)
        };
        let text = &p.text;
        let mut out = String::with_capacity(text.len() + section.len() + 1);
        out.push_str(text.get(..at)?);
        out.push('\n');
        // The section's first line is its header: a notice.
        let header_start = out.len();
        let header_end = header_start + section.find('\n').unwrap_or(section.len());
        out.push_str(&section);
        // The tail, after the `\n` that ended the notice.
        out.push_str(
            text.get(at..)
                .map_or("", |t| t.strip_prefix('\n').unwrap_or(t)),
        );
        let mut p = p;
        p.text = out.into();
        // The cut's notice ends at `at`, before the section: it stays first.
        p.notices
            .push(Notice::new(NoticeKind::Kept, header_start, header_end));
        Some(p)
    }
}
