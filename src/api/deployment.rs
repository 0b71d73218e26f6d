//! A Deployment in the API server (apps/v1): the spec the user (or a
//! scenario rollout) wrote, and the status the Deployment controller wrote.

use super::meta::Meta;
use super::store::{Object, WithStatus, stored_fields};
use crate::ids::DeploymentId;
use crate::spec::DeploymentSpec;
use crate::trace::record::{Record, WatchKind};
use std::collections::BTreeMap;
use std::sync::Arc;

// The status and its conditions are the Deployment controller's types:
// it computes them (`calculateStatus`, `syncRolloutStatus`), the API stores them.
pub use crate::control::deployment::conditions::{Condition, ConditionStatus, ConditionType, Reason};
pub use crate::control::deployment::status::DeploymentStatus;

#[derive(Clone, Debug)]
pub struct ApiDeployment {
    pub id: DeploymentId,
    /// `generation` is 1 on create, +1 on each change of the spec or the annotations.
    pub meta: Meta,
    pub spec: Arc<DeploymentSpec>,
    /// `metadata.annotations`: the manifest's, plus
    /// `deployment.kubernetes.io/revision` once the controller set it.
    pub annotations: BTreeMap<String, String>,
    pub status: DeploymentStatus,
}

impl Object for ApiDeployment {
    type Id = DeploymentId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn namespace(&self) -> &str {
        &self.spec.namespace
    }
    fn watch_record(kind: WatchKind, deployment: Arc<Self>) -> Record {
        Record::Deployment { kind, deployment }
    }
}

/// `deploymentStatusStrategy.PrepareForUpdate` keeps the stored spec and
/// labels: the status and the annotations (the controller's revision
/// annotation travels with its status writes).
impl WithStatus for ApiDeployment {
    type Status<'a> = (&'a mut DeploymentStatus, &'a mut BTreeMap<String, String>);
    fn status(&mut self) -> Self::Status<'_> {
        (&mut self.status, &mut self.annotations)
    }
}
