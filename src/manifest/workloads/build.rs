//! From a defaulted, valid Deployment or ReplicaSet to the simulator's
//! [`DeploymentSpec`] and [`ReplicaSetSpec`].

use super::validation::percent;
use crate::manifest::build::pod_spec;
use crate::spec::{DeploymentSpec, IntOrPercent, PodTemplate, ReplicaSetSpec, Strategy};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

/// `progressDeadlineSeconds` that means no deadline (`math.MaxInt32`).
const NO_DEADLINE: i32 = i32::MAX;

type Warnings = Vec<(String, String)>;

/// Builds the typed Deployment, with the kubelet warnings of its template's pod.
pub fn deployment_spec(d: Deployment, pod: Pod) -> (DeploymentSpec, Warnings) {
    let spec = &d.spec;
    let (template, warnings) = pod_template(&spec.template, pod);
    let strategy = spec.strategy.clone().unwrap_or_default();
    let strategy = match (strategy.type_.as_deref(), strategy.rolling_update) {
        (Some("Recreate"), _) => Strategy::Recreate,
        (_, rolling) => {
            let rolling = rolling.unwrap_or_default();
            Strategy::RollingUpdate {
                max_surge: int_or_percent(rolling.max_surge.as_ref()),
                max_unavailable: int_or_percent(rolling.max_unavailable.as_ref()),
            }
        }
    };
    let built = DeploymentSpec {
        name: d.metadata.name.clone().unwrap_or_default(),
        namespace: namespace(&d.metadata),
        labels: d.metadata.labels.clone().unwrap_or_default(),
        annotations: d.metadata.annotations.clone().unwrap_or_default(),
        replicas: count(spec.replicas),
        selector: match_labels(&spec.selector),
        template,
        strategy,
        min_ready_seconds: count(spec.min_ready_seconds),
        revision_history_limit: count(spec.revision_history_limit),
        progress_deadline_seconds: spec.progress_deadline_seconds.filter(|s| *s != NO_DEADLINE).map(|s| count(Some(s))),
        paused: spec.paused.unwrap_or(false),
        object: d,
    };
    (built, warnings)
}

/// Builds the typed ReplicaSet, with the kubelet warnings of its template's pod.
pub fn replica_set_spec(rs: ReplicaSet, pod: Pod) -> (ReplicaSetSpec, Warnings) {
    let spec = &rs.spec;
    let (template, warnings) = pod_template(&spec.template.clone().unwrap_or_default(), pod);
    let built = ReplicaSetSpec {
        name: rs.metadata.name.clone().unwrap_or_default(),
        namespace: namespace(&rs.metadata),
        labels: rs.metadata.labels.clone().unwrap_or_default(),
        replicas: count(spec.replicas),
        selector: match_labels(&spec.selector),
        template,
        min_ready_seconds: count(spec.min_ready_seconds),
        object: rs,
    };
    (built, warnings)
}

/// The template, with its pod built as a manifest Pod is; the warnings' paths are under `spec.template.`.
pub(super) fn pod_template(object: &PodTemplateSpec, pod: Pod) -> (PodTemplate, Warnings) {
    let (pod, warnings) = pod_spec(pod);
    let meta = object.metadata.clone().unwrap_or_default();
    let template = PodTemplate {
        labels: meta.labels.unwrap_or_default(),
        annotations: meta.annotations.unwrap_or_default(),
        pod,
        object: object.clone(),
    };
    let warnings = warnings.into_iter().map(|(path, message)| (format!("spec.template.{path}"), message)).collect();
    (template, warnings)
}

pub(super) fn namespace(meta: &ObjectMeta) -> String {
    meta.namespace.clone().filter(|ns| !ns.is_empty()).unwrap_or_else(|| "default".to_string())
}

pub(super) fn match_labels(selector: &LabelSelector) -> BTreeMap<String, String> {
    selector.match_labels.clone().unwrap_or_default()
}

/// A validated non-negative count.
pub(super) fn count(value: Option<i32>) -> u32 {
    u32::try_from(value.unwrap_or(0)).unwrap_or(0)
}

/// A validated `maxSurge` or `maxUnavailable`.
pub(super) fn int_or_percent(value: Option<&IntOrString>) -> IntOrPercent {
    match value {
        Some(v @ IntOrString::String(_)) => {
            IntOrPercent::Percent(percent(v).map_or(0, |p| u32::try_from(p).unwrap_or(u32::MAX)))
        }
        Some(IntOrString::Int(n)) => IntOrPercent::Int(count(Some(*n))),
        None => IntOrPercent::Int(0),
    }
}
