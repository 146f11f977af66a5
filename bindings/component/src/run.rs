//! The WIT interface `run-machine` (`dory:wire/run-machine`): the `run`
//! resource over [`dory_wire::Run`], the run machine (the core's
//! `crates/dory-wire/src/run.rs`, whose name this file has): the agent call's
//! whole conversation. Every decision — which request comes next, what each
//! answer means, when to wait and how long, what goes to which spill and to
//! the output hook, what a cancel sends, the result — is the core's; this
//! module converts the options in and the actions, steps and the result out
//! (as `bindings/python/src/run/` does for Python).
//!
//! As in [`crate::reader`], a `RefCell` borrow lasts one call and calls never
//! overlap (no re-entry into a component instance, no imports).
#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::time::Duration;

use dory_wire::preview::{SpillError, View};
use dory_wire::{Run, RunAction, RunOptions, RunSink, RunState, RunStep};

use crate::bindings::exports::dory::wire::preview::SpillOutcome;
use crate::bindings::exports::dory::wire::request::{Command, Request};
use crate::bindings::exports::dory::wire::run::View as WitView;
use crate::bindings::exports::dory::wire::run_machine as wit;
use crate::bindings::exports::dory::wire::types::{Cursor, Error as WitError};
use crate::preview::{self, preview, preview_limit, spill_outcome};
use crate::{convert, follow, reader, request, Component};

/// The state behind one `run` handle.
#[derive(Debug)]
pub struct RunResource {
    inner: RefCell<Run>,
}

/// A WIT view as the core's.
fn view(v: WitView) -> View {
    match v {
        WitView::Stdout => View::Stdout,
        WitView::Stderr => View::Stderr,
        WitView::Combined => View::Combined,
    }
}

/// A core view as its WIT enum.
fn view_of(v: View) -> WitView {
    match v {
        View::Stdout => WitView::Stdout,
        View::Stderr => WitView::Stderr,
        View::Combined => WitView::Combined,
    }
}

/// The core's run options from the WIT record; absent fields keep the
/// core's defaults (no default is written here). A refused keep pattern is
/// the core's `invalid_argument`.
fn run_options(options: wit::RunOptions) -> Result<RunOptions, WitError> {
    let mut out = RunOptions::new().follow(follow::options(&options.follow));
    if let Some(keep) = options.keep {
        out = out.keep(preview::keep(keep)?);
    }
    if let Some(terminal) = options.terminal {
        out = out.terminal(terminal);
    }
    if let Some(n) = options.max_lines {
        out = out.max_lines(preview_limit(n, "max-lines")?);
    }
    if let Some(n) = options.max_bytes {
        out = out.max_bytes(preview_limit(n, "max-bytes")?);
    }
    // Both none: no token limit (the core's default); the run's own check
    // (at least `MIN_RUN_MAX_BYTES`) is the core's too.
    out.tokens = preview::token_limit(options.max_tokens, options.tokenizer.as_deref())?;
    out.idempotency_key = options.idempotency_key;
    out.timeout_seconds = options.timeout_seconds;
    out.hint = options.hint;
    if let Some(kill) = options.kill_on_cancel {
        out = out.kill_on_cancel(kill);
    }
    if let Some(spill) = options.spill {
        out = out.spill(spill);
    }
    if let Some(on_output) = options.on_output {
        out = out.on_output(on_output);
    }
    if let Some(ns) = options.answer_timeout_ns {
        // A zero timeout is the core's to refuse.
        out = out.answer_timeout(Duration::from_nanos(ns));
    }
    Ok(out)
}

/// The 16 random bytes of a fresh key, or `invalid_argument`.
fn random_bytes(random: &[u8]) -> Result<[u8; 16], WitError> {
    <[u8; 16]>::try_from(random).map_err(|_| {
        convert::error(&dory_wire::Error::InvalidArgument {
            argument: "random".to_owned(),
            reason: format!("must be 16 random bytes, not {}", random.len()),
        })
    })
}

/// The sink of one call: each action as its WIT variant, in order.
#[derive(Default)]
struct Actions(Vec<wit::RunAction>);

