//! A CronJob in the API server (batch/v1): its spec as applied, and its
//! status as the CronJob controller last wrote it.

use super::meta::Meta;
use super::store::{Object, WithStatus, stored_fields};
use crate::ids::{CronJobId, JobId};
use crate::spec::{CronJobSpec, OwnerRef};
use crate::time::SimTime;
use crate::trace::record::{Record, WatchKind};
use std::sync::Arc;

/// `status` of a CronJob.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CronJobStatus {
    /// `status.active`: references to the Jobs running, in the order created.
    pub active: Vec<(JobId, Arc<str>, Arc<str>)>,
    /// The nominal time of the last run created (`lastScheduleTime`).
    pub last_schedule: Option<SimTime>,
    pub last_successful: Option<SimTime>,
}

#[derive(Clone, Debug)]
pub struct ApiCronJob {
    pub id: CronJobId,
    pub meta: Meta,
    pub spec: Arc<CronJobSpec>,
    pub status: CronJobStatus,
}

impl Object for ApiCronJob {
    type Id = CronJobId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn namespace(&self) -> &str {
        &self.spec.namespace
    }
    fn watch_record(kind: WatchKind, cronjob: Arc<Self>) -> Record {
        Record::CronJob { kind, cronjob }
    }
}

/// The status subresource.
impl WithStatus for ApiCronJob {
    type Status<'a> = &'a mut CronJobStatus;
    fn status(&mut self) -> &mut CronJobStatus {
        &mut self.status
    }
}

impl ApiCronJob {
    /// The owner reference its Jobs carry.
    pub fn as_owner(&self) -> OwnerRef {
        OwnerRef { kind: "CronJob", name: Arc::from(self.spec.name.as_str()), uid: self.meta.uid.clone() }
    }
}

impl super::ApiServer {
    pub fn cronjobs(&self) -> &[ApiCronJob] {
        self.cronjobs.all()
    }

    pub fn cronjob(&self, id: CronJobId) -> &ApiCronJob {
        self.cronjobs.get(id)
    }

    /// POST a CronJob.
    pub fn create_cronjob(
        &mut self,
        spec: Arc<CronJobSpec>,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> Option<CronJobId> {
        if self.cronjobs.name_taken(&spec.namespace, &spec.name) {
            return None;
        }
        let uid = Arc::from(super::uid(&mut self.job_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let status = CronJobStatus::default();
        Some(self.cronjobs.create(uid, c, |id, meta| ApiCronJob { id, meta, spec, status }))
    }

    /// The CronJob controller's `UpdateStatus` of the CronJob as read at
    /// `read`: refused (409) when it changed since; an unchanged status stores nothing.
    pub fn update_cronjob_status(
        &mut self,
        id: CronJobId,
        read: u64,
        status: CronJobStatus,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> Result<(), super::store::Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.cronjobs.replace_status(id, read, c, status, ApiCronJob::status)?;
        Ok(())
    }
}
