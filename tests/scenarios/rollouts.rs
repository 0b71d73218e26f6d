//! Deployment rollouts (issue 6) in five scenarios of `models/`: the
//! Deployment controller (pkg/controller/deployment: sync.go `getNewReplicaSet`,
//! rolling.go, recreate.go, progress.go) and the ReplicaSet controller
//! (pkg/controller/replicaset) as src/control/deployment/SOURCES.md records
//! them, checked against bounds derived from those rules and the profile.
//!
//! The profile (models/clusters/kind-2.yaml, Kubernetes 1.35, defaults in
//! src/cluster): watch delivery 1–8 ms, in order per watcher; API writes
//! 2–10 ms; scheduling 2–15 ms; the kubelet's pod sync 2–10 ms; sandbox
//! 150–500 ms; container create 20–80 ms and start 40–150 ms (every image is
//! on the nodes: no pull); a packet 0–1 ms each way; kube-proxy as in
//! service_path.rs (a sync starts when a slice change arrives, or once
//! minSyncPeriod 1 s has passed since the previous commit; it commits
//! 20–51 ms later). Every pod lands on kind-worker (the control plane is
//! tainted); the clients run on kind-control-plane.
//!
//! A controller "hop" is a watch delivery (1–8 ms) followed by one API write
//! (2–10 ms): 3–18 ms after its cause, when the controller is not busy with
//! the same key. The Deployment controller makes a sync's calls one after the
//! other (each waits for the previous answer); the ReplicaSet controller
//! creates pods in slow-start batches and deletes them all at once.

use crate::SEEDS;
use crate::common::*;
use podsim::api::deployment::{ConditionStatus, ConditionType as DeploymentConditionType, Reason};
use podsim::api::replicaset::ApiReplicaSet;
use podsim::api::status::{ConditionType, PodPhase};
use podsim::client::{Outcome, Refusal, RequestRecord, Silence};
use podsim::proxy::Action;
use podsim::spec::ProbeKind;
use podsim::time::{SimDuration, SimTime};
use podsim::trace::Trace;
use podsim::trace::record::{Record, Verdict, WatchKind};
use std::collections::BTreeMap;

/// The clients run on kind-control-plane, index 0.
const NODES: [&str; 2] = ["kind-control-plane", "kind-worker"];
const REVISION: &str = "deployment.kubernetes.io/revision";
const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// `x` is one controller hop after `cause`: a watch delivery (1–8 ms), then
/// one API write (2–10 ms).
#[track_caller]
fn hop(what: &str, x: SimTime, cause: SimTime) {
    within(what, x, cause + ms(3), cause + ms(18));
}

/// The EndpointSlice controller's write `x` of a pod change at `cause`:
/// one hop (3–18 ms) when it is idle. Otherwise it first finishes the
/// Service's sync in flight (its write ≤ 10 ms), and a sync that starts
/// before its own last write has reached its slice informer fails as stale
/// (`StaleSlices`) and is retried after the queue's backoff, 1 s
/// (`defaultSyncBackOff`), or earlier if another pod change queues the
/// Service: ≤ 1.028 s. Either needs a write of the Service's slices in the
/// 8 ms before the controller saw the change or while it handled it.
#[track_caller]
fn slice_write(what: &str, trace: &Trace, service: &str, x: SimTime, cause: SimTime) {
    let id = service_id(trace, service);
    let busy = trace.entries.iter().any(|e| {
        matches!(&e.record, Record::Slice { slice, .. } if slice.service == id) && e.t + ms(8) > cause && e.t < x
    });
    let latest = if busy { cause + ms(1028) } else { cause + ms(18) };
    within(what, x, cause + ms(3), latest);
}

/// The first write of `service`'s slices at or after `after` whose endpoint
/// for pod `pod` (None: no endpoint) satisfies `pred`.
fn slice_with(
    trace: &Trace,
    service: &str,
    pod: &str,
    after: SimTime,
    pred: impl Fn(EndpointConditions) -> bool,
) -> (SimTime, EndpointConditions) {
    service_endpoint_changes(trace, service, pod)
        .into_iter()
        .find(|(t, c)| *t >= after && pred(*c))
        .unwrap_or_else(|| panic!("no slice write for {pod} after {after}"))
}

fn annotation<'a>(rs: &'a ApiReplicaSet, key: &str) -> Option<&'a str> {
    rs.spec.annotations.get(key).map(String::as_str)
}

/// The first version of ReplicaSet `name` that satisfies `pred`.
fn rs_first(trace: &Trace, name: &str, pred: impl Fn(&ApiReplicaSet) -> bool) -> SimTime {
    rs_versions(trace, name)
        .into_iter()
        .find(|(_, r)| pred(r))
        .unwrap_or_else(|| panic!("no version of {name} as expected"))
        .0
}

/// When pod `name` first carried a deletionTimestamp (the ReplicaSet
/// controller's DELETE).
fn deletion_requested(trace: &Trace, name: &str) -> SimTime {
    pod_versions(trace, name).into_iter().find(|(_, p)| p.meta.deletion.is_some()).expect("deleted").0
}

/// When pod `name` first showed phase `phase`.
fn phase_at(trace: &Trace, name: &str, phase: PodPhase) -> SimTime {
    pod_versions(trace, name).into_iter().find(|(_, p)| p.status.phase == phase).expect("phase").0
}

/// When pod `name`'s object left the API server (its DELETED record).
fn removed_at(trace: &Trace, name: &str) -> Option<SimTime> {
    trace.entries.iter().find_map(|e| match &e.record {
        Record::Pod { kind: WatchKind::Deleted, pod } if pod.spec.name == name => Some(e.t),
        _ => None,
    })
}

/// The pod's Ready condition turned False after `after`.
fn unready_after(trace: &Trace, name: &str, after: SimTime) -> SimTime {
    pod_versions(trace, name)
        .into_iter()
        .find(|(t, p)| *t > after && !p.status.condition_true(&ConditionType::Ready))
        .expect("unready")
        .0
}

/// The rule forwards new connections to pod `pod`.
fn forwards_to(a: &Action, pod: &str) -> bool {
    matches!(a, Action::Forward(eps) if eps.iter().any(|e| e.target.as_ref().is_some_and(|t| &*t.name == pod)))
}

/// The first commit of `node`'s kube-proxy that applies a slice written at
/// `write` with a rule for `service` that `want`s; its start and commit are
/// checked against the runner's bounds (service_path.rs): start in
/// [write + 1 ms, max(write + 8 ms, previous commit + 1 s)], commit 20–51 ms
/// after the start.
fn programmed(trace: &Trace, node: &str, service: &str, write: SimTime, want: impl Fn(&Action) -> bool) -> SimTime {
    let commits = proxy_actions(trace, node, service);
    let (at, started) = commits
        .iter()
        .find(|(_, started, a)| *started >= write && a.as_ref().is_some_and(&want))
        .map(|(at, started, _)| (*at, *started))
        .unwrap_or_else(|| panic!("{node}: no commit for {service} after the slice write at {write}"));
    let previous = commits.iter().map(|c| c.0).rfind(|t| *t <= started);
    let latest = previous.map_or(write + ms(8), |p| (write + ms(8)).max(p + secs(1.0)));
    within(&format!("{node} sync start for {service}"), started, write + ms(1), latest);
    within(&format!("{node} commit for {service}"), at, started + ms(20), started + ms(51));
    at
}

