//! Jobs as the API server returns them (batch/v1).

use super::render::Clock;
use super::render_workloads::owner_reference;
use crate::api::job::{ApiJob, JobStatus};
use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

/// The Job object: its spec as created with the selector and labels the API
/// server generates (the Job's own labels too when it has none), and the
/// status the Job controller last wrote.
pub fn job(j: &ApiJob, clock: &Clock) -> batch::Job {
    let s = &j.spec;
    let mut spec = s.object.spec.clone().unwrap_or_default();
    let generated = j.generated_labels();
    if !generated.is_empty() {
        let labels = spec.template.metadata.get_or_insert_default().labels.get_or_insert_default();
        for (k, v) in &generated {
            labels.entry(k.to_string()).or_insert_with(|| v.clone());
        }
        let uid = (generated[0].0.to_string(), generated[0].1.clone());
        spec.selector = Some(LabelSelector { match_labels: Some([uid].into()), match_expressions: None });
    }
    // `SetDefaults_Job` runs again when the API server reads the Job back
    // from storage: a Job still without labels takes its template's, the
    // generated ones included, as every GET then returns it.
    let labels = if s.labels.is_empty() {
        spec.template.metadata.as_ref().and_then(|m| m.labels.clone()).filter(|l| !l.is_empty())
    } else {
        Some(s.labels.clone())
    };
    let owner = j.owner.as_ref().map(owner_reference);
    batch::Job {
        metadata: ObjectMeta {
            name: Some(s.name.clone()),
            namespace: Some(s.namespace.clone()),
            uid: Some(j.meta.uid.to_string()),
            resource_version: Some(j.meta.resource_version.to_string()),
            generation: Some(j.meta.generation),
            creation_timestamp: Some(clock.time(j.meta.created)),
            labels,
            annotations: (!s.annotations.is_empty()).then(|| s.annotations.clone()),
            owner_references: owner.map(|o| vec![o]),
            deletion_timestamp: j.meta.deletion.map(|d| clock.time(d.timestamp)),
            deletion_grace_period_seconds: j.meta.deletion.map(|d| d.grace_seconds),
            finalizers: (!j.meta.finalizers.is_empty())
                .then(|| j.meta.finalizers.iter().map(|f| f.to_string()).collect()),
            ..Default::default()
        },
        spec: Some(spec),
        status: Some(status(&j.status, clock)),
    }
}

/// `JobStatus`: zero counts omitted (`omitempty`), `ready` and
/// `terminating` written whenever the controller has synced.
fn status(st: &JobStatus, clock: &Clock) -> batch::JobStatus {
    let positive = |n: u32| (n > 0).then_some(n as i32);
    let conditions = (!st.conditions.is_empty()).then(|| {
        st.conditions
            .iter()
            .map(|c| batch::JobCondition {
                type_: c.kind.as_str().into(),
                status: if c.status { "True" } else { "False" }.into(),
                reason: Some(c.reason.into()),
                message: Some(c.message.clone()),
                last_probe_time: Some(clock.time(c.last_probe)),
                last_transition_time: Some(clock.time(c.last_transition)),
            })
            .collect()
    });
    let uids = |v: &[std::sync::Arc<str>]| (!v.is_empty()).then(|| v.iter().map(|u| u.to_string()).collect());
    batch::JobStatus {
        conditions,
        start_time: st.start_time.map(|t| clock.time(t)),
        completion_time: st.completion_time.map(|t| clock.time(t)),
        active: positive(st.active),
        ready: st.ready.map(|n| n as i32),
        terminating: st.terminating.map(|n| n as i32),
        succeeded: positive(st.succeeded),
        failed: positive(st.failed),
        completed_indexes: st.completed_indexes.as_ref().map(|i| i.to_string()).filter(|s| !s.is_empty()),
        failed_indexes: st.failed_indexes.as_ref().map(|i| i.to_string()),
        uncounted_terminated_pods: st
            .uncounted
            .as_ref()
            .map(|u| batch::UncountedTerminatedPods { succeeded: uids(&u.succeeded), failed: uids(&u.failed) }),
    }
}

/// The CronJob object: its spec as created, the status the CronJob
/// controller last wrote (`active` as object references to its Jobs).
pub fn cronjob(c: &crate::api::cronjob::ApiCronJob, clock: &Clock) -> batch::CronJob {
    let s = &c.spec;
    let st = &c.status;
    let active = (!st.active.is_empty()).then(|| {
        st.active
            .iter()
            .map(|(_, name, uid)| k8s_openapi::api::core::v1::ObjectReference {
                api_version: Some("batch/v1".into()),
                kind: Some("Job".into()),
                name: Some(name.to_string()),
                namespace: Some(s.namespace.clone()),
                uid: Some(uid.to_string()),
                ..Default::default()
            })
            .collect()
    });
    batch::CronJob {
        metadata: ObjectMeta {
            name: Some(s.name.clone()),
            namespace: Some(s.namespace.clone()),
            uid: Some(c.meta.uid.to_string()),
            resource_version: Some(c.meta.resource_version.to_string()),
            generation: Some(c.meta.generation),
            creation_timestamp: Some(clock.time(c.meta.created)),
            labels: (!s.labels.is_empty()).then(|| s.labels.clone()),
            ..Default::default()
        },
        spec: s.object.spec.clone(),
        status: Some(batch::CronJobStatus {
            active,
            last_schedule_time: st.last_schedule.map(|t| clock.time(t)),
            last_successful_time: st.last_successful.map(|t| clock.time(t)),
        }),
    }
}
