//! Property tests of the spill search (`dory_wire::search`): streaming equals
//! whole for every split, both limits held, every shown line is a line of
//! the input with its number, the counts add up, memory stays bounded.

use dory_wire::search::{SearchOptions, SearchResult, Searcher, MAX_MATCH_BYTES};
use proptest::prelude::*;

fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-e ]{0,12}".prop_map(String::into_bytes),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just("😀".as_bytes().to_vec()),
        1 => Just("é".as_bytes().to_vec()),
        1 => prop::sample::select(vec![b"\xff".to_vec(), b"\xe2\x82".to_vec(), b"\xf0\x9f\x98".to_vec()]),
        1 => (1usize..600, prop::sample::select(vec![b'a', b'\r', 0xff])).prop_map(|(n, b)| vec![b; n]),
        1 => prop::collection::vec(any::<u8>(), 0..32),
    ]
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(fragment(), 0..80).prop_map(|parts| parts.concat())
}

fn options() -> impl Strategy<Value = SearchOptions> {
    (
        2usize..30,
        prop_oneof![80usize..200, 200usize..2000],
        0usize..4,
        any::<bool>(),
    )
        .prop_map(
            |(max_lines, max_bytes, context, ignore_case)| SearchOptions {
                context: context.min(max_lines - 1),
                max_lines,
                max_bytes,
                ignore_case,
            },
        )
}

fn pattern() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a",
        "b c",
        "^d",
        "e$",
        "",
        "é|😀",
        "[ab]{3}",
        "zzz",
        "(?-u:\\xff)",
        "A",
    ])
    .prop_map(str::to_owned)
}

fn run(pattern: &str, options: SearchOptions, input: &[u8], cuts: &[usize]) -> SearchResult {
    let mut s = Searcher::new(pattern, options).expect("a valid pattern");
    let mut at = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        let cut = cut.clamp(at, input.len());
        s.push(&input[at..cut]);
        at = cut;
    }
    s.finish(Some("/w/it's out.txt"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn streaming_equals_whole(
        input in input(),
        options in options(),
        pattern in pattern(),
        mut cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let whole = run(&pattern, options, &input, &[]);
        let mut cuts: Vec<usize> = cuts.drain(..).map(|i| i.index(input.len() + 1)).collect();
        cuts.sort_unstable();
        prop_assert_eq!(&run(&pattern, options, &input, &cuts), &whole);
        let bytewise: Vec<usize> = (0..input.len()).collect();
        prop_assert_eq!(&run(&pattern, options, &input, &bytewise), &whole);

        // Limits and accounting.
        prop_assert!(whole.text.len() <= options.max_bytes, "{}", whole.text);
        prop_assert!(whole.text.matches('\n').count() <= options.max_lines);
        prop_assert!(whole.text.is_empty() || whole.text.ends_with('\n'));
        prop_assert_eq!(whole.shown_lines + whole.omitted_lines, whole.matched_lines);
        prop_assert_eq!(whole.total_bytes, input.len() as u64);

        // The reference: the lines of the input, matched one by one.
        let regex = regex::bytes::RegexBuilder::new(&pattern)
            .case_insensitive(options.ignore_case)
            .build()
            .expect("valid");
        let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
        if input.is_empty() || input.ends_with(b"\n") {
            lines.pop();
        }
        let last = lines.len();
        let texts: Vec<&[u8]> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| if i + 1 < last || input.ends_with(b"\n") { l.strip_suffix(b"\r").unwrap_or(l) } else { l })
            .collect();
        prop_assert_eq!(whole.total_lines, texts.len() as u64);
        let matched: Vec<usize> = texts
            .iter()
            .enumerate()
            .filter(|(_, t)| regex.is_match(&t[..t.len().min(MAX_MATCH_BYTES)]))
            .map(|(i, _)| i + 1)
            .collect();
        prop_assert_eq!(whole.matched_lines, matched.len() as u64);
        let untruncated = !whole.truncated && whole.matched_lines > 0 && whole.long_lines == 0;
        prop_assert_eq!(untruncated, !whole.text.contains("\n[... ") && !whole.text.starts_with("[... "));
        for line in whole.text.split_terminator('\n') {
            if line == "--" || line.starts_with("[... ") {
                continue;
            }
            let at = line.find([':', '-']).expect("a marker");
            let n: usize = line[..at].parse().expect("a number");
            let text = String::from_utf8_lossy(texts[n - 1]);
            prop_assert!(text.starts_with(&line[at + 1..]), "{} vs {:?}", line, text);
            prop_assert_eq!(&line[at..at + 1] == ":", matched.contains(&n), "{}", line);
            if whole.partial_line != Some(n as u64) {
                prop_assert_eq!(&line[at + 1..], &*text);
            }
        }
    }
}

#[test]
fn memory_is_bounded_whatever_the_input() {
    let options = SearchOptions {
        context: 5,
        ..SearchOptions::default()
    };
    let mut s = Searcher::new("x", options).expect("valid");
    let line = vec![b'x'; 100_000];
    for i in 0..200 {
        s.push(&line);
        if i % 3 == 0 {
            s.push(b"\n");
        }
        assert!(
            s.buffered_bytes() < 6 * options.max_bytes + 2 * MAX_MATCH_BYTES,
            "{}",
            s.buffered_bytes()
        );
    }
    let r = s.finish(None);
    assert!(r.long_lines > 0);
    assert!(r.text.len() <= options.max_bytes);
}
