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
    /// Owner UID → the objects whose reference names it.
    dependents: BTreeMap<Arc<str>, BTreeSet<ObjectId>>,
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
            // `removeNode`: its dependents are attempted, and an owner
            // waiting for its dependents is looked at again.
            changes.attempt_to_delete.extend(self.dependents.get(&meta.uid).into_iter().flatten().copied());
            changes.attempt_to_delete.extend(self.owner_waiting(object.owner().map(|o| &o.uid)));
            return changes;
        }
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
        let uid = uid?;
        self.nodes.iter().find(|(_, n)| n.uid == *uid && n.has(FOREGROUND)).map(|(id, _)| *id)
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
