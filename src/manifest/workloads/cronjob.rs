//! CronJob (batch/v1) manifests, read as the API server creates them:
//! decoded strictly, defaulted (`SetDefaults_CronJob`, and `SetDefaults_Job`
//! on the Job template), validated (`ValidateCronJobCreate`: the name, the
//! schedule, the time zone, the policy, the limits, and
//! `ValidateJobTemplateSpec`), and typed.

use super::job::{job_spec, set_defaults_job};
use super::job_validation::validate_job;
use super::validation::{nonnegative, validate_object_meta};
use super::{decode, quantities_decode, quantities_valid, report, template_warnings, warn};
use crate::error::Problem;
use crate::manifest::field::FieldError;
use crate::manifest::unsupported::{Finding, error};
use crate::manifest::validation::{Errors, dedup};
use crate::source::Doc;
use crate::spec::CronJobSpec;
use crate::spec::cron::Schedule;
use crate::spec::cronjob::ConcurrencyPolicy;
use k8s_openapi::api::batch::v1::{CronJob, Job};
use serde_json::Value;

/// The longest CronJob name: its Jobs add 11 characters (`-` and the minutes).
const MAX_NAME: usize = 52;
/// The time zones podsim runs a schedule in.
const UTC: [&str; 2] = ["UTC", "Etc/UTC"];

/// Reads the CronJob `json` found at `prefix` of `doc`; its problems go to `problems`.
pub fn read_cronjob(doc: &Doc, json: Value, prefix: &str, problems: &mut Vec<Problem>) -> Option<CronJobSpec> {
    let mut cj: CronJob = decode(doc, &json, prefix, problems)?;
    let template = cj.spec.job_template.spec.as_ref().and_then(|j| j.template.spec.as_ref());
    quantities_decode(doc, prefix, template, "CronJob", problems)?;
    // `SetDefaults_CronJob`.
    let spec = &mut cj.spec;
    spec.concurrency_policy.get_or_insert_with(|| "Allow".into());
    spec.suspend.get_or_insert(false);
    spec.successful_jobs_history_limit.get_or_insert(3);
    spec.failed_jobs_history_limit.get_or_insert(1);
    let name = cj.metadata.name.clone();
    let namespace = cj.metadata.namespace.clone();
    let template_meta = spec.job_template.metadata.clone().unwrap_or_default();
    let written_selector = spec.job_template.spec.as_ref().and_then(|s| s.selector.clone());
    let mut job = Job {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: name.clone(),
            namespace: namespace.clone(),
            labels: template_meta.labels.clone(),
            annotations: template_meta.annotations.clone(),
            ..Default::default()
        },
        spec: Some(spec.job_template.spec.clone().unwrap_or_default()),
        status: None,
    };
    job.spec.get_or_insert_default().selector = None;
    set_defaults_job(&mut job);
    let pod = super::defaults::template_pod(&mut job.spec.get_or_insert_default().template, namespace);
    let mut errors = validate_cronjob(&cj);
    for e in validate_job(&job, None, &pod) {
        // The template's Job has no name of its own to validate: the CronJob's was.
        if e.path.starts_with("metadata.name") {
            continue;
        }
        let path = match e.path.strip_prefix("metadata.") {
            Some(rest) => format!("spec.jobTemplate.metadata.{rest}"),
            None => format!("spec.jobTemplate.{}", e.path),
        };
        errors.push(FieldError { path, body: e.body });
    }
    // `ValidateJobTemplateSpec`: the Job's selector is generated.
    if let Some(s) = written_selector {
        let body = format!("Invalid value: {}: `selector` will be auto-generated", super::go_string(&s));
        errors.push(FieldError { path: "spec.jobTemplate.spec.selector".into(), body });
    }
    if job.spec.as_ref().and_then(|s| s.manual_selector) == Some(true) {
        let e = FieldError::not_supported("spec.jobTemplate.spec.manualSelector", "true", &["nil", "false"]);
        errors.push(FieldError { body: e.body.replacen("\"true\"", "true", 1), ..e });
    }
    let findings = unsupported(&cj);
    let reported = report(doc, prefix, dedup(errors), findings, problems);
    if !(quantities_valid(doc, prefix, &pod, problems) && reported) {
        return None;
    }
    let mut warnings = super::warnings::warnings_on_create(&cj.metadata);
    warnings.extend(pod.spec.as_ref().map(template_warnings).unwrap_or_default());
    let (job, kubelet) = job_spec(job, pod);
    let kubelet = kubelet.into_iter().map(|(p, m)| (p.replacen("spec.", "spec.jobTemplate.spec.", 1), m)).collect();
    warn(doc, prefix, warnings, kubelet, problems);
    let spec = cj.spec.clone();
    let count = |v: Option<i32>| v.map(|n| u32::try_from(n).unwrap_or(0));
    Some(CronJobSpec {
        name: name.unwrap_or_default(),
        namespace: job.namespace.clone(),
        labels: cj.metadata.labels.clone().unwrap_or_default(),
        schedule: Schedule::parse(&spec.schedule).ok()?,
        schedule_text: spec.schedule.clone(),
        time_zone: spec.time_zone.clone(),
        starting_deadline_seconds: spec.starting_deadline_seconds,
        concurrency: match spec.concurrency_policy.as_deref() {
            Some("Forbid") => ConcurrencyPolicy::Forbid,
            Some("Replace") => ConcurrencyPolicy::Replace,
            _ => ConcurrencyPolicy::Allow,
        },
        suspend: spec.suspend == Some(true),
        successful_jobs_history_limit: count(spec.successful_jobs_history_limit),
        failed_jobs_history_limit: count(spec.failed_jobs_history_limit),
        job,
        object: cj,
    })
}

