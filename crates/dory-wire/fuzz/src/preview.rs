//! The preview harness: limits and spill answers from the input header, and
//! the checks of docs/preview.md on every preview.

use dory_wire::preview::{Bounded, Bounder, Preview, SpillOutcome, MIN_MAX_BYTES};
use dory_wire::Error;

use crate::split::pieces;
use crate::{count_lines, Header};

/// Bytes of the bounder targets' header.
pub const PREVIEW_HEADER_LEN: usize = 10;

/// Limits, spill answer, hint and chunking of a bounder run.
///
/// Header layout ([`PREVIEW_HEADER_LEN`] bytes):
///
/// | byte | meaning |
/// |---|---|
/// | 0–1 | `max_lines` = value % 1024 (0: only input that fits is accepted) |
/// | 2–3 | `max_bytes` = value % 8352 (below 32: only input that fits is accepted) |
/// | 4 | spill answer, `b % 7`: not saved; failed "disk full"; failed ""; saved `/tmp/spill/out.txt`; saved a long path (byte 9 × 8 `x`); saved a path with a line break; saved "" |
/// | 5 | hint, `b % 5`: none; a short hint; ""; a hint with a line break; a 300-byte hint |
/// | 6 | bit 0: the caller names the spill `fixed-id` |
/// | 7–8 | split seed for the streaming bounder |
/// | 9 | long path length / 8 |
#[derive(Debug, Clone)]
pub struct PreviewSetup {
    /// `max_lines`.
    pub max_lines: usize,
    /// `max_bytes`.
    pub max_bytes: usize,
    /// What the caller answers to a spill request.
    pub outcome: SpillOutcome,
    /// The hint.
    pub hint: Option<String>,
    /// The caller's spill id, if any.
    pub spill_id: Option<&'static str>,
    /// How to chunk the input for the streaming bounder.
    pub split_seed: u64,
}

impl PreviewSetup {
    /// Reads the header; returns the setup and the input.
    pub fn parse(data: &[u8]) -> (Self, &[u8]) {
        let (h, input) = Header::split(data, PREVIEW_HEADER_LEN);
        let outcome = match h.u8(4) % 7 {
            0 => SpillOutcome::NotSaved,
            1 => SpillOutcome::Failed {
                reason: "disk full".into(),
            },
            2 => SpillOutcome::Failed {
                reason: String::new(),
            },
            3 => SpillOutcome::Saved {
                path: "/tmp/spill/out.txt".into(),
            },
            4 => SpillOutcome::Saved {
                path: format!("/p/{}", "x".repeat(usize::from(h.u8(9)) * 8)),
            },
            5 => SpillOutcome::Saved {
                path: "/tmp/a\nb.txt".into(),
            },
            _ => SpillOutcome::Saved {
                path: String::new(),
            },
        };
        let hint = match h.u8(5) % 5 {
            0 => None,
            1 => Some("read it with exec_command".to_owned()),
            2 => Some(String::new()),
            3 => Some("two\nlines".to_owned()),
            _ => Some("h".repeat(300)),
        };
        let setup = PreviewSetup {
            max_lines: usize::from(h.u16(0) % 1024),
            max_bytes: usize::from(h.u16(2) % 8352),
            outcome,
            hint,
            spill_id: (h.u8(6) & 1 != 0).then_some("fixed-id"),
            split_seed: u64::from(h.u16(7)),
        };
        (setup, input)
    }

    /// Whether the limits allow a cut.
    pub fn cut_possible(&self) -> bool {
        self.max_lines >= 1 && self.max_bytes >= MIN_MAX_BYTES
    }

    /// The bounder (any limits are accepted).
    pub fn bounder(&self) -> Bounder {
        Bounder::new(self.max_lines, self.max_bytes)
    }

    /// Bounds `input` whole; checks that only a needed cut with limits too
    /// small for one is refused, with `invalid_limits`.
    pub fn bound<'a>(&self, bounder: &Bounder, input: &'a [u8]) -> Result<Bounded<'a>, Error> {
        let result = match self.spill_id {
            Some(id) => bounder.bound_with_spill_id(input, id),
            None => bounder.bound(input),
        };
        let fits = count_lines(input) <= self.max_lines as u64
            && String::from_utf8_lossy(input).len() <= self.max_bytes;
        match &result {
            Ok(_) => assert!(fits || self.cut_possible(), "a cut accepted: {self:?}"),
            Err(e) => {
                assert!(!fits && !self.cut_possible(), "refused: {e}");
                assert_eq!(e.code(), "invalid_limits");
            }
        }
        result
    }
}

