//! Ownership inside the world: `kubectl delete` of a workload with its
//! cascade, and the garbage collector's calls applied
//! by the API server, each answer going straight back to it.

use super::{World, routes};
use crate::api::meta::Propagation;
use crate::api::ownership::OwnerPatch;
use crate::api::store::Object;
use crate::control::garbagecollector::{Answer, Call, Live};
use crate::engine::{Ctx, Routed};
use crate::ids::{ObjectId, Owner};
use crate::scenario::actions::OwnerKind;
use crate::spec::OwnerRef;
use crate::trace::Record;
use std::sync::Arc;

impl World {
    /// `kubectl delete KIND/NAME [--cascade=…]` of a workload: kubectl
    /// sends the policy (background unless asked otherwise).
    pub(super) fn delete_owner(&mut self, kind: OwnerKind, name: &str, cascade: Propagation) {
        let now = self.q.now();
        let flag = match cascade {
            Propagation::Background => String::new(),
            other => format!(" --cascade={}", other.as_str()),
        };
        let object = format!("{}/{name}", kind.as_str());
        let target = self.owner_named(kind, name);
        let what = match target {
            Some(_) => format!("kubectl delete {object}{flag}"),
            None => format!("kubectl delete {object}{flag}: NotFound"),
        };
        self.trace.push(now, Record::Scenario { object, what });
        if let Some(owner) = target {
            let _ = self.api.delete_owner(owner, cascade, None, now, &mut self.trace);
            if let Owner::StatefulSet(set) = owner
                && cascade != Propagation::Orphan
            {
                self.collect_set_claims(set);
            }
        }
    }

    /// The live workload of that name; a ReplicaSet's or Job's name ending
    /// in `*` is a prefix (the oldest live match).
    fn owner_named(&self, kind: OwnerKind, name: &str) -> Option<Owner> {
        let matches = |n: &str| match name.strip_suffix('*') {
            Some(prefix) => n.starts_with(prefix),
            None => n == name,
        };
        match kind {
            OwnerKind::Deployment => {
                let d = self.api.deployments().iter().find(|d| !d.meta.removed && matches(&d.spec.name))?;
                Some(Owner::Deployment(d.id))
            }
            OwnerKind::ReplicaSet => {
                let r = self.api.replica_sets().iter().find(|r| !r.meta.removed && matches(&r.spec.name))?;
                Some(Owner::ReplicaSet(r.id))
            }
            OwnerKind::StatefulSet => {
                let s = self.api.stateful_sets().iter().find(|s| !s.meta.removed && matches(&s.spec.name))?;
                Some(Owner::StatefulSet(s.id))
            }
            OwnerKind::DaemonSet => {
                let d = self.api.daemon_sets().iter().find(|d| !d.meta.removed && matches(&d.spec.name))?;
                Some(Owner::DaemonSet(d.id))
            }
            OwnerKind::Job => {
                let j = self.api.jobs().iter().find(|j| !j.meta.removed && matches(&j.spec.name))?;
                Some(Owner::Job(j.id))
            }
            OwnerKind::CronJob => {
                let c = self.api.cronjobs().iter().find(|c| !c.meta.removed && matches(&c.spec.name))?;
                Some(Owner::CronJob(c.id))
            }
        }
    }

