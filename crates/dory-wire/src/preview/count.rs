//! Counting `\n` bytes: every bounder call counts its whole input's lines.

/// Bytes per block whose count fits a `u8` lane sum (at most 255 per block).
const BLOCK: usize = 192;
/// The smaller block the rest of the input is counted in.
const SMALL: usize = 64;

/// The number of `\n` bytes in `data`.
///
/// Each block's count is summed in `u8` lanes (a block holds at most 255
/// bytes, so the sum is exact): no branch per byte, which the compiler turns
/// into vector compare-and-subtract code (SSE2 on x86-64). On this machine it
/// beat `memchr`'s run-time AVX2 count from 200 bytes to 1 MiB; the effect on
/// whole calls is what `dory-bench preview-calls` prints (see
/// `docs/preview.md`).
pub(crate) fn count_newlines(data: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut blocks = data.chunks_exact(BLOCK);
    for block in &mut blocks {
        total += u64::from(block_count(block));
    }
    let mut small = blocks.remainder().chunks_exact(SMALL);
    for block in &mut small {
        total += u64::from(block_count(block));
    }
    total + u64::from(block_count(small.remainder()))
}

/// The `\n` bytes of a block of at most 255 bytes.
#[inline(always)]
fn block_count(block: &[u8]) -> u8 {
    debug_assert!(block.len() <= 255);
    block
        .iter()
        .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == b'\n')))
}

#[cfg(test)]
mod tests {
    use super::count_newlines;

    #[test]
    fn counts_like_memchr_at_every_length_and_density() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for density in [0u64, 1, 7, 64, 255] {
            let data: Vec<u8> = (0..5000)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    if seed % 256 < density {
                        b'\n'
                    } else {
                        (seed >> 8) as u8 | 1
                    }
                })
                .collect();
            for len in (0..700).chain([767, 768, 769, 1000, 4096, 5000]) {
                for start in [0, 1, 63] {
                    let part = &data[start.min(len)..len];
                    let expected = memchr::memchr_iter(b'\n', part).count() as u64;
                    assert_eq!(
                        count_newlines(part),
                        expected,
                        "len {len} start {start} density {density}"
                    );
                }
            }
        }
        assert_eq!(count_newlines(&[b'\n'; 1000]), 1000);
    }
}
