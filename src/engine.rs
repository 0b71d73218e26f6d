//! The event queue that owns simulated time.
//!
//! # Ordering contract
//!
//! Events are delivered in order of their due time. Events due at the same
//! millisecond are delivered in the order they were scheduled (FIFO): the one
//! scheduled first runs first, whatever component scheduled it. A handler that
//! schedules an event for "now" therefore runs it after every event already due
//! now. This models a kubelet goroutine that is woken by a channel send: it
//! runs after the sender has finished its current step (see the prober's manual
//! trigger in `kubelet::prober`), never in the middle of it.
//!
//! Time never goes backwards: scheduling an event in the past is a logic error
//! and is clamped to "now" in release builds (asserted in debug builds).

use crate::time::{SimDuration, SimTime};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq).
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// A priority queue of events ordered by (due time, scheduling sequence).
pub struct Queue<E> {
    heap: BinaryHeap<Entry<E>>,
    now: SimTime,
    seq: u64,
}

impl<E> Default for Queue<E> {
    fn default() -> Self {
        Queue { heap: BinaryHeap::new(), now: SimTime::ZERO, seq: 0 }
    }
}

impl<E> Queue<E> {
    /// The time of the event being handled (or of the last one handled).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at the absolute time `at`.
    pub fn at(&mut self, at: SimTime, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = at.max(self.now);
        self.seq += 1;
        self.heap.push(Entry { at, seq: self.seq, event });
    }

    /// Schedules `event` after `delay` from now.
    pub fn after(&mut self, delay: SimDuration, event: E) {
        self.at(self.now + delay, event);
    }

    /// Removes the next event due no later than `until`, advancing time to it.
    pub fn pop_until(&mut self, until: SimTime) -> Option<E> {
        if self.heap.peek()?.at > until {
            return None;
        }
        let entry = self.heap.pop()?;
        self.now = entry.at;
        Some(entry.event)
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_instant_events_keep_fifo_order() {
        let mut q = Queue::default();
        q.at(SimTime::from_millis(5), "b1");
        q.at(SimTime::from_millis(1), "a");
        q.at(SimTime::from_millis(5), "b2");
        let mut out = vec![];
        while let Some(e) = q.pop_until(SimTime::from_millis(10)) {
            out.push((q.now().as_millis(), e));
            if e == "a" {
                q.after(SimDuration::from_millis(4), "b3");
            }
        }
        assert_eq!(out, vec![(1, "a"), (5, "b1"), (5, "b2"), (5, "b3")]);
    }

    #[test]
    fn stops_at_the_horizon() {
        let mut q = Queue::default();
        q.at(SimTime::from_millis(20), ());
        assert!(q.pop_until(SimTime::from_millis(10)).is_none());
        assert!(!q.is_empty());
    }
}
