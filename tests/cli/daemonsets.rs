//! DaemonSets: one pod per node, placed by the controller's node-name
//! affinity, and the two rolling updates of pkg/controller/daemon/update.go
//! on three nodes — maxUnavailable 1 (delete first: at most one node
//! without a Ready pod, the next node only once the previous one's new pod
//! is available) and maxSurge 1 (create first: every node keeps a Ready pod).

use super::podsim;
use serde_json::Value;
use std::collections::BTreeMap;

/// A pod of the DaemonSet as the JSONL shows it over the run.
#[derive(Debug, Default, Clone)]
struct Pod {
    node: String,
    generation: String,
    created: f64,
    /// When kubectl would first show it Ready, and not Ready again.
    ready: Option<f64>,
    unready: Option<f64>,
    /// When its deletion began, and when it reached a terminal phase.
    deleting: Option<f64>,
    terminal: Option<f64>,
    gone: Option<f64>,
}

#[derive(Debug, Default)]
struct Seen {
    pods: BTreeMap<String, Pod>,
    /// The DaemonSet's last status.
    status: Value,
    /// The first pod's tolerations and affinity.
    first: Value,
    /// (t, reason, message) of the DaemonSet's events.
    events: Vec<(f64, String, String)>,
    /// kubectl rollout status lines.
    rollout: Vec<String>,
}

