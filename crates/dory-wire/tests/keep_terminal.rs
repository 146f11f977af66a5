//! Property tests of the bounders' `keep` and `terminal` options
//! (docs/preview.md, "Kept lines" and "Terminal rendering"): the hard
//! ceiling, streaming = whole for every split, kept lines that are omitted
//! lines matching a pattern with their raw line numbers, rendered line
//! numbers equal to the raw ones, bounded memory, and both options off by
//! default.

use dory_wire::preview::{
    Bounded, Bounder, Keep, RunBounder, SpillOutcome, StreamingBounder, View, MIN_MAX_BYTES,
};
use dory_wire::Stream;
use proptest::prelude::*;

/// Input fragments: failures, escape sequences, redraws, awkward bytes.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z ]{0,12}".prop_map(String::into_bytes),
        4 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        2 => Just(b"\r".to_vec()),
        2 => prop::sample::select(vec![
            b"error[E0308]: mismatched types".to_vec(),
            b"FAILED tests/test_a.py::test_x - assert 1 == 2".to_vec(),
            b"E       assert 1 == 2".to_vec(),
            b"thread 'main' panicked at src/main.rs:2:5:".to_vec(),
            b"ValueError: bad".to_vec(),
            b"npm ERR! code E404".to_vec(),
            b"warning: unused".to_vec(),
            b"0 errors".to_vec(),
        ]),
        2 => prop::sample::select(vec![
            b"\x1b[31m".to_vec(),
            b"\x1b[0m".to_vec(),
            b"\x1b[2K".to_vec(),
            b"\x1b]0;title\x07".to_vec(),
            b"\x1b]8;;http://x\x1b\\".to_vec(),
            b"\x1b(B".to_vec(),
            b"\x1b".to_vec(),
            b"\x08".to_vec(),
            b"\x00".to_vec(),
        ]),
        1 => Just("😀".as_bytes().to_vec()),
        1 => Just(b"\xff\xe2\x82".to_vec()),
        1 => (1usize..2000, prop::sample::select(vec![b'x', b'\r', b'\n']))
            .prop_map(|(n, b)| vec![b; n]),
        1 => prop::collection::vec(any::<u8>(), 0..32),
    ]
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(fragment(), 0..150).prop_map(|parts| parts.concat())
}

fn limits() -> impl Strategy<Value = (usize, usize)> {
    (
        prop_oneof![2 => 1usize..12, 1 => 12usize..400],
        prop_oneof![1 => MIN_MAX_BYTES..120, 3 => 120usize..1500, 1 => 1500usize..5000],
    )
}

fn keep() -> impl Strategy<Value = Keep> {
    prop_oneof![
        1 => Just(Keep::none()),
        3 => Just(Keep::defaults()),
        1 => Just(Keep::patterns(["^[a-z]+ x", "it's"]).expect("valid")),
    ]
}

fn outcome() -> impl Strategy<Value = SpillOutcome> {
    prop_oneof![
        1 => Just(SpillOutcome::NotSaved),
        3 => "/[a-z0-9/._-]{0,40}".prop_map(|path| SpillOutcome::Saved { path }),
        1 => "/tmp/[a-z' ]{0,20}".prop_map(|path| SpillOutcome::Saved { path }),
    ]
}

fn lines(text: &str) -> usize {
    text.matches('\n').count() + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

fn streamed(
    bounder: StreamingBounder,
    data: &[u8],
    splits: &[usize],
) -> Result<Bounded<'static>, dory_wire::Error> {
    let mut bounder = bounder;
    let mut at = 0;
    for &n in splits {
        let end = (at + n).min(data.len());
        bounder.push(&data[at..end]);
        at = end;
    }
    bounder.push(&data[at..]);
    bounder.finish()
}

