//! The document harness: 2xx JSON documents and error bodies, raw or
//! generated, checked against the reader invariants and the reference decoder.

use arbitrary::Unstructured;
use dory_wire::{
    Cursor, End, Endpoint, Error, Event, GapPolicy, ProcessStatus, ReaderOptions, ResumeState,
    MAX_ERROR_BODY_BYTES,
};
use serde_json::Value;

use crate::reader::{run_checked, ReaderSetup, ENDPOINTS, PROCESS_IDS};
use crate::reference::{decode_document, depth, Members, RefDocument};
use crate::streamgen::generate_document;
use crate::Header;

/// Bytes of the document target's header.
pub const DOCUMENT_HEADER_LEN: usize = 6;

/// Statuses picked by header byte 1.
pub const DOCUMENT_STATUSES: [u16; 10] = [200, 201, 400, 404, 409, 410, 422, 500, 503, 299];

/// Content-Types picked by header byte 2; the first two are JSON.
pub const DOCUMENT_CONTENT_TYPES: [&str; 5] = [
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-ndjson",
    "text/html",
];

/// The document target's configuration.
///
/// Header layout ([`DOCUMENT_HEADER_LEN`] bytes):
///
/// | byte | meaning |
/// |---|---|
/// | 0 | endpoint: [`ENDPOINTS`]`[b % 4]` |
/// | 1 | status: [`DOCUMENT_STATUSES`]`[b % 10]` |
/// | 2 | Content-Type: [`DOCUMENT_CONTENT_TYPES`]`[b % 5]` |
/// | 3 | bits 0–1: `CE-Process-Id` ([`PROCESS_IDS`]); bit 2: skip policy; bit 3: cursor (100, 7) instead of zeros; bit 4: resume as `p_1` |
/// | 4 | bit 0: the body is generated from the rest of the input ([`generate_document`]) instead of taken raw |
/// | 5 | split seed |
#[derive(Debug, Clone)]
pub struct DocumentSetup {
    /// The reader setup (its split seed included).
    pub reader: ReaderSetup,
    /// The body.
    pub body: Vec<u8>,
}

impl DocumentSetup {
    /// Reads the header and builds the body; `None` when the generator ran
    /// out of input.
    pub fn parse(data: &[u8]) -> Option<Self> {
        let (h, rest) = Header::split(data, DOCUMENT_HEADER_LEN);
        let flags = h.u8(3);
        let cursor = if flags & 8 != 0 {
            Cursor::new(100, 7)
        } else {
            Cursor::default()
        };
        let resume = (flags & 16 != 0).then(|| {
            let mut state = ResumeState::new(Some("p_1".to_owned()));
            state.cursor = cursor;
            state
        });
        let gap_policy = if flags & 4 != 0 {
            GapPolicy::Skip
        } else {
            GapPolicy::Fail
        };
        let body = if h.u8(4) & 1 != 0 {
            generate_document(&mut Unstructured::new(rest)).ok()?
        } else {
            rest.to_vec()
        };
        let reader = ReaderSetup {
            endpoint: ENDPOINTS[usize::from(h.u8(0)) % ENDPOINTS.len()],
            status: DOCUMENT_STATUSES[usize::from(h.u8(1)) % DOCUMENT_STATUSES.len()],
            content_type: DOCUMENT_CONTENT_TYPES
                [usize::from(h.u8(2)) % DOCUMENT_CONTENT_TYPES.len()],
            proc_id_header: PROCESS_IDS[usize::from(flags & 3)],
            resume,
            options: ReaderOptions::default().gap_policy(gap_policy),
            cursor,
            clock: false,
            split_seed: u64::from(h.u8(5)),
        };
        Some(DocumentSetup { reader, body })
    }

    fn json(&self) -> bool {
        self.reader.content_type.starts_with("application/json")
    }

