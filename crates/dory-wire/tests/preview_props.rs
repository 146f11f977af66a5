//! Property tests of the preview bounder (docs/preview.md): the hard ceiling,
//! exact accounting, idempotence and streaming = whole, over random inputs
//! (invalid UTF-8, CRLF, lone `\r`, giant lines, emoji, CJK), random limits,
//! random spill paths and hints, and random chunkings.

mod common;

use common::preview::{count_lines, expected_notices, lossy, notice_of};
use dory_wire::preview::{
    Bounded, Bounder, Preview, SpillOutcome, StreamingBounder, MIN_MAX_BYTES,
};
use proptest::prelude::*;

/// Input fragments chosen to hit every awkward case.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z ]{0,12}".prop_map(String::into_bytes),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just("😀".as_bytes().to_vec()),
        1 => Just("漢字".as_bytes().to_vec()),
        1 => Just("é".as_bytes().to_vec()),
        1 => prop::sample::select(vec![
            b"\xff".to_vec(),
            b"\x80".to_vec(),
            b"\xe2\x82".to_vec(),
            b"\xf0\x9f\x98".to_vec(),
            b"\xed\xa0\x80".to_vec(),
            b"\xc0\xaf".to_vec(),
        ]),
        1 => (1usize..3000, prop::sample::select(vec![b'x', b'\r', 0xff, b'\n']))
            .prop_map(|(n, b)| vec![b; n]),
        1 => (1usize..400).prop_map(|n| "😀".repeat(n).into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ]
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(fragment(), 0..120).prop_map(|parts| parts.concat())
}

fn limits() -> impl Strategy<Value = (usize, usize)> {
    (
        prop_oneof![3 => 1usize..12, 1 => 12usize..3000],
        prop_oneof![1 => MIN_MAX_BYTES..120, 3 => 120usize..700, 1 => 700usize..5000],
    )
}

/// Any limits at all, the ones too small for a cut included.
fn tiny_limits() -> impl Strategy<Value = (usize, usize)> {
    (0usize..4, 0usize..MIN_MAX_BYTES + 40)
}

fn outcome() -> impl Strategy<Value = SpillOutcome> {
    prop_oneof![
        1 => Just(SpillOutcome::NotSaved),
        1 => "[a-z ]{0,20}".prop_map(|reason| SpillOutcome::Failed { reason }),
        3 => "/[a-z0-9/._-]{0,40}".prop_map(|path| SpillOutcome::Saved { path }),
        1 => (200usize..600).prop_map(|n| SpillOutcome::Saved { path: format!("/{}", "p".repeat(n)) }),
        1 => "[a-z\n\r\t\u{85}\u{2028}é😀]{0,20}".prop_map(|path| SpillOutcome::Saved { path }),
    ]
}

fn hint() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        3 => "[a-z ]{0,30}",
        1 => "[a-z\n\u{1b}]{1,10}",
    ])
}

/// True when `at` is a cut point: between two lossy-decoding units, not inside `\r\n`.
fn is_cut_point(data: &[u8], at: usize) -> bool {
    let crlf = at > 0 && at < data.len() && data[at - 1] == b'\r' && data[at] == b'\n';
    !crlf && lossy(&data[..at]) + &lossy(&data[at..]) == lossy(data)
}

/// The preview, or `None` when the limits are refused (checked here).
fn bound<'a>(
    bounder: &Bounder,
    data: &'a [u8],
    outcome: &SpillOutcome,
    hint: Option<&str>,
) -> Option<Preview<'a>> {
    let (max_lines, max_bytes) = (bounder.limits().max_lines(), bounder.limits().max_bytes());
    let fits = count_lines(data) <= max_lines as u64 && lossy(data).len() <= max_bytes;
    let cut_possible = max_lines >= 1 && max_bytes >= MIN_MAX_BYTES;
    match bounder.bound(data) {
        Ok(bounded) => {
            assert!(
                fits || cut_possible,
                "a cut accepted with {max_lines}/{max_bytes}"
            );
            Some(bounded.render(outcome.clone(), hint))
        }
        Err(e) => {
            assert!(!fits && !cut_possible, "refused: {e}");
            assert_eq!(e.code(), "invalid_limits");
            None
        }
    }
}

