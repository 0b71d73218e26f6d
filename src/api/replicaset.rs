//! A ReplicaSet in the API server (apps/v1): its spec as the Deployment
//! controller (or the manifest) wrote it, and its status as the ReplicaSet
//! controller last wrote it.

use super::meta::Meta;
use super::store::{Object, WithStatus, stored_fields};
use crate::control::replicaset::status::RsStatusCounts;
use crate::ids::RsId;
pub use crate::spec::OwnerRef;
use crate::spec::PodTemplate;
use crate::trace::record::{Record, WatchKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a ReplicaSet's writers set: everything but the server's metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct RsSpec {
    pub name: Arc<str>,
    pub namespace: Arc<str>,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub owner: Option<OwnerRef>,
    pub replicas: u32,
    /// `spec.selector.matchLabels`.
    pub selector: BTreeMap<String, String>,
    pub template: Arc<PodTemplate>,
    pub min_ready_seconds: u32,
}

/// `status`: the counts `calculateStatus` computes
/// (pkg/controller/replicaset/replica_set_utils.go) and the generation they saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RsStatus {
    pub counts: RsStatusCounts,
    pub observed_generation: i64,
}

#[derive(Clone, Debug)]
pub struct ApiReplicaSet {
    pub id: RsId,
    /// `generation` is 1 on create, +1 on each write that changes the spec.
    pub meta: Meta,
    /// Shared: each controller sync reads every ReplicaSet's spec, and changes few.
    pub spec: Arc<RsSpec>,
    pub status: RsStatus,
}

impl Object for ApiReplicaSet {
    type Id = RsId;
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
    fn watch_record(kind: WatchKind, rs: Arc<Self>) -> Record {
        Record::ReplicaSet { kind, rs }
    }
}

/// `rsStatusStrategy`: the status and nothing else.
impl WithStatus for ApiReplicaSet {
    type Status<'a> = &'a mut RsStatus;
    fn status(&mut self) -> &mut RsStatus {
        &mut self.status
    }
}

impl ApiReplicaSet {
    /// The owner reference its pods carry.
    pub fn as_owner(&self) -> OwnerRef {
        OwnerRef { kind: "ReplicaSet", name: self.spec.name.clone(), uid: self.meta.uid.clone() }
    }
}
