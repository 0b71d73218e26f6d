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
//!
//! A component acts through a [`Ctx`]: it sends messages of its own type
//! into an [`Outbox`], and the world routes each into the one queue as it is
//! sent, so the contract holds across components and no component knows
//! the world's event type.

mod park;

use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
pub use park::Parked;
use park::Parking;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A pending event's place in the order: due time, then scheduling sequence
/// (the FIFO of the contract), then a parked chain's tie part ([`park`]),
/// packed so one integer comparison orders them;
/// `slot` says where the event waits. The heap moves these 24 bytes, never
/// the events themselves.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    order: u128,
    slot: u32,
}

/// A priority queue of events ordered by (due time, scheduling sequence).
///
/// Most events schedule another (a ticker its next tick, a step its next
/// step): so the key of the event being handled stays at the top of the
/// heap until the next one is scheduled, which then replaces it with one
/// sift down, instead of a pop and a push each walking the heap.
pub struct Queue<E> {
    heap: BinaryHeap<Reverse<Key>>,
    /// The top of `heap` is the key of the event popped last, still to be
    /// removed (or replaced by the next event scheduled).
    spent: bool,
    /// The pending events by slot; a slot is reused once its event is popped.
    slots: Vec<Option<E>>,
    free: Vec<u32>,
    now: SimTime,
    /// Events scheduled so far.
    seq: u64,
    /// Events handed out so far.
    popped: u64,
    parking: Parking<E>,
}

impl<E> Default for Queue<E> {
    fn default() -> Self {
        Queue {
            heap: BinaryHeap::new(),
            spent: false,
            slots: Vec::new(),
            free: Vec::new(),
            now: SimTime::ZERO,
            seq: 0,
            popped: 0,
            parking: Parking::default(),
        }
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
        // Past the keys' range (two million years) only the order among
        // such events is lost, and no run reaches them.
        let at = at.max(self.now).as_millis().min(park::TIME_LIMIT - 1);
        self.seq += 1;
        debug_assert!(self.seq < 1 << (park::TIME_SHIFT - park::SEQ_SHIFT), "scheduling count out of the keys' range");
        self.insert(park::key(at, self.seq, 0), event);
    }

    /// Puts `event` in the queue at `order`.
    #[inline(always)]
    fn insert(&mut self, order: u128, event: E) {
        let slot = match self.free.pop() {
            Some(slot) => {
                // A free slot is empty (`pop` took its event): nothing to
                // drop, so none of the event type's drop code runs here.
                let empty = self.slots[slot as usize].replace(event);
                debug_assert!(empty.is_none(), "a free slot holds an event");
                std::mem::forget(empty);
                slot
            }
            None => {
                self.slots.push(Some(event));
                self.slots.len() as u32 - 1
            }
        };
        let key = Reverse(Key { order, slot });
        match std::mem::take(&mut self.spent) {
            // Dropping the `PeekMut` sifts the new key down to its place.
            true => *self.heap.peek_mut().expect("the spent key is at the top") = key,
            false => self.heap.push(key),
        }
    }

    /// Removes the spent key of the event popped last, if no event replaced it.
    fn drop_spent(&mut self) {
        if std::mem::take(&mut self.spent) {
            self.heap.pop();
        }
    }

    /// Schedules `event` after `delay` from now.
    pub fn after(&mut self, delay: SimDuration, event: E) {
        self.at(self.now + delay, event);
    }

    /// Removes the next event due no later than `until`, advancing time to it.
    /// The parked chains' ticks before it are handled first: skipped, or
    /// queued ahead of it when their wake instant has come. At the end,
    /// the ticks they would have had until then are counted as skipped.
    pub fn pop_until(&mut self, until: SimTime) -> Option<E> {
        self.drop_spent();
        let until_ms = until.as_millis();
        let next = loop {
            let next = self.heap.peek().map(|k| k.0).filter(|k| park::time_of(k.order) <= until_ms);
            let limit = match next {
                Some(n) => n.order,
                None if until_ms < park::TIME_LIMIT - 1 => park::key(until_ms + 1, 0, 0),
                None => break None,
            };
            if !self.parking.due_before(limit) {
                break next;
            }
            match self.parking.skip_before(limit, self.seq) {
                Some((order, event)) => self.insert(order, event),
                None => break next,
            }
        };
        let next = next?;
        let at = SimTime::from_millis(park::time_of(next.order));
        // The key stays at the top until the next event scheduled replaces it.
        self.spent = true;
        self.now = at;
        self.popped += 1;
        if self.parking.popped(next.order, self.popped) {
            for chain in self.parking.all_parked() {
                self.wake(chain);
            }
        }
        // Taken last, the event is moved once, into the caller's hands.
        self.free.push(next.slot);
        self.slots[next.slot as usize].take()
    }

    /// The run's event budget and end: parked chains may skip no more ticks
    /// than leave the budget unreached ([`park`]).
    pub fn limit(&mut self, max_events: u64, until: SimTime) {
        self.parking.limit(max_events, until.as_millis());
    }

    /// Whether tickers may park (they may unless turned off: a run with
    /// every tick handled is the reference a parking run must match).
    pub fn set_parking(&mut self, on: bool) {
        self.parking.enabled = on;
    }

    /// Ticks parked chains skipped: they count as handled events.
    pub fn skipped(&self) -> u64 {
        self.parking.skipped
    }

