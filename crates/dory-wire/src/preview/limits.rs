//! The two preview limits. Every pair is valid: input that fits comes back
//! unchanged whatever the limits; only a cut needs room for a notice.

use crate::error::Error;

/// The smallest `max_bytes` with which any input can be cut: room for the
/// minimal marker `[... omitted ...]` (17 bytes) with a margin, so that every
/// limit pair from `(1, MIN_MAX_BYTES)` up gives a preview of any input.
///
/// Below it (or with `max_lines = 0`), input that fits still comes back
/// unchanged; input that would need a cut is refused with `invalid_limits`.
pub const MIN_MAX_BYTES: usize = 32;

/// Limits on a whole preview, notice and separators included.
///
/// ```
/// use dory_wire::preview::{Limits, MIN_MAX_BYTES};
///
/// let limits = Limits::new(2000, 50 * 1024);
/// assert_eq!(limits.max_lines(), 2000);
/// assert!(limits.check_cut().is_ok());
/// let tiny = Limits::new(0, 10);
/// assert_eq!(tiny.check_cut().unwrap_err().code(), "invalid_limits");
/// assert!(Limits::new(1, MIN_MAX_BYTES).check_cut().is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    max_lines: usize,
    max_bytes: usize,
    split: Split,
}

/// Where a cut preview's budget goes between its head and its tail.
///
/// ```
/// use dory_wire::preview::{Bounder, Split, SpillOutcome};
///
/// let log: String = (1..=100).map(|i| format!("line {i}\n")).collect();
/// let tail_first = Bounder::new(9, 4096).with_split(Split::Tail);
/// let preview = tail_first.bound(log.as_bytes())?.render(SpillOutcome::NotSaved, None);
/// assert!(preview.text.starts_with("line 1\n[... "));
/// // 9 lines: the notice, 1 line of head (an eighth of 8) and 7 of tail.
/// assert!(preview.text.contains("omitted: lines 2-93 of 100"));
/// assert!(preview.text.ends_with("]\nline 94\nline 95\nline 96\nline 97\nline 98\nline 99\nline 100\n"));
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Split {
    /// Half of each budget to the head, half to the tail; a side that needs
    /// less leaves the rest to the other. The bare bounders' default.
    #[default]
    Even,
    /// The tail first: the head gets an eighth of each budget (what
    /// identifies the command's start; at least one line when two fit), the
    /// tail the rest; a side that needs
    /// less leaves the rest to the other. `run`'s default: a failure is
    /// printed near the end of the output, the head is mostly set-up.
    Tail,
}

impl Split {
    /// Its name: `"even"` or `"tail"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Even => "even",
            Split::Tail => "tail",
        }
    }

    /// The split of this name (`"even"`, `"tail"`).
    pub fn from_name(name: &str) -> Option<Split> {
        match name {
            "even" => Some(Split::Even),
            "tail" => Some(Split::Tail),
            _ => None,
        }
    }

    /// The head's first share of `bytes` and `lines`.
    pub(crate) fn head_share(self, bytes: usize, lines: usize) -> (usize, usize) {
        match self {
            Split::Even => (bytes / 2, lines / 2),
            // At least one line when two fit: the output's first line
            // (often the command's own) says what ran.
            Split::Tail => (bytes / 8, if lines >= 2 { (lines / 8).max(1) } else { 0 }),
        }
    }
}

impl Limits {
    /// Limits of at most `max_lines` lines and `max_bytes` bytes. Any pair is
    /// accepted; see [`check_cut`](Self::check_cut) for when a cut is possible.
    pub fn new(max_lines: usize, max_bytes: usize) -> Self {
        Limits {
            max_lines,
            max_bytes,
            split: Split::Even,
        }
    }

    /// The same limits with this [`Split`].
    #[must_use]
    pub fn with_split(mut self, split: Split) -> Self {
        self.split = split;
        self
    }

    /// Where the budget goes between head and tail ([`Split::Even`] unless set).
    pub fn split(&self) -> Split {
        self.split
    }

    /// Other sizes, the same split.
    pub(crate) fn resized(&self, max_lines: usize, max_bytes: usize) -> Self {
        Limits::new(max_lines, max_bytes).with_split(self.split)
    }

    /// The most lines a preview may have, notice included.
    pub fn max_lines(&self) -> usize {
        self.max_lines
    }

    /// The most bytes a preview may have once rendered as UTF-8, notice included.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Whether input that does not fit can be cut within these limits: the
    /// notice needs a line (`max_lines ≥ 1`) and `max_bytes ≥` [`MIN_MAX_BYTES`].
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] (code `invalid_limits`) when it cannot.
    pub fn check_cut(&self) -> Result<(), Error> {
        if self.max_lines == 0 {
            return Err(Error::InvalidLimits {
                reason: "the input must be cut and max_lines is 0: the notice needs a line"
                    .to_owned(),
            });
        }
        if self.max_bytes < MIN_MAX_BYTES {
            return Err(Error::InvalidLimits {
                reason: format!(
                    "the input must be cut and max_bytes={} is below {MIN_MAX_BYTES}, the least a cut preview needs",
                    self.max_bytes
                ),
            });
        }
        Ok(())
    }

    /// How many leading input bytes a bounder retains. Twice `max_bytes` (plus a
    /// margin for UTF-8 and `\r\n` look-ahead): a line that may be shown whole
    /// ends within it, so a line reaching past it can only be cut.
    pub(crate) fn head_window(&self) -> usize {
        self.max_bytes.saturating_mul(2).saturating_add(8)
    }

    /// How many trailing input bytes a bounder retains (same reasoning).
    pub(crate) fn tail_window(&self) -> usize {
        self.head_window()
    }
}

/// The largest `max_lines` or `max_bytes` a binding accepts, in every
/// language: 2^32 − 1, the most a WebAssembly (wasm32) `usize` holds.
pub const MAX_LIMIT: u32 = u32::MAX;

/// A binding's number as the limit `name` (`max_lines`, `max_bytes` or its
/// spelling in the binding's language): a whole number from 0 to
/// [`MAX_LIMIT`]. A number too large for an `f64` is passed as an infinity
/// of its sign.
///
/// # Errors
/// [`Error::InvalidLimits`] for a fraction, NaN, an infinity, a negative
/// number or one above [`MAX_LIMIT`], with the same text in every language.
pub fn checked_limit(value: f64, name: &str) -> Result<usize, Error> {
    if value.fract() == 0.0 && (0.0..=f64::from(MAX_LIMIT)).contains(&value) {
        // Whole and within u32: the cast is exact.
        Ok(value as usize)
    } else {
        Err(Error::InvalidLimits {
            reason: format!("{name} must be a whole number from 0 to {MAX_LIMIT}, not {value}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cuts_need_room() {
        assert_eq!(
            Limits::new(0, 4096).check_cut().unwrap_err().code(),
            "invalid_limits"
        );
        assert_eq!(
            Limits::new(10, MIN_MAX_BYTES - 1)
                .check_cut()
                .unwrap_err()
                .code(),
            "invalid_limits"
        );
        assert!(Limits::new(1, MIN_MAX_BYTES).check_cut().is_ok());
        assert!(Limits::new(usize::MAX, usize::MAX).check_cut().is_ok());
    }
}