fn check(
    data: &[u8],
    max_lines: usize,
    max_bytes: usize,
    outcome: &SpillOutcome,
    hint: Option<&str>,
    splits: &[usize],
) {
    let bounder = Bounder::new(max_lines, max_bytes);
    let Some(p) = bound(&bounder, data, outcome, hint) else {
        let mut streaming = bounder.streaming();
        streaming.push(data);
        assert!(
            streaming.finish().is_err(),
            "streaming accepted refused limits"
        );
        return;
    };
    let text = p.text.as_bytes();

    // The hard ceiling.
    assert!(
        text.len() <= max_bytes,
        "{} bytes > {max_bytes}",
        text.len()
    );
    assert!(
        count_lines(text) <= max_lines as u64,
        "{} lines > {max_lines}",
        count_lines(text)
    );

    // Totals and counts that add up.
    assert_eq!(p.total_bytes, data.len() as u64);
    assert_eq!(p.total_lines, count_lines(data));
    assert_eq!(p.head_bytes + p.omitted_bytes + p.tail_bytes, p.total_bytes);

    let fits = count_lines(data) <= max_lines as u64 && lossy(data).len() <= max_bytes;
    assert_eq!(p.truncated, !fits);
    if fits {
        assert_eq!(p.text, lossy(data));
        assert_eq!(
            (p.omitted_bytes, p.omitted_lines, p.omitted_range),
            (0, 0, None)
        );
        assert!(p.spill_id.is_none() && p.spill_path.is_none() && p.spill_error.is_none());
    } else {
        let head = p.head_bytes as usize;
        let tail_start = data.len() - p.tail_bytes as usize;
        assert!(head < tail_start, "head and tail overlap");
        assert!(is_cut_point(data, head) && is_cut_point(data, tail_start));
        // Exactly head, separator, notice, separator, tail, and a notice of
        // the documented wording.
        let notice = notice_of(&p, data).expect("head + notice + tail");
        let allowed = expected_notices(&p, data, hint);
        assert!(
            allowed.iter().any(|n| n == notice),
            "{notice:?} is none of {allowed:?}"
        );
        // The range names exactly the lines with a hidden byte.
        let first = count_lines(&data[..head]) + u64::from(head == 0 || data[head - 1] == b'\n');
        let last = data[..tail_start].iter().filter(|&&b| b == b'\n').count() as u64
            + u64::from(data[tail_start - 1] != b'\n');
        assert_eq!(p.omitted_range, Some((first, last)));
        assert_eq!(p.omitted_lines, last - first + 1);
        assert_eq!(p.spill_id.as_ref().map(String::len), Some(32));
        match outcome {
            SpillOutcome::Saved { path } => match &p.spill_path {
                Some(used) => assert_eq!(used, path),
                None => assert!(p.spill_error.is_some()),
            },
            SpillOutcome::Failed { .. } => {
                assert!(p.spill_path.is_none() && p.spill_error.is_some())
            }
            SpillOutcome::NotSaved => assert!(p.spill_path.is_none() && p.spill_error.is_none()),
        }
    }

    // Idempotence.
    let again = bounder.bound(text);
    assert!(
        matches!(&again, Ok(Bounded::Fits(q)) if q.text == p.text),
        "bounding the preview again changed it"
    );

    // Streaming gives the same result, however the input is chunked.
    let mut streaming = StreamingBounder::new(max_lines, max_bytes);
    let mut rest = data;
    for &size in splits.iter().cycle().take(data.len() + 1) {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        streaming.push(chunk);
        rest = tail;
    }
    streaming.push(rest);
    assert_eq!(
        streaming
            .finish()
            .expect("the same limits")
            .render(outcome.clone(), hint),
        p,
        "streaming differs from whole"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn preview_invariants(
        data in input(),
        (max_lines, max_bytes) in limits(),
        outcome in outcome(),
        hint in hint(),
        splits in prop::collection::vec(0usize..700, 1..8),
    ) {
        check(&data, max_lines, max_bytes, &outcome, hint.as_deref(), &splits);
    }

    #[test]
    fn arbitrary_bytes(
        data in prop::collection::vec(any::<u8>(), 0..3000),
        (max_lines, max_bytes) in limits(),
        splits in prop::collection::vec(1usize..100, 1..4),
    ) {
        check(&data, max_lines, max_bytes, &SpillOutcome::Saved { path: "/s/x.txt".into() }, Some("hint"), &splits);
    }

    #[test]
    fn any_limits(
        data in input(),
        (max_lines, max_bytes) in tiny_limits(),
        outcome in outcome(),
        splits in prop::collection::vec(1usize..50, 1..4),
    ) {
        check(&data, max_lines, max_bytes, &outcome, None, &splits);
    }
}

/// The notice's digit counts change with the cut: for every reserve around a
/// digit boundary the result must still fit exactly and leave at most the
/// slack the next-smaller reserve could not use.
#[test]
fn digit_boundaries_never_overshoot() {
    for lines in [9usize, 10, 11, 99, 100, 101, 999, 1000, 1001] {
        let data: String = (1..=lines)
            .map(|i| format!("{}\n", "y".repeat(i % 7)))
            .collect();
        for max_bytes in MIN_MAX_BYTES..MIN_MAX_BYTES + 60 {
            for max_lines in [1, 2, 3, 4, 9, 10, 11, 100] {
                check(
                    data.as_bytes(),
                    max_lines,
                    max_bytes,
                    &SpillOutcome::NotSaved,
                    None,
                    &[7],
                );
            }
        }
    }
}

/// Limits at the extremes of `usize` must neither panic nor over-allocate.
#[test]
fn extreme_limits() {
    let data = "line\n".repeat(1000);
    for (max_lines, max_bytes) in [
        (1, usize::MAX),
        (usize::MAX, MIN_MAX_BYTES),
        (2, usize::MAX),
    ] {
        check(
            data.as_bytes(),
            max_lines,
            max_bytes,
            &SpillOutcome::NotSaved,
            None,
            &[3, 1000],
        );
    }
    let mut streaming = StreamingBounder::new(usize::MAX, usize::MAX);
    streaming.push(data.as_bytes());
    assert!(streaming.retained_bytes() <= 2 * data.len());
    assert!(matches!(streaming.finish(), Ok(Bounded::Fits(p)) if p.text == data));
}
