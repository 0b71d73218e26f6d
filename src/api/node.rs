//! Nodes as stored: the profile's nodes exist before the run starts (but
//! those a scenario adds, which register when they join), so a run's trace
//! records only their changes — the Ready condition the kubelet
//! posts or the node lifecycle controller sets to Unknown, the taints that
//! controller adds and removes, `spec.unschedulable`.

use crate::time::SimTime;
use k8s_openapi::api::core::v1::Taint;
use std::sync::Arc;

/// `status.conditions[Ready].status`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeReady {
    /// `KubeletReady`: the kubelet is posting ready status.
    True,
    /// `NodeStatusUnknown`: the node lifecycle controller stopped hearing
    /// from the kubelet (`tryUpdateNodeHealth`).
    Unknown,
}

impl NodeReady {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeReady::True => "True",
            NodeReady::Unknown => "Unknown",
        }
    }

    /// The condition's reason and message (`ReadyCondition`; `tryUpdateNodeHealth`).
    pub fn reason_and_message(self) -> (&'static str, &'static str) {
        match self {
            NodeReady::True => ("KubeletReady", "kubelet is posting ready status"),
            NodeReady::Unknown => ("NodeStatusUnknown", "Kubelet stopped posting node status."),
        }
    }
}

/// One node as the API server holds it (the parts podsim changes).
#[derive(Clone, Debug, PartialEq)]
pub struct ApiNode {
    pub name: Arc<str>,
    pub ip: Arc<str>,
    pub ready: NodeReady,
    /// When Ready last changed (`lastTransitionTime`); zero: before the run.
    pub ready_since: SimTime,
    /// `spec.unschedulable` (`kubectl cordon`).
    pub unschedulable: bool,
    /// `spec.taints`: the profile's, then the controllers' (with `timeAdded`).
    pub taints: Vec<(Taint, Option<SimTime>)>,
    /// `status.nodeInfo.bootID`'s generation: a reboot changes it.
    pub boots: u32,
    /// When a node that joined during the run registered; none: before the run.
    pub created: Option<SimTime>,
}

impl ApiNode {
    /// A profile's node as the API server holds it when the run starts.
    pub fn of(n: &crate::cluster::Node) -> ApiNode {
        ApiNode {
            name: n.name.clone(),
            ip: n.ip.clone(),
            ready: NodeReady::True,
            ready_since: SimTime::ZERO,
            unschedulable: false,
            taints: n.taints.iter().map(|t| (t.clone(), None)).collect(),
            boots: 0,
            created: None,
        }
    }

    /// The kubectl STATUS column (`printNode`): `Ready` or `NotReady` (any
    /// Ready other than True), `,SchedulingDisabled` when cordoned.
    pub fn kubectl_status(&self) -> String {
        let ready = match self.ready {
            NodeReady::True => "Ready",
            NodeReady::Unknown => "NotReady",
        };
        match self.unschedulable {
            true => format!("{ready},SchedulingDisabled"),
            false => ready.to_string(),
        }
    }

    /// The taints alone, as the scheduler and the taint-eviction controller read them.
    pub fn taint_list(&self) -> Vec<Taint> {
        self.taints.iter().map(|(t, _)| t.clone()).collect()
    }

    /// `status.nodeInfo.bootID` after a reboot: a UUID per boot, the same in every run.
    pub fn boot_id(&self) -> String {
        let h = crate::rng::fnv1a_parts(&[self.name.as_bytes(), &self.boots.to_le_bytes()]);
        let g = crate::rng::fnv1a_parts(&[&h.to_le_bytes(), b"boot"]);
        let hex = format!("{h:016x}{g:016x}");
        format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
    }

    /// Whether a taint with this key and effect is on the node.
    pub fn has_taint(&self, key: &str, effect: &str) -> bool {
        self.taints.iter().any(|(t, _)| t.key == key && t.effect == effect)
    }
}

/// The node lifecycle controller's taint keys (`pkg/apis/core/v1/well_known_taints.go`).
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// `TaintNodeUnschedulable`, which stands for `spec.unschedulable`.
pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// A taint without a value, as the node lifecycle controller writes them.
pub fn taint(key: &str, effect: &str) -> Taint {
    Taint { key: key.to_string(), effect: effect.to_string(), value: None, time_added: None }
}
