//! The rollout-1000 scenario with fewer replicas, to see how its cost grows:
//! `cargo bench --bench scale -- 100 250 500 1000` prints, per size,
//! the events handled, the wall time of the simulation and the trace records
//! (`-- state 1000`: keeping only the records a sweep reads).
//! The manifests are rewritten with the replica count into a temporary folder;
//! nodes, traffic and timing stay as in `models/benchmarks/rollout-1000.yaml`,
//! unless `nodes=N` keeps only the first N of its 100 nodes (the client's
//! node-001 among them) or `until=DURATION` (`10m`) ends it sooner.

use podsim::run::{Inputs, prepare};
use podsim::sim::World;
use podsim::time::SimTime;
use podsim::trace::Keep;
use std::path::PathBuf;
use std::time::Instant;

#[path = "common/rollout.rs"]
mod rollout;

fn main() {
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models");
    let dir = std::env::temp_dir().join(format!("podsim-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temporary folder is created");
    // cargo bench passes `--bench`; the other arguments are replica counts.
    // `state`: keep only the records a sweep reads (`Keep::State`, as predict
    // and verify run), instead of every record a printed run keeps.
    let keep = match std::env::args().any(|a| a == "state") {
        true => Keep::State,
        false => Keep::All,
    };
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--") && a != "state").collect();
    let option = |name: &str| args.iter().find_map(|a| a.strip_prefix(name));
    let nodes = option("nodes=").map_or(100, |n| n.parse().expect("nodes=N: a node count"));
    let until = option("until=");
    let sizes: Vec<u32> =
        args.iter().filter(|a| !a.contains('=')).map(|a| a.parse().expect("a replica count")).collect();
    println!("{nodes} nodes, until {}", until.unwrap_or("30m"));
    println!("replicas     events  seconds  events/s  ns/event    records");
    for replicas in if sizes.is_empty() { vec![100, 250, 500, 1000] } else { sizes } {
        let path = rollout::scenario(&models, &dir, replicas, nodes, until);
        let p = prepare(&Inputs { scenario: Some(path), ..Inputs::default() }).expect("the scenario loads");
        let t0 = Instant::now();
        let (trace, events) = World::keeping(&p.setup, p.seed, keep).run_counting(SimTime::ZERO + p.until);
        let s = t0.elapsed().as_secs_f64();
        let (rate, ns) = (events as f64 / s, s * 1e9 / events as f64);
        println!("{replicas:8} {events:10} {s:8.2} {rate:9.0} {ns:9.0} {:10}", trace.entries.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
