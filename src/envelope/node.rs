//! Where a recorded pod is simulated: a pod created with `spec.nodeName`
//! stays bound (no scheduler runs for it and its deletion is graceful); a
//! node the scheduler chose is the simulated scheduler's to choose again.

use crate::cluster::Node;
use crate::control::deployment::revisions::LAST_APPLIED_CONFIG;
use crate::observe::{Observed, Record};

/// The node a pod was created bound to, when the recording shows it: an
/// object that names a node but carries no PodScheduled condition (a
/// binding writes both at once, `BindingREST.setPodNodeAndMetadata`; with
/// `spec.nodeName` at creation no scheduler runs and only the kubelet's
/// first status adds the condition), or a last-applied configuration that
/// names one. A dump's `spec.nodeName` alone is usually the scheduler's choice.
pub(super) fn created_bound(records: &[Record], pod: &str) -> Option<String> {
    records.iter().find_map(|r| {
        let Observed::Pod(p) = &r.observed else { return None };
        if p.metadata.name.as_deref() != Some(pod) {
            return None;
        }
        let node = p.spec.as_ref()?.node_name.clone()?;
        let conditions = p.status.as_ref().and_then(|s| s.conditions.as_ref());
        let unscheduled = conditions.is_none_or(|c| c.iter().all(|c| c.type_ != "PodScheduled"));
        let applied = p.metadata.annotations.as_ref().and_then(|a| a.get(LAST_APPLIED_CONFIG)).and_then(|a| {
            let v: serde_json::Value = serde_json::from_str(a).ok()?;
            v.pointer("/spec/nodeName")?.as_str().map(str::to_string)
        });
        applied.or(unscheduled.then_some(node))
    })
}

/// The simulated pod's `spec.nodeName`: a pod created bound stays bound (no
/// scheduler, graceful deletion), on the profile's node of that name or else
/// its first node; any other goes through the simulated scheduler.
pub(super) fn simulated_node(bound: Option<String>, nodes: &[Node]) -> (Option<String>, Option<String>) {
    let Some(node) = bound else { return (None, None) };
    if nodes.iter().any(|n| *n.name == node) {
        return (Some(node), None);
    }
    let first = nodes.first().map(|n| n.name.to_string());
    let note = first.as_ref().map(|f| {
        format!("it was created bound to node {node:?}, which the cluster profile lacks: simulated bound to {f:?}")
    });
    (first, note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SourceFile;
    use std::sync::Arc;

    /// A `kubectl get pod -o yaml` dump of pod `web` on `minikube`, with
    /// these annotations and conditions.
    fn dump(annotations: &str, conditions: &str) -> Vec<Record> {
        let text = format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: default\n{annotations}spec:\n  nodeName: minikube\n  containers:\n  - {{name: app, image: nginx:1.27}}\nstatus:\n  phase: Running\n{conditions}"
        );
        let mut out = Vec::new();
        crate::observe::read(&Arc::new(SourceFile { name: "pod.yaml".into(), text }), &mut |r| out.push(r));
        assert_eq!(out.len(), 1);
        out
    }

    const SCHEDULED: &str = "  conditions:\n  - {type: PodScheduled, status: \"True\"}\n";

    fn node(name: &str) -> Node {
        Node::bare(name)
    }

    /// The scheduler's binding writes spec.nodeName and PodScheduled
    /// together: a dump showing both says nothing about how it was created.
    #[test]
    fn a_scheduled_dump_is_scheduled_again() {
        assert_eq!(created_bound(&dump("", SCHEDULED), "web"), None);
    }

    /// A node without PodScheduled (the object as created, before its
    /// kubelet's first status), or a last-applied configuration naming the
    /// node, shows the pod was created bound.
    #[test]
    fn a_pod_created_bound_is_recognised() {
        assert_eq!(created_bound(&dump("", ""), "web").as_deref(), Some("minikube"));
        let applied = "  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"nodeName\":\"minikube\"}}'\n";
        assert_eq!(created_bound(&dump(applied, SCHEDULED), "web").as_deref(), Some("minikube"));
        assert_eq!(created_bound(&dump("", ""), "other"), None);
    }

    /// It stays on the profile's node of that name, else on the profile's
    /// first node, with a note saying so.
    #[test]
    fn a_bound_pod_keeps_a_node_of_the_profile() {
        let nodes = [node("kind-control-plane"), node("kind-worker")];
        assert_eq!(simulated_node(Some("kind-worker".into()), &nodes), (Some("kind-worker".into()), None));
        let (n, note) = simulated_node(Some("minikube".into()), &nodes);
        assert_eq!(n.as_deref(), Some("kind-control-plane"));
        assert!(note.unwrap().contains("\"minikube\", which the cluster profile lacks"));
        assert_eq!(simulated_node(None, &nodes), (None, None));
    }
}
