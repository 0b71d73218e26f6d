//! `kubectl cordon` and `uncordon` (actions and flags): kubectl's lines,
//! the scheduler's NodeUnschedulable filter and its queueing hint.

use super::{assert_error, podsim};
use serde_json::Value;

/// (time, pod name, node) of each binding.
type Bindings = Vec<(f64, String, String)>;

/// Every binding, and (time, message) of every FailedScheduling event.
fn scheduling(stdout: &str) -> (Bindings, Vec<(f64, String)>) {
    let (mut bound, mut failed) = (Vec::new(), Vec::new());
    for v in stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let o = &v["object"];
        let t = v["t"].as_f64().unwrap_or(-1.0);
        match (v["type"].as_str(), o["reason"].as_str()) {
            (Some("EVENT"), Some("Scheduled")) => {
                let m = o["message"].as_str().unwrap_or_default();
                let node = m.rsplit(" to ").next().unwrap_or_default().to_string();
                bound.push((t, o["involvedObject"]["name"].as_str().unwrap_or_default().to_string(), node));
            }
            (Some("EVENT"), Some("FailedScheduling")) => {
                failed.push((t, o["message"].as_str().unwrap_or_default().into()))
            }
            _ => {}
        }
    }
    (bound, failed)
}

/// `cordon`: four replicas on two empty nodes go two and two whatever the
/// seed (after each tie, LeastAllocated and the default topology spreading
/// both favour the node without the last pod). Cordoned at 20 s, node-2
/// keeps its pods and gets none of the two added at 30 s. With both nodes
/// cordoned the two added at 50 s fail on each ("2 node(s) were
/// unschedulable", UnschedulableAndUnresolvable: preemption is not helpful);
/// node-2's uncordon at 70 s queues them (NodeUnschedulable's hint) and each
/// is bound after the profile's scheduling latency, 5–30 ms.
#[test]
fn a_cordoned_node_keeps_its_pods_and_gets_no_new_ones() {
    for seed in ["1", "2", "3"] {
        let run = podsim(["run", "models/scenarios/cordon.yaml", "--seed", seed, "-o", "jsonl"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let (bound, failed) = scheduling(&run.stdout);
        let on = |from: f64, to: f64, node: &str| {
            bound.iter().filter(|(t, _, n)| (from..to).contains(t) && n == node).count()
        };
        assert_eq!((on(0.0, 1.0, "node-1"), on(0.0, 1.0, "node-2")), (2, 2), "seed {seed}: {bound:?}");
        assert_eq!((on(30.0, 31.0, "node-1"), on(30.0, 31.0, "node-2")), (2, 0), "seed {seed}: {bound:?}");
        let message = "0/2 nodes are available: 2 node(s) were unschedulable. \
                       preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
        assert_eq!(failed.len(), 2, "seed {seed}: {failed:?}");
        assert!(failed.iter().all(|(t, m)| (50.0..51.0).contains(t) && m == message), "seed {seed}: {failed:?}");
        let after: Vec<_> = bound.iter().filter(|(t, _, _)| *t >= 70.0).collect();
        assert_eq!(after.len(), 2, "seed {seed}: {bound:?}");
        assert!(after.iter().all(|(t, _, n)| n == "node-2" && (70.005..=70.030).contains(t)), "seed {seed}: {after:?}");
        for line in ["node/node-2 cordoned", "node/node-1 cordoned", "node/node-2 uncordoned"] {
            assert!(run.stdout.contains(&format!("\"output\":\"{line}\"")), "seed {seed}: {line}");
        }
    }
}

/// A counterexample's re-run command carries the cordon flags: without
/// them it would not reproduce the run.
#[test]
fn a_re_run_command_keeps_the_cordon_flags() {
    let run = podsim([
        "verify",
        "models/scenarios/cordon.yaml",
        "--runs",
        "2",
        "--cordon",
        "node/node-2@1s",
        "--uncordon",
        "node/node-1@45s",
        "-p",
        "eventually scheduling_failures(pod/*) >= 1",
    ]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stdout.contains("re-run: podsim verify models/scenarios/cordon.yaml --cordon node/node-2@1s --uncordon node/node-1@45s --seed 1"),
        "{}",
        run.stdout
    );
}

#[test]
fn cordon_flags_say_what_kubectl_says_and_name_real_nodes() {
    let args = ["run", "models/scenarios/cordon.yaml", "--until", "25s", "--cordon", "node/node-2@22s"];
    let run = podsim(args);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("node/node-2 already cordoned"), "{}", run.stdout);
    let run = podsim(["run", "models/scenarios/cordon.yaml", "--uncordon", "node/node-9@5s"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains(
            "--uncordon node/node-9@5s: no node named \"node-9\" in the cluster profile (nodes: node-1, node-2)"
        ),
        "{run:?}"
    );
    let dir = crate::TempDir::new("cordon-action");
    dir.write("web.yaml", &std::fs::read_to_string("models/manifests/web-spread.yaml").unwrap());
    let text = "manifests: [web.yaml]\nactions:\n- {at: 5s, cordon: pod/web}\n";
    let scenario = dir.write("s.yaml", text);
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, 3, "actions[0].cordon: \"pod/web\": expected node/NAME");
}

/// A pod that fits no registered node (3 CPUs each; two 4-CPU nodes hold
/// web-0 and web-1) is scheduled once a node joins: the scheduler's
/// `NodeAdd` event queues it again, and its message counted only the
/// registered nodes.
#[test]
fn a_pending_pod_is_scheduled_on_a_node_that_joins() {
    let run = crate::podsim([
        "run",
        "-f",
        "models/manifests/web-statefulset-3cpu.yaml",
        "--app",
        "models/apps/nginx-web.yaml",
        "--cluster",
        "models/clusters/three-nodes.yaml",
        "--add-node",
        "node/node-3@60s",
        "--until",
        "70s",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let line = |needle: &str| run.stdout.lines().find(|l| l.contains(needle)).map(str::to_string);
    let failed = line("pod/web-2                          FailedScheduling").expect("web-2 waits");
    assert!(failed.contains("0/2 nodes are available: 2 Insufficient cpu."), "{failed}");
    let bound = line("Successfully assigned default/web-2 to node-3").expect("web-2 bound to node-3");
    let t: f64 = bound.split_whitespace().next().unwrap().trim_end_matches('s').parse().unwrap();
    assert!((60.0..65.0).contains(&t), "{bound}");
}
