//! `spec.activeDeadlineSeconds` (pkg/kubelet/active_deadline.go): the pod
//! fails once `now − startTime ≥ activeDeadlineSeconds`, where startTime is
//! the status manager's, truncated to the second (`normalizeStatus`).
//!
//! When the kubelet notices: `ShouldSync` at each 1 s sync tick
//! (`getPodsToSync`) puts the pod in the pod worker, whose sync waits for a
//! relist newer than its last one (≤ 1 s + 15 ms); that sync's
//! `generateAPIPodStatus` calls `ShouldEvict`: phase Failed, reason
//! DeadlineExceeded, a Normal Event. So the first Event is in
//! [D, D + 1 s + 1.015 s + the 10 ms sync overhead], D = ⌊startTime⌋ + deadline.
//! mergePodStatus holds the Failed phase (and its reason) back until the
//! containers are stopped — killed with the pod's grace (30 s here), no
//! restart — but Ready and ContainersReady go False with PodFailed at once.
//! Each status generation from then on records the Event again: SyncPod,
//! SyncTerminatingPod (before and after the kill), SyncTerminatedPod — count 4.

use crate::SEEDS;
use crate::common::*;
use podsim::api::pod::ApiPod;
use podsim::api::status::{ConditionType, PodPhase, PodReason};
use podsim::time::SimTime;
use podsim::trace::Trace;
use podsim::trace::record::Record;
use std::sync::Arc;

const MESSAGE: &str = "Pod was active on the node longer than the specified deadline";

/// ⌊startTime⌋ + `deadline` s: the instant the handler's rule turns true.
fn deadline_of(trace: &Trace, deadline: f64) -> SimTime {
    let start = pods(trace).iter().find_map(|(_, p)| p.status.start_time).expect("a startTime");
    start.floor_second() + secs(deadline)
}

/// Every `DeadlineExceeded` Event the API stored: (time, count, Normal?).
fn deadline_events(trace: &Trace) -> Vec<(SimTime, u32, bool)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Event(ev) if ev.reason == "DeadlineExceeded" => {
                assert_eq!(ev.message, MESSAGE);
                assert_eq!(ev.field_path, None, "an Event about the pod, not a container");
                Some((e.t, ev.count, !ev.warning))
            }
            _ => None,
        })
        .collect()
}

fn first_with(trace: &Trace, f: impl Fn(&ApiPod) -> bool) -> (SimTime, Arc<ApiPod>) {
    pods(trace).into_iter().find(|(_, p)| f(p)).expect("the pod reaches that state")
}

/// What every deadline must show, the deadline passing at `d`.
fn fails_at(trace: &Trace, d: SimTime, seed: u64) {
    let events = deadline_events(trace);
    let first = events.first().expect("a DeadlineExceeded Event").0;
    within(&format!("the first DeadlineExceeded (seed {seed})"), first, d, d + secs(2.025));
    assert!(events.iter().all(|e| e.2), "a Normal Event (seed {seed})");
    assert_eq!(events.last().unwrap().1, 4, "one per status generation (seed {seed})");
    // Ready and ContainersReady go False with PodFailed at once; the phase is held.
    let pod_failed = |p: &ApiPod| {
        p.status.condition(&ConditionType::Ready).is_some_and(|c| c.reason.as_deref() == Some("PodFailed"))
    };
    // The status is cached with the Event; its PATCH takes ≤ 25 ms, after one in flight.
    let (unready, p) = first_with(trace, pod_failed);
    within(&format!("Ready=False (seed {seed})"), unready, first, first + secs(0.05));
    for kind in [ConditionType::Ready, ConditionType::ContainersReady] {
        let c = p.status.condition(&kind).unwrap();
        assert_eq!((c.status, c.reason.as_deref()), (false, Some("PodFailed")), "{kind:?} (seed {seed})");
    }
    assert_eq!((p.status.phase, p.status.reason), (PodPhase::Running, None), "held back (seed {seed})");
    // The container is stopped once, with the pod's grace; nginx exits 0 within 0.5 s.
    let web = lives(trace, "web");
    assert_eq!(web.len(), 1, "never restarted (seed {seed})");
    let kill = actions(trace, "Killing");
    assert_eq!(kill.len(), 1, "seed {seed}");
    assert_eq!(kill[0].1, "Stopping container web");
    // SyncTerminatingPod waits for a relist newer than SyncPod's end.
    within(&format!("Killing (seed {seed})"), kill[0].0, first, first + secs(1.03));
    let exit = web[0].finished.unwrap();
    assert_eq!(web[0].exit, Some(0));
    within(&format!("exit (seed {seed})"), exit, kill[0].0 + secs(0.05), kill[0].0 + secs(0.5));
    // Failed once the pod worker has stopped the pod: the sandbox (≤ 0.4 s),
    // SyncTerminatedPod after a relist (≤ 1.015 s), two PATCHes (≤ 50 ms).
    let (failed, p) = first_with(trace, |p| p.status.phase == PodPhase::Failed);
    within(&format!("phase Failed (seed {seed})"), failed, exit, exit + secs(1.47));
    assert_eq!(p.status.reason, Some(PodReason::DeadlineExceeded), "seed {seed}");
    assert_eq!(p.status.reason.unwrap().message(), MESSAGE);
    assert_eq!(p.status.containers[0].restart_count, 0);
    let last = pods(trace).last().unwrap().1.clone();
    assert_eq!((last.status.phase, last.status.reason), (PodPhase::Failed, Some(PodReason::DeadlineExceeded)));
}

