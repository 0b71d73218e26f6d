//! The metadata the API server sets on every object, whatever its kind
//! (the server-owned fields of `metav1.ObjectMeta`).

use crate::time::{SimDuration, SimTime};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct Meta {
    /// `metadata.uid`: a random UUID given on create.
    pub uid: Arc<str>,
    /// `creationTimestamp`.
    pub created: SimTime,
    /// `metadata.generation`: 1 on create, +1 on each write the kind's
    /// strategy counts as a change of the spec.
    pub generation: i64,
    pub resource_version: u64,
    /// `deletionTimestamp` and `deletionGracePeriodSeconds`, once deleted
    /// gracefully.
    pub deletion: Option<Deletion>,
    /// `metadata.finalizers`: while any is left, a deleted object stays
    /// (with its deletion set) until the last is removed.
    pub finalizers: Vec<Arc<str>>,
    /// Gone from storage (the DELETED event was sent).
    pub removed: bool,
}

impl Meta {
    /// A new object's metadata (`BeforeCreate`, `FillObjectMetaSystemFields`).
    pub fn new(uid: Arc<str>, created: SimTime, resource_version: u64) -> Self {
        Meta { uid, created, generation: 1, resource_version, deletion: None, finalizers: Vec::new(), removed: false }
    }
}

/// `metav1.FinalizerOrphanDependents`: the garbage collector orphans the
/// object's dependents before it goes.
pub const ORPHAN: &str = "orphan";
/// `metav1.FinalizerDeleteDependents`: the garbage collector deletes the
/// object's blocking dependents before it goes.
pub const FOREGROUND: &str = "foregroundDeletion";

/// `DeleteOptions.propagationPolicy` (`kubectl delete --cascade`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Propagation {
    /// The object goes at once; the garbage collector deletes its dependents after.
    Background,
    /// The object stays, deleting, until the garbage collector has deleted
    /// its dependents.
    Foreground,
    /// The object stays until the garbage collector has removed the
    /// references to it from its dependents, which live on.
    Orphan,
}

impl Propagation {
    pub fn as_str(self) -> &'static str {
        match self {
            Propagation::Background => "background",
            Propagation::Foreground => "foreground",
            Propagation::Orphan => "orphan",
        }
    }

    /// `deletionFinalizersForGarbageCollection` (registry/store.go): the
    /// finalizers after a DELETE with this policy — the garbage collector's
    /// two removed, the policy's one added.
    pub fn finalizers(self, current: &[Arc<str>]) -> Vec<Arc<str>> {
        let mut kept: Vec<Arc<str>> =
            current.iter().filter(|f| ***f != *ORPHAN && ***f != *FOREGROUND).cloned().collect();
        match self {
            Propagation::Background => {}
            Propagation::Foreground => kept.push(FOREGROUND.into()),
            Propagation::Orphan => kept.push(ORPHAN.into()),
        }
        kept
    }
}

/// A graceful deletion as the API server stores it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Deletion {
    /// The request's time truncated to whole seconds, plus the grace period
    /// (metav1.Time is stored to the second).
    pub timestamp: SimTime,
    pub grace_seconds: i64,
    /// The last DELETE was the kubelet's final one (for the timeline only).
    pub by_kubelet: bool,
}

impl Deletion {
    /// A deletion requested at `now` with `grace_seconds`: metav1.Time
    /// keeps whole seconds, so the timestamp is the request's second plus
    /// the grace (`BeforeDelete`, `markAsDeleting`).
    pub fn requested_at(now: SimTime, grace_seconds: i64, by_kubelet: bool) -> Self {
        let second = SimTime::ZERO + SimDuration::from_secs(now.whole_seconds());
        Deletion { timestamp: second + SimDuration::from_secs(grace_seconds.max(0) as u64), grace_seconds, by_kubelet }
    }

    /// When the deletion was requested, to the second (`timestamp - grace`).
    pub fn requested(&self) -> SimTime {
        SimTime::ZERO
            + (self.timestamp.since(SimTime::ZERO))
                .saturating_sub(SimDuration::from_secs(self.grace_seconds.max(0) as u64))
    }
}
