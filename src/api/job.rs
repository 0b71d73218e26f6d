//! A Job in the API server (batch/v1): its spec as applied, and its status
//! as the Job controller last wrote it.

use super::meta::Meta;
use super::store::{Object, WithStatus, stored_fields};
use crate::ids::JobId;
use crate::spec::job::Intervals;
use crate::spec::{JobSpec, OwnerRef};
use crate::time::SimTime;
use crate::trace::record::{Record, WatchKind};
use std::sync::Arc;

/// `batch.JobConditionType`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum JobConditionType {
    Suspended,
    /// The Job will fail: its pods are being terminated (interim, 1.31+).
    FailureTarget,
    /// The Job will succeed: its pods are being terminated (interim, 1.31+).
    SuccessCriteriaMet,
    Failed,
    Complete,
}

impl JobConditionType {
    pub fn as_str(self) -> &'static str {
        match self {
            JobConditionType::Suspended => "Suspended",
            JobConditionType::FailureTarget => "FailureTarget",
            JobConditionType::SuccessCriteriaMet => "SuccessCriteriaMet",
            JobConditionType::Failed => "Failed",
            JobConditionType::Complete => "Complete",
        }
    }
}

/// One Job condition; `lastProbeTime` and `lastTransitionTime` are both
/// set when it is written (`newCondition`), to the second.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobCondition {
    pub kind: JobConditionType,
    pub status: bool,
    pub reason: &'static str,
    pub message: String,
    pub last_probe: SimTime,
    pub last_transition: SimTime,
}

impl JobCondition {
    /// `newCondition` at `now` (metav1.Time keeps whole seconds).
    pub fn new(kind: JobConditionType, status: bool, reason: &'static str, message: String, now: SimTime) -> Self {
        let at = SimTime::from_millis(now.whole_seconds() * 1000);
        JobCondition { kind, status, reason, message, last_probe: at, last_transition: at }
    }
}

/// `status.uncountedTerminatedPods`: finished pods whose finalizer the
/// controller is removing, counted once it is gone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Uncounted {
    pub succeeded: Vec<Arc<str>>,
    pub failed: Vec<Arc<str>>,
}

impl Uncounted {
    pub fn is_empty(&self) -> bool {
        self.succeeded.is_empty() && self.failed.is_empty()
    }
}

/// `status` of a Job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobStatus {
    pub conditions: Vec<JobCondition>,
    pub start_time: Option<SimTime>,
    pub completion_time: Option<SimTime>,
    pub active: u32,
    /// Written by every sync since 1.24: `ready: 0` shows.
    pub ready: Option<u32>,
    /// Written by every sync since 1.34 (JobPodReplacementPolicy GA).
    pub terminating: Option<u32>,
    pub succeeded: u32,
    pub failed: u32,
    /// Indexed Jobs only.
    pub completed_indexes: Option<Intervals>,
    /// Indexed Jobs with backoffLimitPerIndex only.
    pub failed_indexes: Option<Intervals>,
    pub uncounted: Option<Uncounted>,
}

impl JobStatus {
    pub fn condition(&self, kind: JobConditionType) -> Option<&JobCondition> {
        self.conditions.iter().find(|c| c.kind == kind)
    }

    pub fn is_true(&self, kind: JobConditionType) -> bool {
        self.condition(kind).is_some_and(|c| c.status)
    }

    /// `IsJobFinished`: Complete or Failed is True.
    pub fn finished(&self) -> Option<JobConditionType> {
        [JobConditionType::Complete, JobConditionType::Failed].into_iter().find(|k| self.is_true(*k))
    }
}

#[derive(Clone, Debug)]
pub struct ApiJob {
    pub id: JobId,
    pub meta: Meta,
    pub spec: Arc<JobSpec>,
    /// The controller reference, for a CronJob's Job.
    pub owner: Option<OwnerRef>,
    pub status: JobStatus,
}

