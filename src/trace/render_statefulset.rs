//! StatefulSets and ControllerRevisions as the API server returns them.

use super::render::Clock;
use super::render_workloads::owner_reference;
use crate::api::statefulset::{ApiRevision, ApiStatefulSet};
use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use std::collections::BTreeMap;

/// The StatefulSet object: the manifest, defaulted, with its status (zero
/// counts but `replicas` omitted, as `omitempty` does).
pub fn stateful_set(s: &ApiStatefulSet, clock: &Clock) -> apps::StatefulSet {
    let mut object = s.spec.object.clone();
    let meta = &mut object.metadata;
    meta.namespace = Some(s.spec.namespace.clone());
    meta.uid = Some(s.meta.uid.to_string());
    meta.resource_version = Some(s.meta.resource_version.to_string());
    meta.generation = Some(s.meta.generation);
    meta.creation_timestamp = Some(clock.time(s.meta.created));
    meta.deletion_timestamp = s.meta.deletion.map(|x| clock.time(x.timestamp));
    let st = &s.status;
    let positive = |n: u32| (n > 0).then_some(n as i32);
    let name = |n: &str| (!n.is_empty()).then(|| n.to_string());
    object.status = Some(apps::StatefulSetStatus {
        observed_generation: (st.observed_generation > 0).then_some(st.observed_generation),
        replicas: st.replicas as i32,
        ready_replicas: positive(st.ready_replicas),
        current_replicas: positive(st.current_replicas),
        updated_replicas: positive(st.updated_replicas),
        available_replicas: positive(st.available_replicas),
        current_revision: name(&st.current_revision),
        update_revision: name(&st.update_revision),
        collision_count: (st.observed_generation > 0).then_some(st.collision_count as i32),
        conditions: None,
    });
    object
}

/// The ControllerRevision: its owner, the hash label, and the template as data.
pub fn revision(r: &ApiRevision, clock: &Clock) -> apps::ControllerRevision {
    let hash = r.name.rsplit_once('-').map_or("", |(_, h)| h);
    let mut labels: BTreeMap<String, String> = r.template.labels.clone();
    labels.insert("controller.kubernetes.io/hash".into(), hash.into());
    let patch = serde_json::json!({"spec": {"template": {"$patch": "replace"}}});
    let mut data = patch;
    if let Ok(template) = serde_json::to_value(&r.template.object)
        && let Some(t) = data.pointer_mut("/spec/template").and_then(|v| v.as_object_mut())
    {
        t.extend(template.as_object().cloned().unwrap_or_default());
    }
    apps::ControllerRevision {
        metadata: ObjectMeta {
            name: Some(r.name.to_string()),
            namespace: Some(r.namespace.to_string()),
            uid: Some(r.meta.uid.to_string()),
            resource_version: Some(r.meta.resource_version.to_string()),
            creation_timestamp: Some(clock.time(r.meta.created)),
            labels: Some(labels),
            owner_references: Some(vec![owner_reference(&r.owner)]),
            ..Default::default()
        },
        data: RawExtension(data),
        revision: Some(r.revision),
    }
}
