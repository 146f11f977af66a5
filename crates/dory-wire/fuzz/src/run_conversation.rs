//! The run harness: the core's run machine (`Run`, the agent call) driven
//! through random answers, statuses, cut bodies, waits, spill writer
//! failures and cancels, as a client would drive it.
//!
//! Checked after every step:
//! - no panic, and every error is sticky (the next request returns it);
//! - every start carries its idempotency key, and no start is asked for
//!   once the process is known; a kill only after a cancel with kill;
//! - every output byte is given at most once and in order: each view's
//!   spill gets an open before its first byte and nothing after its end,
//!   stdout's and stderr's views get exactly the bytes the output hook got
//!   for their stream, and the combined view gets both in arrival order;
//! - memory is bounded by the options: a chunk never holds more than the
//!   frame limit, and reconnects stay within the retries;
//! - once done, the result renders, and (with the previews' options off)
//!   each view's preview counts exactly the bytes its spill was given.
//!
//! Input layout: byte 0 the run's flags (bit 0 kill on cancel, bit 1 a
//! spill, bit 2 skip policy, bit 3 jitter, bit 4 a caller's key, bit 5 the
//! run's default preview options, `keep` and `terminal` on; clear: both
//! off, the raw text), byte 1 the
//! retries (bits 0–2) and the limits (bits 3–7); then steps, as in
//! [`conversation`](crate::conversation).

use std::time::Duration;

use dory_wire::preview::{Keep, SpillError, SpillOutcome, View};
use dory_wire::{
    Command, FollowOptions, GapPolicy, Method, Run, RunActionBuf, RunOptions, RunState, RunStep,
    Stream,
};

use crate::conversation::{Input, BODIES, CONTENT_TYPES, STATUSES};

/// A start's (or a kill's) answer.
const IDENTITY: &[u8] = b"{\"proc_id\":\"p1\",\"status\":\"running\"}";

/// Output a healthy service sends, continuing from any cursor or not.
const OUTPUT: [&[u8]; 6] = [
    b"{\"type\":\"stdout\",\"data\":\"ab\\n\",\"offset\":3}\n",
    b"{\"type\":\"stderr\",\"data\":\"err\\n\",\"offset\":4}\n{\"type\":\"heartbeat\"}\n",
    b"{\"type\":\"stdout\",\"data\":\"ab\\ncd\\n\",\"offset\":6}\n{\"type\":\"stdout\",\"data\":\"e\",\"offset\":7}\n",
    b"{\"type\":\"stdout\",\"data\":\"zz\",\"offset\":40}\n",
    b"{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n",
    b"{\"type\":\"stdout\",\"data\":\"4p8=\",\"encoding\":\"base64\",\"offset\":9}\n{\"type\":\"exit\",\"exit_code\":1,\"timed_out\":false}\n",
];

/// The most steps of one run (a hang guard, not a rule).
const MAX_STEPS: usize = 64;
/// The frame limit of every run: small, so that the limit is tried.
const MAX_FRAME_BYTES: usize = 256;

/// Each view's spill as the harness's writer saw it.
#[derive(Default)]
struct Files {
    opened: [bool; 3],
    ended: [bool; 3],
    failed: [bool; 3],
    written: [Vec<u8>; 3],
    /// What the output hook got, per stream.
    hooked: [Vec<u8>; 2],
    commits: Vec<View>,
}

impl Files {
    fn act(&mut self, actions: Vec<RunActionBuf>) {
        for action in actions {
            match action {
                RunActionBuf::OpenSpill { view, spill_id } => {
                    let i = view as usize;
                    assert!(!self.opened[i], "a view's spill is opened once");
                    assert!(spill_id.ends_with(view.as_str()), "named for its view");
                    self.opened[i] = true;
                }
                RunActionBuf::WriteSpill { view, data } => {
                    let i = view as usize;
                    assert!(self.opened[i], "an open before the first byte");
                    assert!(!self.ended[i], "nothing after a view's end");
                    assert!(!data.is_empty() && data.len() <= MAX_FRAME_BYTES);
                    if !self.failed[i] {
                        self.written[i].extend_from_slice(&data);
                    }
                }
                RunActionBuf::Output { stream, data, .. } => {
                    assert!(
                        data.len() <= MAX_FRAME_BYTES,
                        "a chunk within the frame limit"
                    );
                    self.hooked[stream as usize].extend_from_slice(&data);
                }
                RunActionBuf::CommitSpill { view } => {
                    self.end(view);
                    self.commits.push(view);
                }
                RunActionBuf::DiscardSpill { view } => self.end(view),
            }
        }
    }

