//! One seed per run, split into independent named streams.
//!
//! Every component draws from its own ChaCha8 stream, selected by a stable hash
//! of its name, so adding a component (or a draw in one) never shifts the draws
//! of the others, and the same seed gives the same numbers on every machine.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded random stream owned by one component.
#[derive(Clone, Debug)]
pub struct Stream(ChaCha8Rng);

impl Stream {
    /// The stream named `name` of run `seed`.
    pub fn new(seed: u64, name: &str) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(fnv1a(name.as_bytes()));
        Stream(rng)
    }

    /// Uniform in [0, 1), from the top 53 bits of one word (portable, exact).
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n); n must be > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        // Multiply-shift keeps it branch-free; the bias is below 2^-64 * n.
        ((self.0.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Lower-case hex string of `len` characters (container IDs, UIDs).
    pub fn hex(&mut self, len: usize) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(len);
        let mut word = 0u64;
        for i in 0..len {
            if i % 16 == 0 {
                word = self.0.next_u64();
            }
            out.push(DIGITS[(word & 0xf) as usize] as char);
            word >>= 4;
        }
        out
    }
}

/// FNV-1a, 64 bit: a stable name → stream number mapping.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_and_repeatable() {
        let mut a1 = Stream::new(7, "kubelet/node-1");
        let mut a2 = Stream::new(7, "kubelet/node-1");
        let mut b = Stream::new(7, "scheduler");
        let x: Vec<u64> = (0..4).map(|_| a1.below(1000)).collect();
        let y: Vec<u64> = (0..4).map(|_| a2.below(1000)).collect();
        let z: Vec<u64> = (0..4).map(|_| b.below(1000)).collect();
        assert_eq!(x, y);
        assert_ne!(x, z);
        assert!((0..1000).all(|_| (0.0..1.0).contains(&a1.unit())));
    }
}
