//! The `preview` interface: `bound`, `pending-spill` and `streaming-bounder`
//! over [`dory_wire::preview`]. The spill handshake is data: bounding returns
//! a pending spill, the host saves the output and renders it with the outcome.
//! The options (`preview-options`, `keep`, the limits) are converted in
//! [`args`].
//!
//! As in [`crate::reader`], a `RefCell` borrow lasts one call and calls never
//! overlap (no re-entry into a component instance, no imports).
#![forbid(unsafe_code)]

use std::cell::RefCell;

use dory_wire::preview::{
    Bounded, Bounder, Keep, Notice, NoticeKind, PendingSpill, Preview, SpillOutcome,
    StreamingBounder,
};

use crate::bindings::exports::dory::wire::preview as wit;
use crate::bindings::exports::dory::wire::types::Error as WitError;
use crate::convert;
use crate::Component;

pub mod args;

pub use args::{keep, limit, options, preview_limit, run_preset, token_limit, Options};

/// The state behind one `pending-spill` handle.
#[derive(Debug)]
pub struct PendingSpillResource {
    inner: PendingSpill<'static>,
}

/// The state behind one `streaming-bounder` handle.
#[derive(Debug)]
pub struct StreamingBounderResource {
    inner: RefCell<StreamingBounder>,
}

/// A core notice kind as its WIT enum.
fn notice_kind(kind: NoticeKind) -> wit::NoticeKind {
    match kind {
        NoticeKind::Omitted => wit::NoticeKind::Omitted,
        NoticeKind::Kept => wit::NoticeKind::Kept,
        NoticeKind::Terminal => wit::NoticeKind::Terminal,
        NoticeKind::Stderr => wit::NoticeKind::Stderr,
        NoticeKind::Lost => wit::NoticeKind::Lost,
        NoticeKind::End => wit::NoticeKind::End,
        // `NoticeKind` is non-exhaustive: a kind the core adds must be added
        // to the WIT enum; until then it is written as the last kind.
        _ => wit::NoticeKind::End,
    }
}

/// A WIT notice kind as the core's.
fn core_notice_kind(kind: wit::NoticeKind) -> NoticeKind {
    match kind {
        wit::NoticeKind::Omitted => NoticeKind::Omitted,
        wit::NoticeKind::Kept => NoticeKind::Kept,
        wit::NoticeKind::Terminal => NoticeKind::Terminal,
        wit::NoticeKind::Stderr => NoticeKind::Stderr,
        wit::NoticeKind::Lost => NoticeKind::Lost,
        wit::NoticeKind::End => NoticeKind::End,
    }
}

/// A WIT preview record as the core's (to write its JSON with the core's
/// writer): each notice must be the line of `text` it names, in order.
pub fn core_preview(p: wit::Preview) -> Result<Preview<'static>, WitError> {
    let refuse = |reason: String| {
        convert::error(&dory_wire::Error::InvalidArgument {
            argument: "preview".into(),
            reason,
        })
    };
    // Where each line of the text starts, up to the last notice's line.
    let mut notices = Vec::with_capacity(p.notices.len());
    let (mut line, mut at) = (1u64, 0usize);
    for n in &p.notices {
        if n.line < line {
            return Err(refuse(format!("notice line {} is out of order", n.line)));
        }
        while line < n.line {
            match p.text[at..].find('\n') {
                Some(i) => at += i + 1,
                None => return Err(refuse(format!("the text has no line {}", n.line))),
            }
            line += 1;
        }
        let end = at + n.text.len();
        let whole = p.text.get(at..end) == Some(n.text.as_str())
            && matches!(p.text.as_bytes().get(end), None | Some(b'\n'));
        if !whole {
            return Err(refuse(format!(
                "notice {:?} is not line {} of the text",
                n.text, n.line
            )));
        }
        notices.push(Notice::new(core_notice_kind(n.kind), at, end));
    }
    let mut core = Preview::new(p.text);
    core.truncated = p.truncated;
    core.total_lines = p.total_lines;
    core.total_bytes = p.total_bytes;
    core.head_bytes = p.head_bytes;
    core.tail_bytes = p.tail_bytes;
    core.omitted_lines = p.omitted_lines;
    core.omitted_bytes = p.omitted_bytes;
    core.omitted_range = p.omitted_range.map(|r| (r.first, r.last));
    core.spill_id = p.spill_id;
    core.spill_path = p.spill_path;
    core.spill_error = p.spill_error;
    core.notices = notices;
    core.tokens = p.tokens;
    Ok(core)
}