/// `path` as one POSIX shell word (docs/preview.md).
fn shell_word(path: &str) -> String {
    let safe = |b: u8| b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b);
    if path.bytes().all(safe) {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// The notices docs/preview.md allows for a cut preview, richest first.
fn expected_notices(input: &[u8], p: &Preview, hint: Option<&str>) -> Vec<String> {
    let (first, last) = p.omitted_range.expect("a truncated preview has a range");
    let head = usize::try_from(p.head_bytes).expect("head fits in memory");
    let tail_start = input.len() - usize::try_from(p.tail_bytes).expect("tail fits");
    let first_partial = head > 0 && input[head - 1] != b'\n';
    let last_partial = p.tail_bytes > 0 && input[tail_start - 1] != b'\n';
    let counted = match p.omitted_bytes {
        1 => "1 byte omitted".to_owned(),
        n => format!("{n} bytes omitted"),
    };
    let mut place = if first == last {
        format!("line {first} of {}", p.total_lines)
    } else {
        format!("lines {first}-{last} of {}", p.total_lines)
    };
    match (first == last, first_partial, last_partial) {
        (_, false, false) => {}
        (true, _, _) => place += ", partly shown",
        (false, true, true) => place += &format!(", {first} and {last} partly shown"),
        (false, true, false) => place += &format!(", {first} partly shown"),
        (false, false, true) => place += &format!(", {last} partly shown"),
    }
    if let Some(path) = &p.spill_path {
        let mut pointer = format!("; sed -n '{first},{last}p' {}", shell_word(path));
        if let Some(hint) = hint.filter(|h| !h.is_empty()) {
            pointer += &format!("; {hint}");
        }
        return vec![format!("[... {counted}: {place}{pointer} ...]")];
    }
    vec![
        format!("[... {counted}: {place} ...]"),
        format!("[... {counted} ...]"),
        "[... omitted ...]".to_owned(),
    ]
}

/// Checks one preview of `input` against docs/preview.md.
pub fn check_preview(setup: &PreviewSetup, bounder: &Bounder, input: &[u8], p: &Preview) {
    let max_bytes = setup.max_bytes;
    let max_lines = setup.max_lines as u64;
    assert!(
        p.text.len() <= max_bytes,
        "{} bytes > {max_bytes}",
        p.text.len()
    );
    let lines = count_lines(p.text.as_bytes());
    assert!(lines <= max_lines, "{lines} lines > {max_lines}");
    assert_eq!(p.total_bytes, input.len() as u64);
    assert_eq!(p.total_lines, count_lines(input));
    assert_eq!(p.head_bytes + p.omitted_bytes + p.tail_bytes, p.total_bytes);
    let rendered = String::from_utf8_lossy(input);
    let fits = count_lines(input) <= max_lines && rendered.len() <= max_bytes;
    assert_eq!(p.truncated, !fits, "truncated iff the input does not fit");
    if !p.truncated {
        assert_eq!(p.text, rendered);
        assert_eq!((p.omitted_bytes, p.omitted_lines, p.tail_bytes), (0, 0, 0));
        assert!(p.omitted_range.is_none() && p.spill_id.is_none());
        assert!(p.spill_path.is_none() && p.spill_error.is_none());
    } else {
        check_layout(setup, input, p);
        check_spill(setup, p);
    }
    // Bounding a preview again with the same limits gives it back unchanged.
    match bounder.bound(p.text.as_bytes()) {
        Ok(Bounded::Fits(again)) => assert_eq!(again.text, p.text, "bounding is not idempotent"),
        _ => panic!("a preview does not fit its own limits"),
    }
}

/// head (a prefix), the notice on its own line, tail (a suffix), exactly.
fn check_layout(setup: &PreviewSetup, input: &[u8], p: &Preview) {
    assert!(
        p.omitted_bytes >= 1 && p.omitted_lines >= 1,
        "truncated but nothing omitted"
    );
    let (first, last) = p.omitted_range.expect("a truncated preview has a range");
    assert!(1 <= first && first <= last && last <= p.total_lines);
    assert_eq!(
        last - first + 1,
        p.omitted_lines,
        "omitted lines are a contiguous range"
    );
    let head_len = usize::try_from(p.head_bytes).expect("head fits in memory");
    let tail_len = usize::try_from(p.tail_bytes).expect("tail fits in memory");
    let head = &input[..head_len];
    let tail = &input[input.len() - tail_len..];
    let head_text = String::from_utf8_lossy(head);
    let tail_text = String::from_utf8_lossy(tail);
    let mut rest = p
        .text
        .strip_prefix(&*head_text)
        .unwrap_or_else(|| panic!("the preview does not start with the head: {:?}", p.text));
    if head.last().is_some_and(|&b| b != b'\n') {
        rest = rest.strip_prefix('\n').expect("a cut head ends its line");
    }
    let (notice, after) = match rest.split_once('\n') {
        Some((notice, after)) => (notice, after),
        None => (rest, ""),
    };
    assert!(
        notice.starts_with("[... ") && notice.ends_with(" ...]") && notice.contains("omitted"),
        "not a notice line: {notice:?}"
    );
    let allowed = expected_notices(input, p, setup.hint.as_deref());
    assert!(
        allowed.iter().any(|n| n == notice),
        "notice {notice:?} is none of {allowed:?}"
    );
    assert_eq!(after, tail_text, "the preview does not end with the tail");
    if tail.is_empty() {
        assert!(!rest.contains('\n'), "a notice line break with no tail");
    }
    if p.spill_path.is_none() {
        assert!(!notice.contains("sed -n"), "a command without a path: {notice:?}");
    }
}

fn check_spill(setup: &PreviewSetup, p: &Preview) {
    let id = p
        .spill_id
        .as_deref()
        .expect("a truncated preview has a spill id");
    match setup.spill_id {
        Some(given) => assert_eq!(id, given),
        None => assert!(
            id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
            "content-derived spill id {id:?}"
        ),
    }
    match &setup.outcome {
        SpillOutcome::NotSaved => assert!(p.spill_path.is_none() && p.spill_error.is_none()),
        SpillOutcome::Failed { reason } => {
            assert!(p.spill_path.is_none());
            let error = p
                .spill_error
                .as_deref()
                .expect("a failed spill is reported");
            if reason.is_empty() {
                assert_eq!(error, "spill writer failed");
            } else {
                assert_eq!(error, reason);
            }
        }
        SpillOutcome::Saved { path } => {
            let hint_breaks = setup.hint.as_deref().is_some_and(|h| h.contains('\n'));
            if path.is_empty() || path.contains('\n') || hint_breaks {
                assert!(p.spill_path.is_none() && p.spill_error.is_some());
            } else if p.spill_path.is_some() {
                assert_eq!(p.spill_path.as_deref(), Some(path.as_str()));
                assert!(p.spill_error.is_none());
            } else {
                // Only a notice too long for max_bytes may drop a valid path.
                let error = p
                    .spill_error
                    .as_deref()
                    .expect("a dropped path is reported");
                assert!(error.contains("too long"), "{error}");
            }
        }
    }
}

/// The whole bounder: refuse invalid limits, check the preview for the spill
/// answer, render twice (deterministic) and also with no writer.
pub fn check_whole(data: &[u8]) {
    let (setup, input) = PreviewSetup::parse(data);
    let bounder = setup.bounder();
    let Ok(bounded) = setup.bound(&bounder, input) else {
        return;
    };
    assert_eq!(
        Some(&bounded),
        setup.bound(&bounder, input).ok().as_ref(),
        "bounding is deterministic"
    );
    if let Bounded::NeedsSpill(pending) = &bounded {
        assert_eq!(pending.total_bytes(), input.len() as u64);
        assert_eq!(pending.total_lines(), count_lines(input));
        let plain = pending.render(SpillOutcome::NotSaved, None);
        let plain_setup = PreviewSetup {
            outcome: SpillOutcome::NotSaved,
            hint: None,
            ..setup.clone()
        };
        check_preview(&plain_setup, &bounder, input, &plain);
    }
    let hint = setup.hint.as_deref();
    let first = bounded.clone().render(setup.outcome.clone(), hint);
    let second = bounded.render(setup.outcome.clone(), hint);
    assert_eq!(first, second, "rendering is deterministic");
    check_preview(&setup, &bounder, input, &first);
}

/// The streaming bounder, fed in chunks: retained bytes stay within
/// `2 × (2 × max_bytes + 8)` after every push, and the result equals the whole
/// bounder's, pending spill and rendered preview alike.
pub fn check_streaming(data: &[u8]) {
    let (setup, input) = PreviewSetup::parse(data);
    let bounder = setup.bounder();
    let mut streaming = bounder.streaming();
    if let Some(id) = setup.spill_id {
        streaming = streaming.with_spill_id(id);
    }
    let bound = 2 * (2 * setup.max_bytes + 8);
    for piece in pieces(input, setup.split_seed) {
        streaming.push(piece);
        assert!(
            streaming.retained_bytes() <= bound,
            "retained {} bytes > {bound}",
            streaming.retained_bytes()
        );
    }
    assert_eq!(streaming.total_bytes(), input.len() as u64);
    let streamed = streaming.finish();
    let whole = setup.bound(&bounder, input);
    let (streamed, whole) = match (streamed, whole) {
        (Ok(streamed), Ok(whole)) => (streamed, whole),
        (Err(a), Err(b)) => {
            assert_eq!(a.code(), b.code(), "the bounders refuse alike");
            return;
        }
        (a, b) => panic!("the streaming bounder differs from the whole bounder: {a:?} {b:?}"),
    };
    assert_eq!(
        streamed, whole,
        "the streaming bounder differs from the whole bounder"
    );
    let hint = setup.hint.as_deref();
    let preview = streamed.render(setup.outcome.clone(), hint);
    assert_eq!(preview, whole.render(setup.outcome.clone(), hint));
    check_preview(&setup, &bounder, input, &preview);
}
