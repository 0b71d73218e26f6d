//! The controllers' ownerReferences PATCHes (controller_ref_manager.go
//! `ownerRefControllerPatch`, `GenerateDeleteOwnerRefStrategicMergeBytes`):
//! a strategic merge of `metadata.ownerReferences` keyed by UID, with the
//! object's UID as precondition. A change is a MODIFIED watch event; the
//! generation does not move (metadata only).

use super::ApiServer;
use super::store::{Change, Precondition};
use crate::ids::{JobId, PodId, RsId};
use crate::spec::OwnerRef;
use crate::time::SimTime;
use crate::trace::Trace;
use std::sync::Arc;

/// The PATCH a controller sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnerPatch {
    /// `AdoptPod` / `AdoptReplicaSet`: add a controller reference
    /// (`controller: true`, `blockOwnerDeletion: true`).
    Adopt(OwnerRef),
    /// `ReleasePod` / `ReleaseReplicaSet`: delete the reference with this owner UID.
    Release(Arc<str>),
}

/// The API server's answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Patched {
    /// Stored: a new resourceVersion and a MODIFIED event.
    Changed,
    /// The merge changed nothing (the reference was already there, or a
    /// release names an owner the object does not have): nothing stored.
    Unchanged,
    /// 404: the object is gone.
    NotFound,
    /// 422: the object has another controller ("Only one reference can have
    /// Controller set to true", `ValidateOwnerReferences`), or a release
    /// finds no reference at all.
    Invalid,
}

/// The owner the object has after the patch, or the answer that stores nothing.
fn merge(current: Option<&OwnerRef>, patch: &OwnerPatch) -> Result<Option<OwnerRef>, Patched> {
    match (patch, current) {
        (OwnerPatch::Adopt(o), Some(c)) if c.uid == o.uid => Err(Patched::Unchanged),
        (OwnerPatch::Adopt(_), Some(_)) => Err(Patched::Invalid),
        (OwnerPatch::Adopt(o), None) => Ok(Some(o.clone())),
        (OwnerPatch::Release(uid), Some(c)) if c.uid == *uid => Ok(None),
        (OwnerPatch::Release(_), Some(_)) => Err(Patched::Unchanged),
        (OwnerPatch::Release(_), None) => Err(Patched::Invalid),
    }
}

impl ApiServer {
    /// PATCH a pod's controller reference (`PodControllerRefManager`).
    pub fn patch_pod_owner(&mut self, id: PodId, patch: &OwnerPatch, now: SimTime, trace: &mut Trace) -> Patched {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let mut answer = Patched::Changed;
        let written = self.pods.write(id, Precondition::None, c, |p| match merge(p.spec.owner.as_ref(), patch) {
            Ok(owner) => {
                Arc::make_mut(&mut p.spec).owner = owner;
                Change::Stored
            }
            Err(refused) => {
                answer = refused;
                Change::None
            }
        });
        if written.is_err() { Patched::NotFound } else { answer }
    }

    /// The garbage collector's PATCH of a Job without its CronJob's reference (`--cascade=orphan`).
    pub fn patch_job_owner(&mut self, id: JobId, patch: &OwnerPatch, now: SimTime, trace: &mut Trace) -> Patched {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let mut answer = Patched::Changed;
        let written = self.jobs.write(id, Precondition::None, c, |j| match merge(j.owner.as_ref(), patch) {
            Ok(owner) => {
                j.owner = owner;
                Change::Stored
            }
            Err(refused) => {
                answer = refused;
                Change::None
            }
        });
        if written.is_err() { Patched::NotFound } else { answer }
    }

    /// PATCH a ReplicaSet's controller reference (`ReplicaSetControllerRefManager`).
    pub fn patch_replica_set_owner(
        &mut self,
        id: RsId,
        patch: &OwnerPatch,
        now: SimTime,
        trace: &mut Trace,
    ) -> Patched {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let mut answer = Patched::Changed;
        let written =
            self.replica_sets.write(id, Precondition::None, c, |r| match merge(r.spec.owner.as_ref(), patch) {
                Ok(owner) => {
                    Arc::make_mut(&mut r.spec).owner = owner;
                    Change::Stored
                }
                Err(refused) => {
                    answer = refused;
                    Change::None
                }
            });
        if written.is_err() { Patched::NotFound } else { answer }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(uid: &str) -> OwnerRef {
        OwnerRef { kind: "ReplicaSet", name: "web".into(), uid: uid.into() }
    }

    #[test]
    fn the_merge_keys_references_by_uid_and_allows_one_controller() {
        let (a, b) = (owner("a"), owner("b"));
        assert_eq!(merge(None, &OwnerPatch::Adopt(a.clone())), Ok(Some(a.clone())));
        assert_eq!(merge(Some(&a), &OwnerPatch::Adopt(a.clone())), Err(Patched::Unchanged));
        assert_eq!(merge(Some(&b), &OwnerPatch::Adopt(a.clone())), Err(Patched::Invalid));
        assert_eq!(merge(Some(&a), &OwnerPatch::Release("a".into())), Ok(None));
        assert_eq!(merge(Some(&b), &OwnerPatch::Release("a".into())), Err(Patched::Unchanged));
        assert_eq!(merge(None, &OwnerPatch::Release("a".into())), Err(Patched::Invalid));
    }

    #[test]
    fn a_pod_adoption_is_one_modified_event_and_leaves_the_generation() {
        use crate::manifest::Manifests;
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: web}}\nspec:\n  containers: [{name: web, image: nginx}]\n";
        let file = Arc::new(crate::error::SourceFile { name: "p.yaml".into(), text: text.into() });
        let spec = Arc::new(Manifests::load(&[file]).unwrap().pods.remove(0));
        let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
        let id = api.create(spec, SimTime::ZERO, &mut trace);
        let rv = api.pod(id).meta.resource_version;
        let adopt = OwnerPatch::Adopt(owner("a"));
        assert_eq!(api.patch_pod_owner(id, &adopt, SimTime::ZERO, &mut trace), Patched::Changed);
        assert_eq!(api.pod(id).spec.owner, Some(owner("a")));
        assert_eq!((api.pod(id).meta.resource_version, api.pod(id).meta.generation), (rv + 1, 1));
        // A second adoption by the same controller stores nothing; another's is refused.
        assert_eq!(api.patch_pod_owner(id, &adopt, SimTime::ZERO, &mut trace), Patched::Unchanged);
        assert_eq!(
            api.patch_pod_owner(id, &OwnerPatch::Adopt(owner("b")), SimTime::ZERO, &mut trace),
            Patched::Invalid
        );
        assert_eq!(trace.entries.len(), 2, "ADDED, then one MODIFIED");
    }
}