#[test]
fn the_pod_fails_at_its_deadline_and_its_container_is_stopped() {
    for seed in SEEDS {
        let trace = run("active-deadline", seed, None);
        let d = deadline_of(&trace, 60.0);
        fails_at(&trace, d, seed);
    }
}

/// The deadline lowered from 600 to 30 at 20 s: the pod fails 30 s after its
/// startTime. Raising it (25 s) and removing it (26 s) are refused by
/// ValidatePodUpdate with kubectl's wording, and change nothing.
#[test]
fn a_patched_deadline_applies_and_may_only_shrink() {
    for seed in SEEDS {
        let trace = run("deadline-patch", seed, None);
        let d = deadline_of(&trace, 30.0);
        fails_at(&trace, d, seed);
        let rows = scenario_rows(&trace);
        let patch = |v: &str| format!("kubectl patch pod web -p '{{\"spec\":{{\"activeDeadlineSeconds\":{v}}}}}'");
        assert_eq!(
            rows,
            vec![
                (t(20.0), patch("30")),
                (
                    t(25.0),
                    format!(
                        "{}: The Pod \"web\" is invalid: spec.activeDeadlineSeconds: Invalid value: 45: must be less than or equal to previous value",
                        patch("45")
                    )
                ),
                (
                    t(26.0),
                    format!(
                        "{}: The Pod \"web\" is invalid: spec.activeDeadlineSeconds: Invalid value: \"null\": must not update from a positive integer to nil value",
                        patch("null")
                    )
                ),
            ],
            "seed {seed}"
        );
        // One stored change: the next generation, which the kubelet's next status observes.
        let after = pod_at(&trace, t(27.0));
        assert_eq!((after.spec.active_deadline_seconds, after.meta.generation), (Some(30), 2), "seed {seed}");
        let observed = pods(&trace).into_iter().find(|(_, p)| p.status.observed_generation == 2).unwrap().0;
        within(&format!("observedGeneration 2 (seed {seed})"), observed, t(20.0), t(21.1));
    }
}

/// negative-grace's pod deleted at 20 s with a 30 s grace (its preStop hook
/// hangs: SIGTERM at Killing + 30 s, SIGKILL 2 s later), and given a 10 s
/// deadline at 25 s, long past. `podWorkerLoop` hands SyncTerminatingPod the
/// pod of the update that began it (`update.Options.Pod`, no deadline); the
/// patch waits as the next update, so only SyncTerminatedPod's status sees
/// the deadline. Hence one DeadlineExceeded Event, after the terminating
/// sync's last status (Ready=False PodFailed, from podIsTerminal, the
/// phase held back); the termination keeps its grace; the final phase is
/// Failed with DeadlineExceeded.
#[test]
fn a_deadline_patched_during_termination_counts_only_once_it_has_stopped() {
    for seed in SEEDS {
        let trace = run_with_flags(
            "negative-grace",
            seed,
            60.0,
            &[
                ("--delete", "pod/hang@20s,grace-period=30"),
                ("--patch", r#"pod/hang:{"spec":{"activeDeadlineSeconds":10}}@25s"#),
            ],
        );
        assert_eq!(pod_at(&trace, t(25.5)).spec.active_deadline_seconds, Some(10), "seed {seed}");
        let kill = actions(&trace, "Killing");
        assert_eq!(kill.len(), 1, "seed {seed}");
        let app = lives(&trace, "app")[0].clone();
        assert_eq!(app.sigterm, Some(kill[0].0 + secs(30.0)), "the grace is kept (seed {seed})");
        let exit = kill[0].0 + secs(32.0);
        assert_eq!((app.finished, app.exit), (Some(exit), Some(137)), "seed {seed}");
        // SyncTerminatingPod's last status, from the stopped containers (the
        // sandbox stop ≤ 0.4 s, its PATCH ≤ 25 ms after one in flight).
        let pod_failed = |p: &ApiPod| {
            p.status.condition(&ConditionType::Ready).is_some_and(|c| c.reason.as_deref() == Some("PodFailed"))
        };
        let (stopped, p) = first_with(&trace, pod_failed);
        within(&format!("the terminating sync's last status (seed {seed})"), stopped, exit, exit + secs(0.45));
        assert_eq!(p.status.reason, None, "seed {seed}");
        // SyncTerminatedPod after a relist newer than that sync (≤ 1.015 s).
        let events = deadline_events(&trace);
        assert_eq!(events.len(), 1, "SyncTerminatedPod's status only (seed {seed}): {events:?}");
        within(&format!("DeadlineExceeded (seed {seed})"), events[0].0, stopped, exit + secs(1.42));
        let (failed, p) = first_with(&trace, |p| p.status.phase == PodPhase::Failed);
        assert!(failed >= events[0].0, "seed {seed}");
        assert_eq!(p.status.reason, Some(PodReason::DeadlineExceeded), "seed {seed}");
    }
}
