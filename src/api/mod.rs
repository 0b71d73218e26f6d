//! The API server: the object store every component reads through watches
//! and writes through requests, with resourceVersions and the watch records
//! of the trace.

pub mod pod;
pub mod status;

use crate::api::status::{Condition, ConditionType, PodStatus};
use crate::rng::Stream;
use crate::sim::PodId;
use crate::spec::PodSpec;
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::{Record, WatchKind};
use pod::ApiPod;
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
            status,
        });
        self.record(id, WatchKind::Added, now, trace);
        id
    }

    /// The scheduler's binding: `spec.nodeName` and PodScheduled=True.
    pub fn bind(&mut self, id: PodId, node: Arc<str>, now: SimTime, trace: &mut Trace) {
        let rv = self.bump();
        let p = &mut self.pods[id.0 as usize];
        p.node = Some(node);
        p.resource_version = rv;
        let mut c = Condition::new(ConditionType::PodScheduled, true);
        c.last_transition = now;
        p.status.set_condition(c);
        self.record(id, WatchKind::Modified, now, trace);
    }

    /// A status PATCH from the kubelet; returns the stored status.
    pub fn patch_status(&mut self, id: PodId, status: PodStatus, now: SimTime, trace: &mut Trace) -> PodStatus {
        let p = &mut self.pods[id.0 as usize];
        if p.status.same_as(&status) {
            return p.status.clone();
        }
        p.status = status;
        let rv = self.bump();
        self.pods[id.0 as usize].resource_version = rv;
        self.record(id, WatchKind::Modified, now, trace);
        self.pods[id.0 as usize].status.clone()
    }
}
