//! Job (batch/v1) manifests, read as the API server creates them: decoded
//! strictly, defaulted (`SetDefaults_Job`), validated (job_validation.rs),
//! checked for what podsim does not simulate, and typed.

use super::job_validation::validate_job;
use super::{decode, quantities_decode, quantities_valid, report, selector_written, template_warnings, warn};
use crate::error::Problem;
use crate::manifest::unsupported::{Finding, error, warning};
use crate::source::Doc;
use crate::spec::job::{
    CompletionMode, ConditionStatus, FailureAction, FailureMatch, FailureRule, Intervals, JobSpec, ReplacementPolicy,
    SuccessRule,
};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;

/// The `managedBy` of the built-in Job controller (`batch.JobControllerName`).
pub const JOB_CONTROLLER: &str = "kubernetes.io/job-controller";

/// Reads the Job `json` found at `prefix` of `doc`; its problems go to `problems`.
pub fn read_job(doc: &Doc, json: Value, prefix: &str, problems: &mut Vec<Problem>) -> Option<JobSpec> {
    let mut job: Job = decode(doc, &json, prefix, problems)?;
    let template = job.spec.as_ref().and_then(|s| s.template.spec.as_ref());
    quantities_decode(doc, prefix, template, "Job", problems)?;
    set_defaults_job(&mut job);
    let namespace = job.metadata.namespace.clone();
    let pod = super::defaults::template_pod(&mut job.spec.get_or_insert_default().template, namespace);
    let selector = selector_written(&json).then(|| job.spec.as_ref().and_then(|s| s.selector.clone())).flatten();
    let errors = validate_job(&job, selector.as_ref(), &pod);
    let findings = unsupported(&job, &pod);
    let reported = report(doc, prefix, errors, findings, problems);
    if !(quantities_valid(doc, prefix, &pod, problems) && reported) {
        return None;
    }
    let mut warnings = super::warnings::warnings_on_create(&job.metadata);
    warnings.extend(pod.spec.as_ref().map(template_warnings).unwrap_or_default());
    let (spec, kubelet) = job_spec(job, pod);
    warn(doc, prefix, warnings, kubelet, problems);
    Some(spec)
}

/// `SetDefaults_Job` (pkg/apis/batch/v1/defaults.go): completions and
/// parallelism 1 when both are unset, parallelism 1, backoffLimit 6 (or
/// MaxInt32 with a per-index limit), the template's labels as the Job's
/// when it has none, NonIndexed, not suspended, condition patterns True,
/// the replacement policy (Failed with a podFailurePolicy), no manual selector.
pub fn set_defaults_job(job: &mut Job) {
    let template_labels = job.spec.as_ref().and_then(|s| s.template.metadata.as_ref()).and_then(|m| m.labels.clone());
    let spec = job.spec.get_or_insert_default();
    if spec.completions.is_none() && spec.parallelism.is_none() {
        spec.completions = Some(1);
    }
    spec.parallelism.get_or_insert(1);
    if spec.backoff_limit.is_none() {
        spec.backoff_limit = Some(if spec.backoff_limit_per_index.is_some() { i32::MAX } else { 6 });
    }
    if let Some(labels) = template_labels
        && job.metadata.labels.as_ref().is_none_or(|l| l.is_empty())
    {
        job.metadata.labels = Some(labels);
    }
    spec.completion_mode.get_or_insert_with(|| "NonIndexed".to_string());
    spec.suspend.get_or_insert(false);
    for rule in spec.pod_failure_policy.iter_mut().flat_map(|p| p.rules.iter_mut()) {
        for pattern in rule.on_pod_conditions.iter_mut().flatten() {
            if pattern.status.as_deref().unwrap_or("").is_empty() {
                pattern.status = Some("True".to_string());
            }
        }
    }
    if spec.pod_replacement_policy.is_none() {
        let policy = if spec.pod_failure_policy.is_some() { "Failed" } else { "TerminatingOrFailed" };
        spec.pod_replacement_policy = Some(policy.to_string());
    }
    spec.manual_selector.get_or_insert(false);
}