/// A request that reached a pod whose server had exited: RST while the
/// sandbox is there, no route (or the client's timeout first) once it is gone.
fn failed_at_the_pod(r: &RequestRecord) -> bool {
    matches!(r.outcome, Outcome::Refused(Refusal::NotListening) | Outcome::Timeout(Silence::NoRoute) | Outcome::NoRoute)
}

/// `Scaled up|down replica set NAME from A to B` → (up, NAME, A, B).
fn scaling(message: &str) -> (bool, String, u32, u32) {
    let w: Vec<&str> = message.split(' ').collect();
    let shape = w.len() == 9 && w[0] == "Scaled" && w[2..4] == ["replica", "set"] && w[5] == "from" && w[7] == "to";
    assert!(shape, "{message}");
    (w[1] == "up", w[4].to_string(), w[6].parse().unwrap(), w[8].parse().unwrap())
}

// ---- 1. c28-bad-rollout ----

/// models/scenarios/c28-bad-rollout.yaml: seeds/000's Deployment (1 replica,
/// maxSurge 1, maxUnavailable 0, progressDeadlineSeconds 90, the probe app:
/// an init container of 2 s, /ready 503 for 10 s then 200) rolled out at
/// 30 s with a readiness path the app answers 404, and at 150 s back to
/// /ready, revision 1's template. The client `curl` sends GET /identity to
/// the Service every 2 s from 20 s.
#[test]
fn a_bad_readiness_path_never_gets_ready_the_deadline_fires_and_the_fix_returns_to_revision_1() {
    const FIX: f64 = 150.0;
    for seed in SEEDS {
        let trace = run("c28-bad-rollout", seed, None);
        // The fix applies revision 1's template again: no third ReplicaSet,
        // `FindNewReplicaSet` finds the old one (EqualIgnoreHash).
        let names = rs_names(&trace);
        assert_eq!(names.len(), 2, "seed {seed}: {names:?}");
        let (good, bad) = (&*names[0], &*names[1]);

        // getNewReplicaSet creates revision 2 one hop after the apply, with
        // NewRSNewReplicas = min(replicas 1 + maxSurge 1 − Σspec 1, 1 − 0) = 1.
        let bad_versions = rs_versions(&trace, bad);
        let (created, first) = &bad_versions[0];
        hop("revision 2 created", *created, t(30.0));
        assert_eq!((first.spec.replicas, annotation(first, REVISION)), (1, Some("2")), "seed {seed}");
        let bad_pods = pods_of(&trace, bad);
        assert_eq!(bad_pods.len(), 1, "seed {seed}");
        let (bad_pod_at, bad_pod) = bad_pods[0].clone();
        hop("its pod created", bad_pod_at, *created);

        // The new pod runs, but every readiness probe gets 404 until the fix
        // (after it, the server stops on SIGTERM: connection refused): never Ready.
        assert_eq!(pod_lives(&trace, &bad_pod, "probe-app").len(), 1, "seed {seed}: no restart");
        assert!(pod_versions(&trace, &bad_pod).iter().any(|(_, p)| p.status.phase == PodPhase::Running));
        assert!(pod_versions(&trace, &bad_pod).iter().all(|(_, p)| !p.status.condition_true(&ConditionType::Ready)));
        let readiness: Vec<(Verdict, String)> = trace
            .entries
            .iter()
            .filter_map(|e| match &e.record {
                Record::Probe(p) if *p.pod == *bad_pod && p.probe == ProbeKind::Readiness && e.t < t(FIX) => {
                    Some((p.verdict, p.detail.clone()))
                }
                _ => None,
            })
            .collect();
        assert!(readiness.len() > 10, "seed {seed}: probed every 2 s for about 2 minutes");
        for (verdict, detail) in &readiness {
            assert_eq!((*verdict, detail.as_str()), (Verdict::Failure, "HTTP probe failed with statuscode: 404"));
        }

        // reconcileOldReplicaSets never scales revision 1 down: maxScaledDown
        // = Σspec 2 − minAvailable 1 − newRSUnavailable 1 = 0. Its one pod
        // serves every request, before, during and after (all 200).
        let good_versions = rs_versions(&trace, good);
        assert!(!good_versions.is_empty(), "seed {seed}");
        assert!(good_versions.iter().all(|(_, r)| r.spec.replicas == 1), "seed {seed}");
        let good_pods = pods_of(&trace, good);
        assert_eq!(good_pods.len(), 1, "seed {seed}");
        let good_pod = good_pods[0].1.as_str();
        let curl = requests(&trace, "curl");
        assert!(curl.len() >= 100, "seed {seed}: every 2 s from 20 s to 240 s");
        for r in &curl {
            assert_eq!((status(r), served_by(r)), (Some(200), Some(good_pod)), "seed {seed}, request {}", r.n);
        }

        // Progressing: revision 1 (created, updated, available), revision 2
        // (created, updated), the deadline, then the fix completes at once.
        let progressing = progressing_changes(&trace);
        let reasons: Vec<Reason> = progressing.iter().map(|(_, c)| c.reason).collect();
        use Reason::*;
        let expected = [
            NewReplicaSetCreated,
            ReplicaSetUpdated,
            NewReplicaSetAvailable,
            NewReplicaSetCreated,
            ReplicaSetUpdated,
            ProgressDeadlineExceeded,
            NewReplicaSetAvailable,
        ];
        assert_eq!(reasons, expected, "seed {seed}");
        // ReplicaSetUpdated (updatedReplicas 0 → 1) is written a few hops
        // after the apply (RS, pod, the RS status that counts it, the
        // Deployment status: well under 0.2 s), so within the second:
        // lastUpdateTime, stored in whole seconds, is 30 s.
        let (updated_at, updated) = &progressing[4];
        assert!(*updated_at < t(31.0), "seed {seed}: {updated_at}");
        assert_eq!(updated.last_update, t(30.0), "seed {seed}");
        // Nothing changes the Deployment's counts afterwards, so each sync
        // calls requeueStuckDeployment: AddAfter(lastUpdate + 90 s − now + 1 s),
        // due at lastUpdate + 91 s whatever `now`; that sync finds
        // lastUpdate + 90 s strictly before now and writes the condition (2–10 ms).
        let (pde_at, pde) = &progressing[5];
        let due = updated.last_update + secs(91.0);
        within("ProgressDeadlineExceeded", *pde_at, due + ms(2), due + ms(10));
        assert_eq!(pde.status, ConditionStatus::False);
        assert_eq!(pde.message, format!("ReplicaSet \"{bad}\" has timed out progressing."));
        assert_eq!(pde.last_update, pde_at.floor_second());

        // The fix: the sync that finds revision 1's ReplicaSet raises its
        // revision to max(1, 2) + 1 = 3 and records 1 in revision-history
        // (an RS update, one hop after the apply) ...
        let good_versions = rs_versions(&trace, good);
        let (rev3_at, rev3) = good_versions.iter().find(|(_, r)| annotation(r, REVISION) == Some("3")).unwrap();
        hop("revision 3", *rev3_at, t(FIX));
        assert_eq!(annotation(rev3, REVISION_HISTORY), Some("1"), "seed {seed}");
        // ... and goes on to reconcileOldReplicaSets: maxScaledDown = 2 − 1 −
        // (1 − 1) = 1, and cleanupUnhealthyReplicas scales the unavailable
        // revision 2 (spec 1, available 0) to 0: the sync's next write.
        let down = rs_first(&trace, bad, |r| r.spec.replicas == 0);
        within("revision 2 scaled to 0", down, *rev3_at + ms(2), *rev3_at + ms(10));
        hop("its pod deleted", deletion_requested(&trace, &bad_pod), down);
        // Complete (updated = replicas = available = 1) once the scaled-down
        // ReplicaSet reports 0 replicas: its status write after it saw its
        // pod terminating, then the Deployment's hop; the Deployment key may
        // still be in the sync that writes revision 3 on the Deployment
        // (≤ 2 writes of 10 ms).
        let reports_zero = rs_first(&trace, bad, |r| r.spec.replicas == 0 && r.status.counts.replicas == 0);
        let (complete_at, complete) = &progressing[6];
        within("NewReplicaSetAvailable", *complete_at, reports_zero + ms(3), reports_zero + ms(38));
        assert_eq!(complete.message, format!("ReplicaSet \"{good}\" has successfully progressed."));
        let (_, last) = deployment_versions(&trace).pop().unwrap();
        assert_eq!(last.annotations.get(REVISION).map(String::as_str), Some("3"), "seed {seed}");
        // Available (1 ≥ 1 − maxUnavailable 0) holds from revision 1's first
        // ready pod to the end: the old pod never stops being available.
        let first_available = deployment_versions(&trace)
            .into_iter()
            .find(|(_, d)| {
                deployment_condition(d, DeploymentConditionType::Available)
                    .is_some_and(|c| c.status == ConditionStatus::True)
            })
            .unwrap()
            .0;
        for (at, d) in deployment_versions(&trace).into_iter().filter(|(at, _)| *at >= first_available) {
            let available = deployment_condition(&d, DeploymentConditionType::Available).unwrap();
            assert_eq!(available.status, ConditionStatus::True, "seed {seed} at {at}");
        }

        // The events: one ScalingReplicaSet per size change, one
        // SuccessfulCreate/SuccessfulDelete per pod.
        let deployment_events: Vec<String> =
            controller_events(&trace, "deployment-controller").into_iter().map(|e| e.2).collect();
        assert_eq!(
            deployment_events,
            [
                format!("Scaled up replica set {good} from 0 to 1"),
                format!("Scaled up replica set {bad} from 0 to 1"),
                format!("Scaled down replica set {bad} from 1 to 0"),
            ],
            "seed {seed}"
        );
        let rs_events: Vec<String> =
            controller_events(&trace, "replicaset-controller").into_iter().map(|e| e.2).collect();
        assert_eq!(
            rs_events,
            [format!("Created pod: {good_pod}"), format!("Created pod: {bad_pod}"), format!("Deleted pod: {bad_pod}")],
            "seed {seed}"
        );
    }
}

