//! Error answers: the body of a non-2xx response, kept up to
//! [`MAX_ERROR_BODY_BYTES`], and its mapping to a typed [`Error`] once it ends.
//!
//! Invariants:
//! - At most [`MAX_ERROR_BODY_BYTES`] bytes are kept, whatever is fed; a
//!   body that had more is never read as JSON (the status is the information).
//! - Every answer is an error, except a 409 `output_gap` under
//!   [`GapPolicy::Skip`]: its losses are skipped and the stream ends
//!   `Disconnected` for a reconnect from the moved cursor.
//! - The mapping never panics and never trusts the body: a missing or
//!   malformed member is `malformed_frame` (line 0) or a plain `api_error`.

use crate::frame::parse_error_document;
use crate::gaps::Gaps;
use crate::sink::Sink;
use crate::types::MAX_ERROR_BODY_BYTES;
use crate::{Cursor, Endpoint, Error, GapPolicy, Stream};

/// The body of an error answer, as far as it is kept.
#[derive(Debug)]
pub(super) struct ErrorBody {
    status: u16,
    json: bool,
    body: Vec<u8>,
    /// Whether bytes beyond [`MAX_ERROR_BODY_BYTES`] were dropped.
    overflow: bool,
}

impl ErrorBody {
    /// The body of an answer with `status`; `json` when its media type is
    /// `application/json`.
    pub(super) fn new(status: u16, json: bool) -> Self {
        ErrorBody {
            status,
            json,
            body: Vec::new(),
            overflow: false,
        }
    }

    /// Keeps what fits of `data`.
    pub(super) fn push(&mut self, data: &[u8]) {
        let room = MAX_ERROR_BODY_BYTES - self.body.len();
        self.body.extend_from_slice(&data[..data.len().min(room)]);
        self.overflow |= data.len() > room;
    }

    /// Bytes kept.
    pub(super) fn buffered(&self) -> usize {
        self.body.len()
    }

    /// The body ended: the typed error it means (see the module invariants).
    pub(super) fn finish(
        &self,
        gaps: Gaps,
        endpoint: Endpoint,
        cursor: &mut Cursor,
        events: &mut dyn Sink,
    ) -> Result<(), Error> {
        error_answer(
            gaps,
            self.status,
            self.json && !self.overflow,
            &self.body,
            endpoint,
            cursor,
            events,
        )
    }
}

/// Maps a non-2xx answer to its typed error. `Ok` only for a 409
/// `output_gap` under the skip policy.
fn error_answer(
    gaps: Gaps,
    status: u16,
    json: bool,
    body: &[u8],
    endpoint: Endpoint,
    cursor: &mut Cursor,
    events: &mut dyn Sink,
) -> Result<(), Error> {
    if (300..400).contains(&status) {
        // One rule in every client: a redirect is an answer, never followed,
        // so that credentials never go to another origin.
        return Err(Error::Api {
            status,
            api_code: None,
            server_message: "the service answered with a redirect; redirects are not followed \
                (credentials never go to another origin): set the client's base URL to the \
                service's own address"
                .to_owned(),
        });
    }
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
            if gaps.policy() == GapPolicy::Fail {
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
            gaps.retained_from(cursor, earliest, events)
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
    use crate::Event;

    fn answer(
        policy: GapPolicy,
        status: u16,
        json: bool,
        body: &[u8],
    ) -> (Result<(), Error>, Cursor, Vec<Event>) {
        let mut error_body = ErrorBody::new(status, json);
        error_body.push(body);
        let mut cursor = Cursor::new(10, 0);
        let mut events = Vec::new();
        let gaps = Gaps::new(policy);
        let result = error_body.finish(gaps, Endpoint::Exec, &mut cursor, &mut events);
        (result, cursor, events)
    }

    #[test]
    fn error_bodies_are_described_printably() {
        let (result, _, _) = answer(GapPolicy::Fail, 502, false, b"<h1>Bad\ngateway</h1>");
        assert_eq!(
            result,
            Err(Error::Api {
                status: 502,
                api_code: None,
                server_message: "non-JSON error body: <h1>Bad gateway</h1>".into()
            })
        );
    }

    #[test]
    fn a_409_is_a_gap_and_skippable() {
        let body =
            br#"{"error":"output_gap","earliest_stdout_offset":12,"earliest_stderr_offset":0}"#;
        let (result, cursor, _) = answer(GapPolicy::Fail, 409, true, body);
        assert_eq!(
            result,
            Err(Error::OutputGap {
                stream: Stream::Stdout,
                consumed: Cursor::new(10, 0),
                earliest: Cursor::new(12, 0)
            })
        );
        assert_eq!(cursor, Cursor::new(10, 0));
        let (result, cursor, events) = answer(GapPolicy::Skip, 409, true, body);
        assert_eq!(result, Ok(()));
        assert_eq!(cursor, Cursor::new(12, 0));
        assert_eq!(
            events,
            vec![Event::Skipped {
                stream: Stream::Stdout,
                start: 10,
                end: 12
            }]
        );
    }

    #[test]
    fn an_overflowing_body_is_not_read_as_json() {
        let mut body = br#"{"error":"output_expired","message":"gone"}"#.to_vec();
        let (result, _, _) = answer(GapPolicy::Fail, 410, true, &body);
        assert_eq!(
            result,
            Err(Error::OutputExpired {
                server_message: "gone".into()
            })
        );
        body.resize(MAX_ERROR_BODY_BYTES + 1, b' ');
        let (result, _, _) = answer(GapPolicy::Fail, 410, true, &body);
        assert!(
            matches!(
                result,
                Err(Error::Api {
                    status: 410,
                    api_code: None,
                    ..
                })
            ),
            "{result:?}"
        );
    }
}
