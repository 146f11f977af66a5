//! The WIT interface `decode` (`dory:wire/decode`): the `reader` resource
//! over [`dory_wire::Reader`], and the conversions of its types (events,
//! reasons, resume states) that the `follow` interface shares. The file is
//! named after the core's reader (`crates/dory-wire/src/reader/`), as in the
//! other bindings.
//!
//! Each call borrows the core reader for its duration only. The component
//! model never re-enters a component instance while one of its exports runs,
//! and this component calls no import, so the `RefCell` borrows cannot
//! overlap.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::cell::RefCell;
use std::time::Duration;

use dory_wire::records::Value;
use dory_wire::{
    DisconnectReason, End, Endpoint, Event, GapPolicy, ProcessStatus, ReaderOptions, ReaderState,
    ResumeState, Sink, Stream,
};

use crate::bindings::exports::dory::wire::decode as wit;
use crate::bindings::exports::dory::wire::types::Error as WitError;
use crate::convert;
use crate::records;
use crate::Component;

impl wit::Guest for Component {
    type Reader = ReaderResource;
}

/// The state behind one `reader` handle.
#[derive(Debug)]
pub struct ReaderResource {
    inner: RefCell<dory_wire::Reader>,
}

fn endpoint(endpoint: wit::Endpoint) -> Endpoint {
    match endpoint {
        wit::Endpoint::Exec => Endpoint::Exec,
        wit::Endpoint::ProcessOutput => Endpoint::ProcessOutput,
        wit::Endpoint::SetupLogs => Endpoint::SetupLogs,
        wit::Endpoint::Document => Endpoint::Document,
    }
}

/// A WIT gap policy as the core's.
pub(crate) fn gap_policy(policy: wit::GapPolicy) -> GapPolicy {
    match policy {
        wit::GapPolicy::Fail => GapPolicy::Fail,
        wit::GapPolicy::Skip => GapPolicy::Skip,
    }
}

/// The core's gap policy as its WIT enum.
pub(crate) fn gap_policy_of(policy: GapPolicy) -> wit::GapPolicy {
    match policy {
        GapPolicy::Fail => wit::GapPolicy::Fail,
        GapPolicy::Skip => wit::GapPolicy::Skip,
    }
}

/// A frame limit from the host, saturated to the guest's address space
/// (above it: no limit short of memory).
pub(crate) fn frame_limit(limit: u64) -> usize {
    usize::try_from(limit).unwrap_or(usize::MAX)
}

/// The core's options from the WIT record; absent fields keep the defaults.
fn options(options: &wit::ReaderOptions) -> ReaderOptions {
    let mut out = ReaderOptions::default();
    if let Some(policy) = options.gap_policy {
        out = out.gap_policy(gap_policy(policy));
    }
    if let Some(limit) = options.max_frame_bytes {
        out = out.max_frame_bytes(frame_limit(limit));
    }
    if let Some(ns) = options.liveness_timeout_ns {
        out = out.liveness_timeout(Duration::from_nanos(ns));
    }
    if let Some(strict) = options.strict {
        out = out.strict(strict);
    }
    out
}

/// Nanoseconds of a core duration, saturating (u64 nanoseconds last 584 years).
pub(crate) fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Collects the events of one call as WIT values, converting each as the core
/// delivers it: output bytes are copied once, from the core's borrowed or
/// decoded buffer into the list handed to the host.
#[derive(Default)]
pub(crate) struct Events {
    pub(crate) events: Vec<wit::Event>,
    /// An event this build does not know (only possible if the core gained a
    /// variant and this crate was not updated): reported as an error.
    foreign: bool,
}

impl Sink for Events {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, start: u64, end: u64) {
        self.events.push(wit::Event::Output(wit::Output {
            stream: convert::stream(stream),
            data: data.into_owned(),
            start,
            end,
        }));
    }

    fn event(&mut self, event: Event) {
        match event_of(event) {
            Some(event) => self.events.push(event),
            None => self.foreign = true,
        }
    }
}

impl Events {
    /// The error of a call: the core's, or one for an event this build could
    /// not convert (never silently dropped).
    pub(crate) fn error(&self, result: Result<(), dory_wire::Error>) -> Option<WitError> {
        match result {
            Err(err) => Some(convert::error(&err)),
            Ok(()) if self.foreign => Some(convert::invalid_state(
                "the core delivered an event this component does not know: rebuild it from the same sources",
            )),
            Ok(()) => None,
        }
    }
}

