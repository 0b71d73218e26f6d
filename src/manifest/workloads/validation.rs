//! API-server validation of a Deployment or a ReplicaSet on create
//! (pkg/apis/apps/validation/validation.go): `ValidateObjectMeta` with
//! `NameIsDNSSubdomain`, then `ValidateDeploymentSpec` or
//! `ValidateReplicaSetSpec`, in their order.
//!
//! `ValidatePodTemplateSpec` checks the template's pod spec with
//! `ValidatePodSpec`: podsim runs its Pod validation on the pod the template
//! makes and moves the paths under `spec.template.`, leaving out what concerns
//! a Pod alone (its metadata, and the image whitespace check of
//! `validateContainersOnlyForPod`, which unsupported.rs reports instead).
//!
//! Bad values print as `ErrorBody` does: a number as is, an `IntOrString` and a
//! selector through their `String()` (`25%`, `&LabelSelector{…}`), a map or a
//! struct with Go's `%#v`.

use super::selector::{go_map, go_string, is_empty, matches, validate_labels, validate_selector};
use crate::manifest::field::FieldError;
use crate::manifest::names::{dns1123_label_errors, dns1123_subdomain_errors, qualified_name_errors};
use crate::manifest::validation::{Errors, dedup, invalid_each, validate_pod};
use k8s_openapi::api::apps::v1::{Deployment, DeploymentStrategy, ReplicaSet, RollingUpdateDeployment};
use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

/// `apimachineryvalidation.IsNegativeErrorMsg`.
pub(super) const NEGATIVE: &str = "must be greater than or equal to 0";
/// `IsValidPercent` through `RegexError` (the double space is the API server's).
const PERCENT: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
/// `validateContainersOnlyForPod`: an image with surrounding whitespace, refused on a pod only.
pub const IMAGE_WHITESPACE: &str = "must not have leading or trailing whitespace";

/// `ValidateDeployment` of a defaulted Deployment whose template makes `pod`;
/// `selector` is `None` when the manifest writes none (Go's nil).
pub fn validate_deployment(d: &Deployment, selector: Option<&LabelSelector>, pod: &Pod) -> Vec<FieldError> {
    let mut errs = Errors::new();
    validate_object_meta(&d.metadata, &mut errs);
    let spec = &d.spec;
    nonnegative("spec.replicas", spec.replicas, &mut errs);
    validate_selector_and_template(selector, &spec.template, pod, &mut errs);
    validate_strategy(spec.strategy.as_ref(), &mut errs);
    nonnegative("spec.minReadySeconds", spec.min_ready_seconds, &mut errs);
    // zero is a valid revisionHistoryLimit
    nonnegative("spec.revisionHistoryLimit", spec.revision_history_limit, &mut errs);
    if let Some(deadline) = spec.progress_deadline_seconds {
        nonnegative("spec.progressDeadlineSeconds", Some(deadline), &mut errs);
        if deadline <= spec.min_ready_seconds.unwrap_or(0) {
            let detail = "must be greater than minReadySeconds";
            errs.push(FieldError::invalid("spec.progressDeadlineSeconds", deadline, detail));
        }
    }
    dedup(errs)
}

/// `ValidateReplicaSet` of a defaulted ReplicaSet whose template makes `pod`;
/// `selector` is `None` when the manifest writes none.
pub fn validate_replica_set(rs: &ReplicaSet, selector: Option<&LabelSelector>, pod: &Pod) -> Vec<FieldError> {
    let mut errs = Errors::new();
    validate_object_meta(&rs.metadata, &mut errs);
    let spec = &rs.spec;
    nonnegative("spec.replicas", spec.replicas, &mut errs);
    nonnegative("spec.minReadySeconds", spec.min_ready_seconds, &mut errs);
    let template = spec.template.clone().unwrap_or_default();
    validate_selector_and_template(selector, &template, pod, &mut errs);
    dedup(errs)
}

