//! The streaming bounder: chunks in, memory bounded by the limits.

use crate::error::Error;

use super::bounded::{Bounded, RetainedInput};
use super::count::count_newlines;
use super::digest::Digest;
use super::keep::Keep;
use super::limits::Limits;
use super::plan::Hidden;
use super::ring::{grow_capped, Ring};
use super::shape::{Shape, Shaper};
use super::terminal::Out;

/// Bounds an input given in chunks, keeping memory proportional to the limits.
///
/// It retains the first and the last `2 × max_bytes + 8` bytes (never more:
/// see [`retained_bytes`](Self::retained_bytes)) and counts the rest, and gives
/// exactly the same preview as [`Bounder::bound`](super::Bounder::bound) over the
/// concatenated chunks, however they are split. To spill, write each chunk to
/// the spill file as you push it (under a temporary name if you want the
/// content-derived id, known only at [`finish`](Self::finish)).
///
/// ```
/// use dory_wire::preview::{SpillOutcome, StreamingBounder};
///
/// let mut bounder = StreamingBounder::new(20, 4096);
/// for i in 0..100_000 {
///     bounder.push(format!("step {i}\n").as_bytes());
/// }
/// assert!(bounder.retained_bytes() <= 4 * 4096 + 16);
/// let pending = bounder.finish()?;
/// let preview = pending.render(SpillOutcome::Saved { path: "/tmp/out.txt".into() }, None);
/// assert!(preview.text.ends_with("step 99999\n"));
/// assert_eq!(preview.spill_path.as_deref(), Some("/tmp/out.txt"));
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct StreamingBounder {
    limits: Limits,
    head: Vec<u8>,
    tail: Ring,
    total: u64,
    newlines: u64,
    /// `None` once the caller supplied its own id.
    digest: Option<Digest>,
    spill_id: Option<String>,
    /// Raw bytes pushed (`total` counts the rendered ones).
    raw: u64,
    shape: Shape,
    /// The options' state; `None` when both are off.
    shaper: Option<Box<Shaper>>,
    /// The raw lines terminal rendering hid (with `terminal` only).
    hidden: Option<Box<Hidden>>,
}

impl StreamingBounder {
    /// A streaming bounder for previews of at most `max_lines` lines and
    /// `max_bytes` bytes. Any limits are accepted, as for
    /// [`Bounder::new`](super::Bounder::new).
    pub fn new(max_lines: usize, max_bytes: usize) -> Self {
        Self::with_limits(Limits::new(max_lines, max_bytes))
    }

    /// A streaming bounder for these limits.
    pub fn with_limits(limits: Limits) -> Self {
        StreamingBounder {
            limits,
            head: Vec::new(),
            tail: Ring::new(limits.tail_window()),
            total: 0,
            newlines: 0,
            digest: Some(Digest::new()),
            spill_id: None,
            raw: 0,
            shape: Shape::default(),
            shaper: None,
            hidden: None,
        }
    }

    /// Keeps the lines matching `keep` that fall in the omitted middle, shown
    /// after the notice with their line numbers (see [`Keep`] and
    /// `docs/preview.md`). Call it before pushing data.
    #[must_use]
    pub fn with_keep(mut self, keep: Keep) -> Self {
        self.shape.keep = keep;
        self.shaper = Shaper::new(&self.shape, self.limits);
        self
    }

    /// With `true`, the preview shows what a terminal would: a line redrawn
    /// with `\r`, backspaces or a cursor moved up shows its last state,
    /// escape sequences and control bytes are removed (see
    /// `docs/preview.md`). Line numbers stay the raw input's (a line whose
    /// row was rewritten is hidden, keeping its number). Call it before
    /// pushing data.
    #[must_use]
    pub fn with_terminal(mut self, terminal: bool) -> Self {
        self.shape.terminal = terminal;
        self.shaper = Shaper::new(&self.shape, self.limits);
        self.hidden = self.new_hidden();
        self
    }

    /// The hidden lines' map, with `terminal`.
    fn new_hidden(&self) -> Option<Box<Hidden>> {
        self.shape
            .terminal
            .then(|| Box::new(Hidden::new(self.limits.max_lines())))
    }

    /// Where a cut preview's budget goes between head and tail (see
    /// [`Split`](super::Split); [`Split::Even`](super::Split::Even) unless
    /// set). Call it before pushing data.
    #[must_use]
    pub fn with_split(mut self, split: super::Split) -> Self {
        self.limits = self.limits.with_split(split);
        self
    }

    /// Both options at once.
    #[must_use]
    pub(crate) fn with_shape(mut self, shape: Shape) -> Self {
        self.shape = shape;
        self.shaper = Shaper::new(&self.shape, self.limits);
        self.hidden = self.new_hidden();
        self
    }

    /// The kept-lines option.
    pub fn keep(&self) -> &Keep {
        &self.shape.keep
    }

    /// Whether terminal rendering is on.
    pub fn terminal(&self) -> bool {
        self.shape.terminal
    }