/// A core event as its WIT variant, by the record tables
/// (`crate::records`, generated); output moves its bytes. `None` for a
/// variant this build does not know.
fn event_of(event: Event) -> Option<wit::Event> {
    if let Event::Output {
        stream,
        data,
        start,
        end,
    } = event
    {
        return Some(wit::Event::Output(wit::Output {
            stream: convert::stream(stream),
            data,
            start,
            end,
        }));
    }
    let (record, values) = event.record();
    records::event(record, values)
}

/// A core end as its WIT variant, by the record tables.
fn end_of(end: End) -> Option<wit::End> {
    let (record, values) = end.record();
    records::end(record, values)
}

/// The values of one record, taken in the row's order by the generated
/// conversions (`crate::records`): each method takes the next value if it
/// has the named type, else `None` (a row and its values that disagree).
pub(crate) struct Fields<'a> {
    values: std::vec::IntoIter<Value<'a>>,
}

impl<'a> Fields<'a> {
    /// The values of a record.
    pub(crate) fn new(values: Vec<Value<'a>>) -> Self {
        Fields {
            values: values.into_iter(),
        }
    }

    /// Whether every value was taken.
    pub(crate) fn done(mut self) -> bool {
        self.values.next().is_none()
    }

    pub(crate) fn string(&mut self) -> Option<String> {
        match self.values.next()? {
            Value::Str(s) => Some(s.to_owned()),
            _ => None,
        }
    }

    pub(crate) fn stream(&mut self) -> Option<wit::Stream> {
        match self.values.next()? {
            Value::Stream(s) => Some(convert::stream(s)),
            _ => None,
        }
    }

    pub(crate) fn status(&mut self) -> Option<wit::ProcessStatus> {
        match self.values.next()? {
            Value::ProcessStatus(ProcessStatus::Running) => Some(wit::ProcessStatus::Running),
            Value::ProcessStatus(ProcessStatus::Exited) => Some(wit::ProcessStatus::Exited),
            _ => None,
        }
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        match self.values.next()? {
            Value::U64(n) => Some(n),
            _ => None,
        }
    }

    pub(crate) fn opt_i64(&mut self) -> Option<Option<i64>> {
        match self.values.next()? {
            Value::OptI64(n) => Some(n),
            _ => None,
        }
    }

