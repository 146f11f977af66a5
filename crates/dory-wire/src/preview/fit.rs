//! The token limit: a preview within `max_lines` and `max_bytes` that
//! encodes to more than `max_tokens` is bounded again at a smaller byte
//! budget, the largest whose preview fits (see
//! [`Limits::with_max_tokens`](super::Limits::with_max_tokens)).
//!
//! Every candidate is a whole preview, rendered as the bounder renders it
//! and counted in full, so the ceiling is exact by construction (no sum of
//! per-line counts is trusted). A byte budget of [`MIN_MAX_BYTES`] always
//! fits a limit of at least `MIN_MAX_BYTES` tokens: every token is at least
//! one byte (for the approximate counter too, which never counts a line at
//! more than its bytes).

use std::collections::HashMap;

use super::limits::{TokenLimit, MIN_MAX_BYTES};
use super::result::Preview;

/// Counts `preview`'s text under `limit`, records the count, and says
/// whether it fits.
pub(crate) fn count(preview: &mut Preview<'_>, limit: TokenLimit) -> bool {
    let n = limit.tokenizer.count(&preview.text);
    preview.tokens = Some(n as u64);
    n <= limit.max_tokens
}

/// Counts by units, remembering each unit's count: a unit is a line and
/// the lines after it that do not start at a safe break
/// ([`Tokenizer::joins_additively`](crate::tokens::Tokenizer::joins_additively)),
/// so the sum of the units' counts is the text's count (the encodings'
/// pre-tokenizers split there). The previews a bisection tries share most
/// of their lines: each distinct unit is encoded once.
struct UnitCounter {
    limit: TokenLimit,
    seen: HashMap<Box<str>, usize>,
}

impl UnitCounter {
    fn count(&mut self, text: &str) -> usize {
        let mut total = 0;
        let mut start = 0;
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            let end = at + line.len();
            // A unit ends before a line that starts at a safe break.
            let rest = &text[end..];
            if self
                .limit
                .tokenizer
                .joins_additively(&text[start..end], rest)
            {
                total += self.unit(&text[start..end]);
                start = end;
            }
            at = end;
        }
        total + self.unit(&text[start..])
    }

    fn unit(&mut self, unit: &str) -> usize {
        if unit.is_empty() {
            return 0;
        }
        if let Some(&n) = self.seen.get(unit) {
            return n;
        }
        let n = self.limit.tokenizer.count(unit);
        self.seen.insert(unit.into(), n);
        n
    }
}

/// The preview of the largest byte budget in `lo..hi` whose preview fits
/// `limit`, found by bisection: `render(b)` is the preview at byte budget
/// `b` (`None` when none can be rendered there), the preview at `hi` is
/// known not to fit, having counted `over` tokens. The first probe is the
/// budget proportional to the limit (`hi × max_tokens / over`), usually just
/// below the answer; then the interval is halved. Deterministic: the same
/// probes for the same input in every language.
///
/// The probes are counted by units (see `UnitCounter`), each distinct unit
/// encoded once; the preview chosen is then counted in full, and only if
/// that count disagreed (never seen: the unit rule is checked on every pair
/// of adjacent lines of the corpus) is the search made again with full
/// counts. So the ceiling rests on a full count either way.
///
/// Returns `None` only when no budget from `lo` up gives a preview that
/// fits (the callers make `lo` fit: at most `lo` bytes, `lo ≤ max_tokens`).
pub(crate) fn bisect<'a>(
    limit: TokenLimit,
    lo: usize,
    hi: usize,
    over: usize,
    mut render: impl FnMut(usize) -> Option<Preview<'a>>,
) -> Option<Preview<'a>> {
    let mut units = UnitCounter {
        limit,
        seen: HashMap::new(),
    };
    let found = search(limit, lo, hi, over, &mut render, &mut |t| units.count(t));
    if let Some(mut p) = found {
        if count(&mut p, limit) {
            return Some(p);
        }
    }
    let mut full = |t: &str| limit.tokenizer.count(t);
    let mut p = search(limit, lo, hi, over, &mut render, &mut full)?;
    count(&mut p, limit).then_some(p)
}