/// A core preview as its WIT record (shared with [`crate::run_bounder`] and
/// [`crate::run`]).
pub fn preview(p: Preview<'_>) -> wit::Preview {
    let notices = p
        .notice_lines()
        .map(|(kind, line, text)| wit::Notice {
            kind: notice_kind(kind),
            line,
            text: text.to_owned(),
        })
        .collect();
    wit::Preview {
        notices,
        text: p.text.into_owned(),
        truncated: p.truncated,
        total_lines: p.total_lines,
        total_bytes: p.total_bytes,
        head_bytes: p.head_bytes,
        tail_bytes: p.tail_bytes,
        omitted_lines: p.omitted_lines,
        omitted_bytes: p.omitted_bytes,
        omitted_range: p
            .omitted_range
            .map(|(first, last)| wit::LineRange { first, last }),
        spill_id: p.spill_id,
        spill_path: p.spill_path,
        spill_error: p.spill_error,
        tokens: p.tokens,
    }
}

/// A WIT spill outcome as the core's (shared with [`crate::run_bounder`] and
/// [`crate::run`]).
pub fn spill_outcome(outcome: wit::SpillOutcome) -> SpillOutcome {
    match outcome {
        wit::SpillOutcome::Saved(path) => SpillOutcome::Saved { path },
        wit::SpillOutcome::Failed(reason) => SpillOutcome::Failed { reason },
        wit::SpillOutcome::NotSaved => SpillOutcome::NotSaved,
    }
}

fn bounded(b: Bounded<'_>) -> wit::Bounded {
    match b {
        Bounded::Fits(p) => wit::Bounded::Fits(preview(p)),
        Bounded::NeedsSpill(pending) => {
            wit::Bounded::NeedsSpill(wit::PendingSpill::new(PendingSpillResource {
                inner: pending.into_owned(),
            }))
        }
    }
}

impl wit::Guest for Component {
    type PendingSpill = PendingSpillResource;
    type StreamingBounder = StreamingBounderResource;

    fn preview_to_json(preview: wit::Preview) -> Result<String, WitError> {
        core_preview(preview).map(|p| p.to_json())
    }

    fn run_preset() -> wit::PreviewOptions {
        run_preset()
    }

    fn count_tokens(text: String, tokenizer: Option<String>) -> Result<u64, WitError> {
        dory_wire::preview::count_tokens(&text, tokenizer.as_deref())
            .map_err(|e| convert::error(&e))
    }

    fn tokenizers() -> Vec<String> {
        dory_wire::preview::tokenizers()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    fn default_keep_patterns() -> Vec<String> {
        Keep::DEFAULT_PATTERNS
            .iter()
            .map(|p| (*p).to_owned())
            .collect()
    }

    fn bound(
        data: Vec<u8>,
        max_lines: u64,
        max_bytes: u64,
        spill_id: Option<String>,
        options: wit::PreviewOptions,
    ) -> Result<wit::Bounded, WitError> {
        let o = self::options(max_lines, max_bytes, options)?;
        let bounder = Bounder::with_limits(o.limits)
            .with_keep(o.keep)
            .with_terminal(o.terminal);
        match &spill_id {
            Some(id) => bounder.bound_with_spill_id(&data, id),
            None => bounder.bound(&data),
        }
        .map(bounded)
        .map_err(|e| convert::error(&e))
    }
}

impl wit::GuestPendingSpill for PendingSpillResource {
    fn spill_id(&self) -> String {
        self.inner.spill_id().to_owned()
    }

    fn total_bytes(&self) -> u64 {
        self.inner.total_bytes()
    }

    fn total_lines(&self) -> u64 {
        self.inner.total_lines()
    }

    fn render(&self, outcome: wit::SpillOutcome, hint: Option<String>) -> wit::Preview {
        preview(self.inner.render(spill_outcome(outcome), hint.as_deref()))
    }
}

impl wit::GuestStreamingBounder for StreamingBounderResource {
    fn new(
        max_lines: u64,
        max_bytes: u64,
        spill_id: Option<String>,
        options: wit::PreviewOptions,
    ) -> Result<Self, WitError> {
        let o = self::options(max_lines, max_bytes, options)?;
        let mut inner = StreamingBounder::with_limits(o.limits)
            .with_keep(o.keep)
            .with_terminal(o.terminal);
        if let Some(id) = spill_id {
            inner = inner.with_spill_id(id);
        }
        Ok(StreamingBounderResource {
            inner: RefCell::new(inner),
        })
    }

    fn push(&self, chunk: Vec<u8>) {
        self.inner.borrow_mut().push(&chunk);
    }

    fn total_bytes(&self) -> u64 {
        self.inner.borrow().total_bytes()
    }

