//! ControllerRevisions (apps/v1): the snapshots of a StatefulSet's or a
//! DaemonSet's pod template its controller writes (`newRevision` in
//! stateful_set_utils.go, `snapshot` in daemon/update.go), named
//! `<owner>-<hash>` and numbered in the order the templates were used.

use super::meta::{Meta, Propagation};
use super::store::{Change, Object, Precondition, stored_fields};
use crate::ids::RevisionId;
use crate::spec::{OwnerRef, PodTemplate};
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::{Record, WatchKind};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct ApiControllerRevision {
    pub id: RevisionId,
    pub meta: Meta,
    pub name: Arc<str>,
    pub namespace: Arc<str>,
    /// The template's labels and the hash label its controller adds.
    pub labels: BTreeMap<String, String>,
    /// The owner's annotations when it was made.
    pub annotations: BTreeMap<String, String>,
    /// Its StatefulSet or DaemonSet; none once orphaned (`--cascade=orphan`).
    pub owner: Option<OwnerRef>,
    /// `data`: the patch that restores the template (`getPatch`).
    pub data: serde_json::Value,
    /// `.revision`: going back to an older template renumbers it the newest.
    pub revision: i64,
    /// The template `data` restores, as the controllers read it back.
    pub template: Arc<PodTemplate>,
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
        self.owner.as_ref()
    }
    fn watch_record(kind: WatchKind, revision: Arc<Self>) -> Record {
        Record::ControllerRevision { kind, revision }
    }
}

/// `getPatch` (both controllers): `{"spec":{"template":{…,"$patch":"replace"}}}`.
/// The template is podsim's rendering of it, so a hash over these bytes may
/// differ from a cluster's where the encodings do.
pub fn template_patch(template: &PodTemplate) -> serde_json::Value {
    let mut t = serde_json::to_value(&template.object).unwrap_or_default();
    if let Some(map) = t.as_object_mut() {
        map.insert("$patch".into(), "replace".into());
    }
    serde_json::json!({"spec": {"template": t}})
}

/// A revision to create, as the controller sends it.
#[derive(Clone, Debug)]
pub struct NewRevision {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub owner: OwnerRef,
    pub revision: i64,
    pub template: Arc<PodTemplate>,
}

impl super::ApiServer {
    pub fn controller_revisions(&self) -> &[ApiControllerRevision] {
        self.revisions.all()
    }

    pub fn controller_revision(&self, id: RevisionId) -> &ApiControllerRevision {
        self.revisions.get(id)
    }

    /// The live revision of that name (a GET by name).
    pub fn controller_revision_named(&self, namespace: &str, name: &str) -> Option<RevisionId> {
        self.revisions.named(namespace, name)
    }

    /// `CreateControllerRevision`: `None` when the name is taken (AlreadyExists).
    pub fn create_controller_revision(
        &mut self,
        new: NewRevision,
        now: SimTime,
        trace: &mut Trace,
    ) -> Option<RevisionId> {
        if self.revisions.name_taken(&new.namespace, &new.name) {
            return None;
        }
        let uid = Arc::from(super::uid(&mut self.revision_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        Some(self.revisions.create(uid, c, |id, meta| ApiControllerRevision {
            id,
            meta,
            name: Arc::from(new.name),
            namespace: Arc::from(new.namespace),
            labels: new.labels,
            annotations: new.annotations,
            owner: Some(new.owner),
            data: template_patch(&new.template),
            revision: new.revision,
            template: new.template,
        }))
    }

    /// `UpdateControllerRevision` of the number: a template used again
    /// becomes the newest revision.
    pub fn renumber_controller_revision(&mut self, id: RevisionId, revision: i64, now: SimTime, trace: &mut Trace) {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.revisions.write(id, Precondition::None, c, |r| {
            if r.revision == revision {
                return Change::None;
            }
            r.revision = revision;
            Change::Stored
        });
    }

    /// DELETE of a revision: the history clean-up's (no options), or the
    /// garbage collector's (its policy, the UID it saw as precondition).
    pub fn delete_controller_revision(
        &mut self,
        id: RevisionId,
        policy: Propagation,
        uid: Option<&str>,
        now: SimTime,
        trace: &mut Trace,
    ) {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let pre = uid.map_or(Precondition::None, Precondition::Uid);
        let _ = self.revisions.delete(id, policy, pre, c);
    }

    /// The garbage collector's PATCH of a revision without its owner (`--cascade=orphan`).
    pub fn orphan_controller_revision(&mut self, id: RevisionId, owner: &str, now: SimTime, trace: &mut Trace) {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.revisions.write(id, Precondition::None, c, |r| match &r.owner {
            Some(o) if *o.uid == *owner => {
                r.owner = None;
                Change::Stored
            }
            _ => Change::None,
        });
    }
}
