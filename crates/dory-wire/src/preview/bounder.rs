//! The whole-input bounder.

use std::borrow::Cow;

use crate::error::Error;

use super::bounded::{Bounded, PendingSpill};
use super::count::count_newlines;
use super::digest::spill_id_of;
use super::keep::Keep;
use super::limits::{may_fit, Limits};
use super::plan::Retained;
use super::render::Window;
use super::result::Preview;
use super::shape::Shape;
use super::stream::StreamingBounder;

/// Bounds whole inputs to a preview within fixed [`Limits`].
///
/// ```
/// use dory_wire::preview::{Bounder, SpillOutcome};
///
/// let bounder = Bounder::new(5, 100);
/// let log: String = (1..=100).map(|i| format!("line {i}\n")).collect();
/// let preview = bounder.bound(log.as_bytes())?.render(SpillOutcome::NotSaved, None);
/// assert_eq!(
///     preview.text,
///     "line 1\nline 2\n[... 761 bytes omitted: lines 3-98 of 100 ...]\nline 99\nline 100\n"
/// );
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Bounder {
    limits: Limits,
    shape: Shape,
}

impl Bounder {
    /// A bounder for previews of at most `max_lines` lines and `max_bytes`
    /// bytes. Any limits are accepted: input that fits always comes back
    /// unchanged, and only a needed cut may be refused (see [`Bounder::bound`]).
    pub fn new(max_lines: usize, max_bytes: usize) -> Self {
        Self::with_limits(Limits::new(max_lines, max_bytes))
    }

    /// A bounder for these limits.
    pub fn with_limits(limits: Limits) -> Self {
        Bounder {
            limits,
            shape: Shape::default(),
        }
    }

    /// Keeps the lines matching `keep` that fall in the omitted middle,
    /// shown after the notice with their line numbers, within the same
    /// limits (see [`Keep`] and `docs/preview.md`). Off by default.
    ///
    /// ```
    /// use dory_wire::preview::{Bounder, Keep, SpillOutcome};
    ///
    /// let log: String = (1..=300)
    ///     .map(|i| if i == 150 { "error[E0308]: mismatched types\n".to_owned() } else { format!("ok {i}\n") })
    ///     .collect();
    /// let bounder = Bounder::new(12, 400).with_keep(Keep::defaults());
    /// let saved = SpillOutcome::Saved { path: "/w/out.txt".into() };
    /// let preview = bounder.bound(log.as_bytes())?.render(saved, None);
    /// assert!(preview.text.contains("\n150:error[E0308]: mismatched types\n"));
    /// assert!(preview.text.len() <= 400);
    /// # Ok::<(), dory_wire::Error>(())
    /// ```
    #[must_use]
    pub fn with_keep(mut self, keep: Keep) -> Self {
        self.shape.keep = keep;
        self
    }

    /// With `true`, the preview's text is what a terminal would show: a
    /// line redrawn with `\r`, backspaces or a cursor moved up shows its
    /// last state, escape sequences and control bytes are removed; line
    /// numbers stay the raw input's (see `docs/preview.md`). Off by
    /// default.
    ///
    /// ```
    /// use dory_wire::preview::{Bounder, SpillOutcome};
    ///
    /// let out = b"\r[###   ]\r[######]\n\x1b[32mok\x1b[0m\n";
    /// let preview = Bounder::new(10, 400).with_terminal(true).bound(out)?.render(SpillOutcome::NotSaved, None);
    /// assert_eq!(
    ///     preview.text,
    ///     "[######]\nok\n[... terminal: 1 redraw collapsed, 2 escape sequences removed ...]\n"
    /// );
    /// # Ok::<(), dory_wire::Error>(())
    /// ```
    #[must_use]
    pub fn with_terminal(mut self, terminal: bool) -> Self {
        self.shape.terminal = terminal;
        self
    }

