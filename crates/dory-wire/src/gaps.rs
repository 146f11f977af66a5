//! The gap detector: output that is missing — a hole between frames, a `gap`
//! frame, a 409 `output_gap` answer — is an error, unless the caller chose to
//! skip it, and then every loss is a `skipped` event with its exact range.
//!
//! Invariant: the cursor moves over lost bytes only under [`GapPolicy::Skip`],
//! and only after the `skipped` event that names them.

use std::ops::Range;

use crate::sink::Sink;
use crate::{Cursor, Error, Event, GapPolicy, Stream};

/// Applies the gap policy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gaps {
    policy: GapPolicy,
}

impl Gaps {
    pub(crate) fn new(policy: GapPolicy) -> Self {
        Gaps { policy }
    }

    pub(crate) fn policy(&self) -> GapPolicy {
        self.policy
    }

    /// Offsets `lost` of `stream` are missing; `earliest` is what the server
    /// still has. Fails, or emits `skipped` and moves the cursor past them.
    pub(crate) fn lose(
        &self,
        cursor: &mut Cursor,
        stream: Stream,
        lost: Range<u64>,
        earliest: Cursor,
        events: &mut dyn Sink,
    ) -> Result<(), Error> {
        match self.policy {
            GapPolicy::Fail => Err(Error::OutputGap {
                stream,
                consumed: *cursor,
                earliest,
            }),
            GapPolicy::Skip => {
                events.event(Event::Skipped {
                    stream,
                    start: lost.start,
                    end: lost.end,
                });
                cursor.set(stream, lost.end);
                Ok(())
            }
        }
    }

    /// The server retains output only from `earliest` on: every stream whose
    /// cursor is before that lost bytes (stdout first). A `gap` that loses
    /// nothing only means "reconnect".
    pub(crate) fn retained_from(
        &self,
        cursor: &mut Cursor,
        earliest: Cursor,
        events: &mut dyn Sink,
    ) -> Result<(), Error> {
        for stream in [Stream::Stdout, Stream::Stderr] {
            let (from, to) = (cursor.get(stream), earliest.get(stream));
            if to > from {
                self.lose(cursor, stream, from..to, earliest, events)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_fail_or_skip_exactly() {
        let earliest = Cursor::new(12, 3);
        let mut cursor = Cursor::new(10, 0);
        let err = Gaps::new(GapPolicy::Fail)
            .retained_from(&mut cursor, earliest, &mut Vec::new())
            .unwrap_err();
        assert_eq!(
            err,
            Error::OutputGap {
                stream: Stream::Stdout,
                consumed: Cursor::new(10, 0),
                earliest
            }
        );
        let mut events = Vec::new();
        Gaps::new(GapPolicy::Skip)
            .retained_from(&mut cursor, earliest, &mut events)
            .unwrap();
        assert_eq!(cursor, earliest);
        assert_eq!(
            events,
            vec![
                Event::Skipped {
                    stream: Stream::Stdout,
                    start: 10,
                    end: 12
                },
                Event::Skipped {
                    stream: Stream::Stderr,
                    start: 0,
                    end: 3
                },
            ]
        );
        // Nothing before the cursor is lost.
        let mut events = Vec::new();
        Gaps::new(GapPolicy::Fail)
            .retained_from(&mut cursor, Cursor::new(4, 0), &mut events)
            .unwrap();
        assert!(events.is_empty());
    }
}
