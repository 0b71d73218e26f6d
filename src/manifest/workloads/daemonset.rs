//! DaemonSet (apps/v1) manifests, read as the API server creates them:
//! decoded strictly, defaulted (`SetDefaults_DaemonSet`), validated
//! (daemonset_validation.rs), checked for what podsim does not simulate,
//! and typed.

use super::build::{count, int_or_percent, match_labels, namespace, pod_template};
use super::daemonset_validation::validate_daemon_set;
use super::{decode, quantities_decode, quantities_valid, report, selector_written, template_warnings, warn};
use crate::error::Problem;
use crate::manifest::unsupported::{Finding, warning};
use crate::source::Doc;
use crate::spec::daemonset::{DaemonSetSpec, DaemonStrategy};
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetUpdateStrategy, RollingUpdateDaemonSet};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

/// Reads the DaemonSet `json` found at `prefix` of `doc`; its problems go to `problems`.
pub fn read_daemon_set(doc: &Doc, json: Value, prefix: &str, problems: &mut Vec<Problem>) -> Option<DaemonSetSpec> {
    let mut ds: DaemonSet = decode(doc, &json, prefix, problems)?;
    let template = ds.spec.template.spec.as_ref();
    quantities_decode(doc, prefix, template, "DaemonSet", problems)?;
    set_defaults_daemon_set(&mut ds);
    let namespace = ds.metadata.namespace.clone();
    let pod = super::defaults::template_pod(&mut ds.spec.template, namespace);
    let selector = selector_written(&json).then(|| ds.spec.selector.clone());
    let errors = validate_daemon_set(&ds, selector.as_ref(), &pod);
    let status = ds.status.as_ref().is_some_and(|s| s != &Default::default());
    let findings = unsupported(&ds, selector.as_ref(), status, &pod);
    let reported = report(doc, prefix, errors, findings, problems);
    if !(quantities_valid(doc, prefix, &pod, problems) && reported) {
        return None;
    }
    let mut warnings = super::warnings::warnings_on_create(&ds.metadata);
    warnings.extend(pod.spec.as_ref().map(template_warnings).unwrap_or_default());
    let (spec, kubelet) = daemon_set_spec(ds, pod);
    warn(doc, prefix, warnings, kubelet, problems);
    Some(spec)
}

/// `SetDefaults_DaemonSet` (pkg/apis/apps/v1/defaults.go): the template's
/// labels as the DaemonSet's when it has none, updateStrategy RollingUpdate
/// with maxUnavailable 1 and maxSurge 0, 10 old revisions kept.
pub fn set_defaults_daemon_set(ds: &mut DaemonSet) {
    let template_labels = ds.spec.template.metadata.as_ref().and_then(|m| m.labels.clone());
    if let Some(labels) = template_labels
        && ds.metadata.labels.as_ref().is_none_or(|l| l.is_empty())
    {
        ds.metadata.labels = Some(labels);
    }
    let spec = &mut ds.spec;
    let strategy = spec.update_strategy.get_or_insert_with(DaemonSetUpdateStrategy::default);
    if strategy.type_.as_deref().unwrap_or("").is_empty() {
        strategy.type_ = Some("RollingUpdate".to_string());
    }
    if strategy.type_.as_deref() == Some("RollingUpdate") {
        let rolling = strategy.rolling_update.get_or_insert_with(RollingUpdateDaemonSet::default);
        rolling.max_unavailable.get_or_insert(IntOrString::Int(1));
        rolling.max_surge.get_or_insert(IntOrString::Int(0));
    }
    spec.revision_history_limit.get_or_insert(10);
}

/// What podsim does not simulate of a DaemonSet: the metadata and selector
/// findings of every workload, and in the template what the Pod check
/// finds — except the node selector and required node affinity, which the
/// DaemonSet controller reads to choose its nodes.
fn unsupported(
    ds: &DaemonSet,
    selector: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    status: bool,
    pod: &Pod,
) -> Vec<Finding> {
    let affinity = pod.spec.as_ref().and_then(|s| s.affinity.as_ref());
    let only_required_nodes = affinity.is_some_and(|a| {
        a.pod_affinity.is_none()
            && a.pod_anti_affinity.is_none()
            && a.node_affinity.as_ref().is_none_or(|n| n.preferred_during_scheduling_ignored_during_execution.is_none())
    });
    let mut out: Vec<Finding> = super::unsupported::check(&ds.metadata, selector, status, pod)
        .into_iter()
        .filter(|(path, _, _)| match path.as_str() {
            "spec.template.spec.nodeSelector" => false,
            "spec.template.spec.affinity" => !only_required_nodes,
            _ => true,
        })
        .collect();
    if let Some(f) = out.iter_mut().find(|(p, _, _)| p == "spec.template.spec.affinity") {
        *f = warning(
            f.0.clone(),
            "only required node affinity is modelled (the DaemonSet controller chooses its nodes by it): preferred terms and pod (anti-)affinity are left out",
        );
    }
    out
}

/// Builds the typed DaemonSet, with the kubelet warnings of its template's pod.
fn daemon_set_spec(ds: DaemonSet, pod: Pod) -> (DaemonSetSpec, Vec<(String, String)>) {
    let spec = ds.spec.clone();
    let (template, warnings) = pod_template(&spec.template, pod);
    let strategy = spec.update_strategy.clone().unwrap_or_default();
    let strategy = match (strategy.type_.as_deref(), strategy.rolling_update) {
        (Some("OnDelete"), _) => DaemonStrategy::OnDelete,
        (_, rolling) => {
            let rolling = rolling.unwrap_or_default();
            DaemonStrategy::RollingUpdate {
                max_unavailable: int_or_percent(rolling.max_unavailable.as_ref()),
                max_surge: int_or_percent(rolling.max_surge.as_ref()),
            }
        }
    };
    let built = DaemonSetSpec {
        name: ds.metadata.name.clone().unwrap_or_default(),
        namespace: namespace(&ds.metadata),
        labels: ds.metadata.labels.clone().unwrap_or_default(),
        annotations: ds.metadata.annotations.clone().unwrap_or_default(),
        selector: match_labels(&spec.selector),
        template,
        strategy,
        min_ready_seconds: count(spec.min_ready_seconds),
        revision_history_limit: count(spec.revision_history_limit),
        object: ds,
    };
    (built, warnings)
}
