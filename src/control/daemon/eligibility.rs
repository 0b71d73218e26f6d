//! Which nodes run a daemon pod (daemon_controller.go
//! `NodeShouldRunDaemonPod` and `predicates`): the template's node name,
//! node selector and required node affinity, and the node's NoSchedule and
//! NoExecute taints against the template's tolerations plus the ones the
//! controller adds to every daemon pod.

use crate::cluster::Node;
use crate::control::scheduler::untolerated_taint;
use k8s_openapi::api::core::v1::{NodeSelectorRequirement, NodeSelectorTerm, PodSpec, Taint, Toleration};

/// A node as the controller's node informer holds it.
#[derive(Clone, Debug)]
pub struct NodeView {
    pub node: Node,
    /// `spec.taints` now: the profile's and the controllers'.
    pub taints: Vec<Taint>,
}

/// `util.AddOrUpdateDaemonPodTolerations`: in this order, not-ready and
/// unreachable NoExecute (no seconds: forever), disk-, memory- and
/// pid-pressure and unschedulable NoSchedule, and network-unavailable
/// NoSchedule for a host-network pod; each replaces an equal toleration in
/// place (`AddOrUpdateTolerationInPodSpec`: same key, operator, value and
/// effect) or is appended.
pub fn daemon_tolerations(written: &[Toleration], host_network: bool) -> Vec<Toleration> {
    let exists = |key: &str, effect: &str| Toleration {
        key: Some(key.to_string()),
        operator: Some("Exists".to_string()),
        effect: Some(effect.to_string()),
        value: None,
        toleration_seconds: None,
    };
    let mut added = vec![
        exists("node.kubernetes.io/not-ready", "NoExecute"),
        exists("node.kubernetes.io/unreachable", "NoExecute"),
        exists("node.kubernetes.io/disk-pressure", "NoSchedule"),
        exists("node.kubernetes.io/memory-pressure", "NoSchedule"),
        exists("node.kubernetes.io/pid-pressure", "NoSchedule"),
        exists("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    if host_network {
        added.push(exists("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    let mut out = written.to_vec();
    for t in added {
        let same = |o: &Toleration| {
            o.key == t.key
                && o.operator.as_deref().unwrap_or("Equal") == "Exists"
                && o.value.as_deref().unwrap_or("").is_empty()
                && o.effect == t.effect
        };
        match out.iter_mut().find(|o| same(o)) {
            Some(o) => *o = t,
            None => out.push(t),
        }
    }
    out
}

/// `nodeaffinity.RequiredNodeAffinity.Match`: every `nodeSelector` pair,
/// and one of the required terms (when there are any).
pub fn matches_node(spec: &PodSpec, node: &Node) -> bool {
    let selector = spec.node_selector.iter().flatten().all(|(k, v)| node.label(k) == Some(v.as_str()));
    let required = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
    selector && required.is_none_or(|r| r.node_selector_terms.iter().any(|t| term_matches(t, node)))
}

/// A term: its expressions on labels and its fields (only `metadata.name`),
/// all of them; an empty term matches no node.
fn term_matches(term: &NodeSelectorTerm, node: &Node) -> bool {
    let expressions = term.match_expressions.as_deref().unwrap_or_default();
    let fields = term.match_fields.as_deref().unwrap_or_default();
    if expressions.is_empty() && fields.is_empty() {
        return false;
    }
    expressions.iter().all(|r| requirement(r, node.label(&r.key)))
        && fields.iter().all(|r| r.key == "metadata.name" && requirement(r, Some(&node.name)))
}

/// One `NodeSelectorRequirement` against the value of its key (if any).
fn requirement(r: &NodeSelectorRequirement, value: Option<&str>) -> bool {
    let values = r.values.as_deref().unwrap_or_default();
    let number = |s: &str| s.parse::<i64>().ok();
    match (r.operator.as_str(), value) {
        ("In", Some(v)) => values.iter().any(|x| x == v),
        ("NotIn", Some(v)) => !values.iter().any(|x| x == v),
        ("NotIn", None) | ("Exists", Some(_)) | ("DoesNotExist", None) => true,
        ("Gt", Some(v)) => matches!((number(v), values.first().and_then(|x| number(x))), (Some(a), Some(b)) if a > b),
        ("Lt", Some(v)) => matches!((number(v), values.first().and_then(|x| number(x))), (Some(a), Some(b)) if a < b),
        _ => false,
    }
}

/// `NodeShouldRunDaemonPod`: whether a new daemon pod belongs on the node
/// (`shouldRun`), and whether one already there may stay
/// (`shouldContinueRunning`: only an untolerated NoExecute taint, or a
/// node the template's placement rules out, removes it).
pub fn should_run(spec: &PodSpec, tolerations: &[Toleration], node: &NodeView) -> (bool, bool) {
    if spec.node_name.as_deref().is_some_and(|n| !n.is_empty() && n != &*node.node.name) {
        return (false, false);
    }
    if !matches_node(spec, &node.node) {
        return (false, false);
    }
    let schedule = |t: &Taint| t.effect == "NoSchedule" || t.effect == "NoExecute";
    if untolerated_taint(&node.taints, tolerations, schedule).is_none() {
        return (true, true);
    }
    // "Scheduled daemon pods should continue running if they tolerate NoExecute taint."
    let execute = untolerated_taint(&node.taints, tolerations, |t| t.effect == "NoExecute");
    (false, execute.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::node::taint;
    use k8s_openapi::api::core::v1::{Affinity, NodeAffinity, NodeSelector};

    fn view(name: &str, taints: Vec<Taint>) -> NodeView {
        NodeView { node: Node::bare(name), taints }
    }

    fn run(spec: &PodSpec, node: &NodeView) -> (bool, bool) {
        let written = spec.tolerations.clone().unwrap_or_default();
        should_run(spec, &daemon_tolerations(&written, false), node)
    }

    /// The six tolerations every daemon pod gets, a seventh for host
    /// network; a template's not-ready toleration with seconds is replaced
    /// by the forever one.
    #[test]
    fn the_controller_adds_its_tolerations() {
        let keys = |ts: &[Toleration]| {
            ts.iter().map(|t| format!("{}:{}", t.key.clone().unwrap(), t.effect.clone().unwrap())).collect::<Vec<_>>()
        };
        assert_eq!(
            keys(&daemon_tolerations(&[], false)),
            [
                "node.kubernetes.io/not-ready:NoExecute",
                "node.kubernetes.io/unreachable:NoExecute",
                "node.kubernetes.io/disk-pressure:NoSchedule",
                "node.kubernetes.io/memory-pressure:NoSchedule",
                "node.kubernetes.io/pid-pressure:NoSchedule",
                "node.kubernetes.io/unschedulable:NoSchedule",
            ]
        );
        assert_eq!(daemon_tolerations(&[], true).len(), 7);
        let written = Toleration {
            key: Some("node.kubernetes.io/not-ready".into()),
            operator: Some("Exists".into()),
            effect: Some("NoExecute".into()),
            toleration_seconds: Some(300),
            value: None,
        };
        let out = daemon_tolerations(&[written], false);
        assert_eq!(out.len(), 6);
        assert_eq!(out[0].toleration_seconds, None);
    }

    /// A control-plane taint keeps the pod off unless tolerated; a node
    /// lost (unreachable NoSchedule and NoExecute) gets no new pod but keeps its own.
    #[test]
    fn taints_decide_new_pods_and_kept_ones() {
        let spec = PodSpec::default();
        let cp = view("cp", vec![taint("node-role.kubernetes.io/control-plane", "NoSchedule")]);
        assert_eq!(run(&spec, &cp), (false, true));
        let lost = view(
            "n",
            vec![
                taint("node.kubernetes.io/unreachable", "NoSchedule"),
                taint("node.kubernetes.io/unreachable", "NoExecute"),
            ],
        );
        assert_eq!(run(&spec, &lost), (false, true));
        let cordoned = view("n", vec![taint("node.kubernetes.io/unschedulable", "NoSchedule")]);
        assert_eq!(run(&spec, &cordoned), (true, true));
        let evicting = view("n", vec![taint("example.com/drain", "NoExecute")]);
        assert_eq!(run(&spec, &evicting), (false, false));
        let tolerant = PodSpec {
            tolerations: Some(vec![Toleration { operator: Some("Exists".into()), ..Default::default() }]),
            ..Default::default()
        };
        assert_eq!(run(&tolerant, &cp), (true, true));
    }

    #[test]
    fn selector_and_required_affinity_choose_nodes() {
        let mut node = Node::bare("node-2");
        node.labels.insert("disk".into(), "ssd".into());
        let v = NodeView { node, taints: vec![] };
        let selector =
            |k: &str, val: &str| PodSpec { node_selector: Some([(k.into(), val.into())].into()), ..Default::default() };
        assert_eq!(run(&selector("disk", "ssd"), &v), (true, true));
        assert_eq!(run(&selector("disk", "hdd"), &v), (false, false));
        assert_eq!(run(&selector("kubernetes.io/hostname", "node-2"), &v), (true, true));
        let affinity = |op: &str, values: &[&str]| PodSpec {
            affinity: Some(Affinity {
                node_affinity: Some(NodeAffinity {
                    required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                        node_selector_terms: vec![NodeSelectorTerm {
                            match_expressions: Some(vec![NodeSelectorRequirement {
                                key: "disk".into(),
                                operator: op.into(),
                                values: Some(values.iter().map(|s| s.to_string()).collect()),
                            }]),
                            match_fields: None,
                        }],
                    }),
                    preferred_during_scheduling_ignored_during_execution: None,
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(run(&affinity("In", &["ssd", "nvme"]), &v), (true, true));
        assert_eq!(run(&affinity("NotIn", &["ssd"]), &v), (false, false));
        assert_eq!(run(&affinity("Exists", &[]), &v), (true, true));
        assert_eq!(run(&affinity("DoesNotExist", &[]), &v), (false, false));
        let other = PodSpec { node_name: Some("node-1".into()), ..Default::default() };
        assert_eq!(run(&other, &v), (false, false));
    }
}
