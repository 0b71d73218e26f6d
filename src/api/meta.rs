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
    /// Gone from storage (the DELETED event was sent).
    pub removed: bool,
}

impl Meta {
    /// A new object's metadata (`BeforeCreate`, `FillObjectMetaSystemFields`).
    pub fn new(uid: Arc<str>, created: SimTime, resource_version: u64) -> Self {
        Meta { uid, created, generation: 1, resource_version, deletion: None, removed: false }
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
    /// When the deletion was requested, to the second (`timestamp - grace`).
    pub fn requested(&self) -> SimTime {
        SimTime::ZERO
            + (self.timestamp.since(SimTime::ZERO))
                .saturating_sub(SimDuration::from_secs(self.grace_seconds.max(0) as u64))
    }
}
