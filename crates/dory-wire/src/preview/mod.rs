//! The preview bounder: a bounded head + tail preview of a large output, with
//! exact accounting and a one-line notice pointing at the full output, saved
//! ("spilled") by the caller. The contract is `docs/preview.md`.
//!
//! - **Hard ceiling**: a preview never exceeds `max_lines` lines or `max_bytes`
//!   bytes (rendered UTF-8, notice and separators included), for every input,
//!   limit pair, spill path and hint.
//! - Input that fits comes back unchanged (rendered with U+FFFD for invalid
//!   UTF-8), whatever the limits. Otherwise: a head (prefix), the notice on
//!   its own line, a tail (suffix). Whole lines are kept while they fit, the
//!   budget left shows part of a line (cut between characters, never inside
//!   a `\r\n`), and the tail is preferred when only one side fits. A cut
//!   needs `max_lines ≥ 1` and `max_bytes ≥` [`MIN_MAX_BYTES`]; below that,
//!   input that does not fit is refused with `invalid_limits`.
//! - Deterministic, and idempotent: bounding a preview again with the same
//!   limits returns it unchanged.
//! - Sans-IO: [`Bounded::NeedsSpill`] asks the caller to save the full output
//!   under an id; [`PendingSpill::render`] takes the [`SpillOutcome`].
//! - [`StreamingBounder`] gives the same bytes from chunks, in memory
//!   proportional to the limits.
//!
//! ```
//! use dory_wire::preview::{Bounded, Bounder, SpillOutcome};
//!
//! let bounder = Bounder::new(4, 300);
//! let output = "compiling…\n".repeat(1000) + "error: it broke\n";
//! let preview = match bounder.bound(output.as_bytes())? {
//!     Bounded::Fits(preview) => preview,
//!     Bounded::NeedsSpill(pending) => {
//!         // Save `output` somewhere named after `pending.spill_id()`, then:
//!         let path = format!("/tmp/spill/{}.txt", pending.spill_id());
//!         pending.render(SpillOutcome::Saved { path }, None)
//!     }
//! };
//! assert!(preview.text.ends_with("error: it broke\n"));
//! assert!(preview.text.len() <= 300);
//! # Ok::<(), dory_wire::Error>(())
//! ```

mod bounded;
mod bounder;
mod count;
mod digest;
mod fit;
mod keep;
mod limits;
mod notice;
mod plan;
mod prefilter;
mod render;
mod result;
mod ring;
mod run_bounder;
mod shape;
mod spill;
mod stream;
mod terminal;

pub use bounded::{Bounded, PendingSpill};
pub use bounder::Bounder;
pub use keep::Keep;
pub use limits::{
    checked_limit, count_tokens, token_limit, tokenizers, Limits, Split, TokenLimit,
    DEFAULT_TOKENIZER, MAX_LIMIT, MIN_MAX_BYTES,
};
pub(crate) use result::push_json_str;
pub use result::{Notice, NoticeKind, Preview};
pub use run_bounder::{
    run_spill_id, RunBounder, RunEnd, RunPending, View, DEFAULT_RUN_MAX_BYTES,
    DEFAULT_RUN_MAX_LINES, MIN_RUN_MAX_BYTES,
};
pub use spill::{spill_file_name, SpillError, SpillOutcome, MAX_SPILL_ID_LEN};
pub use stream::StreamingBounder;
