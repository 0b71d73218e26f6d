//! The performance chapter's targets that the other benches do not time:
//! the 1,000-replica rollout as a sweep runs it, with its cost per event
//! against the 100-replica run's (criterion's `thrpt` is events a second),
//! and the whole commands the targets name, run as a user runs them (the
//! release binary, output to /dev/null). `cargo bench --bench targets`;
//! `-- rollout/` or `-- command/` for one group.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use podsim::run::{Inputs, prepare};
use podsim::sim::World;
use podsim::time::SimTime;
use podsim::trace::Keep;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

#[path = "common/rollout.rs"]
mod rollout;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One run of the rollout benchmark at 100 and 1,000 replicas (100 nodes,
/// 30 simulated minutes), keeping a sweep's records.
fn rollouts(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("podsim-targets-{}", std::process::id()));
    let mut group = c.benchmark_group("rollout");
    group.sample_size(10).warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(20));
    for replicas in [100, 1000] {
        let sized = dir.join(replicas.to_string());
        std::fs::create_dir_all(&sized).expect("the temporary folder is created");
        let path = rollout::scenario(&root().join("models"), &sized, replicas, 100, None);
        let p = prepare(&Inputs { scenario: Some(path), ..Inputs::default() }).expect("the scenario loads");
        let until = SimTime::ZERO + p.until;
        let run = || World::keeping(&p.setup, p.seed, Keep::State).run_counting(until).1;
        group.throughput(Throughput::Elements(run()));
        group.bench_function(format!("{replicas}-sweep"), |b| b.iter(|| black_box(run())));
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The whole commands of the targets, output discarded.
fn commands(c: &mut Criterion) {
    let mut group = c.benchmark_group("command");
    group.sample_size(10).warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(40));
    let commands: [(&str, &[&str]); 4] = [
        (
            "crashloop-predict-3000-1-core",
            &["predict", "models/scenarios/crashloop-probes.yaml", "--runs", "3000", "--jobs", "1"],
        ),
        ("bad-rollout-predict-10000", &["predict", "models/scenarios/c28-bad-rollout.yaml", "--runs", "10000"]),
        ("rollout-1000-run-jsonl", &["run", "models/benchmarks/rollout-1000.yaml", "-o", "jsonl"]),
        ("rollout-1000-predict", &["predict", "models/benchmarks/rollout-1000.yaml", "--runs", "1"]),
    ];
    for (name, args) in commands {
        group.bench_function(name, |b| {
            b.iter(|| {
                let status = Command::new(env!("CARGO_BIN_EXE_podsim"))
                    .args(args)
                    .current_dir(root())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .expect("podsim runs");
                assert!(status.success(), "podsim {} failed: {status}", args.join(" "));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, rollouts, commands);
criterion_main!(benches);
