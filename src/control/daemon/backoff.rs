//! The failed-pod back-off (`failedPodsBackoff`, client-go
//! `flowcontrol.NewBackOff(1s, 15min)` in `startDaemonSetController`): per
//! DaemonSet, observed generation and node, a failed pod is deleted at
//! once, the next one 1 s after, then 2 s, 4 s … up to 15 minutes; an
//! entry untouched for twice the cap starts over.

use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;

const INITIAL: SimDuration = SimDuration::from_secs(1);
const MAX: SimDuration = SimDuration::from_secs(15 * 60);

/// `failedPodsBackoffKey`: `<uid>/<observedGeneration>/<node>`.
pub type Key = (std::sync::Arc<str>, i64, std::sync::Arc<str>);

#[derive(Debug, Default)]
pub struct FailedPodsBackoff {
    /// The current back-off of a key and when it was last moved.
    entries: BTreeMap<Key, (SimDuration, SimTime)>,
}

impl FailedPodsBackoff {
    /// `hasExpired`: untouched for more than twice the cap.
    fn expired(last: SimTime, now: SimTime) -> bool {
        now.since(last) > MAX + MAX
    }

    /// `IsInBackOffSinceUpdate`: less than the current back-off since it moved.
    pub fn in_backoff(&self, key: &Key, now: SimTime) -> bool {
        self.entries.get(key).is_some_and(|&(d, last)| !Self::expired(last, now) && now.since(last) < d)
    }

    /// `Get`: the current back-off (the delay the controller requeues after).
    pub fn get(&self, key: &Key) -> SimDuration {
        self.entries.get(key).map_or(SimDuration::ZERO, |e| e.0)
    }

    /// `Next`: 1 s for a new or expired key, else doubled up to the cap.
    pub fn next(&mut self, key: Key, now: SimTime) {
        let d = match self.entries.get(&key) {
            Some(&(d, last)) if !Self::expired(last, now) => (d + d).min(MAX),
            _ => INITIAL,
        };
        self.entries.insert(key, (d, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deleted at once, then after 1 s, 2 s, 4 s …, 512 s, 900 s; reset after 30 minutes.
    #[test]
    fn back_off_doubles_to_fifteen_minutes() {
        let mut b = FailedPodsBackoff::default();
        let key: Key = ("uid".into(), 1, "node-1".into());
        let t = |s: u64| SimTime::ZERO + SimDuration::from_secs(s);
        assert!(!b.in_backoff(&key, t(0)));
        b.next(key.clone(), t(0));
        assert_eq!(b.get(&key), SimDuration::from_secs(1));
        assert!(b.in_backoff(&key, SimTime::ZERO + SimDuration::from_millis(999)));
        assert!(!b.in_backoff(&key, t(1)));
        let mut now = 1;
        for want in [2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900] {
            b.next(key.clone(), t(now));
            assert_eq!(b.get(&key), SimDuration::from_secs(want));
            now += want;
        }
        b.next(key.clone(), t(now + 1801));
        assert_eq!(b.get(&key), SimDuration::from_secs(1), "an entry untouched for 30 minutes starts over");
    }
}
