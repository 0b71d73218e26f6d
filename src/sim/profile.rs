//! Where one run's time goes, by kind of event: how many of each kind were
//! handled, how long their handling took and how many allocations it made,
//! and how long the queue took to give them (what `cargo bench --bench
//! events` prints).

use super::{Ev, World};
use crate::kubelet;
use crate::time::SimTime;
use crate::trace::Trace;
use std::collections::HashMap;
use std::mem::{Discriminant, discriminant};
use std::time::Instant;

/// The handling of one kind of event in a run.
#[derive(Clone, Debug)]
pub struct Cost {
    /// The message's variant: `Send`, `Kubelet ProbeTick`, ….
    pub kind: String,
    pub count: u64,
    pub nanos: u64,
    /// Heap allocations made handling them, as the caller's counter saw them.
    pub allocs: u64,
}

/// One run's costs: each kind's handling (by total time, largest first), and
/// the queue's part (popping each event, the loop around the handlers).
#[derive(Clone, Debug)]
pub struct Profile {
    pub kinds: Vec<Cost>,
    pub queue_nanos: u64,
    /// Events handled.
    pub events: u64,
    /// Ticks parked tickers skipped ([`crate::engine::Queue::park`]).
    pub skipped: u64,
}

type KindKey = (Discriminant<Ev>, Option<Discriminant<kubelet::Ev>>);

/// The variant's name, from its `Debug` text (made once per kind).
fn kind_name(ev: &Ev) -> String {
    let name = |text: String| text.split([' ', '(', '{']).next().unwrap_or_default().to_string();
    match ev {
        Ev::Kubelet(_, _, k) => format!("Kubelet {}", name(format!("{k:?}"))),
        _ => name(format!("{ev:?}")),
    }
}

impl World {
    /// Runs until `until` as [`World::run`] does (within the same budgets),
    /// timing the handling of each event: `Instant::now` between events, its
    /// own cost (`clock`, measured by the caller) taken off each interval.
    /// `allocations` reads the caller's count of heap allocations (a
    /// counting global allocator; `|| 0` without one).
    pub fn run_profiled(mut self, until: SimTime, clock: u64, allocations: impl Fn() -> u64) -> (Trace, Profile) {
        let mut by_kind: HashMap<KindKey, Cost> = HashMap::new();
        let (mut queue_nanos, mut events) = (0u64, 0u64);
        let mut mark = Instant::now();
        self.q.limit(self.max_events, until);
        while let Some(ev) = self.q.pop_until(until) {
            if self.events_spent(events) {
                break;
            }
            events += 1;
            let popped = Instant::now();
            queue_nanos += (popped - mark).as_nanos().saturating_sub(clock.into()) as u64;
            let key = (discriminant(&ev), if let Ev::Kubelet(_, _, k) = &ev { Some(discriminant(k)) } else { None });
            let cost =
                by_kind.entry(key).or_insert_with(|| Cost { kind: kind_name(&ev), count: 0, nanos: 0, allocs: 0 });
            let allocated = allocations();
            let handling = Instant::now();
            self.dispatch(ev);
            mark = Instant::now();
            cost.allocs += allocations() - allocated;
            cost.count += 1;
            cost.nanos += (mark - handling).as_nanos().saturating_sub(clock.into()) as u64;
            if self.pods_spent() {
                break;
            }
        }
        let mut kinds: Vec<Cost> = by_kind.into_values().collect();
        kinds.sort_by(|a, b| b.nanos.cmp(&a.nanos).then_with(|| a.kind.cmp(&b.kind)));
        let skipped = self.q.skipped();
        (self.trace, Profile { kinds, queue_nanos, events, skipped })
    }
}

/// What one `Instant::now` costs here, in nanoseconds (the least of many
/// back-to-back pairs), to take off each timed interval.
pub fn clock_cost() -> u64 {
    (0..10_000)
        .map(|_| {
            let a = Instant::now();
            (Instant::now() - a).as_nanos() as u64
        })
        .min()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::Profile;
    use crate::run::{Inputs, prepare};
    use crate::sim::World;
    use crate::time::SimTime;
    use crate::trace::Keep;

    /// A profiled run is the run: the same records and events (the ticks
    /// parked tickers skipped counted apart), every event handled counted
    /// under its kind; each of c28's two kubelets ticks its sync
    /// loop once a second from a phase within the first second: 40 ticks
    /// each in 40 s, handled when nothing parks.
    #[test]
    fn a_profiled_run_counts_every_event_of_the_same_run() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/scenarios/c28-service.yaml");
        let p = prepare(&Inputs { scenario: Some(path), ..Inputs::default() }).expect("c28 loads");
        let until = SimTime::ZERO + p.until;
        let (trace, events) = World::keeping(&p.setup, 3, Keep::All).run_counting(until);
        let (profiled, profile) = World::keeping(&p.setup, 3, Keep::All).run_profiled(until, 0, || 0);
        assert_eq!(profiled.entries.len(), trace.entries.len());
        assert_eq!(profile.events + profile.skipped, events);
        assert!(profile.skipped > 0, "the startup probe's worker parks once the container has started");
        assert_eq!(profile.kinds.iter().map(|k| k.count).sum::<u64>(), profile.events);
        let count =
            |profile: &Profile, kind: &str| profile.kinds.iter().find(|k| k.kind == kind).map_or(0, |k| k.count);
        let (_, every) = World::keeping(&p.setup, 3, Keep::All).handling_every_tick().run_profiled(until, 0, || 0);
        assert_eq!((every.events, every.skipped), (events, 0));
        assert_eq!(count(&every, "Kubelet SyncTick"), 80);
        assert_eq!(count(&every, "Kubelet Housekeeping"), 40);
        assert_eq!(count(&profile, "Send"), 30, "two clients, 15 requests each");
        // Parked, each kubelet handles its first tick only: the pod's syncs
        // requeue it a resync (60 s, `syncFrequency`) later, past the 40 s.
        assert_eq!(count(&profile, "Kubelet SyncTick"), 2);
        assert!(profile.kinds.windows(2).all(|w| w[0].nanos >= w[1].nanos));
    }
}