    /// The process id the response must not contradict.
    fn expected_id(&self) -> Option<&str> {
        self.reader
            .resume
            .as_ref()
            .and_then(|s| s.proc_id.as_deref())
            .or(self.reader.proc_id_header)
    }
}

/// Runs the reader whole and split, checks the invariants, then compares the
/// outcome with the reference decoder.
pub fn check(data: &[u8]) {
    let Some(setup) = DocumentSetup::parse(data) else {
        return;
    };
    let whole = run_checked(&setup.reader, &setup.body, 0, false);
    let split = run_checked(&setup.reader, &setup.body, setup.reader.split_seed, false);
    assert_eq!(whole, split, "split invariance");
    let resumed_id = setup
        .reader
        .resume
        .as_ref()
        .and_then(|s| s.proc_id.as_deref());
    if let (Some(resumed), Some(header)) = (resumed_id, setup.reader.proc_id_header) {
        if resumed != header {
            // `open` itself refuses a header that contradicts the resume state.
            assert!(
                matches!(&whole.outcome, Err(Error::IdentityMismatch { .. })),
                "resumed as {resumed:?}, header {header:?}: {:?}",
                whole.outcome
            );
            return;
        }
    }
    if setup.reader.status >= 300 || setup.reader.status < 200 {
        check_error_body(&setup, &whole.outcome, &whole.events);
    } else if setup.json() {
        check_document(&setup, &whole.outcome, &whole.events);
    } else {
        assert!(
            matches!(&whole.outcome, Err(e) if e.code() == "unsupported_content_type")
                || setup.reader.content_type == "application/x-ndjson",
            "2xx {:?}: {:?}",
            setup.reader.content_type,
            whole.outcome
        );
    }
}

fn check_document(setup: &DocumentSetup, outcome: &Result<End, Error>, events: &[Event]) {
    let reference = decode_document(&setup.body);
    let expected_id = setup.expected_id();
    match reference {
        RefDocument::Undecided => {}
        RefDocument::Invalid(why) => assert!(
            matches!(outcome, Err(Error::MalformedFrame { line: 0, .. })),
            "the reference rejects the document ({why}), the reader gives {outcome:?}"
        ),
        RefDocument::Identity { ref proc_id, .. } | RefDocument::Result { ref proc_id, .. }
            if expected_id.is_some_and(|id| id != proc_id) =>
        {
            assert!(
                matches!(outcome, Err(Error::IdentityMismatch { .. })),
                "expected identity_mismatch, got {outcome:?}"
            );
        }
        RefDocument::Identity { proc_id, status } => {
            assert_eq!(
                outcome,
                &Ok(End::Document),
                "reference: identity {proc_id:?}"
            );
            let Some(Event::Identity(identity)) = events.last() else {
                panic!("no identity event: {events:?}");
            };
            assert_eq!(identity.proc_id, proc_id);
            let status = match status.as_str() {
                "running" => ProcessStatus::Running,
                _ => ProcessStatus::Exited,
            };
            assert_eq!(identity.status, status);
        }
        RefDocument::Result {
            proc_id,
            stdout,
            stderr,
            stdout_truncated,
            stderr_truncated,
            exit_code,
            timed_out,
        } => {
            assert_eq!(outcome, &Ok(End::Document), "reference: result {proc_id:?}");
            let Some(Event::ExecResult(result)) = events.last() else {
                panic!("no result event: {events:?}");
            };
            assert_eq!(result.proc_id, proc_id);
            assert_eq!(result.stdout, stdout);
            assert_eq!(result.stderr, stderr);
            assert_eq!(result.stdout_truncated, stdout_truncated);
            assert_eq!(result.stderr_truncated, stderr_truncated);
            assert_eq!(result.exit_code, exit_code);
            assert_eq!(result.timed_out, timed_out);
        }
    }
}

/// An unsigned offset member as PROTOCOL.md §8 reads it, `None` when absent,
/// `Some(None)` when present but not a u64.
fn offset_member(fields: &[(String, Value)], name: &str) -> Option<Option<u64>> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_u64())
}

