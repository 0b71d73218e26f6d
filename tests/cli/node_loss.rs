//! A node lost (`nodeDown`, `--node-down`): what the node lifecycle and
//! taint-eviction controllers do, at the times their code sets.

use super::{TempDir, podsim};
use serde_json::Value;

/// The JSON Lines of a run.
fn lines(stdout: &str) -> Vec<Value> {
    stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).collect()
}

fn t(v: &Value) -> f64 {
    v["t"].as_f64().expect("every line has a time")
}

/// The times node `node` was written with Ready `ready`, and with a taint of `effect`.
fn node_writes<'a>(lines: &'a [Value], node: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    lines.iter().filter(move |v| v["object"]["kind"] == "Node" && v["object"]["metadata"]["name"] == node)
}

fn first_unknown(lines: &[Value], node: &str) -> Option<f64> {
    node_writes(lines, node).find(|v| v["object"]["status"]["conditions"][0]["status"] == "Unknown").map(t)
}

fn first_taint(lines: &[Value], node: &str, effect: &str) -> Option<f64> {
    node_writes(lines, node)
        .find(|v| {
            let taints = v["object"]["spec"]["taints"].as_array().cloned().unwrap_or_default();
            taints.iter().any(|t| t["key"] == "node.kubernetes.io/unreachable" && t["effect"] == effect)
        })
        .map(t)
}

/// (time, pod, reason, message) of each event.
fn events(lines: &[Value]) -> Vec<(f64, String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    lines
        .iter()
        .filter(|v| v["type"] == "EVENT")
        .map(|v| {
            let o = &v["object"];
            (t(v), s(&o["involvedObject"]["name"]), s(&o["reason"]), s(&o["message"]))
        })
        .collect()
}

/// The pod the scheduler bound to `node` first.
fn bound_to(events: &[(f64, String, String, String)], node: &str) -> String {
    let e = events.iter().find(|(_, _, r, m)| r == "Scheduled" && m.ends_with(&format!(" to {node}")));
    e.expect("a pod on the node").1.clone()
}