/// `ValidateObjectMeta` with `NameIsDNSSubdomain`. A generateName is left to
/// unsupported.rs; the namespace is checked only when set (the API server takes it from the request).
pub(in crate::manifest) fn validate_object_meta(meta: &ObjectMeta, errs: &mut Errors) {
    match meta.name.as_deref().unwrap_or("") {
        "" if meta.generate_name.as_deref().unwrap_or("").is_empty() => {
            errs.push(FieldError::required("metadata.name", "name or generateName is required"));
        }
        "" => {}
        name => invalid_each("metadata.name", name, &dns1123_subdomain_errors(name), errs),
    }
    if let Some(ns) = meta.namespace.as_deref().filter(|ns| !ns.is_empty()) {
        invalid_each("metadata.namespace", ns, &dns1123_label_errors(ns), errs);
    }
    validate_labels(meta.labels.as_ref(), "metadata.labels", errs);
    validate_annotations(meta.annotations.as_ref(), "metadata.annotations", errs);
}

/// `ValidateAnnotations`: keys are qualified names, whatever their case.
fn validate_annotations(annotations: Option<&BTreeMap<String, String>>, path: &str, errs: &mut Errors) {
    for key in annotations.into_iter().flatten().map(|(k, _)| k) {
        invalid_each(path, key, &qualified_name_errors(&key.to_lowercase()), errs);
    }
}

/// The selector part of `ValidateDeploymentSpec` and `ValidateReplicaSetSpec`:
/// required, valid, not empty; the template is checked only against a
/// selector that parses (`LabelSelectorAsSelector`).
fn validate_selector_and_template(
    selector: Option<&LabelSelector>,
    template: &PodTemplateSpec,
    pod: &Pod,
    errs: &mut Errors,
) {
    let mut parses = true;
    match selector {
        None => errs.push(FieldError::required("spec.selector", "")),
        Some(s) => {
            let mut selector_errs = Errors::new();
            validate_selector(s, "spec.selector", &mut selector_errs);
            parses = selector_errs.is_empty();
            errs.extend(selector_errs);
            if is_empty(s) {
                // ReplicaSets say "deployment" too: ValidateReplicaSetSpec copies the text
                let detail = "empty selector is invalid for deployment";
                errs.push(FieldError::invalid("spec.selector", go_string(s), detail));
            }
        }
    }
    match selector {
        Some(s) if !parses => errs.push(FieldError::invalid("spec.selector", go_string(s), "invalid label selector")),
        _ => validate_template(selector, template, pod, errs),
    }
}

/// `ValidatePodTemplateSpecForReplicaSet`. A missing selector parses to
/// `labels.Nothing()`, which selects no template; an empty one selects all.
fn validate_template(selector: Option<&LabelSelector>, template: &PodTemplateSpec, pod: &Pod, errs: &mut Errors) {
    let meta = template.metadata.clone().unwrap_or_default();
    let labels = meta.labels.as_ref();
    if !selector.is_some_and(|s| is_empty(s) || matches(s, labels)) {
        let detail = "`selector` does not match template `labels`";
        errs.push(FieldError::invalid("spec.template.metadata.labels", go_map(labels), detail));
    }
    validate_pod_template_spec(template, pod, errs);
    let spec = template.spec.clone().unwrap_or_default();
    let restart_policy = spec.restart_policy.as_deref().unwrap_or("");
    if restart_policy != "Always" {
        errs.push(FieldError::not_supported("spec.template.spec.restartPolicy", restart_policy, &["Always"]));
    }
    if spec.active_deadline_seconds.is_some() {
        let detail = "activeDeadlineSeconds in ReplicaSet is not Supported";
        errs.push(FieldError::forbidden("spec.template.spec.activeDeadlineSeconds", detail));
    }
}

/// `ValidatePodTemplateSpec` of `spec.template`, whose pod is `pod`: its
/// labels and annotations, the pod spec, no ephemeral containers.
pub(super) fn validate_pod_template_spec(template: &PodTemplateSpec, pod: &Pod, errs: &mut Errors) {
    let meta = template.metadata.clone().unwrap_or_default();
    let labels = meta.labels.as_ref();
    validate_labels(labels, "spec.template.labels", errs);
    validate_annotations(meta.annotations.as_ref(), "spec.template.annotations", errs);
    let pod_errors = validate_pod(pod).into_iter();
    let template_errors =
        pod_errors.filter(|e| !e.path.starts_with("metadata.") && !e.body.ends_with(IMAGE_WHITESPACE));
    errs.extend(template_errors.map(|e| FieldError { path: format!("spec.template.{}", e.path), body: e.body }));
    let spec = template.spec.clone().unwrap_or_default();
    if spec.ephemeral_containers.is_some_and(|c| !c.is_empty()) {
        let detail = "ephemeral containers not allowed in pod template";
        errs.push(FieldError::forbidden("spec.template.spec.ephemeralContainers", detail));
    }
}

