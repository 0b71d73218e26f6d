//! API-server validation of a Job on create
//! (pkg/apis/batch/validation/validation.go `ValidateJob`): the metadata,
//! `validateGeneratedSelector`, `ValidateJobSpec` (`validateJobSpec`, the
//! pod failure and success policies, the replacement policy, the template
//! and its restartPolicy, the selector), then the Indexed hostname check.

use super::selector::{go_map, go_string, matches, validate_selector};
use super::validation::{NEGATIVE, nonnegative, validate_object_meta, validate_pod_template_spec};
use crate::manifest::field::FieldError;
use crate::manifest::names::{dns1123_label_errors, qualified_name_errors};
use crate::manifest::validation::{Errors, dedup};
use crate::spec::job::Intervals;
use k8s_openapi::api::batch::v1::{Job, JobSpec, PodFailurePolicyRule, SuccessPolicyRule};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// `maxParallelismForIndexedJob`.
const MAX_INDEXED_PARALLELISM: i32 = 100_000;
/// `maxFailedIndexesForIndexedJob`.
const MAX_FAILED_INDEXES: i32 = 100_000;
/// `completionsSoftLimit`, and the limits above it with backoffLimitPerIndex.
const COMPLETIONS_SOFT_LIMIT: i32 = 100_000;
const PARALLELISM_LIMIT_HIGH_COMPLETIONS: i32 = 10_000;
const MAX_FAILED_INDEXES_LIMIT_HIGH_COMPLETIONS: i32 = 10_000;
/// `maxPodFailurePolicyRules`, `…OnExitCodesValues`, `…OnPodConditionsPatterns`, `maxSuccessPolicyRule`.
const MAX_FAILURE_RULES: usize = 20;
const MAX_EXIT_CODES: usize = 255;
const MAX_CONDITION_PATTERNS: usize = 20;
const MAX_SUCCESS_RULES: usize = 20;
/// `maxJobSuccessPolicySucceededIndexesLimit`.
const MAX_SUCCEEDED_INDEXES_LENGTH: usize = 64 * 1024;

/// `ValidateJob` of a defaulted Job whose template makes `pod`; `selector`
/// is the one the manifest writes (`None`: the API server generates it).
pub fn validate_job(job: &Job, selector: Option<&LabelSelector>, pod: &Pod) -> Vec<FieldError> {
    let mut errs = Errors::new();
    validate_object_meta(&job.metadata, &mut errs);
    let spec = job.spec.clone().unwrap_or_default();
    let manual = spec.manual_selector == Some(true);
    // `validateGeneratedSelector`: a selector written without manualSelector
    // must select the generated labels, which no selector a user writes can know.
    let name = job.metadata.name.as_deref().unwrap_or("");
    if !manual && let Some(s) = selector.filter(|s| !selects_generated(s, name)) {
        errs.push(FieldError::invalid("spec.selector", go_string(s), "`selector` not auto-generated"));
    }
    validate_job_spec(&spec, &mut errs);
    validate_template(&spec, pod, &mut errs);
    if manual {
        match selector {
            None => errs.push(FieldError::required("spec.selector", "")),
            Some(s) => {
                validate_selector(s, "spec.selector", &mut errs);
                let labels = spec.template.metadata.as_ref().and_then(|m| m.labels.as_ref());
                if !matches(s, labels) {
                    let detail = "`selector` does not match template `labels`";
                    errs.push(FieldError::invalid("spec.template.metadata.labels", go_map(labels), detail));
                }
            }
        }
    }
    let indexed = spec.completion_mode.as_deref() == Some("Indexed");
    if let (true, Some(n), Some(name)) = (indexed, spec.completions.filter(|n| *n > 0), &job.metadata.name) {
        let host = format!("{name}-{}", n - 1);
        if !dns1123_label_errors(&host).is_empty() {
            let detail = format!("will not able to create pod with invalid DNS label: {host}");
            errs.push(FieldError::invalid("metadata.name", format!("{name:?}"), &detail));
        }
    }
    dedup(errs)
}

/// Whether a written selector, with the generated `controller-uid` term
/// added, still selects the generated labels: only the job-name terms can.
fn selects_generated(s: &LabelSelector, name: &str) -> bool {
    let expressions = s.match_expressions.as_ref().is_some_and(|e| !e.is_empty());
    let labels = s.match_labels.iter().flatten();
    !expressions
        && labels
            .into_iter()
            .all(|(k, v)| matches!(k.as_str(), "job-name" | "batch.kubernetes.io/job-name") && v == name)
}