// ---- 2. c28-rollout ----

/// models/scenarios/c28-rollout.yaml: the same Deployment rolled out at 30 s
/// with a new pod-template annotation (`kubectl rollout restart`), readiness
/// still /ready. The client `curl` sends GET /identity to the Service every
/// 100–200 ms from 35 s. The app serves until it exits, 100 ms–3 s after
/// SIGTERM.
///
/// Returns, per seed, the requests that failed, the old pod's SIGTERM → exit,
/// and the time from its exit to the drop commit on the client's node.
fn c28_rollout() -> Vec<(usize, SimDuration, SimDuration)> {
    const SVC: &str = "c28-probe";
    let mut failures = Vec::new();
    for seed in SEEDS {
        let trace = run("c28-rollout", seed, None);
        let names = rs_names(&trace);
        assert_eq!(names.len(), 2, "seed {seed}");
        let (old, new) = (&*names[0], &*names[1]);
        let old_pod = pods_of(&trace, old)[0].1.clone();

        // 1. The new ReplicaSet, one hop after the apply, with 1 replica
        //    (maxSurge 1) and never more; revision 2.
        let new_versions = rs_versions(&trace, new);
        let created = new_versions[0].0;
        hop("new ReplicaSet", created, t(30.0));
        assert!(new_versions.iter().all(|(_, r)| r.spec.replicas == 1), "seed {seed}");
        let r0 = &new_versions[0].1;
        assert_eq!(annotation(r0, REVISION), Some("2"));
        assert_eq!(annotation(r0, "deployment.kubernetes.io/max-replicas"), Some("2"));
        // 2. Its pod, one hop later.
        let new_pods = pods_of(&trace, new);
        assert_eq!(new_pods.len(), 1, "seed {seed}");
        let (pod_at, new_pod) = new_pods[0].clone();
        hop("new pod", pod_at, created);
        // 3. Ready: the first readiness tick (period 2 s) at or after S+10 s,
        //    then the status PATCH (c28_service.rs).
        let s = pod_lives(&trace, &new_pod, "probe-app")[0].started;
        let ready = pod_condition(&trace, &new_pod, &ConditionType::Ready, true).unwrap();
        within("new pod Ready", ready, s + secs(10.0), s + secs(12.1));
        // 4. The ReplicaSet controller reports it available (minReadySeconds 0).
        let available = rs_first(&trace, new, |r| r.status.counts.available_replicas == 1);
        hop("availableReplicas 1", available, ready);
        // 5. Only then is the old ReplicaSet scaled down (maxUnavailable 0:
        //    maxScaledDown = 2 − 1 − (1 − availableReplicas) is 0 until then).
        let down = rs_first(&trace, old, |r| r.spec.replicas == 0);
        hop("old ReplicaSet 1 → 0", down, available);
        let before: Vec<_> = rs_versions(&trace, old).into_iter().filter(|(t, _)| *t < down).collect();
        assert!(!before.is_empty() && before.iter().all(|(_, r)| r.spec.replicas == 1), "seed {seed}");
        // 6–7. Its pod deleted, SIGTERM, exit 0 within 100 ms–3 s.
        let deleted = deletion_requested(&trace, &old_pod);
        hop("old pod deleted", deleted, down);
        let life = pod_lives(&trace, &old_pod, "probe-app").remove(0);
        let sigterm = life.sigterm.unwrap();
        hop("SIGTERM", sigterm, deleted);
        let exit = life.finished.unwrap();
        within("exit", exit, sigterm + ms(100), sigterm + secs(3.0));
        assert_eq!(life.exit, Some(0), "seed {seed}");
        assert!(created < pod_at && pod_at < ready && ready < available && available < down, "seed {seed}");
        let events: Vec<String> = controller_events(&trace, "deployment-controller").into_iter().map(|e| e.2).collect();
        assert_eq!(
            events,
            [
                format!("Scaled up replica set {old} from 0 to 1"),
                format!("Scaled up replica set {new} from 0 to 1"),
                format!("Scaled down replica set {old} from 1 to 0"),
            ],
            "seed {seed}"
        );

        // 8. Endpoints: the new pod ready; the old one terminating, still
        //    serving while it is Ready (the kubelet does not unready a pod
        //    for being deleted); not serving once its container stopped
        //    (StopPodSandbox 50–200 ms, PATCH 2–10 ms after the exit); gone
        //    once Succeeded. A stale-cache retry (`slice_write`) can merge
        //    two of these steps into one write.
        let (new_endpoint, _) = slice_with(&trace, SVC, &new_pod, ready, |c| c == Some((true, true, false)));
        slice_write("new endpoint ready", &trace, SVC, new_endpoint, ready);
        let (terminating, c) = slice_with(&trace, SVC, &old_pod, deleted, |c| c.is_none_or(|c| c.2));
        slice_write("old endpoint terminating", &trace, SVC, terminating, deleted);
        let unready = unready_after(&trace, &old_pod, deleted);
        within("old pod Ready=False", unready, exit + ms(52), exit + ms(210));
        if terminating < unready {
            assert_eq!(c, Some((false, true, true)), "seed {seed}");
        }
        let (not_serving, _) = slice_with(&trace, SVC, &old_pod, unready, |c| c.is_none_or(|c| !c.1));
        slice_write("old endpoint not serving", &trace, SVC, not_serving, unready);
        let succeeded = phase_at(&trace, &old_pod, PodPhase::Succeeded);
        let (gone, _) = slice_with(&trace, SVC, &old_pod, succeeded, |c| c.is_none());
        slice_write("old endpoint removed", &trace, SVC, gone, succeeded);

        // 9. kube-proxy: the new pod joins the rules; with a ready endpoint
        //    there, the terminating one is never used (CategorizeEndpoints),
        //    so the first sync after the deletion drops the old pod.
        let joined: Vec<SimTime> =
            NODES.iter().map(|n| programmed(&trace, n, SVC, new_endpoint, |a| forwards_to(a, &new_pod))).collect();
        let dropped: Vec<SimTime> = NODES
            .iter()
            .map(|n| programmed(&trace, n, SVC, terminating, |a| forwards_to(a, &new_pod) && !forwards_to(a, &old_pod)))
            .collect();
        for (node, drop) in NODES.iter().zip(&dropped) {
            for (at, _, a) in proxy_actions(&trace, node, SVC) {
                if at >= *drop {
                    assert!(!a.as_ref().is_some_and(|a| forwards_to(a, &old_pod)), "seed {seed}, {node} at {at}");
                }
            }
        }

        // 10. The requests, by the rules of the client's node at the send (a
        //     request sent in a commit's millisecond still meets the old rules)
        //     and the app: a request reaches the pod 0–1 ms after it is sent
        //     and is answered 2 ms later, so one sent 3 ms before the exit is
        //     answered; one sent after the exit finds nothing listening.
        let curl = requests(&trace, "curl");
        let mut failed = 0;
        for r in &curl {
            let what = format!("seed {seed}, request {} sent {}", r.n, r.sent);
            if served_by(r) == Some(old_pod.as_str()) {
                assert!(r.sent <= dropped[0], "{what}: routed to the old pod after its node dropped it");
                if r.sent + ms(3) < exit {
                    assert_eq!(status(r), Some(200), "{what}");
                } else if r.sent > exit {
                    assert!(failed_at_the_pod(r), "{what}: {:?}", r.outcome);
                } else {
                    // In flight at the exit: answered, or reset.
                    assert!(status(r) == Some(200) || r.outcome == Outcome::Reset, "{what}: {:?}", r.outcome);
                }
                failed += (status(r) != Some(200)) as usize;
            } else {
                assert_eq!(served_by(r), Some(new_pod.as_str()), "{what}: {:?}", r.outcome);
                assert!(r.sent >= joined[0], "{what}");
                assert_eq!(status(r), Some(200), "{what}");
            }
        }
        // Every failure is a request kube-proxy sent to the old pod after it
        // exited (sent ≥ exit − 3 ms) and before the drop commit: none is
        // refused by kube-proxy. The drop commits ≤ 1.110 s after the
        // terminating write (see recreate), the exit is ≥ 103 ms after the
        // deletion: that window, at one request per ≥ 100 ms, bounds them.
        assert_eq!(curl.iter().filter(|r| status(r).is_none()).count(), failed, "seed {seed}");
        let window = dropped[0].since(exit);
        assert!(window <= terminating.since(deleted) + ms(1110 + 3 - 103), "seed {seed}: {window:?}");
        assert!(failed as u64 <= window.as_millis() / 100 + 1, "seed {seed}: {failed} in {window:?}");
        failures.push((failed, exit.since(sigterm), window));
    }
    failures
}

