//! The API server's ReplicaSets and Deployments: create, the writers' updates
//! and the status subresource, each stored change a watch record.

use super::deployment::{ApiDeployment, DeploymentStatus};
use super::meta::Propagation;
use super::replicaset::{ApiReplicaSet, RsSpec, RsStatus};
use super::store::{Change, Deleted, Precondition, Refused};
use super::{ApiServer, uid};
use crate::ids::{DeploymentId, Owner, RsId};
use crate::spec::DeploymentSpec;
use crate::time::SimTime;
use crate::trace::Trace;
use std::collections::BTreeMap;
use std::sync::Arc;

impl ApiServer {
    pub fn replica_sets(&self) -> &[ApiReplicaSet] {
        self.replica_sets.all()
    }

    pub fn replica_set(&self, id: RsId) -> &ApiReplicaSet {
        self.replica_sets.get(id)
    }

    pub fn deployments(&self) -> &[ApiDeployment] {
        self.deployments.all()
    }

    pub fn deployment(&self, id: DeploymentId) -> &ApiDeployment {
        self.deployments.get(id)
    }

    /// POST a ReplicaSet; `None` when one of that name exists (AlreadyExists).
    pub fn create_replica_set(&mut self, spec: Arc<RsSpec>, now: SimTime, trace: &mut Trace) -> Option<RsId> {
        if self.replica_sets.name_taken(&spec.namespace, &spec.name) {
            return None;
        }
        let uid = Arc::from(uid(&mut self.workload_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let status = RsStatus::default();
        Some(self.replica_sets.create(uid, c, |id, meta| ApiReplicaSet { id, meta, spec, status }))
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
    ) -> Result<Change, Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.replica_sets.write(id, Precondition::ResourceVersion(read), c, |r| {
            if r.spec == spec {
                return Change::None;
            }
            let o = &r.spec;
            let spec_changed = o.replicas != spec.replicas
                || o.selector != spec.selector
                || o.template != spec.template
                || o.min_ready_seconds != spec.min_ready_seconds;
            r.spec = spec;
            if spec_changed { Change::NewGeneration } else { Change::Stored }
        })
    }

    /// PUT `status` (`updateReplicaSetStatus`): nothing is stored when it is unchanged.
    pub fn update_replica_set_status(&mut self, id: RsId, status: RsStatus, now: SimTime, trace: &mut Trace) -> bool {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let written = self.replica_sets.write_status(id, Precondition::None, c, |stored| {
            let changed = *stored != status;
            if changed {
                *stored = status;
            }
            changed
        });
        written == Ok(Change::Stored)
    }

    /// The Deployment controller's DELETE of an old ReplicaSet (no options:
    /// apps/v1's default policy, background).
    pub fn delete_replica_set(&mut self, id: RsId, now: SimTime, trace: &mut Trace) {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.replica_sets.delete(id, Propagation::Background, Precondition::None, c);
    }

    /// DELETE an owner (a workload) with a propagation policy
    /// (`kubectl delete --cascade`, or the garbage collector's), with the
    /// UID as precondition when given.
    pub fn delete_owner(
        &mut self,
        target: Owner,
        policy: Propagation,
        uid: Option<&str>,
        now: SimTime,
        trace: &mut Trace,
    ) -> Result<Deleted, Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let pre = uid.map_or(Precondition::None, Precondition::Uid);
        match target {
            Owner::ReplicaSet(id) => self.replica_sets.delete(id, policy, pre, c),
            Owner::Deployment(id) => self.deployments.delete(id, policy, pre, c),
            Owner::Job(id) => self.jobs.delete(id, policy, pre, c),
            Owner::CronJob(id) => self.cronjobs.delete(id, policy, pre, c),
            Owner::StatefulSet(id) => self.stateful_sets.delete(id, policy, pre, c),
            Owner::DaemonSet(id) => self.daemon_sets.delete(id, policy, pre, c),
        }
    }

    /// The garbage collector's PUT without one of its finalizers.
    pub fn remove_finalizer(
        &mut self,
        target: Owner,
        name: &str,
        now: SimTime,
        trace: &mut Trace,
    ) -> Result<Change, Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        match target {
            Owner::ReplicaSet(id) => self.replica_sets.remove_finalizer(id, name, c),
            Owner::Deployment(id) => self.deployments.remove_finalizer(id, name, c),
            Owner::Job(id) => self.jobs.remove_finalizer(id, name, c),
            Owner::CronJob(id) => self.cronjobs.remove_finalizer(id, name, c),
            Owner::StatefulSet(id) => self.stateful_sets.remove_finalizer(id, name, c),
            Owner::DaemonSet(id) => self.daemon_sets.remove_finalizer(id, name, c),
        }
    }

    /// POST a Deployment.
    pub fn create_deployment(&mut self, spec: Arc<DeploymentSpec>, now: SimTime, trace: &mut Trace) -> DeploymentId {
        let uid = Arc::from(uid(&mut self.workload_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let annotations = spec.annotations.clone();
        let status = DeploymentStatus::default();
        self.deployments.create(uid, c, |id, meta| ApiDeployment { id, meta, spec, annotations, status })
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
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let written = self.deployments.write(id, Precondition::None, c, |d| {
            let same_spec = Arc::ptr_eq(&d.spec, &spec) || same_deployment_spec(&d.spec, &spec);
            if same_spec && d.annotations == annotations {
                return Change::None;
            }
            d.spec = spec;
            d.annotations = annotations;
            Change::NewGeneration
        });
        written == Ok(Change::NewGeneration)
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
    ) -> Result<Change, Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.deployments.write_status(id, Precondition::ResourceVersion(read), c, |(stored, stored_annotations)| {
            let changed = *stored != status || *stored_annotations != annotations;
            if changed {
                (*stored, *stored_annotations) = (status, annotations);
            }
            changed
        })
    }
}

