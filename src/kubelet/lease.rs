//! The kubelet's node lease: its heartbeat. The lease controller renews
//! `kube-node-lease/<node>` every `nodeLeaseDurationSeconds` × 0.25 = 10 s,
//! jittered up by 4 % (`wait.JitterUntilWithContext(ctx, c.sync,
//! c.renewInterval, 0.04, true)` in component-helpers' lease controller
//! `Run`), at once when the kubelet starts. Renewals are drawn lazily: only
//! the node lifecycle controller reads them, and only in runs that take a
//! node down.

use crate::rng::{Label, Stream, What};
use crate::time::{SimDuration, SimTime};

/// `renewInterval`: 40 s × `nodeLeaseRenewIntervalFraction` (0.25).
pub const RENEW_INTERVAL: SimDuration = SimDuration::from_secs(10);
/// `JitterUntil`'s jitter factor.
const JITTER: f64 = 0.04;

/// One node's renewals.
pub struct Lease {
    node: std::sync::Arc<str>,
    /// The next renewal, while the kubelet runs.
    next: Option<SimTime>,
    /// The latest renewal drawn so far.
    last: Option<SimTime>,
    rng: Stream,
}

impl Lease {
    /// A kubelet running before the run starts: its first renewal within one interval.
    pub fn running(node: std::sync::Arc<str>, seed: u64) -> Lease {
        let mut rng = Stream::new(seed, &format!("kubelet/{node}/lease"));
        let first = rng.phase(RENEW_INTERVAL, || Label::new(What::Phase, format!("node/{node}")).with("node lease"));
        Lease { node, next: Some(SimTime::ZERO + first), last: None, rng }
    }

    /// The latest renewal at or before `now`.
    pub fn latest(&mut self, now: SimTime) -> Option<SimTime> {
        while let Some(t) = self.next.filter(|&t| t <= now) {
            self.last = Some(t);
            let node = &self.node;
            let jitter = self.rng.jitter(|| Label::new(What::LeaseRenew, format!("node/{node}")));
            let ms = RENEW_INTERVAL.as_millis() as f64 * (1.0 + JITTER * jitter);
            self.next = Some(t + SimDuration::from_millis(ms as u64));
        }
        self.last
    }

    /// The kubelet stops (its node went down): no renewal after `at`.
    pub fn stop(&mut self, at: SimTime) {
        self.latest(at);
        self.next = None;
    }

    /// The kubelet starts at `at`: it renews at once.
    pub fn start(&mut self, at: SimTime) {
        self.latest(at);
        self.next = Some(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renewals_come_every_ten_to_ten_point_four_seconds_and_stop_with_the_kubelet() {
        let mut l = Lease::running("n".into(), 7);
        let first = l.latest(SimTime::ZERO + RENEW_INTERVAL).expect("one renewal in the first interval");
        let mut prev = first;
        for k in 11..200u64 {
            let t = l.latest(SimTime::ZERO + SimDuration::from_secs(k)).expect("renewed");
            if t != prev {
                let gap = t - prev;
                assert!(gap >= RENEW_INTERVAL && gap <= SimDuration::from_millis(10_400), "{gap}");
                prev = t;
            }
        }
        let stop = SimTime::ZERO + SimDuration::from_secs(300);
        l.stop(stop);
        let last = l.latest(stop).expect("renewed");
        assert_eq!(l.latest(stop + SimDuration::from_secs(600)), Some(last));
        let back = stop + SimDuration::from_secs(900);
        l.start(back);
        assert_eq!(l.latest(back), Some(back), "a starting kubelet renews at once");
    }
}
