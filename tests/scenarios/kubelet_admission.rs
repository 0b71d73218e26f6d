//! The kubelet's admission of pods that arrive bound
//! (models/scenarios/bound-pod-rejected.yaml): `HandlePodAdditions` →
//! `canAdmitPod` → the predicate admit handler's `generalFilter`, then
//! `rejectPod` (pkg/kubelet/kubelet.go, pkg/kubelet/lifecycle/predicate.go).
//!
//! Every pod is created at 0 s and reaches its kubelet through the watch,
//! 2–20 ms later (the profile's watch latency), in creation order on each
//! node; the kubelet's status PATCH takes 5–25 ms (apiWrite).

use crate::SEEDS;
use crate::common::*;
use podsim::api::pod::ApiPod;
use podsim::api::status::{ConditionType, PodPhase};
use podsim::invariants::check_run;
use podsim::run::{Inputs, prepare, simulate};
use podsim::time::SimTime;
use podsim::trace::Trace;
use podsim::trace::record::{EventSource, ProcessFact, Record, WatchKind};
use std::sync::Arc;

const SCENARIO: &str = "bound-pod-rejected";

/// The kubelet's Events about `pod`: (time, warning, reason, message).
fn kubelet_events(trace: &Trace, pod: &str) -> Vec<(SimTime, bool, &'static str, String)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Event(ev) if &*ev.pod == pod && matches!(ev.source, EventSource::Kubelet { .. }) => {
                Some((e.t, ev.warning, ev.reason, ev.message.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The first stored version of `pod` whose phase is Failed.
fn failed(trace: &Trace, pod: &str) -> (SimTime, Arc<ApiPod>) {
    let versions = pod_versions(trace, pod);
    versions.into_iter().find(|(_, p)| p.status.phase == PodPhase::Failed).expect("the pod fails")
}

/// When the API server sent `pod`'s DELETED event, and whether the kubelet's
/// final DELETE made it.
fn removed(trace: &Trace, pod: &str) -> Option<(SimTime, bool)> {
    trace.entries.iter().find_map(|e| match &e.record {
        Record::Pod { kind: WatchKind::Deleted, pod: p } if p.spec.name == pod => {
            Some((e.t, p.meta.deletion.is_some_and(|d| d.by_kubelet)))
        }
        _ => None,
    })
}

/// `rejectPod` for `pod`, rejected by `predicate` with `error`
/// (`PredicateFailureError.Error`): one Warning Event (reason = predicate
/// name, message = the error) when the pod reaches its kubelet, then the
/// status PATCH: phase Failed, reason the predicate, message "Pod was
/// rejected: " + the error, startTime (`updateStatusInternal`, cut to the
/// second: 0 s) and no condition (`mergePodStatus` keeps only conditions
/// the kubelet does not own, and the status it sets has none); no container
/// status, no process, no other kubelet Event: the pod worker never has it.
fn assert_rejected(trace: &Trace, pod: &str, predicate: &str, error: &str, seed: u64) {
    let events = kubelet_events(trace, pod);
    assert_eq!(events.len(), 1, "seed {seed} {pod}: {events:?}");
    let (at, warning, reason, message) = &events[0];
    assert_eq!((*warning, *reason, message.as_str()), (true, predicate, error), "seed {seed} {pod}");
    within("admission", *at, t(0.002), t(0.020));
    let (stored, p) = failed(trace, pod);
    within("Failed stored", stored, *at + secs(0.005), *at + secs(0.025));
    let s = &p.status;
    assert_eq!(s.reason.map(|r| r.as_str()), Some(predicate), "seed {seed} {pod}");
    let status_message = format!("Pod was rejected: {error}");
    assert_eq!(s.reason.map(|r| r.message()), Some(status_message), "seed {seed} {pod}");
    assert_eq!(s.start_time, Some(SimTime::ZERO), "seed {seed} {pod}");
    assert!(s.conditions.is_empty() && s.containers.is_empty(), "seed {seed} {pod}: {s:?}");
    let phases: Vec<PodPhase> = pod_versions(trace, pod).iter().map(|(_, p)| p.status.phase).collect();
    assert!(phases.iter().all(|ph| matches!(ph, PodPhase::Pending | PodPhase::Failed)), "seed {seed} {pod}");
    let processes = trace.entries.iter().filter(|e| matches!(&e.record, Record::Process { pod: p, .. } if &**p == pod));
    assert_eq!(processes.count(), 0, "seed {seed} {pod}: no container ever runs");
    let actions = trace.entries.iter().filter(|e| matches!(&e.record, Record::Kubelet(a) if &*a.pod == pod));
    assert_eq!(actions.count(), 1, "seed {seed} {pod}: only the rejection");
}

/// agent-new wants host port 9100, which agent-old, admitted first, holds
/// on node-1: `AdmissionCheck`'s NodePorts (nodeports.ErrReason) rejects
/// it. agent-old runs alone on the port: one life of its exporter, no
/// "address already in use", Ready.
#[test]
fn a_bound_pod_whose_host_port_is_taken_is_rejected() {
    let error = "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports";
    for seed in SEEDS {
        let trace = run(SCENARIO, seed, None);
        assert_rejected(&trace, "agent-new", "NodePorts", error, seed);
        let lives = pod_lives(&trace, "agent-old", "exporter");
        assert_eq!(lives.len(), 1, "seed {seed}: {lives:?}");
        assert_eq!(lives[0].finished, None, "seed {seed}");
        let in_use = trace
            .entries
            .iter()
            .any(|e| matches!(&e.record, Record::Process { fact: ProcessFact::AddressInUse { .. }, .. }));
        assert!(!in_use, "seed {seed}: no process meets EADDRINUSE");
        assert!(pod_condition(&trace, "agent-old", &ConditionType::Ready, true).is_some(), "seed {seed}");
    }
}

/// web-pinned is bound to node-2, whose `example.com/maintenance=true:
/// NoExecute` taint it does not tolerate: `generalFilter`'s taint check
/// (NoExecute only) rejects it with tainttoleration.ErrReasonNotMatch.
/// web-tolerating, the same pod with a matching toleration, runs there.
#[test]
fn a_bound_pod_on_an_untolerated_no_execute_taint_is_rejected() {
    let error = "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate";
    for seed in SEEDS {
        let trace = run(SCENARIO, seed, None);
        assert_rejected(&trace, "web-pinned", "TaintToleration", error, seed);
        assert_eq!(pod_lives(&trace, "web-tolerating", "web").len(), 1, "seed {seed}");
        let last = pod_versions(&trace, "web-tolerating").last().unwrap().1.clone();
        assert_eq!(last.status.phase, PodPhase::Running, "seed {seed}");
    }
}

/// big-pinned requests 5 CPUs of node-1, which allocates 4 and whose active
/// pods request none: `AdmissionCheck`'s `noderesources.Fits` (before
/// NodePorts) fails with an `InsufficientResourceError`, whose reason is
/// `OutOf` + the resource and whose message gives millicores.
#[test]
fn a_bound_pod_asking_more_than_its_node_has_is_out_of_cpu() {
    let error = "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000";
    for seed in SEEDS {
        let trace = run(SCENARIO, seed, None);
        assert_rejected(&trace, "big-pinned", "OutOfcpu", error, seed);
    }
}

/// `kubectl delete pod agent-new` at 10 s: the API server's
/// `CheckGracefulDelete` gives a Failed pod grace 0, so the object is
/// removed at once, not by its kubelet.
#[test]
fn a_rejected_pod_is_deleted_at_once() {
    for seed in SEEDS {
        let trace = run(SCENARIO, seed, None);
        assert_eq!(removed(&trace, "agent-new"), Some((t(10.0), false)), "seed {seed}");
    }
}

/// Deleted at 1 ms, before its kubelet rejects it, agent-new is still
/// Pending and bound: the DELETE is graceful (30 s). Once the API shows it
/// Failed, the next housekeeping (every 2 s: `HandlePodCleanups` →
/// `filterTerminalPodsToDelete`) hands it to the pod worker, which waits
/// for a relist newer than the hand-over (relists every 1 s) and runs only
/// `SyncTerminatedPod` (podCleanup 0.1–1 s), whose `TerminatePod` lets the
/// status manager send the final DELETE (5–25 ms). No container ever runs.
#[test]
fn a_rejected_pod_deleted_early_is_removed_by_its_kubelet() {
    for seed in SEEDS {
        let trace = run_with_flags(SCENARIO, seed, 20.0, &[("--delete", "pod/agent-new@1ms")]);
        let deletion = pod_versions(&trace, "agent-new").into_iter().find_map(|(_, p)| p.meta.deletion);
        assert_eq!(deletion.map(|d| d.grace_seconds), Some(30), "seed {seed}");
        let (stored, _) = failed(&trace, "agent-new");
        let (gone, by_kubelet) = removed(&trace, "agent-new").expect("removed");
        assert!(by_kubelet, "seed {seed}: the kubelet's final DELETE");
        within("removed", gone, stored + secs(0.105), stored + secs(2.0 + 1.0 + 0.015 + 1.0 + 0.025));
        let processes =
            trace.entries.iter().filter(|e| matches!(&e.record, Record::Process { pod: p, .. } if &**p == "agent-new"));
        assert_eq!(processes.count(), 0, "seed {seed}");
    }
}

/// Every invariant holds on the scenario: the rejected pods' Failed status
/// with no container is a phase the rules accept.
#[test]
fn the_invariants_hold() {
    for seed in SEEDS {
        let inputs = Inputs { scenario: Some(scenario(SCENARIO)), seed: Some(seed), ..Inputs::default() };
        let p = prepare(&inputs).unwrap();
        let trace = simulate(&p.setup, p.seed, SimTime::ZERO + p.until);
        let report = check_run(&trace, &p.clock, &p.setup, SimTime::ZERO + p.until);
        assert!(!report.violated(), "seed {seed}: {}", report.render_violations());
    }
}
