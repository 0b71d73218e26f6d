//! StatefulSet (apps/v1) manifests, read as the API server creates them:
//! decoded strictly, defaulted (`SetDefaults_StatefulSet`), validated
//! (`ValidateStatefulSet`: `ValidateObjectMeta` with `NameIsDNSLabel`, then
//! `ValidateStatefulSetSpec` in its order, pkg/apis/apps/validation), checked
//! for what podsim does not simulate, then typed.
//!
//! `ValidatePodTemplateSpecForStatefulSet` does not validate the template's
//! pod spec: a bad one shows as `FailedCreate` events on every pod. podsim
//! does not simulate failed creations, so it checks the pod the template
//! makes (with the claim volumes the controller adds) and refuses it, saying so.

use super::defaults::template_pod;
use super::selector::{go_map, go_string, is_empty, matches, validate_labels, validate_selector};
use super::validation::{percent, shown, validate_int_or_percent, validate_object_meta};
use super::{build, decode, quantities_decode, quantities_valid, report, selector_written, template_warnings, warn};
use crate::error::{Problem, Severity};
use crate::manifest::field::FieldError;
use crate::manifest::names::dns1123_label_errors;
use crate::manifest::validation::{Errors, dedup, invalid_each, validate_pod};
use crate::source::Doc;
use crate::spec::StatefulSetSpec;
use crate::spec::statefulset::{ClaimTemplate, PodManagement, Retention, Rolling, UpdateStrategy};
use k8s_openapi::api::apps::v1::{
    RollingUpdateStatefulSetStrategy, StatefulSet, StatefulSetPersistentVolumeClaimRetentionPolicy,
    StatefulSetUpdateStrategy,
};
use k8s_openapi::api::core::v1::{PersistentVolumeClaimVolumeSource, Pod, Volume};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;
use std::sync::Arc;

/// `apimachineryvalidation.IsNegativeErrorMsg`.
const NEGATIVE: &str = "must be greater than or equal to 0";

/// Reads the StatefulSet `json` found at `prefix` of `doc`; its problems go to `problems`.
pub fn read_stateful_set(doc: &Doc, json: Value, prefix: &str, problems: &mut Vec<Problem>) -> Option<StatefulSetSpec> {
    let mut set: StatefulSet = decode(doc, &json, prefix, problems)?;
    quantities_decode(doc, prefix, set.spec.template.spec.as_ref(), "StatefulSet", problems)?;
    set_defaults_stateful_set(&mut set);
    let namespace = set.metadata.namespace.clone();
    let pod = template_pod(&mut set.spec.template, namespace);
    let selector = selector_written(&json).then_some(&set.spec.selector);
    let mut errors = validate_stateful_set(&set, selector.is_some());
    errors.extend(template_pod_errors(&set, &pod));
    let status = set.status.as_ref().is_some_and(|s| s != &Default::default());
    let mut findings = super::unsupported::check(&set.metadata, selector, status, &pod);
    findings.extend(claim_template_findings(&set));
    let reported = report(doc, prefix, dedup(errors), findings, problems);
    if !(quantities_valid(doc, prefix, &pod, problems) && reported) {
        return None;
    }
    let mut warnings = super::warnings::warnings_on_create(&set.metadata);
    warnings.extend(pod.spec.as_ref().map(template_warnings).unwrap_or_default());
    let (spec, kubelet) = stateful_set_spec(set, pod);
    warn(doc, prefix, warnings, kubelet, problems);
    Some(spec)
}

/// `SetDefaults_StatefulSet`: OrderedReady; RollingUpdate, with an empty
/// `rollingUpdate` only when the type was empty, and partition 0 in any
/// `rollingUpdate`; Retain/Retain; 1 replica; 10 revisions kept.
/// `maxUnavailable` has no default (the controller uses 1).
pub fn set_defaults_stateful_set(set: &mut StatefulSet) {
    let spec = &mut set.spec;
    if spec.pod_management_policy.as_deref().unwrap_or("").is_empty() {
        spec.pod_management_policy = Some("OrderedReady".into());
    }
    let strategy = spec.update_strategy.get_or_insert_with(StatefulSetUpdateStrategy::default);
    if strategy.type_.as_deref().unwrap_or("").is_empty() {
        strategy.type_ = Some("RollingUpdate".into());
        strategy.rolling_update.get_or_insert_with(RollingUpdateStatefulSetStrategy::default);
    }
    if strategy.type_.as_deref() == Some("RollingUpdate")
        && let Some(rolling) = strategy.rolling_update.as_mut()
    {
        rolling.partition.get_or_insert(0);
    }
    let policy = spec
        .persistent_volume_claim_retention_policy
        .get_or_insert_with(StatefulSetPersistentVolumeClaimRetentionPolicy::default);
    policy.when_deleted.get_or_insert_with(|| "Retain".into());
    policy.when_scaled.get_or_insert_with(|| "Retain".into());
    spec.replicas.get_or_insert(1);
    spec.revision_history_limit.get_or_insert(10);
    for claim in spec.volume_claim_templates.iter_mut().flatten() {
        // SetDefaults_PersistentVolumeClaimSpec
        claim.spec.get_or_insert_default().volume_mode.get_or_insert_with(|| "Filesystem".into());
    }
}

