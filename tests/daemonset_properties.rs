//! Property tests of DaemonSets: 1–5 nodes, some tainted like a control
//! plane and some labelled, a DaemonSet that may tolerate the taint or
//! select the label, rolled out at 30 s to a new template with
//! maxUnavailable 1–3 (or a percent) or maxSurge 1–2, on random versions
//! and seeds. Judged on the trace's Pod records against
//! pkg/controller/daemon: `NodeShouldRunDaemonPod` says which nodes get a
//! pod, `manage` keeps one per node (two while surging), `rollingUpdate`
//! leaves at most maxUnavailable nodes without a Ready pod.
//!
//! `PROPTEST_CASES=256 cargo test --release --test daemonset_properties` runs a deeper search.

use podsim::app::Behaviours;
use podsim::cluster::{Cluster, Version};
use podsim::error::SourceFile;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::sim::{Action, Applied, Scheduled, Setup};
use podsim::time::{SimDuration, SimTime};
use podsim::trace::{Record, Trace};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

const ROLLOUT_AT: SimTime = SimTime::from_millis(30_000);

#[derive(Clone, Debug)]
struct Case {
    /// Per node: (control-plane taint, label role=edge).
    nodes: Vec<(bool, bool)>,
    tolerates: bool,
    selects_edge: bool,
    /// `Ok(maxUnavailable)` as written, or `Err(maxSurge)`.
    strategy: Result<String, u32>,
    version: usize,
    seed: u64,
}

impl Case {
    /// `NodeShouldRunDaemonPod` for each node.
    fn eligible(&self) -> Vec<bool> {
        self.nodes.iter().map(|&(tainted, edge)| (!tainted || self.tolerates) && (!self.selects_edge || edge)).collect()
    }

    /// `UnavailableCount`: the scaled maxUnavailable, rounded up (0 with surge).
    fn max_unavailable(&self) -> usize {
        let desired = self.eligible().iter().filter(|e| **e).count();
        match &self.strategy {
            Ok(v) => match v.strip_suffix('%') {
                Some(p) => (p.parse::<usize>().unwrap() * desired).div_ceil(100),
                None => v.parse().unwrap(),
            },
            Err(_) => 0,
        }
    }

    fn surge(&self) -> usize {
        self.strategy.as_ref().err().map_or(0, |s| *s as usize)
    }

    /// Each wave takes a pod's stop (< 2 s), its replacement's start (cached
    /// image, sandbox ≤ 1.2 s: < 3 s) and the controller's reactions (< 1 s).
    fn until(&self) -> SimTime {
        let desired = self.eligible().iter().filter(|e| **e).count();
        let per_wave = self.max_unavailable().max(self.surge()).max(1);
        ROLLOUT_AT + SimDuration::from_secs(6 * desired.div_ceil(per_wave) as u64 + 15)
    }
}

fn case() -> impl Strategy<Value = Case> {
    let strategy = prop_oneof![
        (1u32..=3).prop_map(|n| Ok(n.to_string())),
        prop::sample::select(vec!["34%", "50%", "100%"]).prop_map(|p| Ok(p.to_string())),
        (1u32..=2).prop_map(Err),
    ];
    (
        prop::collection::vec((any::<bool>(), any::<bool>()), 1..=5),
        any::<bool>(),
        any::<bool>(),
        strategy,
        0usize..Version::ALL.len(),
        any::<u64>(),
    )
        .prop_map(|(nodes, tolerates, selects_edge, strategy, version, seed)| Case {
            nodes,
            tolerates,
            selects_edge,
            strategy,
            version,
            seed,
        })
        .prop_filter("some node runs the pod", |c| c.eligible().iter().any(|e| *e))
}

fn daemon_set(c: &Case, version: u8) -> String {
    let strategy = match &c.strategy {
        Ok(u) => {
            format!("{{maxUnavailable: \"{u}\"}}").replace("\"1\"", "1").replace("\"2\"", "2").replace("\"3\"", "3")
        }
        Err(s) => format!("{{maxSurge: {s}, maxUnavailable: 0}}"),
    };
    let selector = if c.selects_edge { "      nodeSelector: {role: edge}\n" } else { "" };
    let tolerations = if c.tolerates {
        "      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]\n"
    } else {
        ""
    };
    format!(
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: agent}}\nspec:\n  selector: {{matchLabels: {{app: agent}}}}\n  updateStrategy:\n    rollingUpdate: {strategy}\n  template:\n    metadata: {{labels: {{app: agent}}}}\n    spec:\n{selector}{tolerations}      terminationGracePeriodSeconds: 5\n      containers:\n      - name: agent\n        image: agent:{version}\n"
    )
}

fn cluster(c: &Case) -> Cluster {
    let nodes: Vec<String> = (c.nodes.iter().enumerate())
        .map(|(i, &(tainted, edge))| {
            let taints = if tainted {
                ", taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]"
            } else {
                ""
            };
            let labels = if edge { ", labels: {role: edge}" } else { "" };
            format!("{{name: node-{}, images: [\"*\"]{taints}{labels}}}", i + 1)
        })
        .collect();
    let file = Arc::new(SourceFile { name: "cluster.yaml".into(), text: format!("nodes: [{}]\n", nodes.join(", ")) });
    Cluster::load(&file).unwrap().with_version(Version::ALL[c.version]).unwrap()
}

