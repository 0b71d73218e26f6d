//! The status `updateStatefulSet` computes (`computeReplicaStatus`,
//! `updateStatus`), and `completeRollingUpdate`, which makes the update
//! revision current once every replica is updated and ready.

use super::replica::PodState;
use crate::api::statefulset::StsStatus;

/// One created pod as the status counts it.
#[derive(Copy, Clone, Debug)]
pub struct Counted {
    pub state: PodState,
    /// Its `controller-revision-hash` is the current revision.
    pub current: bool,
}

/// `computeReplicaStatus` over the pods that exist (in range or
/// condemned): every one counts in `replicas`, terminating ones too;
/// current and updated exclude terminating pods.
pub fn counts(pods: &[Counted], status: &mut StsStatus) {
    status.replicas = pods.len() as u32;
    status.ready_replicas = pods.iter().filter(|p| p.state.running_and_ready).count() as u32;
    status.available_replicas = pods.iter().filter(|p| p.state.running_and_ready && p.state.available).count() as u32;
    let live = || pods.iter().filter(|p| !p.state.terminating);
    status.current_replicas = live().filter(|p| p.current).count() as u32;
    status.updated_replicas = live().filter(|p| p.state.updated).count() as u32;
}

/// `completeRollingUpdate`: under RollingUpdate, when `replicas`,
/// `readyReplicas` and `updatedReplicas` all equal `spec.replicas`, the
/// update revision becomes current. OnDelete never promotes.
pub fn complete_rolling_update(rolling: bool, spec_replicas: u32, status: &mut StsStatus) {
    if rolling
        && status.updated_replicas == spec_replicas
        && status.ready_replicas == spec_replicas
        && status.replicas == spec_replicas
    {
        status.current_replicas = status.updated_replicas;
        status.current_revision = status.update_revision.clone();
    }
}

/// `inconsistentStatus`: whether the status must be written.
pub fn inconsistent(stored: &StsStatus, computed: &StsStatus) -> bool {
    computed.observed_generation > stored.observed_generation
        || computed.replicas != stored.replicas
        || computed.current_replicas != stored.current_replicas
        || computed.ready_replicas != stored.ready_replicas
        || computed.updated_replicas != stored.updated_replicas
        || computed.current_revision != stored.current_revision
        || computed.available_replicas != stored.available_replicas
        || computed.update_revision != stored.update_revision
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(ready: bool, updated: bool, current: bool, terminating: bool) -> Counted {
        let state = PodState { finished: false, terminating, running_and_ready: ready, available: ready, updated };
        Counted { state, current }
    }

    #[test]
    fn terminating_pods_count_as_replicas_and_ready_but_not_current_or_updated() {
        let mut s = StsStatus::default();
        let pods =
            [counted(true, false, true, false), counted(true, true, false, false), counted(true, false, true, true)];
        counts(&pods, &mut s);
        assert_eq!(
            (s.replicas, s.ready_replicas, s.available_replicas, s.current_replicas, s.updated_replicas),
            (3, 3, 3, 1, 1)
        );
    }

    #[test]
    fn the_update_revision_becomes_current_when_all_are_updated_and_ready() {
        let mut s = StsStatus {
            replicas: 3,
            ready_replicas: 3,
            updated_replicas: 3,
            current_replicas: 0,
            current_revision: "web-1".into(),
            update_revision: "web-2".into(),
            ..Default::default()
        };
        complete_rolling_update(false, 3, &mut s);
        assert_eq!(&*s.current_revision, "web-1", "OnDelete never promotes");
        complete_rolling_update(true, 3, &mut s);
        assert_eq!((&*s.current_revision, s.current_replicas), ("web-2", 3));
        let mut partitioned = StsStatus { updated_replicas: 1, ..s.clone() };
        partitioned.current_revision = "web-1".into();
        complete_rolling_update(true, 3, &mut partitioned);
        assert_eq!(&*partitioned.current_revision, "web-1", "a partition holds the old revision current");
    }
}
