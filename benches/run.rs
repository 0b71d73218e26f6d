//! Runs per second of whole simulations: one single-pod start with probes,
//! a 10-minute crash loop, and a pod with init containers, sidecars, hooks
//! and a deletion. `cargo bench --bench run`.

use criterion::{Criterion, criterion_group, criterion_main};
use podsim::run::{Inputs, prepare, simulate};
use podsim::time::SimTime;
use std::hint::black_box;
use std::path::PathBuf;

fn scenario(name: &str) -> podsim::run::Prepared {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/scenarios").join(format!("{name}.yaml"));
    prepare(&Inputs { scenario: Some(path), ..Inputs::default() }).expect("the scenario loads")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("run");
    for name in ["probe-actions", "crashloop", "init-sidecar-order"] {
        let p = scenario(name);
        let until = SimTime::ZERO + p.until;
        let mut seed = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                seed += 1;
                black_box(simulate(&p.setup, seed, until).entries.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