fn build(c: &Case) -> Setup {
    let file = |name: &str, text: String| Arc::new(SourceFile { name: name.into(), text });
    let (v1, v2) = (daemon_set(c, 1), daemon_set(c, 2));
    let manifests = Manifests::load(&[file("ds.yaml", v1.clone())]).unwrap_or_else(|e| panic!("{e:?}\n{v1}"));
    let mut applied =
        Manifests::load(&[file("ds-v2.yaml", v2.clone())]).unwrap_or_else(|e| panic!("{e:?}\n{v2}")).daemon_sets;
    let behaviours = Behaviours::load(&file("app.yaml", "containers: {}\n".into())).unwrap();
    let (mut setup, _) =
        setup(manifests, behaviours, cluster(c), DEFAULT_EPOCH.parse().unwrap(), ScenarioParts::default())
            .unwrap_or_else(|e| panic!("{e:?}\n{v1}"));
    let object = Applied::DaemonSet(Arc::new(applied.remove(0)));
    setup.actions =
        Arc::new(vec![Scheduled { at: ROLLOUT_AT, action: Action::Apply { file: Arc::from("ds-v2.yaml"), object } }]);
    setup
}

/// A pod of the DaemonSet as last written.
struct Pod {
    node: String,
    template: String,
    ready: bool,
    live: bool,
    deleting: bool,
}

/// The properties on one trace.
fn check(c: &Case, trace: &Trace) -> Result<(), String> {
    let eligible = c.eligible();
    let node_index = |n: &str| n.strip_prefix("node-").and_then(|i| i.parse::<usize>().ok()).map(|i| i - 1);
    let mut pods: BTreeMap<Arc<str>, Pod> = BTreeMap::new();
    let mut last = SimTime::ZERO;
    let judge = |t: SimTime, pods: &BTreeMap<Arc<str>, Pod>| -> Result<(), String> {
        for (i, _) in c.nodes.iter().enumerate() {
            let name = format!("node-{}", i + 1);
            let on: Vec<&Pod> = pods.values().filter(|p| p.node == name && p.live).collect();
            // `manage`: one pod per node, a second only while surging.
            let most = if c.surge() > 0 { 2 } else { 1 };
            if on.iter().filter(|p| !p.deleting).count() > most {
                return Err(format!("{t:?}: {} live pods on {name}", on.len()));
            }
            if !eligible[i] && !on.is_empty() {
                return Err(format!("{t:?}: a pod on {name}, which should run none"));
            }
        }
        if t >= ROLLOUT_AT {
            let without = (0..c.nodes.len())
                .filter(|&i| eligible[i])
                .filter(|&i| !pods.values().any(|p| p.live && p.ready && p.node == format!("node-{}", i + 1)))
                .count();
            if without > c.max_unavailable() {
                return Err(format!(
                    "{t:?}: {without} nodes without a Ready pod, maxUnavailable {}",
                    c.max_unavailable()
                ));
            }
        }
        Ok(())
    };
    for e in &trace.entries {
        if e.t != last {
            judge(last, &pods)?;
            last = e.t;
        }
        let Record::Pod { pod, .. } = &e.record else { continue };
        let node = podsim::control::daemon::pods::target_node(pod).unwrap_or_default().to_string();
        if node_index(&node).is_none() {
            return Err(format!("pod {} has no target node", pod.spec.name));
        }
        let ready = pod.status.condition(&podsim::api::status::ConditionType::Ready).is_some_and(|c| c.status);
        let template = pod.spec.labels.get("pod-template-generation").cloned().unwrap_or_default();
        let live = !pod.meta.removed && !pod.status.phase.is_terminal();
        pods.insert(pod.meta.uid.clone(), Pod { node, template, ready, live, deleting: pod.meta.deletion.is_some() });
    }
    judge(last, &pods)?;
    // Every eligible node ends with one Ready pod of the new template.
    for (i, _) in eligible.iter().enumerate().filter(|(_, e)| **e) {
        let name = format!("node-{}", i + 1);
        let on: Vec<&Pod> = pods.values().filter(|p| p.node == name && p.live).collect();
        if on.len() != 1 || on[0].template != "2" || !on[0].ready {
            return Err(format!(
                "{name} ends with {} live pods, templates {:?}",
                on.len(),
                on.iter().map(|p| &p.template).collect::<Vec<_>>()
            ));
        }
    }
    Ok(())
}

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), ..ProptestConfig::default() })]

    /// One pod per eligible node (two while surging), none elsewhere; never
    /// more eligible nodes without a Ready pod than maxUnavailable (none
    /// with maxSurge) from the rollout on; every eligible node ends updated.
    #[test]
    fn daemon_pods_follow_the_controller_rules(c in case()) {
        let trace = simulate(&build(&c), c.seed, c.until());
        let result = check(&c, &trace);
        prop_assert!(result.is_ok(), "{}\n{c:?}\n{}", result.unwrap_err(), daemon_set(&c, 2));
    }
}
