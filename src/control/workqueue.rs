//! client-go's rate-limited delaying work queue, as the controllers use it:
//! a key waits at most once, a key being synced is only marked dirty and
//! queued again when its sync is done, a delayed add keeps the earliest
//! due time (`workqueue.Typed`, `delayingType.AddAfter`), and failures back
//! off per key (`ItemExponentialFailureRateLimiter`).

use crate::time::{SimDuration, SimTime};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::collections::VecDeque;
use std::hash::Hash;

pub struct WorkQueue<K> {
    queue: VecDeque<K>,
    dirty: HashSet<K>,
    processing: HashSet<K>,
    /// Delayed keys and when each is due.
    waiting: HashMap<K, SimTime>,
    failures: HashMap<K, u32>,
    /// `ItemExponentialFailureRateLimiter`'s base and cap.
    base: SimDuration,
    max: SimDuration,
}

/// The EndpointSlice controller's limiter: `defaultSyncBackOff` 1 s, `maxSyncBackOff` 1000 s.
impl<K: Copy + Eq + Hash> Default for WorkQueue<K> {
    fn default() -> Self {
        WorkQueue::with_backoff(SimDuration::from_secs(1), SimDuration::from_secs(1000))
    }
}

impl<K: Copy + Eq + Hash> WorkQueue<K> {
    /// `DefaultControllerRateLimiter`'s per-item part: 5 ms doubling to 1000 s.
    pub fn controller_default() -> Self {
        WorkQueue::with_backoff(SimDuration::from_millis(5), SimDuration::from_secs(1000))
    }

    pub fn with_backoff(base: SimDuration, max: SimDuration) -> Self {
        WorkQueue {
            queue: VecDeque::new(),
            dirty: HashSet::new(),
            processing: HashSet::new(),
            waiting: HashMap::new(),
            failures: HashMap::new(),
            base,
            max,
        }
    }

    /// `Add`: queued unless already waiting; only marked dirty while it syncs.
    pub fn add(&mut self, k: K) {
        if !self.dirty.insert(k) || self.processing.contains(&k) {
            return;
        }
        self.queue.push_back(k);
    }

    /// `AddAfter`: returns the due time the caller must wake the queue at
    /// (`None` when added at once or when an earlier due time stands).
    pub fn add_after(&mut self, k: K, delay: SimDuration, now: SimTime) -> Option<SimTime> {
        if delay == SimDuration::ZERO {
            self.add(k);
            return None;
        }
        let due = now + delay;
        match self.waiting.get(&k) {
            Some(&t) if t <= due => None,
            _ => {
                self.waiting.insert(k, due);
                Some(due)
            }
        }
    }

    /// A due time reached: the key moves to the queue if that is still its due time.
    pub fn wake(&mut self, k: K, now: SimTime) {
        if self.waiting.get(&k).is_some_and(|&t| t <= now) {
            self.waiting.remove(&k);
            self.add(k);
        }
    }

    /// `Get`: the next key to sync.
    pub fn get(&mut self) -> Option<K> {
        let k = self.queue.pop_front()?;
        self.processing.insert(k);
        self.dirty.remove(&k);
        Some(k)
    }

    /// `Done`: a key that was added during its sync is queued again.
    pub fn done(&mut self, k: K) {
        self.processing.remove(&k);
        if self.dirty.contains(&k) {
            self.queue.push_back(k);
        }
    }

    /// `AddRateLimited` after a failed sync: base, 2 × base, 4 × base … max per key.
    pub fn add_rate_limited(&mut self, k: K, now: SimTime) -> Option<SimTime> {
        let n = self.failures.entry(k).or_insert(0);
        let delay = SimDuration::from_millis(self.base.as_millis().saturating_mul(1 << (*n).min(20))).min(self.max);
        *n += 1;
        self.add_after(k, delay, now)
    }

    /// The number of failed syncs in a row (`NumRequeues`).
    pub fn requeues(&self, k: K) -> u32 {
        self.failures.get(&k).copied().unwrap_or(0)
    }

    /// `Forget`: a successful sync resets the backoff.
    pub fn forget(&mut self, k: K) {
        self.failures.remove(&k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_millis(ms)
    }

    #[test]
    fn a_key_waits_once_and_syncs_again_after_an_add_during_its_sync() {
        let mut q = WorkQueue::default();
        q.add(1);
        q.add(1);
        assert_eq!(q.get(), Some(1));
        assert_eq!(q.get(), None);
        q.add(1); // during the sync: dirty, not queued
        assert_eq!(q.get(), None);
        q.done(1);
        assert_eq!(q.get(), Some(1));
    }

    #[test]
    fn a_delayed_add_keeps_the_earliest_due_time() {
        let mut q = WorkQueue::default();
        assert_eq!(q.add_after(1, SimDuration::from_secs(5), t(0)), Some(t(5000)));
        assert_eq!(q.add_after(1, SimDuration::from_secs(9), t(1000)), None);
        assert_eq!(q.add_after(1, SimDuration::from_secs(1), t(1000)), Some(t(2000)));
        q.wake(1, t(5000)); // the first timer fires late: the key is due since 2 s
        assert_eq!(q.get(), Some(1));
    }

    #[test]
    fn failures_back_off_exponentially_until_forgotten() {
        let mut q = WorkQueue::default();
        assert_eq!(q.add_rate_limited(1, t(0)), Some(t(1000)));
        q.wake(1, t(1000));
        assert_eq!(q.get(), Some(1));
        q.done(1);
        assert_eq!(q.add_rate_limited(1, t(1000)), Some(t(3000)));
        assert_eq!(q.requeues(1), 2);
        q.wake(1, t(3000));
        assert_eq!(q.get(), Some(1));
        q.done(1);
        q.forget(1);
        assert_eq!(q.add_rate_limited(1, t(4000)), Some(t(5000)));
    }
}
