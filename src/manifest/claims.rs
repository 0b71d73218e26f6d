//! PersistentVolumeClaims and StorageClasses: what binding a pod's claims
//! waits for. Validated as the API server does the fields podsim reads.

use super::{Manifests, join};
use crate::error::Problem;
use crate::source::Doc;
use crate::spec::{BindingMode, ClaimSpec, StorageClass};
use serde_json::Value;
use std::sync::Arc;

/// A claim: its name and namespace, its class; `accessModes` and the
/// storage request are required (`ValidatePersistentVolumeClaimSpec`).
pub(super) fn read_claim(doc: &Doc, json: &Value, prefix: &str, out: &mut Manifests, problems: &mut Vec<Problem>) {
    let name = json.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
    let at = |field: &str| join(prefix, field);
    if name.is_empty() {
        problems.push(doc.problem(&at("metadata.name"), "Required value: name or generateName is required"));
        return;
    }
    let modes = json.pointer("/spec/accessModes").and_then(Value::as_array).map_or(0, Vec::len);
    if modes == 0 {
        problems.push(doc.problem(&at("spec.accessModes"), "Required value: at least 1 access mode is required"));
    }
    if json.pointer("/spec/resources/requests/storage").is_none() {
        problems.push(doc.problem(
            &at("spec.resources.requests"),
            "Required value: the storage request (spec.resources[storage]) is required",
        ));
    }
    let namespace = json.pointer("/metadata/namespace").and_then(Value::as_str).filter(|n| !n.is_empty());
    let class = json.pointer("/spec/storageClassName").and_then(Value::as_str);
    let text = |pointer: &str| json.pointer(pointer).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
    let access_modes = (json.pointer("/spec/accessModes").and_then(Value::as_array).into_iter().flatten())
        .filter_map(Value::as_str)
        .map(Arc::from)
        .collect();
    out.claims.push(ClaimSpec {
        name: Arc::from(name),
        namespace: Arc::from(namespace.unwrap_or("default")),
        storage_class: class.map(Arc::from),
        binding: BindingMode::WaitForFirstConsumer,
        access_modes,
        storage: Arc::from(text("/spec/resources/requests/storage").unwrap_or_default()),
        volume_mode: Arc::from(text("/spec/volumeMode").unwrap_or_else(|| "Filesystem".into())),
    });
}

/// A class: `volumeBindingMode` (default `Immediate`) and the default-class annotation.
pub(super) fn read_storage_class(
    doc: &Doc,
    json: &Value,
    prefix: &str,
    out: &mut Manifests,
    problems: &mut Vec<Problem>,
) {
    let name = json.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
    if name.is_empty() {
        problems.push(doc.problem(&join(prefix, "metadata.name"), "Required value: name or generateName is required"));
        return;
    }
    let binding = match json.get("volumeBindingMode").and_then(Value::as_str) {
        None | Some("Immediate") => BindingMode::Immediate,
        Some("WaitForFirstConsumer") => BindingMode::WaitForFirstConsumer,
        Some(other) => {
            let message =
                format!("Unsupported value: {other:?}: supported values: \"Immediate\", \"WaitForFirstConsumer\"");
            problems.push(doc.problem(&join(prefix, "volumeBindingMode"), message));
            return;
        }
    };
    let annotation = "/metadata/annotations/storageclass.kubernetes.io~1is-default-class";
    let default = json.pointer(annotation).and_then(Value::as_str) == Some("true");
    out.storage_classes.push(StorageClass { name: Arc::from(name), binding, default });
}

/// A note for each claim a pod's volume names that no manifest creates in
/// its namespace: the scheduler leaves the pod Pending until it exists.
pub(super) fn missing_claims(m: &Manifests) -> Vec<Problem> {
    let mut out = Vec::new();
    for (k, pod) in m.all_pod_specs().enumerate() {
        let Some(spec) = pod.object.spec.as_ref() else { continue };
        for (i, v) in spec.volumes.iter().flatten().enumerate() {
            let Some(c) = &v.persistent_volume_claim else { continue };
            if m.claims.iter().any(|x| *x.name == c.claim_name && *x.namespace == pod.namespace) {
                continue;
            }
            let message = format!(
                "persistentvolumeclaim {:?} is created by no manifest in namespace {}: podsim runs the pod as a cluster \
                 without it would: the scheduler leaves it Pending (FailedScheduling) until it exists",
                c.claim_name, pod.namespace
            );
            out.push(
                m.pod_spec_problem(k, &format!("volumes[{i}].persistentVolumeClaim.claimName"), message).as_note(),
            );
        }
    }
    out
}
