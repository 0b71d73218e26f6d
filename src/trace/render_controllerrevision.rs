//! ControllerRevisions as the API server returns them.

use super::render::Clock;
use crate::api::controllerrevision::ApiControllerRevision;
use k8s_openapi::api::apps::v1 as apps;

/// The ControllerRevision object (apps/v1).
pub fn controller_revision(r: &ApiControllerRevision, clock: &Clock) -> apps::ControllerRevision {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    apps::ControllerRevision {
        metadata: ObjectMeta {
            name: Some(r.name.to_string()),
            namespace: Some(r.namespace.to_string()),
            uid: Some(r.meta.uid.to_string()),
            resource_version: Some(r.meta.resource_version.to_string()),
            creation_timestamp: Some(clock.time(r.meta.created)),
            labels: (!r.labels.is_empty()).then(|| r.labels.clone()),
            annotations: (!r.annotations.is_empty()).then(|| r.annotations.clone()),
            owner_references: r.owner.as_ref().map(|o| vec![super::render_workloads::owner_reference(o)]),
            ..Default::default()
        },
        data: k8s_openapi::apimachinery::pkg::runtime::RawExtension(r.data.clone()),
        revision: Some(r.revision),
    }
}
