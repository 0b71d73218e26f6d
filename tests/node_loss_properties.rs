//! Property tests of node loss: random clusters (1–4 nodes, one zone), a
//! Deployment of random size with a random `unreachable` toleration, and
//! one or two nodes lost at random times. Whatever the draws:
//!
//! - a lost node turns Unknown more than 39.6 s and at most 60 s after it
//!   stopped (a lease renewed every 10–10.4 s, seen at the next 5-s pass,
//!   50 s of grace, found at the next pass), and a node that runs never does;
//! - no pod is deleted by the taint manager before its node's NoExecute
//!   taint plus its toleration, and each is deleted exactly then;
//! - once every node is Unknown no NoExecute taint is added, and none is
//!   left (master disruption mode takes them away), and no pod is bound to
//!   a node while it has the unreachable NoSchedule taint.
//!
//! `PROPTEST_CASES=256 cargo test --release --test node_loss_properties` runs a deeper search.

use podsim::api::node::NodeReady;
use podsim::api::status::ConditionType;
use podsim::app::Behaviours;
use podsim::cluster::Cluster;
use podsim::error::SourceFile;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::sim::{Action, NodeId, Scheduled};
use podsim::time::SimTime;
use podsim::trace::Record;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct Case {
    nodes: usize,
    replicas: u32,
    /// `tolerationSeconds` for unreachable:NoExecute; None: the default 300.
    toleration: Option<u32>,
    /// (node index, seconds) of each loss.
    lost: Vec<(usize, u32)>,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..5, 1u32..7, prop::option::of(0u32..400), prop::collection::vec((0usize..4, 5u32..120), 1..3), any::<u64>())
        .prop_map(|(nodes, replicas, toleration, lost, seed)| {
            let lost = lost.into_iter().map(|(n, t)| (n % nodes, t)).collect::<BTreeMap<_, _>>().into_iter().collect();
            Case { nodes, replicas, toleration, lost, seed }
        })
}

fn file(name: &str, text: String) -> Arc<SourceFile> {
    Arc::new(SourceFile { name: name.into(), text })
}

fn deployment(c: &Case) -> String {
    let toleration = match c.toleration {
        Some(s) => format!(
            "      tolerations: [{{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: {s}}}]\n"
        ),
        None => String::new(),
    };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: work}}\nspec:\n  replicas: {}\n  selector: {{matchLabels: {{app: work}}}}\n  template:\n    metadata: {{labels: {{app: work}}}}\n    spec:\n      containers:\n      - name: app\n        image: busybox:1.36\n        command: [sleep, \"3600\"]\n{toleration}",
        c.replicas
    )
}