    /// Uses `spill_id` instead of the content-derived id, which also skips
    /// hashing the content. Call it before pushing data to save that work.
    #[must_use]
    pub fn with_spill_id(mut self, spill_id: impl Into<String>) -> Self {
        self.spill_id = Some(spill_id.into());
        self.digest = None;
        self
    }

    /// Feeds the next chunk of input. Chunks may be of any size, even empty.
    pub fn push(&mut self, chunk: &[u8]) {
        self.push_with(chunk, false, &mut |_, _, _| {});
    }

    /// [`push`](Self::push), giving each rendered piece to `tap` too, with
    /// the tag of the push that wrote it (under `terminal`, a row held back
    /// may be given out during a later push: its tag is its writer's) and
    /// its offset in the rendered input.
    pub(crate) fn push_with(
        &mut self,
        chunk: &[u8],
        tag: bool,
        tap: &mut dyn FnMut(&[u8], bool, u64),
    ) {
        self.raw += chunk.len() as u64;
        if let Some(digest) = &mut self.digest {
            digest.update(chunk);
        }
        match self.shaper.take() {
            None => {
                tap(chunk, tag, self.total);
                self.push_shown(chunk);
            }
            Some(mut shaper) => {
                shaper.push(chunk, tag, &mut |o| self.push_out(o, tap));
                self.shaper = Some(shaper);
            }
        }
    }

    /// Keeps a piece the options gave out.
    fn push_out(&mut self, o: Out<'_>, tap: &mut dyn FnMut(&[u8], bool, u64)) {
        match o {
            Out::Text(b, tag) => {
                tap(b, tag, self.total);
                self.push_shown(b);
            }
            Out::Hidden(n) => {
                if let Some(h) = &mut self.hidden {
                    h.add(self.newlines, n);
                }
            }
        }
    }

    /// Keeps the next rendered bytes.
    fn push_shown(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        self.newlines += count_newlines(chunk);
        let window = self.limits.head_window();
        if self.head.len() < window {
            let take = (window - self.head.len()).min(chunk.len());
            grow_capped(&mut self.head, take, window);
            self.head.extend_from_slice(&chunk[..take]);
        }
        self.tail.push(chunk);
    }

    /// The caller's spill id, when one was given.
    pub(crate) fn spill_id(&self) -> Option<&str> {
        self.spill_id.as_deref()
    }

    /// Bytes pushed so far.
    pub fn total_bytes(&self) -> u64 {
        self.raw
    }

    /// Bytes of buffer this bounder holds (allocated capacity): at most
    /// `2 × (2 × max_bytes + 8)`, whatever was pushed (with `terminal`, at
    /// most `8 × max(2 × max_bytes + 8, 4096) + 16 KiB` more for the
    /// renderer's window of rows; with `keep`, the matches remembered: see
    /// `docs/preview.md`).
    pub fn retained_bytes(&self) -> usize {
        self.head.capacity()
            + self.tail.capacity()
            + self.shaper.as_ref().map_or(0, |s| s.retained_bytes())
            + self.hidden.as_ref().map_or(0, |h| h.retained_bytes())
    }

    /// Ends the input: the preview if it fits, else a
    /// [`PendingSpill`](super::PendingSpill).
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] when the input does not fit and the limits
    /// leave no room for a cut, as for [`Bounder::bound`](super::Bounder::bound).
    pub fn finish(self) -> Result<Bounded<'static>, Error> {
        let limits = self.limits;
        if limits.tokens().is_some() {
            return self.into_retained().bound_fitted(limits);
        }
        self.into_retained().bound_owned(limits)
    }

    /// What this bounder keeps, to be bounded later (possibly at smaller limits).
    pub(crate) fn into_retained(self) -> RetainedInput {
        self.into_retained_with(&mut |_, _, _| {})
    }

    /// [`into_retained`](Self::into_retained), giving the rendered pieces the end
    /// of the input gives out to `tap` (as [`push_with`](Self::push_with)).
    pub(crate) fn into_retained_with(
        mut self,
        tap: &mut dyn FnMut(&[u8], bool, u64),
    ) -> RetainedInput {
        let extras = self
            .shaper
            .take()
            .map(|shaper| Box::new(shaper.finish(&mut |o| self.push_out(o, tap))));
        let spill_id = match (self.spill_id, &self.digest) {
            (Some(id), _) => id,
            (None, Some(digest)) => digest.hex(),
            (None, None) => String::new(),
        };
        RetainedInput {
            limits: self.limits,
            head: self.head,
            tail: self.tail.into_vec(),
            total: self.total,
            newlines: self.newlines,
            spill_id,
            extras,
            hidden: self.hidden,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retained_bytes_stay_bounded() {
        let mut bounder = StreamingBounder::new(10, 1000);
        let chunk = [b'x'; 777];
        for _ in 0..1000 {
            bounder.push(&chunk);
            assert!(bounder.retained_bytes() <= 2 * (2 * 1000 + 8));
        }
    }
}