/// `ValidateStatefulSet` of a defaulted StatefulSet; `selector_written` is
/// false when the manifest writes none (Go's nil).
pub fn validate_stateful_set(set: &StatefulSet, selector_written: bool) -> Vec<FieldError> {
    let mut errs = Errors::new();
    validate_name(set, &mut errs);
    let spec = &set.spec;
    match spec.pod_management_policy.as_deref().unwrap_or("") {
        "" => errs.push(FieldError::required("spec.podManagementPolicy", "")),
        "OrderedReady" | "Parallel" => {}
        other => errs.push(FieldError::invalid(
            "spec.podManagementPolicy",
            format!("{other:?}"),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    validate_update_strategy(spec.update_strategy.as_ref(), &mut errs);
    if let Some(policy) = &spec.persistent_volume_claim_retention_policy {
        for (field, value) in [("whenDeleted", &policy.when_deleted), ("whenScaled", &policy.when_scaled)] {
            let path = format!("spec.persistentVolumeClaimRetentionPolicy.{field}");
            let value = value.as_deref().unwrap_or("");
            if !matches!(value, "Retain" | "Delete") {
                errs.push(FieldError::not_supported(path, value, &["Retain", "Delete"]));
            }
        }
    }
    nonnegative("spec.replicas", spec.replicas, &mut errs);
    nonnegative("spec.minReadySeconds", spec.min_ready_seconds, &mut errs);
    if let Some(ordinals) = &spec.ordinals {
        nonnegative("spec.ordinals.start", ordinals.start, &mut errs);
    }
    // PR #130233 (1.33): a non-empty serviceName must be a DNS-1123 label.
    let service = spec.service_name.as_deref().unwrap_or("");
    if !service.is_empty() {
        invalid_each("spec.serviceName", service, &dns1123_label_errors(service), &mut errs);
    }
    let selector = &spec.selector;
    let mut parses = true;
    match selector_written {
        false => errs.push(FieldError::required("spec.selector", "")),
        true => {
            let mut selector_errs = Errors::new();
            validate_selector(selector, "spec.selector", &mut selector_errs);
            parses = selector_errs.is_empty();
            errs.extend(selector_errs);
            if is_empty(selector) {
                let detail = "empty selector is invalid for statefulset";
                errs.push(FieldError::invalid("spec.selector", go_string(selector), detail));
            }
        }
    }
    // ValidatePodTemplateSpecForStatefulSet: a nil selector selects nothing,
    // an empty one is not checked against the labels.
    let meta = spec.template.metadata.clone().unwrap_or_default();
    let labels = meta.labels.as_ref();
    match parses {
        false => errs.push(FieldError::invalid("spec.selector", go_string(selector), "")),
        true if selector_written && !is_empty(selector) && !matches(selector, labels) => {
            let detail = "`selector` does not match template `labels`";
            errs.push(FieldError::invalid("spec.template.metadata.labels", go_map(labels), detail));
        }
        true => {}
    }
    validate_labels(labels, "spec.template.labels", &mut errs);
    let template = spec.template.spec.clone().unwrap_or_default();
    let restart_policy = template.restart_policy.as_deref().unwrap_or("");
    if restart_policy != "Always" {
        errs.push(FieldError::not_supported("spec.template.spec.restartPolicy", restart_policy, &["Always"]));
    }
    if template.active_deadline_seconds.is_some() {
        let detail = "activeDeadlineSeconds in StatefulSet is not Supported";
        errs.push(FieldError::forbidden("spec.template.spec.activeDeadlineSeconds", detail));
    }
    errs
}

/// `ValidateObjectMeta` with `ValidateStatefulSetName` (`NameIsDNSLabel`):
/// the pods' hostnames are the set's name and an ordinal.
fn validate_name(set: &StatefulSet, errs: &mut Errors) {
    let name = set.metadata.name.clone().unwrap_or_default();
    let mut meta = set.metadata.clone();
    if !name.is_empty() {
        invalid_each("metadata.name", &name, &dns1123_label_errors(&name), errs);
        // The rest of the metadata is checked as any workload's.
        meta.name = Some("x".into());
    }
    validate_object_meta(&meta, errs);
}

/// The `updateStrategy` part of `ValidateStatefulSetSpec`.
fn validate_update_strategy(strategy: Option<&StatefulSetUpdateStrategy>, errs: &mut Errors) {
    let strategy = strategy.cloned().unwrap_or_default();
    let rolling = strategy.rolling_update.as_ref();
    match strategy.type_.as_deref().unwrap_or("") {
        "" => errs.push(FieldError::required("spec.updateStrategy", "")),
        "OnDelete" => {
            if let Some(r) = rolling {
                let value = format!("{r:?}");
                let detail = "only allowed for updateStrategy 'RollingUpdate'";
                errs.push(FieldError::invalid("spec.updateStrategy.rollingUpdate", value, detail));
            }
        }
        "RollingUpdate" => {
            if let Some(r) = rolling {
                validate_rolling_update(r, errs);
            }
        }
        other => {
            // Go prints the strategy with %v; the rollingUpdate pointer's address cannot be known.
            let pointer = if rolling.is_some() { "0xc000…" } else { "nil" };
            let value = format!(
                "apps.StatefulSetUpdateStrategy{{Type:{other:?}, RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)({pointer})}}"
            );
            errs.push(FieldError::invalid("spec.updateStrategy", value, "must be 'RollingUpdate' or 'OnDelete'"));
        }
    }
}

/// `validateRollingUpdateStatefulSet`: a non-negative partition; a
/// maxUnavailable that is a positive int or a percent of at most 100.
fn validate_rolling_update(r: &RollingUpdateStatefulSetStrategy, errs: &mut Errors) {
    let path = "spec.updateStrategy.rollingUpdate";
    nonnegative(&format!("{path}.partition"), r.partition, errs);
    if let Some(mu) = &r.max_unavailable {
        let at = format!("{path}.maxUnavailable");
        validate_int_or_percent(mu, &at, errs);
        let zero = match mu {
            IntOrString::Int(n) => *n == 0,
            IntOrString::String(_) => percent(mu) == Some(0),
        };
        if zero {
            errs.push(FieldError::invalid(&at, shown(mu), "cannot be 0"));
        }
        if percent(mu).is_some_and(|p| p > 100) {
            errs.push(FieldError::invalid(&at, shown(mu), "must not be greater than 100%"));
        }
    }
}

/// `ValidateNonnegativeField` of a field that is set.
fn nonnegative(path: &str, value: Option<i32>, errs: &mut Errors) {
    if let Some(v) = value.filter(|v| *v < 0) {
        errs.push(FieldError::invalid(path, v, NEGATIVE));
    }
}

/// What the pod the template makes fails of the Pod validation, with the
/// claim volumes the controller adds (`updateStorage`): every creation would
/// fail (`FailedCreate`), which podsim does not simulate.
fn template_pod_errors(set: &StatefulSet, pod: &Pod) -> Vec<FieldError> {
    let mut pod = pod.clone();
    let name = set.metadata.name.clone().unwrap_or_default();
    pod.metadata.name = Some(format!("{name}-0"));
    with_claim_volumes(&mut pod, set, &format!("{name}-0"));
    let errors = validate_pod(&pod).into_iter().filter(|e| !e.path.starts_with("metadata."));
    errors
        .map(|e| FieldError {
            path: format!("spec.template.{}", e.path),
            body: format!(
                "{}: every pod created from this template would be refused (FailedCreate): failed pod creations are not simulated",
                e.body
            ),
        })
        .collect()
}

/// `updateStorage`: a volume per claim template, named after it, with the
/// claim `<template>-<pod>`; it replaces a template volume of that name.
pub fn with_claim_volumes(pod: &mut Pod, set: &StatefulSet, pod_name: &str) {
    let templates = set.spec.volume_claim_templates.as_deref().unwrap_or_default();
    if templates.is_empty() {
        return;
    }
    let spec = pod.spec.get_or_insert_default();
    let mut volumes: Vec<Volume> = Vec::new();
    for t in templates {
        let tpl = t.metadata.name.clone().unwrap_or_default();
        volumes.push(Volume {
            name: tpl.clone(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                claim_name: format!("{tpl}-{pod_name}"),
                read_only: Some(false),
            }),
            ..Volume::default()
        });
    }
    let others: Vec<Volume> =
        (spec.volumes.take().into_iter().flatten()).filter(|v| !volumes.iter().any(|c| c.name == v.name)).collect();
    volumes.extend(others);
    spec.volumes = Some(volumes);
}

/// The claim templates need a name, access modes and a storage request, as
/// a claim does (`ValidatePersistentVolumeClaimSpec`); podsim reads no
/// other claim field (a selector or data source would change provisioning).
fn claim_template_findings(set: &StatefulSet) -> Vec<(String, Severity, String)> {
    let mut out = Vec::new();
    for (i, t) in set.spec.volume_claim_templates.iter().flatten().enumerate() {
        let at = |f: &str| format!("spec.volumeClaimTemplates[{i}].{f}");
        if t.metadata.name.as_deref().unwrap_or("").is_empty() {
            out.push((at("metadata.name"), Severity::Error, "Required value: name is required".to_string()));
        }
        let spec = t.spec.clone().unwrap_or_default();
        if spec.access_modes.as_ref().is_none_or(Vec::is_empty) {
            let m = "Required value: at least 1 access mode is required".to_string();
            out.push((at("spec.accessModes"), Severity::Error, m));
        }
        let storage = spec.resources.as_ref().and_then(|r| r.requests.as_ref()).and_then(|r| r.get("storage"));
        if storage.is_none() {
            let m = "Required value: the storage request (spec.resources[storage]) is required".to_string();
            out.push((at("spec.resources.requests"), Severity::Error, m));
        }
        if spec.selector.is_some() || spec.data_source.is_some() || spec.data_source_ref.is_some() {
            let m = "claim selectors and data sources are not simulated: the claim is provisioned empty".to_string();
            out.push((at("spec"), Severity::Warning, m));
        }
    }
    out
}

/// Builds the typed StatefulSet, with the kubelet warnings of its template's pod.
fn stateful_set_spec(set: StatefulSet, pod: Pod) -> (StatefulSetSpec, Vec<(String, String)>) {
    let spec = &set.spec;
    let (template, warnings) = build::pod_template(&spec.template, pod);
    let strategy = spec.update_strategy.clone().unwrap_or_default();
    let update_strategy = match strategy.type_.as_deref() {
        Some("OnDelete") => UpdateStrategy::OnDelete,
        _ => UpdateStrategy::RollingUpdate {
            rolling: strategy.rolling_update.map(|r| Rolling {
                partition: count(r.partition),
                max_unavailable: r.max_unavailable.as_ref().map(|v| build::int_or_percent(Some(v))),
            }),
        },
    };
    let policy = spec.persistent_volume_claim_retention_policy.clone().unwrap_or_default();
    let retention = |v: Option<&str>| if v == Some("Delete") { Retention::Delete } else { Retention::Retain };
    let claim_templates = spec
        .volume_claim_templates
        .iter()
        .flatten()
        .map(|t| {
            let s = t.spec.clone().unwrap_or_default();
            let storage = s.resources.and_then(|r| r.requests).and_then(|r| r.get("storage").map(|q| q.0.clone()));
            ClaimTemplate {
                name: Arc::from(t.metadata.name.clone().unwrap_or_default()),
                storage_class: s.storage_class_name.map(Arc::from),
                access_modes: s.access_modes.unwrap_or_default().into_iter().map(Arc::from).collect(),
                storage: Arc::from(storage.unwrap_or_default()),
                volume_mode: Arc::from(s.volume_mode.unwrap_or_else(|| "Filesystem".into())),
                binding: crate::spec::BindingMode::WaitForFirstConsumer,
            }
        })
        .collect();
    let built = StatefulSetSpec {
        name: set.metadata.name.clone().unwrap_or_default(),
        namespace: set.metadata.namespace.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "default".into()),
        labels: set.metadata.labels.clone().unwrap_or_default(),
        replicas: count(spec.replicas),
        selector: spec.selector.match_labels.clone().unwrap_or_default(),
        template,
        service_name: spec.service_name.clone().unwrap_or_default(),
        pod_management: match spec.pod_management_policy.as_deref() {
            Some("Parallel") => PodManagement::Parallel,
            _ => PodManagement::OrderedReady,
        },
        update_strategy,
        min_ready_seconds: count(spec.min_ready_seconds),
        revision_history_limit: spec.revision_history_limit.unwrap_or(10),
        start: count(spec.ordinals.as_ref().and_then(|o| o.start)),
        claim_templates,
        when_deleted: retention(policy.when_deleted.as_deref()),
        when_scaled: retention(policy.when_scaled.as_deref()),
        object: set,
    };
    (built, warnings)
}

/// A validated non-negative count.
fn count(value: Option<i32>) -> u32 {
    u32::try_from(value.unwrap_or(0)).unwrap_or(0)
}
