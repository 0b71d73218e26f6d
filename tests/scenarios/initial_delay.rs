//! Seconds where the kubelet keeps seconds: doProbe skips while
//! `int32(now − StartedAt) < initialDelaySeconds`, and reads StartedAt from
//! the status manager's cache, whose times normalizeStatus cuts to the whole
//! second (status_manager.go). A liveness probe (initialDelaySeconds 5,
//! period 10, failureThreshold 1) that fails at once, on an HTTP handler that
//! answers at once: each run is recorded at its tick.
//!
//! The worker ticks every 10 s from its creation at the pod's first sync
//! (worker.go `run`; liveness has no manual trigger), so every run lies on one
//! grid. For an instance started at S, the first run is the first tick at or
//! after second(S) + 5 s — and it kills the instance. With full-precision
//! arithmetic it would be the first tick at or after S + 5 s: a tick that
//! falls in [second(S) + 5, S + 5) kills the instance a period earlier.

use crate::SEEDS;
use crate::common::*;
use podsim::time::{SimDuration, SimTime};
use podsim::trace::Trace;
use podsim::trace::record::{ProcessFact, Record};
use std::sync::Arc;

const PERIOD: SimDuration = SimDuration::from_secs(10);
const DELAY: SimDuration = SimDuration::from_secs(5);

/// Each instance's process start and container ID.
fn starts(trace: &Trace) -> Vec<(SimTime, Arc<str>)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Process { fact: ProcessFact::Started, container_id, .. } => Some((e.t, container_id.clone())),
            _ => None,
        })
        .collect()
}

/// Every liveness run: its time and the instance it probed.
fn runs(trace: &Trace) -> Vec<(SimTime, Arc<str>)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Probe(r) => Some((e.t, r.container_id.clone())),
            _ => None,
        })
        .collect()
}

/// The first tick of the grid through `phase` at or after `at`.
fn first_tick_at_or_after(phase: SimTime, at: SimTime) -> SimTime {
    let p = PERIOD.as_millis();
    let k = (at.as_millis().saturating_sub(phase.as_millis())).div_ceil(p);
    SimTime::from_millis(phase.as_millis() + k * p)
}

#[test]
fn the_first_probe_of_each_instance_counts_from_the_second_of_its_start() {
    let mut earlier = 0;
    let mut instances = 0;
    for seed in SEEDS {
        let trace = run("liveness-initial-delay", seed, None);
        let runs = runs(&trace);
        let phase = runs[0].0;
        for (t, _) in &runs {
            assert_eq!((t.as_millis() - phase.as_millis()) % PERIOD.as_millis(), 0, "seed {seed}: {t} off the grid");
        }
        // The last instance may still be waiting for its first probe at the end.
        for (start, id) in starts(&trace).iter().filter(|(s, _)| *s + DELAY + PERIOD <= trace_end(&trace)) {
            let first = runs.iter().find(|(_, r)| r == id).map(|(t, _)| *t).expect("every instance is probed");
            let expected = first_tick_at_or_after(phase, start.floor_second() + DELAY);
            assert_eq!(first, expected, "seed {seed}: instance started at {start}");
            // Always in [S + 4, S + 15): never a whole period early.
            within("first probe", first, *start + secs(4.0), *start + secs(15.0));
            instances += 1;
            if first < first_tick_at_or_after(phase, *start + DELAY) {
                earlier += 1;
            }
        }
    }
    // The second a start falls in decides: over these seeds some instances are
    // probed — and killed — one period earlier than full precision gives.
    assert!(instances >= 8 * 10, "{instances} instances");
    assert!(earlier > 0, "no instance among {instances} was probed early");
}

fn trace_end(trace: &Trace) -> SimTime {
    trace.entries.last().map_or(SimTime::ZERO, |e| e.t)
}