/// The fields a Deployment update can change, compared as the API objects.
fn same_deployment_spec(a: &DeploymentSpec, b: &DeploymentSpec) -> bool {
    a.object.spec == b.object.spec
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::meta::{FOREGROUND, ORPHAN};
    use crate::api::replicaset::OwnerRef;
    use crate::error::SourceFile;
    use crate::manifest::workloads::read_deployment;
    use crate::source::parse_documents;
    use crate::trace::record::{Record, WatchKind};
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
        let rv = |api: &ApiServer| api.replica_set(id).meta.resource_version;
        assert_eq!(api.update_replica_set(id, rs_spec(&d, 1), rv(&api), t, &mut trace), Ok(Change::None), "identical");
        let stale = api.update_replica_set(id, rs_spec(&d, 2), rv(&api) - 1, t, &mut trace);
        assert_eq!(stale, Err(Refused::Conflict));
        let mut annotated = rs_spec(&d, 1);
        Arc::make_mut(&mut annotated).annotations.insert("deployment.kubernetes.io/revision".into(), "3".into());
        assert_eq!(api.update_replica_set(id, annotated, rv(&api), t, &mut trace), Ok(Change::Stored));
        assert_eq!(api.replica_set(id).meta.generation, 1, "annotations are metadata, not spec");
        assert_eq!(api.update_replica_set(id, rs_spec(&d, 3), rv(&api), t, &mut trace), Ok(Change::NewGeneration));
        assert_eq!(api.replica_set(id).meta.generation, 2);
        let mut status = RsStatus { observed_generation: 2, ..Default::default() };
        status.counts.replicas = 3;
        assert!(api.update_replica_set_status(id, status.clone(), t, &mut trace));
        assert!(!api.update_replica_set_status(id, status, t, &mut trace));
        assert_eq!(api.replica_set(id).meta.generation, 2, "status writes leave the generation");
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

    /// `Store.Delete` of a kind without graceful deletion: the policy's
    /// finalizer keeps the object, deleting (deletionTimestamp to the
    /// second, grace 0, the next generation); a later DELETE only swaps the
    /// garbage collector's finalizers; the PUT that removes the last one
    /// deletes it, and the DELETED record still shows it. Without a
    /// finalizer the object goes at once.
    #[test]
    fn a_delete_with_a_policy_keeps_the_object_until_its_finalizer_goes() {
        let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
        let d = deployment();
        let id = api.create_replica_set(rs_spec(&d, 1), SimTime::ZERO, &mut trace).unwrap();
        let rs = Owner::ReplicaSet(id);
        let at = SimTime::from_millis(20_400);
        assert_eq!(api.delete_owner(rs, Propagation::Foreground, None, at, &mut trace), Ok(Deleted::Finalizing));
        let meta = &api.replica_set(id).meta;
        let deletion = meta.deletion.unwrap();
        assert_eq!((deletion.timestamp, deletion.grace_seconds), (SimTime::from_millis(20_000), 0));
        assert_eq!((meta.generation, meta.finalizers.clone()), (2, vec![Arc::from(FOREGROUND)]));
        assert_eq!(api.delete_owner(rs, Propagation::Foreground, None, at, &mut trace), Ok(Deleted::Unchanged));
        assert_eq!(api.delete_owner(rs, Propagation::Orphan, Some("other"), at, &mut trace), Err(Refused::Conflict));
        assert_eq!(api.delete_owner(rs, Propagation::Orphan, None, at, &mut trace), Ok(Deleted::Finalizing));
        assert_eq!(api.replica_set(id).meta.generation, 2, "the first delete moves the generation, not a later one");
        assert_eq!(api.remove_finalizer(rs, FOREGROUND, at, &mut trace), Ok(Change::None));
        assert_eq!(api.remove_finalizer(rs, ORPHAN, at, &mut trace), Ok(Change::Stored));
        assert!(api.replica_set(id).meta.removed);
        let Some(Record::ReplicaSet { kind: WatchKind::Deleted, rs: last }) = trace.entries.last().map(|e| &e.record)
        else {
            panic!("a DELETED record")
        };
        assert_eq!(last.meta.finalizers, vec![Arc::from(ORPHAN)]);
        // ADDED, MODIFIED (foreground), MODIFIED (orphan), DELETED.
        assert_eq!(trace.entries.len(), 4);
        let dep = api.create_deployment(d, SimTime::ZERO, &mut trace);
        let gone = api.delete_owner(Owner::Deployment(dep), Propagation::Background, None, at, &mut trace);
        assert_eq!((gone, api.deployment(dep).meta.removed), (Ok(Deleted::Removed), true));
    }
}
