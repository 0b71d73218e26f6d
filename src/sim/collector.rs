//! Ownership inside the world: `kubectl delete` of a Deployment or
//! ReplicaSet with its cascade, and the garbage collector's calls applied
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
    /// `kubectl delete deployment|replicaset NAME [--cascade=…]`: kubectl
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
        }
    }

    /// The live Deployment or ReplicaSet of that name; a ReplicaSet's name
    /// ending in `*` is a prefix (the oldest live match).
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
                    ObjectId::ReplicaSet(id) => {
                        let owner = Owner::ReplicaSet(id);
                        let _ = self.api.delete_owner(owner, *policy, Some(uid), now, &mut self.trace);
                    }
                    ObjectId::Deployment(id) => {
                        let owner = Owner::Deployment(id);
                        let _ = self.api.delete_owner(owner, *policy, Some(uid), now, &mut self.trace);
                    }
                    ObjectId::Job(id) => {
                        let _ = self.api.delete_owner(Owner::Job(id), *policy, Some(uid), now, &mut self.trace);
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
                    // A Deployment has no owner to be orphaned from; a Job's (a
                    // CronJob) is not modelled.
                    ObjectId::Deployment(_) | ObjectId::Job(_) => {}
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
        }
    }

    /// `isDangling`'s GET of an owner by its reference's kind and name, in
    /// the dependent's namespace.
    fn live_owner(&self, owner: &OwnerRef, namespace: &str) -> Option<Live> {
        match owner.kind {
            "ReplicaSet" => self.api.replica_sets().iter().find(|r| is(*r, owner, namespace)).and_then(live),
            "Deployment" => self.api.deployments().iter().find(|d| is(*d, owner, namespace)).and_then(live),
            "Job" => self.api.jobs().iter().find(|j| is(*j, owner, namespace)).and_then(live),
            // A CronJob is read, not collected: its Jobs' owner exists while it does.
            "CronJob" => self.api.cronjobs().iter().find(|c| is(*c, owner, namespace)).and_then(live),
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
