//! The per-pod rules of `updateStatefulSet` (stateful_set_control.go):
//! `processReplica` for each ordinal in range, `processCondemned` for each
//! pod out of it, as pure functions of what the controller sees of the pod.

/// What the controller reads of one pod (stateful_set_utils.go's predicates).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PodState {
    /// `isFailed || isSucceeded`.
    pub finished: bool,
    /// `isTerminating`: a deletionTimestamp.
    pub terminating: bool,
    /// `isRunningAndReady`: phase Running and Ready=True.
    pub running_and_ready: bool,
    /// `isRunningAndAvailable`: Ready for minReadySeconds (`IsPodAvailable`).
    pub available: bool,
    /// Its `controller-revision-hash` is the update revision.
    pub updated: bool,
}

impl PodState {
    /// `isHealthy`: Running, Ready and not terminating.
    pub fn healthy(&self) -> bool {
        self.running_and_ready && !self.terminating
    }

    /// `isUnavailable` (1.34+, PR #130909): not healthy, or not available yet.
    pub fn unavailable(&self) -> bool {
        !self.healthy() || !self.available
    }
}

/// Why a monotonic (OrderedReady) sync stops at a pod: the controller's log lines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// "StatefulSet is waiting for Pod to Terminate".
    Terminate,
    /// "…waiting for Pod to be Running and Ready".
    RunningAndReady,
    /// "…waiting for Pod to be Available".
    Available,
    /// A failed or succeeded pod already deleted: re-created once gone.
    Gone,
}

/// What `processReplica` or `processCondemned` does with a pod.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `CreateStatefulPod` (claims first, then the pod).
    Create,
    /// `DeleteStatefulPod`.
    Delete,
    /// Nothing now; a monotonic sync goes no further.
    Wait(Waiting),
    /// Nothing to do: on to the next pod.
    Next,
}

impl Step {
    /// `shouldExit` under OrderedReady: every step but `Next` ends the
    /// pass (one create or one delete per sync). Parallel ignores it.
    pub fn stops(self) -> bool {
        self != Step::Next
    }
}

/// `processReplica` for the ordinal's pod (`None`: no pod yet).
pub fn process_replica(pod: Option<&PodState>, monotonic: bool) -> Step {
    let Some(pod) = pod else { return Step::Create };
    // A failed pod is deleted, and re-created on a later sync once it is gone.
    if pod.finished {
        return if pod.terminating { Step::Wait(Waiting::Gone) } else { Step::Delete };
    }
    if !monotonic {
        return Step::Next;
    }
    if pod.terminating {
        return Step::Wait(Waiting::Terminate);
    }
    if !pod.running_and_ready {
        return Step::Wait(Waiting::RunningAndReady);
    }
    if !pod.available {
        return Step::Wait(Waiting::Available);
    }
    Step::Next
}

/// `processCondemned` for a pod out of range; `first_unhealthy`: it is the
/// sync's `firstUnhealthyPod`, which may be deleted unhealthy.
pub fn process_condemned(pod: &PodState, monotonic: bool, first_unhealthy: bool) -> Step {
    if pod.terminating {
        return if monotonic { Step::Wait(Waiting::Terminate) } else { Step::Next };
    }
    if monotonic && !first_unhealthy {
        if !pod.running_and_ready {
            return Step::Wait(Waiting::RunningAndReady);
        }
        if !pod.available {
            return Step::Wait(Waiting::Available);
        }
    }
    Step::Delete
}

#[cfg(test)]
mod tests {
    use super::*;

    const READY: PodState =
        PodState { finished: false, terminating: false, running_and_ready: true, available: true, updated: true };

    #[test]
    fn ordered_ready_creates_only_after_every_lower_pod_is_running_ready_and_available() {
        assert_eq!(process_replica(None, true), Step::Create);
        assert_eq!(process_replica(Some(&READY), true), Step::Next);
        let starting = PodState { running_and_ready: false, available: false, ..READY };
        assert_eq!(process_replica(Some(&starting), true), Step::Wait(Waiting::RunningAndReady));
        let young = PodState { available: false, ..READY };
        assert_eq!(process_replica(Some(&young), true), Step::Wait(Waiting::Available));
        let going = PodState { terminating: true, ..READY };
        assert_eq!(process_replica(Some(&going), true), Step::Wait(Waiting::Terminate));
        // Parallel waits on nothing.
        assert_eq!(process_replica(Some(&starting), false), Step::Next);
        assert_eq!(process_replica(None, false), Step::Create);
    }

    #[test]
    fn a_failed_pod_is_deleted_then_awaited() {
        let failed = PodState { finished: true, running_and_ready: false, available: false, ..READY };
        assert_eq!(process_replica(Some(&failed), true), Step::Delete);
        assert_eq!(process_replica(Some(&failed), false), Step::Delete);
        let deleting = PodState { terminating: true, ..failed };
        assert_eq!(process_replica(Some(&deleting), true), Step::Wait(Waiting::Gone));
    }

    #[test]
    fn scale_down_waits_on_unhealthy_pods_but_the_first_unhealthy_one() {
        assert_eq!(process_condemned(&READY, true, false), Step::Delete);
        let sick = PodState { running_and_ready: false, available: false, ..READY };
        assert_eq!(process_condemned(&sick, true, false), Step::Wait(Waiting::RunningAndReady));
        assert_eq!(process_condemned(&sick, true, true), Step::Delete);
        assert_eq!(process_condemned(&sick, false, false), Step::Delete);
        let going = PodState { terminating: true, ..READY };
        assert_eq!(process_condemned(&going, true, false), Step::Wait(Waiting::Terminate));
        assert_eq!(process_condemned(&going, false, false), Step::Next);
    }
}
