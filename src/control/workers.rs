//! A controller's workers (client-go: `Run(ctx, workers)`, each worker
//! looping on `processNextWorkItem`): up to `workers` keys sync at once,
//! each holding its worker until its sync ends. A sync here may wait for
//! the API server's answers across events, so each running sync keeps its
//! state `S` until it ends, well (`Forget`, `Done`) or not (`Done`, its
//! failures kept for a rate-limited requeue).

use crate::control::workqueue::WorkQueue;
use crate::time::SimTime;
use std::collections::BTreeMap;
use std::hash::Hash;

pub struct Workers<K, S> {
    /// The work queue: handlers add keys to it, timers wake them.
    pub queue: WorkQueue<K>,
    running: BTreeMap<K, S>,
    workers: usize,
}

impl<K: Copy + Eq + Hash + Ord, S> Workers<K, S> {
    pub fn new(queue: WorkQueue<K>, workers: usize) -> Self {
        Workers { queue, running: BTreeMap::new(), workers }
    }

    /// A free worker takes the next key (`Get`); `None` when every worker
    /// is busy or nothing is queued.
    pub fn get(&mut self) -> Option<K> {
        if self.running.len() >= self.workers {
            return None;
        }
        self.queue.get()
    }

    /// The sync of `k` goes on in state `s` (it waits for an answer).
    pub fn run(&mut self, k: K, s: S) {
        self.running.insert(k, s);
    }

    /// The running sync of `k`.
    pub fn state(&mut self, k: K) -> Option<&mut S> {
        self.running.get_mut(&k)
    }

    /// Takes the running sync of `k` out, to move it to its next state
    /// (`run` again) or end it.
    pub fn take(&mut self, k: K) -> Option<S> {
        self.running.remove(&k)
    }

    /// The sync of `k` succeeded: its failures are forgotten (`Forget`) and
    /// the key released (`Done`).
    pub fn succeeded(&mut self, k: K) {
        self.running.remove(&k);
        self.queue.forget(k);
        self.queue.done(k);
    }

    /// The sync of `k` ended without success: the key is released (`Done`),
    /// its failures kept for the back-off of a rate-limited requeue.
    pub fn done(&mut self, k: K) {
        self.running.remove(&k);
        self.queue.done(k);
    }

    /// `handleErr`: the sync of `k` failed; the key is released and added
    /// again after its back-off (`AddRateLimited`). When to wake the queue.
    pub fn failed(&mut self, k: K, now: SimTime) -> Option<SimTime> {
        self.done(k);
        self.queue.add_rate_limited(k, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two workers: a third key waits until a sync ends; a key added while
    /// it syncs runs again after (`processing`, then `dirty`).
    #[test]
    fn keys_wait_for_a_free_worker_and_a_key_syncs_once_at_a_time() {
        let mut w: Workers<u32, &str> = Workers::new(WorkQueue::controller_default(), 2);
        for k in [1, 2, 3] {
            w.queue.add(k);
        }
        let a = w.get().unwrap();
        w.run(a, "claiming");
        let b = w.get().unwrap();
        w.run(b, "claiming");
        assert_eq!((a, b, w.get()), (1, 2, None), "both workers busy");
        w.queue.add(1);
        w.succeeded(1);
        assert_eq!(w.get(), Some(3));
        w.run(3, "writing");
        assert_eq!(w.state(3), Some(&mut "writing"));
        w.done(2);
        assert_eq!(w.get(), Some(1), "added while it synced: queued again when done");
    }
}
