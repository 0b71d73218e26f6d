//! The delay before a failed Job pod is replaced (pkg/controller/job/backoff_utils.go):
//! 10 s doubling with each failure since the last success, capped at 10 min,
//! counted from when the failed pod finished.

use crate::api::pod::ApiPod;
use crate::api::status::{ConditionType, ContainerState};
use crate::time::{SimDuration, SimTime};

/// `DefaultJobPodFailureBackOff`.
pub const DEFAULT_BACKOFF: SimDuration = SimDuration::from_secs(10);
/// `MaxJobPodFailureBackOff` (a constant, not a feature gate).
pub const MAX_BACKOFF: SimDuration = SimDuration::from_secs(600);

/// `backoffRecord`: failures since the last success, and when the last one
/// finished. Kept in the controller's memory only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BackoffRecord {
    pub failures_after_last_success: u32,
    pub last_failure: Option<SimTime>,
}

impl BackoffRecord {
    /// `newBackoffRecord`: the record after the pods that finished since the
    /// last sync (their finish times, any order).
    pub fn after(self, succeeded: &[SimTime], failed: &[SimTime]) -> BackoffRecord {
        let (mut succeeded, mut failed) = (succeeded.to_vec(), failed.to_vec());
        succeeded.sort();
        failed.sort();
        let Some(&last_success) = succeeded.last() else {
            return match failed.last() {
                None => self,
                Some(&last) => BackoffRecord {
                    failures_after_last_success: self.failures_after_last_success + failed.len() as u32,
                    last_failure: Some(last),
                },
            };
        };
        // Only the failures after the last success count.
        let after: Vec<SimTime> = failed.into_iter().filter(|f| *f > last_success).collect();
        BackoffRecord { failures_after_last_success: after.len() as u32, last_failure: after.last().copied() }
    }

    /// `getRemainingTime`: how long until a replacement may be created.
    pub fn remaining(&self, now: SimTime) -> SimDuration {
        remaining_for(self.failures_after_last_success, self.last_failure, now)
    }
}

/// `getRemainingTimeForFailuresCount`: 10 s · 2^(n−1), at most 10 min,
/// less the time since the last failure.
pub fn remaining_for(failures: u32, last_failure: Option<SimTime>, now: SimTime) -> SimDuration {
    let Some(last) = last_failure.filter(|_| failures > 0) else { return SimDuration::ZERO };
    let mut backoff = DEFAULT_BACKOFF;
    for _ in 1..failures {
        backoff = backoff + backoff;
        if backoff >= MAX_BACKOFF {
            backoff = MAX_BACKOFF;
            break;
        }
    }
    backoff.saturating_sub(now.since(last))
}

/// `getFinishedTime`: the latest `finishedAt` when every container has
/// terminated, else when Ready turned False, else when the DELETE was
/// made, else the creation time — each as the API stores it, to the second.
pub fn finish_time(p: &ApiPod) -> SimTime {
    let second = SimTime::floor_second;
    let statuses = p.status.containers.iter().chain(&p.status.init_containers);
    let finished: Option<Vec<SimTime>> = statuses
        .map(|c| match &c.state {
            ContainerState::Terminated(t) => t.finished_at,
            _ => None,
        })
        .collect();
    if let Some(latest) = finished.and_then(|f| f.into_iter().max()).filter(|_| !p.status.containers.is_empty()) {
        return second(latest);
    }
    if let Some(c) = p.status.condition(&ConditionType::Ready).filter(|c| !c.status) {
        return second(c.last_transition);
    }
    if let Some(d) = p.meta.deletion {
        return d.requested();
    }
    second(p.meta.created)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: u64) -> SimTime {
        SimTime::from_millis(s * 1000)
    }

    /// Trace 019's `fail-never` Job: pods finish at 5, 18 and 41 s; the
    /// replacements may come 10, 20 and 40 s after each (15, 38, 81 s).
    #[test]
    fn the_delay_doubles_from_ten_seconds_and_counts_from_the_failure() {
        let r = BackoffRecord::default().after(&[], &[t(5)]);
        assert_eq!(r, BackoffRecord { failures_after_last_success: 1, last_failure: Some(t(5)) });
        assert_eq!(r.remaining(t(6)), SimDuration::from_secs(9));
        assert_eq!(r.remaining(t(15)), SimDuration::ZERO);
        let r = r.after(&[], &[t(18)]);
        assert_eq!(r.remaining(t(18)), SimDuration::from_secs(20));
        let r = r.after(&[], &[t(41)]);
        assert_eq!(r.remaining(t(41)), SimDuration::from_secs(40));
        // 10, 20, 40, 80, 160, 320, then 600 s for ever.
        let delays: Vec<u64> = (1..=9).map(|n| remaining_for(n, Some(t(0)), t(0)).as_millis() / 1000).collect();
        assert_eq!(delays, [10, 20, 40, 80, 160, 320, 600, 600, 600]);
    }

    /// A success resets the count; only failures after it count.
    #[test]
    fn a_success_resets_the_count() {
        let r = BackoffRecord { failures_after_last_success: 3, last_failure: Some(t(10)) };
        assert_eq!(r.after(&[t(20)], &[]), BackoffRecord::default());
        assert_eq!(
            r.after(&[t(20)], &[t(15), t(25), t(30)]),
            BackoffRecord { failures_after_last_success: 2, last_failure: Some(t(30)) }
        );
    }
}
