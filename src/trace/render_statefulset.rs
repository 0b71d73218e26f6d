//! StatefulSets as the API server returns them.

use super::render::Clock;
use crate::api::statefulset::ApiStatefulSet;
use k8s_openapi::api::apps::v1 as apps;

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
