//! Deployments and ReplicaSets (apps/v1) as the simulator runs them:
//! defaulted and validated by `manifest::workloads`, so the controllers only
//! ever see complete specs.

use super::PodSpec;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use std::collections::BTreeMap;

/// `maxSurge` / `maxUnavailable`: a count, or a percentage of the replicas
/// (`intstr.IntOrString`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntOrPercent {
    Int(u32),
    Percent(u32),
}

/// `spec.strategy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Every old pod is gone before the new ReplicaSet is scaled up.
    Recreate,
    RollingUpdate {
        max_surge: IntOrPercent,
        max_unavailable: IntOrPercent,
    },
}

/// `spec.template`: the pods a ReplicaSet creates.
#[derive(Clone, Debug)]
pub struct PodTemplate {
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// The template's pod, built as a manifest Pod would be (its name is
    /// empty: the ReplicaSet controller names each pod).
    pub pod: PodSpec,
    /// The defaulted template, for equality (`EqualIgnoreHash`) and hashing.
    pub object: PodTemplateSpec,
}

/// Two templates are the same when their API objects are (the built pod
/// follows from the object).
impl PartialEq for PodTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.object == other.object
    }
}

/// A ReplicaSet written in the manifests (not owned by a Deployment).
#[derive(Clone, Debug)]
pub struct ReplicaSetSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub replicas: u32,
    /// `spec.selector.matchLabels` (matchExpressions are not simulated).
    pub selector: BTreeMap<String, String>,
    pub template: PodTemplate,
    pub min_ready_seconds: u32,
    pub object: ReplicaSet,
}

/// A Deployment.
#[derive(Clone, Debug)]
pub struct DeploymentSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub replicas: u32,
    /// `spec.selector.matchLabels` (matchExpressions are not simulated).
    pub selector: BTreeMap<String, String>,
    pub template: PodTemplate,
    pub strategy: Strategy,
    pub min_ready_seconds: u32,
    pub revision_history_limit: u32,
    /// `progressDeadlineSeconds`; `None` when it is `math.MaxInt32` (no deadline).
    pub progress_deadline_seconds: Option<u32>,
    pub paused: bool,
    pub object: Deployment,
}

impl DeploymentSpec {
    /// `kubectl scale --replicas=N`: the same Deployment with another size.
    pub fn with_replicas(&self, replicas: u32) -> DeploymentSpec {
        let mut d = self.clone();
        d.replicas = replicas;
        d.object.spec.replicas = Some(replicas as i32);
        d
    }

    /// `kubectl rollout undo`: the same Deployment with a ReplicaSet's template
    /// (its `pod-template-hash` label removed by the caller).
    pub fn with_template(&self, template: PodTemplate) -> DeploymentSpec {
        let mut d = self.clone();
        d.object.spec.template = template.object.clone();
        d.template = template;
        d
    }
}
