//! A milestone's time distribution over the runs that reached it.

use crate::time::SimTime;

/// Min, nearest-rank percentiles and max, and how many runs got there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    pub reached: u32,
    pub runs: u32,
    pub min: SimTime,
    pub p50: SimTime,
    pub p95: SimTime,
    pub p99: SimTime,
    pub max: SimTime,
}

impl Stats {
    /// `times` of the runs that reached the milestone, out of `runs`.
    pub fn of(mut times: Vec<SimTime>, runs: u32) -> Option<Stats> {
        if times.is_empty() {
            return None;
        }
        times.sort_unstable();
        // Nearest rank: the smallest time with at least p % of the values at or below it.
        let rank = |p: usize| times[(times.len() * p).div_ceil(100).max(1) - 1];
        Some(Stats {
            reached: times.len() as u32,
            runs,
            min: times[0],
            p50: rank(50),
            p95: rank(95),
            p99: rank(99),
            max: times[times.len() - 1],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_millis(ms)
    }

    #[test]
    fn nearest_rank_percentiles() {
        let s = Stats::of((1..=100).map(t).collect(), 120).unwrap();
        assert_eq!((s.reached, s.runs), (100, 120));
        assert_eq!((s.min, s.p50, s.p95, s.p99, s.max), (t(1), t(50), t(95), t(99), t(100)));
        let one = Stats::of(vec![t(7)], 1).unwrap();
        assert_eq!((one.p50, one.p99), (t(7), t(7)));
        assert!(Stats::of(Vec::new(), 3).is_none());
    }
}
