//! The API server: the object store every component reads through watches
//! and writes through requests, with resourceVersions and the watch records
//! of the trace.

pub mod pod;
pub mod status;

use crate::api::status::{Condition, ConditionType, PodStatus};
use crate::rng::Stream;
use crate::sim::PodId;
use crate::spec::PodSpec;
use crate::time::SimDuration;
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::{Record, WatchKind};
use pod::{ApiPod, Deletion};
use std::sync::Arc;

pub struct ApiServer {
    pods: Vec<ApiPod>,
    resource_version: u64,
    uids: Stream,
}

impl ApiServer {
    pub fn new(seed: u64) -> Self {
        ApiServer { pods: Vec::new(), resource_version: 0, uids: Stream::new(seed, "apiserver/uid") }
    }

    pub fn pods(&self) -> &[ApiPod] {
        &self.pods
    }

    pub fn pod(&self, id: PodId) -> &ApiPod {
        &self.pods[id.0 as usize]
    }

    fn bump(&mut self) -> u64 {
        self.resource_version += 1;
        self.resource_version
    }

    fn record(&self, id: PodId, kind: WatchKind, now: SimTime, trace: &mut Trace) {
        trace.push(now, Record::Pod { kind, pod: Arc::new(self.pods[id.0 as usize].clone()) });
    }

    /// POST: the pod is stored with a new UID, phase Pending.
    pub fn create(&mut self, spec: Arc<PodSpec>, now: SimTime, trace: &mut Trace) -> PodId {
        let h = self.uids.hex(32);
        let uid = format!("{}-{}-4{}-a{}-{}", &h[0..8], &h[8..12], &h[13..16], &h[17..20], &h[20..32]);
        let id = PodId(self.pods.len() as u32);
        let rv = self.bump();
        let status = PodStatus::new(spec.qos);
        self.pods.push(ApiPod {
            id,
            spec,
            uid: Arc::from(uid),
            created: now,
            resource_version: rv,
            node: None,
            generation: 1,
            deletion: None,
            status,
            removed: false,
        });
        self.record(id, WatchKind::Added, now, trace);
        id
    }

    /// The scheduler's binding: `spec.nodeName` and PodScheduled=True.
    /// Returns false when the pod is gone (deleted while unscheduled).
    pub fn bind(&mut self, id: PodId, node: Arc<str>, now: SimTime, trace: &mut Trace) -> bool {
        if self.pods[id.0 as usize].removed {
            return false;
        }
        let rv = self.bump();
        let p = &mut self.pods[id.0 as usize];
        p.node = Some(node);
        p.resource_version = rv;
        let mut c = Condition::new(ConditionType::PodScheduled, true);
        c.last_transition = now;
        p.status.set_condition(c);
        self.record(id, WatchKind::Modified, now, trace);
        true
    }

    /// A status PATCH from the kubelet; returns the stored status. The
    /// conditions the kubelet does not own stay as stored (its strategic
    /// merge patch only names its own).
    pub fn patch_status(&mut self, id: PodId, mut status: PodStatus, now: SimTime, trace: &mut Trace) -> PodStatus {
        let p = &mut self.pods[id.0 as usize];
        if p.removed {
            return p.status.clone();
        }
        let kubelets = status.conditions.into_iter().filter(|c| c.kind.by_kubelet());
        status.conditions = p.status.other_conditions().cloned().chain(kubelets).collect();
        if p.status.same_as(&status) {
            return p.status.clone();
        }
        p.status = status;
        let rv = self.bump();
        self.pods[id.0 as usize].resource_version = rv;
        self.record(id, WatchKind::Modified, now, trace);
        self.pods[id.0 as usize].status.clone()
    }

    /// Another client's status PATCH setting one condition (e.g. a
    /// readiness gate): lastTransitionTime moves only when the status does.
    /// Returns false when nothing changed.
    pub fn set_condition(&mut self, id: PodId, mut c: Condition, now: SimTime, trace: &mut Trace) -> bool {
        let p = &mut self.pods[id.0 as usize];
        if p.removed {
            return false;
        }
        let old = p.status.condition(&c.kind);
        if old.is_some_and(|o| o.same_as(&c)) {
            return false;
        }
        c.last_transition = match old {
            Some(o) if o.status == c.status => o.last_transition,
            _ => now,
        };
        p.status.set_condition(c);
        let rv = self.bump();
        self.pods[id.0 as usize].resource_version = rv;
        self.record(id, WatchKind::Modified, now, trace);
        true
    }