    pub(crate) fn bool(&mut self) -> Option<bool> {
        match self.values.next()? {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub(crate) fn bytes(&mut self) -> Option<Vec<u8>> {
        match self.values.next()? {
            Value::Bytes(b) => Some(b.to_vec()),
            _ => None,
        }
    }

    pub(crate) fn cursor(&mut self) -> Option<wit::Cursor> {
        match self.values.next()? {
            Value::Cursor(c) => Some(convert::cursor(c)),
            _ => None,
        }
    }

    pub(crate) fn reason(&mut self) -> Option<wit::DisconnectReason> {
        match self.values.next()? {
            Value::DisconnectReason(r) => reason_of(r),
            _ => None,
        }
    }

    pub(crate) fn opt_str(&mut self) -> Option<Option<String>> {
        match self.values.next()? {
            Value::OptStr(s) => Some(s.map(str::to_owned)),
            _ => None,
        }
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        match self.values.next()? {
            Value::U32(n) => Some(n),
            _ => None,
        }
    }

    /// A duration in nanoseconds (its WIT name ends in `-ns`).
    pub(crate) fn duration(&mut self) -> Option<u64> {
        match self.values.next()? {
            Value::Duration(d) => Some(nanos(d)),
            _ => None,
        }
    }
}

/// A core disconnect reason as its WIT enum; `None` for a reason added to
/// the core after this crate (the core's enum is `#[non_exhaustive]`).
pub(crate) fn reason_of(reason: DisconnectReason) -> Option<wit::DisconnectReason> {
    Some(match reason {
        DisconnectReason::EndOfBody => wit::DisconnectReason::EndOfBody,
        DisconnectReason::Gap => wit::DisconnectReason::Gap,
        DisconnectReason::Stalled => wit::DisconnectReason::Stalled,
        DisconnectReason::NoResponse => wit::DisconnectReason::NoResponse,
        DisconnectReason::NotConnected => wit::DisconnectReason::NotConnected,
        DisconnectReason::Unavailable => wit::DisconnectReason::Unavailable,
        _ => return None,
    })
}

/// A core resume state as the WIT record.
pub(crate) fn resume_state(state: ResumeState) -> wit::ResumeState {
    wit::ResumeState {
        version: state.version,
        proc_id: state.proc_id,
        cursor: convert::cursor(state.cursor),
        exit_seen: state.exit_seen,
        exit_code: state.exit_code,
        timed_out: state.timed_out,
    }
}

/// A WIT resume state as the core's, checked by the core's one parser, so
/// that a record and its JSON are accepted and refused alike (`invalid_state`).
pub(crate) fn core_resume_state(state: wit::ResumeState) -> Result<ResumeState, WitError> {
    let mut core = ResumeState::new(state.proc_id);
    core.version = state.version;
    core.cursor = convert::core_cursor(state.cursor);
    core.exit_seen = state.exit_seen;
    core.exit_code = state.exit_code;
    core.timed_out = state.timed_out;
    ResumeState::from_json(&core.to_json()).map_err(|e| convert::error(&e))
}

impl ReaderResource {
    fn wrap(reader: dory_wire::Reader) -> Self {
        ReaderResource {
            inner: RefCell::new(reader),
        }
    }

    fn resumed(at: wit::Endpoint, state: &ResumeState, opts: &wit::ReaderOptions) -> wit::Reader {
        wit::Reader::new(Self::wrap(dory_wire::Reader::resume(
            endpoint(at),
            state,
            options(opts),
        )))
    }
}

impl wit::GuestReader for ReaderResource {
    fn new(at: wit::Endpoint, opts: wit::ReaderOptions) -> Self {
        let cursor = opts.cursor.map(convert::core_cursor).unwrap_or_default();
        Self::wrap(dory_wire::Reader::new(endpoint(at), cursor, options(&opts)))
    }

    fn resume(
        at: wit::Endpoint,
        state: wit::ResumeState,
        opts: wit::ReaderOptions,
    ) -> Result<wit::Reader, WitError> {
        Ok(Self::resumed(at, &core_resume_state(state)?, &opts))
    }

    fn resume_json(
        at: wit::Endpoint,
        state_json: String,
        opts: wit::ReaderOptions,
    ) -> Result<wit::Reader, WitError> {
        let state = ResumeState::from_json(&state_json).map_err(|e| convert::error(&e))?;
        Ok(Self::resumed(at, &state, &opts))
    }

    fn open(
        &self,
        status: u16,
        content_type: String,
        proc_id: Option<String>,
    ) -> Result<(), WitError> {
        let status = dory_wire::http_status(f64::from(status)).map_err(|e| convert::error(&e))?;
        self.inner
            .borrow_mut()
            .open(status, &content_type, proc_id.as_deref())
            .map_err(|e| convert::error(&e))
    }

    fn feed(&self, data: Vec<u8>) -> wit::Fed {
        let mut events = Events::default();
        let result = self.inner.borrow_mut().feed(&data, &mut events);
        let error = events.error(result);
        wit::Fed {
            events: events.events,
            error,
        }
    }

    fn finish(&self) -> wit::Finished {
        let mut events = Events::default();
        let result = self.inner.borrow_mut().finish(&mut events);
        let end = match result {
            Ok(end) => match end_of(end) {
                Some(end) => events.error(Ok(())).map_or(Ok(end), Err),
                None => Err(convert::invalid_state(
                    "the core ended in a way this component does not know: rebuild it from the same sources",
                )),
            },
            Err(err) => Err(convert::error(&err)),
        };
        wit::Finished {
            events: events.events,
            end,
        }
    }

    fn cursor(&self) -> wit::Cursor {
        convert::cursor(self.inner.borrow().cursor())
    }

    fn proc_id(&self) -> Option<String> {
        self.inner.borrow().proc_id().map(str::to_owned)
    }

    fn state(&self) -> wit::ReaderState {
        match self.inner.borrow().state() {
            ReaderState::New => wit::ReaderState::New,
            ReaderState::Open => wit::ReaderState::Open,
            ReaderState::Done => wit::ReaderState::Done,
            ReaderState::Failed => wit::ReaderState::Failed,
        }
    }

    fn resume_state(&self) -> wit::ResumeState {
        resume_state(self.inner.borrow().resume_state())
    }

    fn resume_state_json(&self) -> String {
        self.inner.borrow().resume_state().to_json()
    }

    fn poll_timeout_ns(&self) -> Option<u64> {
        self.inner.borrow().poll_timeout().map(nanos)
    }

    fn handle_timeout_ns(&self, now_ns: u64) -> bool {
        self.inner
            .borrow_mut()
            .handle_timeout(Duration::from_nanos(now_ns))
    }
}
