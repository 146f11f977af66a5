//! The preview limits: lines, bytes and, optionally, tokens. Every
//! combination is valid: input that fits comes back unchanged whatever the
//! limits; only a cut needs room for a notice.

use crate::error::Error;
use crate::tokens::Tokenizer;

/// The smallest `max_bytes` with which any input can be cut: room for the
/// minimal marker `[... omitted ...]` (17 bytes) with a margin, so that every
/// limit pair from `(1, MIN_MAX_BYTES)` up gives a preview of any input.
///
/// Below it (or with `max_lines = 0`), input that fits still comes back
/// unchanged; input that would need a cut is refused with `invalid_limits`.
pub const MIN_MAX_BYTES: usize = 32;

/// Limits on a whole preview, notice and separators included.
///
/// ```
/// use dory_wire::preview::{Limits, MIN_MAX_BYTES};
///
/// let limits = Limits::new(2000, 50 * 1024);
/// assert_eq!(limits.max_lines(), 2000);
/// assert!(limits.check_cut().is_ok());
/// let tiny = Limits::new(0, 10);
/// assert_eq!(tiny.check_cut().unwrap_err().code(), "invalid_limits");
/// assert!(Limits::new(1, MIN_MAX_BYTES).check_cut().is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    max_lines: usize,
    max_bytes: usize,
    split: Split,
    tokens: Option<TokenLimit>,
}

/// A token budget: at most `max_tokens` tokens under `tokenizer` for the
/// whole preview, notices included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenLimit {
    /// The most tokens the preview's text may encode to.
    pub max_tokens: usize,
    /// What counts them.
    pub tokenizer: Tokenizer,
}

/// Where a cut preview's budget goes between its head and its tail.
///
/// ```
/// use dory_wire::preview::{Bounder, Split, SpillOutcome};
///
/// let log: String = (1..=100).map(|i| format!("line {i}\n")).collect();
/// let tail_first = Bounder::new(9, 4096).with_split(Split::Tail);
/// let preview = tail_first.bound(log.as_bytes())?.render(SpillOutcome::NotSaved, None);
/// assert!(preview.text.starts_with("line 1\n[... "));
/// // 9 lines: the notice, 1 line of head (an eighth of 8) and 7 of tail.
/// assert!(preview.text.contains("omitted: lines 2-93 of 100"));
/// assert!(preview.text.ends_with("]\nline 94\nline 95\nline 96\nline 97\nline 98\nline 99\nline 100\n"));
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Split {
    /// Half of each budget to the head, half to the tail; a side that needs
    /// less leaves the rest to the other. The bare bounders' default.
    #[default]
    Even,
    /// The tail first: the head gets an eighth of each budget (what
    /// identifies the command's start; at least one line when two fit), the
    /// tail the rest; a side that needs
    /// less leaves the rest to the other. `run`'s default: a failure is
    /// printed near the end of the output, the head is mostly set-up.
    Tail,
}

impl Split {
    /// Its name: `"even"` or `"tail"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Even => "even",
            Split::Tail => "tail",
        }
    }

    /// The split of this name (`"even"`, `"tail"`).
    pub fn from_name(name: &str) -> Option<Split> {
        match name {
            "even" => Some(Split::Even),
            "tail" => Some(Split::Tail),
            _ => None,
        }
    }

    /// The head's first share of `bytes` and `lines`.
    pub(crate) fn head_share(self, bytes: usize, lines: usize) -> (usize, usize) {
        match self {
            Split::Even => (bytes / 2, lines / 2),
            // At least one line when two fit: the output's first line
            // (often the command's own) says what ran.
            Split::Tail => (bytes / 8, if lines >= 2 { (lines / 8).max(1) } else { 0 }),
        }
    }
}

impl Limits {
    /// Limits of at most `max_lines` lines and `max_bytes` bytes. Any pair is
    /// accepted; see [`check_cut`](Self::check_cut) for when a cut is possible.
    pub fn new(max_lines: usize, max_bytes: usize) -> Self {
        Limits {
            max_lines,
            max_bytes,
            split: Split::Even,
            tokens: None,
        }
    }