#[test]
fn a_correct_rollout_replaces_the_pod_only_after_the_new_one_is_available() {
    let failures = c28_rollout();
    // When the old pod exits (100 ms–3 s after SIGTERM) before its node's
    // kube-proxy drops it (≥ 1 s after its previous commit, minSyncPeriod),
    // requests still sent to it fail; when it exits later, none does.
    for (failed, _, window) in &failures {
        assert!(*failed == 0 || *window > SimDuration::ZERO, "{failures:?}");
    }
}

// ---- 3. rollout-10 ----

/// models/scenarios/rollout-10.yaml: 10 replicas, maxSurge 25 % (ceil 2.5 =
/// 3) and maxUnavailable 25 % (floor 2.5 = 2): maxTotal 13, minAvailable 8.
/// The app listens 100–300 ms after its start S; /ready answers 200 from
/// S+5 s; readiness period 1 s. Rolled out at 30 s to a new image.
#[test]
fn ten_replicas_roll_with_at_least_8_available_and_at_most_13_counted() {
    const A: f64 = 30.0;
    for seed in SEEDS {
        let trace = run("rollout-10", seed, None);
        let names = rs_names(&trace);
        assert_eq!(names.len(), 2, "seed {seed}");
        let (old, new) = (&*names[0], &*names[1]);

        // The first sync creates the new ReplicaSet with
        // NewRSNewReplicas = min(13 − 10, 10 − 0) = 3 and, in the same sync,
        // reconcileOldReplicaSets scales the old one by
        // min(maxScaledDown 13 − 8 − (3 − 0) = 2, available 10 − 8) to 8;
        // the next sync finds Σspec 11 and scales the new one up by 2 (SOURCES §7.1).
        let steps: Vec<(bool, String, u32, u32)> = controller_events(&trace, "deployment-controller")
            .into_iter()
            .filter(|(at, _, _)| *at >= t(A))
            .map(|(_, _, m)| scaling(&m))
            .collect();
        assert_eq!(
            steps[..3],
            [(true, new.to_string(), 0, 3), (false, old.to_string(), 10, 8), (true, new.to_string(), 3, 5)],
            "seed {seed}"
        );
        // Afterwards the new one only grows and the old one only shrinks,
        // until 10 and 0.
        let sizes = |up: bool| -> Vec<u32> { steps.iter().filter(|s| s.0 == up).map(|s| s.3).collect() };
        for (up, end) in [(true, 10), (false, 0)] {
            let v = sizes(up);
            assert!(v.windows(2).all(|w| (w[1] > w[0]) == up), "seed {seed}: {v:?}");
            assert_eq!(v.last(), Some(&end), "seed {seed}");
        }
        assert!(steps.iter().all(|s| if s.0 { &*s.1 == new } else { &*s.1 == old }), "seed {seed}");

        // At every instant from the apply on (after all records of a
        // millisecond), what the controllers count:
        // - Σ spec.replicas ≤ 13: NewRSNewReplicas only fills up to
        //   replicas + maxSurge, and scale-downs only lower it;
        // - Σ status.availableReplicas ≥ 8: the old ReplicaSets are scaled
        //   down by at most Σavailable − minAvailable, and a status that lags
        //   a scale-down (spec < available) makes cleanupUnhealthyReplicas
        //   fail that sync;
        // - active pods (not deleted, not finished): a ReplicaSet only creates
        //   up to its spec, and one scaled down deletes its excess one hop
        //   later — watch ≤ 8 ms, the sync in flight for that key finishing
        //   its status write ≤ 10 ms, the DELETE ≤ 10 ms, and the previous
        //   deletions' expectations met ≤ 8 ms after their writes: ≤ 36 ms.
        //   So active pods ≤ 13 except for that excess.
        let mut spec: BTreeMap<String, u32> = BTreeMap::new();
        let mut available: BTreeMap<String, u32> = BTreeMap::new();
        let mut active: BTreeMap<String, (String, bool)> = BTreeMap::new();
        let mut excess_since: BTreeMap<String, SimTime> = BTreeMap::new();
        let (mut max_total, mut min_available, mut max_active) = (0, u32::MAX, 0);
        let entries = &trace.entries;
        for (i, e) in entries.iter().enumerate() {
            match &e.record {
                Record::ReplicaSet { rs, .. } => {
                    spec.insert(rs.spec.name.to_string(), rs.spec.replicas);
                    available.insert(rs.spec.name.to_string(), rs.status.counts.available_replicas);
                }
                Record::Pod { kind, pod } => {
                    let owner = pod.spec.owner.as_ref().map(|o| o.name.to_string()).unwrap_or_default();
                    let is_active =
                        *kind != WatchKind::Deleted && pod.meta.deletion.is_none() && !pod.status.phase.is_terminal();
                    active.insert(pod.spec.name.clone(), (owner, is_active));
                }
                _ => {}
            }
            if e.t < t(A) || entries.get(i + 1).is_some_and(|n| n.t == e.t) {
                continue;
            }
            let total: u32 = spec.values().sum();
            let avail: u32 = available.values().sum();
            max_total = max_total.max(total);
            min_available = min_available.min(avail);
            assert!(total <= 13, "seed {seed} at {}: Σspec {total}", e.t);
            assert!(avail >= 8, "seed {seed} at {}: Σavailable {avail}", e.t);
            let mut per_rs: BTreeMap<&str, u32> = BTreeMap::new();
            for (owner, a) in active.values() {
                *per_rs.entry(owner.as_str()).or_default() += *a as u32;
            }
            let mut excess = 0;
            for (rs, n) in &spec {
                let count = per_rs.get(rs.as_str()).copied().unwrap_or(0);
                if count > *n {
                    excess += count - n;
                    let since = *excess_since.entry(rs.clone()).or_insert(e.t);
                    assert!(e.t.since(since) <= ms(36), "seed {seed}: {rs} above its spec since {since}");
                } else {
                    excess_since.remove(rs);
                }
            }
            let total_active: u32 = per_rs.values().sum();
            max_active = max_active.max(total_active);
            assert!(total_active <= 13 + excess, "seed {seed} at {}: {total_active} active", e.t);
        }
        assert_eq!((max_total, min_available), (13, 8), "seed {seed}: the bounds are reached, not just kept");
        assert!(max_active >= 13, "seed {seed}");

        // Each new pod: created → started ∈ [215, 763] ms (scheduling 2–15,
        // the kubelet's watch 1–8, pod sync 2–10, sandbox 150–500, create
        // 20–80, start 40–150; no pull); started → Ready ∈ [5.003, 6.013] s
        // (the first tick of a 1 s period at or after S+5 s; the probe's
        // round trip 1–3 ms; the PATCH 2–10 ms).
        let new_pods = pods_of(&trace, new);
        assert_eq!(new_pods.len(), 10, "seed {seed}");
        let mut readies = Vec::new();
        for (at, name) in &new_pods {
            let s = pod_lives(&trace, name, "web")[0].started;
            within(&format!("{name} started"), s, *at + ms(215), *at + ms(763));
            let ready = pod_condition(&trace, name, &ConditionType::Ready, true).unwrap();
            within(&format!("{name} Ready"), ready, s + ms(5003), s + ms(6013));
            readies.push(ready);
        }
        readies.sort();
        // So each pod takes 5.218–6.776 s from creation to Ready. The first
        // five are created by the first syncs, within 0.2 s of the apply:
        // the Deployment's first sync (a watch, then four writes: create,
        // status, old scale-down, status), a retry (5 ms) or the watch of its
        // own write, the scale-up write; the ReplicaSet controller's watch,
        // its sync in flight, and slow-start batches of 1, 2 and 2 creates.
        for (at, name) in &new_pods[..5] {
            within(&format!("{name} created"), *at, t(A) + ms(6), t(A) + ms(200));
        }
        // The (5 + j)-th new pod needs j new pods available: new ≤ 13 − old
        // spec and old spec ≥ 8 − available new pods.
        for j in 1..=5 {
            assert!(new_pods[4 + j].0 > readies[j - 1], "seed {seed}: pod {} before {j} ready", 5 + j);
        }
        // The last five are created within 0.2 s of the fifth new pod's
        // Ready: the ReplicaSet's status hop, the Deployment's scale-down and
        // status, its next sync's scale-up, the ReplicaSet controller's creates.
        for (at, name) in &new_pods[5..] {
            assert!(*at <= readies[4] + ms(200), "seed {seed}: {name} created at {at}");
        }

        // Complete (Progressing NewReplicaSetAvailable, observedGeneration 2)
        // after the last new pod's Ready: the new ReplicaSet reports it, the
        // old one is scaled to 0, deletes its pods and reports 0 replicas,
        // the Deployment writes the condition — within 0.2 s.
        let (complete, _) = deployment_versions(&trace)
            .into_iter()
            .find(|(at, d)| {
                *at >= t(A)
                    && d.status.observed_generation == 2
                    && deployment_condition(d, DeploymentConditionType::Progressing)
                        .is_some_and(|c| c.reason == Reason::NewReplicaSetAvailable)
            })
            .expect("the rollout completes");
        let last_ready = readies[9];
        within("complete", complete, last_ready + ms(6), last_ready + ms(200));
        // Two waves of pod starts: the length is ≥ 6 ms + 2 × 5.218 s and
        // ≤ 3 × 0.2 s + 2 × 6.776 s.
        within("rollout length", complete, t(A) + ms(10_442), t(A) + ms(14_152));

        // At the end: the new ReplicaSet has 10 available, the old one 0 of 0;
        // the Deployment is at revision 2 and was Available all along
        // (available ≥ 10 − maxUnavailable 2 at every write).
        let (_, n) = rs_versions(&trace, new).pop().unwrap();
        assert_eq!((n.spec.replicas, n.status.counts.available_replicas), (10, 10), "seed {seed}");
        let (_, o) = rs_versions(&trace, old).pop().unwrap();
        assert_eq!((o.spec.replicas, o.status.counts.replicas), (0, 0), "seed {seed}");
        for (at, d) in deployment_versions(&trace).into_iter().filter(|(at, _)| *at >= t(A)) {
            let c = deployment_condition(&d, DeploymentConditionType::Available).unwrap();
            assert_eq!(c.status, ConditionStatus::True, "seed {seed} at {at}");
            assert!(d.status.available_replicas >= 8, "seed {seed} at {at}");
        }
        let (_, last) = deployment_versions(&trace).pop().unwrap();
        assert_eq!(last.annotations.get(REVISION).map(String::as_str), Some("2"));
    }
}

