//! The kubelet's work queue (`pkg/kubelet/util/queue/work_queue.go`): each
//! pod's next sync time, set when its sync completes (`completeWork`); a
//! sync-loop tick takes the pods whose time has passed (`getPodsToSync`).

use crate::ids::PodId;
use crate::time::SimTime;
use std::collections::{BTreeSet, HashMap};

#[derive(Debug, Default)]
pub struct WorkQueue {
    /// Each queued pod's time (`basicWorkQueue.queue`).
    at: HashMap<PodId, SimTime>,
    /// The same entries ordered by time, so `get_work` reads only the due ones.
    by_time: BTreeSet<(SimTime, PodId)>,
}

impl WorkQueue {
    /// `Enqueue`: the pod's entry becomes `at`, replacing any earlier one.
    pub fn enqueue(&mut self, pod: PodId, at: SimTime) {
        self.remove(pod);
        self.at.insert(pod, at);
        self.by_time.insert((at, pod));
    }

    /// Takes the pod out of the queue (a finished or forgotten pod).
    pub fn remove(&mut self, pod: PodId) {
        if let Some(old) = self.at.remove(&pod) {
            self.by_time.remove(&(old, pod));
        }
    }

    /// The time of the first entry.
    pub fn first(&self) -> Option<SimTime> {
        self.by_time.first().map(|&(at, _)| at)
    }

    /// `GetWork`: the pods whose time is before `now` (strictly), taken out
    /// of the queue, in pod order.
    pub fn get_work(&mut self, now: SimTime) -> Vec<PodId> {
        let mut due = Vec::new();
        while let Some(&(at, pod)) = self.by_time.first()
            && at < now
        {
            self.by_time.pop_first();
            self.at.remove(&pod);
            due.push(pod);
        }
        due.sort_unstable();
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `GetWork` returns what is strictly before now, once; a later
    /// `Enqueue` of the same pod replaces its time.
    #[test]
    fn get_work_takes_what_is_due_and_enqueue_replaces() {
        let t = SimTime::from_millis;
        let mut q = WorkQueue::default();
        q.enqueue(PodId(2), t(1_000));
        q.enqueue(PodId(1), t(1_500));
        q.enqueue(PodId(3), t(900));
        q.enqueue(PodId(3), t(5_000));
        assert_eq!(q.get_work(t(1_000)), vec![]);
        assert_eq!(q.get_work(t(1_501)), vec![PodId(1), PodId(2)]);
        assert_eq!(q.get_work(t(1_501)), vec![]);
        q.remove(PodId(3));
        assert_eq!(q.get_work(t(10_000)), vec![]);
    }
}