/// The raw input's lines, 1-based, without their line ends.
fn raw_lines(data: &[u8]) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if data.is_empty() || data.ends_with(b"\n") {
        out.pop();
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn ceiling_and_streaming_equal_whole(
        data in input(),
        (max_lines, max_bytes) in limits(),
        keep in keep(),
        terminal in any::<bool>(),
        outcome in outcome(),
        splits in prop::collection::vec(0usize..200, 0..40),
    ) {
        let bounder = Bounder::new(max_lines, max_bytes).with_keep(keep).with_terminal(terminal);
        let whole = bounder.bound(&data).map(Bounded::into_owned);
        let stream = streamed(bounder.streaming(), &data, &splits);
        prop_assert_eq!(&whole, &stream);
        let mut bytewise = bounder.streaming();
        for b in &data {
            bytewise.push(std::slice::from_ref(b));
        }
        if data.len() < 1500 {
            prop_assert_eq!(&whole, &bytewise.finish());
        }
        let Ok(bounded) = whole else { return Ok(()) };
        let p = bounded.render(outcome, Some("read it"));
        prop_assert!(p.text.len() <= max_bytes, "{} > {}: {:?}", p.text.len(), max_bytes, p.text);
        prop_assert!(lines(&p.text) <= max_lines, "{} lines > {}: {:?}", lines(&p.text), max_lines, p.text);
        prop_assert_eq!(p.head_bytes + p.omitted_bytes + p.tail_bytes, p.total_bytes);
    }

    #[test]
    fn kept_lines_are_omitted_matching_raw_lines(
        data in input(),
        (max_lines, max_bytes) in limits(),
        outcome in outcome(),
    ) {
        let keep = Keep::defaults();
        let bounder = Bounder::new(max_lines, max_bytes).with_keep(keep.clone());
        let Ok(bounded) = bounder.bound(&data) else { return Ok(()) };
        let p = bounded.render(outcome, None);
        let raw = raw_lines(&data);
        let text = p.text.to_string();
        let Some(at) = text.find("[... kept ") else { return Ok(()) };
        let (first, last) = p.omitted_range.expect("a section only in a cut");
        let header = &text[at..at + text[at..].find('\n').unwrap_or(text.len() - at)];
        let kept: u64 = header["[... kept ".len()..].split(' ').next().unwrap().parse().unwrap();
        // The rows: `N:text` (a kept line, ` [×K]` when it stands for K
        // lines of the same text) and `N-text` (a context line), in line
        // order, all omitted.
        let mut rows: Vec<(u64, bool, &str)> = Vec::new();
        for line in text[at + header.len() + 1..].lines() {
            let Some(pos) = line.find([':', '-']) else { break };
            let Ok(n) = line[..pos].parse::<u64>() else { break };
            if rows.last().is_some_and(|r| r.0 >= n) || !(first..=last).contains(&n) {
                break;
            }
            rows.push((n, line.as_bytes()[pos] == b':', &line[pos + 1..]));
        }
        let mut matching = 0u64;
        for (i, line) in raw.iter().enumerate() {
            let n = i as u64 + 1;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if (first..=last).contains(&n) && regex_match(&keep, line) {
                matching += 1;
            }
        }
        let mut stands_for = 0u64;
        for (n, is_kept, shown) in &rows {
            let line = raw[*n as usize - 1];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            prop_assert_eq!(regex_match(&keep, line), *is_kept, "line {}", n);
            let mut shown = *shown;
            if *is_kept {
                let mut count = 1;
                if let Some((text, times)) = shown.rsplit_once(" [×") {
                    if let Some(k) = times.strip_suffix(']').and_then(|k| k.parse::<u64>().ok()) {
                        count = k;
                        shown = text;
                    }
                }
                stands_for += count;
            }
            let shown = shown.strip_suffix('…').unwrap_or(shown);
            prop_assert!(String::from_utf8_lossy(line).starts_with(shown), "line {}: {:?}", n, shown);
        }
        prop_assert_eq!(stands_for, kept, "{}", header);
        let more = header
            .split(", ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0);
        prop_assert_eq!(kept + more, matching, "{}", header);
    }

    #[test]
    fn rendered_lines_are_raw_lines(data in input(), max_bytes in 2000usize..6000) {
        // With room for everything, the rendering has the raw input's lines
        // (a last line rendered empty aside) and its notice numbers them so.
        let raw = raw_lines(&data);
        let bounder = Bounder::new(3, max_bytes).with_terminal(true);
        let Ok(bounded) = bounder.bound(&data) else { return Ok(()) };
        let p = bounded.render(SpillOutcome::NotSaved, None);
        let total = raw.len() as u64;
        prop_assert!(p.total_lines == total || p.total_lines + 1 == total);
        for (i, line) in p.text.lines().enumerate() {
            if line.starts_with("[... ") {
                continue;
            }
            prop_assert!(!line.contains('\u{1b}') && !line.contains('\r'), "line {}: {:?}", i, line);
        }
    }

    #[test]
    fn off_is_the_plain_bounder(data in input(), (max_lines, max_bytes) in limits(), outcome in outcome()) {
        let plain = Bounder::new(max_lines, max_bytes);
        let off = plain.clone().with_keep(Keep::none()).with_terminal(false);
        let a = plain.bound(&data).map(|b| b.render(outcome.clone(), None));
        let b = off.bound(&data).map(|b| b.render(outcome, None));
        prop_assert_eq!(a, b);
    }

    #[test]
    fn run_views_stay_within_limits(
        chunks in prop::collection::vec((any::<bool>(), input()), 0..6),
        (max_lines, max_bytes) in (2usize..60, 80usize..3000),
        terminal in any::<bool>(),
        outcome in outcome(),
    ) {
        let mut run = RunBounder::new(max_lines, max_bytes)
            .with_spill_id("run-1")
            .with_keep(Keep::defaults())
            .with_terminal(terminal);
        for (err, data) in &chunks {
            let stream = if *err { Stream::Stderr } else { Stream::Stdout };
            run.push(stream, data);
        }
        let Ok(pending) = run.finish() else { return Ok(()) };
        for view in View::ALL {
            let p = pending.render(view, outcome.clone(), None);
            prop_assert!(p.text.len() <= max_bytes, "{:?} {} > {}", view, p.text.len(), max_bytes);
            prop_assert!(lines(&p.text) <= max_lines, "{:?}", view);
        }
    }
}

fn regex_match(keep: &Keep, line: &[u8]) -> bool {
    // An independent check: the default patterns, each compiled here once.
    static DEFAULTS: std::sync::OnceLock<Vec<regex::bytes::Regex>> = std::sync::OnceLock::new();
    assert_eq!(keep.as_slice(), Keep::DEFAULT_PATTERNS);
    let all = DEFAULTS.get_or_init(|| {
        Keep::DEFAULT_PATTERNS
            .iter()
            .map(|p| regex::bytes::Regex::new(p).expect("valid"))
            .collect()
    });
    all.iter()
        .any(|r| r.is_match(&line[..line.len().min(4096)]))
}

#[test]
fn a_million_redraws_cost_the_limits() {
    let mut bounder = StreamingBounder::new(20, 2000)
        .with_terminal(true)
        .with_keep(Keep::defaults());
    let mut most = 0;
    for i in 0..1_000_000u32 {
        bounder.push(format!("\r[{:>7}/1000000] \x1b[32mworking\x1b[0m", i).as_bytes());
        if i % 1000 == 0 {
            most = most.max(bounder.retained_bytes());
        }
    }
    bounder.push(b"\ndone\n");
    assert!(most <= 4 * 2000 + 16 + 2 * 8192 + 64, "{most}");
    let p = bounder
        .finish()
        .unwrap()
        .render(SpillOutcome::NotSaved, None);
    assert_eq!(
        p.text,
        "[ 999999/1000000] working\ndone\n[... terminal: 999999 redraws collapsed, 2000000 escape sequences removed ...]\n"
    );
}

#[test]
fn the_notice_points_grep_and_sed_at_the_spill() {
    let mut log = Vec::new();
    for i in 1..=2000 {
        if i == 900 {
            log.extend_from_slice(b"\x1b[1m\x1b[31merror[E0308]\x1b[0m: mismatched types\r\n");
        } else if i == 1200 {
            log.extend_from_slice(b"FAILED tests/test_it's.py::test_x - assert 1 == 2\n");
        } else {
            log.extend_from_slice(format!("\rstep {i}\r\x1b[2Kok {i}\n").as_bytes());
        }
    }
    // The section's quarter of 16000 bytes holds the default patterns'
    // grep command (its header takes at most half of the section).
    let bounder = Bounder::new(40, 16000)
        .with_keep(Keep::defaults())
        .with_terminal(true);
    let saved = SpillOutcome::Saved {
        path: "/w/out put.txt".into(),
    };
    let p = bounder.bound(&log).unwrap().render(saved, None);
    let text = p.text.to_string();
    assert!(text.len() <= 16000 && lines(&text) <= 40, "{text}");
    assert!(
        text.contains("\n900:error[E0308]: mismatched types\n"),
        "{text}"
    );
    assert!(text.contains("\n1200:FAILED tests/test_it's.py::test_x - assert 1 == 2\n"));
    assert!(text.contains(
        "\n[... kept 2 omitted lines matching the keep patterns; all matches: grep -n -a -E '(^(FAILED|ERROR) [^ ]+(::| - ))|"
    ), "{text}");
    assert!(text.contains("' '/w/out put.txt' ...]\n"));
    assert!(
        text.ends_with(
            "[... terminal: 1998 redraws collapsed, 2001 escape sequences removed ...]\n"
        ),
        "{text}"
    );
    // The notice's line numbers are the raw input's.
    let range = p.omitted_range.unwrap();
    assert!(text.contains(&format!(
        "sed -n '{},{}p' '/w/out put.txt'",
        range.0, range.1
    )));
    assert_eq!(p.total_lines, 2000);
}
