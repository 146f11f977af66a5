//! The WIT interface `run` (`dory:wire/run`): `run-bounder` and
//! `run-pending` over the run bounder [`dory_wire::preview::RunBounder`] and
//! [`RunPending`], `check-limits`, `run-spill-id` and the run's default
//! limits. The file is named after the core's `RunBounder`, as in the other
//! bindings (`run.rs` is the run machine, WIT interface `run-machine`).
//!
//! As in [`crate::reader`], a `RefCell` borrow lasts one call and calls never
//! overlap (no re-entry into a component instance, no imports).
#![forbid(unsafe_code)]

use std::cell::RefCell;

use dory_wire::preview::{
    run_spill_id, RunBounder, RunPending, View, DEFAULT_RUN_MAX_BYTES, DEFAULT_RUN_MAX_LINES,
    MIN_RUN_MAX_BYTES,
};

use crate::bindings::exports::dory::wire::decode::Event as WitEvent;
use crate::bindings::exports::dory::wire::preview::{
    Preview as WitPreview, PreviewOptions, SpillOutcome,
};
use crate::bindings::exports::dory::wire::run as wit;
use crate::bindings::exports::dory::wire::types::{Error as WitError, Stream as WitStream};
use crate::preview::{options as preview_options, preview, preview_limit, spill_outcome};
use crate::{convert, Component};

/// The state behind one `run-bounder` handle.
#[derive(Debug)]
pub struct RunBounderResource {
    inner: RefCell<RunBounder>,
}

/// The state behind one `run-pending` handle.
#[derive(Debug)]
pub struct RunPendingResource {
    inner: RunPending,
}

/// A WIT view as the core's.
fn view(v: wit::View) -> View {
    match v {
        wit::View::Stdout => View::Stdout,
        wit::View::Stderr => View::Stderr,
        wit::View::Combined => View::Combined,
    }
}

/// A count of the guest as a WIT `u64`.
fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

impl wit::Guest for Component {
    type RunBounder = RunBounderResource;
    type RunPending = RunPendingResource;

    fn check_limits(max_lines: u64, max_bytes: u64) -> Result<(), WitError> {
        RunBounder::check_limits(
            preview_limit(max_lines, "max-lines")?,
            preview_limit(max_bytes, "max-bytes")?,
        )
        .map_err(|e| convert::error(&e))
    }

    fn run_spill_id(idempotency_key: String) -> String {
        run_spill_id(&idempotency_key)
    }

    fn default_run_max_lines() -> u64 {
        count(DEFAULT_RUN_MAX_LINES)
    }

    fn default_run_max_bytes() -> u64 {
        count(DEFAULT_RUN_MAX_BYTES)
    }

    fn min_run_max_bytes() -> u64 {
        count(MIN_RUN_MAX_BYTES)
    }
}

impl RunBounderResource {
    /// Ends the output (the body of `run-bounder.finish`).
    fn finish(self) -> Result<RunPendingResource, WitError> {
        self.inner
            .into_inner()
            .finish()
            .map(|inner| RunPendingResource { inner })
            .map_err(|e| convert::error(&e))
    }
}

impl wit::GuestRunBounder for RunBounderResource {
    fn new(
        max_lines: u64,
        max_bytes: u64,
        spill_id: Option<String>,
        options: PreviewOptions,
    ) -> Result<Self, WitError> {
        let o = preview_options(max_lines, max_bytes, options)?;
        let mut inner = RunBounder::with_limits(o.limits)
            .with_keep(o.keep)
            .with_terminal(o.terminal);
        if let Some(id) = spill_id {
            inner = inner.with_spill_id(&id);
        }
        Ok(RunBounderResource {
            inner: RefCell::new(inner),
        })
    }

    fn push(&self, stream: WitStream, data: Vec<u8>) {
        self.inner
            .borrow_mut()
            .push(convert::core_stream(stream), &data);
    }

    fn lose(&self, stream: WitStream, start: u64, end: u64) {
        self.inner
            .borrow_mut()
            .lose(convert::core_stream(stream), start, end);
    }

    fn feed(&self, events: Vec<WitEvent>) {
        let mut run = self.inner.borrow_mut();
        for event in events {
            match event {
                WitEvent::Output(o) => run.push(convert::core_stream(o.stream), &o.data),
                WitEvent::Skipped(s) => run.lose(convert::core_stream(s.stream), s.start, s.end),
                _ => {}
            }
        }
    }

