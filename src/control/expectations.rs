//! `ControllerExpectations` with `UIDTrackingControllerExpectations`
//! (pkg/controller/controller_utils.go): what a controller asked the API
//! server to create and delete, per key, until its informers have shown it.
//! A sync acts only on a key whose expectations are met, or have expired
//! (`ExpectationsTimeout`): before, its cache may not yet hold its own writes.

use crate::time::{SimDuration, SimTime};
use std::collections::{BTreeMap, BTreeSet};

/// `ExpectationsTimeout`: expectations older than this are ignored.
const TIMEOUT: SimDuration = SimDuration::from_secs(300);

#[derive(Debug)]
struct Expectation<D> {
    /// Creations not yet seen.
    add: i64,
    /// The objects it asked to delete and has not seen go.
    del: BTreeSet<D>,
    /// When they were set.
    at: SimTime,
}

/// Per key `K`, with deleted objects tracked by `D`.
#[derive(Debug)]
pub struct Expectations<K, D> {
    by_key: BTreeMap<K, Expectation<D>>,
}

impl<K, D> Default for Expectations<K, D> {
    fn default() -> Self {
        Expectations { by_key: BTreeMap::new() }
    }
}

impl<K: Ord + Copy, D: Ord> Expectations<K, D> {
    /// `ExpectCreations`: `count` creations, set at `now`.
    pub fn expect_creations(&mut self, k: K, count: u32, now: SimTime) {
        self.by_key.insert(k, Expectation { add: i64::from(count), del: BTreeSet::new(), at: now });
    }

    /// `ExpectDeletions` of these objects, set at `now`.
    pub fn expect_deletions(&mut self, k: K, doomed: impl IntoIterator<Item = D>, now: SimTime) {
        self.by_key.insert(k, Expectation { add: 0, del: doomed.into_iter().collect(), at: now });
    }

    /// `SetExpectations`: `count` creations and these deletions at once (the
    /// DaemonSet controller's `syncNodes`).
    pub fn expect(&mut self, k: K, count: u32, doomed: impl IntoIterator<Item = D>, now: SimTime) {
        self.by_key.insert(k, Expectation { add: i64::from(count), del: doomed.into_iter().collect(), at: now });
    }

    /// `CreationObserved`.
    pub fn creation_observed(&mut self, k: K) {
        if let Some(e) = self.by_key.get_mut(&k) {
            e.add -= 1;
        }
    }

    /// `DeletionObserved` of `d`.
    pub fn deletion_observed(&mut self, k: K, d: &D) {
        if let Some(e) = self.by_key.get_mut(&k) {
            e.del.remove(d);
        }
    }

    /// `SatisfiedExpectations`: none set, all seen, or expired.
    pub fn satisfied(&self, k: K, now: SimTime) -> bool {
        self.by_key.get(&k).is_none_or(|e| (e.add <= 0 && e.del.is_empty()) || now.since(e.at) > TIMEOUT)
    }

    /// `DeleteExpectations`: the key's object is gone.
    pub fn delete(&mut self, k: K) {
        self.by_key.remove(&k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Met once every creation and deletion is seen; ignored after 300 s.
    #[test]
    fn expectations_are_met_when_seen_or_expired() {
        let mut e: Expectations<u32, u32> = Expectations::default();
        let t0 = SimTime::ZERO;
        assert!(e.satisfied(1, t0), "none set");
        e.expect_creations(1, 2, t0);
        e.creation_observed(1);
        assert!(!e.satisfied(1, t0));
        e.creation_observed(1);
        assert!(e.satisfied(1, t0));
        e.expect_deletions(1, [7, 8], t0);
        e.deletion_observed(1, &7);
        assert!(!e.satisfied(1, t0 + SimDuration::from_secs(300)), "not yet expired at 300 s");
        assert!(e.satisfied(1, t0 + SimDuration::from_millis(300_001)), "expired after");
        e.deletion_observed(1, &8);
        assert!(e.satisfied(1, t0));
        e.expect_creations(2, 1, t0);
        e.delete(2);
        assert!(e.satisfied(2, t0));
    }
}