    fn finish(bounder: wit::StreamingBounder) -> Result<wit::Bounded, WitError> {
        let this: StreamingBounderResource = bounder.into_inner();
        this.inner
            .into_inner()
            .finish()
            .map(bounded)
            .map_err(|e| convert::error(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::exports::dory::wire::types::FieldValue;
    use wit::{Guest, GuestStreamingBounder};

    /// Neither `keep` nor `terminal`, and this token limit.
    fn tokens(max_tokens: Option<u32>, tokenizer: Option<&str>) -> wit::PreviewOptions {
        wit::PreviewOptions {
            keep: wit::Keep::None,
            terminal: false,
            split: wit::Split::Even,
            max_tokens,
            tokenizer: tokenizer.map(str::to_owned),
        }
    }

    fn log() -> Vec<u8> {
        (1..=400)
            .map(|i| format!("step {i}: compiled module_{i}\n"))
            .collect::<String>()
            .into_bytes()
    }

    /// `bound`'s bounder, rendered without a spill (a resource handle
    /// cannot be made on the host).
    fn whole(data: &[u8], lines: u64, bytes: u64, opts: wit::PreviewOptions) -> wit::Preview {
        let o = options(lines, bytes, opts).unwrap();
        let bounder = Bounder::with_limits(o.limits)
            .with_keep(o.keep)
            .with_terminal(o.terminal);
        preview(
            bounder
                .bound_with_spill_id(data, "t")
                .unwrap()
                .render(SpillOutcome::NotSaved, None),
        )
    }

    fn argument(err: &WitError) -> Option<&str> {
        err.fields
            .iter()
            .find_map(|f| match (&f.name[..], &f.value) {
                ("argument", FieldValue::Str(s)) => Some(s.as_str()),
                _ => None,
            })
    }

    #[test]
    fn a_token_limit_binds_in_bound_and_streaming_and_is_counted() {
        assert!(Component::tokenizers().contains(&"approx".to_owned()));
        let opts = || tokens(Some(200), Some("approx"));
        let p = whole(&log(), 400, 16 * 1024, opts());
        let n = p.tokens.expect("counted under a token limit");
        assert!(p.truncated && n <= 200, "{n}");
        assert_eq!(
            Component::count_tokens(p.text.clone(), Some("approx".into())).unwrap(),
            n
        );
        let s = StreamingBounderResource::new(400, 16 * 1024, Some("t".into()), opts()).unwrap();
        for chunk in log().chunks(777) {
            s.push(chunk.to_vec());
        }
        let streamed = preview(
            s.inner
                .into_inner()
                .finish()
                .unwrap()
                .render(SpillOutcome::NotSaved, None),
        );
        // The JSON ends with the count, the same streamed, and the record
        // converts back.
        let json = Component::preview_to_json(p).unwrap();
        assert!(json.ends_with(&format!(",\"tokens\":{n}}}")), "{json}");
        assert_eq!(Component::preview_to_json(streamed).unwrap(), json);
    }

    #[test]
    fn the_core_decides_every_token_option() {
        // Neither: no count. A tokenizer alone: counted, not limited.
        let none = whole(&log(), 50, 2000, tokens(None, None));
        assert_eq!(none.tokens, None);
        let counted = whole(&log(), 50, 2000, tokens(None, Some("approx")));
        assert_eq!(counted.text, none.text);
        assert_eq!(
            counted.tokens,
            Some(Component::count_tokens(counted.text.clone(), Some("approx".into())).unwrap())
        );
        // Below the least a cut needs: refused when the input must be cut.
        let err = Component::bound(
            log(),
            400,
            16 * 1024,
            None,
            tokens(Some(31), Some("approx")),
        )
        .unwrap_err();
        assert_eq!(err.code, "invalid_limits");
        // An unknown tokenizer, in every bounder and in count-tokens.
        for err in [
            Component::bound(b"x".to_vec(), 1, 40, None, tokens(Some(100), Some("gpt-9")))
                .unwrap_err(),
            StreamingBounderResource::new(1, 40, None, tokens(None, Some("gpt-9"))).unwrap_err(),
            Component::count_tokens("x".into(), Some("gpt-9".into())).unwrap_err(),
        ] {
            assert_eq!(err.code, "invalid_argument");
            assert_eq!(argument(&err), Some("tokenizer"));
        }
        assert_eq!(
            Component::count_tokens(String::new(), Some("approx".into())).unwrap(),
            0
        );
    }

    #[test]
    fn run_preset_has_no_token_limit() {
        let preset = Component::run_preset();
        assert_eq!((preset.max_tokens, preset.tokenizer), (None, None));
    }
}