    /// Parks a ticker: `event` would be due `period` from now, and each of
    /// its ticks, until woken (or, with `wake`, until its first tick at or
    /// after that instant), would only schedule the next one. `Err` gives
    /// it back when it cannot park (then schedule it as usual).
    pub fn park(&mut self, period: SimDuration, event: E, wake: Option<SimTime>) -> Result<Parked, E> {
        let now = self.now.as_millis();
        let wake = wake.map(SimTime::as_millis);
        self.parking.park(period.as_millis(), event, now, self.seq, self.popped, wake)
    }

    /// Wakes a parked ticker: its next tick is queued where it would have
    /// been had every skipped tick been handled. A chain back already (by
    /// the budget, or at its wake instant) is left alone.
    pub fn wake(&mut self, parked: Parked) {
        if let Some((order, event)) = self.parking.wake(parked) {
            self.insert(order, event);
        }
    }

    /// Brings a parked ticker's wake instant to `at`, if nearer: its first
    /// tick at or after `at` is handled.
    pub fn wake_by(&mut self, parked: Parked, at: SimTime) {
        self.parking.wake_by(parked, at.as_millis());
    }

    pub fn is_empty(&self) -> bool {
        self.heap.len() == usize::from(self.spent)
    }
}

/// Where a component's messages of type `M` go.
pub trait Outbox<M> {
    /// The time of the event being handled.
    fn now(&self) -> SimTime;
    /// Sends `message`, due at `at`.
    fn at(&mut self, at: SimTime, message: M);
    /// Sends `message`, due `delay` from now.
    #[inline]
    fn after(&mut self, delay: SimDuration, message: M) {
        let at = self.now() + delay;
        self.at(at, message);
    }
    /// Parks `message`, a ticker's next tick due `period` from now whose
    /// ticks change nothing until woken, or until `wake` ([`Queue::park`]);
    /// when it cannot park (or the outbox parks nothing), schedules it as
    /// usual and returns `None`.
    fn park(&mut self, period: SimDuration, message: M, _wake: Option<SimTime>) -> Option<Parked> {
        self.after(period, message);
        None
    }
    /// Wakes a parked ticker ([`Queue::wake`]).
    fn wake(&mut self, _parked: Parked) {}
    /// Brings a parked ticker's wake instant nearer ([`Queue::wake_by`]).
    fn wake_by(&mut self, _parked: Parked, _at: SimTime) {}
}

/// What a component gets to act: its outbox `O` (and through it, time) and
/// the trace. A component takes any `O: Outbox<ItsMessage>`, so the world's
/// routing is compiled into it: a message is built as the world's event in
/// place, as if the component knew the world.
pub struct Ctx<'a, O> {
    pub q: &'a mut O,
    pub trace: &'a mut Trace,
}

/// A queue seen as the outbox of a component whose messages `route` turns
/// into the queue's events.
pub struct Routed<'a, E, F> {
    pub q: &'a mut Queue<E>,
    pub route: F,
}

impl<E, M, F: FnMut(M) -> E> Outbox<M> for Routed<'_, E, F> {
    #[inline]
    fn now(&self) -> SimTime {
        self.q.now()
    }

    #[inline]
    fn at(&mut self, at: SimTime, message: M) {
        let event = (self.route)(message);
        self.q.at(at, event);
    }

    fn park(&mut self, period: SimDuration, message: M, wake: Option<SimTime>) -> Option<Parked> {
        let event = (self.route)(message);
        match self.q.park(period, event, wake) {
            Ok(parked) => Some(parked),
            Err(event) => {
                self.q.after(period, event);
                None
            }
        }
    }

    fn wake(&mut self, parked: Parked) {
        self.q.wake(parked);
    }

    fn wake_by(&mut self, parked: Parked, at: SimTime) {
        self.q.wake_by(parked, at);
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

    /// Handlers that schedule none, one or several events, at now or later,
    /// get them in the contract's order: that of a plain list sorted by
    /// (due time, scheduling order), whether or not a spent key was replaced.
    #[test]
    fn replacing_the_spent_key_keeps_the_order() {
        let mut q = Queue::default();
        let mut model: Vec<(u64, u64)> = Vec::new(); // (due ms, scheduling order)
        let (mut x, mut n) = (7u64, 0u64);
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut schedule = |q: &mut Queue<u64>, model: &mut Vec<(u64, u64)>, at: u64| {
            n += 1;
            q.at(SimTime::from_millis(at), n);
            model.push((at, n));
        };
        for _ in 0..8 {
            let at = next(50);
            schedule(&mut q, &mut model, at);
        }
        let mut handled = 0;
        while let Some(e) = q.pop_until(SimTime::from_millis(10_000)) {
            model.sort();
            let (at, expected) = model.remove(0);
            assert_eq!((q.now().as_millis(), e), (at, expected));
            handled += 1;
            if handled < 5_000 {
                for _ in 0..next(3) {
                    let at = q.now().as_millis() + next(4) * next(30);
                    schedule(&mut q, &mut model, at);
                }
            }
        }
        assert!(model.is_empty() && q.is_empty());
        assert!(handled > 1_000, "{handled} events");
    }

    #[test]
    fn stops_at_the_horizon() {
        let mut q = Queue::default();
        q.at(SimTime::from_millis(20), ());
        assert!(q.pop_until(SimTime::from_millis(10)).is_none());
        assert!(!q.is_empty());
    }
}
