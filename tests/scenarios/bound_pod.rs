//! A pod created with `spec.nodeName` (models/scenarios/bound-pod.yaml):
//! stored bound by the API server, so no scheduler runs and every component
//! that routes by node sees it (the kubelet's updates and removal, the
//! EndpointSlice endpoint, kube-proxy's Local policy, the readiness gate, a
//! kill), and its DELETE is graceful (CheckGracefulDelete).

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ConditionType;
use podsim::invariants::{Verdict, check_run};
use podsim::run::{Inputs, prepare, simulate};
use podsim::time::SimTime;
use podsim::trace::Trace;
use podsim::trace::record::{ProcessFact, Record, WatchKind};
use std::sync::Arc;

const POD: &str = "c28-bound";
const GATE: &str = "example.com/lb-ready";

/// No scheduler: no `Scheduled` (or `FailedScheduling`) Event; the created
/// object already names kind-worker and has no PodScheduled condition (only
/// a binding writes one, `BindingREST.setPodNodeAndMetadata`); PodScheduled
/// =True first comes with the kubelet's first status, next to the
/// conditions only the kubelet writes (`generateAPIPodStatus`).
#[test]
fn a_pod_created_with_a_node_skips_the_scheduler() {
    for seed in SEEDS {
        let trace = run("bound-pod", seed, None);
        let events =
            trace.entries.iter().filter(|e| matches!(&e.record, Record::Event(ev) if ev.reason.contains("Schedul")));
        assert_eq!(events.count(), 0, "seed {seed}");
        let versions = pod_versions(&trace, POD);
        let created = &versions[0].1;
        assert_eq!(created.node.as_deref(), Some("kind-worker"), "seed {seed}");
        assert!(created.status.condition(&ConditionType::PodScheduled).is_none(), "seed {seed}");
        let (at, first) =
            versions.iter().find(|(_, p)| p.status.condition(&ConditionType::PodScheduled).is_some()).unwrap();
        assert!(*at > SimTime::ZERO, "seed {seed}");
        assert!(first.status.condition_true(&ConditionType::PodScheduled), "seed {seed}");
        assert!(first.status.condition(&ConditionType::Initialized).is_some(), "seed {seed}: the kubelet's status");
    }
}

/// Its endpoint names its node, and kube-proxy's Local policy serves the
/// client on kind-worker from it (never before Ready), while the client on
/// kind-control-plane, whose node has no local endpoint, gets no HTTP
/// answer: DROP, or REJECT while the Service has no endpoint at all.
#[test]
fn local_traffic_from_its_node_is_served() {
    for seed in SEEDS {
        let trace = run("bound-pod", seed, None);
        let nodes = trace.entries.iter().filter_map(|e| match &e.record {
            Record::Slice { slice, .. } => Some(slice.content.endpoints.iter().map(|ep| ep.node.clone())),
            _ => None,
        });
        let nodes: Vec<_> = nodes.flatten().collect();
        assert!(
            !nodes.is_empty() && nodes.iter().all(|n| n.as_deref() == Some("kind-worker")),
            "seed {seed}: {nodes:?}"
        );
        let ready = ready_transitions(&trace, true)[0];
        let same: Vec<_> = requests(&trace, "same-node");
        let served: Vec<_> = same.iter().filter(|r| status(r) == Some(200)).collect();
        assert!(!served.is_empty(), "seed {seed}");
        assert!(served.iter().all(|r| served_by(r) == Some(POD) && r.sent >= ready), "seed {seed}");
        assert!(requests(&trace, "other-node").iter().all(|r| status(r).is_none()), "seed {seed}");
    }
}

/// The gate's condition set at 22 s reaches the kubelet through its watch;
/// Ready turns True within a watch delivery, a sync and a PATCH (< 100 ms)
/// of the later of the gate and ContainersReady (GeneratePodReadyCondition,
/// NeedToReconcilePodReadiness).
#[test]
fn the_readiness_gate_reaches_its_kubelet() {
    for seed in SEEDS {
        let trace = run("bound-pod", seed, None);
        let gate = pod_condition(&trace, POD, &ConditionType::Other(GATE.into()), true).unwrap();
        assert_eq!(gate, t(22.0), "seed {seed}");
        let cr = first_condition(&trace, &ConditionType::ContainersReady, true).unwrap();
        let due = gate.max(cr);
        within("Ready", ready_transitions(&trace, true)[0], due, due + secs(0.1));
    }
}