/// `ValidateCronJobCreate` without the Job template.
fn validate_cronjob(cj: &CronJob) -> Vec<FieldError> {
    let mut errs = Errors::new();
    validate_object_meta(&cj.metadata, &mut errs);
    if let Some(name) = cj.metadata.name.as_deref().filter(|n| n.len() > MAX_NAME) {
        errs.push(FieldError::invalid("metadata.name", format!("{name:?}"), "must be no more than 52 characters"));
    }
    let spec = cj.spec.clone();
    match spec.schedule.as_str() {
        "" => errs.push(FieldError::required("spec.schedule", "")),
        s if s.contains("TZ") => errs.push(FieldError::invalid(
            "spec.schedule",
            format!("{s:?}"),
            "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
        )),
        s => {
            if let Err(e) = Schedule::parse(s) {
                errs.push(FieldError::invalid("spec.schedule", format!("{s:?}"), &e));
            }
        }
    }
    match spec.time_zone.as_deref() {
        Some("") => errs.push(FieldError::invalid("spec.timeZone", "\"\"", "timeZone must be nil or non-empty string")),
        Some("Local") => errs.push(FieldError::invalid(
            "spec.timeZone",
            "\"Local\"",
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        )),
        _ => {}
    }
    let policy = spec.concurrency_policy.as_deref().unwrap_or("");
    if !matches!(policy, "Allow" | "Forbid" | "Replace") {
        errs.push(FieldError::not_supported("spec.concurrencyPolicy", policy, &["Allow", "Forbid", "Replace"]));
    }
    if let Some(d) = spec.starting_deadline_seconds.filter(|d| *d < 0) {
        errs.push(FieldError::invalid("spec.startingDeadlineSeconds", d, super::validation::NEGATIVE));
    }
    nonnegative("spec.successfulJobsHistoryLimit", spec.successful_jobs_history_limit, &mut errs);
    nonnegative("spec.failedJobsHistoryLimit", spec.failed_jobs_history_limit, &mut errs);
    dedup(errs)
}

/// What podsim does not simulate of a CronJob: a time zone other than UTC
/// (the schedule would run in that zone's local time), a generated name,
/// owners.
fn unsupported(cj: &CronJob) -> Vec<Finding> {
    let mut out = Vec::new();
    let meta = &cj.metadata;
    if meta.name.is_none() && meta.generate_name.is_some() {
        out.push(error("metadata.generateName".into(), "podsim needs metadata.name; generateName is not supported"));
    }
    if meta.owner_references.as_ref().is_some_and(|o| !o.is_empty()) {
        out.push(error(
            "metadata.ownerReferences".into(),
            "owner references are not simulated: the garbage collector would delete this object, whose owners do not exist",
        ));
    }
    if let Some(tz) = cj.spec.time_zone.as_deref().filter(|tz| !tz.is_empty() && *tz != "Local" && !UTC.contains(tz)) {
        out.push(error(
            "spec.timeZone".into(),
            &format!(
                "podsim runs schedules in UTC only (the scenario's epoch is UTC); time zone {tz:?} is not modelled"
            ),
        ));
    }
    out
}
