//! PodDisruptionBudgets (policy/v1), read as the API server creates them:
//! decoded strictly, validated (`ValidatePodDisruptionBudget`:
//! `ValidateObjectMeta`, then `ValidatePodDisruptionBudgetSpec`,
//! pkg/apis/policy/validation/validation.go, in its order), checked for
//! what podsim does not simulate, then typed.
//!
//! Not simulated (errors): `spec.selector.matchExpressions` (the budget
//! selects by matchLabels), and an absent or empty selector.

use super::field::FieldError;
use super::workloads::{
    decode, percent, selector_written, shown, validate_int_or_percent, validate_object_meta, validate_selector,
};
use super::{Manifests, join};
use crate::error::Problem;
use crate::source::Doc;
use crate::spec::{Budget, IntOrPercent, PdbSpec, UnhealthyPodEvictionPolicy};
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;
use std::sync::Arc;

/// The policies `unhealthyPodEvictionPolicy` takes (`supportedUnhealthyPodEvictionPolicies.List()`, sorted).
const POLICIES: [&str; 2] = ["AlwaysAllow", "IfHealthyBudget"];

/// Reads the PodDisruptionBudget `json` found at `prefix` of `doc`.
pub(super) fn read_pdb(doc: &Doc, json: Value, prefix: &str, out: &mut Manifests, problems: &mut Vec<Problem>) {
    let Some(pdb) = decode::<PodDisruptionBudget>(doc, &json, prefix, problems) else { return };
    let spec = pdb.spec.clone().unwrap_or_default();
    let mut errs = Vec::new();
    validate_object_meta(&pdb.metadata, &mut errs);
    validate_pdb_spec(&spec, &mut errs);
    let mut ok = errs.is_empty();
    for e in errs {
        problems.push(doc.problem(&join(prefix, &e.path), e.body));
    }
    let selector = spec.selector.clone().filter(|_| selector_written(&json));
    let labels = selector.as_ref().and_then(|s| s.match_labels.clone()).unwrap_or_default();
    if selector.as_ref().and_then(|s| s.match_expressions.as_ref()).is_some_and(|e| !e.is_empty()) {
        let message = "podsim selects a budget's pods by spec.selector.matchLabels: matchExpressions are not simulated";
        problems.push(doc.problem(&join(prefix, "spec.selector.matchExpressions"), message));
        ok = false;
    } else if labels.is_empty() {
        let message =
            "podsim needs spec.selector.matchLabels: a budget without a selector or with an empty one is not simulated";
        problems.push(doc.problem(&join(prefix, "spec.selector"), message));
        ok = false;
    }
    let name = pdb.metadata.name.clone().unwrap_or_default();
    if name.is_empty() && pdb.metadata.generate_name.is_some() {
        let message = "podsim needs metadata.name; generateName is not supported";
        problems.push(doc.problem(&join(prefix, "metadata.generateName"), message));
        ok = false;
    }
    if !ok {
        return;
    }
    let namespace = pdb.metadata.namespace.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "default".into());
    if out.pdbs.iter().any(|b| *b.name == *name && *b.namespace == *namespace) {
        let message = format!("poddisruptionbudgets.policy {name:?} already exists");
        problems.push(doc.problem(&join(prefix, "metadata.name"), message));
        return;
    }
    let budget = match (&spec.min_available, &spec.max_unavailable) {
        (Some(v), _) => Some(Budget::MinAvailable(int_or_percent(v))),
        (None, Some(v)) => Some(Budget::MaxUnavailable(int_or_percent(v))),
        (None, None) => None,
    };
    let policy = spec.unhealthy_pod_eviction_policy.as_deref().map(|p| match p {
        "AlwaysAllow" => UnhealthyPodEvictionPolicy::AlwaysAllow,
        _ => UnhealthyPodEvictionPolicy::IfHealthyBudget,
    });
    out.pdbs.push(PdbSpec {
        name: Arc::from(name),
        namespace: Arc::from(namespace),
        labels: pdb.metadata.labels.clone().unwrap_or_default(),
        selector: labels,
        budget,
        unhealthy_pod_eviction_policy: policy,
    });
}

/// `ValidatePodDisruptionBudgetSpec`: not both of minAvailable and
/// maxUnavailable; each a non-negative count or a percent of at most 100 %;
/// a valid selector; a known unhealthyPodEvictionPolicy.
fn validate_pdb_spec(spec: &PodDisruptionBudgetSpec, errs: &mut Vec<FieldError>) {
    if spec.min_available.is_some() && spec.max_unavailable.is_some() {
        errs.push(FieldError::invalid("spec", go_spec(spec), "minAvailable and maxUnavailable cannot be both set"));
    }
    for (path, value) in [("spec.minAvailable", &spec.min_available), ("spec.maxUnavailable", &spec.max_unavailable)] {
        let Some(v) = value else { continue };
        validate_int_or_percent(v, path, errs);
        // `IsNotMoreThan100Percent`.
        if percent(v).is_some_and(|p| p > 100) {
            errs.push(FieldError::invalid(path, shown(v), "must not be greater than 100%"));
        }
    }
    if let Some(s) = &spec.selector {
        validate_selector(s, "spec.selector", errs);
    }
    if let Some(p) = spec.unhealthy_pod_eviction_policy.as_deref().filter(|p| !POLICIES.contains(p)) {
        errs.push(FieldError::not_supported("spec.unhealthyPodEvictionPolicy", p, &POLICIES));
    }
}

/// Go's `%#v` of the spec, as the error prints it; a set pointer's address
/// varies from run to run, shown as `0xc000…`.
fn go_spec(spec: &PodDisruptionBudgetSpec) -> String {
    let pointer = |set: bool, ty: &str| format!("(*{ty})({})", if set { "0xc000…" } else { "nil" });
    format!(
        "policy.PodDisruptionBudgetSpec{{MinAvailable:{}, Selector:{}, MaxUnavailable:{}, UnhealthyPodEvictionPolicy:{}}}",
        pointer(spec.min_available.is_some(), "intstr.IntOrString"),
        pointer(spec.selector.is_some(), "v1.LabelSelector"),
        pointer(spec.max_unavailable.is_some(), "intstr.IntOrString"),
        pointer(spec.unhealthy_pod_eviction_policy.is_some(), "policy.UnhealthyPodEvictionPolicyType"),
    )
}

/// A validated count or percent.
fn int_or_percent(v: &IntOrString) -> IntOrPercent {
    match percent(v) {
        Some(p) => IntOrPercent::Percent(p.clamp(0, 100) as u32),
        None => IntOrPercent::Int(match v {
            IntOrString::Int(n) => (*n).max(0) as u32,
            IntOrString::String(_) => 0,
        }),
    }
}
