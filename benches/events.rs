//! Where a run's time goes, by kind of event. A plain program (not
//! criterion): `cargo bench --bench events -- SCENARIO [RUNS] [all]` runs
//! the scenario RUNS times (200 unless given; seeds from the scenario's)
//! as a sweep does (`all`: keeping every record, as `podsim run` does)
//! and prints, per kind of event, the events a run handles, the handling's
//! nanoseconds per event and microseconds per run, and the queue's part.
//! The clock's own cost is measured first and taken off every interval.

use podsim::run::{Inputs, prepare};
use podsim::sim::{Cost, World, clock_cost};
use podsim::time::SimTime;
use podsim::trace::Keep;
use std::collections::BTreeMap;
use std::path::PathBuf;

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
    let (mut queue, mut events) = (0u64, 0u64);
    for seed in p.seed..p.seed + runs {
        let (_, profile) = World::keeping(&p.setup, seed, keep).run_profiled(until, clock);
        for k in profile.kinds {
            let total = kinds.entry(k.kind.clone()).or_insert(Cost { kind: k.kind, count: 0, nanos: 0 });
            total.count += k.count;
            total.nanos += k.nanos;
        }
        queue += profile.queue_nanos;
        events += profile.events;
    }
    let mut kinds: Vec<Cost> = kinds.into_values().collect();
    kinds.sort_by_key(|k| std::cmp::Reverse(k.nanos));
    let handled: u64 = kinds.iter().map(|k| k.nanos).sum();
    let total = (handled + queue) as f64;
    let per_run = |n: u64| n as f64 / runs as f64;
    println!(
        "{scenario}: {runs} runs, {:.0} events and {:.1} µs a run (clock {clock} ns taken off)",
        per_run(events),
        per_run(handled + queue) / 1e3
    );
    println!("{:<28} {:>12} {:>10} {:>10} {:>7}", "KIND", "EVENTS/RUN", "NS/EVENT", "µS/RUN", "SHARE");
    let row = |name: &str, count: u64, nanos: u64| {
        let per_event = if count == 0 { 0.0 } else { nanos as f64 / count as f64 };
        println!(
            "{name:<28} {:>12.1} {per_event:>10.0} {:>10.2} {:>6.1}%",
            per_run(count),
            per_run(nanos) / 1e3,
            100.0 * nanos as f64 / total
        );
    };
    row("(queue: pop and loop)", events, queue);
    for k in &kinds {
        row(&k.kind, k.count, k.nanos);
    }
}
