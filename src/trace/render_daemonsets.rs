//! DaemonSets as the API server returns them (apps/v1).

use super::render::Clock;
use crate::api::daemonset::{ApiDaemonSet, DaemonSetStatus, TEMPLATE_GENERATION};
use k8s_openapi::api::apps::v1 as apps;

/// The DaemonSet object: its spec as applied, the template generation the
/// registry keeps in its annotation, and the status the controller wrote.
pub fn daemon_set(d: &ApiDaemonSet, clock: &Clock) -> apps::DaemonSet {
    let mut object = d.spec.object.clone();
    let meta = &mut object.metadata;
    meta.namespace = Some(d.spec.namespace.clone());
    meta.uid = Some(d.meta.uid.to_string());
    meta.resource_version = Some(d.meta.resource_version.to_string());
    meta.generation = Some(d.meta.generation);
    meta.creation_timestamp = Some(clock.time(d.meta.created));
    meta.labels = (!d.spec.labels.is_empty()).then(|| d.spec.labels.clone());
    let annotations = meta.annotations.get_or_insert_default();
    annotations.insert(TEMPLATE_GENERATION.into(), d.template_generation.to_string());
    meta.deletion_timestamp = d.meta.deletion.map(|x| clock.time(x.timestamp));
    meta.deletion_grace_period_seconds = d.meta.deletion.map(|x| x.grace_seconds);
    object.status = Some(status(&d.status));
    object
}

/// `DaemonSetStatus`: the four counts without `omitempty` always, the others when positive.
fn status(s: &DaemonSetStatus) -> apps::DaemonSetStatus {
    let positive = |n: u32| (n > 0).then_some(n as i32);
    apps::DaemonSetStatus {
        current_number_scheduled: s.current_number_scheduled as i32,
        desired_number_scheduled: s.desired_number_scheduled as i32,
        number_misscheduled: s.number_misscheduled as i32,
        number_ready: s.number_ready as i32,
        number_available: positive(s.number_available),
        number_unavailable: positive(s.number_unavailable),
        updated_number_scheduled: positive(s.updated_number_scheduled),
        observed_generation: (s.observed_generation > 0).then_some(s.observed_generation),
        collision_count: None,
        conditions: None,
    }
}
