//! PodDisruptionBudgets (policy/v1) as the simulator runs them: validated
//! by `manifest::disruption`, so the disruption controller and the Eviction
//! API only see complete specs.

use super::IntOrPercent;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `spec.minAvailable` or `spec.maxUnavailable`: the API server refuses
/// both at once (`ValidatePodDisruptionBudgetSpec`), so a budget has one
/// or neither.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Budget {
    MinAvailable(IntOrPercent),
    MaxUnavailable(IntOrPercent),
}

/// `spec.unhealthyPodEvictionPolicy` (GA in 1.31): whether a pod that is
/// not Ready may be evicted when the budget is not healthy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnhealthyPodEvictionPolicy {
    /// The default (an unset field behaves the same): only while
    /// `currentHealthy >= desiredHealthy > 0`.
    IfHealthyBudget,
    /// Always, without touching the budget.
    AlwaysAllow,
}

impl UnhealthyPodEvictionPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            UnhealthyPodEvictionPolicy::IfHealthyBudget => "IfHealthyBudget",
            UnhealthyPodEvictionPolicy::AlwaysAllow => "AlwaysAllow",
        }
    }
}

/// A PodDisruptionBudget of the manifests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdbSpec {
    pub name: Arc<str>,
    pub namespace: Arc<str>,
    pub labels: BTreeMap<String, String>,
    /// `spec.selector.matchLabels`, not empty (an empty or absent
    /// selector is refused as unsupported).
    pub selector: BTreeMap<String, String>,
    pub budget: Option<Budget>,
    /// `None`: the field is unset (which behaves as `IfHealthyBudget`).
    pub unhealthy_pod_eviction_policy: Option<UnhealthyPodEvictionPolicy>,
}

impl PdbSpec {
    /// Whether the budget covers a pod with these labels in `namespace`.
    pub fn selects(&self, namespace: &str, labels: &BTreeMap<String, String>) -> bool {
        *self.namespace == *namespace && self.selector.iter().all(|(k, v)| labels.get(k) == Some(v))
    }

    /// The policy in force (`IfHealthyBudget` when unset).
    pub fn unhealthy_policy(&self) -> UnhealthyPodEvictionPolicy {
        self.unhealthy_pod_eviction_policy.unwrap_or(UnhealthyPodEvictionPolicy::IfHealthyBudget)
    }
}
