//! A Pod object in the API server.

use super::status::PodStatus;
use crate::ids::PodId;
use crate::spec::PodSpec;
use crate::time::{SimDuration, SimTime};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct ApiPod {
    pub id: PodId,
    pub spec: Arc<PodSpec>,
    pub uid: Arc<str>,
    pub created: SimTime,
    pub resource_version: u64,
    /// `spec.nodeName`: as created, or once the scheduler's binding is stored.
    pub node: Option<Arc<str>>,
    /// `metadata.generation`: 1 on create, +1 when a graceful deletion begins.
    pub generation: i64,
    /// `deletionTimestamp` and `deletionGracePeriodSeconds`, once deleted.
    pub deletion: Option<Deletion>,
    pub status: PodStatus,
    /// Gone from storage (the DELETED event was sent).
    pub removed: bool,
}

/// A pod's deletion as the API server stores it.
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
