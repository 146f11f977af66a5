//! Preview quality on the labeled corpus of real failures (tests/corpus):
//! `run`'s previews must show why a command failed at least as often as
//! the simplest peers do, at every budget (`dory_bench::quality`). The full
//! table is `dory-bench quality`'s, printed by `make bench`.

use std::path::Path;

use dory_bench::quality::{self, Strategy};

fn corpus() -> Vec<quality::Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    quality::load(&dir).expect("the corpus loads")
}

#[test]
fn the_corpus_has_labeled_cut_logs() {
    let cases = corpus();
    assert!(cases.len() >= 10, "only {} labeled logs", cases.len());
    let q = quality::measure(&cases);
    for ((lines, bytes), tallies) in &q.rows {
        for (_, t) in tallies {
            assert!(
                t.total() >= 3,
                "{lines}/{bytes}: only {} cut logs",
                t.total()
            );
        }
    }
}

#[test]
fn run_previews_are_never_behind_head_and_tail_or_tail_only() {
    let cases = corpus();
    let q = quality::measure(&cases);
    let report = quality::report(&q, cases.len());
    println!("{report}");
    for ((lines, bytes), tallies) in &q.rows {
        let get = |w: Strategy| tallies.iter().find(|(s, _)| *s == w).unwrap().1;
        let run = get(Strategy::Run);
        for peer in [Strategy::HeadTail, Strategy::TailOnly, Strategy::HeadOnly] {
            let p = get(peer);
            assert!(
                run.fully >= p.fully,
                "{lines}/{bytes}: run shows {} logs fully, {} {}\n{report}",
                run.fully,
                peer.name(),
                p.fully
            );
            assert!(
                run.none <= p.none,
                "{lines}/{bytes}: run shows none of {} logs, {} of {}\n{report}",
                run.none,
                peer.name(),
                p.none
            );
        }
    }
}
