//! The options of the WIT interface `dory:wire/preview` (its
//! `preview-options`, `keep` and the limits) as the core's, and the core's
//! run preset as `preview-options`: the bounders' arguments, as
//! `bindings/python/src/preview/args.rs` is for Python. Every value is
//! checked by the core (its `invalid_limits` or `invalid_argument`).
#![forbid(unsafe_code)]

use dory_wire::preview::{Keep, Limits, Split, TokenLimit};

use crate::bindings::exports::dory::wire::preview as wit;
use crate::bindings::exports::dory::wire::types::Error as WitError;
use crate::convert;

/// A search count from the host, saturated to the guest's address space (a
/// larger one cannot be reached by any input the guest can hold).
pub fn limit(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// A preview limit from the host, checked by the core as in every language
/// (`preview::checked_limit`: 0 to `MAX_LIMIT`, else `invalid-limits`).
/// Above 2^53 the `f64` is rounded, and out of range all the same (shared
/// with [`crate::run_bounder`] and [`crate::run`]).
pub fn preview_limit(n: u64, name: &str) -> Result<usize, WitError> {
    dory_wire::preview::checked_limit(n as f64, name).map_err(|e| convert::error(&e))
}

/// The WIT `max-tokens` and `tokenizer` as the core's token limit, by the
/// core's one rule for every binding (`preview::token_limit`: none and none
/// is no limit, a tokenizer alone only counts, `max-tokens` alone uses the
/// core's default tokenizer); `max-tokens` is checked as the other limits
/// (`checked_limit`). Errors: the core's `invalid_limits`, or
/// `invalid_argument` (argument `tokenizer`) for a name this build lacks.
pub fn token_limit(
    max_tokens: Option<u32>,
    tokenizer: Option<&str>,
) -> Result<Option<TokenLimit>, WitError> {
    let max_tokens = max_tokens
        .map(|n| dory_wire::preview::checked_limit(f64::from(n), "max-tokens"))
        .transpose()
        .map_err(|e| convert::error(&e))?;
    dory_wire::preview::token_limit(max_tokens, tokenizer).map_err(|e| convert::error(&e))
}

/// A core token limit as the WIT `max-tokens` and `tokenizer` (a limit
/// that only counts has no `max-tokens`).
fn token_options(tokens: Option<TokenLimit>) -> (Option<u32>, Option<String>) {
    match tokens {
        Some(t) => (
            u32::try_from(t.max_tokens).ok(),
            Some(t.tokenizer.name().to_owned()),
        ),
        None => (None, None),
    }
}

/// A bounder's limits and options from the WIT (shared with
/// [`crate::run_bounder`]).
#[derive(Debug)]
pub struct Options {
    /// Lines, bytes, split and tokens.
    pub limits: Limits,
    /// The lines kept from the omitted middle.
    pub keep: Keep,
    /// Terminal rendering.
    pub terminal: bool,
}

/// The limits `max-lines` and `max-bytes` and the WIT `preview-options` as
/// the core's (shared with [`crate::run_bounder`]), every value checked by
/// the core: a refused keep pattern or tokenizer is its `invalid_argument`, a
/// limit out of range its `invalid_limits`.
pub fn options(
    max_lines: u64,
    max_bytes: u64,
    options: wit::PreviewOptions,
) -> Result<Options, WitError> {
    let split = match options.split {
        wit::Split::Even => Split::Even,
        wit::Split::Tail => Split::Tail,
    };
    let keep = keep(options.keep)?;
    let limits = Limits::new(
        preview_limit(max_lines, "max-lines")?,
        preview_limit(max_bytes, "max-bytes")?,
    )
    .with_split(split)
    .with_token_limit(token_limit(
        options.max_tokens,
        options.tokenizer.as_deref(),
    )?);
    Ok(Options {
        limits,
        keep,
        terminal: options.terminal,
    })
}

/// The WIT `preview-options` of the core's `Bounder::run_preset`.
pub fn run_preset() -> wit::PreviewOptions {
    let preset = dory_wire::preview::Bounder::run_preset(1, dory_wire::preview::MIN_MAX_BYTES);
    let keep = if *preset.keep() == Keep::defaults() {
        wit::Keep::Defaults
    } else if preset.keep().is_none() {
        wit::Keep::None
    } else {
        wit::Keep::Patterns(preset.keep().as_slice().to_vec())
    };
    let (max_tokens, tokenizer) = token_options(preset.limits().tokens());
    wit::PreviewOptions {
        keep,
        terminal: preset.terminal(),
        split: match preset.limits().split() {
            Split::Even => wit::Split::Even,
            Split::Tail => wit::Split::Tail,
        },
        max_tokens,
        tokenizer,
    }
}

/// The WIT `keep` as the core's (shared with [`crate::run`]); a
/// refused pattern is the core's `invalid_argument`.
pub fn keep(keep: wit::Keep) -> Result<Keep, WitError> {
    Ok(match keep {
        wit::Keep::None => Keep::none(),
        wit::Keep::Defaults => Keep::defaults(),
        wit::Keep::Patterns(patterns) => {
            Keep::patterns(patterns).map_err(|e| convert::error(&e))?
        }
    })
}
