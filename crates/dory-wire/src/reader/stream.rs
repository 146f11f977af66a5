//! The rules of a frame stream (a 2xx NDJSON body): which frames belong to
//! the endpoint's union, in which order, and where their bytes fall.
//!
//! Invariants:
//! - Nothing follows a terminal frame (`exit`, or a `gap`, which means
//!   "reconnect"): any later frame is `unexpected_frame`.
//! - On the exec union, `started` comes first and once; its `proc_id` must
//!   match the one already known (header or resume state).
//! - Offsets advance only on complete, validated frames, and only over bytes
//!   delivered to the sink or skipped under [`GapPolicy::Skip`](crate::GapPolicy::Skip)
//!   (see `offsets` and `gaps`).
//! - A blank line (spaces, tabs, `\r`) is no frame and changes nothing.

use std::borrow::Cow;

use super::lines::Lines;
use super::Progress;
use crate::frame::{parse_frame, Frame, Scratch};
use crate::gaps::Gaps;
use crate::offsets::{place, Placement};
use crate::sink::Sink;
use crate::{Cursor, Endpoint, Error, Event, Stream};

/// The frame that ended a stream; nothing may follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Terminal {
    Exit,
    Gap,
}

/// What the rules read and never change: fixed when the reader is built.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules {
    pub(super) endpoint: Endpoint,
    pub(super) strict: bool,
    pub(super) gaps: Gaps,
}

/// A frame stream being read: its lines, and how far its order got.
#[derive(Debug)]
pub(super) struct FrameStream {
    lines: Lines,
    order: Order,
    /// Buffers the frames' data is decoded into, kept between lines.
    scratch: Scratch,
}

/// How far the order of frames got.
#[derive(Debug, Default)]
struct Order {
    started: bool,
    terminal: Option<Terminal>,
}

impl FrameStream {
    pub(super) fn new(max_frame_bytes: usize) -> Self {
        FrameStream {
            lines: Lines::new(max_frame_bytes),
            order: Order::default(),
            scratch: Scratch::default(),
        }
    }

    /// Bytes held for an incomplete line.
    pub(super) fn buffered(&self) -> usize {
        self.lines.buffered()
    }

    /// How many lines were complete so far: what proves the stream alive.
    pub(super) fn completed_lines(&self) -> u64 {
        self.lines.completed()
    }

    /// The terminal frame seen, if any.
    pub(super) fn terminal(&self) -> Option<Terminal> {
        self.order.terminal
    }

    /// Decodes the complete lines of `data`, delivering their events.
    #[inline]
    pub(super) fn feed(
        &mut self,
        data: &[u8],
        rules: Rules,
        progress: &mut Progress,
        events: &mut dyn Sink,
    ) -> Result<(), Error> {
        // One pointer to everything a line needs: fewer arguments per line.
        let mut apply = Apply {
            order: &mut self.order,
            rules,
            progress,
            events,
        };
        let scratch = &mut self.scratch;
        self.lines
            .feed(data, |line, number| apply.line(line, number, scratch))
    }
}

/// What applying a line reads and changes, gathered for one `feed`.
struct Apply<'a> {
    order: &'a mut Order,
    rules: Rules,
    progress: &'a mut Progress,
    events: &'a mut dyn Sink,
}

