//! PodDisruptionBudgets as stored (policy/v1): the spec as created (the API
//! server forbids spec updates) and the status the disruption controller
//! and the Eviction API write.

use super::meta::Meta;
use super::store::{Object, WithStatus, stored_fields};
use crate::ids::PdbId;
use crate::spec::PdbSpec;
use crate::time::SimTime;
use crate::trace::record::{Record, WatchKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The reason of the `DisruptionAllowed` condition
/// (`UpdateDisruptionAllowedCondition`, component-helpers/apps/poddisruptionbudget/helpers.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sufficiency {
    /// `disruptionsAllowed > 0`: status True.
    SufficientPods,
    /// Otherwise: status False.
    InsufficientPods,
    /// The controller's sync failed (`failSafe`): status False, the error as message.
    SyncFailed(Arc<str>),
}

impl Sufficiency {
    pub fn as_str(&self) -> &'static str {
        match self {
            Sufficiency::SufficientPods => "SufficientPods",
            Sufficiency::InsufficientPods => "InsufficientPods",
            Sufficiency::SyncFailed(_) => "SyncFailed",
        }
    }

    /// The condition's status.
    pub fn allowed(&self) -> bool {
        *self == Sufficiency::SufficientPods
    }

    pub fn message(&self) -> &str {
        match self {
            Sufficiency::SyncFailed(m) => m,
            _ => "",
        }
    }
}

/// `status.conditions[type=DisruptionAllowed]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisruptionAllowed {
    pub reason: Sufficiency,
    pub last_transition: SimTime,
    pub observed_generation: i64,
}

/// `status`, as the disruption controller's `updatePdbStatus` writes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdbStatus {
    /// 0 until the controller's first write: the Eviction API answers 429 until then.
    pub observed_generation: i64,
    pub disruptions_allowed: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    pub expected_pods: i32,
    /// Pods the Eviction API let go whose deletion the controller has not
    /// seen yet, with when (`status.disruptedPods`).
    pub disrupted_pods: BTreeMap<Arc<str>, SimTime>,
    pub condition: Option<DisruptionAllowed>,
}

impl PdbStatus {
    /// `UpdateDisruptionAllowedCondition` through `apimeta.SetStatusCondition`:
    /// the transition time moves only when the status does.
    pub fn update_disruption_allowed_condition(&mut self, now: SimTime) {
        let reason = match self.disruptions_allowed > 0 {
            true => Sufficiency::SufficientPods,
            false => Sufficiency::InsufficientPods,
        };
        self.set_condition(reason, self.observed_generation, now);
    }

    /// `apimeta.SetStatusCondition`: the transition time moves only when the status does.
    pub fn set_condition(&mut self, reason: Sufficiency, observed_generation: i64, now: SimTime) {
        let last_transition = match &self.condition {
            Some(c) if c.reason.allowed() == reason.allowed() => c.last_transition,
            _ => now,
        };
        self.condition = Some(DisruptionAllowed { reason, last_transition, observed_generation });
    }
}

/// One PodDisruptionBudget.
#[derive(Clone, Debug)]
pub struct ApiPdb {
    pub id: PdbId,
    pub meta: Meta,
    pub spec: Arc<PdbSpec>,
    pub status: PdbStatus,
}

impl ApiPdb {
    /// `poddisruptionbudget/NAME`.
    pub fn kubectl_name(&self) -> String {
        format!("poddisruptionbudget/{}", self.spec.name)
    }
}

impl Object for ApiPdb {
    type Id = PdbId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn namespace(&self) -> &str {
        &self.spec.namespace
    }
    fn watch_record(kind: WatchKind, pdb: Arc<Self>) -> Record {
        Record::Pdb { kind, pdb }
    }
}

impl WithStatus for ApiPdb {
    type Status<'a> = &'a mut PdbStatus;
    fn status(&mut self) -> &mut PdbStatus {
        &mut self.status
    }
}
