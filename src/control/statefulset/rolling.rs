//! The RollingUpdate step of `updateStatefulSet` (stateful_set_control.go):
//! which pods to delete so that they come back at the update revision,
//! highest ordinal first, never below the partition.
//!
//! Two algorithms, by the `MaxUnavailableStatefulSet` gate: off (1.34,
//! 1.35.4+, 1.36), one pod at a time, each replacement available before the
//! next; on (1.37), up to `maxUnavailable` at once
//! (`updateStatefulSetAfterInvariantEstablished`, with PR #137666's fix).

use super::replica::PodState;
use crate::cluster::Version;
use crate::spec::IntOrPercent;

/// `MaxUnavailableStatefulSet`'s default: on in 1.37 only (beta on in
/// 1.35.0–1.35.3, demoted from 1.35.4 and in 1.36: podsim models the
/// latest patch of each minor).
pub fn max_unavailable_gate(version: Version) -> bool {
    version >= Version::V1_37
}

/// What the update step does this sync.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UpdateStep {
    /// Indices into the replicas (ordinal − start) to delete, highest first.
    pub delete: Vec<usize>,
    /// It stopped at a pod that is not available yet.
    pub waiting: Option<usize>,
}

/// The legacy loop (gate off): from the highest ordinal down to the
/// partition, delete the first pod not at the update revision; stop at an
/// updated pod that is unavailable. One deletion per sync.
pub fn one_at_a_time(replicas: &[PodState], partition: u32) -> UpdateStep {
    let min = partition as usize;
    for target in (min..replicas.len()).rev() {
        let pod = &replicas[target];
        if !pod.updated && !pod.terminating {
            return UpdateStep { delete: vec![target], waiting: None };
        }
        if pod.unavailable() {
            return UpdateStep { delete: Vec::new(), waiting: Some(target) };
        }
    }
    UpdateStep::default()
}

/// `getStatefulSetMaxUnavailable`: the value (default 1) scaled on the
/// replicas, a percentage rounded down, at least 1.
pub fn max_unavailable(value: Option<IntOrPercent>, replicas: u32) -> u32 {
    let n = match value.unwrap_or(IntOrPercent::Int(1)) {
        IntOrPercent::Int(n) => n,
        IntOrPercent::Percent(p) => (u64::from(p) * u64::from(replicas) / 100) as u32,
    };
    n.max(1)
}

/// `updateStatefulSetAfterInvariantEstablished` with the gate on (1.37):
/// within the budget `maxUnavailable − unavailable`, old pods highest
/// first. Parallel first deletes every old pod that is unavailable anyway
/// (they cost no budget: PR #137666), OrderedReady keeps the single pass.
pub fn within_budget(replicas: &[PodState], partition: u32, max_unavailable: u32, parallel: bool) -> UpdateStep {
    let min = partition as usize;
    let unavailable = replicas.iter().filter(|p| p.unavailable()).count() as u32;
    let old = |p: &PodState| !p.updated && !p.terminating;
    let targets = || (min..replicas.len()).rev();
    let mut delete = Vec::new();
    if parallel {
        delete.extend(targets().filter(|&t| old(&replicas[t]) && replicas[t].unavailable()));
    }
    if unavailable >= max_unavailable && delete.is_empty() {
        return UpdateStep::default();
    }
    let mut budget = max_unavailable.saturating_sub(unavailable);
    for t in targets() {
        if budget == 0 {
            break;
        }
        let pod = &replicas[t];
        let counted = parallel && pod.unavailable();
        if old(pod) && !counted {
            delete.push(t);
            budget -= 1;
        }
    }
    delete.sort_unstable_by_key(|&t| std::cmp::Reverse(t));
    UpdateStep { delete, waiting: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(updated: bool, ready: bool) -> PodState {
        PodState { finished: false, terminating: false, running_and_ready: ready, available: ready, updated }
    }

    #[test]
    fn one_at_a_time_from_the_top_down_to_the_partition() {
        let old = [pod(false, true), pod(false, true), pod(false, true)];
        assert_eq!(one_at_a_time(&old, 0).delete, vec![2]);
        let top_new_not_ready = [pod(false, true), pod(false, true), pod(true, false)];
        assert_eq!(one_at_a_time(&top_new_not_ready, 0), UpdateStep { delete: vec![], waiting: Some(2) });
        let top_done = [pod(false, true), pod(false, true), pod(true, true)];
        assert_eq!(one_at_a_time(&top_done, 0).delete, vec![1]);
        assert_eq!(one_at_a_time(&top_done, 2), UpdateStep::default(), "ordinals below the partition stay");
        assert_eq!(one_at_a_time(&top_done, 5), UpdateStep::default(), "a partition above the replicas");
    }

    #[test]
    fn the_budget_rounds_a_percentage_down_and_is_at_least_one() {
        assert_eq!(max_unavailable(None, 5), 1);
        assert_eq!(max_unavailable(Some(IntOrPercent::Percent(50)), 5), 2);
        assert_eq!(max_unavailable(Some(IntOrPercent::Percent(10)), 5), 1);
        assert_eq!(max_unavailable(Some(IntOrPercent::Int(3)), 5), 3);
    }

    #[test]
    fn within_budget_deletes_several_old_pods_at_once() {
        let old = [pod(false, true), pod(false, true), pod(false, true), pod(false, true), pod(false, true)];
        assert_eq!(within_budget(&old, 0, 2, false).delete, vec![4, 3]);
        assert_eq!(within_budget(&old, 4, 2, false).delete, vec![4], "the partition still holds");
        let one_down = [pod(false, true), pod(false, true), pod(false, true), pod(true, true), pod(true, false)];
        assert_eq!(within_budget(&one_down, 0, 2, false).delete, vec![2]);
        assert_eq!(within_budget(&one_down, 0, 1, false), UpdateStep::default(), "no budget left");
        // Parallel: a broken old pod is replaced whatever the budget (PR #137666).
        let broken = [pod(false, false)];
        assert_eq!(within_budget(&broken, 0, 1, true).delete, vec![0]);
        assert_eq!(within_budget(&broken, 0, 1, false), UpdateStep::default());
    }
}
