//! The `follow` interface: the `follower` resource over
//! [`dory_wire::Follower`]. Every decision (which request, what an answer
//! means, when to reconnect, how long to wait, when to give up) is the
//! core's; this module converts the arguments in and the decisions out.
//!
//! As in [`crate::reader`], a `RefCell` borrow lasts one call and calls never
//! overlap (no re-entry into a component instance, no imports).
#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::time::Duration;

use dory_wire::{Decision, FollowOptions, Follower, FollowerState, ResumeState};

use crate::bindings::exports::dory::wire::decode::{Fed, ResumeState as WitResumeState};
use crate::bindings::exports::dory::wire::follow as wit;
use crate::bindings::exports::dory::wire::request::{Command, Request};
use crate::bindings::exports::dory::wire::types::{Cursor, Error as WitError};
use crate::reader::{self, Events};
use crate::{convert, request, Component};

/// The state behind one `follower` handle.
#[derive(Debug)]
pub struct FollowerResource {
    inner: RefCell<Follower>,
}

/// The core's options from the WIT record; absent fields keep the core's
/// defaults (no default is written here). A `run` takes them alike.
pub(crate) fn options(options: &wit::FollowOptions) -> FollowOptions {
    let mut out = FollowOptions::default();
    if let Some(follow) = options.follow {
        out = out.follow(follow);
    }
    if let Some(policy) = options.gap_policy {
        out = out.gap_policy(reader::gap_policy(policy));
    }
    if let Some(retries) = options.retries {
        out = out.retries(retries);
    }
    if let Some(ns) = options.backoff_ns {
        out = out.backoff(Duration::from_nanos(ns));
    }
    if let Some(ns) = options.max_backoff_ns {
        out = out.max_backoff(Duration::from_nanos(ns));
    }
    if let Some(jitter) = options.jitter {
        out = out.jitter(jitter);
    }
    if let Some(ns) = options.liveness_timeout_ns {
        out = out.liveness_timeout(Duration::from_nanos(ns));
    }
    if let Some(limit) = options.max_frame_bytes {
        out = out.max_frame_bytes(reader::frame_limit(limit));
    }
    if let Some(strict) = options.strict {
        out = out.strict(strict);
    }
    out
}

/// The core's options as the WIT record, every field present.
fn options_of(options: &FollowOptions) -> wit::FollowOptions {
    wit::FollowOptions {
        follow: Some(options.follow),
        gap_policy: Some(reader::gap_policy_of(options.gap_policy)),
        retries: Some(options.retries),
        backoff_ns: Some(reader::nanos(options.backoff)),
        max_backoff_ns: Some(reader::nanos(options.max_backoff)),
        jitter: Some(options.jitter),
        liveness_timeout_ns: Some(reader::nanos(options.liveness_timeout)),
        max_frame_bytes: Some(options.max_frame_bytes as u64),
        strict: Some(options.strict),
    }
}

fn foreign(what: &str) -> WitError {
    convert::invalid_state(&format!(
        "the core returned {what} this component does not know: rebuild it from the same sources"
    ))
}

/// A core decision as its WIT variant, by the record tables
/// (`crate::records`, generated), or an error for a value (a disconnect
/// reason) added to the core after this crate.
fn decision(decision: Decision) -> Result<wit::Decision, WitError> {
    let (record, values) = decision.record();
    crate::records::decision(record, values).ok_or_else(|| foreign("a decision"))
}

fn decided(result: Result<Decision, dory_wire::Error>) -> Result<wit::Decision, WitError> {
    result.map_err(|e| convert::error(&e)).and_then(decision)
}

fn built(result: Result<Follower, dory_wire::Error>) -> Result<wit::Follower, WitError> {
    result
        .map(|inner| {
            wit::Follower::new(FollowerResource {
                inner: RefCell::new(inner),
            })
        })
        .map_err(|e| convert::error(&e))
}

/// A one-answer call's follower.
fn call(
    request: Result<dory_wire::Request, dory_wire::Error>,
    opts: &wit::FollowOptions,
) -> Result<wit::Follower, WitError> {
    built(request.and_then(|request| Follower::call(request, options(opts))))
}

fn resumed(
    computer_id: &str,
    state: &ResumeState,
    opts: &wit::FollowOptions,
) -> Result<wit::Follower, WitError> {
    built(Follower::resume(computer_id, state, options(opts)))
}

