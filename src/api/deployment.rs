//! A Deployment in the API server (apps/v1): the spec the user (or a
//! scenario rollout) wrote, and the status the Deployment controller wrote.

use crate::spec::DeploymentSpec;
use crate::time::SimTime;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A Deployment of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeploymentId(pub u32);

/// `status.conditions[].type`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DeploymentConditionType {
    Available,
    Progressing,
    ReplicaFailure,
}

impl DeploymentConditionType {
    pub fn as_str(self) -> &'static str {
        match self {
            DeploymentConditionType::Available => "Available",
            DeploymentConditionType::Progressing => "Progressing",
            DeploymentConditionType::ReplicaFailure => "ReplicaFailure",
        }
    }
}

/// `True`, `False` or `Unknown` (a paused Deployment's Progressing).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

impl ConditionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
        }
    }
}

/// One condition; unlike a Pod's it has a `lastUpdateTime`, which the
/// progress deadline counts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeploymentCondition {
    pub kind: DeploymentConditionType,
    pub status: ConditionStatus,
    pub reason: &'static str,
    pub message: String,
    pub last_update: SimTime,
    pub last_transition: SimTime,
}

/// `status`, as `calculateStatus` and `syncRolloutStatus` write it
/// (pkg/controller/deployment/sync.go, progress.go).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeploymentStatus {
    pub observed_generation: i64,
    pub replicas: u32,
    pub updated_replicas: u32,
    pub ready_replicas: u32,
    pub available_replicas: u32,
    pub unavailable_replicas: u32,
    /// Only with the DeploymentReplicaSetTerminatingReplicas gate (on from 1.35).
    pub terminating_replicas: Option<u32>,
    pub conditions: Vec<DeploymentCondition>,
    pub collision_count: Option<u32>,
}

impl DeploymentStatus {
    pub fn condition(&self, kind: DeploymentConditionType) -> Option<&DeploymentCondition> {
        self.conditions.iter().find(|c| c.kind == kind)
    }
}

#[derive(Clone, Debug)]
pub struct ApiDeployment {
    pub id: DeploymentId,
    pub uid: Arc<str>,
    pub created: SimTime,
    /// 1 on create, +1 on each change of the spec or the annotations.
    pub generation: i64,
    pub resource_version: u64,
    pub spec: Arc<DeploymentSpec>,
    /// `metadata.annotations`: the manifest's, plus
    /// `deployment.kubernetes.io/revision` once the controller set it.
    pub annotations: BTreeMap<String, String>,
    pub status: DeploymentStatus,
    pub removed: bool,
}