/// `ValidateDeploymentStrategy` of a defaulted strategy.
fn validate_strategy(strategy: Option<&DeploymentStrategy>, errs: &mut Errors) {
    let strategy = strategy.cloned().unwrap_or_default();
    let path = "spec.strategy.rollingUpdate";
    match (strategy.type_.as_deref().unwrap_or(""), &strategy.rolling_update) {
        ("Recreate", None) => {}
        ("Recreate", Some(_)) => {
            errs.push(FieldError::forbidden(path, "may not be specified when strategy `type` is 'Recreate'"));
        }
        ("RollingUpdate", None) => errs.push(FieldError::required(path, "this should be defaulted and never be nil")),
        ("RollingUpdate", Some(rolling)) => validate_rolling_update(rolling, errs),
        (other, rolling) => {
            // NotSupported with the *apps.DeploymentStrategy, printed with %#v;
            // Go prints the address of a rollingUpdate, which podsim cannot know
            let pointer = if rolling.is_some() { "0xc000…" } else { "nil" };
            let value = format!(
                "apps.DeploymentStrategy{{Type:{other:?}, RollingUpdate:(*apps.RollingUpdateDeployment)({pointer})}}"
            );
            let body = format!("Unsupported value: {value}: supported values: \"Recreate\", \"RollingUpdate\"");
            errs.push(FieldError { path: "spec.strategy".to_string(), body });
        }
    }
}

/// `ValidateRollingUpdateDeployment`: each value a non-negative int or a percent,
/// not both zero, and maxUnavailable at most 100% (maxSurge may exceed it).
fn validate_rolling_update(rolling: &RollingUpdateDeployment, errs: &mut Errors) {
    let zero = IntOrString::Int(0);
    let max_unavailable = rolling.max_unavailable.as_ref().unwrap_or(&zero);
    let max_surge = rolling.max_surge.as_ref().unwrap_or(&zero);
    let unavailable_path = "spec.strategy.rollingUpdate.maxUnavailable";
    validate_int_or_percent(max_unavailable, unavailable_path, errs);
    validate_int_or_percent(max_surge, "spec.strategy.rollingUpdate.maxSurge", errs);
    if value(max_unavailable) == 0 && value(max_surge) == 0 {
        let detail = "may not be 0 when `maxSurge` is 0";
        errs.push(FieldError::invalid(unavailable_path, shown(max_unavailable), detail));
    }
    if percent(max_unavailable).is_some_and(|p| p > 100) {
        errs.push(FieldError::invalid(unavailable_path, shown(max_unavailable), "must not be greater than 100%"));
    }
}

/// `ValidatePositiveIntOrPercent`.
pub(in crate::manifest) fn validate_int_or_percent(v: &IntOrString, path: &str, errs: &mut Errors) {
    match v {
        IntOrString::String(_) if percent(v).is_none() => errs.push(FieldError::invalid(path, shown(v), PERCENT)),
        IntOrString::Int(n) if *n < 0 => errs.push(FieldError::invalid(path, n, NEGATIVE)),
        _ => {}
    }
}

/// `getPercentValue`: the number of a string matching `[0-9]+%` (Go's `Atoi` saturates).
pub fn percent(v: &IntOrString) -> Option<i64> {
    match v {
        IntOrString::String(s) => {
            let digits = s.strip_suffix('%').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))?;
            Some(digits.parse().unwrap_or(i64::MAX))
        }
        IntOrString::Int(_) => None,
    }
}

/// `getIntOrPercentValue`: the percent's number, else `IntValue()` (`Atoi`, 0 when not a number).
pub(super) fn value(v: &IntOrString) -> i64 {
    match v {
        IntOrString::Int(n) => i64::from(*n),
        IntOrString::String(s) => percent(v).unwrap_or_else(|| s.parse().unwrap_or(0)),
    }
}

/// `(*IntOrString).String()`: `25%`, `0`, unquoted.
pub(in crate::manifest) fn shown(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(s) => s.clone(),
    }
}

/// `ValidateNonnegativeField` of a field that is set.
pub(super) fn nonnegative(path: &str, value: Option<i32>, errs: &mut Errors) {
    if let Some(v) = value.filter(|v| *v < 0) {
        errs.push(FieldError::invalid(path, v, NEGATIVE));
    }
}
