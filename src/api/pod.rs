//! A Pod object in the API server.

use super::status::PodStatus;
use crate::sim::PodId;
use crate::spec::PodSpec;
use crate::time::SimTime;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct ApiPod {
    pub id: PodId,
    pub spec: Arc<PodSpec>,
    pub uid: Arc<str>,
    pub created: SimTime,
    pub resource_version: u64,
    /// `spec.nodeName`, once bound.
    pub node: Option<Arc<str>>,
    pub status: PodStatus,
}
