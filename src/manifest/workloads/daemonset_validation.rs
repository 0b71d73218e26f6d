//! API-server validation of a DaemonSet on create
//! (pkg/apis/apps/validation/validation.go `ValidateDaemonSet`): the
//! metadata, then `ValidateDaemonSetSpec` in its order — the selector, the
//! template against it, the template's pod, its restartPolicy and
//! activeDeadlineSeconds, minReadySeconds, `ValidateDaemonSetUpdateStrategy`,
//! revisionHistoryLimit.

use super::selector::{go_map, go_string, is_empty, matches, validate_selector};
use super::validation::{
    nonnegative, percent, shown, validate_int_or_percent, validate_object_meta, validate_pod_template_spec, value,
};
use crate::manifest::field::FieldError;
use crate::manifest::validation::{Errors, dedup};
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetUpdateStrategy, RollingUpdateDaemonSet};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// `ValidateDaemonSet` of a defaulted DaemonSet whose template makes `pod`;
/// `selector` is `None` when the manifest writes none (Go's nil, which
/// selects nothing: the template then never matches).
pub fn validate_daemon_set(ds: &DaemonSet, selector: Option<&LabelSelector>, pod: &Pod) -> Vec<FieldError> {
    let mut errs = Errors::new();
    validate_object_meta(&ds.metadata, &mut errs);
    let spec = &ds.spec;
    let mut parses = true;
    if let Some(s) = selector {
        let mut selector_errs = Errors::new();
        validate_selector(s, "spec.selector", &mut selector_errs);
        parses = selector_errs.is_empty();
        errs.extend(selector_errs);
    }
    let labels = spec.template.metadata.as_ref().and_then(|m| m.labels.as_ref());
    if parses && !selector.is_some_and(|s| is_empty(s) || matches(s, labels)) {
        let detail = "`selector` does not match template `labels`";
        errs.push(FieldError::invalid("spec.template.metadata.labels", go_map(labels), detail));
    }
    if let Some(s) = selector.filter(|s| is_empty(s)) {
        errs.push(FieldError::invalid("spec.selector", go_string(s), "empty selector is invalid for daemonset"));
    }
    validate_pod_template_spec(&spec.template, pod, &mut errs);
    let template = spec.template.spec.clone().unwrap_or_default();
    let restart_policy = template.restart_policy.as_deref().unwrap_or("");
    if restart_policy != "Always" {
        errs.push(FieldError::not_supported("spec.template.spec.restartPolicy", restart_policy, &["Always"]));
    }
    if template.active_deadline_seconds.is_some() {
        let detail = "activeDeadlineSeconds in DaemonSet is not Supported";
        errs.push(FieldError::forbidden("spec.template.spec.activeDeadlineSeconds", detail));
    }
    nonnegative("spec.minReadySeconds", spec.min_ready_seconds, &mut errs);
    validate_update_strategy(spec.update_strategy.as_ref(), &mut errs);
    // zero is a valid revisionHistoryLimit
    nonnegative("spec.revisionHistoryLimit", spec.revision_history_limit, &mut errs);
    dedup(errs)
}

/// `ValidateDaemonSetUpdateStrategy` of a defaulted strategy.
fn validate_update_strategy(strategy: Option<&DaemonSetUpdateStrategy>, errs: &mut Errors) {
    let strategy = strategy.cloned().unwrap_or_default();
    match (strategy.type_.as_deref().unwrap_or(""), &strategy.rolling_update) {
        ("OnDelete", _) => {}
        ("RollingUpdate", None) => errs.push(FieldError::required("spec.updateStrategy.rollingUpdate", "")),
        ("RollingUpdate", Some(rolling)) => validate_rolling_update(rolling, errs),
        (other, rolling) => {
            // NotSupported with the strategy, printed with %#v; Go prints the
            // address of a rollingUpdate, which podsim cannot know
            let pointer = if rolling.is_some() { "0xc000…" } else { "nil" };
            let value = format!(
                "apps.DaemonSetUpdateStrategy{{Type:{other:?}, RollingUpdate:(*apps.RollingUpdateDaemonSet)({pointer})}}"
            );
            let body = format!("Unsupported value: {value}: supported values: \"RollingUpdate\", \"OnDelete\"");
            errs.push(FieldError { path: "spec.updateStrategy".to_string(), body });
        }
    }
}

/// `ValidateRollingUpdateDaemonSet`: each value a non-negative int or a
/// percent of at most 100%, and exactly one of the two non-zero.
fn validate_rolling_update(rolling: &RollingUpdateDaemonSet, errs: &mut Errors) {
    let zero = k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(0);
    let max_unavailable = rolling.max_unavailable.as_ref().unwrap_or(&zero);
    let max_surge = rolling.max_surge.as_ref().unwrap_or(&zero);
    let unavailable_path = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    let surge_path = "spec.updateStrategy.rollingUpdate.maxSurge";
    validate_int_or_percent(max_unavailable, unavailable_path, errs);
    validate_int_or_percent(max_surge, surge_path, errs);
    for (v, path) in [(max_unavailable, unavailable_path), (max_surge, surge_path)] {
        if percent(v).is_some_and(|p| p > 100) {
            errs.push(FieldError::invalid(path, shown(v), "must not be greater than 100%"));
        }
    }
    match (value(max_unavailable) != 0, value(max_surge) != 0) {
        (true, true) => errs.push(FieldError::invalid(
            surge_path,
            shown(max_surge),
            "may not be set when maxUnavailable is non-zero",
        )),
        (false, false) => errs.push(FieldError::required(unavailable_path, "cannot be 0 when maxSurge is 0")),
        _ => {}
    }
}
