//! restartPolicy OnFailure and Never with a process that exits by itself.
//!
//! getPhase: with no container running and every one stopped, OnFailure with
//! all exits 0 → Succeeded, Never with an exit ≠ 0 → Failed. The terminal
//! phase is only written once the pod worker has stopped the pod
//! (mergePodStatus holds it back while containers could run), but Ready and
//! ContainersReady turn False with PodCompleted / PodFailed right away.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::{ConditionType, PodPhase};

fn terminal(name: &str, phase: PodPhase, reason: &str, code: i32) {
    for seed in SEEDS {
        let trace = run(name, seed, None);
        let lives = lives(&trace, if name == "onfailure-exit-0" { "task" } else { "app" });
        assert_eq!(lives.len(), 1, "never restarted (seed {seed})");
        assert_eq!(lives[0].exit, Some(code));
        let exit = lives[0].finished.unwrap();
        let (when, pod) = pods(&trace).into_iter().find(|(_, p)| p.status.phase == phase).expect("terminal phase");
        // Three syncs, each waiting for a relist (≤ 1 s): the one that sees the exit,
        // SyncTerminatingPod (plus stopping the sandbox, ≤ 0.4 s), SyncTerminatedPod.
        within("terminal phase", when, exit, exit + secs(3.6));
        let ready = pod.status.condition(&ConditionType::Ready).unwrap();
        assert_eq!((ready.status, ready.reason.as_deref()), (false, Some(reason)));
        assert_eq!(pod.status.containers[0].restart_count, 0);
        assert_eq!(pod_at(&trace, t(60.0)).status.phase, phase, "phase stays terminal");
    }
}

#[test]
fn on_failure_with_exit_0_succeeds() {
    terminal("onfailure-exit-0", PodPhase::Succeeded, "PodCompleted", 0);
}

#[test]
fn never_with_exit_1_fails() {
    terminal("never-exit-1", PodPhase::Failed, "PodFailed", 1);
}
