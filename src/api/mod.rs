//! The API server: the object store every component reads through watches
//! and writes through requests, with resourceVersions and the watch records
//! of the trace.

pub mod deployment;
pub mod endpointslice;
pub mod ownership;
pub mod pod;
pub mod pod_patch;
pub mod replicaset;
pub mod service;
pub mod status;
mod workloads;

use crate::api::status::{Condition, ConditionType, PodStatus};
use crate::cluster::Cidr;
use crate::ids::{PodId, ServiceId, SliceId};
use crate::rng::Stream;
use crate::spec::{PodSpec, ServiceSpec};
use crate::time::SimDuration;
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::{Record, WatchKind};
use endpointslice::{ApiSlice, SliceContent};
use pod::{ApiPod, Deletion};
use service::{ApiService, allocate_cluster_ip};
use std::collections::BTreeSet;
use std::sync::Arc;

pub struct ApiServer {
    pods: Vec<ApiPod>,
    services: Vec<ApiService>,
    slices: Vec<ApiSlice>,
    replica_sets: Vec<replicaset::ApiReplicaSet>,
    deployments: Vec<deployment::ApiDeployment>,
    resource_version: u64,
    /// One stream per kind, so adding a Service leaves every pod's UID as it was.
    uids: Stream,
    service_uids: Stream,
    slice_uids: Stream,
    workload_uids: Stream,
    cluster_ips: Stream,
    names: Stream,
}

impl ApiServer {
    pub fn new(seed: u64) -> Self {
        ApiServer {
            pods: Vec::new(),
            services: Vec::new(),
            slices: Vec::new(),
            replica_sets: Vec::new(),
            deployments: Vec::new(),
            resource_version: 0,
            uids: Stream::new(seed, "apiserver/uid"),
            service_uids: Stream::new(seed, "apiserver/uid/service"),
            slice_uids: Stream::new(seed, "apiserver/uid/endpointslice"),
            workload_uids: Stream::new(seed, "apiserver/uid/workloads"),
            cluster_ips: Stream::new(seed, "apiserver/clusterip"),
            names: Stream::new(seed, "apiserver/generatename"),
        }
    }

    pub fn services(&self) -> &[ApiService] {
        &self.services
    }

    pub fn service(&self, id: ServiceId) -> &ApiService {
        &self.services[id.0 as usize]
    }

