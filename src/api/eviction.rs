//! The Eviction API: `POST pods/NAME/eviction` (policy/v1), the pod's
//! subresource that deletes it only when its PodDisruptionBudget allows
//! (pkg/registry/core/pod/storage/eviction.go, `EvictionREST.Create`).
//! A request is answered as it arrives: the API server's conflict retries
//! (`EvictionsRetry`) have nothing to retry against in one process.

use super::ApiServer;
use super::disruption::PdbStatus;
use super::status::{Condition, ConditionType, PodPhase};
use super::store::Precondition;
use crate::ids::{PdbId, PodId};
use crate::spec::UnhealthyPodEvictionPolicy;
use crate::time::SimTime;
use crate::trace::Trace;
use std::sync::Arc;

/// The 429's message (`checkAndDecrement`, `createTooManyRequestsError`).
pub const VIOLATES_BUDGET: &str = "Cannot evict pod as it would violate the pod's disruption budget.";
/// The 500 of a pod more than one budget selects (`getPodDisruptionBudgets`' caller).
pub const MORE_THAN_ONE_BUDGET: &str =
    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";

/// What the API server answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Eviction {
    /// 201, `{"kind":"Status","status":"Success","code":201}`: the pod got
    /// its DisruptionTarget condition and was deleted.
    Evicted,
    /// 404: `pods "NAME" not found`.
    NotFound,
    /// 429 [`VIOLATES_BUDGET`], with its cause (type `DisruptionBudget`).
    TooManyRequests { cause: String },
    /// 500 [`MORE_THAN_ONE_BUDGET`].
    MoreThanOneBudget,
}

impl Eviction {
    /// The answer as a one-line status: code, and message and cause.
    pub fn describe(&self, pod: &str) -> String {
        match self {
            Eviction::Evicted => "201 Success".into(),
            Eviction::NotFound => format!("404 NotFound: pods {pod:?} not found"),
            Eviction::TooManyRequests { cause } => format!("429 TooManyRequests: {VIOLATES_BUDGET} ({cause})"),
            Eviction::MoreThanOneBudget => format!("500 InternalError: {MORE_THAN_ONE_BUDGET}"),
        }
    }
}

/// `canIgnorePDB`: a finished or Pending pod, or one already deleting, goes
/// without asking any budget.
fn can_ignore_pdb(phase: PodPhase, deleting: bool) -> bool {
    matches!(phase, PodPhase::Succeeded | PodPhase::Failed | PodPhase::Pending) || deleting
}

/// An eviction the API server admits: how it goes on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admitted {
    /// The pod is deleted without touching a budget.
    Delete,
    /// One disruption of this budget is spent first (`checkAndDecrement`).
    Decrement(PdbId),
}

impl ApiServer {
    /// `EvictionREST.Create` of `pod` with DeleteOptions' `gracePeriodSeconds` = `grace`.
    pub fn evict(&mut self, id: PodId, grace: Option<i64>, now: SimTime, trace: &mut Trace) -> Eviction {
        match self.admit_eviction(id) {
            Err(refused) => refused,
            Ok(admitted) => {
                if let Admitted::Decrement(pdb) = admitted {
                    let name: Arc<str> = Arc::from(self.pods.get(id).spec.name.as_str());
                    self.decrement(pdb, name, now, trace);
                }
                self.add_condition_and_delete_pod(id, grace, now, trace)
            }
        }
    }

    /// What `Create` decides, before it writes anything: `canIgnorePDB`,
    /// the budgets selecting the pod, an unhealthy pod per the budget's
    /// policy, then `checkAndDecrement`'s checks.
    pub fn admit_eviction(&self, id: PodId) -> Result<Admitted, Eviction> {
        let p = self.pods.get(id);
        if p.meta.removed {
            return Err(Eviction::NotFound);
        }
        if can_ignore_pdb(p.status.phase, p.meta.deletion.is_some()) {
            return Ok(Admitted::Delete);
        }
        let mut budgets =
            (self.pdbs.all().iter()).filter(|b| !b.meta.removed && b.spec.selects(&p.spec.namespace, &p.spec.labels));
        let b = match (budgets.next(), budgets.next()) {
            (None, _) => return Ok(Admitted::Delete),
            (Some(b), None) => b,
            (Some(_), Some(_)) => return Err(Eviction::MoreThanOneBudget),
        };
        let status = &b.status;
        // An unhealthy pod (`IsPodReady` false) per the budget's policy.
        if !p.status.condition_true(&ConditionType::Ready) {
            let healthy_budget = status.current_healthy >= status.desired_healthy && status.desired_healthy > 0;
            match b.spec.unhealthy_policy() {
                UnhealthyPodEvictionPolicy::AlwaysAllow => return Ok(Admitted::Delete),
                UnhealthyPodEvictionPolicy::IfHealthyBudget if healthy_budget => return Ok(Admitted::Delete),
                UnhealthyPodEvictionPolicy::IfHealthyBudget => {}
            }
        }
        let name = &b.spec.name;
        if status.observed_generation < b.meta.generation {
            let cause = format!("The disruption budget {name} is still being processed by the server.");
            return Err(Eviction::TooManyRequests { cause });
        }
        if status.disruptions_allowed == 0 {
            let cause = format!(
                "The disruption budget {name} needs {} healthy pods and has {} currently",
                status.desired_healthy, status.current_healthy
            );
            return Err(Eviction::TooManyRequests { cause });
        }
        Ok(Admitted::Decrement(b.id))
    }

    /// `checkAndDecrement`'s write: one disruption spent (the condition
    /// recomputed when none is left) and the pod recorded in `disruptedPods`.
    fn decrement(&mut self, pdb: PdbId, pod: Arc<str>, now: SimTime, trace: &mut Trace) {
        let b = self.pdbs.get(pdb);
        let mut next: PdbStatus = b.status.clone();
        next.disruptions_allowed -= 1;
        if next.disruptions_allowed == 0 {
            next.update_disruption_allowed_condition(now);
        }
        next.disrupted_pods.insert(pod, now);
        let read = b.meta.resource_version;
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        // Read and written in one step: the resourceVersion read is current.
        let _ = self.pdbs.write_status(pdb, Precondition::ResourceVersion(read), c, |s| {
            *s = next;
            true
        });
    }

    /// `addConditionAndDeletePod`: an update adding `DisruptionTarget=True`
    /// (`EvictionByEvictionAPI`, "Eviction API: evicting"; PodDisruptionConditions
    /// is GA since 1.31), then the DELETE with the eviction's options.
    fn add_condition_and_delete_pod(
        &mut self,
        id: PodId,
        grace: Option<i64>,
        now: SimTime,
        trace: &mut Trace,
    ) -> Eviction {
        let target = Condition::new(ConditionType::Other(Arc::from("DisruptionTarget")), true)
            .reason("EvictionByEvictionAPI")
            .message("Eviction API: evicting".into());
        self.set_condition(id, target, now, trace);
        self.delete(id, grace, now, trace);
        Eviction::Evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `canIgnorePDB`: Pending counts, as do finished pods and deleting ones; Running does not.
    #[test]
    fn pending_finished_and_deleting_pods_ignore_budgets() {
        assert!(can_ignore_pdb(PodPhase::Pending, false));
        assert!(can_ignore_pdb(PodPhase::Succeeded, false));
        assert!(can_ignore_pdb(PodPhase::Failed, false));
        assert!(can_ignore_pdb(PodPhase::Running, true));
        assert!(!can_ignore_pdb(PodPhase::Running, false));
    }
}
