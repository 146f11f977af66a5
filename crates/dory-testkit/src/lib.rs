//! Seeded randomness shared by the tests, the fuzz targets and the
//! benchmarks of `dory-wire`: one SplitMix64 generator and one definition of
//! each draw, so a seed means the same thing everywhere.
//!
//! Deterministic by construction: no clock, no platform dependence, no
//! global state. The benchmark corpora are generated with it, so changing
//! any draw here changes their bytes (bump the corpus generator version of
//! `dory-bench` if you do).
//!
//! ```
//! use dory_testkit::Rng;
//!
//! let mut a = Rng::new(7);
//! let mut b = Rng::new(7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! assert!(a.below(10) < 10);
//! let cuts = a.cuts(100, 5);
//! assert!(cuts.len() <= 5 && cuts.windows(2).all(|w| w[0] <= w[1]));
//! ```
#![forbid(unsafe_code)]

/// The SplitMix64 increment (the golden ratio in 64 bits).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function: mixes one 64-bit state into 64 random bits.
pub const fn mix(state: u64) -> u64 {
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A SplitMix64 generator; the field is its state (the seed, at first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator for `seed`.
    pub const fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix(self.0)
    }

    /// A number in `0..n`, or 0 when `n` is 0 (Lemire's multiply-shift: the
    /// high half of `next_u64() * n`; its bias, below `n / 2^64`, does not
    /// matter here).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A number in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) as u64 + 1) as usize
    }

    /// True with probability `percent`/100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One element of `items`, or `None` when it is empty.
    pub fn choose<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len() as u64) as usize)
    }

    /// Fills `buf` with random bytes (little-endian words).
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }

    /// Up to `max` sorted cut points in `0..=len`: where to split a body of
    /// `len` bytes into pieces (duplicates make empty pieces).
    pub fn cuts(&mut self, len: usize, max: usize) -> Vec<usize> {
        let n = self.below(max as u64 + 1) as usize;
        let mut cuts: Vec<usize> = (0..n)
            .map(|_| self.below(len as u64 + 1) as usize)
            .collect();
        cuts.sort_unstable();
        cuts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_splitmix64() {
        // The first outputs for seed 0 of the reference implementation
        // (Vigna, splitmix64.c).
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn draws_stay_in_range() {
        let mut rng = Rng::new(42);
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.range(5, 5), 5);
        assert_eq!(rng.range(5, 4), 5);
        assert_eq!(rng.choose::<u8>(&[]), None);
        for n in [1, 2, 3, 7, 1000, u64::MAX] {
            for _ in 0..1000 {
                assert!(rng.below(n) < n);
            }
        }
        let mut seen = [false; 6];
        for _ in 0..1000 {
            seen[rng.range(0, 5)] = true;
        }
        assert!(seen.iter().all(|&s| s), "every value of 0..=5 is drawn");
        let mut buf = [0u8; 13];
        rng.fill(&mut buf);
        assert!(buf.iter().any(|&b| b != 0));
    }

    #[test]
    fn cuts_are_sorted_and_within_the_body() {
        let mut rng = Rng::new(9);
        for len in [0, 1, 10, 4096] {
            let cuts = rng.cuts(len, 12);
            assert!(cuts.len() <= 12);
            assert!(cuts.windows(2).all(|w| w[0] <= w[1]));
            assert!(cuts.iter().all(|&c| c <= len));
        }
    }
}