/// node-2 stops at 60 s. Its last lease renewal is at most 10.4 s before
/// (renewals every 10 s, jittered up by 4 %); the controller sees it at its
/// next 5-s pass and marks the node Unknown at the first pass more than
/// 50 s later: 39.6–60 s after the stop. The same pass marks its pod not
/// Ready with a Warning NodeNotReady and taints the node
/// `unreachable:NoSchedule`; the next pass (5 s on) queues it for the
/// NoExecute taint, which the 100 ms tainting loop adds at once (the first
/// node takes the rate limiter's only token). The taint-eviction controller
/// deletes the pod 300 s later (the default toleration), and the
/// ReplicaSet's replacement goes elsewhere; the deleted pod is never removed.
#[test]
fn a_lost_nodes_pod_is_marked_not_ready_then_evicted_after_its_toleration() {
    for seed in ["1", "2", "3", "4"] {
        let run = podsim(["run", "models/scenarios/node-down.yaml", "--seed", seed, "-o", "jsonl"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let lines = lines(&run.stdout);
        let events = events(&lines);
        let unknown = first_unknown(&lines, "node-2").expect("node-2 turns Unknown");
        assert!((99.6..=120.0).contains(&unknown), "seed {seed}: Unknown at {unknown}");
        assert_eq!(first_unknown(&lines, "node-1"), None, "seed {seed}");
        assert_eq!(first_taint(&lines, "node-2", "NoSchedule"), Some(unknown), "seed {seed}");
        let no_execute = first_taint(&lines, "node-2", "NoExecute").expect("tainted NoExecute");
        let after = no_execute - unknown;
        assert!((5.0..=5.1).contains(&after), "seed {seed}: NoExecute {after:.3}s after Unknown");

        let lost = bound_to(&events, "node-2");
        let has = |reason: &str, message: &str| {
            events.iter().filter(|(_, p, r, m)| *p == lost && r == reason && m == message).map(|e| e.0).collect()
        };
        let not_ready: Vec<f64> = has("NodeNotReady", "Node is not ready");
        assert_eq!(not_ready, [unknown], "seed {seed}");
        let marking: Vec<f64> = has("TaintManagerEviction", &format!("Marking for deletion Pod default/{lost}"));
        assert_eq!(marking.len(), 1, "seed {seed}: {marking:?}");
        assert!((marking[0] - (no_execute + 300.0)).abs() < 0.0015, "seed {seed}: {} vs {no_execute}", marking[0]);

        // Its pod: Ready False at the Unknown, then deleted with the DisruptionTarget condition, never removed.
        let writes: Vec<&Value> = lines
            .iter()
            .filter(|v| v["object"]["kind"] == "Pod" && v["object"]["metadata"]["name"] == lost.as_str())
            .collect();
        let ready_false = writes.iter().find(|v| {
            let conditions = v["object"]["status"]["conditions"].as_array().cloned().unwrap_or_default();
            t(v) >= 60.0 && conditions.iter().any(|c| c["type"] == "Ready" && c["status"] == "False")
        });
        assert_eq!(ready_false.map(|v| t(v)), Some(unknown), "seed {seed}");
        let deleted =
            writes.iter().find(|v| v["object"]["metadata"]["deletionTimestamp"].is_string()).expect("deleted");
        assert!((t(deleted) - marking[0]).abs() < 0.0005, "seed {seed}");
        let conditions = deleted["object"]["status"]["conditions"].as_array().cloned().unwrap_or_default();
        let target = conditions.iter().find(|c| c["type"] == "DisruptionTarget").expect("DisruptionTarget");
        assert_eq!(target["reason"], "DeletionByTaintManager", "seed {seed}");
        assert_eq!(target["message"], "Taint manager: deleting due to NoExecute taint", "seed {seed}");
        assert!(writes.iter().all(|v| v["type"] != "DELETED"), "seed {seed}: the lost pod stays Terminating");

        // The replacement goes to another node.
        let replaced = events.iter().find(|(at, _, r, _)| *at >= marking[0] && r == "Scheduled").expect("replaced");
        assert!(!replaced.3.ends_with(" to node-2"), "seed {seed}: {replaced:?}");
    }
}

/// Requests the Service sends to the lost pod time out until the
/// EndpointSlice drops it, after the node turns Unknown; none reach it after.
#[test]
fn requests_to_a_lost_pod_time_out_until_its_endpoint_is_dropped() {
    let run = podsim(["run", "models/scenarios/node-down.yaml", "--until", "3m", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines = lines(&run.stdout);
    let unknown = first_unknown(&lines, "node-2").expect("node-2 turns Unknown");
    let lost = bound_to(&events(&lines), "node-2");
    let requests: Vec<&Value> = lines.iter().filter(|v| v["type"] == "REQUEST").collect();
    let to_lost = |v: &&&Value| v["pod"].as_str().is_some_and(|p| p == lost);
    let after_stop: Vec<&&Value> =
        requests.iter().filter(|v| v["sent"].as_f64() >= Some(60.0)).filter(to_lost).collect();
    assert!(!after_stop.is_empty());
    assert!(after_stop.iter().all(|v| v["outcome"] == "timeout"), "{after_stop:?}");
    assert!(after_stop.iter().all(|v| v["sent"].as_f64().unwrap() < unknown + 1.0), "{after_stop:?}");
}

/// Tolerations decide: 30 s for `unreachable` deletes 30 s after the taint;
/// a toleration without seconds keeps the pod for ever; the default 300 s
/// for the third pod. And with one node only, losing it disrupts the whole
/// zone: the controller enters master disruption mode and taints nothing.
#[test]
fn tolerations_set_when_a_pod_on_a_lost_node_is_deleted() {
    let dir = TempDir::new("node-loss-tolerations");
    let pod = |name: &str, toleration: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  nodeName: node-2\n  containers: [{{name: app, image: nginx:1.27}}]\n{toleration}---\n"
        )
    };
    let tolerate = |seconds: &str| {
        format!(
            "  tolerations: [{{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute{seconds}}}]\n"
        )
    };
    let manifests =
        [pod("short", &tolerate(", tolerationSeconds: 30")), pod("forever", &tolerate("")), pod("default", "")];
    dir.write("pods.yaml", &manifests.concat());
    let cluster = std::fs::read_to_string("models/clusters/three-nodes.yaml").expect("the profile");
    dir.write("three.yaml", &cluster);
    let scenario =
        "manifests: [pods.yaml]\ncluster: three.yaml\nuntil: 8m\nactions:\n- {at: 30s, nodeDown: node/node-2}\n";
    let path = dir.write("s.yaml", scenario);
    let run = podsim(["run", &path, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let all = lines(&run.stdout);
    let no_execute = first_taint(&all, "node-2", "NoExecute").expect("tainted");
    let events = events(&all);
    let marked = |pod: &str| {
        events
            .iter()
            .find(|(_, p, r, m)| p == pod && r == "TaintManagerEviction" && m.starts_with("Marking"))
            .map(|e| e.0)
    };
    let short = marked("short").expect("short is deleted");
    assert!((short - (no_execute + 30.0)).abs() < 0.0015, "{short} vs {no_execute}");
    let default = marked("default").expect("default is deleted");
    assert!((default - (no_execute + 300.0)).abs() < 0.0015, "{default} vs {no_execute}");
    assert_eq!(marked("forever"), None);

    let one = "manifests: [pods.yaml]\nuntil: 8m\nactions:\n- {at: 30s, nodeDown: node/node-1}\n";
    let single = pod("lonely", "").replace("node-2", "node-1");
    dir.write("pods.yaml", &single);
    let path = dir.write("one.yaml", one);
    let run = podsim(["run", &path, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let written = self::lines(&run.stdout);
    assert!(first_unknown(&written, "node-1").is_some(), "the node is still marked Unknown");
    assert_eq!(first_taint(&written, "node-1", "NoExecute"), None, "master disruption mode: no NoExecute taint");
    assert!(self::events(&written).iter().all(|e| e.2 != "TaintManagerEviction"));
}

/// A node lost during a rollout: no pod is scheduled to node-2 once it is
/// tainted `unreachable:NoSchedule`; each pod bound there (the old one, and
/// any new one sent before the taint) is deleted 300 s after the NoExecute
/// taint; the rollout completes only after that, when the replacements are
/// available, and `kubectl rollout status` says so.
#[test]
fn a_rollout_waits_for_the_lost_nodes_pods_to_be_evicted() {
    for seed in ["1", "2", "3"] {
        let run = podsim(["run", "models/scenarios/node-down-rollout.yaml", "--seed", seed, "-o", "jsonl"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let lines = lines(&run.stdout);
        let events = events(&lines);
        let no_schedule = first_taint(&lines, "node-2", "NoSchedule").expect("tainted NoSchedule");
        let no_execute = first_taint(&lines, "node-2", "NoExecute").expect("tainted NoExecute");
        let on_node2: Vec<&(f64, String, String, String)> =
            events.iter().filter(|(_, _, r, m)| r == "Scheduled" && m.ends_with(" to node-2")).collect();
        assert!(on_node2.iter().all(|e| e.0 < no_schedule), "seed {seed}: {on_node2:?}");
        for (_, pod, _, _) in &on_node2 {
            let marked =
                events.iter().find(|(_, p, r, m)| p == pod && r == "TaintManagerEviction" && m.starts_with("Marking"));
            let at = marked.map(|e| e.0).expect("evicted");
            assert!((at - (no_execute + 300.0)).abs() < 0.0015, "seed {seed}: {pod} at {at}");
        }
        let done = lines
            .iter()
            .find(|v| v["type"] == "KUBECTL" && v["output"] == "deployment \"web\" successfully rolled out\n");
        let done = done.map(t).expect("the rollout completes");
        assert!(done > no_execute + 300.0, "seed {seed}: {done}");
    }
}

/// A node the profile does not have is refused with the action's line.
#[test]
fn a_node_down_of_an_unknown_node_is_refused() {
    let run = podsim(["run", "models/scenarios/node-down.yaml", "--node-down", "node/node-9@10s"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("no node named \"node-9\" in the cluster profile (nodes: node-1, node-2, node-3)"),
        "{run:?}"
    );
}

/// `podsim get nodes`: printNode's STATUS (NotReady once the controller
/// marked the node Unknown, SchedulingDisabled when cordoned), `<none>`
/// roles, `<unknown>` age (the nodes predate the run); cluster-scoped, so
/// `-A` adds no NAMESPACE column; a node that is not there is kubectl's
/// NotFound.
#[test]
fn get_nodes_prints_what_kubectl_prints() {
    let at = |t: &str| podsim(["get", "nodes", "models/scenarios/node-down.yaml", "--at", t, "-A"]);
    let before = at("50s");
    assert_eq!(before.code, Some(0), "{before:?}");
    let header = "NAME     STATUS     ROLES    AGE         VERSION\n";
    assert_eq!(before.stdout.lines().next(), Some("NAME     STATUS   ROLES    AGE         VERSION"));
    assert!(before.stdout.contains("node-2   Ready    <none>   <unknown>   \n"), "{before:?}");
    let after = at("2m");
    let rows = "node-1   Ready      <none>   <unknown>   \nnode-2   NotReady   <none>   <unknown>   \nnode-3   Ready      <none>   <unknown>   \n";
    assert_eq!(after.stdout, format!("{header}{rows}"), "{after:?}");
    let cordoned = podsim(["get", "nodes", "models/scenarios/cordon.yaml", "--at", "25s"]);
    assert!(cordoned.stdout.contains("node-2   Ready,SchedulingDisabled   <none>"), "{cordoned:?}");
    let missing = podsim(["get", "node/node-9", "models/scenarios/node-down.yaml"]);
    assert_eq!(missing.code, Some(1), "{missing:?}");
    assert!(missing.stderr.contains("Error from server (NotFound): nodes \"node-9\" not found"), "{missing:?}");
}

/// `--node-down …,for=D` (and `for:` in a scenario): the machine boots D
/// later, as after a reboot; `for` belongs to `nodeDown` only.
#[test]
fn a_node_down_for_a_while_boots_again() {
    let args = ["run", "models/scenarios/node-down.yaml", "--until", "400s", "-o", "jsonl"];
    let run = podsim(args.into_iter().chain(["--node-down", "node/node-3@30s,for=5m"]));
    assert_eq!(run.code, Some(0), "{run:?}");
    let events = events(&lines(&run.stdout));
    let rebooted: Vec<f64> = events.iter().filter(|e| e.1 == "node-3" && e.2 == "Rebooted").map(|e| e.0).collect();
    assert_eq!(rebooted, [330.0]);
    let bad = podsim(["run", "models/scenarios/node-down.yaml", "--node-down", "node/node-3@30s,down=5m"]);
    assert_eq!(bad.code, Some(2), "{bad:?}");
    assert!(bad.stderr.contains("unknown option \"down\" (known: for)"), "{bad:?}");
}
