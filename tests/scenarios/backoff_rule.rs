//! CrashLoopBackOff for containers killed by a probe, replayed from the rule
//! (kuberuntime_manager.go `SyncPod` and `doBackOff`): the kill and the
//! restart run in one sync whose snapshot was taken before the kill, so
//! `doBackOff` sees the previous dead instance, not the one just killed.

use crate::common::{Life, secs, within};
use podsim::time::{SimDuration, SimTime};

/// What the kubelet does right after the k-th probe kill.
#[derive(Debug, PartialEq, Eq)]
pub enum AfterKill {
    /// Restarted in the same sync.
    Immediate,
    /// Held back: restarted no earlier than this instance's exit + `backoff`.
    Wait { backoff: SimDuration },
}

/// Replays `doBackOff` + flowcontrol over consecutive probe-killed lives
/// (initial 10 s, max 300 s; runs shorter than 10 minutes).
pub fn replay(lives: &[Life]) -> Vec<AfterKill> {
    let (initial, max) = (SimDuration::from_secs(10), SimDuration::from_secs(300));
    let mut entry: Option<SimDuration> = None;
    let mut prev_exit: Option<SimTime> = None;
    let mut out = Vec::new();
    for l in lives.iter().filter(|l| l.sigterm.is_some() && l.finished.is_some()) {
        let exit = l.finished.unwrap();
        match (prev_exit, entry) {
            // No exited instance in the snapshot: start, no Next.
            (None, _) => out.push(AfterKill::Immediate),
            (Some(p), Some(b)) if exit.since(p) < b => {
                out.push(AfterKill::Wait { backoff: b });
                // The held-back restart calls Next when it finally happens.
                entry = Some((b * 2).min(max));
            }
            (Some(_), b) => {
                out.push(AfterKill::Immediate);
                entry = Some(b.map_or(initial, |b| (b * 2).min(max)));
            }
        }
        prev_exit = Some(exit);
    }
    out
}

/// Checks each restart after a probe kill against the replayed decision:
/// an immediate restart comes within the create + start latencies; a held-back
/// one no earlier than exit + backoff and, with the 1.35+ requeue, at most
/// half of the last ≤ 60 s slice late (plus the sync ticker and a relist).
pub fn assert_restarts(lives: &[Life], expected: &[AfterKill]) {
    for (k, e) in expected.iter().enumerate() {
        let (exit, next) = (lives[k].finished.unwrap(), lives.get(k + 1).map(|l| l.started));
        match (e, next) {
            (AfterKill::Immediate, Some(n)) => within("immediate restart", n, exit, exit + secs(0.5)),
            (AfterKill::Wait { backoff }, Some(n)) => {
                within("held-back restart", n, exit + *backoff, exit + *backoff + secs(32.5))
            }
            (_, None) => {}
        }
    }
}
