//! One seed per run, split into independent named streams.
//!
//! Every component draws from its own ChaCha8 stream, selected by a stable hash
//! of its name, so adding a component (or a draw in one) never shifts the draws
//! of the others, and the same seed gives the same numbers on every machine.

//! Timing draws go through [`Stream::timing`] so `podsim verify` can pin them
//! ([`draws`]).

pub mod draws;
pub mod label;

pub use label::{Label, What};

use crate::time::SimDuration;
use draws::{Drawn, Tracked};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded random stream owned by one component.
#[derive(Clone, Debug)]
pub struct Stream {
    rng: ChaCha8Rng,
    /// Set only inside [`draws::with_policy`].
    tracked: Option<Box<Tracked>>,
}

impl Stream {
    /// The stream named `name` of run `seed`.
    pub fn new(seed: u64, name: &str) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(fnv1a(name.as_bytes()));
        let tracked = draws::current().map(|policy| Box::new(Tracked::new(policy, name)));
        Stream { rng, tracked }
    }

    /// A timing draw: `drawn` (already taken from this stream), or what the
    /// run's draw policy gives the draw `label` names: the value it had in
    /// the run being shrunk, or `nominal`. The label and the text of the
    /// distribution are made only when a policy is on (in `verify`'s
    /// shrinking), so ordinary runs pay nothing for them.
    pub fn timing(
        &mut self,
        drawn: SimDuration,
        nominal: SimDuration,
        dist: impl FnOnce() -> String,
        label: impl FnOnce() -> Label,
    ) -> SimDuration {
        let Some(t) = &mut self.tracked else { return drawn };
        let value = Drawn::Millis { drawn: drawn.as_millis(), nominal: nominal.as_millis(), dist: dist() };
        match t.draw(label(), value) {
            Drawn::Millis { drawn, .. } => SimDuration::from_millis(drawn),
            Drawn::Fraction { .. } => SimDuration::ZERO,
        }
    }

    /// Uniform in [0, 1) used as a timing jitter, pinned to ½ like a timing draw.
    pub fn jitter(&mut self, label: impl FnOnce() -> Label) -> f64 {
        let drawn = self.unit();
        let Some(t) = &mut self.tracked else { return drawn };
        match t.draw(label(), Drawn::Fraction { drawn, nominal: 0.5 }) {
            Drawn::Fraction { drawn, .. } => drawn,
            Drawn::Millis { .. } => 0.5,
        }
    }

    /// Uniform in [0, period) as a timing draw (a ticker's phase), nominally half.
    pub fn phase(&mut self, period: SimDuration, label: impl FnOnce() -> Label) -> SimDuration {
        let ms = period.as_millis().max(1);
        let drawn = SimDuration::from_millis(self.below(ms));
        self.timing(drawn, SimDuration::from_millis(ms / 2), || format!("uniform(0s, {period})"), label)
    }

    /// Uniform in [0, 1), from the top 53 bits of one word (portable, exact).
    pub fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n); n must be > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        // Multiply-shift keeps it branch-free; the bias is below 2^-64 * n.
        ((self.rng.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Lower-case hex string of `len` characters (container IDs, UIDs).
    pub fn hex(&mut self, len: usize) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(len);
        let mut word = 0u64;
        for i in 0..len {
            if i % 16 == 0 {
                word = self.rng.next_u64();
            }
            out.push(DIGITS[(word & 0xf) as usize] as char);
            word >>= 4;
        }
        out
    }
}

/// FNV-1a, 64 bit: a stable name → stream number mapping.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_more(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a of the parts one after the other: the hash of their
/// concatenation, without building it.
pub fn fnv1a_parts(parts: &[&[u8]]) -> u64 {
    parts.iter().fold(0xcbf2_9ce4_8422_2325, |h, p| fnv1a_more(h, p))
}

/// The FNV-1a state `h` after `bytes`.
#[inline]
fn fnv1a_more(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference vectors of FNV-1a 64 ("" and "a"), and the parts hash
    /// as their concatenation does.
    #[test]
    fn fnv1a_of_parts_is_fnv1a_of_the_whole() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_parts(&[b"web", b"nginx:1.27"]), fnv1a(b"webnginx:1.27"));
        assert_eq!(fnv1a_parts(&[b"", b"a", b""]), fnv1a(b"a"));
    }

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
