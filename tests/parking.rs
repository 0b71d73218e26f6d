//! Parked tickers change no byte: every scenario in `models/`, with several
//! seeds, runs to the same trace, and counts the same events (stopped at
//! its end, early, or by an event budget), whether the
//! tickers whose ticks change nothing (probe workers, the sync loop's tick,
//! housekeeping) are parked or every tick is handled
//! ([`podsim::engine::Queue::park`]). A sweep keeps the state records of the
//! same run (`predict` and `verify` read nothing else).
//!
//! `PARKING_SEEDS=50 cargo test --release --test parking` runs more seeds.

use podsim::run::{Inputs, prepare};
use podsim::sim::{Setup, World};
use podsim::time::SimTime;
use podsim::trace::{Entry, Keep};
use std::path::PathBuf;

fn scenarios() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut files = Vec::new();
    for dir in ["scenarios", "benchmarks"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The two runs' records are the same; else the first that differs.
fn same_records(parked: &[Entry], every: &[Entry], run: &str) {
    let differs = parked.iter().zip(every).position(|(a, b)| format!("{a:?}") != format!("{b:?}"));
    if let Some(i) = differs {
        panic!("{run}: record {i} differs\nparked: {:?}\nevery tick: {:?}", parked[i], every[i]);
    }
    assert_eq!(parked.len(), every.len(), "{run}: record counts");
}

#[test]
fn every_scenario_runs_the_same_with_tickers_parked() {
    let seeds: u64 = std::env::var("PARKING_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    let mut compared = 0;
    for path in scenarios() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let inputs = Inputs { scenario: Some(path.clone()), ..Inputs::default() };
        let p = prepare(&inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let until = SimTime::ZERO + p.until;
        // The 1,000-replica benchmark once; the others with several seeds.
        let seeds = if name == "rollout-1000" { 1 } else { seeds };
        for seed in p.seed..p.seed + seeds {
            let (parked, spent) = World::new(&p.setup, seed).run_counting(until);
            let (every, handled) = World::new(&p.setup, seed).handling_every_tick().run_counting(until);
            same_records(&parked.entries, &every.entries, &format!("{name} seed {seed}"));
            assert_eq!(parked.exhausted, every.exhausted, "{name} seed {seed}");
            // Each skipped tick is one the reference handled, no more.
            assert_eq!(spent, handled, "{name} seed {seed}: events handled and ticks skipped");
            let state = World::keeping(&p.setup, seed, Keep::State).run(until);
            let kept: Vec<_> = every.entries.iter().filter(|e| e.record.is_state()).cloned().collect();
            same_records(&state.entries, &kept, &format!("{name} seed {seed}, state records"));
            compared += 1;
            if seed == p.seed && name != "rollout-1000" {
                cut_short(&name, &p.setup, seed, until, handled);
            }
        }
    }
    assert!(compared > 150, "{compared} runs compared");
}

/// The same run stopped early, at a third of its time and by a budget of
/// half its events: where it stops must not move either.
fn cut_short(name: &str, setup: &Setup, seed: u64, until: SimTime, events: u64) {
    let third = SimTime::from_millis(until.as_millis() / 3 + 7);
    let mut budgeted = setup.clone();
    budgeted.max_events = (events / 2).max(1);
    for (what, setup, until) in [("a third of the time", setup, third), ("half the events", &budgeted, until)] {
        let (parked, spent) = World::new(setup, seed).run_counting(until);
        let (every, handled) = World::new(setup, seed).handling_every_tick().run_counting(until);
        let run = format!("{name} seed {seed}, {what}");
        same_records(&parked.entries, &every.entries, &run);
        assert_eq!(parked.exhausted, every.exhausted, "{run}");
        assert_eq!(spent, handled, "{run}: events handled and ticks skipped");
    }
}
