//! A Deployment in the API server (apps/v1): the spec the user (or a
//! scenario rollout) wrote, and the status the Deployment controller wrote.

use crate::ids::DeploymentId;
use crate::spec::DeploymentSpec;
use crate::time::SimTime;
use std::collections::BTreeMap;
use std::sync::Arc;

// The status and its conditions are the Deployment controller's types:
// it computes them (`calculateStatus`, `syncRolloutStatus`), the API stores them.
pub use crate::control::deployment::conditions::{Condition, ConditionStatus, ConditionType, Reason};
pub use crate::control::deployment::status::DeploymentStatus;

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