impl wit::Guest for Component {
    type Follower = FollowerResource;

    fn follow_defaults() -> wit::FollowOptions {
        options_of(&FollowOptions::default())
    }
}

impl wit::GuestFollower for FollowerResource {
    fn process_output(
        computer_id: String,
        proc_id: String,
        cursor: Option<Cursor>,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        let cursor = cursor.map(convert::core_cursor).unwrap_or_default();
        built(Follower::process_output(
            &computer_id,
            &proc_id,
            cursor,
            options(&opts),
        ))
    }

    fn resume(
        computer_id: String,
        state: WitResumeState,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        resumed(&computer_id, &reader::core_resume_state(state)?, &opts)
    }

    fn resume_json(
        computer_id: String,
        state_json: String,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        let state = ResumeState::from_json(&state_json).map_err(|e| convert::error(&e))?;
        resumed(&computer_id, &state, &opts)
    }

    fn setup_logs(
        computer_id: String,
        offset: Option<u64>,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        built(Follower::setup_logs(
            &computer_id,
            offset.unwrap_or_default(),
            options(&opts),
        ))
    }

    fn exec_stream(
        computer_id: String,
        command: Command,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        built(Follower::exec_stream(
            &computer_id,
            &request::command(command),
            timeout_seconds,
            idempotency_key.as_deref(),
            options(&opts),
        ))
    }

    fn call_start(
        computer_id: String,
        command: Command,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        call(
            dory_wire::Request::start(
                &computer_id,
                &request::command(command),
                timeout_seconds,
                idempotency_key.as_deref(),
            ),
            &opts,
        )
    }

    fn call_exec(
        computer_id: String,
        command: Command,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        call(
            dory_wire::Request::exec(
                &computer_id,
                &request::command(command),
                timeout_seconds,
                idempotency_key.as_deref(),
                false,
            ),
            &opts,
        )
    }

    fn call_get_process(
        computer_id: String,
        proc_id: String,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        call(
            dory_wire::Request::get_process(&computer_id, &proc_id),
            &opts,
        )
    }

    fn call_kill(
        computer_id: String,
        proc_id: String,
        opts: wit::FollowOptions,
    ) -> Result<wit::Follower, WitError> {
        call(dory_wire::Request::kill(&computer_id, &proc_id), &opts)
    }

    fn wait_limit_ns(&self) -> Option<u64> {
        self.inner.borrow_mut().wait_limit().map(reader::nanos)
    }

    fn waited_ns(&self, elapsed_ns: u64) -> bool {
        self.inner
            .borrow_mut()
            .waited(Duration::from_nanos(elapsed_ns))
    }

    fn request(&self) -> Result<Request, WitError> {
        self.inner
            .borrow_mut()
            .request()
            .map(request::request)
            .map_err(|e| convert::error(&e))
    }

    fn open(
        &self,
        status: u16,
        content_type: String,
        proc_id: Option<String>,
        retry_after: Option<String>,
    ) -> Result<(), WitError> {
        let status = dory_wire::http_status(f64::from(status)).map_err(|e| convert::error(&e))?;
        self.inner
            .borrow_mut()
            .open(
                status,
                &content_type,
                proc_id.as_deref(),
                retry_after.as_deref(),
            )
            .map_err(|e| convert::error(&e))
    }

    fn feed(&self, data: Vec<u8>) -> Fed {
        let mut events = Events::default();
        let result = self.inner.borrow_mut().feed(&data, &mut events);
        let error = events.error(result);
        Fed {
            events: events.events,
            error,
        }
    }

    fn finish(&self, transport_error: Option<String>, jitter: f64) -> wit::Followed {
        let mut events = Events::default();
        let result =
            self.inner
                .borrow_mut()
                .finish(transport_error.as_deref(), jitter, &mut events);
        let decision = match events.error(Ok(())) {
            Some(err) => Err(err),
            None => decided(result),
        };
        wit::Followed {
            events: events.events,
            decision,
        }
    }

    fn no_response(&self, detail: String, jitter: f64) -> Result<wit::Decision, WitError> {
        decided(self.inner.borrow_mut().no_response(&detail, jitter))
    }

    fn not_connected(&self, detail: String, jitter: f64) -> Result<wit::Decision, WitError> {
        decided(self.inner.borrow_mut().not_connected(&detail, jitter))
    }