    /// The same limits, and the preview's text encodes to at most
    /// `max_tokens` tokens under `tokenizer`, notices included: a third
    /// limit, and whichever binds first decides.
    ///
    /// A preview within the byte and line limits that encodes to more is
    /// cut at a smaller byte budget: the largest from [`MIN_MAX_BYTES`] to
    /// `max_bytes` (bisected, each candidate counted in full) whose preview
    /// fits. Only previews are counted (at most `max_bytes` bytes each,
    /// never the whole output), and [`Preview::tokens`](super::Preview::tokens)
    /// holds the count. A cut needs `max_tokens ≥` [`MIN_MAX_BYTES`]: every
    /// token is at least one byte, so a preview of `MIN_MAX_BYTES` bytes
    /// always fits.
    ///
    /// ```
    /// use dory_wire::preview::{Bounder, Limits, SpillOutcome};
    /// use dory_wire::tokens::Tokenizer;
    ///
    /// let log: String = (1..=400).map(|i| format!("step {i}: compiled module_{i}\n")).collect();
    /// let limits = Limits::new(100, 16 * 1024).with_max_tokens(200, Tokenizer::Approx);
    /// let preview = Bounder::with_limits(limits)
    ///     .bound(log.as_bytes())?
    ///     .render(SpillOutcome::NotSaved, None);
    /// let tokens = preview.tokens.expect("counted under a token limit");
    /// assert!(tokens <= 200 && tokens as usize == Tokenizer::Approx.count(&preview.text));
    /// assert!(preview.text.ends_with("step 400: compiled module_400\n"));
    /// # Ok::<(), dory_wire::Error>(())
    /// ```
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: usize, tokenizer: Tokenizer) -> Self {
        self.tokens = Some(TokenLimit {
            max_tokens,
            tokenizer,
        });
        self
    }

    /// The token budget, when one is set.
    pub fn tokens(&self) -> Option<TokenLimit> {
        self.tokens
    }

    /// The most tokens a preview may have (`None`: no token limit).
    pub fn max_tokens(&self) -> Option<usize> {
        self.tokens.map(|t| t.max_tokens)
    }

    /// The same lines, bytes and split without the token limit: what the
    /// token fitting bounds at each byte budget it tries.
    pub(crate) fn without_tokens(&self) -> Self {
        Limits {
            tokens: None,
            ..*self
        }
    }

    /// The same limits with this [`Split`].
    #[must_use]
    pub fn with_split(mut self, split: Split) -> Self {
        self.split = split;
        self
    }

    /// Where the budget goes between head and tail ([`Split::Even`] unless set).
    pub fn split(&self) -> Split {
        self.split
    }

    /// Other sizes, the same split.
    pub(crate) fn resized(&self, max_lines: usize, max_bytes: usize) -> Self {
        Limits::new(max_lines, max_bytes).with_split(self.split)
    }

    /// The most lines a preview may have, notice included.
    pub fn max_lines(&self) -> usize {
        self.max_lines
    }

    /// The most bytes a preview may have once rendered as UTF-8, notice included.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Whether input that does not fit can be cut within these limits: the
    /// notice needs a line (`max_lines ≥ 1`), `max_bytes ≥` [`MIN_MAX_BYTES`]
    /// and, with a token limit, `max_tokens ≥` [`MIN_MAX_BYTES`].
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] (code `invalid_limits`) when it cannot.
    pub fn check_cut(&self) -> Result<(), Error> {
        if self.max_lines == 0 {
            return Err(Error::InvalidLimits {
                reason: "the input must be cut and max_lines is 0: the notice needs a line"
                    .to_owned(),
            });
        }
        if self.max_bytes < MIN_MAX_BYTES {
            return Err(Error::InvalidLimits {
                reason: format!(
                    "the input must be cut and max_bytes={} is below {MIN_MAX_BYTES}, the least a cut preview needs",
                    self.max_bytes
                ),
            });
        }
        if let Some(t) = self.tokens.filter(|t| t.max_tokens < MIN_MAX_BYTES) {
            return Err(Error::InvalidLimits {
                reason: format!(
                    "the input must be cut and max_tokens={} is below {MIN_MAX_BYTES}, the least a cut preview needs",
                    t.max_tokens
                ),
            });
        }
        Ok(())
    }

    /// How many leading input bytes a bounder retains. Twice `max_bytes` (plus a
    /// margin for UTF-8 and `\r\n` look-ahead): a line that may be shown whole
    /// ends within it, so a line reaching past it can only be cut.
    pub(crate) fn head_window(&self) -> usize {
        self.max_bytes.saturating_mul(2).saturating_add(8)
    }

    /// How many trailing input bytes a bounder retains (same reasoning).
    pub(crate) fn tail_window(&self) -> usize {
        self.head_window()
    }
}

/// Whether input of `total` bytes and `lines` lines can fit unchanged (its
/// rendering, never shorter than the bytes, decides).
pub(crate) fn may_fit(limits: &Limits, total: u64, lines: u64) -> bool {
    total <= limits.max_bytes() as u64 && lines <= limits.max_lines() as u64
}

/// The largest `max_lines` or `max_bytes` a binding accepts, in every
/// language: 2^32 − 1, the most a WebAssembly (wasm32) `usize` holds.
pub const MAX_LIMIT: u32 = u32::MAX;