/// [`bisect`]'s search, counting with `counter`.
fn search<'a>(
    limit: TokenLimit,
    lo: usize,
    hi: usize,
    over: usize,
    render: &mut impl FnMut(usize) -> Option<Preview<'a>>,
    counter: &mut dyn FnMut(&str) -> usize,
) -> Option<Preview<'a>> {
    let mut try_at = |b: usize| {
        let p = render(b)?;
        (counter(&p.text) <= limit.max_tokens).then_some(p)
    };
    if hi <= lo {
        return try_at(lo);
    }
    // `low` fits (once `best` holds its preview), `high` does not.
    let (mut low, mut high) = (lo, hi);
    let mut best = None;
    let guess = (hi as u128 * limit.max_tokens as u128 / over.max(1) as u128) as usize;
    if guess > lo && guess < hi {
        match try_at(guess) {
            Some(p) => {
                best = Some(p);
                low = guess;
            }
            None => high = guess,
        }
    }
    if best.is_none() {
        best = Some(try_at(lo)?);
    }
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        match try_at(mid) {
            Some(p) => {
                best = Some(p);
                low = mid;
            }
            None => high = mid,
        }
    }
    best
}

/// The least byte budget the bisection starts from.
pub(crate) const LEAST_BUDGET: usize = MIN_MAX_BYTES;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Tokenizer;

    fn limit(max_tokens: usize) -> TokenLimit {
        TokenLimit {
            max_tokens,
            tokenizer: Tokenizer::Approx,
        }
    }

    /// A "preview" of `b` bytes of words: its count grows with `b`.
    fn words(b: usize) -> Option<Preview<'static>> {
        let text: String = "lorem ipsum dolor sit amet\n"
            .chars()
            .cycle()
            .take(b)
            .collect();
        Some(Preview::new(text))
    }

    #[test]
    fn bisection_finds_the_largest_fitting_budget() {
        for max_tokens in [32, 40, 100, 333, 1000] {
            let l = limit(max_tokens);
            let hi = 8192;
            let mut at_hi = words(hi).unwrap();
            assert!(!count(&mut at_hi, l));
            let over = at_hi.tokens.unwrap() as usize;
            let mut probes = 0;
            let p = bisect(l, LEAST_BUDGET, hi, over, |b| {
                probes += 1;
                words(b)
            })
            .unwrap();
            let n = p.tokens.unwrap() as usize;
            assert!(n <= max_tokens);
            assert_eq!(n, Tokenizer::Approx.count(&p.text));
            // One byte more no longer fits (the count is monotone here).
            let mut next = words(p.text.len() + 1).unwrap();
            assert!(!count(&mut next, l), "{max_tokens}: {} bytes", p.text.len());
            assert!(probes <= 15, "{probes} probes");
        }
    }

    #[test]
    fn unit_counts_add_up_to_the_full_count() {
        for tokenizer in Tokenizer::ALL.iter().copied() {
            let mut units = UnitCounter {
                limit: TokenLimit {
                    max_tokens: 0,
                    tokenizer,
                },
                seen: HashMap::new(),
            };
            for text in [
                "",
                "a\n",
                "a\n\nb\n",
                "x\n  \n/usr/lib\n\r\ny",
                "  lead\n\n\n   \n\ttab\n/root\n[... 3 bytes omitted ...]\n漢字\n",
            ] {
                assert_eq!(
                    units.count(text),
                    tokenizer.count(text),
                    "{tokenizer:?} {text:?}"
                );
            }
        }
    }

    #[test]
    fn nothing_fits_is_none() {
        let l = limit(1);
        assert!(bisect(l, LEAST_BUDGET, 100, 50, words).is_none());
        assert!(bisect(l, LEAST_BUDGET, LEAST_BUDGET, 50, words).is_none());
    }
}