fn seen(scenario: &str) -> Seen {
    let run = podsim(["run", scenario, "-o", "jsonl", "--rollout-timeout", "2m"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let mut s = Seen::default();
    for v in run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let t = v["t"].as_f64().unwrap_or(-1.0);
        let o = &v["object"];
        match (v["type"].as_str(), o["kind"].as_str()) {
            (Some(kind @ ("ADDED" | "MODIFIED" | "DELETED")), Some("Pod")) => {
                let name = o["metadata"]["name"].as_str().unwrap_or_default().to_string();
                if s.first.is_null() {
                    s.first = o["spec"].clone();
                }
                let values = &o["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
                    [0]["matchFields"][0]["values"][0];
                let p = s.pods.entry(name).or_insert_with(|| Pod {
                    node: values.as_str().unwrap_or_default().into(),
                    generation: o["metadata"]["labels"]["pod-template-generation"].as_str().unwrap_or_default().into(),
                    created: t,
                    ..Pod::default()
                });
                let ready = o["status"]["conditions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|c| c["type"] == "Ready" && c["status"] == "True");
                match (ready, p.ready) {
                    (true, None) => p.ready = Some(t),
                    (false, Some(_)) if p.unready.is_none() => p.unready = Some(t),
                    _ => {}
                }
                if !o["metadata"]["deletionTimestamp"].is_null() && p.deleting.is_none() {
                    p.deleting = Some(t);
                }
                let phase = o["status"]["phase"].as_str().unwrap_or_default();
                if matches!(phase, "Succeeded" | "Failed") && p.terminal.is_none() {
                    p.terminal = Some(t);
                }
                if kind == "DELETED" {
                    p.gone = Some(t);
                }
            }
            (Some(_), Some("DaemonSet")) => s.status = o["status"].clone(),
            (Some("EVENT"), _) if o["involvedObject"]["kind"] == "DaemonSet" => s.events.push((
                t,
                o["reason"].as_str().unwrap_or_default().into(),
                o["message"].as_str().unwrap_or_default().into(),
            )),
            (Some("KUBECTL"), _) => s.rollout.push(v["output"].as_str().unwrap_or_default().trim_end().into()),
            _ => {}
        }
    }
    s
}

impl Seen {
    /// Whether `node` has a Ready pod of the DaemonSet at `t`.
    fn ready_on(&self, node: &str, t: f64) -> bool {
        let ready = |p: &Pod| p.ready.is_some_and(|r| r <= t) && p.unready.is_none_or(|u| u > t);
        self.pods.values().any(|p| p.node == node && ready(p))
    }

    /// The instants anything about a pod changed.
    fn instants(&self) -> Vec<f64> {
        let mut all: Vec<f64> = self
            .pods
            .values()
            .flat_map(|p| [Some(p.created), p.ready, p.unready, p.deleting, p.terminal, p.gone])
            .flatten()
            .collect();
        all.sort_by(f64::total_cmp);
        all
    }

    /// The new-template pod of each node, by node.
    fn new_pods(&self) -> BTreeMap<&str, &Pod> {
        self.pods.values().filter(|p| p.generation == "2").map(|p| (p.node.as_str(), p)).collect()
    }

    /// The old-template pod of `node`.
    fn old_pod(&self, node: &str) -> &Pod {
        self.pods.values().find(|p| p.generation == "1" && p.node == node).expect("an old pod on the node")
    }
}

const NODES: [&str; 3] = ["node-1", "node-2", "node-3"];

/// The pods the controller makes (`CreatePodTemplate`,
/// `ReplaceDaemonSetPodNodeNameNodeAffinity`): one per node of
/// three-nodes.yaml, each with the six tolerations
/// `AddOrUpdateDaemonPodTolerations` adds (no seconds: forever) and a
/// required `metadata.name In [node]` term, bound by the scheduler to that node.
#[test]
fn one_pod_per_node_with_the_daemon_tolerations_and_node_affinity() {
    let s = seen("models/scenarios/ds-rolling-update.yaml");
    let first: Vec<&Pod> = s.pods.values().filter(|p| p.generation == "1").collect();
    let mut nodes: Vec<&str> = first.iter().map(|p| p.node.as_str()).collect();
    nodes.sort();
    assert_eq!(nodes, NODES, "{first:?}");
    let tolerations: Vec<String> = s.first["tolerations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            format!(
                "{}:{}:{}",
                t["key"].as_str().unwrap_or(""),
                t["effect"].as_str().unwrap_or(""),
                t["tolerationSeconds"]
            )
        })
        .collect();
    assert_eq!(
        tolerations,
        [
            "node.kubernetes.io/not-ready:NoExecute:null",
            "node.kubernetes.io/unreachable:NoExecute:null",
            "node.kubernetes.io/disk-pressure:NoSchedule:null",
            "node.kubernetes.io/memory-pressure:NoSchedule:null",
            "node.kubernetes.io/pid-pressure:NoSchedule:null",
            "node.kubernetes.io/unschedulable:NoSchedule:null",
        ]
    );
    let created: Vec<&str> = s.events.iter().filter(|e| e.1 == "SuccessfulCreate").map(|e| e.2.as_str()).collect();
    assert_eq!(created.len(), 6, "three pods, then three replacements: {created:?}");
    assert!(created.iter().all(|m| m.starts_with("Created pod: agent-")));
}

/// maxUnavailable 1 (`rollingUpdate` with maxSurge 0): node by node, the
/// old pod is deleted, its replacement created only once the old pod is
/// terminal (a terminating pod still holds the node in `manage`), and the
/// next node's old pod deleted only after this node's new pod is Ready —
/// so at no instant are two nodes without a Ready pod; every node ends with
/// a new-template pod and kubectl reports the rollout done.
#[test]
fn max_unavailable_one_updates_one_node_at_a_time() {
    let s = seen("models/scenarios/ds-rolling-update.yaml");
    for t in s.instants().into_iter().filter(|t| *t >= 30.0) {
        let without = NODES.iter().filter(|n| !s.ready_on(n, t)).count();
        assert!(without <= 1, "{without} nodes without a Ready pod at {t}");
    }
    let new = s.new_pods();
    assert_eq!(new.keys().copied().collect::<Vec<_>>(), NODES, "a new pod on every node");
    let mut order: Vec<(&str, &Pod)> = new.iter().map(|(n, p)| (*n, *p)).collect();
    order.sort_by(|a, b| a.1.created.total_cmp(&b.1.created));
    for (node, p) in &order {
        let old = s.old_pod(node);
        let terminal = old.terminal.expect("the old pod finished");
        assert!(old.deleting.unwrap() >= 30.0);
        // Seen by the controller's informer (watch 2–20 ms) and POSTed (api write 5–25 ms).
        assert!(
            p.created > terminal && p.created < terminal + 0.1,
            "{node}: created {} after terminal {terminal}",
            p.created
        );
    }
    for pair in order.windows(2) {
        let (ready, next_delete) = (pair[0].1.ready.unwrap(), s.old_pod(pair[1].0).deleting.unwrap());
        assert!(
            next_delete > ready,
            "{} deleted at {next_delete} before {}'s new pod was Ready at {ready}",
            pair[1].0,
            pair[0].0
        );
    }
    assert_eq!(s.status["updatedNumberScheduled"], 3);
    assert_eq!(s.status["numberAvailable"], 3);
    assert_eq!(s.status["observedGeneration"], 2);
    assert_eq!(s.rollout.last().map(String::as_str), Some("daemon set \"agent\" successfully rolled out"));
    assert_eq!(s.rollout.first().map(String::as_str), Some("Waiting for daemon set spec update to be observed..."));
}

/// maxSurge 1 (maxUnavailable 0): each node's new pod is created while
/// its old one runs, the old one deleted only after the new one is Ready
/// (`manage`'s surge branch, or `rollingUpdate`'s), so every node has a
/// Ready pod at every instant, and at most one node runs a second pod
/// not being deleted.
#[test]
fn max_surge_one_keeps_every_node_ready() {
    let s = seen("models/scenarios/ds-surge-update.yaml");
    for t in s.instants().into_iter().filter(|t| *t >= 10.0) {
        for n in NODES {
            assert!(s.ready_on(n, t), "{n} without a Ready pod at {t}");
        }
        let live = |p: &Pod| p.created <= t && p.deleting.is_none_or(|d| d > t);
        let surging = NODES.iter().filter(|n| s.pods.values().filter(|p| p.node == **n && live(p)).count() > 1).count();
        assert!(surging <= 1, "{surging} nodes surging at {t}");
    }
    for (node, p) in s.new_pods() {
        let old = s.old_pod(node);
        assert!(p.created < old.deleting.unwrap(), "{node}: the new pod comes first");
        assert!(old.deleting.unwrap() > p.ready.unwrap(), "{node}: the old pod goes once the new one is Ready");
    }
    assert_eq!(s.status["updatedNumberScheduled"], 3);
    assert_eq!(s.rollout.last().map(String::as_str), Some("daemon set \"agent\" successfully rolled out"));
}

/// A node lost (`ds-node-down.yaml`): the unreachable NoSchedule taint makes
/// `shouldRun` false but NoExecute is tolerated for ever
/// (`shouldContinueRunning`), so the pod stays — not evicted 300 s after
/// the NoExecute taint as a Deployment's would be — and the status says
/// DESIRED 2, misscheduled 1 (`updateDaemonSetStatus` counts by shouldRun).
#[test]
fn a_lost_node_keeps_its_pod_and_leaves_desired() {
    let s = seen("models/scenarios/ds-node-down.yaml");
    assert_eq!(s.pods.len(), 3, "no pod made for the lost node: {:?}", s.pods);
    assert!(s.pods.values().all(|p| p.deleting.is_none()), "no pod evicted: {:?}", s.pods);
    let on_2 = s.pods.values().find(|p| p.node == "node-2").unwrap();
    // Marked not Ready by the node lifecycle controller after the 50 s grace.
    assert!(on_2.unready.is_some_and(|t| t > 70.0 && t < 95.0), "{on_2:?}");
    assert_eq!(s.status["desiredNumberScheduled"], 2);
    assert_eq!(s.status["currentNumberScheduled"], 2);
    assert_eq!(s.status["numberMisscheduled"], 1);
    assert_eq!(s.status["numberReady"], 2);
}

/// `updateStrategy: OnDelete`: a new template replaces no pod by itself
/// (`rollingUpdate` is not called); a pod the user deletes comes back with
/// the new template once it is gone (`manage`), the others keep the old one;
/// `kubectl rollout status` refuses the strategy.
#[test]
fn on_delete_replaces_only_what_the_user_deletes() {
    let dir = crate::TempDir::new("ds-on-delete");
    let manifest = std::fs::read_to_string("models/manifests/ds-agent.yaml")
        .unwrap()
        .replace("  template:\n", "  updateStrategy: {type: OnDelete}\n  template:\n");
    dir.write("ds.yaml", &manifest);
    dir.write("ds-v2.yaml", &manifest.replace("agent:1.0", "agent:1.1"));
    let cluster = format!("{}/models/clusters/three-nodes.yaml", env!("CARGO_MANIFEST_DIR"));
    let scenario = dir.write(
        "scenario.yaml",
        &format!(
            "manifests: [ds.yaml]\ncluster: {cluster}\nseed: 1\nuntil: 120s\nactions:\n- {{at: 30s, apply: ds-v2.yaml}}\n- {{at: 60s, delete: pod/agent-*}}\n"
        ),
    );
    let s = seen(&scenario);
    let deleted: Vec<&Pod> = s.pods.values().filter(|p| p.deleting.is_some()).collect();
    assert_eq!(deleted.len(), 1, "only the pod the user deleted: {:?}", s.pods);
    assert!(deleted[0].deleting.unwrap() >= 60.0);
    let new = s.new_pods();
    assert_eq!(new.len(), 1, "{:?}", s.pods);
    let (node, p) = new.into_iter().next().unwrap();
    assert_eq!(node, deleted[0].node);
    assert!(p.created > deleted[0].terminal.unwrap());
    assert_eq!(s.status["updatedNumberScheduled"], 1);
    assert_eq!(s.status["numberAvailable"], 3);
    assert_eq!(s.rollout, ["error: rollout status is only available for RollingUpdate strategy type"]);
}

/// `podsim check` reads `kubectl get ds` rows (`printDaemonSet`'s columns)
/// and judges each status write: CURRENT ≤ DESIRED, READY and UP-TO-DATE ≤
/// CURRENT, AVAILABLE ≤ READY — podsim's own `get ds -w` holds them, a row
/// with more available than ready pods breaks them.
#[test]
fn check_judges_daemon_set_rows() {
    let dir = crate::TempDir::new("ds-check");
    let watch = podsim(["get", "ds", "models/scenarios/ds-rolling-update.yaml", "-w"]);
    assert_eq!(watch.code, Some(0), "{watch:?}");
    let recorded = dir.write("watch.txt", &format!("$ kubectl get ds -w\n{}", watch.stdout));
    let run = podsim(["check", &recorded]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("(DaemonSet agent) (20 row(s)"), "{run:?}");
    assert!(run.stdout.contains("holds     controller-counts"), "{run:?}");
    let bad = dir.write(
        "bad.txt",
        "NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE\nagent   3         3         2       3            3           <none>          5m\n",
    );
    let run = podsim(["check", &bad]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("expected AVAILABLE ≤ READY (2)"), "{run:?}");
}

/// An apply that changes the selector is refused as the API server refuses
/// it (`ValidateDaemonSetSpecUpdate`: `field is immutable`), at its line.
#[test]
fn an_applied_selector_change_is_refused() {
    let dir = crate::TempDir::new("ds-selector");
    let manifest = std::fs::read_to_string("models/manifests/ds-agent.yaml").unwrap();
    dir.write("ds.yaml", &manifest);
    dir.write("ds-v2.yaml", &manifest.replace("app: agent}", "app: agent2}"));
    let cluster = format!("{}/models/clusters/three-nodes.yaml", env!("CARGO_MANIFEST_DIR"));
    let scenario = dir.write(
        "scenario.yaml",
        &format!("manifests: [ds.yaml]\ncluster: {cluster}\nuntil: 60s\nactions:\n- {{at: 30s, apply: ds-v2.yaml}}\n"),
    );
    let run = podsim(["run", &scenario]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("ds-v2.yaml:8:3: spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{app: agent2,},MatchExpressions:[]LabelSelectorRequirement{},}: field is immutable"), "{run:?}");
}

/// `kubectl describe ds` (`describeDaemonSet`): the five status numbers at
/// the instant, the pods by phase, the template's new image and the
/// controller's events, 35 s into the rollout (one node updated).
#[test]
fn describe_daemon_set_mid_rollout() {
    let run = podsim(["describe", "ds/agent", "models/scenarios/ds-rolling-update.yaml", "--at", "35s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    for line in [
        "Selector:       app=agent",
        "Node-Selector:  <none>",
        "Annotations:    deprecated.daemonset.template.generation: 2",
        "Desired Number of Nodes Scheduled: 3",
        "Number of Nodes Scheduled with Up-to-date Pods: 1",
        "Number of Nodes Misscheduled: 0",
        "    Image:         registry.example/agent:1.1",
        "  Normal  SuccessfulDelete  5s    daemonset-controller  Deleted pod: agent-",
    ] {
        assert!(run.stdout.lines().any(|l| l.starts_with(line)), "{line:?} in\n{}", run.stdout);
    }
}

/// `constructHistory`/`snapshot`: each template gets a ControllerRevision
/// `agent-<hash>` before its pods, numbered 1, 2, …, whose hash is the
/// pods' `controller-revision-hash`; `podsim get controllerrevisions`
/// prints them as `printControllerRevision` does.
#[test]
fn each_template_gets_a_controller_revision() {
    let run = podsim(["get", "controllerrevisions", "models/scenarios/ds-rolling-update.yaml"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let rows: Vec<Vec<&str>> = run.stdout.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows[0], ["NAME", "CONTROLLER", "REVISION", "AGE"]);
    let mut revisions: Vec<(&str, &str)> = rows[1..].iter().map(|r| (r[2], r[0])).collect();
    revisions.sort();
    assert_eq!(revisions.iter().map(|r| r.0).collect::<Vec<_>>(), ["1", "2"]);
    assert!(rows[1..].iter().all(|r| r[1] == "daemonset.apps/agent"));
    let pods = podsim(["get", "pods", "models/scenarios/ds-rolling-update.yaml", "-o", "json"]);
    let hash = revisions[1].1.strip_prefix("agent-").unwrap();
    assert_eq!(pods.stdout.matches(&format!("\"controller-revision-hash\": \"{hash}\"")).count(), 3, "{pods:?}");
}

/// Going back to the first template (`constructHistory`): its revision is
/// not made again but renumbered max + 1 = 3, as `cur.Revision < currRevision`
/// updates it.
#[test]
fn an_older_template_applied_again_is_renumbered() {
    let dir = crate::TempDir::new("ds-back");
    let root = env!("CARGO_MANIFEST_DIR");
    let scenario = dir.write(
        "scenario.yaml",
        &format!(
            "manifests: [{root}/models/manifests/ds-agent.yaml]\ncluster: {root}/models/clusters/three-nodes.yaml\nuntil: 150s\nactions:\n- {{at: 30s, apply: {root}/models/manifests/ds-agent-v2.yaml}}\n- {{at: 90s, apply: {root}/models/manifests/ds-agent.yaml}}\n"
        ),
    );
    let run = podsim(["get", "controllerrevisions", &scenario]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let revisions: Vec<String> =
        run.stdout.lines().skip(1).map(|l| l.split_whitespace().nth(2).unwrap().to_string()).collect();
    assert_eq!(run.stdout.lines().count(), 3, "two revisions: {run:?}");
    let mut sorted = revisions.clone();
    sorted.sort();
    assert_eq!(sorted, ["2", "3"], "{run:?}");
}

/// `kubectl delete daemonset/agent` at 20 s: the set goes at once, the
/// garbage collector deletes its three pods and its ControllerRevision, and
/// no pod is created for any node after it.
#[test]
fn deleting_a_daemon_set_deletes_its_pods_and_revision() {
    let run = podsim([
        "run",
        "models/scenarios/ds-rolling-update.yaml",
        "--delete",
        "ds/agent@20s",
        "--until",
        "29s",
        "-o",
        "jsonl",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let mut added_pods_after = 0;
    let mut deleted: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for v in run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let ms = (v["t"].as_f64().unwrap_or(-1.0) * 1000.0).round() as u64;
        let kind = v["object"]["kind"].as_str().unwrap_or("").to_string();
        match v["type"].as_str() {
            Some("DELETED") => deleted.entry(kind).or_default().push(ms),
            Some("ADDED") if kind == "Pod" && ms >= 20_000 => added_pods_after += 1,
            _ => {}
        }
    }
    assert_eq!(deleted["DaemonSet"], [20_000]);
    assert_eq!(deleted["ControllerRevision"].len(), 1);
    assert!(deleted["Pod"].len() == 3 && deleted["Pod"].iter().all(|t| *t > 20_000), "{deleted:?}");
    assert_eq!(added_pods_after, 0);
}

/// A node added at 30 s (`addNode`): absent from `kubectl get nodes` before,
/// registered then (AGE from its join); the DaemonSet controller sees the
/// Node added (`addNode`) and creates its pod there, DESIRED 2 → 3.
#[test]
fn a_node_that_joins_gets_its_daemon_pod() {
    let scenario = "models/scenarios/ds-node-joins.yaml";
    let before = podsim(["get", "nodes,ds", scenario, "--at", "20s"]);
    assert_eq!(before.code, Some(0), "{before:?}");
    assert!(!before.stdout.contains("node-3"), "{}", before.stdout);
    assert!(before.stdout.contains("daemonset.apps/agent   2         2         2"), "{}", before.stdout);
    let after = podsim(["get", "nodes,ds", scenario, "--at", "45s"]);
    assert!(after.stdout.contains("node/node-3   Ready    <none>   15s"), "{}", after.stdout);
    assert!(after.stdout.contains("daemonset.apps/agent   3         3         3"), "{}", after.stdout);
    let run = podsim(["run", scenario, "-o", "jsonl"]);
    let pods: Vec<(f64, String)> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| {
            v["type"] == "MODIFIED" && v["object"]["kind"] == "Pod" && v["object"]["spec"]["nodeName"] == "node-3"
        })
        .map(|v| (v["t"].as_f64().unwrap_or(0.0), v["object"]["metadata"]["name"].as_str().unwrap_or("").to_string()))
        .collect();
    assert!(!pods.is_empty() && pods.iter().all(|(t, _)| *t > 30.0), "bound to node-3 only after it joined: {pods:?}");
}

/// A node is added once, and nothing acts on it before it joins.
#[test]
fn add_node_is_checked_against_the_other_node_actions() {
    let scenario = "models/scenarios/ds-node-joins.yaml";
    let run = podsim(["run", scenario, "--add-node", "node/node-3@40s", "--cordon", "node/node-3@10s"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr
            .contains("error: --add-node node/node-3@40s: node/node-3 joins already at 30.000s: a node is added once"),
        "{run:?}"
    );
    assert!(run.stderr.contains("error: --cordon node/node-3@10s: node/node-3 joins at 30.000s (addNode): before then there is no node to cordon"), "{run:?}");
    let unknown = podsim(["run", scenario, "--add-node", "node/node-9@40s"]);
    assert_eq!(unknown.code, Some(2), "{unknown:?}");
    assert!(unknown.stderr.contains("node-9"), "{unknown:?}");
}