impl RunSink for Actions {
    fn act(&mut self, action: RunAction<'_>) {
        self.0.push(match action {
            RunAction::OpenSpill { view, spill_id } => wit::RunAction::OpenSpill(wit::SpillOpen {
                view: view_of(view),
                spill_id: spill_id.to_owned(),
            }),
            RunAction::WriteSpill { view, data } => wit::RunAction::WriteSpill(wit::SpillWrite {
                view: view_of(view),
                data: data.to_vec(),
            }),
            RunAction::Output { stream, data, text } => wit::RunAction::Output(wit::OutputChunk {
                stream: convert::stream(stream),
                data: data.to_vec(),
                text: text.to_owned(),
            }),
            RunAction::CommitSpill { view } => wit::RunAction::CommitSpill(view_of(view)),
            RunAction::DiscardSpill { view } => wit::RunAction::DiscardSpill(view_of(view)),
        });
    }
}

fn foreign(what: &str) -> WitError {
    convert::invalid_state(&format!(
        "the core returned {what} this component does not know: rebuild it from the same sources"
    ))
}

/// A core step as its WIT variant, or an error for a disconnect reason
/// added to the core after this crate.
fn step(step: RunStep) -> Result<wit::RunStep, WitError> {
    Ok(match step {
        RunStep::Send => wit::RunStep::Send,
        RunStep::Done => wit::RunStep::Done,
        RunStep::Cancelled => wit::RunStep::Cancelled,
        RunStep::Wait { delay, reconnect } => {
            let reconnect = match reconnect {
                Some(r) => Some(
                    crate::records::reconnect_of(r.record().1)
                        .ok_or_else(|| foreign("a disconnect reason"))?,
                ),
                None => None,
            };
            wit::RunStep::Wait(wit::RunWait {
                delay_ns: reader::nanos(delay),
                reconnect,
            })
        }
    })
}

fn stepped(result: Result<RunStep, dory_wire::Error>) -> Result<wit::RunStep, WitError> {
    result.map_err(|e| convert::error(&e)).and_then(step)
}

fn state(state: RunState) -> wit::RunState {
    match state {
        RunState::Starting => wit::RunState::Starting,
        RunState::Following => wit::RunState::Following,
        RunState::Cancelling => wit::RunState::Cancelling,
        RunState::Done => wit::RunState::Done,
        RunState::Finished => wit::RunState::Finished,
        RunState::Cancelled => wit::RunState::Cancelled,
        RunState::Failed => wit::RunState::Failed,
    }
}

impl wit::Guest for Component {
    type Run = RunResource;

    fn run_result_to_json(r: wit::RunResult) -> Result<String, WitError> {
        let mut result = dory_wire::RunResult::new(
            r.proc_id,
            r.idempotency_key,
            [
                crate::preview::core_preview(r.stdout)?,
                crate::preview::core_preview(r.stderr)?,
                crate::preview::core_preview(r.combined)?,
            ],
        );
        result.exit_code = r.exit_code;
        result.timed_out = r.timed_out;
        result.stdout_lost_bytes = r.stdout_lost_bytes;
        result.stderr_lost_bytes = r.stderr_lost_bytes;
        Ok(result.to_json())
    }
}

impl RunResource {
    /// A run of `command` (the body of the constructor).
    pub(crate) fn build(
        computer_id: &str,
        command: Command,
        options: wit::RunOptions,
        random: &[u8],
    ) -> Result<RunResource, WitError> {
        let random = random_bytes(random)?;
        Run::new(
            computer_id,
            &request::command(command),
            run_options(options)?,
            random,
        )
        .map(|inner| RunResource {
            inner: RefCell::new(inner),
        })
        .map_err(|e| convert::error(&e))
    }
}

