//! The conversation harness: a follower (a read of output, an exec stream,
//! or a one-answer call, keyed or not) driven through random answers,
//! statuses, cut bodies, waits and cancels, as a client would drive it.
//!
//! Checked after every step:
//! - no panic, and every error is sticky (the next call returns it again);
//! - a request that may not be sent twice (a start or exec without an
//!   idempotency key) is sent at most once;
//! - every output byte is delivered at most once and in order: per stream,
//!   each `output` or `skipped` event starts where the last one ended (or,
//!   for a skip, later), and the cursor never moves back;
//! - memory is bounded by the options: a decoded event never holds more
//!   than `max_frame_bytes` of output, and the follower asks for at most a
//!   bounded number of requests in a row without progress (`retries` + 1).
//!
//! Input layout: byte 0 picks the conversation ([`KINDS`]), byte 1 the
//! options (bit 0: jitter, bit 1: skip policy, bits 2–4: retries 0–7); the
//! rest is a sequence of steps, each read from the input as it goes (bytes
//! past the end read as zero, which ends the conversation).

use std::time::Duration;

use dory_wire::{
    Command, Cursor, Decision, Event, FollowOptions, Follower, FollowerState, GapPolicy, Request,
    Stream,
};

/// The conversations, by `byte 0 % 8`.
pub const KINDS: [&str; 8] = [
    "process_output",
    "exec_stream unkeyed",
    "exec_stream keyed",
    "start unkeyed",
    "start keyed",
    "exec unkeyed",
    "get_process",
    "kill",
];

/// Statuses a step may answer with.
pub const STATUSES: [u16; 12] = [200, 200, 200, 200, 302, 400, 404, 409, 410, 429, 500, 503];

/// Content-Types a step may answer with.
pub const CONTENT_TYPES: [&str; 4] = ["application/x-ndjson", "application/json", "text/html", ""];

/// Bodies a step may start from (then cut or extended by input bytes).
pub(crate) const BODIES: [&[u8]; 8] = [
    b"{\"type\":\"stdout\",\"data\":\"ab\",\"offset\":2}\n",
    b"{\"type\":\"stderr\",\"data\":\"x\",\"offset\":1}\n{\"type\":\"heartbeat\"}\n",
    b"{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n",
    b"{\"type\":\"started\",\"proc_id\":\"p1\"}\n",
    b"{\"proc_id\":\"p1\",\"status\":\"running\"}",
    b"{\"type\":\"gap\",\"stream\":\"stdout\",\"from\":0,\"to\":5}\n",
    b"{\"error\":\"output_gap\",\"message\":\"gone\",\"earliest_stdout_offset\":4,\"earliest_stderr_offset\":0}",
    b"{\"type\":\"stdout\",\"data\":\"cd\",\"offset\":4}\n{\"type\":\"stdout\",\"data\":\"e",
];

/// The most steps of one conversation (a hang guard, not a rule).
const MAX_STEPS: usize = 64;
/// The frame limit of every conversation: small, so that the limit is tried.
const MAX_FRAME_BYTES: usize = 256;

pub(crate) struct Input<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) at: usize,
}

impl Input<'_> {
    pub(crate) fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    pub(crate) fn done(&self) -> bool {
        self.at >= self.data.len()
    }
    pub(crate) fn take(&mut self, n: usize) -> &[u8] {
        let start = self.at.min(self.data.len());
        let end = (start + n).min(self.data.len());
        self.at = end;
        &self.data[start..end]
    }
}

fn follower(kind: u8, options: FollowOptions) -> Follower {
    let command = Command::shell("make");
    let built = match kind % 8 {
        0 => Follower::process_output("c1", "p1", Cursor::default(), options),
        1 => Follower::exec_stream("c1", &command, None, None, options),
        2 => Follower::exec_stream("c1", &command, None, Some("k1"), options),
        3 => Request::start("c1", &command, None, None).and_then(|r| Follower::call(r, options)),
        4 => Request::start("c1", &command, None, Some("k1"))
            .and_then(|r| Follower::call(r, options)),
        5 => Request::exec("c1", &command, None, None, false)
            .and_then(|r| Follower::call(r, options)),
        6 => Request::get_process("c1", "p1").and_then(|r| Follower::call(r, options)),
        _ => Request::kill("c1", "p1").and_then(|r| Follower::call(r, options)),
    };
    built.expect("the harness builds valid followers")
}

/// Output delivered so far, per stream: where the next event must start.
#[derive(Default)]
struct Delivered {
    end: [u64; 2],
}

impl Delivered {
    fn check(&mut self, events: &[Event]) {
        for event in events {
            match event {
                Event::Output {
                    stream,
                    data,
                    start,
                    end,
                } => {
                    let i = index(*stream);
                    assert_eq!(*start, self.end[i], "output in order, each byte once");
                    assert_eq!(end - start, data.len() as u64);
                    assert!(
                        data.len() <= MAX_FRAME_BYTES,
                        "an event within the frame limit"
                    );
                    self.end[i] = *end;
                }
                Event::Skipped { stream, start, end } => {
                    let i = index(*stream);
                    assert!(*start >= self.end[i] && end > start, "a skip moves on");
                    self.end[i] = *end;
                }
                _ => {}
            }
        }
    }
}

