//! PodDisruptionBudgets as the API server returns them (policy/v1).

use super::render::Clock;
use crate::api::disruption::ApiPdb;
use crate::spec::{Budget, IntOrPercent};
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

fn int_or_string(v: IntOrPercent) -> IntOrString {
    match v {
        IntOrPercent::Int(n) => IntOrString::Int(n as i32),
        IntOrPercent::Percent(p) => IntOrString::String(format!("{p}%")),
    }
}

/// The PodDisruptionBudget object: its spec as created, the status last written.
pub fn pdb(b: &ApiPdb, clock: &Clock) -> policy::PodDisruptionBudget {
    let s = &b.spec;
    let st = &b.status;
    let (min_available, max_unavailable) = match s.budget {
        Some(Budget::MinAvailable(v)) => (Some(int_or_string(v)), None),
        Some(Budget::MaxUnavailable(v)) => (None, Some(int_or_string(v))),
        None => (None, None),
    };
    let conditions = st.condition.as_ref().map(|c| {
        vec![Condition {
            type_: "DisruptionAllowed".into(),
            status: if c.reason.allowed() { "True" } else { "False" }.into(),
            reason: c.reason.as_str().into(),
            message: c.reason.message().into(),
            last_transition_time: clock.time(c.last_transition),
            observed_generation: Some(c.observed_generation),
        }]
    });
    let disrupted = (!st.disrupted_pods.is_empty())
        .then(|| st.disrupted_pods.iter().map(|(pod, t)| (pod.to_string(), clock.time(*t))).collect());
    policy::PodDisruptionBudget {
        metadata: ObjectMeta {
            name: Some(s.name.to_string()),
            namespace: Some(s.namespace.to_string()),
            uid: Some(b.meta.uid.to_string()),
            resource_version: Some(b.meta.resource_version.to_string()),
            generation: Some(b.meta.generation),
            creation_timestamp: Some(clock.time(b.meta.created)),
            labels: (!s.labels.is_empty()).then(|| s.labels.clone()),
            ..Default::default()
        },
        spec: Some(policy::PodDisruptionBudgetSpec {
            min_available,
            max_unavailable,
            selector: Some(LabelSelector { match_labels: Some(s.selector.clone()), match_expressions: None }),
            unhealthy_pod_eviction_policy: s.unhealthy_pod_eviction_policy.map(|p| p.as_str().to_string()),
        }),
        status: Some(policy::PodDisruptionBudgetStatus {
            conditions,
            current_healthy: Some(st.current_healthy),
            desired_healthy: Some(st.desired_healthy),
            disrupted_pods: disrupted,
            disruptions_allowed: Some(st.disruptions_allowed),
            expected_pods: Some(st.expected_pods),
            observed_generation: (st.observed_generation > 0).then_some(st.observed_generation),
        }),
    }
}