/// The SIGKILL at 30 s reaches probe-app (no "not on a node"): it exits 137
/// and, a first restart being immediate, starts again after the next PLEG
/// relist (≤ 1 s + 10 ms), the image check (≤ 2 s, cached), create (≤ 80 ms)
/// and start (≤ 150 ms).
#[test]
fn a_kill_reaches_the_container_on_its_node() {
    for seed in SEEDS {
        let trace = run("bound-pod", seed, None);
        assert!(scenario_rows(&trace).iter().all(|(_, w)| !w.contains("not on a node")), "seed {seed}");
        let signalled = facts(&trace, "probe-app").into_iter().find(|(_, f)| matches!(f, ProcessFact::Signal { .. }));
        assert_eq!(signalled.map(|(at, _)| at), Some(t(30.0)), "seed {seed}");
        let lives = lives(&trace, "probe-app");
        assert_eq!((lives[0].finished, lives[0].exit), (Some(t(30.0)), Some(137)), "seed {seed}");
        within("restart", lives[1].started, t(30.0), t(30.0) + secs(1.01 + 2.0 + 0.08 + 0.15 + 0.02));
    }
}

/// The plain DELETE at 50 s is graceful with the pod's 30 s: the object
/// stays with deletionGracePeriodSeconds 30 and deletionTimestamp 80 s; the
/// kubelet sees it, Killing and SIGTERM follow within a watch delivery and a
/// sync, the app exits 0 within its 100 ms – 3 s drain, and only then does
/// the kubelet's final DELETE remove the pod.
#[test]
fn its_delete_is_graceful_and_stops_its_containers() {
    for seed in SEEDS {
        let trace = run("bound-pod", seed, None);
        let (_, deleting) = pod_versions(&trace, POD).into_iter().find(|(_, p)| p.meta.deletion.is_some()).unwrap();
        let d = deleting.meta.deletion.unwrap();
        assert_eq!((d.grace_seconds, d.timestamp), (30, t(80.0)), "seed {seed}");
        let kill = actions(&trace, "Killing");
        assert_eq!(kill.len(), 1, "seed {seed}");
        within("Killing", kill[0].0, t(50.0), t(50.05));
        let last = lives(&trace, "probe-app").last().unwrap().clone();
        assert_eq!(last.sigterm, Some(kill[0].0), "seed {seed}");
        within("exit", last.finished.unwrap(), kill[0].0 + secs(0.1), kill[0].0 + secs(3.0));
        assert_eq!(last.exit, Some(0));
        assert!(deleted_at(&trace).unwrap() > last.finished.unwrap(), "seed {seed}");
    }
}

/// The scenario's trace and the end of its run.
fn bound_pod() -> (Trace, podsim::run::Prepared) {
    let p = prepare(&Inputs { scenario: Some(scenario("bound-pod")), ..Inputs::default() }).unwrap();
    (simulate(&p.setup, p.seed, SimTime::ZERO + p.until), p)
}

fn verdict(trace: &Trace, p: &podsim::run::Prepared) -> Verdict {
    let report = check_run(trace, &p.clock, &p.setup, SimTime::ZERO + p.until);
    report.verdict(POD, "deletion-stops-containers").unwrap().clone()
}

/// deletion-stops-containers holds on the scenario, and fires on two
/// planted breaks: a container still running at the kubelet's final DELETE
/// (its exit taken out), and a pod removed at once whose kubelet never
/// stops its container (the removal made a forced one, the kill taken out).
#[test]
fn a_delete_that_skips_termination_breaks_an_invariant() {
    let (trace, p) = bound_pod();
    assert!(matches!(verdict(&trace, &p), Verdict::Holds { .. }), "{:?}", verdict(&trace, &p));
    let delete = t(50.0);
    let after_delete = |e: &podsim::trace::Entry| e.t >= delete;
    let mut running = trace.clone();
    running.entries.retain(|e| {
        !(after_delete(e) && matches!(&e.record, Record::Process { fact: ProcessFact::Exited { .. }, .. }))
    });
    assert!(matches!(verdict(&running, &p), Verdict::Violated { .. }));
    let mut forced = trace.clone();
    forced.entries.retain(|e| {
        !(after_delete(e)
            && match &e.record {
                Record::Process { fact, .. } => matches!(fact, ProcessFact::Sigterm | ProcessFact::Exited { .. }),
                Record::Kubelet(a) => a.reason == "Killing",
                _ => false,
            })
    });
    for e in &mut forced.entries {
        if let Record::Pod { kind: WatchKind::Deleted, pod } = &mut e.record {
            let mut p = (**pod).clone();
            p.meta.deletion.as_mut().unwrap().by_kubelet = false;
            *pod = Arc::new(p);
        }
    }
    assert!(matches!(verdict(&forced, &p), Verdict::Violated { .. }));
}
