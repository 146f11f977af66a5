//! Property tests of the token limit (`Limits::with_max_tokens`,
//! docs/preview.md "Token limits"): for any input, limits, options, split
//! and tokenizer, the preview's text encodes to at most `max_tokens` tokens
//! (counted here again, in full), within the line and byte limits too;
//! `Preview::tokens` is that count; the streaming bounder at any chunking
//! gives the whole-input bounder's preview; a run's three views hold the
//! same ceiling; and a limit that does not bind changes nothing.

use dory_wire::preview::{
    Bounded, Bounder, Keep, Limits, Preview, RunBounder, RunEnd, SpillOutcome, Split,
    StreamingBounder, View, MIN_MAX_BYTES,
};
use dory_wire::tokens::Tokenizer;
use dory_wire::Stream;
use proptest::prelude::*;

fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z ]{0,12}".prop_map(String::into_bytes),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just(b"error: it broke\n".to_vec()),
        1 => Just(b"\x1b[31mFAILED\x1b[0m test_x\n".to_vec()),
        1 => Just("😀".as_bytes().to_vec()),
        1 => Just("漢字かな".as_bytes().to_vec()),
        1 => Just(b"/usr/lib/x86_64-linux-gnu/".to_vec()),
        1 => Just(b"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=".to_vec()),
        1 => Just(b"\xff\xfe".to_vec()),
        1 => (1usize..2000, prop::sample::select(vec![b'x', b' ', b'\n', b'7']))
            .prop_map(|(n, b)| vec![b; n]),
        1 => (1usize..200).prop_map(|n| "🦀".repeat(n).into_bytes()),
    ]
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(fragment(), 0..100).prop_map(|parts| parts.concat())
}

fn tokenizer() -> impl Strategy<Value = Tokenizer> {
    prop::sample::select(Tokenizer::ALL.to_vec())
}

fn outcome() -> impl Strategy<Value = SpillOutcome> {
    prop_oneof![
        1 => Just(SpillOutcome::NotSaved),
        2 => "/[a-z0-9/._-]{0,40}".prop_map(|path| SpillOutcome::Saved { path }),
    ]
}

fn bounder(limits: Limits, keep: bool, terminal: bool) -> Bounder {
    let b = Bounder::with_limits(limits).with_terminal(terminal);
    if keep {
        b.with_keep(Keep::defaults())
    } else {
        b
    }
}

