//! The API server's ReplicaSets and Deployments: create, the writers' updates
//! and the status subresource, each stored change a watch record.

use super::deployment::{ApiDeployment, DeploymentStatus};
use super::replicaset::{ApiReplicaSet, RsSpec, RsStatus};
use super::{ApiServer, Conflict, uid};
use crate::ids::{DeploymentId, RsId};
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
    pub fn create_replica_set(&mut self, spec: Arc<RsSpec>, now: SimTime, trace: &mut Trace) -> Option<RsId> {
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

    /// PUT a ReplicaSet's spec and metadata: the generation moves only when
    /// the spec changes (`rsStrategy.PrepareForUpdate`; annotations do not
    /// count, unlike a Deployment's); an identical write stores nothing.
    pub fn update_replica_set(
        &mut self,
        id: RsId,
        spec: Arc<RsSpec>,
        read: u64,
        now: SimTime,
        trace: &mut Trace,
    ) -> Result<bool, Conflict> {
        let r = &self.replica_sets[id.0 as usize];
        if r.removed || r.resource_version != read {
            return Err(Conflict);
        }
        if r.spec == spec {
            return Ok(false);
        }
        let o = &r.spec;
        let spec_changed = o.replicas != spec.replicas
            || o.selector != spec.selector
            || o.template != spec.template
            || o.min_ready_seconds != spec.min_ready_seconds;
        let rv = self.bump();
        let r = &mut self.replica_sets[id.0 as usize];
        r.generation += i64::from(spec_changed);
        r.spec = spec;
        r.resource_version = rv;
        self.record_rs(id, WatchKind::Modified, now, trace);
        Ok(true)
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

    pub(super) fn record_rs(&self, id: RsId, kind: WatchKind, now: SimTime, trace: &mut Trace) {
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
    /// does not bump the generation. A write based on an older version than
    /// the stored one is refused (optimistic concurrency).
    pub fn update_deployment_status(
        &mut self,
        id: DeploymentId,
        status: DeploymentStatus,
        annotations: BTreeMap<String, String>,
        read: u64,
        now: SimTime,
        trace: &mut Trace,
    ) -> Result<bool, Conflict> {
        let d = &self.deployments[id.0 as usize];
        if d.removed || d.resource_version != read {
            return Err(Conflict);
        }
        if d.status == status && d.annotations == annotations {
            return Ok(false);
        }
        let rv = self.bump();
        let d = &mut self.deployments[id.0 as usize];
        d.status = status;
        d.annotations = annotations;
        d.resource_version = rv;
        self.record_deployment(id, WatchKind::Modified, now, trace);
        Ok(true)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::replicaset::OwnerRef;
    use crate::error::SourceFile;
    use crate::manifest::workloads::read_deployment;
    use crate::source::parse_documents;
    use crate::trace::render::Clock;
    use crate::trace::render_workloads;

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx:1.27}]\n";

    fn deployment() -> Arc<DeploymentSpec> {
        let file = Arc::new(SourceFile { name: "d.yaml".into(), text: DEPLOYMENT.into() });
        let doc = parse_documents(&file).unwrap().remove(0);
        Arc::new(read_deployment(&doc, doc.to_json(), "", &mut Vec::new()).unwrap())
    }

    fn rs_spec(d: &DeploymentSpec, replicas: u32) -> Arc<RsSpec> {
        Arc::new(RsSpec {
            name: "web-7c5ddbdf54".into(),
            namespace: "default".into(),
            labels: d.template.labels.clone(),
            annotations: BTreeMap::from([("deployment.kubernetes.io/revision".into(), "1".into())]),
            owner: Some(OwnerRef { kind: "Deployment", name: "web".into(), uid: "u".into() }),
            replicas,
            selector: d.selector.clone(),
            template: Arc::new(d.template.clone()),
            min_ready_seconds: 0,
        })
    }

    #[test]
    fn replica_set_writes_bump_generation_only_for_spec_changes() {
        let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
        let d = deployment();
        let t = SimTime::ZERO;
        let id = api.create_replica_set(rs_spec(&d, 1), t, &mut trace).unwrap();
        assert!(api.create_replica_set(rs_spec(&d, 1), t, &mut trace).is_none(), "AlreadyExists");
        let rv = |api: &ApiServer| api.replica_set(id).resource_version;
        assert_eq!(api.update_replica_set(id, rs_spec(&d, 1), rv(&api), t, &mut trace), Ok(false), "identical");
        assert_eq!(api.update_replica_set(id, rs_spec(&d, 2), rv(&api) - 1, t, &mut trace), Err(Conflict));
        let mut annotated = rs_spec(&d, 1);
        Arc::make_mut(&mut annotated).annotations.insert("deployment.kubernetes.io/revision".into(), "3".into());
        assert_eq!(api.update_replica_set(id, annotated, rv(&api), t, &mut trace), Ok(true));
        assert_eq!(api.replica_set(id).generation, 1, "annotations are metadata, not spec");
        assert_eq!(api.update_replica_set(id, rs_spec(&d, 3), rv(&api), t, &mut trace), Ok(true));
        assert_eq!(api.replica_set(id).generation, 2);
        let mut status = RsStatus { observed_generation: 2, ..Default::default() };
        status.counts.replicas = 3;
        assert!(api.update_replica_set_status(id, status.clone(), t, &mut trace));
        assert!(!api.update_replica_set_status(id, status, t, &mut trace));
        assert_eq!(api.replica_set(id).generation, 2, "status writes leave the generation");
        // ADDED, MODIFIED (annotations), MODIFIED (spec), MODIFIED (status).
        assert_eq!(trace.entries.len(), 4);
    }

    #[test]
    fn objects_render_as_the_api_server_returns_them() {
        let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
        let d = deployment();
        let id = api.create_replica_set(rs_spec(&d, 3), SimTime::ZERO, &mut trace).unwrap();
        let clock = Clock { epoch: crate::run::DEFAULT_EPOCH.parse().unwrap() };
        let rs = serde_json::to_value(render_workloads::replica_set(api.replica_set(id), &clock)).unwrap();
        assert_eq!(rs["spec"]["replicas"], 3);
        assert_eq!(rs["status"], serde_json::json!({"replicas": 0}), "zero counts are omitted but replicas");
        assert_eq!(rs["metadata"]["ownerReferences"][0]["controller"], true);
        let dep = api.create_deployment(d.clone(), SimTime::ZERO, &mut trace);
        let object = serde_json::to_value(render_workloads::deployment(api.deployment(dep), &clock)).unwrap();
        assert_eq!(object["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
        assert_eq!(object["spec"]["progressDeadlineSeconds"], 600);
        assert_eq!(object["metadata"]["generation"], 1);
        let again = Arc::new((*d).clone());
        assert!(!api.update_deployment(dep, again, BTreeMap::new(), SimTime::ZERO, &mut trace));
    }
}