impl Object for ApiJob {
    type Id = JobId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn namespace(&self) -> &str {
        &self.spec.namespace
    }
    fn owner(&self) -> Option<&OwnerRef> {
        self.owner.as_ref()
    }
    fn watch_record(kind: WatchKind, job: Arc<Self>) -> Record {
        Record::Job { kind, job }
    }
}

/// `jobStatusStrategy`: the status and nothing else.
impl WithStatus for ApiJob {
    type Status<'a> = &'a mut JobStatus;
    fn status(&mut self) -> &mut JobStatus {
        &mut self.status
    }
}

impl ApiJob {
    /// The owner reference its pods carry.
    pub fn as_owner(&self) -> OwnerRef {
        OwnerRef { kind: "Job", name: Arc::from(self.spec.name.as_str()), uid: self.meta.uid.clone() }
    }

    /// The labels the API server adds to the template when it generates the
    /// selector (`generateSelector`); none with a manual selector.
    pub fn generated_labels(&self) -> Vec<(&'static str, String)> {
        if self.spec.manual_selector.is_some() {
            return Vec::new();
        }
        let (uid, name) = (self.meta.uid.to_string(), self.spec.name.clone());
        vec![
            ("batch.kubernetes.io/controller-uid", uid.clone()),
            ("batch.kubernetes.io/job-name", name.clone()),
            ("controller-uid", uid),
            ("job-name", name),
        ]
    }
}

impl super::ApiServer {
    pub fn jobs(&self) -> &[ApiJob] {
        self.jobs.all()
    }

    pub fn job(&self, id: JobId) -> &ApiJob {
        self.jobs.get(id)
    }

    /// POST a Job; `None` when one of that name exists (AlreadyExists).
    pub fn create_job(
        &mut self,
        spec: Arc<JobSpec>,
        owner: Option<OwnerRef>,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> Option<JobId> {
        if self.jobs.name_taken(&spec.namespace, &spec.name) {
            return None;
        }
        let uid = Arc::from(super::uid(&mut self.job_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let status = JobStatus::default();
        Some(self.jobs.create(uid, c, |id, meta| ApiJob { id, meta, spec, owner, status }))
    }

    /// PUT a Job's spec (`kubectl patch`): the generation moves when it changes.
    pub fn update_job(&mut self, id: JobId, spec: Arc<JobSpec>, now: SimTime, trace: &mut crate::trace::Trace) -> bool {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let written = self.jobs.write(id, super::store::Precondition::None, c, |j| {
            if j.spec.object == spec.object {
                return super::store::Change::None;
            }
            j.spec = spec;
            super::store::Change::NewGeneration
        });
        written == Ok(super::store::Change::NewGeneration)
    }

    /// The Job controller's `UpdateStatus` of the Job as it read it
    /// (resourceVersion `read`): the new resourceVersion, or why it failed
    /// (409 when the Job changed since). An unchanged status stores nothing.
    pub fn update_job_status(
        &mut self,
        id: JobId,
        read: u64,
        status: JobStatus,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> Result<u64, super::store::Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.jobs.replace_status(id, read, c, status, ApiJob::status)?;
        Ok(self.jobs.get(id).meta.resource_version)
    }

    /// DELETE a Job with a propagation policy (`kubectl delete`, the
    /// TTL-after-finished controller's Foreground, a CronJob's Background).
    pub fn delete_job(
        &mut self,
        id: JobId,
        policy: super::meta::Propagation,
        uid: Option<&str>,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> Result<super::store::Deleted, super::store::Refused> {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let pre = uid.map_or(super::store::Precondition::None, super::store::Precondition::Uid);
        self.jobs.delete(id, policy, pre, c)
    }

    /// A PATCH removing finalizer `name` from a pod
    /// (`$deleteFromPrimitiveList/finalizers`); a pod whose deletion is done
    /// but for it goes with it. `false` when the pod is gone (404).
    pub fn remove_pod_finalizer(
        &mut self,
        pod: crate::ids::PodId,
        name: &str,
        now: SimTime,
        trace: &mut crate::trace::Trace,
    ) -> bool {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        self.pods.remove_finalizer(pod, name, c).is_ok()
    }
}
