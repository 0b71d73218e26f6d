//! PersistentVolumeClaims as stored: Pending until the PV controller binds
//! them to a provisioned volume.

use crate::spec::ClaimSpec;
use crate::time::SimTime;
use std::sync::Arc;

/// `status.phase` of a claim.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClaimPhase {
    Pending,
    Bound,
}

impl ClaimPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimPhase::Pending => "Pending",
            ClaimPhase::Bound => "Bound",
        }
    }
}

/// One claim.
#[derive(Clone, Debug)]
pub struct ApiClaim {
    pub spec: Arc<ClaimSpec>,
    pub uid: Arc<str>,
    pub created: SimTime,
    pub phase: ClaimPhase,
    /// `spec.volumeName` once bound: the provisioned volume, `pvc-<uid>`.
    pub volume: Option<Arc<str>>,
    /// `volume.kubernetes.io/selected-node`: where the scheduler asked for
    /// a WaitForFirstConsumer claim's volume.
    pub selected_node: Option<Arc<str>>,
    /// Deleted (by the garbage collector, its owner pod gone): no longer in the API.
    pub removed: bool,
}

impl ApiClaim {
    /// `persistentvolumeclaim/NAME`.
    pub fn kubectl_name(&self) -> String {
        format!("persistentvolumeclaim/{}", self.spec.name)
    }
}