/// What podsim does not simulate of a Job: another controller's Job
/// (`managedBy`), selector expressions, a generated name, owners, finalizers,
/// a status; and what the Pod check finds in the template.
fn unsupported(job: &Job, pod: &Pod) -> Vec<Finding> {
    let meta = &job.metadata;
    let mut out = Vec::new();
    if meta.name.is_none() && meta.generate_name.is_some() {
        out.push(error("metadata.generateName".into(), "podsim needs metadata.name; generateName is not supported"));
    }
    out.extend(crate::manifest::server_written::findings(meta, crate::manifest::server_written::Generation::SetToOne));
    if meta.owner_references.as_ref().is_some_and(|o| !o.is_empty()) {
        out.push(error(
            "metadata.ownerReferences".into(),
            "owner references are not simulated: the garbage collector would delete this object, whose owners do not exist",
        ));
    }
    if meta.finalizers.as_ref().is_some_and(|f| !f.is_empty()) {
        out.push(warning(
            "metadata.finalizers".into(),
            "nothing in the simulation removes a Job's finalizers: once deleted, the Job stays",
        ));
    }
    if job.status.as_ref().is_some_and(|s| s != &Default::default()) {
        out.push(warning("status".into(), "ignored: the API server resets status on create"));
    }
    let spec = job.spec.clone().unwrap_or_default();
    if let Some(m) = spec.managed_by.as_deref().filter(|m| *m != JOB_CONTROLLER) {
        out.push(error(
            "spec.managedBy".into(),
            &format!("the Job controller leaves a Job managed by {m:?} to that controller, which podsim does not run"),
        ));
    }
    if spec.selector.as_ref().and_then(|s| s.match_expressions.as_ref()).is_some_and(|e| !e.is_empty()) {
        out.push(error(
            "spec.selector.matchExpressions".into(),
            "selector expressions are not simulated: the controllers select pods by matchLabels only",
        ));
    }
    let template =
        crate::manifest::unsupported::check(pod).into_iter().filter(|(p, _, _)| p != "spec.ephemeralContainers");
    out.extend(template.map(|(path, severity, message)| (format!("spec.template.{path}"), severity, message)));
    out
}

/// Builds the typed Job, with the kubelet warnings of its template's pod.
pub(super) fn job_spec(job: Job, pod: Pod) -> (JobSpec, Vec<(String, String)>) {
    let spec = job.spec.clone().unwrap_or_default();
    let (template, warnings) = super::build::pod_template(&spec.template, pod);
    let count = |v: Option<i32>| u32::try_from(v.unwrap_or(0)).unwrap_or(0);
    let completions = spec.completions.map(|c| count(Some(c)));
    let failure_policy = spec.pod_failure_policy.as_ref().map(|p| p.rules.iter().map(failure_rule).collect());
    let success_policy = spec.success_policy.as_ref().map_or_else(Vec::new, |p| {
        let rule = |r: &k8s_openapi::api::batch::v1::SuccessPolicyRule| SuccessRule {
            indexes: r.succeeded_indexes.as_deref().and_then(|s| Intervals::parse(s, completions.unwrap_or(0)).ok()),
            count: r.succeeded_count.map(|c| count(Some(c))),
        };
        p.rules.iter().map(rule).collect()
    });
    let manual = spec.manual_selector == Some(true);
    let built = JobSpec {
        name: job.metadata.name.clone().unwrap_or_default(),
        namespace: job.metadata.namespace.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "default".into()),
        labels: job.metadata.labels.clone().unwrap_or_default(),
        annotations: job.metadata.annotations.clone().unwrap_or_default(),
        parallelism: count(spec.parallelism),
        completions,
        mode: match spec.completion_mode.as_deref() {
            Some("Indexed") => CompletionMode::Indexed,
            _ => CompletionMode::NonIndexed,
        },
        backoff_limit: count(spec.backoff_limit),
        backoff_limit_per_index: spec.backoff_limit_per_index.map(|b| count(Some(b))),
        max_failed_indexes: spec.max_failed_indexes.map(|m| count(Some(m))),
        failure_policy,
        success_policy,
        active_deadline_seconds: spec.active_deadline_seconds.map(|d| d.max(0) as u64),
        replacement: match spec.pod_replacement_policy.as_deref() {
            Some("Failed") => ReplacementPolicy::Failed,
            _ => ReplacementPolicy::TerminatingOrFailed,
        },
        suspend: spec.suspend == Some(true),
        ttl_seconds_after_finished: spec.ttl_seconds_after_finished.map(|t| count(Some(t))),
        manual_selector: manual.then(|| spec.selector.and_then(|s| s.match_labels).unwrap_or_default()),
        template,
        object: job,
    };
    (built, warnings)
}

fn failure_rule(r: &k8s_openapi::api::batch::v1::PodFailurePolicyRule) -> FailureRule {
    let action = match r.action.as_str() {
        "FailJob" => FailureAction::FailJob,
        "FailIndex" => FailureAction::FailIndex,
        "Ignore" => FailureAction::Ignore,
        _ => FailureAction::Count,
    };
    let on = match &r.on_exit_codes {
        Some(c) => FailureMatch::ExitCodes {
            container: c.container_name.clone(),
            not_in: c.operator == "NotIn",
            values: c.values.clone(),
        },
        None => FailureMatch::Conditions(
            r.on_pod_conditions
                .iter()
                .flatten()
                .map(|p| {
                    let status = match p.status.as_deref().unwrap_or("") {
                        "False" => ConditionStatus::False,
                        "Unknown" => ConditionStatus::Unknown,
                        _ => ConditionStatus::True,
                    };
                    (p.type_.clone(), status)
                })
                .collect(),
        ),
    };
    FailureRule { action, on }
}
