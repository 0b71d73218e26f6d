//! Workloads inside the world: the ReplicaSet and Deployment controllers'
//! writes applied by the API server.

use super::{World, routes};
use crate::api::meta::Meta;
use crate::api::replicaset::RsSpec;
use crate::control::controller_ref::ClaimAnswer;
use crate::control::deployment::{self as deploy, Answer, revisions};
use crate::control::replicaset::Write;
use crate::engine::{Ctx, Routed};
use crate::ids::RsId;
use crate::spec::{DeploymentSpec, ReplicaSetSpec};
use crate::trace::Record;
use crate::trace::record::{ApiEvent, EventSource, Involved, event_ns};
use std::sync::Arc;

impl World {
    /// A ReplicaSet of the manifests is created.
    pub(super) fn create_replica_set(&mut self, spec: &ReplicaSetSpec) {
        let now = self.q.now();
        let rs = RsSpec {
            name: Arc::from(spec.name.as_str()),
            namespace: Arc::from(spec.namespace.as_str()),
            labels: spec.labels.clone(),
            annotations: Default::default(),
            owner: None,
            replicas: spec.replicas,
            selector: spec.selector.clone(),
            template: Arc::new(spec.template.clone()),
            min_ready_seconds: spec.min_ready_seconds,
        };
        let _ = self.api.create_replica_set(Arc::new(rs), now, &mut self.trace);
    }

    /// A write of the ReplicaSet controller reaches the API server; the
    /// answer goes straight back to it.
    pub(super) fn rs_write(&mut self, write: Write) {
        let now = self.q.now();
        let rs = match write {
            Write::CreatePod { rs, pod, prefix } => {
                let alias = self.alias(rs);
                let id = self.api.create_generated(pod, &prefix, alias, now, &mut self.trace);
                let message = format!("Created pod: {}", self.api.pod(id).spec.name);
                self.rs_event(rs, "SuccessfulCreate", message);
                self.sync_watch(false);
                rs
            }
            Write::DeletePod { rs, pod } => {
                self.api.delete(pod, None, now, &mut self.trace);
                self.sync_watch(false);
                let message = format!("Deleted pod: {}", self.api.pod(pod).spec.name);
                self.rs_event(rs, "SuccessfulDelete", message);
                rs
            }
            Write::Status { rs, status } => {
                self.api.update_replica_set_status(rs, status, now, &mut self.trace);
                rs
            }
            Write::Recheck { rs, uid } => {
                let r = self.api.replica_set(rs);
                let answer = if gone_or_deleting(&r.meta, &uid) { ClaimAnswer::Gone } else { ClaimAnswer::Found };
                return self.rs_claim_answered(rs, answer);
            }
            Write::PatchPod { rs, pod, patch } => {
                let answer = self.api.patch_pod_owner(pod, &patch, now, &mut self.trace);
                return self.rs_claim_answered(rs, ClaimAnswer::Patched(answer));
            }
        };
        if let Some(c) = self.replicasets.as_mut() {
            let mut out = Routed { q: &mut self.q, route: routes::replicasets };
            let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
            c.written(rs, &mut ctx);
        }
    }

    /// The next pod of ReplicaSet `rs` by the name milestones give it
    /// (`milestones::names`): `pod/<deployment>@rev<k>#<n>` for a
    /// Deployment's, `pod/<replicaset>#<n>` for another's.
    fn alias(&mut self, rs: RsId) -> Arc<str> {
        let r = &self.api.replica_set(rs).spec;
        let group = match r.owner.as_ref().filter(|o| o.kind == "Deployment") {
            Some(d) => format!("{}@rev{}", d.name, revisions::revision(&r.annotations).unwrap_or(0)),
            None => r.name.to_string(),
        };
        let n = self.aliases.entry(group.clone()).or_default();
        *n += 1;
        Arc::from(format!("pod/{group}#{n}"))
    }

    fn rs_claim_answered(&mut self, rs: RsId, answer: ClaimAnswer) {
        if let Some(c) = self.replicasets.as_mut() {
            let mut out = Routed { q: &mut self.q, route: routes::replicasets };
            let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
            c.claim_answered(rs, answer, &mut ctx);
        }
    }

