//! Parked tickers: a periodic event whose ticks would change nothing until
//! something wakes it (a probe worker that would skip its probe until what
//! it reads of the pod's cached status changes) leaves the queue, and comes
//! back when woken at the exact place its tick would have had, as if every
//! skipped tick had been handled.
//!
//! That place is the ordering contract's: a tick is due one period after the
//! tick before it, and among the events due at the same millisecond it
//! comes after every event scheduled before that earlier tick was handled,
//! before every event scheduled after. So a parked chain keeps the key of
//! its next tick, and when the queue hands out an event whose key is past
//! it, that tick counts as handled just before: the next tick's key is the
//! number of events scheduled by then, with a tie part that puts it after
//! the last of them and before the next. Two skipped ticks of the same
//! millisecond with the same count are ordered as their parent ticks were:
//! by the parents' times (a longer period's parent came earlier), and for
//! chains in step (same period, same phase) by a rank, given when each
//! parks after the chains whose tick of that instant was handled before
//! its own, which keeps their order while they stay parked. A skipped tick
//! costs a step of a small heap of the parked chains instead of the whole
//! event path.
//!
//! A chain may also be parked until an instant (a sync-loop tick until a
//! pod's work-queue entry falls due): its first tick at or after that
//! instant is not skipped but queued, at its key, before the event that
//! would have passed it is handed out. An owner may bring that instant
//! nearer while the chain is parked; a chain woken early only handles a
//! tick that changes nothing, and parks again.
//!
//! A run's event budget counts the skipped ticks: a chain parks only while
//! the ticks it could skip before the run's end leave the budget unreached,
//! and once the bound comes near, every chain is woken and none parks again.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// A key: due millisecond (56 bits), scheduling count (40 bits), tie (32
/// bits, zero for an event scheduled as usual).
pub(super) const TIME_SHIFT: u32 = 72;
pub(super) const SEQ_SHIFT: u32 = 32;
const TIE_MASK: u128 = (1 << SEQ_SHIFT) - 1;
/// Keys hold due times below this (over two million years in ms).
pub(super) const TIME_LIMIT: u64 = 1 << (128 - TIME_SHIFT);
/// The tie part: the period's complement (longer periods first), then the rank.
const RANK_BITS: u32 = 12;
const RANK_LIMIT: u16 = 1 << RANK_BITS;
/// Periods a chain may have, in ms (17 minutes; a longer ticker ticks as usual).
const PERIOD_LIMIT: u64 = 1 << (32 - RANK_BITS);

pub(super) fn key(at_ms: u64, seq: u64, tie: u32) -> u128 {
    (u128::from(at_ms) << TIME_SHIFT) | (u128::from(seq) << SEQ_SHIFT) | u128::from(tie)
}

pub(super) fn time_of(key: u128) -> u64 {
    (key >> TIME_SHIFT) as u64
}

/// A parked chain, as its owner keeps it to wake it. A handle whose chain
/// came back meanwhile (woken by the budget, or at its wake instant) wakes
/// nothing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Parked {
    index: u32,
    generation: u32,
}

struct Chain<E> {
    /// (period, phase), in ms: the chains whose ticks fall on the same instants.
    class: (u64, u64),
    rank: u16,
    tie: u32,
    /// The key of its next tick; once woken, the key its tick waits at in
    /// the queue.
    next: u128,
    /// At most this many more ticks skipped before the run's end.
    bound: u64,
    /// Its first tick at or after this ms is handled (`u64::MAX`: none).
    wake_at: u64,
    /// The tick to deliver when woken; `None` once woken, while the tick
    /// waits in the queue (the chain keeps its rank until it is handled).
    event: Option<E>,
}

pub(super) struct Parking<E> {
    chains: Vec<Option<Chain<E>>>,
    generations: Vec<u32>,
    free: Vec<u32>,
    /// The parked chains by their next tick's key; a woken chain's entry
    /// is dropped when it comes to the top.
    due: BinaryHeap<Reverse<(u128, u32)>>,
    /// The chains by class, then rank.
    classes: BTreeMap<((u64, u64), u16), u32>,
    parked: usize,
    /// Woken chains whose tick waits in the queue, by its key.
    waiting: Vec<(u128, u32)>,
    /// Ticks skipped so far.
    pub skipped: u64,
    /// The sum of the parked chains' bounds.
    bound: u64,
    /// The run's event budget and end (ms): no budget until told.
    max_events: u64,
    until: u64,
    pub enabled: bool,
}