// ---- 4. recreate ----

/// models/scenarios/recreate.yaml: 3 replicas, strategy Recreate, behind the
/// Service `web`; the app of rollout-10 (exits 50–500 ms after SIGTERM).
/// Rolled out at 30 s; the client `curl` sends GET / every 100–200 ms from 25 s.
#[test]
fn recreate_stops_every_old_pod_before_creating_the_new_replica_set_and_the_service_refuses_between() {
    const A: f64 = 30.0;
    const SVC: &str = "web";
    for seed in SEEDS {
        let trace = run("recreate", seed, None);
        let names = rs_names(&trace);
        assert_eq!(names.len(), 2, "seed {seed}");
        let (old, new) = (&*names[0], &*names[1]);

        // rolloutRecreate: no new ReplicaSet yet (create=false), every old
        // one scaled to 0 first, one hop after the apply.
        let down = rs_first(&trace, old, |r| r.spec.replicas == 0);
        hop("old ReplicaSet 3 → 0", down, t(A));
        // Deletions are not slow-started: all three one hop later; each pod
        // gets SIGTERM one hop after its deletion and exits 50–500 ms later,
        // turns Ready=False when its container is stopped, then Succeeded.
        let old_pods: Vec<String> = pods_of(&trace, old).into_iter().map(|p| p.1).collect();
        assert_eq!(old_pods.len(), 3, "seed {seed}");
        let mut exits = BTreeMap::new();
        let (mut last_unready, mut last_gone) = (SimTime::ZERO, SimTime::ZERO);
        for p in &old_pods {
            let deleted = deletion_requested(&trace, p);
            hop(&format!("{p} deleted"), deleted, down);
            let life = pod_lives(&trace, p, "web").remove(0);
            let sigterm = life.sigterm.unwrap();
            hop(&format!("{p} SIGTERM"), sigterm, deleted);
            let exit = life.finished.unwrap();
            within(&format!("{p} exit"), exit, sigterm + ms(50), sigterm + ms(500));
            exits.insert(p.clone(), exit);
            let unready = unready_after(&trace, p, deleted);
            within(&format!("{p} Ready=False"), unready, exit + ms(52), exit + ms(210));
            last_unready = last_unready.max(unready);
            // oldPodsRunning skips pods in a terminal phase; every pod is
            // Succeeded before the kubelet's final DELETE.
            let succeeded = phase_at(&trace, p, PodPhase::Succeeded);
            assert!(removed_at(&trace, p).is_none_or(|r| r > succeeded), "seed {seed}");
            last_gone = last_gone.max(succeeded);
        }
        // The new ReplicaSet: only once no old pod runs (oldPodsRunning), at
        // the first sync after. In 1.35 the last pod's Succeeded ends its
        // terminating count: the ReplicaSet controller's status write (a
        // hop), which wakes the Deployment controller (another hop, the
        // create): 6–36 ms; each controller may first finish a sync in
        // flight for the key (one write, ≤ 10 ms), and the Deployment
        // controller retry a status write that conflicted (5 ms): ≤ 61 ms.
        // A sync queued by an earlier pod's status write can also see the
        // last pod Succeeded already: one hop, ≥ 3 ms.
        let new_versions = rs_versions(&trace, new);
        let created = new_versions[0].0;
        within(&format!("new ReplicaSet (seed {seed})"), created, last_gone + ms(3), last_gone + ms(61));
        assert!(new_versions.iter().all(|(_, r)| r.spec.replicas == 3), "seed {seed}: NewRSNewReplicas = replicas");
        let events: Vec<String> = controller_events(&trace, "deployment-controller")
            .into_iter()
            .filter(|e| e.0 >= t(A))
            .map(|e| e.2)
            .collect();
        assert_eq!(
            events,
            [format!("Scaled down replica set {old} from 3 to 0"), format!("Scaled up replica set {new} from 0 to 3")],
            "seed {seed}"
        );
        let new_pods: Vec<String> = pods_of(&trace, new).into_iter().map(|p| p.1).collect();
        assert_eq!(new_pods.len(), 3, "seed {seed}");
        let first_ready =
            new_pods.iter().map(|p| pod_condition(&trace, p, &ConditionType::Ready, true).unwrap()).min().unwrap();
        // A new pod: created one hop after its ReplicaSet at the earliest,
        // Ready ≥ 5.218 s after its creation (rollout-10).
        assert!(first_ready >= created + ms(3 + 5218), "seed {seed}");

        // The Service: after the last old pod stopped serving (its endpoint
        // serving=false, one hop after its Ready=False) no endpoint is ready
        // or serving until the first new pod is Ready.
        let id = service_id(&trace, SVC);
        let writes: Vec<(SimTime, bool, bool)> = trace
            .entries
            .iter()
            .filter_map(|e| match &e.record {
                Record::Slice { slice, .. } if slice.service == id && e.t >= t(A) => Some((
                    e.t,
                    slice.content.endpoints.iter().any(|ep| ep.ready),
                    slice.content.endpoints.iter().any(|ep| ep.serving),
                )),
                _ => None,
            })
            .collect();
        let none = writes.iter().find(|w| !w.2).expect("no serving endpoint").0;
        slice_write(&format!("no serving endpoint (seed {seed})"), &trace, SVC, none, last_unready);
        let back = writes.iter().find(|w| w.0 > none && w.1).expect("an endpoint is ready again").0;
        slice_write("a new endpoint ready", &trace, SVC, back, first_ready);
        assert!(writes.iter().filter(|w| w.0 >= none && w.0 < back).all(|w| !w.1 && !w.2), "seed {seed}");
        // Every kube-proxy REJECTs in between, then forwards to new pods.
        let reject: Vec<SimTime> =
            NODES.iter().map(|n| programmed(&trace, n, SVC, none, |a| *a == Action::Reject)).collect();
        let forward: Vec<SimTime> = NODES
            .iter()
            .map(|n| programmed(&trace, n, SVC, back, |a| new_pods.iter().any(|p| forwards_to(a, p))))
            .collect();
        // The window on the client's node: the REJECT sync starts by the
        // previous commit + 1 s, and that commit came from a sync started
        // ≤ 8 ms after `none` (else it would have been the REJECT one): the
        // REJECT commits by none + 1.110 s; none ≤ last_unready + 1.028 s
        // (`slice_write`) ≤ last_gone + 1.028 s. The forward commits ≥
        // first_ready + 3 ms + 21 ms ≥ created + 5.245 s ≥ last_gone +
        // 5.248 s. So ≥ 3.11 s.
        let window = forward[0].since(reject[0]);
        assert!(window >= ms(3110), "seed {seed}: {window:?}");

        // The requests, by the rules of the client's node at the send.
        let curl = requests(&trace, "curl");
        let refused = Outcome::Refused(Refusal::NoEndpoints { rule: "default/web:http".into() });
        let mut refusals = 0;
        for r in &curl {
            let what = format!("seed {seed}, request {} sent {}", r.n, r.sent);
            if r.sent > reject[0] && r.sent < forward[0] {
                assert_eq!(r.outcome, refused, "{what}");
                refusals += 1;
            } else if r.sent > forward[0] {
                let by = served_by(r).unwrap_or_default();
                assert!(status(r) == Some(200) && new_pods.iter().any(|p| p == by), "{what}: {:?}", r.outcome);
            } else if r.sent < reject[0] {
                // An old pod, ready or serving-terminating: answered until it
                // exits, nothing listening (or no route) after.
                let by = served_by(r).expect("routed to a pod");
                let exit = exits[by];
                if r.sent + ms(3) < exit {
                    assert_eq!(status(r), Some(200), "{what}");
                } else if r.sent > exit {
                    assert!(failed_at_the_pod(r), "{what}: {:?}", r.outcome);
                }
            }
        }
        // ≥ 3.11 s of sends every ≤ 200 ms.
        assert!(refusals >= 14, "seed {seed}: {refusals}");
        let before: Vec<_> = curl.iter().filter(|r| r.sent < t(A)).collect();
        assert!(!before.is_empty() && before.iter().all(|r| status(r) == Some(200)), "seed {seed}");

        // Recreate has maxUnavailable 0: Available is True exactly when all 3
        // are available, at every write.
        for (at, d) in deployment_versions(&trace).into_iter().filter(|(at, _)| *at > t(A)) {
            let c = deployment_condition(&d, DeploymentConditionType::Available).unwrap();
            assert_eq!(c.status == ConditionStatus::True, d.status.available_replicas >= 3, "seed {seed} at {at}");
        }
    }
}

