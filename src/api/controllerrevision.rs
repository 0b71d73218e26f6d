//! ControllerRevisions (apps/v1): the DaemonSet controller's snapshots of
//! its templates (update.go `snapshot`), one per template it has run, named
//! `<daemonset>-<hash>` and numbered in the order they were made.

use super::meta::Meta;
use super::store::{Object, stored_fields};
use crate::ids::RevisionId;
use crate::spec::OwnerRef;
use crate::time::SimTime;
use crate::trace::record::{Record, WatchKind};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct ApiControllerRevision {
    pub id: RevisionId,
    pub meta: Meta,
    pub name: String,
    pub namespace: String,
    /// The template's labels and `controller-revision-hash`.
    pub labels: BTreeMap<String, String>,
    /// The owner's annotations when it was made.
    pub annotations: BTreeMap<String, String>,
    pub owner: OwnerRef,
    /// `data`: the patch that restores the template (`getPatch`).
    pub data: serde_json::Value,
    pub revision: i64,
}

impl Object for ApiControllerRevision {
    type Id = RevisionId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.name
    }
    fn namespace(&self) -> &str {
        &self.namespace
    }
    fn owner(&self) -> Option<&OwnerRef> {
        Some(&self.owner)
    }
    fn watch_record(kind: WatchKind, revision: Arc<Self>) -> Record {
        Record::ControllerRevision { kind, revision }
    }
}

/// A revision to create, as the controller sends it.
#[derive(Clone, Debug)]
pub struct NewRevision {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub owner: OwnerRef,
    pub data: serde_json::Value,
    pub revision: i64,
}

impl super::ApiServer {
    pub fn controller_revisions(&self) -> &[ApiControllerRevision] {
        self.revisions.all()
    }

    /// POST a ControllerRevision; `None` when one of that name exists (AlreadyExists).
    pub fn create_controller_revision(
        &mut self,
        new: NewRevision,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> Option<RevisionId> {
        if self.revisions.name_taken(&new.namespace, &new.name) {
            return None;
        }
        let uid = Arc::from(super::uid(&mut self.revision_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        Some(self.revisions.create(uid, c, |id, meta| ApiControllerRevision {
            id,
            meta,
            name: new.name,
            namespace: new.namespace,
            labels: new.labels,
            annotations: new.annotations,
            owner: new.owner,
            data: new.data,
            revision: new.revision,
        }))
    }

    /// UPDATE of a revision's number (`constructHistory` when a DaemonSet
    /// goes back to an older template: it becomes the newest).
    pub fn renumber_controller_revision(
        &mut self,
        namespace: &str,
        name: &str,
        revision: i64,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) {
        let Some(id) = self.revisions.named(namespace, name) else { return };
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.revisions.write(id, super::store::Precondition::None, c, |r| {
            r.revision = revision;
            super::store::Change::Stored
        });
    }
}
