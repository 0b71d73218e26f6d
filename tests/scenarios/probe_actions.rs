//! seeds/001, probe-actions.py: readiness failure takes the pod out of Ready
//! with no restart; it recovers; a liveness failure restarts the container
//! once, in the same pod.
//!
//! The app (models/apps/probe-actions.yaml), from its start S: /ready answers
//! 503 on [S+30, S+45), /live answers 503 from S+60; the restarted container
//! answers 200 everywhere. Probes: readiness period 1 s, failureThreshold 2;
//! liveness period 1 s, failureThreshold 3; the pod's grace period is 1 s and
//! the server ignores SIGTERM.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ContainerState;

#[test]
fn readiness_failure_unreadies_the_pod_without_a_restart_then_liveness_restarts_it_once() {
    for seed in SEEDS {
        let trace = run("probe-actions", seed, None);
        let lives = lives(&trace, "app");
        let s = lives[0].started;
        // Ready=False: the first failing readiness tick is in [S+30, S+31) (period 1 s),
        // the second (threshold 2) one period later; SetContainerReadiness PATCHes at once.
        let unready = ready_transitions(&trace, false);
        let first_unready_after_ready =
            unready.iter().copied().find(|x| *x > s + secs(30.0)).expect("pod became unready");
        within("NotReady", first_unready_after_ready, s + secs(31.0), s + secs(32.1));
        // No restart while it was unready: restartCount 0 and the same pod UID.
        let during = pod_at(&trace, s + secs(40.0));
        assert_eq!(during.status.container("app").unwrap().restart_count, 0, "seed {seed}");
        assert!(during.status.container("app").unwrap().state.is_running());
        // Recovery: the first successful tick is in [S+45, S+46) and one success suffices.
        let ready_again = ready_transitions(&trace, true).into_iter().find(|x| *x > s + secs(45.0)).unwrap();
        within("Ready again", ready_again, s + secs(45.0), s + secs(46.1));
        // Liveness: failures at three consecutive ticks from [S+60, S+61): the kill
        // follows the third, in [S+62, S+63) plus the sync's latency.
        let kill = actions(&trace, "Killing")[0].0;
        within("Killing", kill, s + secs(62.0), s + secs(64.1));
        assert_eq!(actions(&trace, "Killing")[0].1, "Container app failed liveness probe, will be restarted");
        // Grace 1 s → StopContainer(max(1, 2) = 2 s); SIGTERM is ignored → SIGKILL, 137.
        assert_eq!(lives[0].exit, Some(137), "seed {seed}");
        within("SIGKILL", lives[0].finished.unwrap(), kill + secs(2.0), kill + secs(2.0));
        // First liveness kill: no exited instance yet, so no backoff: restart in the same sync.
        assert_eq!(lives.len(), 2, "exactly one restart (seed {seed})");
        within("restart", lives[1].started, lives[0].finished.unwrap(), lives[0].finished.unwrap() + secs(0.5));
        let end = pod_at(&trace, t(180.0));
        let app = end.status.container("app").unwrap();
        assert_eq!(app.restart_count, 1);
        assert!(matches!(&app.last_state, Some(t) if t.exit_code == 137 && t.reason == "Error"));
        assert!(matches!(app.state, ContainerState::Running { .. }));
        assert!(pods(&trace).iter().all(|(_, p)| p.meta.uid == end.meta.uid), "same pod UID throughout");
    }
}
