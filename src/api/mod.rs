//! The API server: the object store every component reads through watches
//! and writes through requests, with resourceVersions and the watch records
//! of the trace.

pub mod claim;
pub mod config;
pub mod controllerrevision;
pub mod cronjob;
pub mod daemonset;
pub mod deployment;
pub mod disruption;
pub mod endpointslice;
pub mod eviction;
pub mod job;
pub mod meta;
pub mod names;
pub mod node;
pub mod ownership;
pub mod pod;
pub mod pod_patch;
pub mod quantity;
pub mod replicaset;
pub mod service;
pub mod statefulset;
pub mod status;
pub mod store;
mod workloads;

use crate::api::status::{Condition, ConditionType, PodStatus};
use crate::cluster::Cidr;
use crate::ids::{PodId, ServiceId, SliceId};
use crate::rng::Stream;
use crate::spec::{PodSpec, ServiceSpec};
use crate::time::SimDuration;
use crate::time::SimTime;
use crate::trace::Trace;
use endpointslice::{ApiSlice, SliceContent};
use meta::Deletion;
use pod::ApiPod;
use service::{ApiService, allocate_cluster_ip};
use std::collections::BTreeSet;
use std::sync::Arc;
use store::{Change, Commit, Precondition, Store};

pub struct ApiServer {
    pods: Store<ApiPod>,
    services: Store<ApiService>,
    slices: Store<ApiSlice>,
    replica_sets: Store<replicaset::ApiReplicaSet>,
    deployments: Store<deployment::ApiDeployment>,
    pdbs: Store<disruption::ApiPdb>,
    jobs: Store<job::ApiJob>,
    cronjobs: Store<cronjob::ApiCronJob>,
    stateful_sets: Store<statefulset::ApiStatefulSet>,
    daemon_sets: Store<daemonset::ApiDaemonSet>,
    revisions: Store<controllerrevision::ApiControllerRevision>,
    /// The last resourceVersion given: one counter for every kind (etcd's revision).
    resource_version: u64,
    /// One stream per kind, so adding a Service leaves every pod's UID as it was.
    uids: Stream,
    service_uids: Stream,
    slice_uids: Stream,
    workload_uids: Stream,
    pdb_uids: Stream,
    job_uids: Stream,
    daemon_set_uids: Stream,
    revision_uids: Stream,
    cluster_ips: Stream,
    names: Stream,
    sts_uids: Stream,
}

impl ApiServer {
    pub fn new(seed: u64) -> Self {
        ApiServer {
            pods: Store::default(),
            services: Store::default(),
            slices: Store::default(),
            replica_sets: Store::default(),
            deployments: Store::default(),
            pdbs: Store::default(),
            jobs: Store::default(),
            cronjobs: Store::default(),
            daemon_sets: Store::default(),
            revisions: Store::default(),
            resource_version: 0,
            uids: Stream::new(seed, "apiserver/uid"),
            service_uids: Stream::new(seed, "apiserver/uid/service"),
            slice_uids: Stream::new(seed, "apiserver/uid/endpointslice"),
            workload_uids: Stream::new(seed, "apiserver/uid/workloads"),
            pdb_uids: Stream::new(seed, "apiserver/uid/poddisruptionbudgets"),
            job_uids: Stream::new(seed, "apiserver/uid/jobs"),
            daemon_set_uids: Stream::new(seed, "apiserver/uid/daemonsets"),
            revision_uids: Stream::new(seed, "apiserver/uid/controllerrevisions"),
            cluster_ips: Stream::new(seed, "apiserver/clusterip"),
            names: Stream::new(seed, "apiserver/generatename"),
            stateful_sets: Store::default(),
            sts_uids: Stream::new(seed, "apiserver/uid/statefulsets"),
        }
    }

    /// The last resourceVersion given out: it moves with every stored change.
    pub fn revision(&self) -> u64 {
        self.resource_version
    }

