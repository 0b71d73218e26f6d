//! A DaemonSet in the API server (apps/v1): its spec as applied, the
//! template generation the registry keeps, and its status as the
//! DaemonSet controller last wrote it.

use super::meta::Meta;
use super::store::{Object, WithStatus, stored_fields};
use crate::ids::DaemonSetId;
use crate::spec::{DaemonSetSpec, OwnerRef};
use crate::time::SimTime;
use crate::trace::record::{Record, WatchKind};
use std::sync::Arc;

/// The annotation the registry keeps `spec.templateGeneration` in
/// (`apps.DeprecatedTemplateGeneration`).
pub const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// `status` of a DaemonSet: the seven counts `updateDaemonSetStatus` writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DaemonSetStatus {
    pub desired_number_scheduled: u32,
    pub current_number_scheduled: u32,
    pub number_misscheduled: u32,
    pub number_ready: u32,
    pub updated_number_scheduled: u32,
    pub number_available: u32,
    pub number_unavailable: u32,
    pub observed_generation: i64,
}

#[derive(Clone, Debug)]
pub struct ApiDaemonSet {
    pub id: DaemonSetId,
    pub meta: Meta,
    pub spec: Arc<DaemonSetSpec>,
    /// `spec.templateGeneration`: 1 on create, +1 on each template change
    /// (`PrepareForCreate`, `PrepareForUpdate` in the registry's strategy.go).
    pub template_generation: i64,
    pub status: DaemonSetStatus,
}

impl Object for ApiDaemonSet {
    type Id = DaemonSetId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn namespace(&self) -> &str {
        &self.spec.namespace
    }
    fn owner(&self) -> Option<&OwnerRef> {
        None
    }
    fn watch_record(kind: WatchKind, ds: Arc<Self>) -> Record {
        Record::DaemonSet { kind, ds }
    }
}

/// `daemonSetStatusStrategy`: the status and nothing else.
impl WithStatus for ApiDaemonSet {
    type Status<'a> = &'a mut DaemonSetStatus;
    fn status(&mut self) -> &mut DaemonSetStatus {
        &mut self.status
    }
}

impl ApiDaemonSet {
    /// The owner reference its pods carry.
    pub fn as_owner(&self) -> OwnerRef {
        OwnerRef { kind: "DaemonSet", name: Arc::from(self.spec.name.as_str()), uid: self.meta.uid.clone() }
    }
}

impl super::ApiServer {
    pub fn daemon_sets(&self) -> &[ApiDaemonSet] {
        self.daemon_sets.all()
    }

    pub fn daemon_set(&self, id: DaemonSetId) -> &ApiDaemonSet {
        self.daemon_sets.get(id)
    }

    /// POST a DaemonSet; `None` when one of that name exists (AlreadyExists).
    pub fn create_daemon_set(
        &mut self,
        spec: Arc<DaemonSetSpec>,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> Option<DaemonSetId> {
        if self.daemon_sets.name_taken(&spec.namespace, &spec.name) {
            return None;
        }
        let uid = Arc::from(super::uid(&mut self.daemon_set_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let status = DaemonSetStatus::default();
        Some(self.daemon_sets.create(uid, c, |id, meta| ApiDaemonSet {
            id,
            meta,
            spec,
            template_generation: 1,
            status,
        }))
    }

    /// PUT a DaemonSet's spec (`kubectl apply`): the generation moves when
    /// the spec changes, the template generation when the template does.
    pub fn update_daemon_set(
        &mut self,
        id: DaemonSetId,
        spec: Arc<DaemonSetSpec>,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> bool {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let written = self.daemon_sets.write(id, super::store::Precondition::None, c, |d| {
            if d.spec.object.spec == spec.object.spec {
                return super::store::Change::None;
            }
            if d.spec.object.spec.template != spec.object.spec.template {
                d.template_generation += 1;
            }
            d.spec = spec;
            super::store::Change::NewGeneration
        });
        written == Ok(super::store::Change::NewGeneration)
    }

    /// The DaemonSet controller's `UpdateStatus` of the DaemonSet as it read
    /// it (resourceVersion `read`): the new resourceVersion, or 409.
    pub fn update_daemon_set_status(
        &mut self,
        id: DaemonSetId,
        read: u64,
        status: DaemonSetStatus,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> Result<u64, super::store::Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.daemon_sets.replace_status(id, read, c, status, ApiDaemonSet::status)?;
        Ok(self.daemon_sets.get(id).meta.resource_version)
    }
}
