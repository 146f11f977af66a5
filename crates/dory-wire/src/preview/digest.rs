//! The default spill id: a 128-bit digest of the content, as 32 hex digits.
//!
//! Deterministic (the same bytes give the same id on every platform and
//! version, whatever the chunking) so that a preview naming a spill file is
//! byte-identical across runs and prompt caches keep hitting. It is fast
//! (about as fast as counting newlines) but **not cryptographic**: when outputs
//! may be crafted to collide, pass your own random id instead.
//!
//! Four independent lanes each absorb one 64-bit word per 32-byte stripe with
//! a bijective step (xor, odd multiply, rotate), so a one-word change always
//! changes its lane; the final mix folds the lanes and the length together.

const PRIME: u64 = 0x9E37_79B1_85EB_CA87;
const SEEDS: [u64; 4] = [
    0x243F_6A88_85A3_08D3,
    0x1319_8A2E_0370_7344,
    0xA409_3822_299F_31D0,
    0x082E_FA98_EC4E_6C89,
];
const STRIPE: usize = 32;

/// Streaming content digest; see the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct Digest {
    lanes: [u64; 4],
    pending: [u8; STRIPE],
    pending_len: usize,
    total: u64,
}

fn word(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

fn absorb(lanes: &mut [u64; 4], stripe: &[u8]) {
    for (i, lane) in lanes.iter_mut().enumerate() {
        *lane = (*lane ^ word(stripe, i * 8))
            .wrapping_mul(PRIME)
            .rotate_left(31);
    }
}

/// MurmurHash3's 64-bit finalizer: every input bit affects every output bit.
fn fmix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    k ^= k >> 33;
    k = k.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    k ^ (k >> 33)
}

impl Digest {
    pub(crate) fn new() -> Self {
        Digest {
            lanes: SEEDS,
            pending: [0; STRIPE],
            pending_len: 0,
            total: 0,
        }
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        if self.pending_len > 0 {
            let take = (STRIPE - self.pending_len).min(data.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
            if self.pending_len < STRIPE {
                return;
            }
            absorb(&mut self.lanes, &self.pending);
            self.pending_len = 0;
        }
        let mut stripes = data.chunks_exact(STRIPE);
        for stripe in &mut stripes {
            absorb(&mut self.lanes, stripe);
        }
        let rest = stripes.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The id: 32 lowercase hex digits.
    pub(crate) fn hex(&self) -> String {
        let mut lanes = self.lanes;
        // Zero padding is disambiguated by the length mixed in below.
        let mut last = [0u8; STRIPE];
        last[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
        absorb(&mut lanes, &last);
        let a = fmix(lanes[0].wrapping_add(self.total));
        let b = fmix(lanes[1] ^ a);
        let c = fmix(lanes[2].wrapping_add(b));
        let d = fmix(lanes[3] ^ c);
        let high = fmix(a ^ c.rotate_left(32)) ^ d;
        let low = fmix(b.wrapping_add(d) ^ self.total.rotate_left(17)) ^ a;
        format!("{high:016x}{low:016x}")
    }
}

/// The digest of `data` in one call.
pub(crate) fn spill_id_of(data: &[u8]) -> String {
    let mut digest = Digest::new();
    digest.update(data);
    digest.hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_values() {
        // Pinned: changing the digest changes every spill path a caller derives from it.
        assert_eq!(spill_id_of(b""), spill_id_of(b""));
        let ids = [
            spill_id_of(b""),
            spill_id_of(b"\0"),
            spill_id_of(b"hello\n"),
        ];
        assert_eq!(ids[0], PINNED_EMPTY);
        assert_eq!(ids[2], PINNED_HELLO);
        assert_ne!(ids[0], ids[1]);
        assert!(ids.iter().all(|id| id.len() == 32));
    }

    const PINNED_EMPTY: &str = "61e53a3508a9df489fc4fe78ac26eea5";
    const PINNED_HELLO: &str = "8968af6368f6b6c3a8dbfbd1821be309";

    #[test]
    fn chunking_does_not_matter() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = spill_id_of(&data);
        for split in [1, 5, 31, 32, 33, 64, 999] {
            let mut digest = Digest::new();
            for chunk in data.chunks(split) {
                digest.update(chunk);
            }
            assert_eq!(digest.hex(), whole, "chunks of {split}");
        }
    }

    #[test]
    fn trailing_zeros_change_the_id() {
        assert_ne!(spill_id_of(b"a"), spill_id_of(b"a\0"));
        assert_ne!(spill_id_of(&[0; 32]), spill_id_of(&[0; 31]));
    }
}
