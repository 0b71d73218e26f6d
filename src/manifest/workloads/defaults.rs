//! API-server defaulting of Deployments and ReplicaSets (pkg/apis/apps/v1/defaults.go)
//! and of their pod template.
//!
//! The template gets the defaults of a pod spec and its containers
//! (`SetDefaults_PodSpec`, `SetDefaults_Container`, …), but not those of
//! `SetDefaults_Pod` (requests from limits, `enableServiceLinks`, host-network
//! ports: "only on a v1.Pod and not a v1.PodTemplate"), nor what the admission
//! plugins add to a pod on create (service account, priority, default
//! tolerations). The pods the ReplicaSet controller creates get all of them.

use crate::manifest::defaults::apply_defaults;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentStrategy, ReplicaSet, RollingUpdateDeployment};
use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// `SetDefaults_Deployment`: replicas 1, strategy RollingUpdate with 25%/25%
/// (a Recreate strategy keeps what is written), 10 old ReplicaSets kept, a
/// 600 s progress deadline. `minReadySeconds` and `paused` have no default.
pub fn set_defaults_deployment(d: &mut Deployment) {
    let spec = &mut d.spec;
    spec.replicas.get_or_insert(1);
    let strategy = spec.strategy.get_or_insert_with(DeploymentStrategy::default);
    if strategy.type_.as_deref().unwrap_or("").is_empty() {
        strategy.type_ = Some("RollingUpdate".to_string());
    }
    if strategy.type_.as_deref() == Some("RollingUpdate") {
        let rolling = strategy.rolling_update.get_or_insert_with(RollingUpdateDeployment::default);
        rolling.max_unavailable.get_or_insert_with(|| IntOrString::String("25%".to_string()));
        rolling.max_surge.get_or_insert_with(|| IntOrString::String("25%".to_string()));
    }
    spec.revision_history_limit.get_or_insert(10);
    spec.progress_deadline_seconds.get_or_insert(600);
}

/// `SetDefaults_ReplicaSet`: replicas 1.
pub fn set_defaults_replica_set(rs: &mut ReplicaSet) {
    rs.spec.replicas.get_or_insert(1);
}

/// The pod the ReplicaSet controller makes from `template` in `namespace`
/// (`GetPodFromTemplate`: the labels, annotations, finalizers and spec; the
/// name is left to the controller), defaulted and admitted as on create.
/// `template` itself gets the defaults the API server gives a template.
pub fn template_pod(template: &mut PodTemplateSpec, namespace: Option<String>) -> Pod {
    let meta = template.metadata.clone().unwrap_or_default();
    let mut pod = Pod {
        metadata: ObjectMeta {
            namespace: namespace.filter(|ns| !ns.is_empty()),
            labels: meta.labels,
            annotations: meta.annotations,
            finalizers: meta.finalizers,
            ..ObjectMeta::default()
        },
        spec: template.spec.clone(),
        status: None,
    };
    apply_defaults(&mut pod);
    let written = template.spec.take().unwrap_or_default();
    let mut spec = pod.spec.clone().unwrap_or_default();
    keep_pod_only_fields_as_written(&mut spec, &written);
    template.spec = Some(spec);
    pod
}

/// Puts back, in a defaulted template spec, the fields that only a pod gets.
fn keep_pod_only_fields_as_written(spec: &mut PodSpec, written: &PodSpec) {
    // SetDefaults_Pod
    spec.enable_service_links = written.enable_service_links;
    let containers = spec.containers.iter_mut().chain(spec.init_containers.iter_mut().flatten());
    let written_containers = written.containers.iter().chain(written.init_containers.iter().flatten());
    for (c, w) in containers.zip(written_containers) {
        keep_container_as_written(c, w);
    }
    // the admission plugins; the v1 conversion still mirrors a written
    // serviceAccountName into the deprecated serviceAccount
    let account = [&written.service_account_name, &written.service_account]
        .into_iter()
        .flatten()
        .find(|s| !s.is_empty())
        .cloned();
    spec.service_account_name = account.clone();
    spec.service_account = account;
    spec.priority = written.priority;
    spec.preemption_policy = written.preemption_policy.clone();
    spec.tolerations = written.tolerations.clone();
}

/// `SetDefaults_Pod` on one container: requests from limits and host-network ports.
fn keep_container_as_written(c: &mut Container, written: &Container) {
    c.resources = written.resources.clone();
    for (port, w) in c.ports.iter_mut().flatten().zip(written.ports.iter().flatten()) {
        port.host_port = w.host_port;
    }
}
