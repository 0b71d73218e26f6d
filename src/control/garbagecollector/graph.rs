//! The garbage collector's dependency graph (`GraphBuilder`): each observed
//! object with its owner's UID, whether it is being deleted and its
//! finalizers, and each owner UID's dependents. A watch event changes it
//! and says which objects to attempt (`processGraphChanges`).

use crate::api::meta::{FOREGROUND, ORPHAN};
use crate::api::store::Object;
use crate::ids::{ObjectId, Owner};
use crate::trace::record::WatchKind;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

struct Node {
    uid: Arc<str>,
    owner: Option<Arc<str>>,
    deleting: bool,
    finalizers: Vec<Arc<str>>,
}

impl Node {
    fn has(&self, finalizer: &str) -> bool {
        self.deleting && self.finalizers.iter().any(|f| **f == *finalizer)
    }
}

/// What a change asks the workers to attempt.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub attempt_to_delete: Vec<ObjectId>,
    pub attempt_to_orphan: Vec<Owner>,
}

#[derive(Default)]
pub struct Graph {
    nodes: BTreeMap<ObjectId, Node>,
    /// The observed objects by UID (`uidToNode`).
    uids: BTreeMap<Arc<str>, ObjectId>,
    /// Owner UID → the objects whose reference names it.
    dependents: BTreeMap<Arc<str>, BTreeSet<ObjectId>>,
    /// Owners known to be gone (`absentOwnerCache`): a reference to one
    /// dangles without a GET.
    absent: BTreeSet<Arc<str>>,
}

impl Graph {
    /// A watch event: the node inserted, updated or removed.
    pub fn observe<T: Object>(&mut self, kind: WatchKind, object: &T) -> Changes
    where
        T::Id: Into<ObjectId>,
    {
        let id: ObjectId = object.id().into();
        let meta = object.meta();
        let mut changes = Changes::default();
        let old = self.nodes.remove(&id);
        if let Some(o) = old.as_ref().and_then(|o| o.owner.as_ref())
            && let Some(set) = self.dependents.get_mut(o)
        {
            set.remove(&id);
        }
        if kind == WatchKind::Deleted {
            // `removeNode`: its dependents are attempted (and it is known
            // absent), and an owner waiting for its dependents is looked at again.
            self.uids.remove(&meta.uid);
            let dependents: Vec<ObjectId> = self.dependents.get(&meta.uid).into_iter().flatten().copied().collect();
            if !dependents.is_empty() {
                self.absent.insert(meta.uid.clone());
            }
            changes.attempt_to_delete.extend(dependents);
            changes.attempt_to_delete.extend(self.owner_waiting(object.owner().map(|o| &o.uid)));
            return changes;
        }
        self.uids.insert(meta.uid.clone(), id);
        let node = Node {
            uid: meta.uid.clone(),
            owner: object.owner().map(|o| o.uid.clone()),
            deleting: meta.deletion.is_some(),
            finalizers: meta.finalizers.clone(),
        };
        // `addUnblockedOwnersToDeleteQueue`: a removed reference unblocks its owner.
        let old_owner = old.as_ref().and_then(|o| o.owner.clone());
        if old_owner.is_some() && old_owner != node.owner {
            changes.attempt_to_delete.extend(self.owner_waiting(old_owner.as_ref()));
        }
        if let Some(o) = &node.owner {
            self.dependents.entry(o.clone()).or_default().insert(id);
            // `addDependentToOwners`: an owner not observed may be gone (its
            // virtual node is verified); here the dependent's attempt reads it.
            if old_owner.as_ref() != Some(o) && !self.uids.contains_key(o) {
                changes.attempt_to_delete.push(id);
            }
        }
        // `processTransitions`: it starts waiting for its dependents to be
        // orphaned or deleted.
        let was = |f: &str| old.as_ref().is_some_and(|o| o.has(f));
        if node.has(ORPHAN) && !was(ORPHAN) {
            changes.attempt_to_orphan.extend(Owner::of(id));
        }
        if node.has(FOREGROUND) && !was(FOREGROUND) {
            let dependents = self.dependents.get(&node.uid).into_iter().flatten();
            changes.attempt_to_delete.extend(dependents.copied());
            changes.attempt_to_delete.push(id);
        }
        self.nodes.insert(id, node);
        changes
    }

    /// The owner named by `uid`, if it is observed and waiting for its dependents.
    fn owner_waiting(&self, uid: Option<&Arc<str>>) -> Option<ObjectId> {
        let id = *self.uids.get(uid?)?;
        self.nodes.get(&id).is_some_and(|n| n.has(FOREGROUND)).then_some(id)
    }

    /// The owner with UID `uid` is known gone (`absentOwnerCache.Has`).
    pub fn absent(&self, uid: &str) -> bool {
        self.absent.contains(uid)
    }

    /// A GET found the owner with UID `uid` gone (`absentOwnerCache.Add`).
    pub fn found_absent(&mut self, uid: Arc<str>) {
        self.absent.insert(uid);
    }

    /// The observed UID of an object.
    pub fn uid(&self, id: ObjectId) -> Option<Arc<str>> {
        self.nodes.get(&id).map(|n| n.uid.clone())
    }

    /// The objects whose owner reference names `id` (all block their owner's
    /// deletion: the controllers set `blockOwnerDeletion`).
    pub fn dependents(&self, id: ObjectId) -> Vec<ObjectId> {
        let Some(n) = self.nodes.get(&id) else { return Vec::new() };
        self.dependents.get(&n.uid).into_iter().flatten().copied().collect()
    }

    /// `isBeingDeleted`.
    pub fn being_deleted(&self, id: ObjectId) -> bool {
        self.nodes.get(&id).is_some_and(|n| n.deleting)
    }

    /// `isDeletingDependents`: deleting with the `foregroundDeletion` finalizer.
    pub fn deleting_dependents(&self, id: ObjectId) -> bool {
        self.nodes.get(&id).is_some_and(|n| n.has(FOREGROUND))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiServer;
    use crate::api::ownership::OwnerPatch;
    use crate::manifest::Manifests;
    use crate::spec::OwnerRef;
    use crate::time::SimTime;
    use crate::trace::Trace;

    /// A dependent whose owner the collector has not observed is attempted
    /// once (`addDependentToOwners` makes the owner a virtual node to
    /// verify): should the owner be gone, nothing else would ever delete it.
    /// A later version with the same reference is not attempted again.
    #[test]
    fn a_dependent_of_an_unobserved_owner_is_attempted_once() {
        let text =
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: nginx}]\n";
        let file = Arc::new(crate::error::SourceFile { name: "p.yaml".into(), text: text.into() });
        let spec = Arc::new(Manifests::load(&[file]).unwrap().pods.remove(0));
        let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
        let pod = api.create(spec, SimTime::ZERO, &mut trace);
        let owner = OwnerRef { kind: "ReplicaSet", name: "web-1".into(), uid: "gone".into() };
        api.patch_pod_owner(pod, &OwnerPatch::Adopt(owner), SimTime::ZERO, &mut trace);
        let mut graph = Graph::default();
        let added = graph.observe(WatchKind::Added, api.pod(pod));
        assert_eq!(added.attempt_to_delete, [ObjectId::Pod(pod)]);
        api.bind(pod, "node-1".into(), SimTime::ZERO, &mut trace);
        assert_eq!(graph.observe(WatchKind::Modified, api.pod(pod)), Changes::default());
        assert!(!graph.absent("gone"), "known absent only once a GET or a DELETED event says so");
    }
}