fn render(bounded: Bounded<'_>, outcome: &SpillOutcome) -> Preview<'static> {
    bounded.render(outcome.clone(), None).into_owned()
}

/// The ceiling: lines, bytes and tokens, the count recorded and exact.
fn check(p: &Preview<'_>, limits: Limits) -> Result<(), TestCaseError> {
    let limit = limits.tokens().expect("a token limit");
    let n = limit.tokenizer.count(&p.text);
    prop_assert_eq!(p.tokens, Some(n as u64));
    prop_assert!(
        n <= limit.max_tokens,
        "{} > {}: {:?}",
        n,
        limit.max_tokens,
        p.text
    );
    prop_assert!(p.text.len() <= limits.max_bytes());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn within_every_limit_and_streaming_equals_whole(
        data in input(),
        max_lines in prop_oneof![1usize..8, 8usize..400],
        max_bytes in prop_oneof![MIN_MAX_BYTES..200, 200usize..6000],
        max_tokens in prop_oneof![MIN_MAX_BYTES..80, 80usize..2000],
        tokenizer in tokenizer(),
        keep in any::<bool>(),
        terminal in any::<bool>(),
        tail in any::<bool>(),
        outcome in outcome(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let split = if tail { Split::Tail } else { Split::Even };
        let limits = Limits::new(max_lines, max_bytes)
            .with_split(split)
            .with_max_tokens(max_tokens, tokenizer);
        let whole = bounder(limits, keep, terminal).bound(&data).map(|b| render(b, &outcome));
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(data.len() + 1)).collect();
        at.sort_unstable();
        let mut streaming: StreamingBounder = bounder(limits, keep, terminal).streaming();
        let mut from = 0;
        for &cut in &at {
            streaming.push(&data[from..cut]);
            from = cut;
        }
        streaming.push(&data[from..]);
        let streamed = streaming.finish().map(|b| render(b, &outcome));
        match (whole, streamed) {
            (Ok(whole), Ok(streamed)) => {
                check(&whole, limits)?;
                prop_assert!(whole.text.lines().count() <= max_lines);
                prop_assert_eq!(&whole, &streamed);
            }
            (Err(a), Err(b)) => {
                prop_assert_eq!(a.code(), "invalid_limits");
                prop_assert_eq!(b.code(), "invalid_limits");
            }
            (a, b) => prop_assert!(false, "whole {:?}, streamed {:?}", a, b),
        }
    }

    #[test]
    fn a_limit_that_does_not_bind_changes_nothing(
        data in input(),
        max_lines in 1usize..200,
        max_bytes in MIN_MAX_BYTES..3000,
        tokenizer in tokenizer(),
        keep in any::<bool>(),
        outcome in outcome(),
    ) {
        let plain = Limits::new(max_lines, max_bytes);
        let Ok(without) = bounder(plain, keep, true).bound(&data) else {
            return Ok(());
        };
        let without = render(without, &outcome);
        // Every token is at least one byte: max_bytes tokens never bind.
        let limits = plain.with_max_tokens(max_bytes, tokenizer);
        let with = render(bounder(limits, keep, true).bound(&data).unwrap(), &outcome);
        prop_assert_eq!(with.tokens, Some(tokenizer.count(&with.text) as u64));
        let mut with = with;
        with.tokens = None;
        prop_assert_eq!(with, without);
    }

    #[test]
    fn a_runs_views_hold_the_token_limit(
        items in prop::collection::vec((any::<bool>(), input()), 1..6),
        max_tokens in 80usize..1500,
        tokenizer in tokenizer(),
        lose in any::<bool>(),
        ended in any::<bool>(),
        outcome in outcome(),
    ) {
        let limits = Limits::new(400, 16 * 1024)
            .with_split(Split::Tail)
            .with_max_tokens(max_tokens, tokenizer);
        let mut run = RunBounder::with_limits(limits)
            .with_split(Split::Tail)
            .with_keep(Keep::defaults())
            .with_terminal(true);
        let mut offsets = [0u64; 2];
        for (i, (err, data)) in items.iter().enumerate() {
            let stream = if *err { Stream::Stderr } else { Stream::Stdout };
            if lose && i == 1 {
                let at = offsets[usize::from(*err)];
                run.lose(stream, at, at + 1234);
                offsets[usize::from(*err)] += 1234;
            }
            run.push(stream, data);
            offsets[usize::from(*err)] += data.len() as u64;
        }
        let pending = if ended {
            run.finish_ended(&RunEnd::new(Some(1), false))
        } else {
            run.finish()
        };
        let pending = pending.expect("80 tokens hold a cut beside a loss line");
        for view in View::ALL {
            let p = pending.render(view, outcome.clone(), None);
            check(&p, limits)?;
            if !pending.needs_spill(view) {
                prop_assert!(!p.truncated);
            }
        }
    }
}

#[test]
fn too_few_tokens_for_a_cut_is_invalid_limits_and_input_that_fits_is_not() {
    let limits = Limits::new(100, 4096).with_max_tokens(MIN_MAX_BYTES - 1, Tokenizer::Approx);
    let err = Bounder::with_limits(limits)
        .bound("word ".repeat(200).as_bytes())
        .unwrap_err();
    assert_eq!(err.code(), "invalid_limits");
    assert!(err.to_string().contains("max_tokens=31"), "{err}");
    let fits = Bounder::with_limits(limits).bound(b"ok\n").unwrap();
    let Bounded::Fits(p) = fits else {
        panic!("fits")
    };
    assert_eq!(p.tokens, Some(Tokenizer::Approx.count("ok\n") as u64));
}

#[test]
fn input_within_bytes_but_over_tokens_is_cut() {
    // 2,000 bytes of short words: far more tokens than bytes / 4.
    let input: String = (0..400).map(|i| format!("{} ", i % 10)).collect::<String>() + "\nend\n";
    let limits = Limits::new(100, 4096).with_max_tokens(100, Tokenizer::Approx);
    let bounded = Bounder::with_limits(limits)
        .bound(input.as_bytes())
        .unwrap();
    let Bounded::NeedsSpill(pending) = bounded else {
        panic!("must be cut by tokens")
    };
    let p = pending.render(SpillOutcome::NotSaved, None);
    assert!(p.truncated);
    assert!(p.tokens.unwrap() <= 100);
    assert!(p.text.ends_with("end\n"), "{:?}", p.text);
}

#[test]
fn a_tokenizer_without_a_limit_only_counts() {
    let limits = Limits::new(10, 200).with_max_tokens(usize::MAX, Tokenizer::Approx);
    let input = "line\n".repeat(100);
    let p = Bounder::with_limits(limits)
        .bound(input.as_bytes())
        .unwrap()
        .render(SpillOutcome::NotSaved, None);
    let plain = Bounder::new(10, 200)
        .bound(input.as_bytes())
        .unwrap()
        .render(SpillOutcome::NotSaved, None);
    assert_eq!(p.text, plain.text);
    assert_eq!(p.tokens, Some(Tokenizer::Approx.count(&p.text) as u64));
}
