//! Predictions: runs per second of the c28, bad-rollout and crash-loop
//! (the SimPy peer's scenario) scenarios, the
//! ordering analysis (`podsim::predict::predict`) over 10,000 runs'
//! milestones computed beforehand, and a whole 10,000-run prediction of the
//! bad rollout on every core. `cargo bench --bench predict`.

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use podsim::predict::{Runs, predict, run_all};
use podsim::run::{Inputs, Prepared, prepare, simulate, simulate_state};
use podsim::time::SimTime;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

/// The number of runs of a prediction.
const RUNS: u32 = 10_000;

fn scenario(name: &str) -> Prepared {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/scenarios").join(format!("{name}.yaml"));
    prepare(&Inputs { scenario: Some(path), ..Inputs::default() }).expect("the scenario loads")
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn runs(p: &Prepared) -> Runs {
    match run_all(&p.setup, p.seed, 0..RUNS, SimTime::ZERO + p.until, cores(), podsim::sweep::Control::quiet()) {
        podsim::sweep::Swept::All(runs) => runs,
        _ => panic!("the sweep did not finish"),
    }
}

fn bench(c: &mut Criterion) {
    let scenarios = [("c28-service", scenario("c28-service")), ("c28-bad-rollout", scenario("c28-bad-rollout"))];
    let crash_loop = ("crashloop-probes", scenario("crashloop-probes"));
    let mut group = c.benchmark_group("runs");
    group.throughput(Throughput::Elements(1)).measurement_time(Duration::from_secs(10));
    for (name, p) in scenarios.iter().chain([&crash_loop]) {
        let until = SimTime::ZERO + p.until;
        let mut seed = 0u64;
        group.bench_function(*name, |b| {
            b.iter(|| {
                seed += 1;
                black_box(simulate(&p.setup, seed, until).entries.len())
            })
        });
        // As a prediction's sweep runs it: the trace keeps only state records.
        group.bench_function(format!("{name}-sweep"), |b| {
            b.iter(|| {
                seed += 1;
                black_box(simulate_state(&p.setup, seed, until).entries.len())
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("ordering");
    group.sample_size(20).measurement_time(Duration::from_secs(16));
    for (name, p) in &scenarios {
        let runs = runs(p);
        group.bench_function(format!("{name}-{RUNS}"), |b| b.iter(|| black_box(predict(&runs, p.seed).stats.len())));
    }
    group.finish();

    let mut group = c.benchmark_group("prediction");
    // About 15 s a prediction: ten of them, one each.
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(150));
    let (name, p) = &scenarios[1];
    group.bench_function(format!("{name}-{RUNS}"), |b| b.iter(|| black_box(predict(&runs(p), p.seed).stats.len())));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
