//! The reader harness: a configuration read from the input header, a run of
//! the reader that checks every invariant after every call, and the
//! comparison of a whole-body run with a split-body run.

use std::time::Duration;

use dory_wire::{
    Cursor, End, Endpoint, Error, Event, GapPolicy, Reader, ReaderOptions, ReaderState,
    ResumeState, Stream, MAX_ERROR_BODY_BYTES,
};

use crate::split::{pieces, Rng};
use crate::Header;

/// Bytes of the reader target's header.
pub const READER_HEADER_LEN: usize = 22;

/// Statuses picked by header byte 1 (when its top bit is clear).
pub const STATUSES: [u16; 16] = [
    200, 201, 204, 206, 299, 400, 404, 409, 410, 500, 502, 503, 100, 301, 199, 300,
];

/// Content-Types picked by header byte 4.
pub const CONTENT_TYPES: [&str; 12] = [
    "application/x-ndjson",
    "application/json",
    "application/x-ndjson; charset=utf-8",
    "Application/JSON ; charset=UTF-8",
    " application/x-ndjson ",
    "text/plain",
    "",
    "text/html",
    "application/jsonl",
    "application/x-ndjson;",
    ";application/json",
    "APPLICATION/X-NDJSON",
];

/// `CE-Process-Id` header values picked by header byte 5 (index 0: absent).
pub const PROCESS_IDS: [Option<&str>; 4] = [None, Some("p_1"), Some("p_2"), Some("")];

/// The endpoints, by index.
pub const ENDPOINTS: [Endpoint; 4] = [
    Endpoint::Exec,
    Endpoint::ProcessOutput,
    Endpoint::SetupLogs,
    Endpoint::Document,
];

/// Everything about a reader run except the body.
///
/// Header layout ([`READER_HEADER_LEN`] bytes, little-endian):
///
/// | byte | meaning |
/// |---|---|
/// | 0 | endpoint: [`ENDPOINTS`]`[b % 4]` |
/// | 1 | status: top bit set → bytes 2–3 raw; else [`STATUSES`]`[b % 16]` |
/// | 2–3 | raw status |
/// | 4 | Content-Type: [`CONTENT_TYPES`]`[b % 12]` |
/// | 5 | bits 0–1: `CE-Process-Id` ([`PROCESS_IDS`]); bits 2–3: 0 `Reader::new`, 1 resume without id, 2 resume as `p_1`, 3 resume as `p_1` with exit seen |
/// | 6 | bit 0: skip policy; bit 1: strict; bit 2: drive the liveness clock; bit 3/4: stdout/stderr cursor counted down from `u64::MAX` |
/// | 7 | `max_frame_bytes`: `b % 3` = 0 default, 1 tiny (`byte 8 % 64 + 1`), 2 bytes 8–11 |
/// | 8–11 | `max_frame_bytes` value |
/// | 12–15, 16–19 | stdout, stderr cursor |
/// | 20–21 | split seed (0: one piece) |
#[derive(Debug, Clone)]
pub struct ReaderSetup {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The HTTP status.
    pub status: u16,
    /// The Content-Type.
    pub content_type: &'static str,
    /// The `CE-Process-Id` header.
    pub proc_id_header: Option<&'static str>,
    /// The resume state to start from, if any (its cursor is [`Self::cursor`]).
    pub resume: Option<ResumeState>,
    /// The reader options.
    pub options: ReaderOptions,
    /// The cursor to start from.
    pub cursor: Cursor,
    /// Whether to drive the liveness clock between feeds.
    pub clock: bool,
    /// The split seed.
    pub split_seed: u64,
}

impl ReaderSetup {
    /// Reads the header of `data`; returns the setup and the body.
    pub fn parse(data: &[u8]) -> (Self, &[u8]) {
        let (h, body) = Header::split(data, READER_HEADER_LEN);
        let status = if h.u8(1) & 0x80 != 0 {
            h.u16(2)
        } else {
            STATUSES[usize::from(h.u8(1)) % STATUSES.len()]
        };
        let flags = h.u8(6);
        let max_frame_bytes = match h.u8(7) % 3 {
            0 => dory_wire::DEFAULT_MAX_FRAME_BYTES,
            1 => usize::from(h.u8(8) % 64) + 1,
            _ => h.u32(8) as usize,
        };
        let offset = |at: usize, from_top: bool| {
            let v = u64::from(h.u32(at));
            if from_top {
                u64::MAX - v
            } else {
                v
            }
        };
        let cursor = Cursor::new(offset(12, flags & 8 != 0), offset(16, flags & 16 != 0));
        let resume = match (h.u8(5) >> 2) & 3 {
            0 => None,
            mode => {
                let mut state = ResumeState::new((mode >= 2).then(|| "p_1".to_owned()));
                state.cursor = cursor;
                if mode == 3 {
                    state.exit_seen = true;
                    state.exit_code = Some(3);
                }
                Some(state)
            }
        };
        let gap_policy = if flags & 1 != 0 {
            GapPolicy::Skip
        } else {
            GapPolicy::Fail
        };
        let setup = ReaderSetup {
            endpoint: ENDPOINTS[usize::from(h.u8(0)) % ENDPOINTS.len()],
            status,
            content_type: CONTENT_TYPES[usize::from(h.u8(4)) % CONTENT_TYPES.len()],
            proc_id_header: PROCESS_IDS[usize::from(h.u8(5) & 3)],
            resume,
            options: ReaderOptions::default()
                .gap_policy(gap_policy)
                .strict(flags & 2 != 0)
                .max_frame_bytes(max_frame_bytes),
            cursor,
            clock: flags & 4 != 0,
            split_seed: u64::from(h.u16(20)),
        };
        (setup, body)
    }