    /// An event of the replicaset-controller about `rs` (`RealPodControl`).
    fn rs_event(&mut self, rs: RsId, reason: &'static str, message: String) {
        let now = self.q.now();
        // A sweep's trace keeps no Events.
        if !self.trace.keeps_all() {
            return;
        }
        let r = self.api.replica_set(rs);
        let about = Involved { name: &r.spec.name, namespace: &r.spec.namespace, uid: &r.meta.uid };
        let source = EventSource::Controller { component: "replicaset-controller", kind: "ReplicaSet" };
        let ns = event_ns(self.epoch_ns, now) + rs.0 as u128;
        let event = ApiEvent::first_at(about, source, false, reason, message, now, ns);
        self.trace.push(now, Record::Event(Arc::new(event)));
    }

    /// `kubectl apply` of a Deployment: created, or its spec replaced.
    pub(super) fn apply_deployment(&mut self, spec: Arc<DeploymentSpec>) {
        let now = self.q.now();
        let existing = self
            .api
            .deployments()
            .iter()
            .find(|d| !d.meta.removed && d.spec.name == spec.name && d.spec.namespace == spec.namespace);
        match existing.map(|d| (d.id, d.annotations.clone())) {
            Some((id, mut annotations)) => {
                annotations.extend(spec.annotations.clone());
                self.api.update_deployment(id, spec, annotations, now, &mut self.trace);
            }
            None => {
                self.api.create_deployment(spec, now, &mut self.trace);
            }
        }
    }

    /// A call of the Deployment controller reaches the API server; the
    /// answer goes straight back to it.
    pub(super) fn deployment_write(&mut self, write: deploy::Write) {
        let now = self.q.now();
        let refused = |ok: bool| if ok { Answer::Done } else { Answer::Refused };
        let (d, answer) = match write {
            deploy::Write::CreateRs { d, spec } => {
                (d, refused(self.api.create_replica_set(spec, now, &mut self.trace).is_some()))
            }
            deploy::Write::UpdateRs { d, rs, spec, read } => {
                match self.api.update_replica_set(rs, spec, read, now, &mut self.trace) {
                    Ok(_) => {
                        (d, Answer::Stored { rs, resource_version: self.api.replica_set(rs).meta.resource_version })
                    }
                    Err(_) => (d, Answer::Refused),
                }
            }
            deploy::Write::DeleteRs { d, rs } => {
                self.api.delete_replica_set(rs, now, &mut self.trace);
                (d, Answer::Done)
            }
            deploy::Write::Status { d, status, annotations, read } => {
                let stored = self.api.update_deployment_status(d, status, annotations, read, now, &mut self.trace);
                (d, refused(stored.is_ok()))
            }
            deploy::Write::Event { d, message } => {
                self.deployment_event(d, "ScalingReplicaSet", message);
                (d, Answer::Done)
            }
            deploy::Write::Recheck { d, uid } => {
                let dep = self.api.deployment(d);
                let answer = match gone_or_deleting(&dep.meta, &uid) {
                    true => ClaimAnswer::Gone,
                    false => ClaimAnswer::Found,
                };
                return self.deployment_claim_answered(d, answer);
            }
            deploy::Write::PatchRs { d, rs, patch } => {
                let answer = self.api.patch_replica_set_owner(rs, &patch, now, &mut self.trace);
                return self.deployment_claim_answered(d, ClaimAnswer::Patched(answer));
            }
        };
        if let Some(c) = self.deployments.as_mut() {
            let mut out = Routed { q: &mut self.q, route: routes::deployments };
            let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
            c.written(d, answer, &mut ctx);
        }
    }

    fn deployment_claim_answered(&mut self, d: crate::ids::DeploymentId, answer: ClaimAnswer) {
        if let Some(c) = self.deployments.as_mut() {
            let mut out = Routed { q: &mut self.q, route: routes::deployments };
            let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
            c.claim_answered(d, answer, &mut ctx);
        }
    }

    /// An event of the deployment-controller about `d`.
    fn deployment_event(&mut self, d: crate::ids::DeploymentId, reason: &'static str, message: String) {
        let now = self.q.now();
        // A sweep's trace keeps no Events.
        if !self.trace.keeps_all() {
            return;
        }
        let dep = self.api.deployment(d);
        let about = Involved { name: &dep.spec.name, namespace: &dep.spec.namespace, uid: &dep.meta.uid };
        let source = EventSource::Controller { component: "deployment-controller", kind: "Deployment" };
        let ns = event_ns(self.epoch_ns, now) + d.0 as u128;
        let event = ApiEvent::first_at(about, source, false, reason, message, now, ns);
        self.trace.push(now, Record::Event(Arc::new(event)));
    }

