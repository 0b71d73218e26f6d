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
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The scenario with `replicas` replicas on the first `nodes` nodes, run
/// `until` (the scenario's own when `None`), written under `dir`.
fn scenario(models: &Path, dir: &Path, replicas: u32, nodes: usize, until: Option<&str>) -> PathBuf {
    let read = |p: &str| std::fs::read_to_string(models.join(p)).expect("the model reads");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("the temporary file writes");
        path
    };
    let count = |text: String| text.replace("replicas: 1000", &format!("replicas: {replicas}"));
    let v1 = write("v1.yaml", count(read("manifests/web-rollout-1000.yaml")));
    let v2 = write("v2.yaml", count(read("manifests/web-rollout-1000-v2.yaml")));
    let mut cluster = String::new();
    let mut kept = 0;
    for line in read("clusters/nodes-100.yaml").lines() {
        let node = line.starts_with("- {name: node-");
        if node && kept == nodes {
            continue;
        }
        kept += usize::from(node);
        cluster.push_str(line);
        cluster.push('\n');
    }
    let cluster = write("cluster.yaml", cluster);
    let mut s = read("benchmarks/rollout-1000.yaml")
        .replace("../manifests/web-rollout-1000.yaml", &v1.display().to_string())
        .replace("../manifests/web-rollout-1000-v2.yaml", &v2.display().to_string())
        .replace("../apps/", &format!("{}/apps/", models.display()))
        .replace("../clusters/nodes-100.yaml", &cluster.display().to_string());
    if let Some(until) = until {
        s = s.replace("until: 30m", &format!("until: {until}"));
    }
    write("scenario.yaml", s)
}

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
        let path = scenario(&models, &dir, replicas, nodes, until);
        let p = prepare(&Inputs { scenario: Some(path), ..Inputs::default() }).expect("the scenario loads");
        let t0 = Instant::now();
        let (trace, events) = World::keeping(&p.setup, p.seed, keep).run_counting(SimTime::ZERO + p.until);
        let s = t0.elapsed().as_secs_f64();
        let (rate, ns) = (events as f64 / s, s * 1e9 / events as f64);
        println!("{replicas:8} {events:10} {s:8.2} {rate:9.0} {ns:9.0} {:10}", trace.entries.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
