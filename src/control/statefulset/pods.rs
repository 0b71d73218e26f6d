//! The pod a StatefulSet creates for an ordinal (`newVersionedStatefulSetPod`,
//! `newStatefulSetPod`, `initIdentity`, `updateStorage`) and the claims
//! `createPersistentVolumeClaims` makes before it.

use super::identity::{POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, claim_name, pod_name};
use crate::api::statefulset::ApiStatefulSet;
use crate::manifest::workloads::with_claim_volumes;
use crate::spec::statefulset::UpdateStrategy;
use crate::spec::{ClaimSpec, PodSpec, PodTemplate};
use std::sync::Arc;

/// `newVersionedStatefulSetPod`'s choice: the current revision's template
/// for an ordinal below the partition (or, without a `rollingUpdate`,
/// below `start + status.currentReplicas`), the update revision's otherwise.
pub fn at_current_revision(set: &ApiStatefulSet, ordinal: u32) -> bool {
    let s = &set.spec;
    match s.update_strategy {
        UpdateStrategy::RollingUpdate { rolling: None } => ordinal < s.start + set.status.current_replicas,
        UpdateStrategy::RollingUpdate { rolling: Some(r) } => ordinal < s.start + r.partition,
        // (A && B) || C: C holds whatever the type, but OnDelete has no rollingUpdate.
        UpdateStrategy::OnDelete => false,
    }
}

/// `newStatefulSetPod` from `template` at revision `revision`: the
/// template's pod with the identity (name, `pod-name` and `pod-index`
/// labels, hostname and subdomain, set only at creation), the revision
/// label, a controller reference, and a volume per claim template.
pub fn new_pod(set: &ApiStatefulSet, template: &PodTemplate, revision: &str, ordinal: u32) -> Arc<PodSpec> {
    let s = &set.spec;
    let name = pod_name(&s.name, ordinal);
    let mut pod = template.pod.clone();
    pod.name = name.clone();
    pod.namespace = s.namespace.clone();
    let mut labels = template.labels.clone();
    labels.insert(POD_NAME_LABEL.into(), name.clone());
    labels.insert(POD_INDEX_LABEL.into(), ordinal.to_string());
    labels.insert(REVISION_LABEL.into(), revision.to_string());
    pod.labels = labels.clone();
    pod.owner = Some(set.as_owner());
    // Its name does not depend on the seed: it is its milestone name too.
    pod.alias = Arc::from(format!("pod/{name}"));
    let meta = &mut pod.object.metadata;
    meta.name = Some(name.clone());
    meta.namespace = Some(s.namespace.clone());
    meta.labels = Some(labels);
    meta.annotations = (!template.annotations.is_empty()).then(|| template.annotations.clone());
    with_claim_volumes(&mut pod.object, &s.object, &name);
    let spec = pod.object.spec.get_or_insert_default();
    spec.hostname = Some(name.clone());
    spec.subdomain = (!s.service_name.is_empty()).then(|| s.service_name.clone());
    let claims = s.claim_templates.iter().map(|t| Arc::from(claim_name(&t.name, &s.name, ordinal)));
    let mut all: Vec<Arc<str>> = claims.collect();
    all.extend(pod.claims.iter().filter(|c| !all.contains(c)).cloned().collect::<Vec<_>>());
    pod.claims = all;
    Arc::new(pod)
}

/// The names of the ordinal's claims.
pub fn claim_names(set: &ApiStatefulSet, ordinal: u32) -> Vec<Arc<str>> {
    let s = &set.spec;
    s.claim_templates.iter().map(|t| Arc::from(claim_name(&t.name, &s.name, ordinal))).collect()
}

/// `getPersistentVolumeClaims`: one claim per template, named for the ordinal.
pub fn claims(set: &ApiStatefulSet, ordinal: u32) -> Vec<Arc<ClaimSpec>> {
    let s = &set.spec;
    (s.claim_templates.iter())
        .map(|t| {
            Arc::new(ClaimSpec {
                name: Arc::from(claim_name(&t.name, &s.name, ordinal)),
                namespace: Arc::from(s.namespace.as_str()),
                storage_class: t.storage_class.clone(),
                binding: t.binding,
                access_modes: t.access_modes.clone(),
                storage: t.storage.clone(),
                volume_mode: t.volume_mode.clone(),
            })
        })
        .collect()
}
