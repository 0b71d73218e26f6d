//! `updatePdbStatus` (pkg/controller/disruption/disruption.go): the status a
//! sync writes, or none when the stored one says the same.

use crate::api::disruption::PdbStatus;
use crate::time::SimTime;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a sync found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    pub current_healthy: i32,
    pub desired_healthy: i32,
    pub expected_pods: i32,
    pub disrupted_pods: BTreeMap<Arc<str>, SimTime>,
}

/// `disruptionsAllowed = currentHealthy − desiredHealthy`, 0 when that is
/// not positive or no pod is expected (a budget matching no pod yet is safe
/// when its first pods appear).
pub fn disruptions_allowed(current_healthy: i32, desired_healthy: i32, expected_pods: i32) -> i32 {
    let allowed = current_healthy - desired_healthy;
    if expected_pods <= 0 || allowed <= 0 { 0 } else { allowed }
}

/// The new status, `None` when the stored one (`old`, of a budget at
/// `generation`) already says it, its condition up to date
/// (`ConditionsAreUpToDate`).
pub fn update_pdb_status(old: &PdbStatus, generation: i64, counts: Counts, now: SimTime) -> Option<PdbStatus> {
    let allowed = disruptions_allowed(counts.current_healthy, counts.desired_healthy, counts.expected_pods);
    let mut new = PdbStatus {
        observed_generation: generation,
        disruptions_allowed: allowed,
        current_healthy: counts.current_healthy,
        desired_healthy: counts.desired_healthy,
        expected_pods: counts.expected_pods,
        disrupted_pods: counts.disrupted_pods,
        condition: old.condition.clone(),
    };
    new.update_disruption_allowed_condition(now);
    // Only the transition time may differ when nothing else does.
    let same_condition = old.condition.as_ref().map(|c| (&c.reason, c.observed_generation))
        == new.condition.as_ref().map(|c| (&c.reason, c.observed_generation));
    let same = PdbStatus { condition: old.condition.clone(), ..new.clone() } == *old && same_condition;
    (!same).then_some(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::disruption::Sufficiency;

    #[test]
    fn allowed_disruptions_clamp_at_zero_and_need_expected_pods() {
        assert_eq!(disruptions_allowed(3, 2, 3), 1);
        assert_eq!(disruptions_allowed(2, 2, 3), 0);
        assert_eq!(disruptions_allowed(1, 2, 3), 0, "never negative");
        assert_eq!(disruptions_allowed(3, 0, 0), 0, "no pod expected");
    }

    /// A first write sets observedGeneration and the condition; the same
    /// counts again write nothing; one fewer healthy pod flips the condition.
    #[test]
    fn the_condition_follows_the_allowed_disruptions() {
        let t = SimTime::ZERO;
        let counts = |healthy| Counts {
            current_healthy: healthy,
            desired_healthy: 2,
            expected_pods: 3,
            disrupted_pods: BTreeMap::new(),
        };
        let first = update_pdb_status(&PdbStatus::default(), 1, counts(3), t).unwrap();
        assert_eq!((first.observed_generation, first.disruptions_allowed), (1, 1));
        assert_eq!(first.condition.clone().unwrap().reason, Sufficiency::SufficientPods);
        assert_eq!(update_pdb_status(&first, 1, counts(3), t + crate::time::SimDuration::from_secs(1)), None);
        let later = t + crate::time::SimDuration::from_secs(5);
        let second = update_pdb_status(&first, 1, counts(2), later).unwrap();
        assert_eq!(second.disruptions_allowed, 0);
        let c = second.condition.clone().unwrap();
        assert_eq!((c.reason, c.last_transition), (Sufficiency::InsufficientPods, later));
    }
}