impl<E> Default for Parking<E> {
    fn default() -> Self {
        Parking {
            chains: Vec::new(),
            generations: Vec::new(),
            free: Vec::new(),
            due: BinaryHeap::new(),
            classes: BTreeMap::new(),
            parked: 0,
            waiting: Vec::new(),
            skipped: 0,
            bound: 0,
            max_events: u64::MAX,
            until: u64::MAX,
            enabled: true,
        }
    }
}

impl<E> Parking<E> {
    pub fn limit(&mut self, max_events: u64, until_ms: u64) {
        self.max_events = max_events;
        self.until = until_ms;
    }

    /// Whether a parked chain's tick comes before the event keyed `k`.
    #[inline]
    pub fn due_before(&self, k: u128) -> bool {
        self.due.peek().is_some_and(|top| top.0.0 < k)
    }

    /// The event keyed `k` is handed out, `popped` handed out so far (this
    /// one included), the parked chains' ticks before it handled
    /// ([`Parking::skip_before`]). True when the budget is near: every
    /// parked chain is to be woken ([`Parking::all_parked`]) and none parks
    /// again.
    #[inline]
    pub fn popped(&mut self, k: u128, popped: u64) -> bool {
        if k & TIE_MASK != 0 {
            self.handled(k);
        }
        self.parked > 0 && popped.saturating_add(self.skipped).saturating_add(self.bound) >= self.max_events && {
            self.enabled = false;
            true
        }
    }

    /// The parked chains' ticks keyed before `k` are handled, as no-ops,
    /// just before it: each schedules its next after `seq` events. A tick
    /// at or after its chain's wake instant is not skipped: the chain is
    /// woken, and its tick (key and event) is returned to be queued, to
    /// come before `k`.
    #[cold]
    pub fn skip_before(&mut self, k: u128, seq: u64) -> Option<(u128, E)> {
        loop {
            let Some(mut top) = self.due.peek_mut() else { break };
            let Reverse((next, index)) = *top;
            if next >= k {
                break;
            }
            let chain = self.chains[index as usize].as_mut().filter(|c| c.event.is_some() && c.next == next);
            if chain.as_ref().is_some_and(|c| time_of(next) >= c.wake_at) {
                drop(top);
                return self.release(index);
            }
            match chain {
                Some(c) => {
                    c.next = key(time_of(next) + c.class.0, seq, c.tie);
                    c.bound -= 1;
                    self.bound -= 1;
                    self.skipped += 1;
                    *top = Reverse((c.next, index));
                }
                // A woken chain's entry.
                _ => drop(std::collections::binary_heap::PeekMut::pop(top)),
            }
        }
        None
    }

    /// The chains parked now.
    #[cold]
    pub fn all_parked(&self) -> Vec<Parked> {
        let parked = self.chains.iter().enumerate().filter(|(_, c)| c.as_ref().is_some_and(|c| c.event.is_some()));
        parked.map(|(i, _)| Parked { index: i as u32, generation: self.generations[i] }).collect()
    }

    /// A woken chain's tick is handled: the chain is done.
    #[cold]
    fn handled(&mut self, k: u128) {
        let at = self.waiting.iter().position(|w| w.0 == k).expect("a tied key is a woken chain's tick");
        let (_, index) = self.waiting.swap_remove(at);
        let c = self.chains[index as usize].take().expect("a waiting chain exists");
        self.classes.remove(&(c.class, c.rank)).expect("a chain is in its class");
        self.generations[index as usize] += 1;
        self.free.push(index);
    }