    fn end(&mut self, view: View) {
        let i = view as usize;
        assert!(self.opened[i] && !self.ended[i], "one end per opened view");
        self.ended[i] = true;
    }

    fn check(&self, spill: bool) {
        if !spill {
            assert!(
                self.opened.iter().all(|o| !o),
                "no spill action without a spill"
            );
            return;
        }
        for stream in [Stream::Stdout, Stream::Stderr] {
            let i = stream as usize;
            if !self.failed[i] {
                assert_eq!(self.written[i], self.hooked[i], "each byte once, in order");
            }
        }
        if !self.failed[2] {
            let total = self.hooked[0].len() + self.hooked[1].len();
            assert_eq!(self.written[2].len(), total, "combined holds both streams");
        }
    }
}

/// Runs one run conversation read from `data`; panics when an invariant breaks.
pub fn check(data: &[u8]) {
    play(data);
}

/// [`check`], giving the state the run ended in.
fn play(data: &[u8]) -> RunState {
    let mut input = Input { data, at: 0 };
    let flags = input.byte();
    let bits = input.byte();
    let retries = u32::from(bits & 7);
    let spill = flags & 2 != 0;
    let follow = FollowOptions::default()
        .jitter(flags & 8 != 0)
        .gap_policy(if flags & 4 != 0 {
            GapPolicy::Skip
        } else {
            GapPolicy::Fail
        })
        .retries(retries)
        .max_frame_bytes(MAX_FRAME_BYTES)
        .liveness_timeout(Duration::from_millis(1000));
    let mut options = RunOptions::new()
        .max_lines(2 + usize::from(bits >> 3) % 8)
        .max_bytes(80 + usize::from(bits >> 3) * 16)
        .kill_on_cancel(flags & 1 != 0)
        .spill(spill)
        .on_output(true)
        .follow(follow)
        .answer_timeout(Duration::from_millis(1000));
    if flags & 16 != 0 {
        options = options.idempotency_key("k1");
    }
    // Rendering counts the rendered bytes: only raw previews count the spill's.
    let raw = flags & 32 == 0;
    if raw {
        options = options.keep(Keep::none()).terminal(false);
    }
    let kill_on_cancel = flags & 1 != 0;
    let mut run = Run::new("c1", &Command::shell("make"), options, [7; 16])
        .expect("the harness builds valid runs");
    let key = run.idempotency_key().to_owned();
    let mut files = Files::default();
    let mut cancelled = false;
    for _ in 0..MAX_STEPS {
        if input.done() {
            break;
        }
        let step = input.byte();
        if step.is_multiple_of(11) {
            let mut actions = Vec::new();
            let decided = run.cancel(&mut actions);
            files.act(actions);
            cancelled = true;
            if decided == RunStep::Cancelled {
                assert!(run.request().is_err(), "nothing after a cancel");
                return run.state();
            }
            continue;
        }
        let request = match run.request() {
            Ok(r) => r,
            Err(e) => {
                assert_eq!(run.request().unwrap_err(), e, "sticky");
                return run.state();
            }
        };
        if request.method == Method::Post && !request.path.ends_with("/kill") {
            assert_eq!(request.header("Idempotency-Key"), Some(key.as_str()));
            assert!(
                run.proc_id().is_none(),
                "no start once the process is known"
            );
        }
        if request.path.ends_with("/kill") {
            assert!(
                cancelled && kill_on_cancel,
                "a kill only after a cancel with kill"
            );
        }
        let mut actions = Vec::new();
        let decided = if step.is_multiple_of(5) {
            if step & 0x80 != 0 {
                let limited = run.wait_limit().is_some();
                assert_eq!(run.waited(Duration::from_secs(2)), limited);
            }
            let jitter = f64::from(input.byte()) / 255.0;
            if step & 0x10 != 0 {
                run.not_connected("refused", jitter)
            } else {
                run.no_response("reset", jitter)
            }
        } else {
            // Bit 2: the answer a healthy service gives at this point (so
            // that random inputs get past the start), else a random one.
            let healthy = step & 0x04 != 0;
            let (status, content_type, base) = match (healthy, run.state()) {
                (true, RunState::Following) => (200, "application/x-ndjson", {
                    let i = usize::from(input.byte()) % OUTPUT.len();
                    OUTPUT[i]
                }),
                (true, _) => (200, "application/json", IDENTITY),
                (false, _) => (
                    STATUSES[usize::from(input.byte()) % STATUSES.len()],
                    CONTENT_TYPES[usize::from(input.byte()) % CONTENT_TYPES.len()],
                    BODIES[usize::from(input.byte()) % BODIES.len()],
                ),
            };
            let proc_id = (step & 0x40 != 0).then_some("p1");
            match run.open(status, content_type, proc_id, None) {
                Err(e) => Err(e),
                Ok(()) => {
                    let cut = if healthy {
                        base.len()
                    } else {
                        usize::from(input.byte()) % (base.len() + 1)
                    };
                    let extra = usize::from(input.byte() % 32);
                    let mut body = base[..cut].to_vec();
                    body.extend_from_slice(input.take(extra));
                    let mut fed = Ok(());
                    let mut stalled = false;
                    let size = if healthy {
                        body.len().max(1)
                    } else {
                        usize::from(input.byte() % 16) + 1
                    };
                    for piece in body.chunks(size) {
                        if run.waited(Duration::from_millis(u64::from(input.byte()) * 2)) {
                            stalled = true;
                            break;
                        }
                        fed = run.feed(piece, &mut actions);
                        if fed.is_err() {
                            break;
                        }
                    }
                    if step & 0x08 != 0 && spill {
                        // The writer of one view fails.
                        let view = View::ALL[usize::from(input.byte()) % 3];
                        files.failed[view as usize] = true;
                        run.spill_failed(view, SpillError::WriterFailed { error: "E".into() });
                    }
                    match fed {
                        Err(e) => Err(e),
                        Ok(()) => {
                            let broken = (!stalled && step & 0x10 != 0).then_some("reset");
                            run.finish(broken, f64::from(input.byte()) / 255.0, &mut actions)
                        }
                    }
                }
            }
        };
        files.act(actions);
        files.check(spill);
        match decided {
            Ok(RunStep::Done) => {
                for view in std::mem::take(&mut files.commits) {
                    run.spill_committed(
                        view,
                        SpillOutcome::Saved {
                            path: format!("/s/{}", view.as_str()),
                        },
                    );
                }
                let result = run.result().expect("a done run renders");
                assert_eq!(result.proc_id, "p1");
                if spill && raw && !files.failed[0] {
                    assert_eq!(result.stdout.total_bytes, files.written[0].len() as u64);
                }
                assert_eq!(run.state(), RunState::Finished);
                return RunState::Finished;
            }
            Ok(RunStep::Wait { delay, reconnect }) => {
                assert!(delay <= Duration::from_secs(5), "within max_backoff");
                if let Some(r) = reconnect {
                    assert!(r.failures <= retries, "within the budget");
                }
            }
            Ok(RunStep::Cancelled) => {
                assert!(cancelled, "only a cancel ends a run cancelled");
                assert_eq!(run.state(), RunState::Cancelled);
                return RunState::Cancelled;
            }
            Ok(RunStep::Send) => {}
            Err(e) => {
                assert_eq!(run.state(), RunState::Failed);
                assert_eq!(run.request().unwrap_err(), e, "sticky");
                return RunState::Failed;
            }
        }
    }
    run.state()
}

#[cfg(test)]
mod tests {
    use super::{play, RunState};

    #[test]
    fn a_healthy_run_reaches_its_result() {
        // Flags: spill, a caller's key. Step 0x04: a healthy answer (no
        // extra bytes, one piece after no wait, jitter 0): the start's identity,
        // then stdout, then the exit; 0x0b cancels.
        let start = [0x04, 0, 0, 0];
        let output = |i: u8| [0x04, i, 0, 0, 0];
        let input: Vec<u8> = [
            vec![0x12, 0],
            start.to_vec(),
            output(0).to_vec(),
            output(4).to_vec(),
        ]
        .concat();
        assert_eq!(play(&input), RunState::Finished);
        let cancelled: Vec<u8> = [vec![0x13, 0], start.to_vec(), vec![0x0b]].concat();
        assert_eq!(play(&cancelled), RunState::Cancelling);
    }
}