impl Apply<'_> {
    /// Decodes one complete line (without its `\n`).
    fn line(&mut self, line: &[u8], number: u64, scratch: &mut Scratch) -> Result<(), Error> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.first() != Some(&b'{') && line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            return Ok(());
        }
        let frame = parse_frame(line, scratch).map_err(|reason| Error::MalformedFrame {
            line: number,
            reason: reason.into_owned(),
        })?;
        self.apply(frame, number)
    }

    /// Applies one frame's rules: union, order, offsets, gaps.
    fn apply(&mut self, frame: Frame<'_>, line: u64) -> Result<(), Error> {
        let Apply {
            order,
            rules,
            progress,
            events,
        } = self;
        let events: &mut dyn Sink = &mut **events;
        let unexpected = |frame: &Frame<'_>, reason: &str| Error::UnexpectedFrame {
            line,
            frame_type: frame.type_name().to_owned(),
            reason: reason.to_owned(),
        };
        match order.terminal {
            Some(Terminal::Exit) => return Err(unexpected(&frame, "after exit")),
            Some(Terminal::Gap) => return Err(unexpected(&frame, "after gap")),
            None => {}
        }
        let endpoint = rules.endpoint;
        let exec_union = matches!(endpoint, Endpoint::Exec | Endpoint::Document);
        match frame {
            Frame::Unknown { frame_type } => {
                if rules.strict {
                    return Err(Error::UnexpectedFrame {
                        line,
                        frame_type,
                        reason: "is not a frame type of the protocol (strict mode)".into(),
                    });
                }
                events.event(Event::Unknown { frame_type });
                return Ok(());
            }
            Frame::Started { proc_id } => {
                if !exec_union {
                    return Err(Error::UnexpectedFrame {
                        line,
                        frame_type: "started".into(),
                        reason: format!("does not belong to {} responses", endpoint.as_str()),
                    });
                }
                if order.started {
                    return Err(Error::UnexpectedFrame {
                        line,
                        frame_type: "started".into(),
                        reason: "appeared twice".into(),
                    });
                }
                progress.check_identity(&proc_id)?;
                order.started = true;
                progress.proc_id = Some(proc_id.clone());
                events.event(Event::Started { proc_id });
                return Ok(());
            }
            _ if exec_union && !order.started => {
                return Err(unexpected(&frame, "before started"));
            }
            _ => {}
        }
        match frame {
            Frame::Data {
                stream,
                data,
                offset,
            } => {
                if stream == Stream::Stderr && endpoint == Endpoint::SetupLogs {
                    return Err(Error::UnexpectedFrame {
                        line,
                        frame_type: "stderr".into(),
                        reason: "setup logs merge stderr into stdout".into(),
                    });
                }
                let cursor = &mut progress.cursor;
                let mut placement = place(cursor, stream, data.len(), offset);
                if let Placement::Hole { from, to } = placement {
                    let mut earliest = *cursor;
                    earliest.set(stream, to);
                    rules
                        .gaps
                        .lose(cursor, stream, from..to, earliest, events)?;
                    placement = place(cursor, stream, data.len(), offset);
                }
                if let Placement::Deliver { skip } = placement {
                    // An owned payload (base64, escapes) is handed over, not copied.
                    let bytes = match data {
                        Cow::Owned(v) if skip == 0 => Cow::Owned(v),
                        Cow::Owned(v) => Cow::Owned(v[skip..].to_vec()),
                        Cow::Borrowed(b) => Cow::Borrowed(&b[skip..]),
                    };
                    let start = offset - bytes.len() as u64;
                    cursor.set(stream, offset);
                    events.output(stream, bytes, start, offset);
                }
            }
            Frame::Heartbeat => events.event(Event::Heartbeat),
            Frame::Gap {
                stdout,
                stderr,
                combined,
            } => {
                let missing = |name: &str| Error::MalformedFrame {
                    line,
                    reason: format!("missing member {name:?}"),
                };
                let earliest = if endpoint == Endpoint::SetupLogs {
                    Cursor::new(combined.ok_or_else(|| missing("earliest_offset"))?, 0)
                } else {
                    Cursor::new(
                        stdout.ok_or_else(|| missing("earliest_stdout_offset"))?,
                        stderr.ok_or_else(|| missing("earliest_stderr_offset"))?,
                    )
                };
                rules
                    .gaps
                    .retained_from(&mut progress.cursor, earliest, events)?;
                order.terminal = Some(Terminal::Gap);
            }
            Frame::Exit {
                exit_code,
                timed_out,
            } => {
                order.terminal = Some(Terminal::Exit);
                progress.exit = Some((exit_code, timed_out));
                events.event(Event::Exit {
                    exit_code,
                    timed_out,
                });
            }
            Frame::Started { .. } | Frame::Unknown { .. } => {}
        }
        Ok(())
    }
}
