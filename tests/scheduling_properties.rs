//! Property tests of the scheduler's resource fit: random nodes (their
//! allocatable cpu, memory and pod count) and a Deployment of random size
//! and requests, scaled at 20 s. Whatever the draws, NodeResourcesFit never
//! lets a node hold more than its allocatable (`fitsRequest`: the pods the
//! scheduler's cache holds there, terminating ones included, terminal ones
//! not), and a pod is left waiting only with `FitError`'s message.
//!
//! `PROPTEST_CASES=256 cargo test --release --test scheduling_properties` runs a deeper search.

use podsim::api::status::PodPhase;
use podsim::app::Behaviours;
use podsim::cluster::Cluster;
use podsim::error::SourceFile;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::sim::{Action, Scheduled};
use podsim::time::SimTime;
use podsim::trace::Record;
use podsim::trace::record::WatchKind;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct Node {
    milli_cpu: u32,
    mebibytes: u32,
    pods: u32,
}

#[derive(Clone, Debug)]
struct Case {
    nodes: Vec<Node>,
    replicas: u32,
    scaled_to: u32,
    /// None: the container requests nothing of it.
    milli_cpu: Option<u32>,
    mebibytes: Option<u32>,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    let node =
        (500u32..4000, 256u32..4096, 1u32..12).prop_map(|(c, m, p)| Node { milli_cpu: c, mebibytes: m, pods: p });
    (
        prop::collection::vec(node, 1..4),
        1u32..10,
        0u32..12,
        prop::option::of(100u32..2500),
        prop::option::of(64u32..2048),
        any::<u64>(),
    )
        .prop_map(|(nodes, replicas, scaled_to, milli_cpu, mebibytes, seed)| Case {
            nodes,
            replicas,
            scaled_to,
            milli_cpu,
            mebibytes,
            seed,
        })
}

fn file(name: &str, text: String) -> Arc<SourceFile> {
    Arc::new(SourceFile { name: name.into(), text })
}

fn deployment(c: &Case, replicas: u32) -> String {
    let mut requests = Vec::new();
    if let Some(m) = c.milli_cpu {
        requests.push(format!("cpu: {m}m"));
    }
    if let Some(m) = c.mebibytes {
        requests.push(format!("memory: {m}Mi"));
    }
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: work}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: work}}}}\n  template:\n    metadata: {{labels: {{app: work}}}}\n    spec:\n      containers:\n      - name: app\n        image: busybox:1.36\n        command: [sleep, \"3600\"]\n        resources: {{requests: {{{}}}}}\n",
        requests.join(", ")
    )
}

fn cluster(c: &Case) -> Cluster {
    let nodes: Vec<String> = (c.nodes.iter().enumerate())
        .map(|(i, n)| {
            format!(
                "{{name: node-{i}, images: [\"*\"], allocatable: {{cpu: {}m, memory: {}Mi, pods: {}}}}}",
                n.milli_cpu, n.mebibytes, n.pods
            )
        })
        .collect();
    Cluster::load(&file("cluster.yaml", format!("nodes: [{}]\n", nodes.join(", ")))).unwrap()
}

/// The run never puts more on a node than it allocates; a waiting pod has
/// the scheduler's message. Returns how many FailedScheduling events it saw.
fn fits(c: &Case) -> Result<usize, String> {
    let text = deployment(c, c.replicas);
    let manifests = Manifests::load(&[file("work.yaml", text.clone())]).map_err(|e| format!("{e:?}\n{text}"))?;
    let behaviours = Behaviours::load(&file("app.yaml", "containers: {}\n".into())).unwrap();
    let cluster = cluster(c);
    let allocatable: BTreeMap<String, _> = cluster.nodes.iter().map(|n| (n.name.to_string(), n.allocatable)).collect();
    let (mut setup, _) =
        setup(manifests, behaviours, cluster, DEFAULT_EPOCH.parse().unwrap(), ScenarioParts::default())
            .map_err(|e| format!("{e:?}"))?;
    let scale = Action::Scale { deployment: Arc::from("work"), replicas: c.scaled_to };
    setup.actions = Arc::new(vec![Scheduled { at: SimTime::from_millis(20_000), action: scale }]);
    let trace = simulate(&setup, c.seed, SimTime::from_millis(60_000));
    let mut held: BTreeMap<Arc<str>, (String, i64, i64)> = BTreeMap::new();
    let mut failures = 0;
    let n = c.nodes.len();
    for e in &trace.entries {
        match &e.record {
            Record::Pod { kind, pod } => {
                let on = pod.node.as_deref().filter(|_| *kind != WatchKind::Deleted);
                match on.filter(|_| !matches!(pod.status.phase, PodPhase::Succeeded | PodPhase::Failed)) {
                    Some(node) => {
                        let r = pod.spec.requests.exact;
                        held.insert(pod.meta.uid.clone(), (node.to_string(), r.milli_cpu, r.memory));
                    }
                    None => {
                        held.remove(&pod.meta.uid);
                    }
                }
                for (node, a) in &allocatable {
                    let on_node: Vec<_> = held.values().filter(|(n, ..)| n == node).collect();
                    let cpu: i64 = on_node.iter().map(|(_, c, _)| c).sum();
                    let memory: i64 = on_node.iter().map(|(_, _, m)| m).sum();
                    if cpu > a.milli_cpu || memory > a.memory || on_node.len() as i64 > a.pods {
                        return Err(format!(
                            "at {}: {node} holds {} pods, {cpu}m, {memory} B of {a:?}\n{text}",
                            e.t,
                            on_node.len()
                        ));
                    }
                }
            }
            Record::Event(ev) if ev.reason == "FailedScheduling" => {
                failures += 1;
                let head = format!("0/{n} nodes are available: ");
                if !ev.message.starts_with(&head) || !ev.message.contains("preemption: ") {
                    return Err(format!("at {}: {}", e.t, ev.message));
                }
            }
            _ => {}
        }
    }
    Ok(failures)
}

/// The case count: `PROPTEST_CASES` when set (a deeper search), else the default.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(32), ..ProptestConfig::default() })]

    #[test]
    fn no_node_holds_more_than_it_allocates(c in case()) {
        let r = fits(&c);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// The property is not vacuous: a cluster too small for the Deployment
/// leaves pods waiting (two 1-CPU nodes, five pods of 600m: one fits on each).
#[test]
fn a_cluster_too_small_leaves_pods_waiting() {
    let node = Node { milli_cpu: 1000, mebibytes: 4096, pods: 110 };
    let c = Case {
        nodes: vec![node.clone(), node],
        replicas: 5,
        scaled_to: 5,
        milli_cpu: Some(600),
        mebibytes: None,
        seed: 1,
    };
    assert!(fits(&c).unwrap() >= 3);
}