    /// Parks a tick due `period_ms` after `now_ms`, with `seq` events
    /// scheduled so far and `popped` handed out, until woken or, if
    /// `wake_at` is given, until its first tick at or after that ms.
    /// `Err` gives the event back when it cannot park.
    pub fn park(
        &mut self,
        period_ms: u64,
        event: E,
        now_ms: u64,
        seq: u64,
        popped: u64,
        wake_at: Option<u64>,
    ) -> Result<Parked, E> {
        if !self.enabled || period_ms == 0 || period_ms >= PERIOD_LIMIT {
            return Err(event);
        }
        // Its ticks up to the run's end, and before its wake instant.
        let first = now_ms + period_ms;
        let last = wake_at.map_or(self.until, |w| self.until.min(w.saturating_sub(1)));
        let bound = if first > last { 0 } else { (last - first) / period_ms + 1 };
        if popped.saturating_add(self.skipped).saturating_add(self.bound).saturating_add(bound) >= self.max_events {
            return Err(event);
        }
        let class = (period_ms, now_ms % period_ms);
        // The chains in step whose tick of this instant was handled before
        // this one come first (a prefix, in rank order): their next tick is
        // a period away.
        let (mut low, mut high) = (0, RANK_LIMIT);
        for (&(_, rank), &m) in self.classes.range((class, 0)..=(class, RANK_LIMIT)) {
            let c = self.chains[m as usize].as_ref().expect("a class member exists");
            if time_of(c.next) > now_ms {
                debug_assert_eq!(high, RANK_LIMIT, "the chains handled first are not a prefix");
                low = rank;
            } else if high == RANK_LIMIT {
                high = rank;
            }
        }
        let rank = low + (high - low) / 2;
        if rank == low {
            return Err(event);
        }
        let tie = (((PERIOD_LIMIT - 1 - period_ms) as u32) << RANK_BITS) | u32::from(rank);
        let next = key(first, seq, tie);
        let chain = Chain { class, rank, tie, next, bound, wake_at: wake_at.unwrap_or(u64::MAX), event: Some(event) };
        let index = match self.free.pop() {
            Some(i) => {
                self.chains[i as usize] = Some(chain);
                i
            }
            None => {
                self.chains.push(Some(chain));
                self.generations.push(0);
                self.chains.len() as u32 - 1
            }
        };
        self.classes.insert((class, rank), index);
        self.due.push(Reverse((next, index)));
        self.parked += 1;
        self.bound += bound;
        Ok(Parked { index, generation: self.generations[index as usize] })
    }

    /// Wakes a parked chain: its next tick's key and event, to be queued.
    pub fn wake(&mut self, p: Parked) -> Option<(u128, E)> {
        if self.generations.get(p.index as usize) != Some(&p.generation) {
            return None;
        }
        self.release(p.index)
    }

    /// Brings a parked chain's wake instant to `at_ms`, if nearer.
    pub fn wake_by(&mut self, p: Parked, at_ms: u64) {
        if self.generations.get(p.index as usize) != Some(&p.generation) {
            return;
        }
        if let Some(c) = self.chains[p.index as usize].as_mut().filter(|c| c.event.is_some()) {
            c.wake_at = c.wake_at.min(at_ms);
        }
    }

