//! The gap detector: output that is missing — a hole between frames, a `gap`
//! frame, a 409 `output_gap` answer — is an error, unless the caller chose to
//! skip it, and then every loss is a `skipped` event with its exact range.
//! The other error answers (410, 400, the rest) become typed errors here too.
//!
//! Invariant: the cursor moves over lost bytes only under [`GapPolicy::Skip`],
//! and only after the `skipped` event that names them.

use std::ops::Range;

use crate::frame::parse_error_document;
use crate::sink::Sink;
use crate::{Cursor, Endpoint, Error, Event, GapPolicy, Stream};

/// Applies the gap policy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gaps {
    policy: GapPolicy,
}

impl Gaps {
    pub(crate) fn new(policy: GapPolicy) -> Self {
        Gaps { policy }
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

    /// Maps a non-2xx answer to its typed error. `Ok` only for a 409
    /// `output_gap` under the skip policy: the losses were skipped, and the
    /// caller reconnects from the moved cursor.
    pub(crate) fn error_answer(
        &self,
        status: u16,
        json: bool,
        body: &[u8],
        endpoint: Endpoint,
        cursor: &mut Cursor,
        events: &mut dyn Sink,
    ) -> Result<(), Error> {
        let doc = if json {
            parse_error_document(body)
        } else {
            Default::default()
        };
        let server_message = doc.message.unwrap_or_default();
        let Some(code) = doc.code else {
            return Err(Error::Api {
                status,
                api_code: None,
                server_message: describe_body(json, body),
            });
        };
        match code.as_str() {
            "output_gap" => {
                let offset = |value: Option<Result<u64, _>>, name: &str| match value {
                    Some(Ok(v)) => Ok(v),
                    Some(Err(reason)) => Err(Error::MalformedFrame {
                        line: 0,
                        reason: format!("output_gap error body: {reason}"),
                    }),
                    None => Err(Error::MalformedFrame {
                        line: 0,
                        reason: format!("output_gap error body: missing member {name:?}"),
                    }),
                };
                let earliest = if endpoint == Endpoint::SetupLogs {
                    Cursor::new(offset(doc.earliest, "earliest_offset")?, 0)
                } else {
                    Cursor::new(
                        offset(doc.earliest_stdout, "earliest_stdout_offset")?,
                        offset(doc.earliest_stderr, "earliest_stderr_offset")?,
                    )
                };
                if self.policy == GapPolicy::Fail {
                    // The server says output is gone even if no offset shows
                    // it: report the first stream that lost bytes, or stdout.
                    let stream = [Stream::Stdout, Stream::Stderr]
                        .into_iter()
                        .find(|&s| earliest.get(s) > cursor.get(s))
                        .unwrap_or(Stream::Stdout);
                    return Err(Error::OutputGap {
                        stream,
                        consumed: *cursor,
                        earliest,
                    });
                }
                self.retained_from(cursor, earliest, events)
            }
            "output_expired" => Err(Error::OutputExpired { server_message }),
            "offset_beyond_output" => Err(Error::OffsetBeyondOutput { server_message }),
            _ => Err(Error::Api {
                status,
                api_code: Some(code),
                server_message,
            }),
        }
    }
}

/// A short, printable description of an error body that is not a JSON error.
fn describe_body(json: bool, body: &[u8]) -> String {
    const SHOWN: usize = 200;
    if body.is_empty() {
        return "empty error body".to_owned();
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(SHOWN)]);
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let kind = if json { "JSON" } else { "non-JSON" };
    let more = if body.len() > SHOWN { "…" } else { "" };
    format!("{kind} error body: {}{more}", text.trim())
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

    #[test]
    fn error_bodies_are_described_printably() {
        let mut cursor = Cursor::default();
        let err = Gaps::new(GapPolicy::Fail)
            .error_answer(
                502,
                false,
                b"<h1>Bad\ngateway</h1>",
                Endpoint::Exec,
                &mut cursor,
                &mut Vec::new(),
            )
            .unwrap_err();
        assert_eq!(
            err,
            Error::Api {
                status: 502,
                api_code: None,
                server_message: "non-JSON error body: <h1>Bad gateway</h1>".into()
            }
        );
    }
}
