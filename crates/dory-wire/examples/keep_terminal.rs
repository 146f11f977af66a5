//! A real log before and after the preview's `keep` and `terminal` options:
//! `cargo run -p dory-wire --example keep_terminal [LOG] [MAX_LINES]
//! [MAX_BYTES]` (default: the corpus's failing `cargo test`, recorded on a
//! terminal, bounded to 24 lines / 2 KiB). The plain preview keeps a head
//! and a tail, colour codes and all; with the default keep patterns and
//! terminal rendering, the failures from the middle are kept with their line
//! numbers and the escapes are gone, said in the notice.

use std::path::PathBuf;
use std::process::ExitCode;

use dory_wire::preview::{Keep, SpillOutcome, StreamingBounder};

fn preview(data: &[u8], max_lines: usize, max_bytes: usize, on: bool) -> Result<String, String> {
    let keep = if on { Keep::defaults() } else { Keep::none() };
    let mut bounder = StreamingBounder::new(max_lines, max_bytes)
        .with_keep(keep)
        .with_terminal(on)
        .with_spill_id("cargo-test");
    bounder.push(data);
    let bounded = bounder.finish().map_err(|e| e.to_string())?;
    let outcome = SpillOutcome::Saved {
        path: "/spill/cargo-test.txt".into(),
    };
    Ok(bounded.render(outcome, None).text.into_owned())
}

/// The text with its control bytes made visible (`\r`, `\e`), as a model
/// would receive them.
fn visible(text: &str) -> String {
    text.replace('\u{1b}', "\\e").replace('\r', "\\r")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/logs/cargo_test_fail.log")
    });
    let number =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (max_lines, max_bytes) = (number(1, 24), number(2, 2048));
    let data = match std::fs::read(&path) {
        Ok(data) => data,
        Err(e) => {
            eprintln!("keep_terminal: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    println!(
        "{} bytes, {} lines; bounded to {max_lines} lines / {max_bytes} bytes",
        data.len(),
        data.iter().filter(|&&b| b == b'\n').count()
    );
    for (title, on) in [
        (
            "before: head and tail (control bytes shown as \\e, \\r)",
            false,
        ),
        ("after: keep = the default patterns, terminal = true", true),
    ] {
        match preview(&data, max_lines, max_bytes, on) {
            Ok(text) => println!("--- {title}\n{}", visible(&text)),
            Err(e) => {
                eprintln!("keep_terminal: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