/// A binding's number as the limit `name` (`max_lines`, `max_bytes` or its
/// spelling in the binding's language): a whole number from 0 to
/// [`MAX_LIMIT`]. A number too large for an `f64` is passed as an infinity
/// of its sign.
///
/// # Errors
/// [`Error::InvalidLimits`] for a fraction, NaN, an infinity, a negative
/// number or one above [`MAX_LIMIT`], with the same text in every language.
pub fn checked_limit(value: f64, name: &str) -> Result<usize, Error> {
    if value.fract() == 0.0 && (0.0..=f64::from(MAX_LIMIT)).contains(&value) {
        // Whole and within u32: the cast is exact.
        Ok(value as usize)
    } else {
        Err(Error::InvalidLimits {
            reason: format!("{name} must be a whole number from 0 to {MAX_LIMIT}, not {value}"),
        })
    }
}

/// The tokenizer a token limit uses when none is named, in every language:
/// OpenAI's `o200k_base` (GPT-4o and later). Builds without it (the default
/// npm entry, the Component) refuse it by name: pass `"approx"` there.
pub const DEFAULT_TOKENIZER: &str = "o200k_base";

/// A binding's `max_tokens` and `tokenizer` options as a token limit, one
/// rule for every language: no `max_tokens` and no `tokenizer` is no token
/// limit; a `tokenizer` alone counts the preview's tokens
/// ([`Preview::tokens`](super::Preview::tokens)) without limiting them; a
/// `max_tokens` alone uses [`DEFAULT_TOKENIZER`].
///
/// ```
/// use dory_wire::preview::token_limit;
/// use dory_wire::tokens::Tokenizer;
///
/// assert_eq!(token_limit(None, None)?, None);
/// let limit = token_limit(Some(4000), Some("approx"))?.unwrap();
/// assert_eq!((limit.max_tokens, limit.tokenizer), (4000, Tokenizer::Approx));
/// let counted = token_limit(None, Some("approx"))?.unwrap();
/// assert_eq!(counted.max_tokens, usize::MAX);
/// let err = token_limit(Some(100), Some("gpt2")).unwrap_err();
/// assert_eq!(err.code(), "invalid_argument");
/// # Ok::<(), dory_wire::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] (argument `tokenizer`) for an unknown name or
/// a tokenizer this build lacks.
pub fn token_limit(
    max_tokens: Option<usize>,
    tokenizer: Option<&str>,
) -> Result<Option<TokenLimit>, Error> {
    if max_tokens.is_none() && tokenizer.is_none() {
        return Ok(None);
    }
    let name = tokenizer.unwrap_or(DEFAULT_TOKENIZER);
    let tokenizer = Tokenizer::from_name(name).map_err(|e| Error::InvalidArgument {
        argument: "tokenizer".to_owned(),
        reason: e.to_string(),
    })?;
    Ok(Some(TokenLimit {
        max_tokens: max_tokens.unwrap_or(usize::MAX),
        tokenizer,
    }))
}

/// How many tokens `text` encodes to under the tokenizer named `tokenizer`
/// ([`DEFAULT_TOKENIZER`] when `None`): the bindings' `count_tokens` /
/// `countTokens` / `count-tokens`, so that a caller can check a preview, or
/// size a prompt, with the bounder's own counter.
///
/// ```
/// use dory_wire::preview::count_tokens;
///
/// assert_eq!(count_tokens("", Some("approx"))?, 0);
/// assert!(count_tokens("error: it broke\n", Some("approx"))? >= 4);
/// assert_eq!(count_tokens("x", Some("gpt-9")).unwrap_err().code(), "invalid_argument");
/// # Ok::<(), dory_wire::Error>(())
/// ```
///
/// # Errors
/// As [`token_limit`]: an unknown name or one this build lacks.
pub fn count_tokens(text: &str, tokenizer: Option<&str>) -> Result<u64, Error> {
    let limit = token_limit(None, Some(tokenizer.unwrap_or(DEFAULT_TOKENIZER)))?;
    Ok(limit.map_or(0, |l| l.tokenizer.count(text) as u64))
}

/// The names of the tokenizers this build has, exact ones first
/// (`["o200k_base", "cl100k_base", "approx"]` with the Cargo feature
/// `tokens`, `["approx"]` without): the bindings' `TOKENIZERS`.
pub fn tokenizers() -> Vec<&'static str> {
    Tokenizer::ALL.iter().map(|t| t.name()).collect()
}

impl Limits {
    /// The same limits with this token limit (or none).
    #[must_use]
    pub fn with_token_limit(mut self, tokens: Option<TokenLimit>) -> Self {
        self.tokens = tokens;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cuts_need_room() {
        assert_eq!(
            Limits::new(0, 4096).check_cut().unwrap_err().code(),
            "invalid_limits"
        );
        assert_eq!(
            Limits::new(10, MIN_MAX_BYTES - 1)
                .check_cut()
                .unwrap_err()
                .code(),
            "invalid_limits"
        );
        assert!(Limits::new(1, MIN_MAX_BYTES).check_cut().is_ok());
        assert!(Limits::new(usize::MAX, usize::MAX).check_cut().is_ok());
    }
}
