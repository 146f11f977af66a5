//! The two preview limits, validated once when a bounder is built.

use crate::error::Error;

/// The smallest valid `max_bytes`: the length of the longest plain notice
/// (every count at 20 digits, the width of `u64::MAX`).
///
/// A bounder can therefore always fall back to the plain notice alone, so
/// limits are checked once, when the bounder is built, never discovered later.
pub const MIN_MAX_BYTES: usize = 169;

/// Validated limits on a whole preview, notice and separators included.
///
/// ```
/// use dory_wire::preview::Limits;
///
/// let limits = Limits::new(2000, 50 * 1024).unwrap();
/// assert_eq!(limits.max_lines(), 2000);
/// assert_eq!(Limits::new(0, 50 * 1024).unwrap_err().code(), "invalid_limits");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    max_lines: usize,
    max_bytes: usize,
}

impl Limits {
    /// Checks the limits: `max_lines ≥ 1` (the notice takes one line) and
    /// `max_bytes ≥` [`MIN_MAX_BYTES`] (room for the longest plain notice).
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] (code `invalid_limits`) when either is too small.
    pub fn new(max_lines: usize, max_bytes: usize) -> Result<Self, Error> {
        if max_lines == 0 {
            return Err(Error::InvalidLimits {
                reason: "max_lines must be at least 1: the notice takes one line".to_owned(),
            });
        }
        if max_bytes < MIN_MAX_BYTES {
            return Err(Error::InvalidLimits {
                reason: format!(
                    "max_bytes must be at least {MIN_MAX_BYTES} (the longest plain notice), got {max_bytes}"
                ),
            });
        }
        Ok(Limits {
            max_lines,
            max_bytes,
        })
    }

    /// The most lines a preview may have, notice included.
    pub fn max_lines(&self) -> usize {
        self.max_lines
    }

    /// The most bytes a preview may have once rendered as UTF-8, notice included.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// How many leading input bytes a bounder retains. Twice `max_bytes` (plus a
    /// margin for UTF-8 and `\r\n` look-ahead) so that a line reaching past the
    /// window is provably too long for any budget and needs no more context.
    pub(crate) fn head_window(&self) -> usize {
        self.max_bytes.saturating_mul(2).saturating_add(8)
    }

    /// How many trailing input bytes a bounder retains (same reasoning).
    pub(crate) fn tail_window(&self) -> usize {
        self.head_window()
    }
}

#[cfg(test)]
mod tests {
    use super::super::notice;
    use super::*;

    #[test]
    fn min_max_bytes_is_the_longest_plain_notice() {
        let counts = notice::Counts {
            omitted_lines: u64::MAX,
            omitted_bytes: u64::MAX,
            first: u64::MAX,
            last: u64::MAX,
            total_lines: u64::MAX,
        };
        let mut text = String::new();
        notice::write(&mut text, &counts, None);
        assert_eq!(text.len(), MIN_MAX_BYTES);
    }

    #[test]
    fn rejects_too_small_limits() {
        assert_eq!(Limits::new(0, 4096).unwrap_err().code(), "invalid_limits");
        assert_eq!(
            Limits::new(10, MIN_MAX_BYTES - 1).unwrap_err().code(),
            "invalid_limits"
        );
        assert!(Limits::new(1, MIN_MAX_BYTES).is_ok());
        assert!(Limits::new(usize::MAX, usize::MAX).is_ok());
    }
}
