//! ReplicaSets and Deployments as the API server returns them.

use super::render::Clock;
use crate::api::deployment::ApiDeployment;
use crate::api::replicaset::{ApiReplicaSet, OwnerRef};
use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use std::collections::BTreeMap;

/// `ownerReferences` entry for a controller (`metav1.NewControllerRef`).
pub fn owner_reference(o: &OwnerRef) -> OwnerReference {
    let group = match o.kind {
        "Job" | "CronJob" => "batch/v1",
        _ => "apps/v1",
    };
    OwnerReference {
        api_version: group.into(),
        kind: o.kind.into(),
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

fn non_empty(m: &BTreeMap<String, String>) -> Option<BTreeMap<String, String>> {
    (!m.is_empty()).then(|| m.clone())
}

/// The ReplicaSet object; zero counts other than `replicas` are omitted
/// (`omitempty`), `terminatingReplicas` is present whenever the gate sets it.
pub fn replica_set(r: &ApiReplicaSet, clock: &Clock) -> apps::ReplicaSet {
    let s = &r.spec;
    let c = &r.status.counts;
    let positive = |n: u32| (n > 0).then_some(n as i32);
    apps::ReplicaSet {
        metadata: ObjectMeta {
            name: Some(s.name.to_string()),
            namespace: Some(s.namespace.to_string()),
            uid: Some(r.meta.uid.to_string()),
            resource_version: Some(r.meta.resource_version.to_string()),
            generation: Some(r.meta.generation),
            creation_timestamp: Some(clock.time(r.meta.created)),
            labels: non_empty(&s.labels),
            annotations: non_empty(&s.annotations),
            owner_references: s.owner.as_ref().map(|o| vec![owner_reference(o)]),
            deletion_timestamp: r.meta.deletion.map(|d| clock.time(d.timestamp)),
            deletion_grace_period_seconds: r.meta.deletion.map(|d| d.grace_seconds),
            finalizers: finalizers(&r.meta),
            ..Default::default()
        },
        spec: apps::ReplicaSetSpec {
            replicas: Some(s.replicas as i32),
            min_ready_seconds: positive(s.min_ready_seconds),
            selector: LabelSelector { match_labels: Some(s.selector.clone()), match_expressions: None },
            template: Some(s.template.object.clone()),
        },
        status: Some(apps::ReplicaSetStatus {
            replicas: c.replicas as i32,
            fully_labeled_replicas: positive(c.fully_labeled_replicas),
            ready_replicas: positive(c.ready_replicas),
            available_replicas: positive(c.available_replicas),
            terminating_replicas: c.terminating_replicas.map(|n| n as i32),
            observed_generation: (r.status.observed_generation > 0).then_some(r.status.observed_generation),
            conditions: None,
        }),
    }
}

/// The Deployment object: the manifest, defaulted, with its annotations and status.
pub fn deployment(d: &ApiDeployment, clock: &Clock) -> apps::Deployment {
    let mut object = d.spec.object.clone();
    let meta = &mut object.metadata;
    meta.namespace = Some(d.spec.namespace.clone());
    meta.uid = Some(d.meta.uid.to_string());
    meta.resource_version = Some(d.meta.resource_version.to_string());
    meta.generation = Some(d.meta.generation);
    meta.creation_timestamp = Some(clock.time(d.meta.created));
    meta.annotations = non_empty(&d.annotations);
    meta.deletion_timestamp = d.meta.deletion.map(|x| clock.time(x.timestamp));
    meta.deletion_grace_period_seconds = d.meta.deletion.map(|x| x.grace_seconds);
    meta.finalizers = finalizers(&d.meta);
    let s = &d.status;
    let positive = |n: u32| (n > 0).then_some(n as i32);
    object.status = Some(apps::DeploymentStatus {
        observed_generation: (s.observed_generation > 0).then_some(s.observed_generation as i64),
        replicas: positive(s.replicas),
        updated_replicas: positive(s.updated_replicas),
        ready_replicas: positive(s.ready_replicas),
        available_replicas: positive(s.available_replicas),
        unavailable_replicas: positive(s.unavailable_replicas),
        terminating_replicas: s.terminating_replicas.map(|n| n as i32),
        collision_count: s.collision_count.map(|n| n as i32),
        conditions: (!s.conditions.is_empty()).then(|| {
            s.conditions
                .iter()
                .map(|c| apps::DeploymentCondition {
                    type_: Some(c.kind.as_str().into()),
                    status: Some(c.status.as_str().into()),
                    reason: Some(c.reason.as_str().into()),
                    message: Some(c.message.clone()),
                    last_update_time: Some(clock.time(c.last_update)),
                    last_transition_time: Some(clock.time(c.last_transition)),
                })
                .collect()
        }),
    });
    object
}

/// `metadata.finalizers`, omitted when empty.
fn finalizers(meta: &crate::api::meta::Meta) -> Option<Vec<String>> {
    (!meta.finalizers.is_empty()).then(|| meta.finalizers.iter().map(|f| f.to_string()).collect())
}
