//! The active-deadline handler (pkg/kubelet/active_deadline.go): a pod with
//! `spec.activeDeadlineSeconds` fails once it has been active that long on
//! its node. The kubelet consults it as a pod sync loop handler (`ShouldSync`,
//! at every sync tick: `getPodsToSync`) and as a pod sync handler
//! (`ShouldEvict`, in every `generateAPIPodStatus`): the pod's status
//! becomes Failed with `PodReason::DeadlineExceeded`, and each such status
//! generation records a Normal `DeadlineExceeded` Event.

use crate::time::{SimDuration, SimTime};

/// `pastActiveDeadline`: `start` is `status.startTime` of the status
/// manager's cache (else the API pod's), which `normalizeStatus` truncated to
/// the second; the deadline is `clock.Since(start) >= activeDeadlineSeconds`.
pub fn past(active_deadline_seconds: Option<i64>, start: Option<SimTime>, now: SimTime) -> bool {
    let (Some(deadline), Some(start)) = (active_deadline_seconds, start) else {
        return false;
    };
    let allowed = SimDuration::from_secs(deadline.max(0) as u64);
    now.since(start.floor_second()) >= allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn no_deadline_or_no_start_time_never_passes() {
        assert!(!past(None, Some(ms(0)), ms(1_000_000)));
        assert!(!past(Some(5), None, ms(1_000_000)));
    }

    /// startTime 12.7 s is stored as 12 s: a 30 s deadline passes at 42 s,
    /// 0.7 s before full-precision arithmetic would say.
    #[test]
    fn the_deadline_counts_from_the_whole_second_start() {
        assert!(!past(Some(30), Some(ms(12_700)), ms(41_999)));
        assert!(past(Some(30), Some(ms(12_700)), ms(42_000)));
    }
}
