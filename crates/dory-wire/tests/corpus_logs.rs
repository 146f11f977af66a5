//! The real logs of `tests/corpus` (real tools, recorded on a terminal or a
//! pipe: `tests/corpus/README.md`) through the streaming bounder with the
//! default keep patterns and terminal rendering, cut to a small preview:
//! every failure the log holds is in the preview, even from the middle
//! (where a plain head + tail loses at least one), and a terminal's redraws
//! and escapes are gone from the text, said in its terminal line.

use std::path::PathBuf;

use dory_wire::preview::{Keep, SpillOutcome, StreamingBounder};

/// A preview an agent's model might get for a tool call.
const MAX_LINES: usize = 40;
const MAX_BYTES: usize = 4096;

fn log(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/logs")
        .join(format!("{name}.log"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn preview(data: &[u8], keep: Keep, terminal: bool) -> String {
    let mut bounder = StreamingBounder::new(MAX_LINES, MAX_BYTES)
        .with_keep(keep)
        .with_terminal(terminal)
        .with_spill_id("corpus");
    // Chunks the size a socket gives.
    for chunk in data.chunks(1500) {
        bounder.push(chunk);
    }
    let bounded = bounder.finish().expect("the limits leave room for a cut");
    let outcome = SpillOutcome::Saved {
        path: "/spill/corpus.txt".into(),
    };
    bounded.render(outcome, None).text.into_owned()
}

/// (log, the failure lines a preview must keep, as the model reads them).
const FAILURES: &[(&str, &[&str])] = &[
    (
        "pytest_fail",
        &[
            "tests/test_m3_gamma.py::test_gamma_017 FAILED",
            "tests/test_m3_gamma.py::test_gamma_034 FAILED",
            "E       assert 1257 == 1275",
            "FAILED tests/test_m3_gamma.py::test_gamma_017",
        ],
    ),
    (
        "cargo_test_fail",
        &[
            "test tests::case_087 ... FAILED",
            "test tests::case_131 ... FAILED",
            "panicked at src/lib.rs:462:9:",
            "panicked at src/lib.rs:683:9:",
        ],
    ),
    (
        "bash_set_x_fail",
        &[
            "frobnicate: command not found",
            "build/missing-manifest.txt: No such file or directory",
        ],
    ),
    (
        "python_traceback",
        &[
            "Traceback (most recent call last):",
            "ValueError: invalid amount '12x' in record 1001: expected an integer",
        ],
    ),
    (
        "tsc_build_plain",
        &[
            "pkg_b/src/mod_03.ts(16,14): error TS2322:",
            "pkg_c/src/mod_06.ts(16,29): error TS2345:",
            "pkg_d/src/mod_02.ts(17,17): error TS2339:",
        ],
    ),
    (
        "tsc_build_pretty",
        &["error TS2322: ", "error TS2345: ", "error TS2339: "],
    ),
];

#[test]
fn the_default_patterns_keep_every_failure_of_each_real_log() {
    for (name, failures) in FAILURES {
        let data = log(name);
        let kept = preview(&data, Keep::defaults(), true);
        for failure in *failures {
            assert!(
                kept.contains(failure),
                "{name}: {failure:?} is not in the preview:\n{kept}"
            );
        }
        assert!(kept.len() <= MAX_BYTES && kept.lines().count() <= MAX_LINES);
    }
}

#[test]
fn without_the_patterns_a_head_and_tail_loses_a_failure_from_the_middle() {
    // The logs whose failures are in the middle: the plain preview (the same
    // rendering, no keep patterns) misses at least one, so the test above
    // shows what the patterns do.
    for (name, failures) in FAILURES {
        if *name == "python_traceback" {
            continue; // its traceback ends the output: the tail has it anyway
        }
        let plain = preview(&log(name), Keep::none(), true);
        assert!(
            failures.iter().any(|f| !plain.contains(f)),
            "{name}: the plain preview already has every failure"
        );
    }
}

#[test]
fn terminal_rendering_collapses_the_progress_of_real_logs() {
    for name in [
        "pip_install_progress",
        "npm_install_progress",
        "cargo_test_fail",
        "tsc_build_pretty",
    ] {
        let data = log(name);
        assert!(data.contains(&0x1b), "{name} has escapes to remove");
        let rendered = preview(&data, Keep::defaults(), true);
        assert!(
            !rendered.contains('\u{1b}'),
            "{name}: an escape is left:\n{rendered}"
        );
        assert!(
            !rendered.contains("\r"),
            "{name}: a carriage return is left:\n{rendered}"
        );
        assert!(
            rendered.contains("[... terminal: "),
            "{name}: the preview does not say what rendering removed:\n{rendered}"
        );
        // The raw preview of the same log keeps the escapes.
        let raw = preview(&data, Keep::defaults(), false);
        assert!(
            raw.contains('\u{1b}'),
            "{name}: the raw preview has no escape"
        );
    }
    // pip's progress bar, redrawn in place with `\r`: the redraws are said.
    let pip = preview(&log("pip_install_progress"), Keep::defaults(), true);
    assert!(pip.contains("redraws collapsed"), "{pip}");
    assert!(pip.contains("Successfully installed "), "{pip}");
}
