//! Lossy UTF-8 rendering and the character boundaries a cut may use.
//!
//! Kept bytes are rendered like `String::from_utf8_lossy`: one U+FFFD (3 bytes)
//! per maximal invalid subsequence. A *unit* is one valid character or one such
//! subsequence; cuts fall between units only. Every non-continuation byte starts
//! a unit, so a slice that starts at a unit start renders exactly like the same
//! bytes inside the whole input: the functions here rely on that.

/// Rendered size of one maximal invalid subsequence (U+FFFD).
const REPLACEMENT_LEN: usize = '\u{FFFD}'.len_utf8();

/// True for UTF-8 continuation bytes (`10xxxxxx`), which never start a valid character.
pub(crate) fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Bytes of the rendering of `bytes` (which must start at a unit start).
pub(crate) fn rendered_len(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|chunk| {
            let replacement = if chunk.invalid().is_empty() {
                0
            } else {
                REPLACEMENT_LEN
            };
            chunk.valid().len() + replacement
        })
        .sum()
}

/// Appends the rendering of `bytes` to `out`.
pub(crate) fn push_rendered(out: &mut String, bytes: &[u8]) {
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            out.push('\u{FFFD}');
        }
    }
}

/// The longest prefix of `bytes` ending at a unit boundary whose rendering fits
/// in `budget`: `(raw length, rendered length)`.
pub(crate) fn prefix_within(bytes: &[u8], budget: usize) -> (usize, usize) {
    let mut raw = 0;
    let mut rendered = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        if rendered + valid.len() > budget {
            let mut keep = budget - rendered;
            while !valid.is_char_boundary(keep) {
                keep -= 1;
            }
            return (raw + keep, rendered + keep);
        }
        raw += valid.len();
        rendered += valid.len();
        let invalid = chunk.invalid();
        if !invalid.is_empty() {
            if rendered + REPLACEMENT_LEN > budget {
                return (raw, rendered);
            }
            raw += invalid.len();
            rendered += REPLACEMENT_LEN;
        }
    }
    (raw, rendered)
}

/// The shortest suffix of `bytes` starting at a unit boundary at or after
/// `from` whose rendering fits in `budget`: `(start offset, rendered length)`.
/// `bytes` must start at a unit start.
pub(crate) fn suffix_within(bytes: &[u8], from: usize, budget: usize) -> (usize, usize) {
    let total = rendered_len(bytes);
    let mut pos = 0;
    // Rendered bytes of `bytes[..pos]`.
    let mut before = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        let end = pos + valid.len();
        // Inside a valid run rendered = raw, so the first start that fits is
        // `need` bytes into the run (then rounded up to a character boundary).
        let need = total.saturating_sub(before).saturating_sub(budget);
        let lowest = from.max(pos + need);
        if lowest <= end {
            let mut skip = lowest - pos;
            while !valid.is_char_boundary(skip) {
                skip += 1;
            }
            return (pos + skip, total - before - skip);
        }
        pos = end;
        before += valid.len();
        if !chunk.invalid().is_empty() {
            pos += chunk.invalid().len();
            before += REPLACEMENT_LEN;
        }
    }
    (bytes.len(), 0)
}

/// A unit start `q` with `floor <= q <= y` found by looking back at most three
/// bytes from `y` (a character has at most three continuation bytes).
/// `floor_is_start` says whether `floor` itself is known to start a unit.
pub(crate) fn unit_start_before(
    bytes: &[u8],
    floor: usize,
    floor_is_start: bool,
    y: usize,
) -> usize {
    if floor_is_start && y - floor <= 3 {
        return floor;
    }
    let from = y.saturating_sub(3).max(floor);
    // Any non-continuation byte starts a unit; after three continuation bytes
    // in a row, the next byte starts one whatever it is.
    (from..y)
        .find(|&i| bytes.get(i).is_some_and(|&b| !is_continuation(b)))
        .unwrap_or(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_len_matches_from_utf8_lossy() {
        let samples: [&[u8]; 6] = [
            b"plain",
            b"\xff",
            b"a\xe2\x82z",
            b"\xf0\x9f\x98",
            "é😀".as_bytes(),
            b"\xed\xa0\x80",
        ];
        for bytes in samples {
            assert_eq!(
                rendered_len(bytes),
                String::from_utf8_lossy(bytes).len(),
                "{bytes:?}"
            );
            let mut out = String::new();
            push_rendered(&mut out, bytes);
            assert_eq!(out, String::from_utf8_lossy(bytes));
        }
    }

    #[test]
    fn prefix_never_splits_a_character() {
        let text = "ab😀cd".as_bytes();
        assert_eq!(prefix_within(text, 3), (2, 2));
        assert_eq!(prefix_within(text, 6), (6, 6));
        // An invalid byte renders as 3 bytes: it fits in 3, not in 2.
        assert_eq!(prefix_within(b"\xffx", 2), (0, 0));
        assert_eq!(prefix_within(b"\xffx", 3), (1, 3));
    }

    #[test]
    fn suffix_never_splits_a_character() {
        let text = "ab😀cd".as_bytes();
        assert_eq!(suffix_within(text, 0, 3), (6, 2));
        assert_eq!(suffix_within(text, 0, 6), (2, 6));
        assert_eq!(suffix_within(text, 3, 100), (6, 2));
        assert_eq!(suffix_within(b"x\xff", 0, 2), (2, 0));
        assert_eq!(suffix_within(b"x\xff", 0, 3), (1, 3));
    }

    #[test]
    fn finds_unit_starts() {
        let text = "a😀b".as_bytes();
        assert_eq!(unit_start_before(text, 0, true, 3), 0);
        assert_eq!(unit_start_before(text, 0, false, 4), 1);
        assert_eq!(unit_start_before(b"\x80\x80\x80\x80", 0, false, 3), 3);
    }
}
