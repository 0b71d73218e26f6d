//! `podsim predict` and `podsim merge`: orderings the semantics force,
//! results independent of the thread count, shards that merge exactly.

use crate::{TempDir, podsim};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const C28: &str = "models/scenarios/c28-service.yaml";

fn json(args: &[&str]) -> Value {
    let run = podsim(args);
    assert_eq!(run.code, Some(0), "{run:?}");
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"))
}

/// Every pair (a, b) of the transitive closure of the reduced edges.
fn closure(p: &Value) -> BTreeSet<(String, String)> {
    let mut next: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in p["alwaysBefore"].as_array().unwrap() {
        next.entry(e[0].as_str().unwrap().into()).or_default().push(e[1].as_str().unwrap().into());
    }
    let mut out = BTreeSet::new();
    for start in next.keys() {
        let mut stack = vec![start.clone()];
        while let Some(n) = stack.pop() {
            for m in next.get(&n).into_iter().flatten() {
                if out.insert((start.clone(), m.clone())) {
                    stack.push(m.clone());
                }
            }
        }
    }
    out
}

/// The kubelet and the Service path force this chain in every run: the pod
/// is bound before its init container completes, the app container runs
/// after initialization, Ready needs the readiness probe, the endpoint
/// follows Ready, kube-proxy programs what the slice says, and the client on
/// kind-worker gets its first 200 only through its node's rules.
#[test]
fn c28_orderings_forced_by_the_semantics_always_hold() {
    let p = json(&["predict", C28, "--runs", "60", "-o", "json"]);
    assert_eq!(p["runs"], 60);
    let before = closure(&p);
    let chain = [
        "pod/c28-probe:scheduled",
        "pod/c28-probe:initialized",
        "pod/c28-probe:phase_running",
        "pod/c28-probe:ready",
        "svc/c28-probe:endpoint_ready(pod/c28-probe)",
        "svc/c28-probe:programmed(node/kind-worker,pod/c28-probe)",
        "svc/c28-probe:first_ok",
    ];
    for w in chain.windows(2) {
        assert!(before.contains(&(w[0].to_string(), w[1].to_string())), "{} before {}", w[0], w[1]);
    }
    // Every run reaches them all.
    let reached: BTreeMap<&str, u64> = p["milestones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["reached"].as_u64().unwrap()))
        .collect();
    for m in chain {
        assert_eq!(reached.get(m), Some(&60), "{m}");
    }
    // The pod IP answers 200 on /ready before or after Ready, depending on
    // the probe's phase against the app's 10 s: that order varies.
    let varies = p["varies"].as_array().unwrap();
    // Each pair prints with the earlier median first: either way round.
    assert!(
        varies.iter().any(|v| {
            let mut pair = [v["a"].as_str().unwrap(), v["b"].as_str().unwrap()];
            pair.sort();
            pair == ["client/direct:first_ok", "pod/c28-probe:ready"]
        }),
        "the direct 200 races Ready"
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let one = podsim(["predict", C28, "--runs", "40", "--jobs", "1", "-o", "json"]);
    let two = podsim(["predict", C28, "--runs", "40", "--jobs", "2", "-o", "json"]);
    assert_eq!(one.code, Some(0), "{one:?}");
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn shards_merge_into_the_single_run_result() {
    let dir = TempDir::new("shards");
    let whole = podsim(["predict", C28, "--runs", "30", "-o", "json"]);
    let mut parts = Vec::new();
    for k in 0..3 {
        let run = podsim(["predict", C28, "--runs", "30", "--shard", &format!("{k}/3")]);
        assert_eq!(run.code, Some(0), "{run:?}");
        parts.push(dir.write(&format!("part{k}.jsonl"), &run.stdout));
    }
    let mut args = vec!["merge".to_string(), "-o".into(), "json".into()];
    args.extend(parts.iter().cloned());
    let merged = podsim(&args);
    assert_eq!(merged.code, Some(0), "{merged:?}");
    assert_eq!(merged.stdout, whole.stdout);
    let missing = podsim(["merge", &parts[0], &parts[1]]);
    assert_eq!(missing.code, Some(2));
    assert!(missing.stderr.contains("a shard is missing"), "{missing:?}");
}

#[test]
fn the_graph_prints_as_dot() {
    let run = podsim(["predict", C28, "--runs", "10", "--dot"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.starts_with("digraph happens_before {"), "{run:?}");
    assert!(run.stdout.contains("\"pod/c28-probe:scheduled\" -> "), "{run:?}");
}

/// A partial result's header is checked before anything is allocated for
/// it (issue 22's fuzzing): `runs` of 2^32 − 1 used to list every seed at
/// once and abort on a 34 GB allocation, and 2^63 − 1 was cut to 32 bits.
/// Now both name the limit of a prediction, before any seed is walked.
#[test]
fn a_partial_header_with_huge_runs_is_an_error_not_an_abort() {
    let dir = TempDir::new("merge-huge");
    let shard = podsim(["predict", "models/scenarios/probe-actions.yaml", "--runs", "6", "--shard", "1/2"]);
    assert_eq!(shard.code, Some(0), "{shard:?}");
    let big = dir.write("big.jsonl", &shard.stdout.replacen("\"runs\":6", "\"runs\":4294967295", 1));
    let run = podsim(["merge", &big]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains(
            ":1: runs 4294967295: a prediction keeps every run's milestones in memory and holds at most 1,000,000 runs"
        ),
        "{run:?}"
    );
    let big = dir.write("big.jsonl", &shard.stdout.replacen("\"runs\":6", "\"runs\":1000000", 1));
    let run = podsim(["merge", &big]);
    assert_eq!(
        run.stderr.trim_end(),
        "error: seeds 1–3 are in none of the 1 partial result(s) given: a shard is missing (merge every shard's file)"
    );
    let huge = dir.write("huge.jsonl", &shard.stdout.replacen("\"runs\":6", "\"runs\":9223372036854775807", 1));
    let run = podsim(["merge", &huge]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains(":1: runs 9223372036854775807: a prediction keeps"), "{run:?}");
}

/// `--jobs` past four threads per core is lowered with a warning (99,999
/// threads used to be started, and never finished, even for no run).
#[test]
fn too_many_jobs_are_lowered_with_a_warning() {
    let run = podsim(["predict", "models/scenarios/probe-actions.yaml", "--runs", "4", "--jobs", "99999"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let expected = format!(
        "warning: --jobs 99999: more than 4 threads per core ({cores} cores) only wait on each other: using {}",
        4 * cores
    );
    assert!(run.stderr.contains(&expected), "{run:?}");
}

/// A partial result whose runs are outside the sweep its header states is
/// named with the line of the first such run.
#[test]
fn a_partial_with_runs_outside_its_header_is_named() {
    let dir = TempDir::new("merge-moved");
    let shard = podsim(["predict", "models/scenarios/probe-actions.yaml", "--runs", "4", "--shard", "0/2"]);
    assert_eq!(shard.code, Some(0), "{shard:?}");
    let moved = dir.write("moved.jsonl", &shard.stdout.replacen("\"firstSeed\":1", "\"firstSeed\":5627", 1));
    let run = podsim(["merge", &moved]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr
            .starts_with(&format!("error: {moved}:2: seed 1 is outside the sweep its header states (seeds 5627–5630)")),
        "{run:?}"
    );
}