/// Kubernetes 1.34 has DeploymentReplicaSetTerminatingReplicas off: no
/// ReplicaSet count changes when a deleted pod turns Succeeded, so the
/// Deployment controller is woken only by `deletePod` once none of its pods
/// is left: the new ReplicaSet comes one hop after the last old pod object
/// is deleted from the API server.
#[test]
fn in_1_34_recreate_waits_for_the_last_old_pod_object_to_be_deleted() {
    for seed in SEEDS {
        let trace = run("recreate", seed, Some("1.34"));
        let names = rs_names(&trace);
        let old_pods = pods_of(&trace, &names[0]);
        let last_removed = old_pods.iter().map(|(_, p)| removed_at(&trace, p).expect("removed")).max().unwrap();
        let created = rs_versions(&trace, &names[1])[0].0;
        hop("new ReplicaSet", created, last_removed);
    }
}

// ---- 5. crashloop-rollout ----

/// restart 1 is free; restart k ≥ 2 waits 10 s · 2^(k−2), capped at 300 s
/// (crash_loop.rs).
fn backoff(restart: usize) -> SimDuration {
    if restart < 2 { SimDuration::ZERO } else { (secs(10.0) * (1 << (restart - 2).min(5))).min(secs(300.0)) }
}

/// models/scenarios/crashloop-rollout.yaml: 3 replicas behind the Service
/// `web`, progressDeadlineSeconds 60, rolled out at 20 s to a release whose
/// container (web-broken) never listens and exits 1 one second after each
/// start. maxSurge 25 % of 3 → 1, maxUnavailable → 0. The client `curl`
/// sends GET / every 100–200 ms from 15 s.
#[test]
fn a_crash_looping_release_never_becomes_available_and_the_deadline_fires() {
    const A: f64 = 20.0;
    for seed in SEEDS {
        let trace = run("crashloop-rollout", seed, None);
        // The Deployment's ReplicaSets (the scaled-to-zero one of the
        // manifests has no owner).
        let names: Vec<String> = replica_sets(&trace)
            .into_iter()
            .filter(|(_, k, r)| *k == WatchKind::Added && r.spec.owner.is_some())
            .map(|(_, _, r)| r.spec.name.to_string())
            .collect();
        assert_eq!(names.len(), 2, "seed {seed}");
        let (old, new) = (&names[0], &names[1]);
        let new_versions = rs_versions(&trace, new);
        hop("new ReplicaSet", new_versions[0].0, t(A));
        assert!(new_versions.iter().all(|(_, r)| r.spec.replicas == 1), "seed {seed}");
        assert!(new_versions.iter().all(|(_, r)| r.status.counts.ready_replicas == 0), "seed {seed}");
        // maxUnavailable 0 and no new pod ever available: maxScaledDown = 4 −
        // 3 − 1 = 0, the old ReplicaSet keeps 3.
        assert!(rs_versions(&trace, old).iter().all(|(_, r)| r.spec.replicas == 3), "seed {seed}");

        // The new pod crash-loops: each instance exits 1 one second after
        // its start; the restarts follow the 1.35 backoff (crash_loop.rs):
        // no earlier than exit + backoff, no later than half of the last
        // ≤ 60 s slice plus 2.5 s after it.
        let new_pods = pods_of(&trace, new);
        assert_eq!(new_pods.len(), 1, "seed {seed}");
        let pod = &new_pods[0].1;
        let lives = pod_lives(&trace, pod, "web-broken");
        // 5 starts by 200 s: the first ≤ 1 s after the apply, then each
        // restart k ≤ 1 s + backoff(k) + its slack later (≈ 140 s for k = 4).
        assert!(lives.len() >= 5, "seed {seed}: {}", lives.len());
        for (k, pair) in lives.windows(2).enumerate() {
            let restart = k + 1;
            let exit = pair[0].finished.unwrap();
            assert_eq!((pair[0].exit, exit), (Some(1), pair[0].started + secs(1.0)), "seed {seed}");
            let b = backoff(restart);
            let slack = SimDuration::from_millis(b.min(secs(60.0)).as_millis() / 2) + ms(2500);
            within(&format!("restart {restart} (seed {seed})"), pair[1].started, exit + b, exit + b + slack);
        }
        assert!(first_waiting(&trace, "web-broken", "CrashLoopBackOff").is_some(), "seed {seed}");
        assert!(pod_versions(&trace, pod).iter().all(|(_, p)| !p.status.condition_true(&ConditionType::Ready)));

        // The deadline. The sync that creates the new ReplicaSet writes
        // NewReplicaSetCreated (getNewReplicaSet's UpdateStatus); its second
        // UpdateStatus, from the same stale object, conflicts and the sync is
        // retried. Whether the retry sees progress (updatedReplicas 0 → 1,
        // ReplicaSetUpdated) depends on whether the new ReplicaSet's status
        // was written by then: either way the last Progressing update is in
        // second 20, restarts change no ReplicaSet count, and the sync
        // requeued for lastUpdate + 60 s + 1 s writes ProgressDeadlineExceeded
        // (2–10 ms), which then stays.
        let progressing: Vec<(SimTime, _)> =
            progressing_changes(&trace).into_iter().filter(|(at, _)| *at >= t(A)).collect();
        let reasons: Vec<Reason> = progressing.iter().map(|(_, c)| c.reason).collect();
        let with_update = [Reason::NewReplicaSetCreated, Reason::ReplicaSetUpdated, Reason::ProgressDeadlineExceeded];
        let without = [Reason::NewReplicaSetCreated, Reason::ProgressDeadlineExceeded];
        assert!(reasons == with_update || reasons == without, "seed {seed}: {reasons:?}");
        let updated = &progressing[progressing.len() - 2].1;
        assert_eq!(updated.last_update, t(A), "seed {seed}");
        let (pde_at, pde) = progressing.last().unwrap();
        let due = updated.last_update + secs(61.0);
        within("ProgressDeadlineExceeded", *pde_at, due + ms(2), due + ms(10));
        assert_eq!(pde.message, format!("ReplicaSet \"{new}\" has timed out progressing."));

        // The old pods serve every request: never deleted, never restarted,
        // always in the rules (the new pod never is); all 200.
        let old_pods: Vec<String> = pods_of(&trace, old).into_iter().map(|p| p.1).collect();
        assert_eq!(old_pods.len(), 3, "seed {seed}");
        for p in &old_pods {
            assert_eq!(pod_lives(&trace, p, "web").len(), 1, "seed {seed}");
            assert!(pod_versions(&trace, p).iter().all(|(_, v)| v.meta.deletion.is_none()), "seed {seed}");
        }
        let curl = requests(&trace, "curl");
        assert!(curl.len() > 500, "seed {seed}: 185 s at one request per ≤ 200 ms");
        for r in &curl {
            let by = served_by(r).unwrap_or_default();
            assert!(status(r) == Some(200) && old_pods.iter().any(|p| p == by), "seed {seed}, request {}", r.n);
        }
        for (at, d) in deployment_versions(&trace).into_iter().filter(|(at, _)| *at >= t(A)) {
            let c = deployment_condition(&d, DeploymentConditionType::Available).unwrap();
            assert_eq!(c.status, ConditionStatus::True, "seed {seed} at {at}");
        }
    }
}

