//! Where a run's time goes, by kind of event. A plain program (not
//! criterion): `cargo bench --bench events -- SCENARIO [RUNS] [all]` runs
//! the scenario RUNS times (200 unless given; seeds from the scenario's)
//! as a sweep does (`all`: keeping every record, as `podsim run` does)
//! and prints, per kind of event, the events a run handles, the handling's
//! nanoseconds per event and microseconds per run, the heap allocations
//! its handling makes per event, and the queue's part. The clock's own cost
//! is measured first and taken off every interval; allocations are counted
//! by this program's global allocator.

use podsim::run::{Inputs, prepare};
use podsim::sim::{Cost, World, clock_cost};
use podsim::time::SimTime;
use podsim::trace::Keep;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// The system allocator, counting allocations (a `realloc` counts: it may move).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

fn main() {
    // cargo bench passes `--bench`.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let keep = if args.iter().any(|a| a == "all") { Keep::All } else { Keep::State };
    let mut rest = args.iter().filter(|a| *a != "all");
    let Some(scenario) = rest.next() else {
        eprintln!("usage: cargo bench --bench events -- SCENARIO [RUNS] [all]");
        std::process::exit(2);
    };
    let runs: u64 = rest.next().map_or(200, |r| r.parse().expect("RUNS is a number"));
    let p = prepare(&Inputs { scenario: Some(PathBuf::from(scenario)), ..Inputs::default() })
        .unwrap_or_else(|e| panic!("{scenario}: {e}"));
    let clock = clock_cost();
    let until = SimTime::ZERO + p.until;
    let mut kinds: BTreeMap<String, Cost> = BTreeMap::new();
    let (mut queue, mut events, mut skipped, mut building) = (0u64, 0u64, 0u64, 0u64);
    for seed in p.seed..p.seed + runs {
        let before = allocations();
        let world = World::keeping(&p.setup, seed, keep);
        building += allocations() - before;
        let (_, profile) = world.run_profiled(until, clock, allocations);
        for k in profile.kinds {
            let total = kinds.entry(k.kind.clone()).or_insert(Cost { kind: k.kind, count: 0, nanos: 0, allocs: 0 });
            total.count += k.count;
            total.nanos += k.nanos;
            total.allocs += k.allocs;
        }
        queue += profile.queue_nanos;
        events += profile.events;
        skipped += profile.skipped;
    }
    let mut kinds: Vec<Cost> = kinds.into_values().collect();
    kinds.sort_by_key(|k| std::cmp::Reverse(k.nanos));
    let handled: u64 = kinds.iter().map(|k| k.nanos).sum();
    let total = (handled + queue) as f64;
    let per_run = |n: u64| n as f64 / runs as f64;
    println!(
        "{scenario}: {runs} runs, {:.0} events ({:.0} parked ticks skipped) and {:.1} µs a run (clock {clock} ns taken off)",
        per_run(events),
        per_run(skipped),
        per_run(handled + queue) / 1e3
    );
    println!(
        "allocations a run: {:.0} handling events, {:.0} building the world",
        per_run(kinds.iter().map(|k| k.allocs).sum()),
        per_run(building)
    );
    println!(
        "{:<28} {:>12} {:>10} {:>10} {:>7} {:>13}",
        "KIND", "EVENTS/RUN", "NS/EVENT", "µS/RUN", "SHARE", "ALLOCS/EVENT"
    );
    let row = |name: &str, count: u64, nanos: u64, allocs: Option<u64>| {
        let per_event = |n: u64| if count == 0 { 0.0 } else { n as f64 / count as f64 };
        let allocs = allocs.map_or("".to_string(), |a| format!("{:.1}", per_event(a)));
        println!(
            "{name:<28} {:>12.1} {:>10.0} {:>10.2} {:>6.1}% {allocs:>13}",
            per_run(count),
            per_event(nanos),
            per_run(nanos) / 1e3,
            100.0 * nanos as f64 / total
        );
    };
    row("(queue: pop and loop)", events, queue, None);
    for k in &kinds {
        row(&k.kind, k.count, k.nanos, Some(k.allocs));
    }
}
