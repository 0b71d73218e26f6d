//! An EndpointSlice object in the API server (discovery.k8s.io/v1), as the
//! EndpointSlice controller writes it.

use crate::ids::PodId;
use crate::ids::ServiceId;
use crate::ids::SliceId;
use crate::time::SimTime;
use std::sync::Arc;

/// The pod an endpoint stands for (`targetRef`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetRef {
    pub pod: PodId,
    pub name: Arc<str>,
    pub namespace: Arc<str>,
    pub uid: Arc<str>,
}

/// One endpoint (`podToEndpoint`): one pod's address and conditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub address: Arc<str>,
    pub ready: bool,
    pub serving: bool,
    pub terminating: bool,
    pub hostname: Option<String>,
    pub node: Option<Arc<str>>,
    pub target: TargetRef,
}

/// `ports[]`: the resolved target port under the Service port's name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlicePort {
    pub name: String,
    pub port: u16,
    pub app_protocol: Option<String>,
}

/// What the controller writes: everything but the server-set metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceContent {
    pub ports: Vec<SlicePort>,
    pub endpoints: Vec<Endpoint>,
    /// `endpoints.kubernetes.io/last-change-trigger-time`.
    pub trigger_time: Option<SimTime>,
}

#[derive(Clone, Debug)]
pub struct ApiSlice {
    pub id: SliceId,
    pub name: Arc<str>,
    pub service: ServiceId,
    pub uid: Arc<str>,
    pub created: SimTime,
    /// 1 on create, +1 on each write that changes ports or endpoints.
    pub generation: i64,
    pub resource_version: u64,
    pub content: SliceContent,
    /// Gone from storage (the DELETED event was sent).
    pub removed: bool,
}
