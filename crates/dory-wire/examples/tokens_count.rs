//! Counts the tokens of standard input: `tokens_count [TOKENIZER]`, where
//! the tokenizer is `approx` (the default, always built) or, with the
//! feature `tokens`, `o200k_base` or `cl100k_base`.
//!
//! `cargo run --release -p dory-wire --features tokens --example tokens_count o200k_base < LOG`
//!
//! Built with and without the feature, it measures what the vocabularies
//! add to a release binary (`docs/tokens-design.md`).

use std::io::Read;
use std::process::ExitCode;

use dory_wire::tokens::Tokenizer;

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_else(|| "approx".into());
    let tokenizer = match Tokenizer::from_name(&name) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("cannot read standard input: {e}");
        return ExitCode::FAILURE;
    }
    let text = String::from_utf8_lossy(&input);
    println!("{}", tokenizer.count(&text));
    ExitCode::SUCCESS
}