    pub fn slice(&self, id: SliceId) -> &ApiSlice {
        &self.slices[id.0 as usize]
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

    /// POST: the pod is stored with a new UID, phase Pending. A
    /// `spec.nodeName` is stored as given: the pod is bound from its
    /// creation, with no PodScheduled condition until its kubelet reports
    /// one (only a binding writes it: `BindingREST.setPodNodeAndMetadata`,
    /// pkg/registry/core/pod/storage/storage.go).
    pub fn create(&mut self, spec: Arc<PodSpec>, now: SimTime, trace: &mut Trace) -> PodId {
        let uid = uid(&mut self.uids);
        let id = PodId(self.pods.len() as u32);
        let rv = self.bump();
        let status = PodStatus::new(spec.qos);
        let node = spec.node_name.as_deref().map(Arc::from);
        self.pods.push(ApiPod {
            id,
            spec,
            uid: Arc::from(uid),
            created: now,
            resource_version: rv,
            node,
            generation: 1,
            deletion: None,
            status,
            removed: false,
        });
        self.record(id, WatchKind::Added, now, trace);
        id
    }

    /// POST a pod with `generateName: <prefix>`: the server appends five
    /// random characters (`names.SimpleNameGenerator`) and retries a name in
    /// use (`RetryGenerateName`).
    pub fn create_generated(&mut self, spec: Arc<PodSpec>, prefix: &str, now: SimTime, trace: &mut Trace) -> PodId {
        let name = loop {
            let name = crate::control::replicaset::names::generate_name(prefix, &mut self.names);
            let taken = |p: &ApiPod| !p.removed && p.spec.name == name && p.spec.namespace == spec.namespace;
            if !self.pods.iter().any(taken) {
                break name;
            }
        };
        let mut named = (*spec).clone();
        named.object.metadata.generate_name = Some(prefix.to_string());
        named.object.metadata.name = Some(name.clone());
        named.name = name;
        self.create(Arc::new(named), now, trace)
    }

    /// POST a Service: its cluster IP is the one asked for, else the next
    /// free one of `range` (validation checked a requested IP beforehand).
    pub fn create_service(
        &mut self,
        spec: Arc<ServiceSpec>,
        range: Cidr,
        now: SimTime,
        trace: &mut Trace,
    ) -> ServiceId {
        let used: BTreeSet<_> = self.services.iter().map(|s| s.cluster_ip).collect();
        let cluster_ip = spec
            .cluster_ip
            .or_else(|| allocate_cluster_ip(range, &used, &mut self.cluster_ips))
            .unwrap_or(range.network);
        let id = ServiceId(self.services.len() as u32);
        let resource_version = self.bump();
        let uid = Arc::from(uid(&mut self.service_uids));
        self.services.push(ApiService { id, spec, uid, created: now, resource_version, cluster_ip });
        trace
            .push(now, Record::Service { kind: WatchKind::Added, svc: Arc::new(self.services[id.0 as usize].clone()) });
        id
    }

    /// POST an EndpointSlice with `generateName: <service>-`: the server
    /// appends five characters (`names.SimpleNameGenerator`).
    pub fn create_slice(
        &mut self,
        service: ServiceId,
        content: SliceContent,
        now: SimTime,
        trace: &mut Trace,
    ) -> Arc<ApiSlice> {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        let base = &self.services[service.0 as usize].spec.name;
        let suffix: String =
            (0..5).map(|_| ALPHABET[self.names.below(ALPHABET.len() as u64) as usize] as char).collect();
        let name = format!("{}-{suffix}", &base[..base.len().min(57)]);
        let id = SliceId(self.slices.len() as u32);
        let resource_version = self.bump();
        let uid = Arc::from(uid(&mut self.slice_uids));
        let slice = ApiSlice {
            id,
            name: Arc::from(name),
            service,
            uid,
            created: now,
            generation: 1,
            resource_version,
            content,
            removed: false,
        };
        self.slices.push(slice);
        self.record_slice(id, WatchKind::Added, now, trace)
    }

    /// PUT: a change of ports or endpoints bumps the generation; a write that
    /// changes nothing is not stored (no event).
    pub fn update_slice(
        &mut self,
        id: SliceId,
        content: SliceContent,
        now: SimTime,
        trace: &mut Trace,
    ) -> Arc<ApiSlice> {
        let s = &self.slices[id.0 as usize];
        if s.content == content {
            return Arc::new(s.clone());
        }
        let spec_changed = s.content.ports != content.ports || s.content.endpoints != content.endpoints;
        let rv = self.bump();
        let s = &mut self.slices[id.0 as usize];
        if spec_changed {
            s.generation += 1;
        }
        s.content = content;
        s.resource_version = rv;
        self.record_slice(id, WatchKind::Modified, now, trace)
    }

    pub fn delete_slice(&mut self, id: SliceId, now: SimTime, trace: &mut Trace) -> Arc<ApiSlice> {
        let rv = self.bump();
        let s = &mut self.slices[id.0 as usize];
        s.resource_version = rv;
        s.removed = true;
        self.record_slice(id, WatchKind::Deleted, now, trace)
    }

    fn record_slice(&self, id: SliceId, kind: WatchKind, now: SimTime, trace: &mut Trace) -> Arc<ApiSlice> {
        let slice = Arc::new(self.slices[id.0 as usize].clone());
        trace.push(now, Record::Slice { kind, slice: slice.clone() });
        slice
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

    /// The scheduler found no node: `PodScheduled=False` (`handleSchedulingFailure`);
    /// `updatePod` writes nothing when the condition says so already
    /// (`UpdatePodCondition` compares status, reason and message).
    pub fn unschedulable(&mut self, id: PodId, message: String, now: SimTime, trace: &mut Trace) {
        let stored = &self.pods[id.0 as usize];
        let mut c = Condition::new(ConditionType::PodScheduled, false).reason("Unschedulable").message(message);
        if stored.removed || stored.status.condition(&ConditionType::PodScheduled).is_some_and(|s| s.same_as(&c)) {
            return;
        }
        let rv = self.bump();
        let p = &mut self.pods[id.0 as usize];
        p.resource_version = rv;
        c.last_transition = now;
        p.status.set_condition(c);
        self.record(id, WatchKind::Modified, now, trace);
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
    /// takes the request's grace, else the pod's as stored (0 for a pod
    /// without `spec.nodeName` or a finished one; a negative one counts as
    /// 1 s), stores `deletionTimestamp` = now (to the second) + grace and
    /// bumps the generation; a later one may only shorten the grace, and one
    /// without a grace changes nothing. A zero grace removes the object at
    /// once — unless finalizers hold it.
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
        // Negative values count as 1 s (`BeforeDelete`).
        let request = request.map(|g| if g < 0 { 1 } else { g });
        let deletion = match (p.deletion, request) {
            (None, _) => {
                let period = check_graceful_delete(request, p);
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

/// `CheckGracefulDelete` (pkg/registry/core/pod/strategy.go): the
/// request's grace, else the pod's `terminationGracePeriodSeconds`; 0 for a
/// pod never bound to a node or already finished; a negative value counts
/// as 1 s.
fn check_graceful_delete(request: Option<i64>, p: &ApiPod) -> i64 {
    let mut period = request.unwrap_or_else(|| p.spec.stored_grace_seconds());
    if p.node.is_none() || p.status.phase.is_terminal() {
        period = 0;
    }
    if period < 0 { 1 } else { period }
}

/// A random version-4 UUID, as the API server gives every object.
fn uid(stream: &mut Stream) -> String {
    let h = stream.hex(32);
    format!("{}-{}-4{}-a{}-{}", &h[0..8], &h[8..12], &h[13..16], &h[17..20], &h[20..32])
}

/// A write based on an older `resourceVersion` than the stored one: "the
/// object has been modified; please apply your changes to the latest version
/// and try again" (409 Conflict).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Conflict;

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

#[cfg(test)]
mod tests;
