//! kube-scheduler, as far as podsim places pods: the TaintToleration filter
//! rules out nodes with a NoSchedule or NoExecute taint the pod does not
//! tolerate, then the node with the fewest pods bound wins (first in profile
//! order on a tie) — a simple stand-in for the scoring plugins that spreads
//! replicas. Node affinity, selectors and resources are not filtered on.

use crate::cluster::Node;
use k8s_openapi::api::core::v1::{Taint, Toleration};
use std::sync::Arc;

/// `Toleration.ToleratesTaint` (k8s.io/api/core/v1/toleration.go).
pub fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    let effect = t.effect.as_deref().unwrap_or("");
    let key = t.key.as_deref().unwrap_or("");
    if !effect.is_empty() && effect != taint.effect {
        return false;
    }
    if !key.is_empty() && key != taint.key {
        return false;
    }
    match t.operator.as_deref().unwrap_or("") {
        "" | "Equal" => t.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""),
        "Exists" => true,
        _ => false,
    }
}

/// `FindMatchingUntoleratedTaint` with the filter's NoSchedule/NoExecute predicate.
fn untolerated<'a>(node: &'a Node, tolerations: &[Toleration]) -> Option<&'a Taint> {
    node.taints
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .find(|t| !tolerations.iter().any(|tol| tolerates(tol, t)))
}

/// The node the pod is bound to, or the `FailedScheduling` message
/// (`FitError.Error`, with the DRA plugin's and preemption's PostFilter words).
pub fn pick(nodes: &[Node], tolerations: &[Toleration], bound: impl Fn(&str) -> usize) -> Result<Arc<str>, String> {
    let fits = nodes.iter().filter(|n| untolerated(n, tolerations).is_none());
    if let Some(best) = fits.min_by_key(|n| bound(&n.name)) {
        return Ok(best.name.clone());
    }
    let n = nodes.len();
    Err(format!(
        "0/{n} nodes are available: {n} node(s) had untolerated taint(s). no new claims to deallocate, \
         preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: Option<&str>, effect: &str) -> Taint {
        Taint { key: key.into(), value: value.map(str::to_string), effect: effect.into(), time_added: None }
    }

    fn toleration(key: Option<&str>, op: Option<&str>, value: Option<&str>, effect: Option<&str>) -> Toleration {
        Toleration {
            key: key.map(str::to_string),
            operator: op.map(str::to_string),
            value: value.map(str::to_string),
            effect: effect.map(str::to_string),
            toleration_seconds: None,
        }
    }

    fn node(name: &str, taints: Vec<Taint>) -> Node {
        Node { name: Arc::from(name), ip: Arc::from("10.0.0.1"), images: Vec::new(), taints }
    }

    const CP: &str = "node-role.kubernetes.io/control-plane";

    #[test]
    fn a_toleration_matches_by_key_effect_and_operator() {
        let t = taint(CP, None, "NoSchedule");
        assert!(tolerates(&toleration(Some(CP), Some("Exists"), None, Some("NoSchedule")), &t));
        assert!(tolerates(&toleration(Some(CP), Some("Exists"), None, None), &t));
        assert!(tolerates(&toleration(None, Some("Exists"), None, None), &t)); // tolerates everything
        assert!(tolerates(&toleration(Some(CP), None, None, None), &t)); // Equal "" == ""
        assert!(!tolerates(&toleration(Some(CP), None, Some("x"), None), &t));
        assert!(!tolerates(&toleration(Some(CP), Some("Exists"), None, Some("NoExecute")), &t));
        assert!(!tolerates(&toleration(Some("other"), Some("Exists"), None, None), &t));
    }

    #[test]
    fn a_tainted_control_plane_is_skipped_and_replicas_spread() {
        let nodes = [node("cp", vec![taint(CP, None, "NoSchedule")]), node("w1", vec![]), node("w2", vec![])];
        assert_eq!(&*pick(&nodes, &[], |_| 0).unwrap(), "w1");
        assert_eq!(&*pick(&nodes, &[], |n| usize::from(n == "w1")).unwrap(), "w2");
        let tol = [toleration(Some(CP), Some("Exists"), None, Some("NoSchedule"))];
        assert_eq!(&*pick(&nodes, &tol, |_| 0).unwrap(), "cp");
    }

    #[test]
    fn prefer_no_schedule_does_not_filter() {
        let nodes = [node("a", vec![taint("k", Some("v"), "PreferNoSchedule")])];
        assert_eq!(&*pick(&nodes, &[], |_| 0).unwrap(), "a");
    }

    #[test]
    fn no_node_fits_gives_the_schedulers_message() {
        let nodes = [node("cp", vec![taint(CP, None, "NoSchedule")])];
        assert_eq!(
            pick(&nodes, &[], |_| 0).unwrap_err(),
            "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, \
             preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        );
    }
}