/// `validateJobSpec` up to the template.
fn validate_job_spec(spec: &JobSpec, errs: &mut Errors) {
    nonnegative("spec.parallelism", spec.parallelism, errs);
    nonnegative("spec.completions", spec.completions, errs);
    if let Some(d) = spec.active_deadline_seconds.filter(|d| *d < 0) {
        errs.push(FieldError::invalid("spec.activeDeadlineSeconds", d, NEGATIVE));
    }
    nonnegative("spec.backoffLimit", spec.backoff_limit, errs);
    nonnegative("spec.ttlSecondsAfterFinished", spec.ttl_seconds_after_finished, errs);
    nonnegative("spec.backoffLimitPerIndex", spec.backoff_limit_per_index, errs);
    if spec.max_failed_indexes.is_some() {
        nonnegative("spec.maxFailedIndexes", spec.max_failed_indexes, errs);
        if spec.backoff_limit_per_index.is_none() {
            errs.push(FieldError::required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"));
        }
    }
    let mode = spec.completion_mode.as_deref();
    if let Some(m) = mode.filter(|m| !matches!(*m, "NonIndexed" | "Indexed")) {
        errs.push(FieldError::not_supported("spec.completionMode", m, &["NonIndexed", "Indexed"]));
    }
    if mode == Some("Indexed") {
        validate_indexed(spec, errs);
    } else {
        for (path, v) in [
            ("spec.backoffLimitPerIndex", spec.backoff_limit_per_index),
            ("spec.maxFailedIndexes", spec.max_failed_indexes),
        ] {
            if let Some(v) = v {
                errs.push(FieldError::invalid(path, v, "requires indexed completion mode"));
            }
        }
    }
    if let Some(policy) = &spec.pod_failure_policy {
        if policy.rules.len() > MAX_FAILURE_RULES {
            errs.push(too_many("spec.podFailurePolicy.rules", policy.rules.len(), MAX_FAILURE_RULES));
        }
        let template = spec.template.spec.as_ref();
        let containers = template.map(|s| s.containers.iter().chain(s.init_containers.iter().flatten()));
        let names: Vec<&str> = containers.into_iter().flatten().map(|c| c.name.as_str()).collect();
        for (i, rule) in policy.rules.iter().enumerate() {
            validate_failure_rule(spec, rule, &format!("spec.podFailurePolicy.rules[{i}]"), &names, errs);
        }
    }
    if let Some(policy) = &spec.success_policy {
        if mode != Some("Indexed") {
            let value =
                format!("batch.SuccessPolicy{{Rules:[]batch.SuccessPolicyRule{{…{} rules}}}}", policy.rules.len());
            errs.push(FieldError::invalid("spec.successPolicy", value, "requires indexed completion mode"));
        } else {
            let path = "spec.successPolicy.rules";
            if policy.rules.is_empty() {
                let detail = "at least one rules must be specified when the successPolicy is specified";
                errs.push(FieldError::required(path, detail));
            }
            if policy.rules.len() > MAX_SUCCESS_RULES {
                errs.push(too_many(path, policy.rules.len(), MAX_SUCCESS_RULES));
            }
            for (i, rule) in policy.rules.iter().enumerate() {
                validate_success_rule(spec, rule, &format!("{path}[{i}]"), errs);
            }
        }
    }
    // `validatePodReplacementPolicy`
    if let Some(p) = spec.pod_replacement_policy.as_deref() {
        let path = "spec.podReplacementPolicy";
        if spec.pod_failure_policy.is_some() {
            if p != "Failed" {
                errs.push(FieldError::not_supported(path, p, &["Failed"]));
            }
        } else if !matches!(p, "Failed" | "TerminatingOrFailed") {
            errs.push(FieldError::not_supported(path, p, &["Failed", "TerminatingOrFailed"]));
        }
    }
}

/// The Indexed-only limits of `validateJobSpec`.
fn validate_indexed(spec: &JobSpec, errs: &mut Errors) {
    if spec.completions.is_none() {
        errs.push(FieldError::required("spec.completions", "when completion mode is Indexed"));
    }
    if let Some(p) = spec.parallelism.filter(|p| *p > MAX_INDEXED_PARALLELISM) {
        let detail = format!("must be less than or equal to {MAX_INDEXED_PARALLELISM} when completion mode is Indexed");
        errs.push(FieldError::invalid("spec.parallelism", p, &detail));
    }
    if let (Some(c), Some(m)) = (spec.completions, spec.max_failed_indexes)
        && m > c
    {
        errs.push(FieldError::invalid("spec.maxFailedIndexes", m, "must be less than or equal to completions"));
    }
    if let Some(m) = spec.max_failed_indexes.filter(|m| *m > MAX_FAILED_INDEXES) {
        let detail = format!("must be less than or equal to {MAX_FAILED_INDEXES}");
        errs.push(FieldError::invalid("spec.maxFailedIndexes", m, &detail));
    }
    if spec.completions.is_some_and(|c| c > COMPLETIONS_SOFT_LIMIT) && spec.backoff_limit_per_index.is_some() {
        let above =
            format!("when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index");
        match spec.max_failed_indexes {
            None => {
                let detail = format!("must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}");
                errs.push(FieldError::required("spec.maxFailedIndexes", &detail));
            }
            Some(m) if m > MAX_FAILED_INDEXES_LIMIT_HIGH_COMPLETIONS => {
                let detail =
                    format!("must be less than or equal to {MAX_FAILED_INDEXES_LIMIT_HIGH_COMPLETIONS} {above}");
                errs.push(FieldError::invalid("spec.maxFailedIndexes", m, &detail));
            }
            Some(_) => {}
        }
        if let Some(p) = spec.parallelism.filter(|p| *p > PARALLELISM_LIMIT_HIGH_COMPLETIONS) {
            let detail = format!("must be less than or equal to {PARALLELISM_LIMIT_HIGH_COMPLETIONS} {above}");
            errs.push(FieldError::invalid("spec.parallelism", p, &detail));
        }
    }
}

/// `validatePodFailurePolicyRule`, with its exit-code and condition parts.
fn validate_failure_rule(spec: &JobSpec, rule: &PodFailurePolicyRule, path: &str, names: &[&str], errs: &mut Errors) {
    const ACTIONS: [&str; 4] = ["Count", "FailIndex", "FailJob", "Ignore"];
    let action_path = format!("{path}.action");
    match rule.action.as_str() {
        "" => errs.push(FieldError::required(action_path, &format!("valid values: {}", go_list(&ACTIONS)))),
        "FailIndex" if spec.backoff_limit_per_index.is_none() => {
            errs.push(FieldError::invalid(action_path, "\"FailIndex\"", "requires the backoffLimitPerIndex to be set"))
        }
        a if !ACTIONS.contains(&a) => errs.push(FieldError::not_supported(action_path, a, &ACTIONS)),
        _ => {}
    }
    if let Some(codes) = &rule.on_exit_codes {
        let at = format!("{path}.onExitCodes");
        const OPERATORS: [&str; 2] = ["In", "NotIn"];
        match codes.operator.as_str() {
            "" => errs.push(FieldError::required(
                format!("{at}.operator"),
                &format!("valid values: {}", go_list(&OPERATORS)),
            )),
            o if !OPERATORS.contains(&o) => {
                errs.push(FieldError::not_supported(format!("{at}.operator"), o, &OPERATORS))
            }
            _ => {}
        }
        if let Some(name) = codes.container_name.as_deref().filter(|n| !names.contains(n)) {
            let detail = "must be one of the container or initContainer names in the pod template";
            errs.push(FieldError::invalid(format!("{at}.containerName"), format!("{name:?}"), detail));
        }
        let values_path = format!("{at}.values");
        let shown = format!("{:?}", codes.values).replace(',', "");
        if codes.values.is_empty() {
            errs.push(FieldError::invalid(&values_path, "[]int32{}", "at least one value is required"));
        } else if codes.values.len() > MAX_EXIT_CODES {
            errs.push(too_many(&values_path, codes.values.len(), MAX_EXIT_CODES));
        }
        let mut seen = Vec::new();
        for (j, &v) in codes.values.iter().enumerate() {
            let p = format!("{values_path}[{j}]");
            if codes.operator == "In" && v == 0 {
                errs.push(FieldError::invalid(&p, 0, "must not be 0 for the In operator"));
            }
            if seen.contains(&v) {
                errs.push(FieldError::duplicate_value(&p, v));
            } else {
                seen.push(v);
            }
        }
        if codes.values.windows(2).any(|w| w[0] > w[1]) {
            errs.push(FieldError::invalid(&values_path, shown, "must be ordered"));
        }
    }
    let patterns = rule.on_pod_conditions.as_deref().unwrap_or_default();
    if patterns.len() > MAX_CONDITION_PATTERNS {
        errs.push(too_many(&format!("{path}.onPodConditions"), patterns.len(), MAX_CONDITION_PATTERNS));
    }
    const STATUSES: [&str; 3] = ["False", "True", "Unknown"];
    for (j, pattern) in patterns.iter().enumerate() {
        let at = format!("{path}.onPodConditions[{j}]");
        for e in qualified_name_errors(&pattern.type_) {
            errs.push(FieldError::invalid(format!("{at}.type"), format!("{:?}", pattern.type_), &e));
        }
        match pattern.status.as_deref().unwrap_or("") {
            "" => errs
                .push(FieldError::required(format!("{at}.status"), &format!("valid values: {}", go_list(&STATUSES)))),
            s if !STATUSES.contains(&s) => errs.push(FieldError::not_supported(format!("{at}.status"), s, &STATUSES)),
            _ => {}
        }
    }
    let both = rule.on_exit_codes.is_some() && !patterns.is_empty();
    if both {
        errs.push(FieldError::invalid(path, "", "specifying both OnExitCodes and OnPodConditions is not supported"));
    }
    if rule.on_exit_codes.is_none() && patterns.is_empty() {
        errs.push(FieldError::invalid(path, "", "specifying one of OnExitCodes and OnPodConditions is required"));
    }
}

/// `validateSuccessPolicyRule` (the mode is Indexed, so completions is set).
fn validate_success_rule(spec: &JobSpec, rule: &SuccessPolicyRule, path: &str, errs: &mut Errors) {
    let completions = spec.completions.unwrap_or(0).max(0) as u32;
    if rule.succeeded_count.is_none() && rule.succeeded_indexes.is_none() {
        errs.push(FieldError::required(path, "at least one of succeededCount or succeededIndexes must be specified"));
    }
    let mut total = 0;
    if let Some(indexes) = &rule.succeeded_indexes {
        let at = format!("{path}.succeededIndexes");
        if indexes.len() > MAX_SUCCEEDED_INDEXES_LENGTH {
            let body = format!("Too long: may not be more than {MAX_SUCCEEDED_INDEXES_LENGTH} bytes");
            errs.push(FieldError { path: at.clone(), body });
        }
        match Intervals::parse(indexes, completions) {
            Ok(set) => total = set.total(),
            Err(e) => errs.push(FieldError::invalid(
                at,
                format!("{indexes:?}"),
                &format!("error parsing succeededIndexes: {e}"),
            )),
        }
    }
    if let Some(count) = rule.succeeded_count {
        let at = format!("{path}.succeededCount");
        nonnegative(&at, Some(count), errs);
        if count > completions as i32 {
            let detail = format!("must be less than or equal to {completions} (the number of specified completions)");
            errs.push(FieldError::invalid(&at, count, &detail));
        }
        if rule.succeeded_indexes.is_some() && count > total as i32 {
            let detail = format!(
                "must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)"
            );
            errs.push(FieldError::invalid(&at, count, &detail));
        }
    }
}

/// `ValidatePodTemplateSpec`, then the restartPolicy a Job allows.
fn validate_template(spec: &JobSpec, pod: &Pod, errs: &mut Errors) {
    validate_pod_template_spec(&spec.template, pod, errs);
    let path = "spec.template.spec.restartPolicy";
    let policy = spec.template.spec.as_ref().and_then(|s| s.restart_policy.as_deref()).unwrap_or("");
    match policy {
        "Always" | "" => errs.push(FieldError::required(path, "valid values: \"OnFailure\", \"Never\"")),
        "OnFailure" | "Never" if spec.pod_failure_policy.is_some() && policy != "Never" => {
            errs.push(FieldError::invalid(
                path,
                format!("{policy:?}"),
                "only \"Never\" is supported when podFailurePolicy is specified",
            ))
        }
        "OnFailure" | "Never" => {}
        other => errs.push(FieldError::not_supported(path, other, &["OnFailure", "Never"])),
    }
}

/// `field.TooMany`: `Too many: 21: must have at most 20 items`.
fn too_many(path: &str, n: usize, max: usize) -> FieldError {
    FieldError { path: path.to_string(), body: format!("Too many: {n}: must have at most {max} items") }
}

/// Go's `%q` of a `[]string`: `["Count" "FailIndex"]`.
fn go_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[{}]", quoted.join(" "))
}