    /// A fresh reader for this setup.
    pub fn reader(&self) -> Reader {
        match &self.resume {
            Some(state) => Reader::resume(self.endpoint, state, self.options.clone()),
            None => Reader::new(self.endpoint, self.cursor, self.options.clone()),
        }
    }

    /// The most body bytes the reader may hold.
    pub fn buffer_limit(&self) -> usize {
        if (200..300).contains(&self.status) {
            self.options.max_frame_bytes
        } else {
            MAX_ERROR_BODY_BYTES
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// Every event, in order.
    pub events: Vec<Event>,
    /// How the response ended.
    pub outcome: Result<End, Error>,
    /// The cursor at the end.
    pub cursor: Cursor,
    /// Whether the liveness clock declared the stream stalled.
    pub stalled: bool,
}

/// Checks the invariants that hold after every call on a reader.
struct Checker<'s> {
    setup: &'s ReaderSetup,
    /// Where the next output (or skipped range) of each stream must start.
    expected: Cursor,
    /// The cursor after the previous call.
    last_cursor: Cursor,
    /// Events already checked.
    checked: usize,
    exit_seen: bool,
    started_seen: bool,
}

impl<'s> Checker<'s> {
    fn new(setup: &'s ReaderSetup) -> Self {
        Checker {
            setup,
            expected: setup.cursor,
            last_cursor: setup.cursor,
            checked: 0,
            exit_seen: false,
            started_seen: false,
        }
    }

    fn after_call(&mut self, reader: &Reader, events: &[Event]) {
        for event in &events[self.checked..] {
            self.event(event);
        }
        self.checked = events.len();
        let cursor = reader.cursor();
        assert!(
            cursor.stdout >= self.last_cursor.stdout && cursor.stderr >= self.last_cursor.stderr,
            "cursor moved backwards: {:?} -> {cursor:?}",
            self.last_cursor
        );
        assert_eq!(
            cursor, self.expected,
            "cursor differs from the delivered and skipped ranges"
        );
        self.last_cursor = cursor;
        assert!(
            reader.buffered_bytes() <= self.setup.buffer_limit(),
            "buffered {} bytes, limit {}",
            reader.buffered_bytes(),
            self.setup.buffer_limit()
        );
        assert_eq!(reader.resume_state().cursor, cursor);
    }

