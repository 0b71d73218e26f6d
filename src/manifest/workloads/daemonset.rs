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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SourceFile;
    use crate::source::parse_documents;
    use crate::spec::IntOrPercent;
    use serde_json::json;
    use std::sync::Arc;

    /// Reads `object` as a DaemonSet: the typed spec, and each problem as `<field>: <message>`.
    fn read(object: Value) -> (Option<DaemonSetSpec>, Vec<String>) {
        let file = Arc::new(SourceFile { name: "ds.yaml".into(), text: object.to_string() });
        let d = parse_documents(&file).expect("parses").remove(0);
        let mut problems = Vec::new();
        let spec = read_daemon_set(&d, d.to_json(), "", &mut problems);
        (spec, problems.iter().map(|p| format!("{}: {}", p.field.as_deref().unwrap_or("-"), p.message)).collect())
    }

    fn ds(spec: Value) -> Value {
        let mut base = json!({
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "agent", "image": "agent:1"}]}},
        });
        if let (Some(b), Some(s)) = (base.as_object_mut(), spec.as_object()) {
            b.extend(s.clone());
        }
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"}, "spec": base})
    }

    /// `SetDefaults_DaemonSet`: RollingUpdate, maxUnavailable 1, maxSurge 0, 10 revisions.
    #[test]
    fn defaults() {
        let (spec, problems) = read(ds(json!({})));
        assert_eq!(problems, Vec::<String>::new());
        let spec = spec.unwrap();
        let rolling =
            DaemonStrategy::RollingUpdate { max_unavailable: IntOrPercent::Int(1), max_surge: IntOrPercent::Int(0) };
        assert_eq!(spec.strategy, rolling);
        assert_eq!(spec.revision_history_limit, 10);
        assert_eq!(spec.labels.get("app").map(String::as_str), Some("agent"), "the template's labels");
        let (spec, _) = read(ds(json!({"updateStrategy": {"type": "OnDelete"}})));
        assert_eq!(spec.unwrap().strategy, DaemonStrategy::OnDelete);
    }

    /// `ValidateDaemonSetSpec` and `ValidateRollingUpdateDaemonSet`, message by message.
    #[test]
    fn validation_messages() {
        let errors = |spec: Value| read(ds(spec)).1;
        assert_eq!(
            errors(json!({"updateStrategy": {"rollingUpdate": {"maxSurge": 1}}})),
            [
                "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"
            ]
        );
        assert_eq!(
            errors(json!({"updateStrategy": {"rollingUpdate": {"maxUnavailable": 0}}})),
            ["spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"]
        );
        assert_eq!(
            errors(json!({"updateStrategy": {"rollingUpdate": {"maxUnavailable": "120%"}}})),
            ["spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 120%: must not be greater than 100%"]
        );
        assert_eq!(
            errors(json!({"updateStrategy": {"type": "Recreate"}})),
            [
                "spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:\"Recreate\", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: \"RollingUpdate\", \"OnDelete\""
            ]
        );
        assert_eq!(
            errors(json!({"selector": {"matchLabels": {"app": "other"}}})),
            [
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"agent\"}: `selector` does not match template `labels`"
            ]
        );
        assert_eq!(
            errors(json!({"selector": {}})),
            [
                "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}: empty selector is invalid for daemonset"
            ]
        );
        assert_eq!(
            errors(json!({"minReadySeconds": -1})),
            ["spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"]
        );
        let mut never = ds(json!({}));
        never["spec"]["template"]["spec"]["restartPolicy"] = json!("Never");
        assert_eq!(
            read(never).1,
            ["spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""]
        );
    }

    /// The node selector and required node affinity are the controller's
    /// to read; preferred terms are reported as left out.
    #[test]
    fn placement_is_modelled() {
        let mut selector = ds(json!({}));
        selector["spec"]["template"]["spec"]["nodeSelector"] = json!({"disk": "ssd"});
        assert_eq!(read(selector).1, Vec::<String>::new());
        let mut preferred = ds(json!({}));
        preferred["spec"]["template"]["spec"]["affinity"] = json!({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}
        ]}});
        let problems = read(preferred).1;
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].starts_with("spec.template.spec.affinity: only required node affinity is modelled"),
            "{problems:?}"
        );
    }
}