    /// A call of the garbage collector reaches the API server.
    pub(super) fn collector_call(&mut self, call: Call) {
        let now = self.q.now();
        let answer = match &call {
            Call::Get { item } => Answer::Got(self.live(*item)),
            Call::GetOwner { owner, namespace, .. } => Answer::Got(self.live_owner(owner, namespace)),
            Call::Delete { item, uid, policy } => {
                match *item {
                    ObjectId::Pod(pod) => {
                        self.api.delete_collected(pod, uid, now, &mut self.trace);
                        self.sync_watch(false);
                    }
                    ObjectId::ControllerRevision(id) => {
                        self.api.delete_controller_revision(id, *policy, Some(uid), now, &mut self.trace);
                    }
                    owner => {
                        if let Some(owner) = Owner::of(owner) {
                            let _ = self.api.delete_owner(owner, *policy, Some(uid), now, &mut self.trace);
                        }
                    }
                }
                Answer::Done
            }
            Call::RemoveFinalizer { owner, finalizer, .. } => {
                let _ = self.api.remove_finalizer(*owner, finalizer, now, &mut self.trace);
                Answer::Done
            }
            Call::Orphan { dependent, uid, .. } => {
                let patch = OwnerPatch::Release(uid.clone());
                match *dependent {
                    ObjectId::Pod(pod) => {
                        self.api.patch_pod_owner(pod, &patch, now, &mut self.trace);
                    }
                    ObjectId::ReplicaSet(rs) => {
                        self.api.patch_replica_set_owner(rs, &patch, now, &mut self.trace);
                    }
                    ObjectId::Job(job) => {
                        self.api.patch_job_owner(job, &patch, now, &mut self.trace);
                    }
                    ObjectId::ControllerRevision(id) => {
                        self.api.orphan_controller_revision(id, uid, now, &mut self.trace);
                    }
                    // Owned by no one in podsim's model.
                    ObjectId::Deployment(_)
                    | ObjectId::CronJob(_)
                    | ObjectId::StatefulSet(_)
                    | ObjectId::DaemonSet(_) => {}
                }
                Answer::Done
            }
        };
        if let Some(c) = self.collector.as_mut() {
            let mut out = Routed { q: &mut self.q, route: routes::collector };
            let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
            c.answered(&call, answer, &mut ctx);
        }
    }

    /// An uncached GET: the object as stored, `None` when it is gone.
    fn live(&self, object: ObjectId) -> Option<Live> {
        match object {
            ObjectId::Pod(id) => live(self.api.pod(id)),
            ObjectId::ReplicaSet(id) => live(self.api.replica_set(id)),
            ObjectId::Deployment(id) => live(self.api.deployment(id)),
            ObjectId::Job(id) => live(self.api.job(id)),
            ObjectId::CronJob(id) => live(self.api.cronjob(id)),
            ObjectId::StatefulSet(id) => live(self.api.stateful_set(id)),
            ObjectId::DaemonSet(id) => live(self.api.daemon_set(id)),
            ObjectId::ControllerRevision(id) => live(self.api.controller_revision(id)),
        }
    }

    /// `isDangling`'s GET of an owner by its reference's kind and name, in
    /// the dependent's namespace.
    fn live_owner(&self, owner: &OwnerRef, namespace: &str) -> Option<Live> {
        match owner.kind {
            "ReplicaSet" => self.api.replica_sets().iter().find(|r| is(*r, owner, namespace)).and_then(live),
            "Deployment" => self.api.deployments().iter().find(|d| is(*d, owner, namespace)).and_then(live),
            "Job" => self.api.jobs().iter().find(|j| is(*j, owner, namespace)).and_then(live),
            "CronJob" => self.api.cronjobs().iter().find(|c| is(*c, owner, namespace)).and_then(live),
            "StatefulSet" => self.api.stateful_sets().iter().find(|s| is(*s, owner, namespace)).and_then(live),
            "DaemonSet" => self.api.daemon_sets().iter().find(|d| is(*d, owner, namespace)).and_then(live),
            _ => None,
        }
    }
}

/// A live object of the reference's name in `namespace`.
fn is<T: Object>(object: &T, owner: &OwnerRef, namespace: &str) -> bool {
    !object.meta().removed && object.name() == &*owner.name && object.namespace() == namespace
}

fn live<T: Object>(object: &T) -> Option<Live> {
    let meta = object.meta();
    (!meta.removed).then(|| Live {
        uid: meta.uid.clone(),
        namespace: Arc::from(object.namespace()),
        deleting: meta.deletion.is_some(),
        finalizers: meta.finalizers.clone(),
        owner: object.owner().cloned(),
    })
}
