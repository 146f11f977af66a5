//! Every fuzz target's checks as ordinary tests, so that they run where
//! cargo-fuzz (nightly) is missing — in `make test` on every machine:
//! each target's check over its corpus and crash artifacts when a local
//! fuzzing run left them (`corpus/<target>/`, `artifacts/<target>/`, both
//! gitignored), and always over a fixed, seeded set of inputs (the same on
//! every machine): random bytes, and random bytes behind each target's
//! vector seeds' first bytes, so that every configuration byte is tried.

use std::path::Path;

type Check = fn(&[u8]);

const TARGETS: [(&str, Check); 8] = [
    ("reader", dory_wire_fuzz::reader::check),
    ("document", dory_wire_fuzz::document::check),
    ("differential", dory_wire_fuzz::differential::check),
    ("bounder", dory_wire_fuzz::preview::check_whole),
    (
        "streaming_bounder",
        dory_wire_fuzz::preview::check_streaming,
    ),
    ("run_bounder", dory_wire_fuzz::run::check_run),
    ("conversation", dory_wire_fuzz::conversation::check),
    ("run_conversation", dory_wire_fuzz::run_conversation::check),
];

/// Seeded inputs per target (SplitMix64: the same everywhere).
const SEEDED: usize = 3_000;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn seeded_inputs(seed: u64) -> Vec<Vec<u8>> {
    let mut state = seed;
    (0..SEEDED)
        .map(|_| {
            let len = (splitmix(&mut state) % 400) as usize;
            (0..len).map(|_| splitmix(&mut state) as u8).collect()
        })
        .collect()
}

fn replay_dir(dir: &Path, check: Check) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() {
            let data = std::fs::read(&path).expect("a corpus file");
            check(&data);
            n += 1;
        }
    }
    n
}

#[test]
fn every_target_holds_on_its_corpus_and_on_seeded_inputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (i, (name, check)) in TARGETS.iter().enumerate() {
        let local = replay_dir(&root.join("corpus").join(name), *check)
            + replay_dir(&root.join("artifacts").join(name), *check);
        for input in seeded_inputs(0xD0_27 + i as u64) {
            check(&input);
        }
        eprintln!("{name}: {SEEDED} seeded inputs, {local} from a local corpus");
    }
}
