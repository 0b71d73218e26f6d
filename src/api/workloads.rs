//! The API server's ReplicaSets and Deployments: create, the writers' updates
//! and the status subresource, each stored change a watch record.

use super::deployment::{ApiDeployment, DeploymentId, DeploymentStatus};
use super::replicaset::{ApiReplicaSet, RsId, RsSpec, RsStatus};
use super::{ApiServer, uid};
use crate::spec::DeploymentSpec;
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::{Record, WatchKind};
use std::collections::BTreeMap;
use std::sync::Arc;

impl ApiServer {
    pub fn replica_sets(&self) -> &[ApiReplicaSet] {
        &self.replica_sets
    }

    pub fn replica_set(&self, id: RsId) -> &ApiReplicaSet {
        &self.replica_sets[id.0 as usize]
    }

    pub fn deployments(&self) -> &[ApiDeployment] {
        &self.deployments
    }

    pub fn deployment(&self, id: DeploymentId) -> &ApiDeployment {
        &self.deployments[id.0 as usize]
    }

    /// POST a ReplicaSet; `None` when one of that name exists (AlreadyExists).
    pub fn create_replica_set(&mut self, spec: RsSpec, now: SimTime, trace: &mut Trace) -> Option<RsId> {
        let taken = |r: &&ApiReplicaSet| !r.removed && r.spec.name == spec.name && r.spec.namespace == spec.namespace;
        if self.replica_sets.iter().any(|r| taken(&r)) {
            return None;
        }
        let id = RsId(self.replica_sets.len() as u32);
        let resource_version = self.bump();
        let uid = Arc::from(uid(&mut self.workload_uids));
        let status = RsStatus::default();
        self.replica_sets.push(ApiReplicaSet {
            id,
            uid,
            created: now,
            generation: 1,
            resource_version,
            spec,
            status,
            removed: false,
        });
        self.record_rs(id, WatchKind::Added, now, trace);
        Some(id)
    }

    /// PUT a ReplicaSet's spec and metadata: the generation moves when the
    /// spec or the annotations change (the apps strategy's `PrepareForUpdate`);
    /// an identical write stores nothing.
    pub fn update_replica_set(&mut self, id: RsId, spec: RsSpec, now: SimTime, trace: &mut Trace) -> bool {
        let r = &self.replica_sets[id.0 as usize];
        if r.removed || r.spec == spec {
            return false;
        }
        let rv = self.bump();
        let r = &mut self.replica_sets[id.0 as usize];
        r.generation += 1;
        r.spec = spec;
        r.resource_version = rv;
        self.record_rs(id, WatchKind::Modified, now, trace);
        true
    }

    /// PUT `status` (`updateReplicaSetStatus`): nothing is stored when it is unchanged.
    pub fn update_replica_set_status(&mut self, id: RsId, status: RsStatus, now: SimTime, trace: &mut Trace) -> bool {
        let r = &self.replica_sets[id.0 as usize];
        if r.removed || r.status == status {
            return false;
        }
        let rv = self.bump();
        let r = &mut self.replica_sets[id.0 as usize];
        r.status = status;
        r.resource_version = rv;
        self.record_rs(id, WatchKind::Modified, now, trace);
        true
    }

    pub fn delete_replica_set(&mut self, id: RsId, now: SimTime, trace: &mut Trace) {
        if self.replica_sets[id.0 as usize].removed {
            return;
        }
        let rv = self.bump();
        let r = &mut self.replica_sets[id.0 as usize];
        r.removed = true;
        r.resource_version = rv;
        self.record_rs(id, WatchKind::Deleted, now, trace);
    }

    fn record_rs(&self, id: RsId, kind: WatchKind, now: SimTime, trace: &mut Trace) {
        trace.push(now, Record::ReplicaSet { kind, rs: Arc::new(self.replica_sets[id.0 as usize].clone()) });
    }

    /// POST a Deployment.
    pub fn create_deployment(&mut self, spec: Arc<DeploymentSpec>, now: SimTime, trace: &mut Trace) -> DeploymentId {
        let id = DeploymentId(self.deployments.len() as u32);
        let resource_version = self.bump();
        let uid = Arc::from(uid(&mut self.workload_uids));
        let annotations = spec.annotations.clone();
        self.deployments.push(ApiDeployment {
            id,
            uid,
            created: now,
            generation: 1,
            resource_version,
            spec,
            annotations,
            status: DeploymentStatus::default(),
            removed: false,
        });
        self.record_deployment(id, WatchKind::Added, now, trace);
        id
    }

    /// PUT a Deployment (a rollout, a scale, an undo, or the controller's
    /// revision annotation): spec or annotation changes bump the generation.
    pub fn update_deployment(
        &mut self,
        id: DeploymentId,
        spec: Arc<DeploymentSpec>,
        annotations: BTreeMap<String, String>,
        now: SimTime,
        trace: &mut Trace,
    ) -> bool {
        let d = &self.deployments[id.0 as usize];
        let same_spec = Arc::ptr_eq(&d.spec, &spec) || same_deployment_spec(&d.spec, &spec);
        if d.removed || (same_spec && d.annotations == annotations) {
            return false;
        }
        let rv = self.bump();
        let d = &mut self.deployments[id.0 as usize];
        d.generation += 1;
        d.spec = spec;
        d.annotations = annotations;
        d.resource_version = rv;
        self.record_deployment(id, WatchKind::Modified, now, trace);
        true
    }

    /// PUT `status`; the controller also writes the revision annotation
    /// through it (the status strategy keeps metadata annotations), which
    /// does not bump the generation.
    pub fn update_deployment_status(
        &mut self,
        id: DeploymentId,
        status: DeploymentStatus,
        annotations: BTreeMap<String, String>,
        now: SimTime,
        trace: &mut Trace,
    ) -> bool {
        let d = &self.deployments[id.0 as usize];
        if d.removed || (d.status == status && d.annotations == annotations) {
            return false;
        }
        let rv = self.bump();
        let d = &mut self.deployments[id.0 as usize];
        d.status = status;
        d.annotations = annotations;
        d.resource_version = rv;
        self.record_deployment(id, WatchKind::Modified, now, trace);
        true
    }

    fn record_deployment(&self, id: DeploymentId, kind: WatchKind, now: SimTime, trace: &mut Trace) {
        let deployment = Arc::new(self.deployments[id.0 as usize].clone());
        trace.push(now, Record::Deployment { kind, deployment });
    }
}

/// The fields a Deployment update can change, compared as the API objects.
fn same_deployment_spec(a: &DeploymentSpec, b: &DeploymentSpec) -> bool {
    a.object.spec == b.object.spec
}