    /// `DELETE` (`BeforeDelete`, `CheckGracefulDelete`). A first delete
    /// takes the request's grace, else the pod's (0 for an unscheduled or
    /// finished pod), stores `deletionTimestamp` = now (to the second) +
    /// grace and bumps the generation; a later one may only shorten the
    /// grace, and one without a grace changes nothing. A zero grace removes
    /// the object at once — unless finalizers hold it.
    pub fn delete(&mut self, id: PodId, request: Option<i64>, now: SimTime, trace: &mut Trace) -> DeleteOutcome {
        self.delete_as(id, request, false, now, trace)
    }

    fn delete_as(
        &mut self,
        id: PodId,
        request: Option<i64>,
        by_kubelet: bool,
        now: SimTime,
        trace: &mut Trace,
    ) -> DeleteOutcome {
        let p = &self.pods[id.0 as usize];
        if p.removed {
            return DeleteOutcome::NotFound;
        }
        // Negative values count as 1 s.
        let request = request.map(|g| if g < 0 { 1 } else { g });
        let deletion = match (p.deletion, request) {
            (None, _) => {
                let spec_grace = (p.spec.termination_grace.as_millis() / 1000) as i64;
                let mut period = request.unwrap_or(spec_grace);
                if p.node.is_none() || p.status.phase.is_terminal() {
                    period = 0;
                }
                let whole = SimTime::ZERO + SimDuration::from_secs(now.whole_seconds());
                Deletion { timestamp: whole + SimDuration::from_secs(period as u64), grace_seconds: period, by_kubelet }
            }
            // Already deleting: only a shorter grace changes anything.
            (Some(d), Some(period)) if d.grace_seconds > 0 && period < d.grace_seconds => Deletion {
                timestamp: d.requested() + SimDuration::from_secs(period as u64),
                grace_seconds: period,
                by_kubelet,
            },
            (Some(d), _) if d.grace_seconds == 0 => return self.remove_unless_finalized(id, now, trace),
            (Some(_), _) => return DeleteOutcome::Unchanged,
        };
        let first = p.deletion.is_none();
        let rv = self.bump();
        let p = &mut self.pods[id.0 as usize];
        p.deletion = Some(deletion);
        if first {
            p.generation += 1;
        }
        p.resource_version = rv;
        self.record(id, WatchKind::Modified, now, trace);
        if deletion.grace_seconds == 0 {
            return self.remove_unless_finalized(id, now, trace);
        }
        DeleteOutcome::Graceful
    }

    /// A zero-grace deletion removes the object, unless finalizers hold it
    /// (nothing in the simulation removes them).
    fn remove_unless_finalized(&mut self, id: PodId, now: SimTime, trace: &mut Trace) -> DeleteOutcome {
        let p = &self.pods[id.0 as usize];
        if p.spec.object.metadata.finalizers.as_ref().is_some_and(|f| !f.is_empty()) {
            return DeleteOutcome::Graceful;
        }
        self.remove(id, now, trace);
        DeleteOutcome::Removed
    }

    /// The kubelet's final `DELETE` (grace 0, UID precondition) of a finished pod.
    pub fn delete_final(&mut self, id: PodId, uid: &str, now: SimTime, trace: &mut Trace) -> bool {
        let p = &self.pods[id.0 as usize];
        if p.removed || &*p.uid != uid {
            return false;
        }
        matches!(self.delete_as(id, Some(0), true, now, trace), DeleteOutcome::Removed)
    }

    /// The object leaves storage: a DELETED watch event with the last object.
    fn remove(&mut self, id: PodId, now: SimTime, trace: &mut Trace) {
        let rv = self.bump();
        let p = &mut self.pods[id.0 as usize];
        p.resource_version = rv;
        p.removed = true;
        self.record(id, WatchKind::Deleted, now, trace);
    }
}

/// What a DELETE did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeleteOutcome {
    /// `deletionTimestamp` set (or shortened): the kubelet terminates the pod.
    Graceful,
    /// Removed at once (grace 0).
    Removed,
    /// Already deleting with a shorter or equal grace: nothing written.
    Unchanged,
    NotFound,
}
