//! What the DaemonSet controller's rules read of its pods and nodes: each
//! pod claimed by the DaemonSet with the node it is for, grouped by node
//! (`getNodesToDaemonPods`), and each node's verdict (`NodeShouldRunDaemonPod`).

use crate::api::status::PodPhase;
use crate::control::replicaset::status::is_pod_available;
use crate::ids::PodId;
use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One pod of the DaemonSet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodView {
    pub id: PodId,
    pub name: Arc<str>,
    /// `spec.nodeName` is set.
    pub bound: bool,
    /// `creationTimestamp`, whole seconds as the API stores it.
    pub created: SimTime,
    /// `deletionTimestamp` is set.
    pub deleting: bool,
    pub phase: PodPhase,
    /// The Ready condition's `lastTransitionTime` when Ready.
    pub ready_since: Option<SimTime>,
    /// `IsPodUpdated`: the current hash or template generation.
    pub updated: bool,
    /// Its `controller-revision-hash` is the current one (the surge rule reads only that).
    pub current_hash: bool,
}

impl PodView {
    pub fn ready(&self) -> bool {
        self.ready_since.is_some()
    }

    /// `IsPodAvailable` with the DaemonSet's minReadySeconds.
    pub fn available(&self, min_ready_seconds: u32, now: SimTime) -> bool {
        is_pod_available(self.ready_since, min_ready_seconds, now)
    }
}

/// `podByCreationTimestampAndPhase`: bound pods first, then the older,
/// then by name.
pub fn by_creation_and_phase(a: &PodView, b: &PodView) -> Ordering {
    b.bound.cmp(&a.bound).then(a.created.cmp(&b.created)).then(a.name.cmp(&b.name))
}

/// A node with its verdict for the DaemonSet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeVerdict {
    pub name: Arc<str>,
    pub should_run: bool,
    pub should_continue: bool,
}

/// `nodeToDaemonPods`: the pods for each node; a terminal pod already
/// being deleted is left out (`includeDeletedTerminal` false).
pub type NodePods = BTreeMap<Arc<str>, Vec<PodView>>;
