//! An EndpointSlice object in the API server (discovery.k8s.io/v1), as the
//! EndpointSlice controller writes it.

use super::meta::Meta;
use super::store::{Object, stored_fields};
use crate::ids::PodId;
use crate::ids::ServiceId;
use crate::ids::SliceId;
use crate::time::SimTime;
use crate::trace::record::{Record, WatchKind};
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
    /// `generation` is 1 on create, +1 on each write that changes ports or endpoints.
    pub meta: Meta,
    pub name: Arc<str>,
    /// The Service's namespace.
    pub namespace: Arc<str>,
    pub service: ServiceId,
    pub content: SliceContent,
}

impl Object for ApiSlice {
    type Id = SliceId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.name
    }
    fn namespace(&self) -> &str {
        &self.namespace
    }
    fn watch_record(kind: WatchKind, slice: Arc<Self>) -> Record {
        Record::Slice { kind, slice }
    }
}