    /// Where a cut preview's budget goes between head and tail (see
    /// [`Split`](super::Split); [`Split::Even`](super::Split::Even) unless
    /// set).
    #[must_use]
    pub fn with_split(mut self, split: super::Split) -> Self {
        self.limits = self.limits.with_split(split);
        self
    }

    /// A bounder that shapes any tool's output as `run` shapes a command's
    /// views by default: [`Keep::defaults`], terminal rendering and
    /// [`Split::Tail`](super::Split::Tail), at these limits. For a framework that bounds a tool result that is not
    /// a Dory command (`docs/preview.md`, "run's shape for any output").
    ///
    /// ```
    /// use dory_wire::preview::{Bounder, SpillOutcome};
    ///
    /// let log: String = (1..=500)
    ///     .map(|i| if i == 200 { "FAILED tests/test_x.py::test_y - assert 1 == 2\n".to_owned() } else { format!("step {i}\n") })
    ///     .collect();
    /// let preview = Bounder::run_preset(20, 1000).bound(log.as_bytes())?.render(SpillOutcome::NotSaved, None);
    /// assert!(preview.text.contains("200:FAILED tests/test_x.py::test_y - assert 1 == 2"));
    /// # Ok::<(), dory_wire::Error>(())
    /// ```
    pub fn run_preset(max_lines: usize, max_bytes: usize) -> Self {
        Bounder::new(max_lines, max_bytes)
            .with_keep(Keep::defaults())
            .with_terminal(true)
            .with_split(super::Split::Tail)
    }

    /// The kept-lines option.
    pub fn keep(&self) -> &Keep {
        &self.shape.keep
    }