    fn event(&mut self, event: &Event) {
        assert!(!self.exit_seen, "event after exit: {event:?}");
        match event {
            Event::Output {
                stream,
                data,
                start,
                end,
            } => {
                assert!(!data.is_empty(), "an output event without bytes");
                assert_eq!(end - start, data.len() as u64, "end - start != data.len()");
                assert_eq!(
                    *start,
                    self.expected.get(*stream),
                    "{stream} output not contiguous with what came before"
                );
                if self.setup.endpoint == Endpoint::SetupLogs {
                    assert_eq!(*stream, Stream::Stdout, "stderr output in setup logs");
                }
                self.expected.set(*stream, *end);
            }
            Event::Skipped { stream, start, end } => {
                assert_eq!(self.setup.options.gap_policy, GapPolicy::Skip);
                assert!(start < end, "empty skipped range");
                assert_eq!(
                    *start,
                    self.expected.get(*stream),
                    "skipped range not contiguous"
                );
                self.expected.set(*stream, *end);
            }
            Event::Started { proc_id } => {
                assert!(!self.started_seen, "two started events");
                assert!(!proc_id.is_empty());
                self.started_seen = true;
            }
            Event::Exit { .. } => self.exit_seen = true,
            Event::Unknown { .. } => assert!(!self.setup.options.strict),
            Event::Heartbeat | Event::Identity(_) | Event::ExecResult(_) => {}
            other => panic!("an event this target does not know: {other:?}"),
        }
    }
}

/// After an error: every later call returns the same error and changes nothing.
fn assert_sticky(reader: &mut Reader, error: &Error) {
    assert_eq!(reader.state(), ReaderState::Failed);
    let cursor = reader.cursor();
    let mut events = Vec::new();
    assert_eq!(reader.feed(b"{}\n", &mut events).as_ref(), Err(error));
    assert_eq!(reader.finish(&mut events).as_ref(), Err(error));
    assert_eq!(
        reader.open(200, "application/x-ndjson", None).as_ref(),
        Err(error)
    );
    assert!(events.is_empty(), "a failed reader produced events");
    assert_eq!(reader.cursor(), cursor);
    assert_eq!(reader.state(), ReaderState::Failed);
}

/// Opens, feeds `body` in the pieces chosen by `split_seed`, finishes, and
/// checks every invariant after every call. With `clock`, the liveness clock
/// is driven between feeds by times derived from the seed.
pub fn run_checked(setup: &ReaderSetup, body: &[u8], split_seed: u64, clock: bool) -> Run {
    let mut reader = setup.reader();
    assert_eq!(reader.state(), ReaderState::New);
    let mut events = Vec::new();
    let mut checker = Checker::new(setup);
    let mut stalled = false;
    let outcome = drive(
        &mut reader,
        &mut events,
        &mut checker,
        setup,
        body,
        split_seed,
        clock,
        &mut stalled,
    );
    checker.after_call(&reader, &events);
    match &outcome {
        Err(error) => {
            if let Error::OutputGap { consumed, .. } = error {
                assert_eq!(*consumed, reader.cursor(), "output_gap's consumed offsets");
            }
            assert_sticky(&mut reader, error);
        }
        Ok(end) => {
            assert_eq!(reader.state(), ReaderState::Done);
            match end {
                End::Exited {
                    exit_code,
                    timed_out,
                } => assert_eq!(
                    events
                        .iter()
                        .rev()
                        .find(|e| matches!(e, Event::Exit { .. })),
                    Some(&Event::Exit {
                        exit_code: *exit_code,
                        timed_out: *timed_out
                    }),
                    "exited without the exit event"
                ),
                End::Disconnected { cursor, .. } => assert_eq!(*cursor, reader.cursor()),
                End::Document => {
                    let proc_id = match events.last() {
                        Some(Event::Identity(identity)) => &identity.proc_id,
                        Some(Event::ExecResult(result)) => &result.proc_id,
                        other => panic!("a document ended without its event: {other:?}"),
                    };
                    assert_eq!(reader.proc_id(), Some(proc_id.as_str()));
                }
                other => panic!("an end this target does not know: {other:?}"),
            }
            let state = reader.resume_state();
            assert_eq!(
                ResumeState::from_json(&state.to_json()).as_ref(),
                Ok(&state)
            );
            let mut more = Vec::new();
            let late = reader.feed(b"x", &mut more);
            assert!(
                matches!(&late, Err(e) if e.code() == "invalid_state"),
                "feed after finish: {late:?}"
            );
            if let Err(e) = &late {
                assert_sticky(&mut reader, e);
            }
        }
    }
    Run {
        events,
        outcome,
        cursor: reader.cursor(),
        stalled,
    }
}

#[allow(clippy::too_many_arguments)]
fn drive(
    reader: &mut Reader,
    events: &mut Vec<Event>,
    checker: &mut Checker<'_>,
    setup: &ReaderSetup,
    body: &[u8],
    split_seed: u64,
    clock: bool,
    stalled: &mut bool,
) -> Result<End, Error> {
    let opened = reader.open(setup.status, setup.content_type, setup.proc_id_header);
    checker.after_call(reader, events);
    opened?;
    let mut rng = Rng::new(split_seed ^ 0x5EED);
    let timeout = setup.options.liveness_timeout;
    let mut now = Duration::ZERO;
    for piece in pieces(body, split_seed) {
        if clock {
            // Steps of up to 1.25 timeouts: some stall, most do not.
            let step = timeout.mul_f64(rng.below(1250) as f64 / 1000.0);
            now += step;
            let was_stalled = *stalled;
            *stalled = reader.handle_timeout(now);
            assert!(!was_stalled || *stalled, "a stall was forgotten");
            if let Some(deadline) = reader.poll_timeout() {
                assert!(!*stalled, "a stalled reader still has a deadline");
                assert!(deadline > now, "a deadline in the past");
            }
        }
        let fed = reader.feed(piece, events);
        checker.after_call(reader, events);
        fed?;
    }
    reader.finish(events)
}

/// The whole check of one input: a run with the body in one piece, a run
/// split by the input's seed (and clock), and — when no stall interfered —
/// the same events, outcome and cursor from both.
pub fn check(data: &[u8]) {
    let (setup, body) = ReaderSetup::parse(data);
    let whole = run_checked(&setup, body, 0, false);
    let split = run_checked(&setup, body, setup.split_seed, setup.clock);
    if !split.stalled {
        assert_eq!(whole, split, "split invariance");
    }
}