    /// `kubectl scale deployment/NAME --replicas=N`: a new spec of the same template.
    pub(super) fn scale_deployment(&mut self, name: &str, replicas: u32) {
        let now = self.q.now();
        let what = format!("kubectl scale deployment/{name} --replicas={replicas}");
        self.trace.push(now, Record::Scenario { object: format!("deployment/{name}"), what });
        let Some(d) = self.api.deployments().iter().find(|d| !d.meta.removed && d.spec.name == name) else { return };
        let (id, annotations, spec) = (d.id, d.annotations.clone(), Arc::new(d.spec.with_replicas(replicas)));
        self.api.update_deployment(id, spec, annotations, now, &mut self.trace);
    }

    /// `kubectl rollout undo` (polymorphichelpers `DeploymentRollbacker.Rollback`):
    /// the template of revision `to` (0: the one before the current), from
    /// its ReplicaSet, with the `pod-template-hash` label dropped.
    pub(super) fn undo_deployment(&mut self, name: &str, to: u64) {
        let now = self.q.now();
        let flag = if to > 0 { format!(" --to-revision={to}") } else { String::new() };
        let object = format!("deployment/{name}");
        let Some(d) = self.api.deployments().iter().find(|d| !d.meta.removed && d.spec.name == name) else { return };
        let (id, uid) = (d.id, d.meta.uid.clone());
        let revision = |r: &crate::api::replicaset::ApiReplicaSet| {
            r.spec.annotations.get(revisions::REVISION).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
        };
        let mut owned: Vec<&crate::api::replicaset::ApiReplicaSet> = self
            .api
            .replica_sets()
            .iter()
            .filter(|r| !r.meta.removed && r.spec.owner.as_ref().is_some_and(|o| o.uid == uid))
            .collect();
        owned.sort_by_key(|r| revision(r));
        // `deploymentRevision`: the requested one, or the second highest.
        let target = match to {
            0 if owned.len() < 2 => Err(format!("no rollout history found for deployment \"{name}\"")),
            0 => Ok(owned[owned.len() - 2]),
            n => owned
                .iter()
                .find(|r| revision(r) == n)
                .copied()
                .ok_or(format!("unable to find specified revision {n} in history")),
        };
        let paused = self.api.deployment(id).spec.paused;
        let target = match paused {
            true => Err(format!(
                "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume deployment/{name}' and try again"
            )),
            false => target,
        };
        let out = match target {
            Err(e) => format!("error: {e}"),
            Ok(rs) => {
                let mut template = (*rs.spec.template).clone();
                strip_hash(&mut template);
                let current = &self.api.deployment(id).spec;
                if template == current.template {
                    format!("skipped rollback (current template already matches revision {})", revision(rs))
                } else {
                    let spec = Arc::new(current.with_template(template));
                    // The patch replaces the annotations with the ReplicaSet's,
                    // keeping the Deployment's own of the skip list.
                    let own = self.api.deployment(id).annotations.iter();
                    let mut annotations: revisions::Annotations = own
                        .filter(|(k, _)| revisions::skip_copy_annotation(k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    for (k, v) in &rs.spec.annotations {
                        if !revisions::skip_copy_annotation(k) {
                            annotations.insert(k.clone(), v.clone());
                        }
                    }
                    self.api.update_deployment(id, spec, annotations, now, &mut self.trace);
                    format!("deployment.apps/{name} rolled back")
                }
            }
        };
        let what = format!("kubectl rollout undo deployment/{name}{flag}: {out}");
        self.trace.push(now, Record::Scenario { object, what });
    }
}

/// The template without the label the Deployment controller added.
fn strip_hash(t: &mut crate::spec::PodTemplate) {
    use crate::control::deployment::hash::HASH_LABEL;
    t.labels.remove(HASH_LABEL);
    t.pod.labels.remove(HASH_LABEL);
    if let Some(labels) = t.object.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
        labels.remove(HASH_LABEL);
    }
}

/// `RecheckDeletionTimestamp`'s fresh GET: the owner is gone, was recreated
/// (another UID) or is being deleted — it may not adopt.
fn gone_or_deleting(meta: &Meta, uid: &str) -> bool {
    meta.removed || &*meta.uid != uid || meta.deletion.is_some()
}