    /// Whether terminal rendering is on.
    pub fn terminal(&self) -> bool {
        self.shape.terminal
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// A streaming bounder with the same limits and options.
    pub fn streaming(&self) -> StreamingBounder {
        StreamingBounder::with_limits(self.limits).with_shape(self.shape.clone())
    }

    /// Bounds `data`. When it must be cut, the spill id is derived from the
    /// content (see [`PendingSpill::spill_id`]).
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] when `data` does not fit and the limits leave
    /// no room for a cut (`max_lines = 0` or `max_bytes <`
    /// [`MIN_MAX_BYTES`](super::MIN_MAX_BYTES)).
    #[inline]
    pub fn bound<'a>(&self, data: &'a [u8]) -> Result<Bounded<'a>, Error> {
        self.bound_inner(data, None)
    }

    /// Bounds `data`, naming the spill `spill_id` (e.g. a random id) if one is
    /// needed. Like `data`, the id is borrowed until the preview is rendered
    /// (or [`Bounded::into_owned`]).
    ///
    /// # Errors
    /// As for [`Bounder::bound`].
    #[inline]
    pub fn bound_with_spill_id<'a>(
        &self,
        data: &'a [u8],
        spill_id: &'a str,
    ) -> Result<Bounded<'a>, Error> {
        self.bound_inner(data, Some(spill_id))
    }

    /// The fast path, small enough to inline into the caller: input that
    /// fits and is valid UTF-8 is counted, validated and borrowed.
    #[inline]
    fn bound_inner<'a>(
        &self,
        data: &'a [u8],
        spill_id: Option<&'a str>,
    ) -> Result<Bounded<'a>, Error> {
        if !self.shape.is_off() || self.limits.tokens().is_some() {
            return self.bound_shaped(data, spill_id);
        }
        let total = data.len() as u64;
        let newlines = count_newlines(data);
        let lines = newlines + u64::from(data.last().is_some_and(|&b| b != b'\n'));
        let fits = may_fit(&self.limits, total, lines);
        if fits {
            // Valid UTF-8 is checked once (SIMD) and borrowed.
            if let Ok(text) = simdutf8::basic::from_utf8(data) {
                return Ok(Bounded::Fits(Preview::unchanged(
                    Cow::Borrowed(text),
                    lines,
                    total,
                )));
            }
        }
        self.bound_rest(data, spill_id, newlines, lines, fits)
    }

    /// With an option or a token limit: the streaming bounder given the
    /// whole input (the spill id derived from the same bytes).
    #[inline(never)]
    fn bound_shaped(&self, data: &[u8], spill_id: Option<&str>) -> Result<Bounded<'static>, Error> {
        let mut streaming = self.streaming();
        if let Some(id) = spill_id {
            streaming = streaming.with_spill_id(id);
        }
        streaming.push(data);
        streaming.finish()
    }

    /// Input that must be cut, or that is not valid UTF-8 (already checked
    /// when `checked`: it is then rendered without validating it again).
    #[inline(never)]
    fn bound_rest<'a>(
        &self,
        data: &'a [u8],
        spill_id: Option<&'a str>,
        newlines: u64,
        lines: u64,
        checked: bool,
    ) -> Result<Bounded<'a>, Error> {
        let total = data.len() as u64;
        let mut whole = None;
        if checked {
            // Not valid UTF-8: the rendering decides, and is kept for the cut.
            let window = Window::invalid(data, 0);
            if window.text().len() <= self.limits.max_bytes() {
                return Ok(Bounded::Fits(Preview::unchanged(
                    window.into_text(),
                    lines,
                    total,
                )));
            }
            whole = Some(window);
        }
        self.limits.check_cut()?;
        let retained = match whole {
            Some(window) => Retained {
                head: window,
                tail: None,
                total,
                newlines,
                hidden: None,
            },
            None => Retained::borrowed(data, &self.limits, newlines),
        };
        Ok(Bounded::NeedsSpill(PendingSpill {
            limits: self.limits,
            retained,
            spill_id: spill_id.map_or_else(|| Cow::Owned(spill_id_of(data)), Cow::Borrowed),
            extras: None,
            fit: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    /// Bounders with `terminal` on random redraws: streaming equals whole
    /// in any chunks, the limits hold, and the notice's range lies within
    /// the raw lines, its numbers those of the raw input.
    #[test]
    fn bounders_on_redraws_stream_as_whole_with_raw_numbers() {
        use super::super::{Bounder, Keep, SpillOutcome};
        let mut rng = dory_testkit::Rng::new(11);
        let parts: &[&[u8]] = &[
            b"step ",
            b"ok",
            b"error: x",
            b"\n",
            b"\n",
            b"\r",
            b"\x08",
            b"\x1b[K",
            b"\x1b[2K",
            b"\x1b[1A",
            b"\x1b[3A",
            b"\x1b[2F",
            b"\x1b[1B",
            b"\x1b[E",
            b"\x1b[4G",
            b"\x1b[31m",
            "é".as_bytes(),
            b"\xff",
        ];
        for case in 0..300 {
            let mut data = Vec::new();
            for _ in 0..rng.range(0, 400) {
                data.extend_from_slice(rng.choose(parts).expect("parts"));
            }
            let (max_lines, max_bytes) = (rng.range(2, 20), rng.range(64, 600));
            let bounder = Bounder::new(max_lines, max_bytes)
                .with_terminal(true)
                .with_keep(Keep::patterns(["^error"]).expect("a pattern"));
            let outcome = SpillOutcome::Saved {
                path: "/w/out.txt".into(),
            };
            let whole = bounder
                .bound(&data)
                .expect("limits")
                .render(outcome.clone(), None);
            assert!(whole.text.len() <= max_bytes, "case {case}");
            let raw = data.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            assert!(whole.total_lines <= raw, "case {case}");
            if let Some((first, last)) = whole.omitted_range {
                assert!(
                    1 <= first && first <= last && last <= whole.total_lines,
                    "case {case}"
                );
            }
            let mut streaming = bounder.streaming();
            let mut at = 0;
            for cut in rng.cuts(data.len(), 8) {
                streaming.push(&data[at..cut]);
                at = cut;
            }
            streaming.push(&data[at..]);
            let streamed = streaming.finish().expect("limits").render(outcome, None);
            assert_eq!(streamed, whole, "case {case}");
        }
    }
}