    fn spill_id(&self, v: wit::View) -> Option<String> {
        self.inner.borrow().spill_id(view(v)).map(str::to_owned)
    }

    fn total_bytes(&self, v: wit::View) -> u64 {
        self.inner.borrow().total_bytes(view(v))
    }

    fn lost_bytes(&self, v: wit::View) -> u64 {
        self.inner.borrow().lost_bytes(view(v))
    }

    fn retained_bytes(&self) -> u64 {
        count(self.inner.borrow().retained_bytes())
    }

    fn finish(bounder: wit::RunBounder) -> Result<wit::RunPending, WitError> {
        bounder
            .into_inner::<RunBounderResource>()
            .finish()
            .map(wit::RunPending::new)
    }
}

impl wit::GuestRunPending for RunPendingResource {
    fn spill_id(&self, v: wit::View) -> String {
        self.inner.spill_id(view(v)).to_owned()
    }

    fn needs_spill(&self, v: wit::View) -> bool {
        self.inner.needs_spill(view(v))
    }

    fn total_bytes(&self, v: wit::View) -> u64 {
        self.inner.total_bytes(view(v))
    }

    fn lost(&self, v: wit::View) -> (u64, u64) {
        self.inner.lost(view(v))
    }

    fn render(&self, v: wit::View, outcome: SpillOutcome, hint: Option<String>) -> WitPreview {
        preview(
            self.inner
                .render(view(v), spill_outcome(outcome), hint.as_deref()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::exports::dory::wire::decode::{Output, Skipped};
    use crate::bindings::exports::dory::wire::preview::{Keep, Split};
    use wit::{Guest, GuestRunBounder, GuestRunPending};

    const VIEWS: [wit::View; 3] = [wit::View::Stdout, wit::View::Stderr, wit::View::Combined];

    fn output(stream: WitStream, data: &[u8], start: u64) -> WitEvent {
        WitEvent::Output(Output {
            stream,
            data: data.to_vec(),
            start,
            end: start + data.len() as u64,
        })
    }

    /// Neither `keep` nor `terminal`.
    fn off() -> PreviewOptions {
        PreviewOptions {
            keep: Keep::None,
            terminal: false,
            split: Split::Even,
            max_tokens: None,
            tokenizer: None,
        }
    }

    #[test]
    fn options_apply_to_every_view_and_a_bad_pattern_is_refused() {
        let options = PreviewOptions {
            keep: Keep::Patterns(vec!["^error".into()]),
            terminal: true,
            split: Split::Even,
            max_tokens: None,
            tokenizer: None,
        };
        let run = RunBounderResource::new(16, 600, None, options).unwrap();
        for i in 0..200 {
            let line = if i == 100 {
                "error: it broke\n".to_owned()
            } else {
                format!("\x1b[32mok\x1b[0m {i}\n")
            };
            run.push(WitStream::Stdout, line.into_bytes());
        }
        let pending = run.finish().unwrap();
        for v in [wit::View::Stdout, wit::View::Combined] {
            let text = pending.render(v, SpillOutcome::NotSaved, None).text;
            assert!(text.contains("\n101:error: it broke\n"), "{text}");
            assert!(!text.contains('\x1b'), "{text}");
        }
        let bad = PreviewOptions {
            keep: Keep::Patterns(vec!["(".into()]),
            terminal: false,
            split: Split::Even,
            max_tokens: None,
            tokenizer: None,
        };
        let err = RunBounderResource::new(8, 300, None, bad).unwrap_err();
        assert_eq!(err.code, "invalid_argument");
    }

    #[test]
    fn a_token_limit_applies_to_every_view() {
        let options = |max_tokens, tokenizer: &str| PreviewOptions {
            keep: Keep::None,
            terminal: false,
            split: Split::Even,
            max_tokens,
            tokenizer: Some(tokenizer.into()),
        };
        let run =
            RunBounderResource::new(400, 16 * 1024, None, options(Some(150), "approx")).unwrap();
        for i in 0..300 {
            run.push(
                WitStream::Stdout,
                format!("step {i}: compiled\n").into_bytes(),
            );
            if i % 50 == 0 {
                run.push(WitStream::Stderr, format!("warning {i}\n").into_bytes());
            }
        }
        let pending = run.finish().unwrap();
        for v in VIEWS {
            let p = pending.render(v, SpillOutcome::NotSaved, None);
            let n = p.tokens.expect("counted under a token limit");
            assert!(n <= 150, "{n}");
            assert_eq!(
                dory_wire::preview::count_tokens(&p.text, Some("approx")).unwrap(),
                n
            );
        }
        let err = RunBounderResource::new(8, 300, None, options(None, "gpt-9")).unwrap_err();
        assert_eq!(err.code, "invalid_argument");
        assert!(err.message.contains("tokenizer"), "{}", err.message);
    }

    #[test]
    fn feeding_events_is_pushing_and_losing_them() {
        let fed = RunBounderResource::new(6, 200, Some("run-t".into()), off()).unwrap();
        let pushed = RunBounderResource::new(6, 200, Some("run-t".into()), off()).unwrap();
        let mut events = Vec::new();
        let mut at = [0u64; 2];
        for i in 0..40u64 {
            let (stream, k) = if i % 3 == 0 {
                (WitStream::Stderr, 1)
            } else {
                (WitStream::Stdout, 0)
            };
            let line = format!("line {i}\n");
            events.push(output(stream, line.as_bytes(), at[k]));
            at[k] += line.len() as u64;
            pushed.push(stream, line.into_bytes());
        }
        events.push(WitEvent::Heartbeat);
        events.push(WitEvent::Skipped(Skipped {
            stream: WitStream::Stdout,
            start: 500,
            end: 900,
        }));
        pushed.lose(WitStream::Stdout, 500, 900);
        fed.feed(events);
        for v in VIEWS {
            assert_eq!(fed.total_bytes(v), pushed.total_bytes(v));
            assert_eq!(fed.lost_bytes(v), pushed.lost_bytes(v));
            assert_eq!(
                GuestRunBounder::spill_id(&fed, v),
                GuestRunBounder::spill_id(&pushed, v)
            );
        }
        assert_eq!(fed.lost_bytes(wit::View::Combined), 400);
        assert_eq!(fed.lost_bytes(wit::View::Stderr), 0);
        let (fed, pushed) = (fed.finish().unwrap(), pushed.finish().unwrap());
        for v in VIEWS {
            let outcome = || SpillOutcome::Saved("/w/out.txt".into());
            let a = fed.render(v, outcome(), None);
            let b = pushed.render(v, outcome(), None);
            assert_eq!(a.text, b.text);
            assert!(
                a.text.len() <= 200 && a.text.lines().count() <= 6,
                "{}",
                a.text
            );
            assert_eq!(fed.lost(v), pushed.lost(v));
            assert_eq!(fed.needs_spill(v), pushed.needs_spill(v));
        }
        assert!(fed
            .render(wit::View::Combined, SpillOutcome::NotSaved, None)
            .text
            .ends_with("[... 400 bytes lost ...]\n"));
        assert_eq!(
            GuestRunPending::spill_id(&fed, wit::View::Stderr),
            "run-t-stderr"
        );
    }

    #[test]
    fn the_functions_are_the_cores() {
        assert_eq!(Component::default_run_max_lines(), 400);
        assert_eq!(Component::default_run_max_bytes(), 16 * 1024);
        assert_eq!(Component::min_run_max_bytes(), 80);
        assert_eq!(Component::run_spill_id("k".into()), run_spill_id("k"));
        assert!(Component::run_spill_id("k".into()).starts_with("run-"));
        assert!(Component::check_limits(2, 80).is_ok());
        let err = Component::check_limits(1, u64::MAX).unwrap_err();
        assert_eq!(err.code, "invalid_limits");
        assert!(Component::check_limits(400, 79).is_err());
    }

    #[test]
    fn an_unnamed_spill_id_is_known_at_finish() {
        let run = RunBounderResource::new(4, 100, None, off()).unwrap();
        run.push(WitStream::Stdout, b"x\n".repeat(100));
        assert_eq!(GuestRunBounder::spill_id(&run, wit::View::Stdout), None);
        assert!(run.retained_bytes() > 0);
        let pending = run.finish().unwrap();
        assert!(pending.needs_spill(wit::View::Stdout));
        assert!(!pending.needs_spill(wit::View::Stderr));
        assert_eq!(pending.total_bytes(wit::View::Combined), 200);
        let id = GuestRunPending::spill_id(&pending, wit::View::Stdout);
        let p = pending.render(wit::View::Stdout, SpillOutcome::NotSaved, None);
        assert_eq!(p.spill_id.as_deref(), Some(id.as_str()));
    }
}
