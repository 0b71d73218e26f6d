//! DaemonSets (apps/v1) as the simulator runs them: defaulted and validated
//! by `manifest::workloads::daemonset`, so the DaemonSet controller only
//! sees complete specs.

use super::{IntOrPercent, PodTemplate};
use k8s_openapi::api::apps::v1::DaemonSet;
use std::collections::BTreeMap;

/// `spec.updateStrategy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DaemonStrategy {
    /// A pod is replaced only when a user deletes it.
    OnDelete,
    /// Validation allows exactly one of the two to be non-zero.
    RollingUpdate { max_unavailable: IntOrPercent, max_surge: IntOrPercent },
}

/// A DaemonSet.
#[derive(Clone, Debug)]
pub struct DaemonSetSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// `spec.selector.matchLabels` (matchExpressions are not simulated).
    pub selector: BTreeMap<String, String>,
    pub template: PodTemplate,
    pub strategy: DaemonStrategy,
    pub min_ready_seconds: u32,
    pub revision_history_limit: u32,
    pub object: DaemonSet,
}

impl DaemonSetSpec {
    /// The template's pod spec as written (its tolerations without the
    /// admission defaults a Pod would get).
    pub fn pod_spec(&self) -> k8s_openapi::api::core::v1::PodSpec {
        self.template.object.spec.clone().unwrap_or_default()
    }
}