/// models/scenarios/c28-undo.yaml: the bad path rolled out at 30 s, `kubectl
/// rollout undo` at 60 s, `kubectl scale --replicas=3` at 90 s.
///
/// Undo (kubectl's `DeploymentRollbacker`) patches the Deployment with
/// revision 1's template; the controller's `FindNewReplicaSet` then finds
/// revision 1's ReplicaSet, `SetNewReplicaSetAnnotations` raises it to
/// revision 3 (max 2 + 1) with revision-history "1", and
/// `reconcileNewReplicaSet` / `reconcileOldReplicaSets` scale the bad one to
/// 0 (its pod was never available). The scale is not a rollout: one active
/// ReplicaSet (`FindActiveOrLatest`) goes to 3, no new ReplicaSet.
#[test]
fn undo_returns_to_revision_1_and_scale_grows_the_same_replica_set() {
    for seed in SEEDS {
        let trace = run("c28-undo", seed, None);
        let names = rs_names(&trace);
        assert_eq!(names.len(), 2, "seed {seed}: the undo and the scale create no ReplicaSet");
        let (good, bad) = (names[0].clone(), names[1].clone());
        let rev3 = rs_first(&trace, &good, |r| annotation(r, REVISION) == Some("3"));
        let good_now = rs_versions(&trace, &good).last().unwrap().1.clone();
        assert_eq!(annotation(&good_now, REVISION_HISTORY), Some("1"), "seed {seed}");
        // The patch is stored at 60 s; the controller's watch and its PUT
        // follow (3–18 ms), and the scale-down of the bad one is the same
        // sync's next call or the next sync's (a conflict retries after 5 ms).
        within("revision 3", rev3, t(60.0) + ms(3), t(60.0) + ms(100));
        let bad_zero = rs_first(&trace, &bad, |r| r.spec.replicas == 0);
        within("bad scaled to 0", bad_zero, rev3, t(60.0) + ms(200));
        // The scale: revision 1's ReplicaSet 1 → 3, and 3 of its pods serve.
        let three = rs_first(&trace, &good, |r| r.spec.replicas == 3);
        within("scaled to 3", three, t(90.0) + ms(3), t(90.0) + ms(100));
        let events: Vec<String> =
            controller_events(&trace, "deployment-controller").into_iter().map(|(_, _, m)| m).collect();
        assert!(events.contains(&format!("Scaled down replica set {bad} from 1 to 0")), "seed {seed}: {events:?}");
        assert!(events.contains(&format!("Scaled up replica set {good} from 1 to 3")), "seed {seed}: {events:?}");
        // syncDeploymentStatus counts the sizes the scaling sync read, since
        // scaleReplicaSet writes a copy: 1 − 1 available = 0 unavailable. The
        // next sync reads the ReplicaSet at 3 while one pod is available: 2.
        let versions = deployment_versions(&trace);
        let scaled = versions.iter().map(|(_, d)| d).filter(|d| d.spec.replicas == 3);
        let mut observed = scaled.filter(|d| d.status.observed_generation == d.meta.generation as u64);
        let first = observed.next().expect("a status of the scaled generation");
        let s = &first.status;
        assert_eq!((s.available_replicas, s.unavailable_replicas), (1, 0), "seed {seed}");
        let next = observed.find(|d| d.status != first.status).expect("the next status");
        assert_eq!((next.status.available_replicas, next.status.unavailable_replicas), (1, 2), "seed {seed}");
        let (_, last) = deployment_versions(&trace).pop().unwrap();
        let s = &last.status;
        assert_eq!((s.replicas, s.updated_replicas, s.available_replicas), (3, 3, 3), "seed {seed}");
        let progressing = deployment_condition(&last, DeploymentConditionType::Progressing).unwrap();
        assert_eq!(progressing.reason, Reason::NewReplicaSetAvailable, "seed {seed}");
        // The bad pod never became Ready, so every request went to a revision-1 pod.
        let curl = requests(&trace, "curl");
        assert!(!curl.is_empty());
        for r in &curl {
            assert_eq!(status(r), Some(200), "seed {seed}, request {}", r.n);
            assert!(served_by(r).is_some_and(|p| p.starts_with(&format!("{good}-"))), "seed {seed}");
        }
    }
}