/// Checks the properties; returns how many pods the taint manager deleted.
fn check(c: &Case) -> Result<usize, String> {
    let manifests = Manifests::load(&[file("work.yaml", deployment(c))]).map_err(|e| format!("{e:?}"))?;
    let behaviours = Behaviours::load(&file("app.yaml", "containers: {}\n".into())).unwrap();
    let nodes: Vec<String> = (0..c.nodes).map(|i| format!("{{name: node-{i}, images: [\"*\"]}}")).collect();
    let cluster = Cluster::load(&file("cluster.yaml", format!("nodes: [{}]\n", nodes.join(", ")))).unwrap();
    let (mut s, _) = setup(manifests, behaviours, cluster, DEFAULT_EPOCH.parse().unwrap(), ScenarioParts::default())
        .map_err(|e| format!("{e:?}"))?;
    let actions = c.lost.iter().map(|&(n, t)| Scheduled {
        at: SimTime::from_millis(u64::from(t) * 1000),
        action: Action::NodeDown { node: NodeId(n as u32) },
    });
    s.actions = Arc::new(actions.collect());
    let trace = simulate(&s, c.seed, SimTime::from_millis(600_000));
    let stop: BTreeMap<String, f64> = c.lost.iter().map(|&(n, t)| (format!("node-{n}"), f64::from(t))).collect();
    let toleration = f64::from(c.toleration.unwrap_or(300));
    let mut unknown: BTreeMap<String, f64> = BTreeMap::new();
    let mut no_execute: BTreeMap<String, f64> = BTreeMap::new();
    let mut no_schedule: BTreeMap<String, bool> = BTreeMap::new();
    let mut tainted_now: BTreeMap<String, bool> = BTreeMap::new();
    let mut deleted: BTreeMap<Arc<str>, ()> = BTreeMap::new();
    for e in &trace.entries {
        let t = e.t.as_secs_f64();
        match &e.record {
            Record::Node { node, .. } => {
                let name = node.name.to_string();
                if node.ready == NodeReady::Unknown && !unknown.contains_key(&name) {
                    let Some(&t0) = stop.get(&name) else { return Err(format!("{name} turned Unknown at {t}")) };
                    if !(t > t0 + 39.6 && t <= t0 + 60.0 + 1e-9) {
                        return Err(format!("{name} stopped at {t0}, Unknown at {t}"));
                    }
                    unknown.insert(name.clone(), t);
                }
                let has = |effect: &str| {
                    node.taints.iter().any(|(x, _)| x.key == "node.kubernetes.io/unreachable" && x.effect == effect)
                };
                if has("NoExecute") && !no_execute.contains_key(&name) {
                    if unknown.len() == c.nodes {
                        return Err(format!("every node Unknown, yet {name} tainted NoExecute at {t}"));
                    }
                    no_execute.insert(name.clone(), t);
                }
                tainted_now.insert(name.clone(), has("NoExecute"));
                no_schedule.insert(name, has("NoSchedule"));
            }
            Record::Pod { pod, .. } => {
                let by_taint_manager = pod
                    .status
                    .condition(&ConditionType::Other(Arc::from("DisruptionTarget")))
                    .is_some_and(|d| d.reason.as_deref() == Some("DeletionByTaintManager"));
                if by_taint_manager && deleted.insert(pod.meta.uid.clone(), ()).is_none() {
                    let node = pod.node.as_deref().unwrap_or_default();
                    let Some(&tainted) = no_execute.get(node) else {
                        return Err(format!("{} deleted at {t} on {node}, never tainted", pod.spec.name));
                    };
                    if (t - (tainted + toleration)).abs() > 0.0015 {
                        return Err(format!(
                            "{} deleted at {t}, tainted at {tainted}, tolerating {toleration}",
                            pod.spec.name
                        ));
                    }
                }
            }
            Record::Event(ev) if ev.reason == "Scheduled" => {
                let node = ev.message.rsplit(" to ").next().unwrap_or_default();
                if no_schedule.get(node) == Some(&true) {
                    return Err(format!("{} bound to the unreachable {node} at {t}", ev.pod));
                }
            }
            _ => {}
        }
    }
    if unknown.len() == c.nodes && tainted_now.values().any(|&t| t) {
        return Err(format!("every node Unknown, yet NoExecute taints remain: {tainted_now:?}"));
    }
    // Every lost node is noticed within the run.
    for name in stop.keys() {
        if !unknown.contains_key(name) {
            return Err(format!("{name} was never marked Unknown"));
        }
    }
    Ok(deleted.len())
}

/// The case count: `PROPTEST_CASES` when set (a deeper search), else the default.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(32), ..ProptestConfig::default() })]

    #[test]
    fn node_loss_follows_the_controllers_clocks(c in case()) {
        let r = check(&c);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// The property is not vacuous: two nodes of three lost, 30 s tolerated:
/// their pods are deleted.
#[test]
fn pods_on_lost_nodes_are_deleted() {
    let c = Case { nodes: 3, replicas: 6, toleration: Some(30), lost: vec![(0, 10), (1, 20)], seed: 7 };
    let deleted = check(&c).unwrap();
    assert!(deleted >= 2, "{deleted}");
}
