//! CronJobs (batch/v1) as the simulator runs them: defaulted and validated
//! by `manifest::workloads::cronjob`, their schedule parsed.

use super::JobSpec;
use super::cron::Schedule;
use k8s_openapi::api::batch::v1::CronJob;
use std::collections::BTreeMap;

/// `spec.concurrencyPolicy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConcurrencyPolicy {
    /// Runs may overlap.
    Allow,
    /// A run due while one is active is skipped.
    Forbid,
    /// A run due while one is active replaces it.
    Replace,
}

/// A CronJob.
#[derive(Clone, Debug)]
pub struct CronJobSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    /// `spec.schedule` as written, and parsed (in UTC).
    pub schedule_text: String,
    pub schedule: Schedule,
    pub time_zone: Option<String>,
    pub starting_deadline_seconds: Option<i64>,
    pub concurrency: ConcurrencyPolicy,
    pub suspend: bool,
    pub successful_jobs_history_limit: Option<u32>,
    pub failed_jobs_history_limit: Option<u32>,
    /// `spec.jobTemplate`: the Job each run creates, named by the controller.
    pub job: JobSpec,
    pub object: CronJob,
}

impl JobSpec {
    /// The Job a CronJob creates from its template (`getJobFromTemplate2`):
    /// its name, and the scheduled-time annotation.
    pub fn named(&self, name: &str, annotations: &[(&str, String)]) -> JobSpec {
        let mut j = self.clone();
        j.name = name.to_string();
        j.object.metadata.name = Some(name.to_string());
        for (k, v) in annotations {
            j.annotations.insert(k.to_string(), v.clone());
        }
        j.object.metadata.annotations = (!j.annotations.is_empty()).then(|| j.annotations.clone());
        j
    }
}