    pub fn services(&self) -> &[ApiService] {
        self.services.all()
    }

    pub fn service(&self, id: ServiceId) -> &ApiService {
        self.services.get(id)
    }

    pub fn slices(&self) -> &[ApiSlice] {
        self.slices.all()
    }

    pub fn slice(&self, id: SliceId) -> &ApiSlice {
        self.slices.get(id)
    }

    pub fn pods(&self) -> &[ApiPod] {
        self.pods.all()
    }

    pub fn pod(&self, id: PodId) -> &ApiPod {
        self.pods.get(id)
    }

    pub fn pdbs(&self) -> &[disruption::ApiPdb] {
        self.pdbs.all()
    }

    /// POST a PodDisruptionBudget: generation 1, an empty status (observedGeneration 0).
    pub fn create_pdb(
        &mut self,
        spec: Arc<crate::spec::PdbSpec>,
        now: SimTime,
        trace: &mut Trace,
    ) -> crate::ids::PdbId {
        let uid = Arc::from(uid(&mut self.pdb_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let status = disruption::PdbStatus::default();
        self.pdbs.create(uid, c, |id, meta| disruption::ApiPdb { id, meta, spec, status })
    }

    /// The disruption controller's `UpdateStatus`, based on the budget as it
    /// read it (resourceVersion `read`): a 409 when it changed since.
    pub fn update_pdb_status(
        &mut self,
        id: crate::ids::PdbId,
        read: u64,
        status: disruption::PdbStatus,
        now: SimTime,
        trace: &mut Trace,
    ) -> Result<Change, store::Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.pdbs.replace_status(id, read, c, status, store::WithStatus::status)
    }

    /// Where this request's stored changes go.
    fn commit<'a>(revision: &'a mut u64, now: SimTime, trace: &'a mut Trace) -> Commit<'a> {
        Commit { revision, now, trace }
    }

    /// POST: the pod is stored with a new UID, phase Pending. A
    /// `spec.nodeName` is stored as given: the pod is bound from its
    /// creation, with no PodScheduled condition until its kubelet reports
    /// one (only a binding writes it: `BindingREST.setPodNodeAndMetadata`,
    /// pkg/registry/core/pod/storage/storage.go).
    pub fn create(&mut self, spec: Arc<PodSpec>, now: SimTime, trace: &mut Trace) -> PodId {
        let uid = Arc::from(uid(&mut self.uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.pods.create(uid, c, |id, mut meta| {
            let finalizers = spec.object.metadata.finalizers.iter().flatten();
            meta.finalizers = finalizers.map(|f| Arc::from(f.as_str())).collect();
            let status = PodStatus::new(spec.qos);
            let node = spec.node_name.as_deref().map(Arc::from);
            ApiPod { id, meta, spec, node, status }
        })
    }

    /// POST a pod with `generateName: <prefix>`; `alias` is its
    /// seed-independent name ([`PodSpec::alias`]).
    pub fn create_generated(
        &mut self,
        spec: Arc<PodSpec>,
        prefix: &str,
        alias: Arc<str>,
        now: SimTime,
        trace: &mut Trace,
    ) -> PodId {
        let name = self.pods.generate_name(&spec.namespace, prefix, &mut self.names);
        let mut named = (*spec).clone();
        named.alias = alias;
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
        let used: BTreeSet<_> = self.services.all().iter().map(|s| s.cluster_ip).collect();
        // A headless Service gets no cluster IP: its stands-in address is never routed.
        let cluster_ip = match spec.headless {
            true => range.network,
            false => spec
                .cluster_ip
                .or_else(|| allocate_cluster_ip(range, &used, &mut self.cluster_ips))
                .unwrap_or(range.network),
        };
        let uid = Arc::from(uid(&mut self.service_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.services.create(uid, c, |id, meta| ApiService { id, meta, spec, cluster_ip })
    }

    /// POST an EndpointSlice of `service` with `generateName: <prefix>`.
    pub fn create_slice(
        &mut self,
        service: ServiceId,
        prefix: &str,
        content: SliceContent,
        now: SimTime,
        trace: &mut Trace,
    ) -> Arc<ApiSlice> {
        let namespace: Arc<str> = Arc::from(self.services.get(service).spec.namespace.as_str());
        let name = Arc::from(self.slices.generate_name(&namespace, prefix, &mut self.names));
        let uid = Arc::from(uid(&mut self.slice_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let id = self.slices.create(uid, c, |id, meta| ApiSlice { id, meta, name, namespace, service, content });
        self.slices.current(id).clone()
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
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.slices.write(id, Precondition::None, c, |s| {
            if s.content == content {
                return Change::None;
            }
            let spec_changed = s.content.ports != content.ports || s.content.endpoints != content.endpoints;
            s.content = content;
            if spec_changed { Change::NewGeneration } else { Change::Stored }
        });
        self.slices.current(id).clone()
    }

    pub fn delete_slice(&mut self, id: SliceId, now: SimTime, trace: &mut Trace) -> Arc<ApiSlice> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.slices.remove(id, c);
        self.slices.current(id).clone()
    }

    /// The scheduler's binding: `spec.nodeName` and PodScheduled=True.
    /// Returns false when the pod is gone (deleted while unscheduled).
    pub fn bind(&mut self, id: PodId, node: Arc<str>, now: SimTime, trace: &mut Trace) -> bool {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.pods
            .write(id, Precondition::None, c, |p| {
                p.node = Some(node);
                let mut c = Condition::new(ConditionType::PodScheduled, true);
                c.last_transition = now;
                p.status.set_condition(c);
                Change::Stored
            })
            .is_ok()
    }

    /// The scheduler found no node: `PodScheduled=False` (`handleSchedulingFailure`);
    /// `updatePod` writes nothing when the condition says so already
    /// (`UpdatePodCondition` compares status, reason and message).
    pub fn unschedulable(&mut self, id: PodId, message: String, now: SimTime, trace: &mut Trace) {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.pods.write_status(id, Precondition::None, c, |status| {
            let mut c = Condition::new(ConditionType::PodScheduled, false).reason("Unschedulable").message(message);
            if status.condition(&ConditionType::PodScheduled).is_some_and(|s| s.same_as(&c)) {
                return false;
            }
            c.last_transition = now;
            status.set_condition(c);
            true
        });
    }

    /// A status PATCH from the kubelet; returns the stored pod. The
    /// conditions the kubelet does not own stay as stored (its strategic
    /// merge patch only names its own).
    pub fn patch_status(&mut self, id: PodId, mut status: PodStatus, now: SimTime, trace: &mut Trace) -> Arc<ApiPod> {
        // The merge reads the stored pod first: a write that changes nothing is not sent.
        let p = self.pods.get(id);
        if p.meta.removed {
            return self.pods.current(id).clone();
        }
        let kubelets = status.conditions.into_iter().filter(|c| c.kind.by_kubelet());
        status.conditions = p.status.other_conditions().cloned().chain(kubelets).collect();
        if p.status.same_as(&status) {
            return self.pods.current(id).clone();
        }
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.pods.write_status(id, Precondition::None, c, |stored| {
            *stored = status;
            true
        });
        self.pods.current(id).clone()
    }

    /// Another client's status PATCH setting one condition (e.g. a
    /// readiness gate): lastTransitionTime moves only when the status does.
    /// Returns false when nothing changed.
    pub fn set_condition(&mut self, id: PodId, mut c: Condition, now: SimTime, trace: &mut Trace) -> bool {
        let commit = &mut Self::commit(&mut self.resource_version, now, trace);
        let written = self.pods.write_status(id, Precondition::None, commit, |status| {
            let old = status.condition(&c.kind);
            if old.is_some_and(|o| o.same_as(&c)) {
                return false;
            }
            c.last_transition = match old {
                Some(o) if o.status == c.status => o.last_transition,
                _ => now,
            };
            status.set_condition(c);
            true
        });
        written == Ok(Change::Stored)
    }

    /// `DELETE` (`BeforeDelete`, `CheckGracefulDelete`). A first delete
    /// takes the request's grace, else the pod's as stored (0 for a pod
    /// without `spec.nodeName` or a finished one; a negative one counts as
    /// 1 s), stores `deletionTimestamp` = now (to the second) + grace and
    /// bumps the generation; a later one may only shorten the grace, and one
    /// without a grace changes nothing. A zero grace removes the object at
    /// once — unless finalizers hold it.
    pub fn delete(&mut self, id: PodId, request: Option<i64>, now: SimTime, trace: &mut Trace) -> DeleteOutcome {
        self.delete_as(id, request, Precondition::None, false, now, trace)
    }

    /// The garbage collector's DELETE of a pod (`deleteObject`): its default
    /// grace, the UID it saw as precondition.
    pub fn delete_collected(&mut self, id: PodId, uid: &str, now: SimTime, trace: &mut Trace) -> DeleteOutcome {
        self.delete_as(id, None, Precondition::Uid(uid), false, now, trace)
    }

    fn delete_as(
        &mut self,
        id: PodId,
        request: Option<i64>,
        precondition: Precondition,
        by_kubelet: bool,
        now: SimTime,
        trace: &mut Trace,
    ) -> DeleteOutcome {
        // Negative values count as 1 s (`BeforeDelete`).
        let request = request.map(|g| if g < 0 { 1 } else { g });
        let mut remove = false;
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let written = self.pods.write(id, precondition, c, |p| {
            let deletion = match (p.meta.deletion, request) {
                (None, _) => Deletion::requested_at(now, check_graceful_delete(request, p), by_kubelet),
                // Already deleting: only a shorter grace changes anything.
                (Some(d), Some(period)) if d.grace_seconds > 0 && period < d.grace_seconds => Deletion {
                    timestamp: d.requested() + SimDuration::from_secs(period as u64),
                    grace_seconds: period,
                    by_kubelet,
                },
                (Some(d), _) => {
                    remove = d.grace_seconds == 0;
                    return Change::None;
                }
            };
            let first = p.meta.deletion.is_none();
            p.meta.deletion = Some(deletion);
            remove = deletion.grace_seconds == 0;
            if first { Change::NewGeneration } else { Change::Stored }
        });
        match written {
            Err(_) => DeleteOutcome::NotFound,
            _ if remove => self.remove_unless_finalized(id, now, trace),
            Ok(Change::None) => DeleteOutcome::Unchanged,
            Ok(_) => DeleteOutcome::Graceful,
        }
    }

    /// A zero-grace deletion removes the object, unless finalizers hold it
    /// (nothing in the simulation removes a pod's).
    fn remove_unless_finalized(&mut self, id: PodId, now: SimTime, trace: &mut Trace) -> DeleteOutcome {
        if !self.pods.get(id).meta.finalizers.is_empty() {
            return DeleteOutcome::Graceful;
        }
        self.pods.remove(id, &mut Self::commit(&mut self.resource_version, now, trace));
        DeleteOutcome::Removed
    }

    /// The kubelet's final `DELETE` (grace 0, UID precondition) of a finished pod.
    pub fn delete_final(&mut self, id: PodId, uid: &str, now: SimTime, trace: &mut Trace) -> bool {
        let outcome = self.delete_as(id, Some(0), Precondition::Uid(uid), true, now, trace);
        matches!(outcome, DeleteOutcome::Removed)
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
pub fn uid(stream: &mut Stream) -> String {
    let h = stream.hex(32);
    format!("{}-{}-4{}-a{}-{}", &h[0..8], &h[8..12], &h[13..16], &h[17..20], &h[20..32])
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

#[cfg(test)]
mod tests;
