//! Deterministic pseudo-random split points and choices derived from the input.

/// The seeded generator shared with the tests and benchmarks: the same seed
/// always gives the same splits, so a crash reproduces from its input alone.
pub use dory_testkit::Rng;

/// Cuts `data` into pieces whose sizes come from `seed`: `seed == 0` is one
/// piece; otherwise a mix of 1-byte pieces, short pieces and long ones, with
/// an occasional empty piece (feeding nothing must be harmless).
pub fn pieces(data: &[u8], seed: u64) -> Vec<&[u8]> {
    if seed == 0 {
        return vec![data];
    }
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let size = match rng.below(8) {
            0 => 0,
            1..=3 => 1 + rng.below(4),
            4..=6 => 1 + rng.below(64),
            _ => 1 + rng.below(4096),
        };
        let size = (size as usize).min(rest.len());
        out.push(&rest[..size]);
        rest = &rest[size..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_input_in_order() {
        let data: Vec<u8> = (0..=255).cycle().take(10_000).collect();
        for seed in [0, 1, 2, 99, u64::MAX] {
            assert_eq!(pieces(&data, seed).concat(), data, "seed {seed}");
        }
        assert!(pieces(&data, 7).len() > 1);
    }
}
