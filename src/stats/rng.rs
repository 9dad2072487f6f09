//! A tiny deterministic PRNG for the bootstrap: SplitMix64 (Steele, Lea and Flood, 2014).
//!
//! Written here rather than pulled in so that the exact stream is part of our contract: the
//! same journal must give the same intervals on every platform and every release.

/// The golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64: 64 bits of state, passes BigCrush, plenty for resampling indices.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator for one independent stream of a seeded computation. Streams are separated
    /// by hashing, not by offsetting the state: offset states would replay one sequence shifted.
    pub(crate) fn stream(seed: u64, stream: u64) -> Self {
        Self {
            state: mix(seed ^ mix(stream.wrapping_add(1).wrapping_mul(GAMMA))),
        }
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }

    /// A uniform index below `n` by multiply-shift (Lemire). The bias is at most n / 2^64,
    /// far below anything a bootstrap can see.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The SplitMix64 output function.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_splitmix64_sequence() {
        // Reference values for seed 1234567 from the published C implementation
        // (state += 0x9E3779B97F4A7C15, then the 30/27/31 mix), as used by e.g. xoshiro seeding.
        let mut rng = SplitMix64 { state: 1_234_567 };
        assert_eq!(rng.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(rng.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn indices_stay_below_n() {
        let mut rng = SplitMix64::stream(7, 0);
        assert!((0..10_000).all(|_| rng.below(13) < 13));
    }
}