fn check_error_body(setup: &DocumentSetup, outcome: &Result<End, Error>, events: &[Event]) {
    let status = setup.reader.status;
    let body = &setup.body;
    let members = if setup.json() && body.len() <= MAX_ERROR_BODY_BYTES {
        serde_json::from_slice::<Members>(body)
            .ok()
            .map(|m| m.members)
    } else {
        None
    };
    if members
        .as_ref()
        .is_some_and(|m| m.iter().any(|(_, v)| depth(v) >= 60))
    {
        return;
    }
    // A known member twice makes the body unreadable as an error document.
    let members = members.filter(|m| {
        let mut names: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
        names.sort_unstable();
        names.windows(2).all(|w| w[0] != w[1] || !is_known(w[0]))
    });
    let code = members.as_ref().and_then(|m| {
        m.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("error", Value::String(code)) => Some(code.clone()),
            _ => None,
        })
    });
    let Some(code) = code else {
        assert!(
            matches!(outcome, Err(Error::Api { status: s, api_code: None, .. }) if *s == status),
            "an error body without a code: {outcome:?}"
        );
        return;
    };
    let fields = members.unwrap_or_default();
    let server_message = fields
        .iter()
        .find_map(|(k, v)| match (k.as_str(), v) {
            ("message", Value::String(m)) => Some(m.clone()),
            _ => None,
        })
        .unwrap_or_default();
    match code.as_str() {
        "output_expired" => assert_eq!(outcome, &Err(Error::OutputExpired { server_message })),
        "offset_beyond_output" => {
            assert_eq!(outcome, &Err(Error::OffsetBeyondOutput { server_message }));
        }
        "output_gap" => {
            let names: &[&str] = if setup.reader.endpoint == Endpoint::SetupLogs {
                &["earliest_offset"]
            } else {
                &["earliest_stdout_offset", "earliest_stderr_offset"]
            };
            let offsets: Vec<_> = names.iter().map(|n| offset_member(&fields, n)).collect();
            if offsets.iter().any(|o| !matches!(o, Some(Some(_)))) {
                assert!(
                    matches!(outcome, Err(Error::MalformedFrame { line: 0, .. })),
                    "an output_gap body without valid offsets: {outcome:?}"
                );
                return;
            }
            let earliest: Vec<u64> = offsets.into_iter().flatten().flatten().collect();
            let earliest = Cursor::new(earliest[0], earliest.get(1).copied().unwrap_or(0));
            match setup.reader.options.gap_policy {
                GapPolicy::Fail => assert!(
                    matches!(outcome, Err(Error::OutputGap { earliest: e, .. }) if *e == earliest),
                    "409 output_gap under fail: {outcome:?}"
                ),
                GapPolicy::Skip => {
                    let Ok(End::Disconnected { cursor, .. }) = outcome else {
                        panic!("409 output_gap under skip: {outcome:?}");
                    };
                    let start = setup.reader.cursor;
                    assert_eq!(cursor.stdout, start.stdout.max(earliest.stdout));
                    assert_eq!(cursor.stderr, start.stderr.max(earliest.stderr));
                    assert!(events.iter().all(|e| matches!(e, Event::Skipped { .. })));
                }
            }
        }
        _ => assert_eq!(
            outcome,
            &Err(Error::Api {
                status,
                api_code: Some(code),
                server_message
            })
        ),
    }
}

fn is_known(name: &str) -> bool {
    matches!(
        name,
        "type"
            | "data"
            | "encoding"
            | "offset"
            | "proc_id"
            | "exit_code"
            | "timed_out"
            | "earliest_stdout_offset"
            | "earliest_stderr_offset"
            | "earliest_offset"
            | "status"
            | "stdout"
            | "stderr"
            | "stdout_encoding"
            | "stderr_encoding"
            | "error"
            | "stdout_truncated"
            | "stderr_truncated"
            | "message"
    )
}
