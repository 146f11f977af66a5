//! The run bounder on arbitrary chunks and losses: no panic, both limits on
//! every view, the loss said, and the same result however the chunks split.
//!
//! Layout: 4 header bytes (`max_lines` = byte 0, `max_bytes` = u16 at 1,
//! byte 3 seeds the second split), then the body as items: a tag byte
//! (`0..=199` stdout, `200..=249` stderr, `250..` a loss of the next byte's
//! value × 97 bytes on the stream of the tag's parity), a length byte, and
//! that many data bytes.

use dory_wire::preview::{RunBounder, SpillOutcome, View};
use dory_wire::Stream;

use crate::{count_lines, Header};

#[derive(Debug, Clone)]
enum Item<'a> {
    Out(Stream, &'a [u8]),
    Lost(Stream, u64),
}

fn items(mut body: &[u8]) -> Vec<Item<'_>> {
    let mut out = Vec::new();
    while let [tag, len, rest @ ..] = body {
        let n = usize::from(*len).min(rest.len());
        match tag {
            0..=199 => out.push(Item::Out(Stream::Stdout, &rest[..n])),
            200..=249 => out.push(Item::Out(Stream::Stderr, &rest[..n])),
            _ => {
                let stream = if tag % 2 == 0 { Stream::Stdout } else { Stream::Stderr };
                out.push(Item::Lost(stream, u64::from(*len) * 97));
                body = rest;
                continue;
            }
        }
        body = &rest[n..];
    }
    out
}

fn play(max_lines: usize, max_bytes: usize, items: &[Item<'_>], split: usize) -> Option<Vec<String>> {
    let mut run = RunBounder::new(max_lines, max_bytes).with_spill_id("fuzz");
    let mut offsets = [0u64; 2];
    for item in items {
        match item {
            Item::Out(stream, data) => {
                for piece in data.chunks(split.max(1)) {
                    run.push(*stream, piece);
                }
                offsets[*stream as usize] += data.len() as u64;
            }
            Item::Lost(stream, n) => {
                let at = offsets[*stream as usize];
                run.lose(*stream, at, at + n);
                offsets[*stream as usize] += n;
            }
        }
    }
    let pending = match run.finish() {
        Ok(p) => p,
        Err(e) => {
            assert_eq!(e.code(), "invalid_limits");
            return None;
        }
    };
    let mut texts = Vec::new();
    for view in View::ALL {
        let p = pending.render(
            view,
            SpillOutcome::Saved {
                path: format!("/w/{}", pending.spill_id(view)),
            },
            None,
        );
        assert!(p.text.len() <= max_bytes, "{view:?} over max_bytes");
        assert!(count_lines(p.text.as_bytes()) <= max_lines as u64, "{view:?} over max_lines");
        let (lost, _) = pending.lost(view);
        assert_eq!(lost > 0, p.text.contains(" lost"), "{view:?}: the loss is said");
        texts.push(p.text.into_owned());
    }
    Some(texts)
}

/// Runs one fuzz input (see the module's layout).
pub fn check_run(data: &[u8]) {
    let (header, body) = Header::split(data, 4);
    let max_lines = usize::from(header.u8(0));
    let max_bytes = usize::from(header.u16(1));
    let items = items(body);
    // Output items that read " lost" would blur the check above.
    if items.iter().any(|i| matches!(i, Item::Out(_, d) if d.windows(5).any(|w| w == b" lost"))) {
        return;
    }
    let whole = play(max_lines, max_bytes, &items, usize::MAX);
    let split = play(max_lines, max_bytes, &items, 1 + usize::from(header.u8(3) % 7));
    assert_eq!(whole, split, "the split changed the result");
}

#[cfg(test)]
mod tests {
    /// Seeded inputs through the target's check (what the fuzzer would do).
    #[test]
    fn seeded_inputs_pass() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3000 {
            let mut data = Vec::new();
            let len = (state % 600) as usize;
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                data.push(match state % 9 {
                    0 => b'\n',
                    1 => 0xff,
                    _ => (state >> 8) as u8,
                });
            }
            super::check_run(&data);
        }
    }
}
