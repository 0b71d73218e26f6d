//! A Pod object in the API server.

use super::meta::Meta;
use super::status::PodStatus;
use super::store::{Object, WithStatus, stored_fields};
use crate::ids::PodId;
use crate::spec::{OwnerRef, PodSpec};
use crate::trace::record::{Record, WatchKind};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct ApiPod {
    pub id: PodId,
    /// `generation` is 1 on create, +1 when a graceful deletion begins.
    pub meta: Meta,
    pub spec: Arc<PodSpec>,
    /// `spec.nodeName`: as created, or once the scheduler's binding is stored.
    pub node: Option<Arc<str>>,
    pub status: PodStatus,
}

impl Object for ApiPod {
    type Id = PodId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn namespace(&self) -> &str {
        &self.spec.namespace
    }
    fn owner(&self) -> Option<&OwnerRef> {
        self.spec.owner.as_ref()
    }
    fn watch_record(kind: WatchKind, pod: Arc<Self>) -> Record {
        Record::Pod { kind, pod }
    }
}

/// `podStatusStrategy`: the status and nothing else.
impl WithStatus for ApiPod {
    type Status<'a> = &'a mut PodStatus;
    fn status(&mut self) -> &mut PodStatus {
        &mut self.status
    }
}