    fn cursor(&self) -> Cursor {
        convert::cursor(self.inner.borrow().cursor())
    }

    fn proc_id(&self) -> Option<String> {
        self.inner.borrow().proc_id().map(str::to_owned)
    }

    fn state(&self) -> wit::FollowerState {
        match self.inner.borrow().state() {
            FollowerState::Ready => wit::FollowerState::Ready,
            FollowerState::Sent => wit::FollowerState::Sent,
            FollowerState::Body => wit::FollowerState::Body,
            FollowerState::Done => wit::FollowerState::Done,
            FollowerState::Failed => wit::FollowerState::Failed,
        }
    }

    fn attempts(&self) -> u32 {
        self.inner.borrow().attempts()
    }

    fn options(&self) -> wit::FollowOptions {
        options_of(self.inner.borrow().options())
    }

    fn resume_state(&self) -> WitResumeState {
        reader::resume_state(self.inner.borrow().resume_state())
    }

    fn resume_state_json(&self) -> String {
        self.inner.borrow().resume_state().to_json()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::exports::dory::wire::decode::Event;
    use crate::bindings::exports::dory::wire::types::ErrorKind;
    use wit::GuestFollower as _;

    fn absent() -> wit::FollowOptions {
        wit::FollowOptions {
            follow: None,
            gap_policy: None,
            retries: None,
            backoff_ns: None,
            max_backoff_ns: None,
            jitter: None,
            liveness_timeout_ns: None,
            max_frame_bytes: None,
            strict: None,
        }
    }

    /// A follower of the output of `p` (built directly: a resource handle
    /// needs a component runtime, and these tests run on the host).
    fn follower(opts: &wit::FollowOptions) -> FollowerResource {
        let core = Follower::process_output("c", "p", Default::default(), options(opts)).unwrap();
        FollowerResource {
            inner: RefCell::new(core),
        }
    }

    #[test]
    fn absent_options_are_the_cores_defaults() {
        assert_eq!(options(&absent()), FollowOptions::default());
        let defaults = <Component as wit::Guest>::follow_defaults();
        assert_eq!(options(&defaults), FollowOptions::default());
        let set = wit::FollowOptions {
            retries: Some(1),
            backoff_ns: Some(7),
            jitter: Some(false),
            ..absent()
        };
        let core = options(&set);
        assert_eq!(
            (core.retries, core.backoff, core.jitter),
            (1, Duration::from_nanos(7), false)
        );
    }

    #[test]
    fn a_cut_body_reconnects_from_the_cursor_at_once() {
        let f = follower(&absent());
        let req = f.request().unwrap();
        assert!(req
            .target
            .ends_with("stdout_offset=0&stderr_offset=0&follow=true"));
        f.open(200, "application/x-ndjson".into(), None, None)
            .unwrap();
        let fed =
            f.feed(b"{\"type\":\"stdout\",\"data\":\"ab\",\"offset\":2}\n{\"type\":\"std".to_vec());
        assert!(fed.error.is_none());
        assert!(matches!(&fed.events[..], [Event::Output(o)] if o.data == b"ab"));
        let followed = f.finish(Some("connection reset".into()), 0.5);
        match followed.decision.unwrap() {
            wit::Decision::Reconnect(r) => {
                assert_eq!((r.attempt, r.failures, r.delay_ns), (1, 0, 0));
                assert_eq!(r.cursor.stdout, 2);
                assert_eq!(r.detail, "connection reset");
            }
            _ => panic!("not a reconnect"),
        }
        assert!(f.request().unwrap().target.contains("stdout_offset=2"));
    }

    #[test]
    fn giving_up_is_stream_disconnected_of_kind_transport_and_sticky() {
        let opts = wit::FollowOptions {
            retries: Some(0),
            ..absent()
        };
        let f = follower(&opts);
        f.request().unwrap();
        let err = f.no_response("refused".into(), 0.0).unwrap_err();
        assert_eq!(err.code, "stream_disconnected");
        assert!(matches!(err.kind, ErrorKind::Transport));
        let names: Vec<_> = err.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["reason", "cursor", "proc_id", "detail"]);
        assert!(matches!(f.state(), wit::FollowerState::Failed));
        assert_eq!(f.request().unwrap_err().code, "stream_disconnected");
    }
}