impl wit::GuestRun for RunResource {
    fn new(
        computer_id: String,
        command: Command,
        options: wit::RunOptions,
        random: Vec<u8>,
    ) -> Result<Self, WitError> {
        RunResource::build(&computer_id, command, options, &random)
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

    fn feed(&self, data: Vec<u8>) -> wit::RunFed {
        let mut actions = Actions::default();
        let fed = self.inner.borrow_mut().feed(&data, &mut actions);
        wit::RunFed {
            actions: actions.0,
            error: fed.err().map(|e| convert::error(&e)),
        }
    }

    fn finish(&self, transport_error: Option<String>, jitter: f64) -> wit::RunFinished {
        let mut actions = Actions::default();
        let result =
            self.inner
                .borrow_mut()
                .finish(transport_error.as_deref(), jitter, &mut actions);
        wit::RunFinished {
            actions: actions.0,
            step: stepped(result),
        }
    }

    fn no_response(&self, detail: String, jitter: f64) -> Result<wit::RunStep, WitError> {
        stepped(self.inner.borrow_mut().no_response(&detail, jitter))
    }

    fn not_connected(&self, detail: String, jitter: f64) -> Result<wit::RunStep, WitError> {
        stepped(self.inner.borrow_mut().not_connected(&detail, jitter))
    }

    fn cancel(&self) -> wit::RunCancelled {
        let mut actions = Actions::default();
        let cancelled = self.inner.borrow_mut().cancel(&mut actions);
        wit::RunCancelled {
            actions: actions.0,
            // A wait is never a cancel's step; `cancelled` if the core says
            // one this crate cannot convert.
            step: step(cancelled).unwrap_or(wit::RunStep::Cancelled),
        }
    }

    fn wait_limit_ns(&self) -> Option<u64> {
        self.inner.borrow_mut().wait_limit().map(reader::nanos)
    }

    fn waited_ns(&self, elapsed_ns: u64) -> bool {
        self.inner
            .borrow_mut()
            .waited(Duration::from_nanos(elapsed_ns))
    }

    fn spill_failed(&self, v: WitView, error: String) {
        self.inner
            .borrow_mut()
            .spill_failed(view(v), SpillError::WriterFailed { error });
    }

    fn spill_committed(&self, v: WitView, outcome: SpillOutcome) {
        // A failed commit is the writer's error, as for `spill-failed`.
        let outcome = match outcome {
            SpillOutcome::Failed(error) => SpillError::WriterFailed { error }.into(),
            other => spill_outcome(other),
        };
        self.inner.borrow_mut().spill_committed(view(v), outcome);
    }

    fn result(&self) -> Result<wit::RunResult, WitError> {
        let r = self
            .inner
            .borrow_mut()
            .result()
            .map_err(|e| convert::error(&e))?;
        Ok(wit::RunResult {
            proc_id: r.proc_id,
            idempotency_key: r.idempotency_key,
            exit_code: r.exit_code,
            timed_out: r.timed_out,
            stdout: preview(r.stdout),
            stderr: preview(r.stderr),
            combined: preview(r.combined),
            stdout_lost_bytes: r.stdout_lost_bytes,
            stderr_lost_bytes: r.stderr_lost_bytes,
        })
    }

    fn state(&self) -> wit::RunState {
        state(self.inner.borrow().state())
    }

    fn idempotency_key(&self) -> String {
        self.inner.borrow().idempotency_key().to_owned()
    }

    fn proc_id(&self) -> Option<String> {
        self.inner.borrow().proc_id().map(str::to_owned)
    }

    fn spill_id(&self, v: WitView) -> String {
        self.inner.borrow().spill_id(view(v)).to_owned()
    }

    fn cursor(&self) -> Cursor {
        convert::cursor(self.inner.borrow().cursor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::exports::dory::wire::follow::FollowOptions as WitFollowOptions;
    use wit::GuestRun as _;

    fn absent_follow() -> WitFollowOptions {
        WitFollowOptions {
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

    fn options() -> wit::RunOptions {
        wit::RunOptions {
            max_lines: None,
            max_bytes: None,
            max_tokens: None,
            tokenizer: None,
            idempotency_key: Some("k".into()),
            timeout_seconds: None,
            hint: None,
            kill_on_cancel: None,
            spill: Some(true),
            on_output: Some(true),
            answer_timeout_ns: None,
            keep: None,
            terminal: None,
            follow: absent_follow(),
        }
    }

    fn run(options: wit::RunOptions) -> RunResource {
        RunResource::build("c1", Command::Shell("make".into()), options, &[0; 16]).unwrap()
    }

    #[test]
    fn a_token_limit_is_checked_before_any_request() {
        let with = |max_tokens, tokenizer: Option<&str>| wit::RunOptions {
            max_tokens,
            tokenizer: tokenizer.map(str::to_owned),
            ..options()
        };
        let build = |o| RunResource::build("c1", Command::Shell("make".into()), o, &[0; 16]);
        assert!(build(with(Some(80), Some("approx"))).is_ok());
        assert!(build(with(None, Some("approx"))).is_ok());
        let err = build(with(Some(79), Some("approx"))).unwrap_err();
        assert_eq!(err.code, "invalid_limits");
        let err = build(with(Some(4000), Some("gpt-9"))).unwrap_err();
        assert_eq!(err.code, "invalid_argument");
        assert!(err.message.contains("tokenizer"), "{}", err.message);
    }

    #[test]
    fn a_whole_run_gives_actions_steps_and_the_result() {
        let run = run(options());
        let start = run.request().unwrap();
        assert_eq!(start.target, "/computers/c1/processes");
        run.open(200, "application/json".into(), None, None)
            .unwrap();
        let fed = run.feed(br#"{"proc_id":"p1","status":"running"}"#.to_vec());
        assert!(fed.actions.is_empty() && fed.error.is_none());
        let finished = run.finish(None, 0.0);
        assert!(matches!(finished.step, Ok(wit::RunStep::Send)));
        assert!(matches!(run.state(), wit::RunState::Following));
        assert_eq!(run.proc_id().as_deref(), Some("p1"));
        run.request().unwrap();
        run.open(200, "application/x-ndjson".into(), Some("p1".into()), None)
            .unwrap();
        let fed = run.feed(
            b"{\"type\":\"stdout\",\"data\":\"hi\\n\",\"offset\":3}\n{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n"
                .to_vec(),
        );
        assert!(fed.error.is_none());
        assert!(matches!(
            &fed.actions[0],
            wit::RunAction::OpenSpill(o) if o.spill_id == run.spill_id(WitView::Stdout)
        ));
        assert!(fed
            .actions
            .iter()
            .any(|a| matches!(a, wit::RunAction::Output(o) if o.text == "hi\n")));
        let finished = run.finish(None, 0.0);
        assert!(matches!(finished.step, Ok(wit::RunStep::Done)));
        assert!(finished
            .actions
            .iter()
            .all(|a| matches!(a, wit::RunAction::DiscardSpill(_))));
        let result = run.result().unwrap();
        assert_eq!(result.exit_code, Some(0));
        // The combined view ends with how the process ended (a notice of
        // kind `end`); stdout's own view is its bytes.
        assert_eq!(result.combined.text, "hi\n[... exit code 0 ...]\n");
        assert!(matches!(
            result.combined.notices.last().map(|n| n.kind),
            Some(crate::bindings::exports::dory::wire::preview::NoticeKind::End)
        ));
        assert_eq!(result.stdout.text, "hi\n");
        assert_eq!(result.idempotency_key, "k");
        assert!(matches!(run.state(), wit::RunState::Finished));
        assert_eq!(run.result().unwrap_err().code, "invalid_state");
    }

    #[test]
    fn the_checks_come_before_any_request() {
        let err =
            RunResource::build("c1", Command::Shell("x".into()), options(), &[0; 3]).unwrap_err();
        assert_eq!(err.code, "invalid_argument");
        let mut bad = options();
        bad.max_lines = Some(1);
        let err = RunResource::build("c1", Command::Shell("x".into()), bad, &[0; 16]).unwrap_err();
        assert_eq!(err.code, "invalid_limits");
        let mut bad = options();
        bad.answer_timeout_ns = Some(0);
        assert!(RunResource::build("c1", Command::Shell("x".into()), bad, &[0; 16]).is_err());
        let mut fresh = options();
        fresh.idempotency_key = None;
        let run = RunResource::build("c1", Command::Shell("x".into()), fresh, &[0xab; 16]).unwrap();
        assert_eq!(run.idempotency_key(), format!("run-{}", "ab".repeat(16)));
    }

    #[test]
    fn a_cancel_before_the_start_was_sent_sends_nothing() {
        let mut o = options();
        o.kill_on_cancel = Some(true);
        let run = run(o);
        let cancelled = run.cancel();
        assert!(cancelled.actions.is_empty());
        assert!(matches!(cancelled.step, wit::RunStep::Cancelled));
        assert!(matches!(run.state(), wit::RunState::Cancelled));
        assert!(run.request().is_err());
    }
}
