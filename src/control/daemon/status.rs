//! `updateDaemonSetStatus` (daemon_controller.go): the seven counts, each
//! eligible node judged by its oldest pod.

use super::view::{NodePods, NodeVerdict, by_creation_and_phase};
use crate::api::daemonset::DaemonSetStatus;
use crate::time::{SimDuration, SimTime};

/// The status counts of the DaemonSet now (`observedGeneration` left to the caller).
pub fn calculate_status(
    nodes: &[NodeVerdict],
    pods: &NodePods,
    min_ready_seconds: u32,
    now: SimTime,
) -> DaemonSetStatus {
    let mut s = DaemonSetStatus::default();
    for node in nodes {
        let on = pods.get(&node.name).filter(|p| !p.is_empty());
        if !node.should_run {
            // Misscheduled uses shouldRun: a NotReady node's kept pod counts here.
            s.number_misscheduled += u32::from(on.is_some());
            continue;
        }
        s.desired_number_scheduled += 1;
        let Some(on) = on else { continue };
        s.current_number_scheduled += 1;
        let Some(oldest) = on.iter().min_by(|a, b| by_creation_and_phase(a, b)) else { continue };
        if oldest.ready() {
            s.number_ready += 1;
            s.number_available += u32::from(oldest.available(min_ready_seconds, now));
        }
        s.updated_number_scheduled += u32::from(oldest.updated);
    }
    s.number_unavailable = s.desired_number_scheduled - s.number_available;
    s
}

/// The requeue `updateDaemonSetStatus` asks for: after minReadySeconds
/// while some Ready pod is not yet available.
pub fn availability_requeue(s: &DaemonSetStatus, min_ready_seconds: u32) -> Option<SimDuration> {
    (min_ready_seconds > 0 && s.number_ready != s.number_available)
        .then(|| SimDuration::from_secs(u64::from(min_ready_seconds)))
}

/// `storeDaemonSetStatus` writes nothing when every count is the same and
/// the stored status has observed the DaemonSet's `generation`.
pub fn unchanged(old: &DaemonSetStatus, new: &DaemonSetStatus, generation: i64) -> bool {
    let counts = |s: &DaemonSetStatus| DaemonSetStatus { observed_generation: 0, ..s.clone() };
    counts(old) == counts(new) && old.observed_generation >= generation
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::status::PodPhase;
    use crate::control::daemon::view::PodView;
    use crate::ids::PodId;
    use std::sync::Arc;

    fn pod(id: u32, created: u64, ready: Option<u64>, updated: bool) -> PodView {
        PodView {
            id: PodId(id),
            name: Arc::from(format!("ds-{id}")),
            bound: true,
            created: SimTime::from_millis(created * 1000),
            deleting: false,
            phase: PodPhase::Running,
            ready_since: ready.map(|s| SimTime::from_millis(s * 1000)),
            updated,
            current_hash: updated,
        }
    }

    /// The oldest pod per node counts: a surged node stays not updated
    /// until its old pod goes; a NotReady node's pod is misscheduled.
    #[test]
    fn counts_judge_the_oldest_pod() {
        let node = |n: &str, run: bool| NodeVerdict { name: Arc::from(n), should_run: run, should_continue: true };
        let nodes = [node("a", true), node("b", true), node("c", true), node("d", false)];
        let mut pods = NodePods::new();
        pods.insert(Arc::from("a"), vec![pod(2, 9, Some(10), true), pod(1, 1, Some(2), false)]);
        pods.insert(Arc::from("b"), vec![pod(3, 1, Some(8), true)]);
        pods.insert(Arc::from("d"), vec![pod(4, 1, Some(2), false)]);
        let s = calculate_status(&nodes, &pods, 5, SimTime::from_millis(10_000));
        let want = DaemonSetStatus {
            desired_number_scheduled: 3,
            current_number_scheduled: 2,
            number_misscheduled: 1,
            number_ready: 2,
            updated_number_scheduled: 1,
            number_available: 1,
            number_unavailable: 2,
            observed_generation: 0,
        };
        assert_eq!(s, want);
        assert_eq!(availability_requeue(&s, 5), Some(SimDuration::from_secs(5)));
    }
}
