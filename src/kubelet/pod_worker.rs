//! The pod worker (pkg/kubelet/pod_workers.go): one sync at a time per pod,
//! each waiting for a PLEG relist newer than the previous sync's end, and the
//! work-queue requeue that decides when an idle pod is synced again.

use crate::cluster::Version;
use crate::spec::PodSpec;
use crate::time::{SimDuration, SimTime};

/// Where the pod is in its life, as the pod worker tracks it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lifecycle {
    /// `SyncPod` on every update.
    Syncing,
    /// `SyncTerminatingPod`: stop every container.
    Terminating,
    /// `SyncTerminatedPod`: final status, cleanup.
    Terminated,
    /// Nothing more to do.
    Finished,
    /// Never handed to the pod worker: the kubelet's admission rejected it
    /// (`rejectPod`), so no sandbox or container is ever made for it.
    Rejected,
}

/// What the worker goroutine is doing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Work {
    Idle,
    /// Waiting in `podCache.GetNewerThan` for a fresh relist.
    WaitingForCache,
    /// Running the sync with this id.
    Syncing(u64),
}

#[derive(Clone, Debug)]
pub struct PodWorker {
    pub lifecycle: Lifecycle,
    pub work: Work,
    /// An update arrived while busy (`pendingUpdate`).
    pub pending: bool,
    /// `lastSyncTime`: when the previous sync returned.
    pub last_sync_end: Option<SimTime>,
    /// The grace period termination uses, in seconds (0 before it is set).
    grace: i64,
    next_sync: u64,
}

impl Default for PodWorker {
    fn default() -> Self {
        PodWorker {
            lifecycle: Lifecycle::Syncing,
            work: Work::Idle,
            pending: false,
            last_sync_end: None,
            grace: 0,
            next_sync: 0,
        }
    }
}

impl PodWorker {
    /// `UpdatePod`: returns true when the worker should now wait for the cache.
    pub fn update(&mut self) -> bool {
        if matches!(self.lifecycle, Lifecycle::Finished | Lifecycle::Rejected) {
            return false;
        }
        match self.work {
            Work::Idle => {
                self.work = Work::WaitingForCache;
                true
            }
            _ => {
                self.pending = true;
                false
            }
        }
    }

    /// The cache is fresh: the sync starts.
    pub fn begin(&mut self) -> u64 {
        self.next_sync += 1;
        self.work = Work::Syncing(self.next_sync);
        self.next_sync
    }

    /// The sync returned: `lastSyncTime = now`; returns true if a pending
    /// update makes the worker wait for the cache again at once.
    pub fn end(&mut self, now: SimTime) -> bool {
        self.last_sync_end = Some(now);
        if std::mem::take(&mut self.pending) {
            self.work = Work::WaitingForCache;
            true
        } else {
            self.work = Work::Idle;
            false
        }
    }

    /// `calculateEffectiveGracePeriod`: the deletion's grace if shorter than
    /// the one in use, else the pod's `terminationGracePeriodSeconds`; at least 1 s.
    pub fn effective_grace(&mut self, deletion_grace: Option<i64>, spec: &PodSpec) -> i64 {
        let mut g = self.grace;
        let mut overridden = false;
        if let Some(d) = deletion_grace
            && (g == 0 || d < g)
        {
            g = d;
            overridden = true;
        }
        if !overridden && g == 0 {
            g = (spec.termination_grace.as_millis() / 1000) as i64;
        }
        self.grace = g.max(1);
        self.grace
    }

    pub fn could_have_running_containers(&self) -> bool {
        matches!(self.lifecycle, Lifecycle::Syncing | Lifecycle::Terminating)
    }
}

/// How a sync ended, for `completeWork`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SyncOutcome {
    Ok,
    /// The pod moved to terminating or terminated: requeue at once.
    PhaseTransition,
    /// An error; for CrashLoopBackOff the earliest backoff expiry.
    Error {
        backoff_expiry: Option<SimTime>,
    },
}

/// `wait.Jitter(d, 0.5)`: uniform in [d, 1.5·d); `unit` is uniform in [0, 1).
fn jitter(d: SimDuration, unit: f64) -> SimDuration {
    d + SimDuration::from_millis((d.as_millis() as f64 * 0.5 * unit) as u64)
}

/// Backoff period of generic sync errors (`backOffPeriod` in kubelet.go).
pub const BACKOFF_PERIOD: SimDuration = SimDuration::from_secs(10);

/// `completeWork`: the delay before the work queue offers the pod again.
/// Before 1.35 every error waits 10–15 s; from 1.35 (PR #133066) a
/// CrashLoopBackOff error waits until its expiry, capped at the resync interval.
pub fn requeue_delay(
    outcome: SyncOutcome,
    version: Version,
    resync: SimDuration,
    now: SimTime,
    unit: f64,
) -> SimDuration {
    match outcome {
        SyncOutcome::PhaseTransition => SimDuration::ZERO,
        SyncOutcome::Ok => jitter(resync, unit),
        SyncOutcome::Error { backoff_expiry: Some(expiry) } if version >= Version::V1_35 => {
            jitter(expiry.since(now).min(resync), unit)
        }
        SyncOutcome::Error { .. } => jitter(BACKOFF_PERIOD, unit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: SimDuration = SimDuration::from_secs(60);

    #[test]
    fn crash_loop_requeue_depends_on_the_version() {
        let now = SimTime::from_millis(100_000);
        let err = SyncOutcome::Error { backoff_expiry: Some(now + SimDuration::from_secs(40)) };
        // 1.34: 10 s jittered to at most 15 s, whatever the backoff.
        assert_eq!(requeue_delay(err, Version::V1_34, MIN, now, 0.0), SimDuration::from_secs(10));
        assert_eq!(requeue_delay(err, Version::V1_34, MIN, now, 0.999), SimDuration::from_millis(14_995));
        // 1.35+: the remaining 40 s, jittered up to +50 %.
        assert_eq!(requeue_delay(err, Version::V1_35, MIN, now, 0.0), SimDuration::from_secs(40));
        assert_eq!(requeue_delay(err, Version::V1_37, MIN, now, 0.5), SimDuration::from_secs(50));
        // Capped at the resync interval.
        let long = SyncOutcome::Error { backoff_expiry: Some(now + SimDuration::from_secs(300)) };
        assert_eq!(requeue_delay(long, Version::V1_36, MIN, now, 0.0), MIN);
        assert_eq!(requeue_delay(SyncOutcome::Ok, Version::V1_37, MIN, now, 0.0), MIN);
    }
}
