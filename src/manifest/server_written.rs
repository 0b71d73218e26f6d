//! Metadata the API server writes itself, as a `kubectl get -o yaml` dump
//! carries it. A create keeps none of it, so each field is a warning that
//! says what becomes of it (status has its own warning, in each kind's check):
//! - `resourceVersion`: `kubectl create` and `kubectl apply` clear it before
//!   they send the object (cli-runtime `Helper.Create` with `modify`); a
//!   client that sends it is refused by the etcd3 store's `Create`
//!   ("resourceVersion should not be set on objects to be created");
//! - `uid`, `creationTimestamp`: set anew (`rest.FillObjectMetaSystemFields`);
//! - `generation` of Pods, Deployments and ReplicaSets: 1 (their strategies'
//!   `PrepareForCreate`);
//! - `managedFields`: field ownership, which no part of the lifecycle reads.

use super::unsupported::{Finding, warning};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Whether the kind's `PrepareForCreate` sets `metadata.generation` to 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Generation {
    /// Pods, Deployments, ReplicaSets.
    SetToOne,
    /// Services: the strategy leaves it alone.
    Kept,
}

/// A warning for each server-written field of `meta`.
pub fn findings(meta: &ObjectMeta, generation: Generation) -> Vec<Finding> {
    let mut out = Vec::new();
    if meta.resource_version.as_ref().is_some_and(|v| !v.is_empty()) {
        out.push(warning(
            "metadata.resourceVersion".into(),
            "ignored: kubectl create and apply clear it before the create (Helper.Create); another client that sends \
             it is refused (\"resourceVersion should not be set on objects to be created\")",
        ));
    }
    if meta.uid.as_ref().is_some_and(|v| !v.is_empty()) {
        out.push(warning(
            "metadata.uid".into(),
            "ignored: the API server gives every created object a new uid (FillObjectMetaSystemFields)",
        ));
    }
    if meta.creation_timestamp.is_some() {
        out.push(warning(
            "metadata.creationTimestamp".into(),
            "ignored: the API server sets it to the time of the create (FillObjectMetaSystemFields)",
        ));
    }
    if generation == Generation::SetToOne && meta.generation.is_some_and(|g| g != 1) {
        out.push(warning("metadata.generation".into(), "ignored: a create starts it at 1 (PrepareForCreate)"));
    }
    if meta.managed_fields.as_ref().is_some_and(|m| !m.is_empty()) {
        out.push(warning(
            "metadata.managedFields".into(),
            "not simulated: field ownership (server-side apply) plays no part in the lifecycle",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(meta: serde_json::Value, generation: Generation) -> Vec<String> {
        let meta: ObjectMeta = serde_json::from_value(meta).unwrap();
        findings(&meta, generation).into_iter().map(|(path, _, _)| path).collect()
    }

    #[test]
    fn each_server_written_field_is_named() {
        let dump = json!({
            "name": "web", "resourceVersion": "1364", "uid": "a6501da1-0447-4262-98eb-c03d4002222e",
            "creationTimestamp": "2022-02-17T21:51:01Z", "generation": 3,
            "managedFields": [{"manager": "kubelet", "operation": "Update"}]
        });
        assert_eq!(
            paths(dump.clone(), Generation::SetToOne),
            [
                "metadata.resourceVersion",
                "metadata.uid",
                "metadata.creationTimestamp",
                "metadata.generation",
                "metadata.managedFields"
            ]
        );
        assert!(!paths(dump, Generation::Kept).contains(&"metadata.generation".to_string()));
        // What a written manifest has: kubectl create --dry-run's null timestamp, generation 1.
        assert!(
            paths(json!({"name": "web", "creationTimestamp": null, "generation": 1}), Generation::SetToOne).is_empty()
        );
    }
}
