//! The whole-input bounder.

use memchr::memchr_iter;

use crate::error::Error;

use super::digest::spill_id_of;
use super::limits::Limits;
use super::plan::Retained;
use super::result::Preview;
use super::spill::{Bounded, PendingSpill};
use super::stream::StreamingBounder;

/// Bounds whole inputs to a preview within fixed [`Limits`].
///
/// ```
/// use dory_wire::preview::{Bounder, SpillOutcome};
///
/// let bounder = Bounder::new(5, 256)?;
/// let log: String = (1..=100).map(|i| format!("line {i}\n")).collect();
/// let preview = bounder.bound(log.as_bytes()).render(SpillOutcome::NotSaved, None);
/// assert_eq!(
///     preview.text,
///     "line 1\nline 2\n[... 96 lines (761 bytes) omitted: lines 3-98 of 100; full output not saved ...]\nline 99\nline 100\n"
/// );
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bounder {
    limits: Limits,
}

impl Bounder {
    /// A bounder for previews of at most `max_lines` lines and `max_bytes` bytes.
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] when `max_lines` is 0 or `max_bytes` is below
    /// [`MIN_MAX_BYTES`](super::MIN_MAX_BYTES).
    pub fn new(max_lines: usize, max_bytes: usize) -> Result<Self, Error> {
        Ok(Self::with_limits(Limits::new(max_lines, max_bytes)?))
    }

    /// A bounder for already validated limits.
    pub fn with_limits(limits: Limits) -> Self {
        Bounder { limits }
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// A streaming bounder with the same limits.
    pub fn streaming(&self) -> StreamingBounder {
        StreamingBounder::with_limits(self.limits)
    }

    /// Bounds `data`. When it must be cut, the spill id is derived from the
    /// content (see [`PendingSpill::spill_id`]).
    pub fn bound(&self, data: &[u8]) -> Bounded {
        self.bound_inner(data, None)
    }

    /// Bounds `data`, naming the spill `spill_id` (e.g. a random id) if one is needed.
    pub fn bound_with_spill_id(&self, data: &[u8], spill_id: &str) -> Bounded {
        self.bound_inner(data, Some(spill_id))
    }

    fn bound_inner(&self, data: &[u8], spill_id: Option<&str>) -> Bounded {
        let head = &data[..data.len().min(self.limits.head_window())];
        let tail = &data[data.len() - data.len().min(self.limits.tail_window())..];
        let retained = Retained {
            head,
            tail,
            total: data.len() as u64,
            newlines: memchr_iter(b'\n', data).count() as u64,
        };
        if let Some(text) = retained.unchanged(&self.limits) {
            return Bounded::Fits(Preview::unchanged(
                text,
                retained.total_lines(),
                retained.total,
            ));
        }
        Bounded::NeedsSpill(PendingSpill {
            limits: self.limits,
            head: head.to_vec(),
            tail: tail.to_vec(),
            total_bytes: retained.total,
            newlines: retained.newlines,
            spill_id: spill_id.map_or_else(|| spill_id_of(data), str::to_owned),
        })
    }
}