fn index(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => 0,
        Stream::Stderr => 1,
    }
}

/// Runs one conversation read from `data`; panics when an invariant breaks.
pub fn check(data: &[u8]) {
    let mut input = Input { data, at: 0 };
    let kind = input.byte();
    let bits = input.byte();
    let retries = u32::from((bits >> 2) & 7);
    let options = FollowOptions::default()
        .jitter(bits & 1 == 1)
        .gap_policy(if bits & 2 == 2 {
            GapPolicy::Skip
        } else {
            GapPolicy::Fail
        })
        .retries(retries)
        .max_frame_bytes(MAX_FRAME_BYTES)
        .liveness_timeout(Duration::from_millis(1000));
    let mut f = follower(kind, options);
    let mut delivered = Delivered::default();
    // Whether an unkeyed start or exec was sent in a way that may have
    // reached the service (anything but a refused connection).
    let mut unkeyed_reached = false;
    let mut in_a_row = 0u32;
    let mut last_cursor = f.cursor();
    for _ in 0..MAX_STEPS {
        if input.done() {
            break;
        }
        let request = match f.request() {
            Ok(r) => r,
            Err(e) => {
                assert_eq!(f.request().unwrap_err(), e, "sticky");
                return;
            }
        };
        let unkeyed = request.method == dory_wire::Method::Post
            && request.header("Idempotency-Key").is_none()
            && !request.path.ends_with("/kill");
        assert!(
            !(unkeyed && unkeyed_reached),
            "an unkeyed start or exec that may have reached the service is never sent again"
        );
        let step = input.byte();
        // Refused (never connected) or sent without an answer: bit 0x10 of
        // a no-response step.
        let refused = step.is_multiple_of(5) && step & 0x10 != 0;
        if unkeyed && !refused {
            unkeyed_reached = true;
        }
        let mut events: Vec<Event> = Vec::new();
        let decision = if step.is_multiple_of(5) {
            // No response: refused, or no headers in time.
            if step & 0x80 != 0 {
                let mut over = false;
                for _ in 0..8 {
                    over = f.waited(Duration::from_millis(u64::from(input.byte()) * 8));
                    if over {
                        break;
                    }
                }
                if !over {
                    // A synchronous exec's headers have no deadline.
                    let limited = f.wait_limit().is_some();
                    assert_eq!(f.waited(Duration::from_secs(2)), limited);
                }
            }
            let jitter = f64::from(input.byte()) / 255.0;
            if refused {
                f.not_connected("refused", jitter)
            } else {
                f.no_response("reset", jitter)
            }
        } else {
            let status = STATUSES[usize::from(input.byte()) % STATUSES.len()];
            let content_type = CONTENT_TYPES[usize::from(input.byte()) % CONTENT_TYPES.len()];
            let proc_id = (step & 0x40 != 0).then_some("p1");
            let retry_after = (step & 0x20 != 0).then_some("1");
            match f.open(status, content_type, proc_id, retry_after) {
                Err(e) => Err(e),
                Ok(()) => {
                    let base = BODIES[usize::from(input.byte()) % BODIES.len()];
                    let cut = usize::from(input.byte()) % (base.len() + 1);
                    let extra = usize::from(input.byte() % 32);
                    let mut body = base[..cut].to_vec();
                    body.extend_from_slice(input.take(extra));
                    let mut fed = Ok(());
                    let mut stalled = false;
                    for piece in body.chunks(usize::from(input.byte() % 16) + 1) {
                        // A wait before each piece: the clock counts it.
                        if f.waited(Duration::from_millis(u64::from(input.byte()) * 2)) {
                            stalled = true;
                            break;
                        }
                        fed = f.feed(piece, &mut events);
                        if fed.is_err() {
                            break;
                        }
                    }
                    match fed {
                        Err(e) => Err(e),
                        Ok(()) => {
                            let broken = (!stalled && step & 0x10 != 0).then_some("reset");
                            f.finish(broken, f64::from(input.byte()) / 255.0, &mut events)
                        }
                    }
                }
            }
        };
        delivered.check(&events);
        let cursor = f.cursor();
        assert!(
            cursor.stdout >= last_cursor.stdout && cursor.stderr >= last_cursor.stderr,
            "the cursor never moves back"
        );
        let progressed = cursor != last_cursor;
        last_cursor = cursor;
        match decision {
            Ok(Decision::Done(_)) => {
                assert_eq!(f.state(), FollowerState::Done);
                assert!(f.request().is_err(), "nothing after done");
                return;
            }
            Ok(Decision::Reconnect(r)) => {
                assert!(r.failures <= retries, "within the budget");
                assert!(r.delay <= Duration::from_secs(5), "within max_backoff");
                in_a_row = if progressed || r.failures == 0 {
                    0
                } else {
                    in_a_row + 1
                };
                assert!(in_a_row <= retries, "at most retries without progress");
            }
            Ok(Decision::Continue) => {}
            Err(e) => {
                assert_eq!(f.state(), FollowerState::Failed);
                assert_eq!(f.request().unwrap_err(), e, "sticky");
                return;
            }
        }
    }
}
