//! The liveness clock of a followed stream, without a clock: the caller
//! passes the time in (`now`, any monotonic origin) and is told the deadline.
//!
//! Invariants:
//! - The clock is armed by the first tick; until then there is no deadline.
//! - A tick after a complete frame arrived restarts the clock at that tick's `now`;
//!   a tick without a frame since the last (re)start checks the deadline.
//! - Stalled is final: once set, it stays set and there is no deadline.
//!
//! Whether the clock applies at all (only to a frame stream that has not
//! ended) is the reader's decision, not this module's.

use std::time::Duration;

/// When the last frame-less period started, and whether it was broken.
#[derive(Debug)]
pub(crate) struct Liveness {
    timeout: Duration,
    /// When the clock last (re)started; `None` until armed.
    since: Option<Duration>,
    /// Whether a frame arrived since the clock last (re)started.
    active: bool,
    stalled: bool,
}

impl Liveness {
    pub(crate) fn new(timeout: Duration) -> Self {
        Liveness {
            timeout,
            since: None,
            active: false,
            stalled: false,
        }
    }

    /// A complete frame (line) arrived.
    #[inline]
    pub(crate) fn frame_arrived(&mut self) {
        self.active = true;
    }

    /// Whether no frame came for the timeout (final).
    pub(crate) fn stalled(&self) -> bool {
        self.stalled
    }

    /// The time by which the next frame must arrive, once armed and not stalled.
    pub(crate) fn deadline(&self) -> Option<Duration> {
        if self.stalled {
            return None;
        }
        self.since.map(|t| t.saturating_add(self.timeout))
    }

    /// The caller's time is `now`: arms or restarts the clock, or finds the
    /// stream stalled. Returns whether it is stalled.
    pub(crate) fn tick(&mut self, now: Duration) -> bool {
        if self.stalled {
            return true;
        }
        match self.since {
            Some(since) if !self.active => {
                if now >= since.saturating_add(self.timeout) {
                    self.stalled = true;
                }
            }
            _ => {
                self.since = Some(now);
                self.active = false;
            }
        }
        self.stalled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn arms_restarts_and_stalls() {
        let mut clock = Liveness::new(S(30));
        assert_eq!(clock.deadline(), None, "not armed");
        assert!(!clock.tick(S(100)));
        assert_eq!(clock.deadline(), Some(S(130)));
        assert!(!clock.tick(S(129)));
        clock.frame_arrived();
        assert!(
            !clock.tick(S(150)),
            "a frame restarts the clock at the tick"
        );
        assert_eq!(clock.deadline(), Some(S(180)));
        assert!(clock.tick(S(180)));
        assert!(clock.stalled());
        assert_eq!(clock.deadline(), None);
        clock.frame_arrived();
        assert!(clock.tick(S(181)), "stalled is final");
    }

    #[test]
    fn saturates_instead_of_overflowing() {
        let mut clock = Liveness::new(Duration::MAX);
        assert!(!clock.tick(S(1)));
        assert_eq!(clock.deadline(), Some(Duration::MAX));
        assert!(!clock.tick(Duration::MAX - S(1)));
    }
}
