//! Pod availability, the ReplicaSet's status counts, and when it looks again
//! for pods about to become available (pkg/api/v1/pod `IsPodAvailable`,
//! replica_set_utils.go `calculateStatus`, replica_set.go's requeue after
//! PR #132121).

use crate::time::{SimDuration, SimTime};

/// podutil.IsPodAvailable: Ready, and minReadySeconds is 0 or the Ready lastTransitionTime plus
/// minReadySeconds is at or before now (`<=` since PR #132122, in 1.34: every version podsim
/// models; strictly before until then). `ready_since` is Some(lastTransitionTime) iff Ready.
pub fn is_pod_available(ready_since: Option<SimTime>, min_ready_seconds: u32, now: SimTime) -> bool {
    match ready_since {
        None => false,
        Some(_) if min_ready_seconds == 0 => true,
        Some(t) => t + SimDuration::from_secs(min_ready_seconds as u64) <= now,
    }
}

/// What the status reads of one active pod claimed by the ReplicaSet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RsPodView {
    /// Its labels match the template's (`fullyLabeledReplicas`).
    pub labels_match_template: bool,
    /// The Ready condition's `lastTransitionTime` when the pod is Ready.
    pub ready_since: Option<SimTime>,
}

/// The counts of a ReplicaSet's `status`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RsStatusCounts {
    pub replicas: u32,
    pub fully_labeled_replicas: u32,
    pub ready_replicas: u32,
    pub available_replicas: u32,
    /// `None` when the field is absent (gate off).
    pub terminating_replicas: Option<u32>,
}

/// calculateStatus (replica_set_utils.go): counts over the active pods; terminatingReplicas only
/// with the DeploymentReplicaSetTerminatingReplicas gate (then present even when 0).
pub fn calculate_status(
    active: &[RsPodView],
    terminating: u32,
    terminating_gate: bool,
    min_ready_seconds: u32,
    now: SimTime,
) -> RsStatusCounts {
    RsStatusCounts {
        replicas: active.len() as u32,
        fully_labeled_replicas: active.iter().filter(|p| p.labels_match_template).count() as u32,
        ready_replicas: active.iter().filter(|p| p.ready_since.is_some()).count() as u32,
        available_replicas: active.iter().filter(|p| is_pod_available(p.ready_since, min_ready_seconds, now)).count()
            as u32,
        terminating_replicas: terminating_gate.then_some(terminating),
    }
}

// syncReplicaSet's availability requeue (PR #132121, FindMinNextPodAvailabilityCheck): with
// minReadySeconds > 0 and ready ≠ available, look again when the earliest Ready-but-not-available
// pod (as of `status_now`, when the status was computed) becomes available, measured from
// `clock_now` and floored at 0; minReadySeconds if there is no such pod.
//
// A pod not available at `status_now` becomes so at lastTransitionTime + minReadySeconds, later
// than `status_now` (availability is `<=`): the delay is positive when both clocks agree.
pub fn next_availability_check(
    active: &[RsPodView],
    status: &RsStatusCounts,
    min_ready_seconds: u32,
    status_now: SimTime,
    clock_now: SimTime,
) -> Option<SimDuration> {
    if min_ready_seconds == 0 || status.ready_replicas == status.available_replicas {
        return None;
    }
    let min_ready = SimDuration::from_secs(min_ready_seconds as u64);
    let earliest = active
        .iter()
        .filter_map(|p| p.ready_since)
        .filter(|&t| !is_pod_available(Some(t), min_ready_seconds, status_now))
        .min();
    Some(match earliest {
        Some(t) => (t + min_ready).since(clock_now),
        None => min_ready,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: u64) -> SimTime {
        SimTime::from_millis(secs * 1000)
    }

    #[test]
    fn availability_comes_at_min_ready_seconds() {
        // minReadySeconds 0: Ready is enough.
        assert!(is_pod_available(Some(s(10)), 0, s(10)));
        assert!(!is_pod_available(None, 0, s(10)));
        // Ready at 10 s, minReadySeconds 5: available at 15 s itself (`<=`, PR #132122), not a millisecond before.
        assert!(!is_pod_available(Some(s(10)), 5, s(15) - SimDuration::from_millis(1)));
        assert!(is_pod_available(Some(s(10)), 5, s(15)));
    }

    #[test]
    fn counts() {
        let pods = [
            RsPodView { labels_match_template: true, ready_since: Some(s(1)) },
            RsPodView { labels_match_template: true, ready_since: Some(s(8)) },
            RsPodView { labels_match_template: false, ready_since: None },
        ];
        // At 10 s with minReadySeconds 5: ready 2; available only the first (1 + 5 < 10; 8 + 5 ≥ 10).
        let st = calculate_status(&pods, 2, true, 5, s(10));
        assert_eq!(
            st,
            RsStatusCounts {
                replicas: 3,
                fully_labeled_replicas: 2,
                ready_replicas: 2,
                available_replicas: 1,
                terminating_replicas: Some(2),
            }
        );
        // Gate on with no terminating pods: Some(0); gate off: None.
        assert_eq!(calculate_status(&pods, 0, true, 5, s(10)).terminating_replicas, Some(0));
        assert_eq!(calculate_status(&pods, 2, false, 5, s(10)).terminating_replicas, None);
    }

    #[test]
    fn next_check() {
        let pods = [
            RsPodView { labels_match_template: true, ready_since: Some(s(1)) },
            RsPodView { labels_match_template: true, ready_since: Some(s(8)) },
            RsPodView { labels_match_template: true, ready_since: Some(s(9)) },
        ];
        let st = calculate_status(&pods, 0, false, 5, s(10));
        // Earliest not yet available: ready at 8 s → available after 13 s; from 10 s: 3 s.
        assert_eq!(next_availability_check(&pods, &st, 5, s(10), s(10)), Some(SimDuration::from_secs(3)));
        // Measured from a later clock (the status write took 1 s): 2 s.
        assert_eq!(next_availability_check(&pods, &st, 5, s(10), s(11)), Some(SimDuration::from_secs(2)));
        // Already past by the clock: 0.
        assert_eq!(next_availability_check(&pods, &st, 5, s(10), s(20)), Some(SimDuration::ZERO));
        // Everything available, or minReadySeconds 0: no requeue.
        let all = calculate_status(&pods, 0, false, 5, s(30));
        assert_eq!(next_availability_check(&pods, &all, 5, s(30), s(30)), None);
        assert_eq!(next_availability_check(&pods, &st, 0, s(10), s(10)), None);
        // Counts that disagree with the pods (no candidate): the minReadySeconds fallback.
        let stale = RsStatusCounts { ready_replicas: 3, available_replicas: 1, ..st };
        assert_eq!(next_availability_check(&pods, &stale, 5, s(30), s(30)), Some(SimDuration::from_secs(5)));
    }
}