    /// A parked chain leaves the parked ones; its tick waits in the queue.
    fn release(&mut self, index: u32) -> Option<(u128, E)> {
        let c = self.chains[index as usize].as_mut()?;
        let event = c.event.take()?;
        self.waiting.push((c.next, index));
        self.parked -= 1;
        self.bound -= c.bound;
        Some((c.next, event))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Queue;
    use super::Parked;
    use crate::time::{SimDuration, SimTime};

    #[derive(Copy, Clone, Debug, PartialEq, Eq)]
    enum Ev {
        Tick(usize),
        Other(u32),
    }

    /// A small deterministic generator: both runs draw the same numbers as
    /// long as they handle the same events.
    struct Draws(u64);
    impl Draws {
        fn next(&mut self, m: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % m
        }
    }

    /// What a run handled: the events other than dormant ticks, with their
    /// times, when a budget stopped it, and the events it counted (skipped
    /// ticks included).
    type Outcome = (Vec<(u64, Ev)>, Option<u64>, u64);

    /// Tickers of 2–6 ms periods (many in step) that turn dormant at random,
    /// until woken or until an instant, and other events, due at the same
    /// millisecond as much as later, that wake tickers at random or bring
    /// their instant nearer. Returns what it handled; and the ticks skipped,
    /// and those handled at the end of a dormancy until an instant.
    fn run(seed: u64, parking: bool, budget: u64) -> (Outcome, (u64, u64)) {
        let periods = [2, 2, 2, 3, 3, 4, 4, 4, 6];
        let until = SimTime::from_millis(2_000 - seed % 5 * 37);
        let mut q: Queue<Ev> = Queue::default();
        q.set_parking(parking);
        q.limit(budget, until);
        let mut d = Draws(seed);
        // Dormant until this ms (`u64::MAX`: until woken); active if `None`.
        let mut dormant: Vec<Option<u64>> = vec![None; periods.len()];
        let mut parked: Vec<Option<Parked>> = vec![None; periods.len()];
        for (i, p) in periods.iter().enumerate() {
            q.at(SimTime::from_millis(d.next(2) * p), Ev::Tick(i));
        }
        let (mut seen, mut others, mut handled, mut stopped, mut timed) = (Vec::new(), 0, 0, None, 0);
        while let Some(ev) = q.pop_until(until) {
            if handled + q.skipped() == budget {
                stopped = Some(q.now().as_millis());
                break;
            }
            handled += 1;
            let now = q.now().as_millis();
            match ev {
                Ev::Tick(i) => {
                    let period = SimDuration::from_millis(periods[i]);
                    if let Some(until) = dormant[i].filter(|&until| now < until) {
                        let wake = (until < u64::MAX).then(|| SimTime::from_millis(until));
                        match q.park(period, Ev::Tick(i), wake) {
                            Ok(p) => parked[i] = Some(p),
                            Err(e) => q.after(period, e),
                        }
                        continue;
                    }
                    timed += u64::from(dormant[i].is_some_and(|until| until < u64::MAX));
                    q.after(period, Ev::Tick(i));
                    seen.push((now, ev));
                    dormant[i] = match d.next(3) {
                        0 => None,
                        1 => Some(u64::MAX),
                        _ => Some(now + 1 + d.next(40)),
                    };
                    for _ in 0..d.next(2) {
                        others += 1;
                        q.after(SimDuration::from_millis(d.next(2) * d.next(5)), Ev::Other(others));
                    }
                }
                Ev::Other(_) => {
                    seen.push((now, ev));
                    for _ in 0..d.next(3) {
                        let i = d.next(periods.len() as u64) as usize;
                        match d.next(2) {
                            0 => {
                                dormant[i] = None;
                                if let Some(p) = parked[i].take() {
                                    q.wake(p);
                                }
                            }
                            _ => {
                                // Nearer, or already past.
                                let by = (now + d.next(2) * d.next(20)).saturating_sub(d.next(3));
                                dormant[i] = dormant[i].map(|until| until.min(by));
                                if let Some(p) = parked[i] {
                                    q.wake_by(p, SimTime::from_millis(by));
                                }
                            }
                        }
                    }
                    if d.next(4) == 0 {
                        others += 1;
                        q.after(SimDuration::from_millis(d.next(2) * d.next(4)), Ev::Other(others));
                    }
                }
            }
            // Keep the run going: a little noise on every instant.
            if d.next(5) == 0 {
                others += 1;
                q.after(SimDuration::from_millis(1 + d.next(3)), Ev::Other(others));
            }
        }
        ((seen, stopped, handled + q.skipped()), (q.skipped(), timed))
    }

    /// The events handled, their order within each millisecond included,
    /// are those of a queue that handles every tick; so are where the event
    /// budget stops the run and the events counted.
    #[test]
    fn parked_tickers_come_back_in_their_place() {
        let (mut skipped, mut timed, mut stopped) = (0, 0, 0);
        for seed in 0..300 {
            let budget = if seed % 3 == 0 { 1_500 + seed * 7 } else { u64::MAX };
            let (reference, _) = run(seed, false, budget);
            let (parking, counts) = run(seed, true, budget);
            let first = parking.0.iter().zip(&reference.0).position(|(a, b)| a != b);
            let around = |v: &[(u64, Ev)]| first.map(|i| v[i.saturating_sub(6)..(i + 4).min(v.len())].to_vec());
            assert_eq!(parking, reference, "seed {seed}: {:?}\n{:?}", around(&parking.0), around(&reference.0));
            skipped += counts.0;
            timed += counts.1;
            stopped += usize::from(reference.1.is_some());
        }
        assert!(
            skipped > 300_000 && timed > 60_000 && stopped > 50,
            "{skipped} skipped, {timed} timed, {stopped} stopped"
        );
    }
}
