//! What the Deployment controller reads of a Deployment and its ReplicaSets,
//! reduced to the fields its rules use, and the orders it sorts them in.

use super::conditions::ConditionStatus;
use super::conditions::Reason;
use super::status::DeploymentStatus;
use crate::spec::Strategy;
use crate::time::SimTime;
use std::cmp::Ordering;
use std::sync::Arc;

/// One ReplicaSet owned by the Deployment, as its informer shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RsView {
    pub name: Arc<str>,
    /// `metadata.creationTimestamp`. The API stores whole seconds, so pass the
    /// floored time when the order of two ReplicaSets created in the same
    /// second matters (ties then go by name, as in Kubernetes).
    pub created: SimTime,
    /// `deployment.kubernetes.io/revision` (0 when absent).
    pub revision: u64,
    pub spec_replicas: u32,
    pub status_replicas: u32,
    pub ready: u32,
    pub available: u32,
    /// `status.terminatingReplicas`: `None` when the field is absent.
    pub terminating: Option<u32>,
    pub observed_generation: u64,
    /// `deployment.kubernetes.io/desired-replicas`, when present and an int32
    /// (see [`super::revisions::int_annotation`]).
    pub desired_replicas: Option<i32>,
    /// `deployment.kubernetes.io/max-replicas`, likewise.
    pub max_replicas: Option<i32>,
    /// The ReplicaSet's `ReplicaFailure` condition, if it has one.
    pub failure: Option<RsFailure>,
}

impl RsView {
    /// A ReplicaSet of `spec_replicas` whose status has not been written yet.
    pub fn new(name: impl Into<Arc<str>>, created: SimTime, spec_replicas: u32) -> RsView {
        RsView {
            name: name.into(),
            created,
            revision: 0,
            spec_replicas,
            status_replicas: 0,
            ready: 0,
            available: 0,
            terminating: None,
            observed_generation: 0,
            desired_replicas: None,
            max_replicas: None,
            failure: None,
        }
    }
}

/// A ReplicaSet's `ReplicaFailure` condition (reason `FailedCreate` or
/// `FailedDelete`), which `syncRolloutStatus` copies to the Deployment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RsFailure {
    pub status: ConditionStatus,
    pub reason: Reason,
    pub message: String,
    pub last_transition: SimTime,
}

/// The Deployment, as the controller reads it at the start of a sync.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeploymentView {
    pub name: Arc<str>,
    pub generation: u64,
    /// `spec.replicas`.
    pub replicas: u32,
    pub strategy: Strategy,
    /// `None` when there is no deadline (unset or `math.MaxInt32`).
    pub progress_deadline_seconds: Option<u32>,
    /// `status` as read (the "old" status the rules compare with).
    pub status: DeploymentStatus,
}

/// Which ReplicaSet a write is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RsRef {
    New,
    /// An index into the old ReplicaSets passed in.
    Old(usize),
}

/// A `spec.replicas` write on a ReplicaSet (`scaleReplicaSet`). The write also
/// refreshes the desired-replicas / max-replicas annotations
/// ([`super::revisions::set_replicas_annotations`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ScaleWrite {
    pub rs: RsRef,
    pub from: u32,
    pub to: u32,
}

impl ScaleWrite {
    /// scaleReplicaSet: the ScalingReplicaSet event (1.31+), only when the size changes.
    pub fn event_message(&self, rs_name: &str) -> Option<String> {
        if self.from == self.to {
            return None;
        }
        let op = if self.from < self.to { "up" } else { "down" };
        Some(format!("Scaled {op} replica set {rs_name} from {} to {}", self.from, self.to))
    }
}

/// controller.ReplicaSetsByCreationTimestamp.Less: older first, then by name.
pub fn by_creation(a: &RsView, b: &RsView) -> Ordering {
    a.created.cmp(&b.created).then_with(|| a.name.cmp(&b.name))
}

/// controller.ReplicaSetsBySizeOlder.Less: larger first; equal sizes older first.
pub fn by_size_older(a: &RsView, b: &RsView) -> Ordering {
    b.spec_replicas.cmp(&a.spec_replicas).then_with(|| by_creation(a, b))
}

/// controller.ReplicaSetsBySizeNewer.Less: larger first; equal sizes newer first.
pub fn by_size_newer(a: &RsView, b: &RsView) -> Ordering {
    b.spec_replicas.cmp(&a.spec_replicas).then_with(|| by_creation(b, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rs(name: &str, created_s: u64, spec: u32) -> RsView {
        RsView::new(name, SimTime::from_millis(created_s * 1000), spec)
    }

    #[test]
    fn orders_follow_the_sort_types() {
        // ByCreationTimestamp: creation time, then name for equal times.
        let (a, b, c) = (rs("b", 1, 3), rs("a", 1, 3), rs("c", 0, 3));
        let mut v = [a.clone(), b.clone(), c.clone()];
        v.sort_by(by_creation);
        assert_eq!(v.iter().map(|r| &*r.name).collect::<Vec<_>>(), ["c", "a", "b"]);
        // BySizeOlder: size descending; equal sizes older first (c, a, b).
        let big = rs("z", 5, 7);
        let mut v = [a.clone(), big.clone(), b.clone(), c.clone()];
        v.sort_by(by_size_older);
        assert_eq!(v.iter().map(|r| &*r.name).collect::<Vec<_>>(), ["z", "c", "a", "b"]);
        // BySizeNewer: size descending; equal sizes newer first, which is the
        // reverse of ByCreationTimestamp (b, a, c).
        let mut v = [a, big, b, c];
        v.sort_by(by_size_newer);
        assert_eq!(v.iter().map(|r| &*r.name).collect::<Vec<_>>(), ["z", "b", "a", "c"]);
    }

    #[test]
    fn scaling_event_message() {
        // "Scaled <up|down> replica set <rs> from <old> to <new>" (PR #125118).
        let up = ScaleWrite { rs: RsRef::New, from: 0, to: 3 };
        assert_eq!(up.event_message("web-5d9f").as_deref(), Some("Scaled up replica set web-5d9f from 0 to 3"));
        let down = ScaleWrite { rs: RsRef::Old(0), from: 10, to: 8 };
        assert_eq!(down.event_message("web-4b7c").as_deref(), Some("Scaled down replica set web-4b7c from 10 to 8"));
        assert_eq!(ScaleWrite { rs: RsRef::New, from: 2, to: 2 }.event_message("x"), None);
    }
}
