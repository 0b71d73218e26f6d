//! The Service path end to end: EndpointSlice conditions, each node's
//! kube-proxy rules and what clients get, in five scenarios of `models/`.
//!
//! Every bound below is derived from Kubernetes' rules (the EndpointSlice
//! controller, kube-proxy, the kubelet's termination and probes, as each
//! test names them) and the profile, models/clusters/kind-2.yaml with podsim's defaults for
//! what it leaves out (src/cluster):
//! - watch delivery 1–8 ms, in order per watcher; API writes 2–10 ms; the
//!   kubelet's pod sync overhead 2–10 ms; a packet 0–1 ms each way;
//! - the EndpointSlice controller: batch period 0, so a pod change that
//!   alters an endpoint is synced as soon as the controller sees it, and the
//!   slice is written 2–10 ms later: 3–18 ms after the pod change;
//! - kube-proxy (iptables, `BoundedFrequencyRunner`): a slice change reaches
//!   the node 1–8 ms after its write; a sync starts then, or once
//!   minSyncPeriod (1 s) has passed since the previous sync finished; it
//!   commits 20–50 ms after it started, plus 20 µs (partial) or 80 µs (full)
//!   per endpoint, which for the few endpoints here rounds up to 1 ms.
//!
//! The clients send at fixed times; the engine runs events due in the same
//! millisecond in the order they were scheduled, so a request sent in the
//! millisecond of a commit still meets the old rules.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::{ConditionType, PodPhase};
use podsim::client::{Outcome, Refusal, RequestRecord, Silence};
use podsim::proxy::Action;
use podsim::time::{SimDuration, SimTime};
use podsim::trace::Trace;
use podsim::trace::record::{ProcessFact, Record};

const NODES: [&str; 2] = ["kind-control-plane", "kind-worker"];
/// The node without the pods, where the "other node" clients run: every pod
/// goes to kind-worker, as kind-control-plane has the NoSchedule taint.
const OTHER: &str = "kind-control-plane";

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// The rule forwards new connections to pod `pod`.
fn forwards_to(pod: &'static str) -> impl Fn(&Action) -> bool {
    move |a| matches!(a, Action::Forward(eps) if eps.iter().any(|e| e.target.as_ref().is_some_and(|t| &*t.name == pod)))
}

/// The rule forwards only to pod `pod`, as a terminating endpoint that still
/// serves (ready=false, serving=true, terminating=true): the fallback of
/// `CategorizeEndpoints` when no endpoint is ready.
fn forwards_to_terminating(pod: &'static str) -> impl Fn(&Action) -> bool {
    move |a| match a {
        Action::Forward(eps) => {
            eps.len() == 1
                && eps.iter().all(|e| {
                    e.target.as_ref().is_some_and(|t| &*t.name == pod) && !e.ready && e.serving && e.terminating
                })
        }
        _ => false,
    }
}

fn rejects(a: &Action) -> bool {
    *a == Action::Reject
}

fn drops(a: &Action) -> bool {
    *a == Action::Drop
}

/// The first commit of `node`'s kube-proxy that applies a slice written at
/// `write` with a rule for `service` that `want`s; its start and commit are
/// checked against the runner's bounds (module comment): start in
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

fn refused_by_proxy(rule: &str) -> Outcome {
    Outcome::Refused(Refusal::NoEndpoints { rule: rule.into() })
}

/// The request went to pod `pod` (chosen by kube-proxy, or its IP).
fn to_pod(r: &RequestRecord, pod: &str) -> bool {
    served_by(r) == Some(pod)
}

// ---- 1. probe-actions-service ----

/// seeds/001 behind its Service `web` (models/scenarios/probe-actions-service.yaml).
/// The app (models/apps/probe-actions.yaml), from its start S: listening at
/// S+500 ms, /ready 503 on [S+30 s, S+45 s), /live 200 until S+60 s (after
/// the run's end at 60 s). Readiness: period 1 s, failureThreshold 2,
/// successThreshold 1. Clients on kind-control-plane send GET /live every
/// 250 ms from 0: `service` to web:80, `direct` to the pod IP.
#[test]
fn readiness_failure_unready_endpoint_reject_then_recovery_while_the_pod_ip_answers() {
    const POD: &str = "worker";
    for seed in SEEDS {
        let trace = run("probe-actions-service", seed, None);
        let lives = pod_lives(&trace, POD, "app");
        assert_eq!(lives.len(), 1, "one container instance: no restart (seed {seed})");
        let s = lives[0].started;

        // Ready=False: the first failing tick is in [S+30, S+31), the second
        // (threshold 2) one period later; then the status PATCH (2–10 ms).
        let unready = ready_transitions(&trace, false).into_iter().find(|x| *x > s + secs(30.0)).unwrap();
        within("Ready=False", unready, s + secs(31.0) + ms(2), s + secs(32.0) + ms(10));
        // The slice: podToEndpoint with Ready=False, not deleted → all false.
        let out = endpoint_at(&trace, POD, Some((false, false, false)), unready).unwrap();
        within("endpoint not ready", out, unready + ms(3), unready + ms(18));
        // No ready and no serving-terminating endpoint anywhere: REJECT on every node.
        let reject: Vec<SimTime> = NODES.iter().map(|n| programmed(&trace, n, "web", out, rejects)).collect();
        let service = requests(&trace, "service");
        let first_refused =
            service.iter().find(|r| r.sent > unready && matches!(r.outcome, Outcome::Refused(_))).unwrap();
        assert_eq!(first_refused.outcome, refused_by_proxy("default/web"), "seed {seed}");
        // It is the client's first send after its node's commit (a send every 250 ms).
        within("first refused", first_refused.sent, reject[0] + ms(1), reject[0] + ms(250));
        assert!(unready < out, "seed {seed}");
        assert!(reject.iter().all(|r| out < *r && *r < first_refused.sent), "seed {seed}");

        // Recovery: the first passing tick in [S+45, S+46), one success suffices.
        let ready_again = ready_transitions(&trace, true).into_iter().find(|x| *x > s + secs(45.0)).unwrap();
        within("Ready again", ready_again, s + secs(45.0) + ms(2), s + secs(46.0) + ms(10));
        let back = endpoint_at(&trace, POD, Some((true, true, false)), ready_again).unwrap();
        within("endpoint ready again", back, ready_again + ms(3), ready_again + ms(18));
        let forward: Vec<SimTime> =
            NODES.iter().map(|n| programmed(&trace, n, "web", back, forwards_to(POD))).collect();

        // What the Service client got, by the rules of its node at the send.
        let first_forward = proxy_actions(&trace, OTHER, "web")
            .into_iter()
            .find(|(_, _, a)| a.as_ref().is_some_and(forwards_to(POD)))
            .unwrap()
            .0;
        for r in &service {
            let ok = (r.sent > first_forward && r.sent < reject[0]) || r.sent > forward[0];
            if ok {
                assert_eq!((status(r), served_by(r)), (Some(200), Some(POD)), "seed {seed}, request {}", r.n);
            } else if r.sent > reject[0] && r.sent < forward[0] {
                assert_eq!(r.outcome, refused_by_proxy("default/web"), "seed {seed}, request {}", r.n);
            }
        }
        assert!(service.iter().any(|r| r.sent > forward[0] && status(r) == Some(200)), "seed {seed}");

        // The pod IP, meanwhile: the same process answers /live 200 to every
        // request sent once the API shows the IP and the server listens
        // (S+500 ms), unready or not.
        let versions = pod_versions(&trace, POD);
        let ip = versions.iter().find(|(_, p)| p.status.pod_ip.is_some()).unwrap().0;
        let uid = versions[0].1.meta.uid.clone();
        let direct = requests(&trace, "direct");
        for r in direct.iter().filter(|r| r.sent >= ip.max(s + ms(500))) {
            assert_eq!(status(r), Some(200), "seed {seed}, direct request {}", r.n);
            assert_eq!(r.pod.as_ref().map(|(n, u)| (&**n, u.clone())), Some((POD, uid.clone())), "seed {seed}");
        }
        let while_unready = direct.iter().filter(|r| r.sent >= unready && r.sent <= ready_again).count();
        assert!(while_unready >= 52, "13 s unready at one request per 250 ms (seed {seed}): {while_unready}");

        // No restart: restartCount 0 in every version, one container ID, one UID.
        for (_, p) in &versions {
            assert_eq!(p.status.container("app").map_or(0, |c| c.restart_count), 0, "seed {seed}");
            assert_eq!(p.meta.uid, uid, "seed {seed}");
        }
        let ids: std::collections::BTreeSet<String> = trace
            .entries
            .iter()
            .filter_map(|e| match &e.record {
                Record::Process { pod, container_id, .. } if &**pod == POD => Some(container_id.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(ids.len(), 1, "seed {seed}: {ids:?}");
    }
}

// ---- 2. delete-while-serving ----

/// seeds/000's c28 pod (models/manifests/c28-probe.yaml) Ready behind its
/// Service, deleted at 25 s with its grace of 30 s; the client `curl` on
/// kind-control-plane sends GET /identity every 100 ms from 20 s. The app
/// answers /identity in 2 ms and exits 0 100 ms–3 s after SIGTERM; with
/// `stop_listening` it refuses new connections from the SIGTERM on.
///
/// Returns, per seed, how many requests sent after kind-control-plane
/// programmed the terminating endpoint got a 200.
fn delete_while_serving(scenario: &str, stop_listening: bool) -> Vec<usize> {
    const POD: &str = "c28-probe";
    const SVC: &str = "c28-probe";
    let mut served_while_terminating = Vec::new();
    for seed in SEEDS {
        let trace = run(scenario, seed, None);
        let d = t(25.0);
        let life = pod_lives(&trace, POD, "probe-app").remove(0);
        let curl = requests(&trace, "curl");
        // Precondition: the client's node forwards to the ready pod before
        // the client starts (Ready at S+10–12 s; see c28_service.rs).
        let ready_rule = proxy_actions(&trace, OTHER, SVC)
            .into_iter()
            .find(|(_, _, a)| a.as_ref().is_some_and(forwards_to(POD)))
            .unwrap()
            .0;
        assert!(ready_rule < t(20.0), "seed {seed}: {ready_rule}");

        // The kubelet sees the deletion (watch 1–8 ms), its sync's overhead
        // (2–10 ms), no preStop: SIGTERM. The app exits 100 ms–3 s later, 0.
        let sigterm = life.sigterm.unwrap();
        within("SIGTERM", sigterm, d + ms(3), d + ms(18));
        let exit = life.finished.unwrap();
        within("exit", exit, sigterm + ms(100), sigterm + secs(3.0));
        assert_eq!(life.exit, Some(0), "seed {seed}");

        // The deletionTimestamp is an endpoint change: the next slice write
        // has terminating=true, ready=false, and serving = the pod's Ready
        // condition, still True (the kubelet does not unready a pod for being
        // deleted; its container runs until ≥ D+100 ms).
        let (terminating, conditions) = endpoint_changes(&trace, POD).into_iter().find(|(t, _)| *t > d).unwrap();
        assert_eq!(conditions, Some((false, true, true)), "seed {seed}");
        within("terminating endpoint", terminating, d + ms(3), d + ms(18));
        assert!(condition_at(&trace, terminating, &ConditionType::Ready).unwrap().status, "seed {seed}");
        // No ready endpoint left: every kube-proxy falls back to the serving
        // terminating one and keeps forwarding to the pod.
        let kept: Vec<SimTime> =
            NODES.iter().map(|n| programmed(&trace, n, SVC, terminating, forwards_to_terminating(POD))).collect();

        // The container stopped: Ready=False in the status that reports it,
        // after the process exit; then the slice says serving=false.
        let unready = pod_versions(&trace, POD)
            .into_iter()
            .find(|(t, p)| *t > d && !p.status.condition_true(&ConditionType::Ready))
            .unwrap()
            .0;
        // StopContainer returns at the exit; StopPodSandbox (50–200 ms); the
        // terminal status is generated and PATCHed (2–10 ms).
        within("Ready=False after the exit", unready, exit + ms(52), exit + ms(210));
        let not_serving = endpoint_at(&trace, POD, Some((false, false, true)), unready).unwrap();
        within("endpoint not serving", not_serving, unready + ms(3), unready + ms(18));
        // Nothing ready or serving: REJECT.
        let reject: Vec<SimTime> = NODES.iter().map(|n| programmed(&trace, n, SVC, not_serving, rejects)).collect();
        // Until then, every commit of each node kept forwarding to the pod.
        for (i, node) in NODES.iter().enumerate() {
            for (at, _, a) in proxy_actions(&trace, node, SVC) {
                if at >= kept[i] && at < reject[i] {
                    assert!(a.as_ref().is_some_and(forwards_to_terminating(POD)), "seed {seed}, {node} at {at}");
                }
            }
        }
        // Terminal phase (exit 0 → Succeeded), then the pod leaves the slice.
        let succeeded =
            pod_versions(&trace, POD).into_iter().find(|(_, p)| p.status.phase == PodPhase::Succeeded).unwrap().0;
        let removed = endpoint_at(&trace, POD, None, succeeded).unwrap();
        within("endpoint removed", removed, succeeded + ms(3), succeeded + ms(18));
        assert_eq!(endpoint_changes(&trace, POD).last().unwrap().1, None, "seed {seed}");

        // What the client got. The rules of its node forward to the pod until
        // reject[0] (ready, then serving-terminating). A request reaches the
        // pod 0–1 ms after it is sent and the answer is written 2 ms later.
        let last_ok = if stop_listening { sigterm - ms(1) } else { exit - ms(3) };
        let first_failing = if stop_listening { sigterm } else { exit + ms(1) };
        for r in &curl {
            let what = format!("seed {seed}, request {} sent {}", r.n, r.sent);
            if r.sent < last_ok {
                assert_eq!((status(r), served_by(r)), (Some(200), Some(POD)), "{what}");
            } else if r.sent >= first_failing && r.sent < reject[0] {
                // Kube-proxy still sends it to the pod: nothing listens (RST)
                // while the sandbox is there, no route to host once it is gone.
                assert!(to_pod(r, POD), "{what}");
                let expected = matches!(
                    r.outcome,
                    Outcome::Refused(Refusal::NotListening) | Outcome::Timeout(Silence::NoRoute) | Outcome::NoRoute
                );
                assert!(expected, "{what}: {:?}", r.outcome);
                if r.sent < exit {
                    assert_eq!(r.outcome, Outcome::Refused(Refusal::NotListening), "{what}");
                }
            } else if r.sent > reject[0] {
                assert_eq!(r.outcome, refused_by_proxy("c28/c28-probe:http"), "{what}");
            }
        }
        if stop_listening {
            // SIGTERM → exit is ≥ 100 ms: at least one request (every 100 ms)
            // is sent in it, and is refused while the rules still forward.
            let refused = curl.iter().filter(|r| r.sent >= sigterm && r.sent < exit).count();
            assert!(refused >= 1, "seed {seed}");
            assert!(curl.iter().filter(|r| r.sent >= sigterm).all(|r| status(r).is_none()), "seed {seed}");
        }
        served_while_terminating.push(curl.iter().filter(|r| r.sent > kept[0] && status(r) == Some(200)).count());
    }
    served_while_terminating
}

#[test]
fn a_deleted_pod_keeps_getting_traffic_as_a_terminating_endpoint_until_it_exits() {
    let served = delete_while_serving("delete-while-serving", false);
    // The exit is uniform in [SIGTERM+100 ms, SIGTERM+3 s]; the terminating
    // rule is committed by D+77 ms (slice by D+18 ms, watch 8 ms, sync 51 ms;
    // no sync in the second before D): over the seeds some requests are
    // answered 200 by the terminating pod.
    assert!(served.iter().sum::<usize>() > 0, "{served:?}");
}

#[test]
fn an_app_that_stops_listening_on_sigterm_is_refused_while_kube_proxy_still_forwards() {
    let served = delete_while_serving("delete-while-serving-stop-listening", true);
    // The terminating rule is committed ≥ D+24 ms (slice ≥ D+3 ms, watch, a
    // sync ≥ 20 ms), after the SIGTERM (≤ D+18 ms): nothing it forwards is
    // answered.
    assert!(served.iter().all(|n| *n == 0), "{served:?}");
}

// ---- 3. publish-not-ready ----

/// The c28 pod behind its Service `c28-probe` and `c28-probe-all` with
/// publishNotReadyAddresses: true (models/scenarios/publish-not-ready.yaml).
/// The app: an init container of 2 s, then the server listens 200–600 ms
/// after its start S and answers /identity 200; the pod is Ready at S+10–12 s
/// (c28_service.rs). Clients on kind-control-plane, GET /identity every
/// 250 ms from 0: `all` to c28-probe-all, `ready-only` to c28-probe.
#[test]
fn publish_not_ready_addresses_sends_traffic_before_the_pod_is_ready() {
    const POD: &str = "c28-probe";
    for seed in SEEDS {
        let trace = run("publish-not-ready", seed, None);
        let versions = pod_versions(&trace, POD);
        let ip = versions.iter().find(|(_, p)| p.status.pod_ip.is_some()).unwrap().0;
        let ready = pod_condition(&trace, POD, &ConditionType::Ready, true).unwrap();
        let listening = trace
            .entries
            .iter()
            .find(|e| matches!(&e.record, Record::Process { pod, fact: ProcessFact::Listening { .. }, .. } if &**pod == POD))
            .unwrap()
            .t;

        // The pod gets an IP: an endpoint change. podToEndpoint: serving =
        // Ready (False), ready = publishNotReadyAddresses || … → true.
        let published = service_endpoint_at(&trace, "c28-probe-all", POD, Some((true, false, false)), ip).unwrap();
        within("published", published, ip + ms(3), ip + ms(18));
        let first_with_pod =
            service_endpoint_changes(&trace, "c28-probe-all", POD).into_iter().find(|(_, c)| c.is_some());
        assert_eq!(first_with_pod, Some((published, Some((true, false, false)))), "seed {seed}");
        // The other Service lists the same pod as not ready until it is Ready.
        for (at, c) in service_endpoint_changes(&trace, "c28-probe", POD) {
            if at < ready {
                assert!(c.is_none() || c == Some((false, false, false)), "seed {seed}: {at} {c:?}");
            }
        }
        let ready_endpoint = service_endpoint_at(&trace, "c28-probe", POD, Some((true, true, false)), ready).unwrap();
        within("ready endpoint", ready_endpoint, ready + ms(3), ready + ms(18));

        // Each kube-proxy forwards to the pod through c28-probe-all, long
        // before it is Ready; through c28-probe only after.
        let all: Vec<SimTime> =
            NODES.iter().map(|n| programmed(&trace, n, "c28-probe-all", published, forwards_to(POD))).collect();
        let only: Vec<SimTime> =
            NODES.iter().map(|n| programmed(&trace, n, "c28-probe", ready_endpoint, forwards_to(POD))).collect();
        assert!(all.iter().all(|a| *a < ready), "seed {seed}");

        // The `all` client, once its node forwards: refused by the pod's
        // kernel while nothing listens (arrival 0–1 ms after the send), then 200.
        let through_all = requests(&trace, "all");
        for r in &through_all {
            let what = format!("seed {seed}, request {} sent {}", r.n, r.sent);
            if r.sent < all[0] {
                assert_eq!(status(r), None, "{what}");
            } else if r.sent > all[0] && r.sent + ms(1) < listening {
                assert_eq!((&r.outcome, served_by(r)), (&Outcome::Refused(Refusal::NotListening), Some(POD)), "{what}");
            } else if r.sent > all[0] && r.sent >= listening {
                assert_eq!((status(r), served_by(r)), (Some(200), Some(POD)), "{what}");
            }
        }
        let first_ok = through_all.iter().find(|r| status(r) == Some(200)).unwrap();
        within(
            "first 200 through c28-probe-all",
            first_ok.sent,
            all[0].max(listening - ms(1)),
            all[0].max(listening) + ms(250),
        );
        // The user-visible consequence: 200s through the Service before Ready.
        assert!(first_ok.sent < ready, "seed {seed}");
        let before_ready = through_all.iter().filter(|r| r.sent < ready && status(r) == Some(200)).count();
        assert!(before_ready > 0, "seed {seed}");

        // The `ready-only` client: never a 200 before its node forwards,
        // which is after Ready; 200 after.
        let through_ready = requests(&trace, "ready-only");
        let early: Vec<_> = through_ready.iter().filter(|r| r.sent <= only[0]).collect();
        assert!(!early.is_empty() && early.iter().all(|r| status(r).is_none()), "seed {seed}");
        assert!(through_ready.iter().filter(|r| r.sent > only[0]).all(|r| status(r) == Some(200)), "seed {seed}");
        assert!(ip < published && published < all[0] && all[0] < ready && ready < only[0], "seed {seed}");
    }
}

/// Over the seeds, the rules of the publishing Service are in place before
/// the server listens at least once, so a client sees the pod's own refusal
/// through the Service (the pod IP is published with nothing behind it).
#[test]
fn publish_not_ready_addresses_can_route_to_a_pod_that_is_not_listening() {
    let refused: usize = SEEDS
        .map(|seed| {
            let trace = run("publish-not-ready", seed, None);
            requests(&trace, "all").iter().filter(|r| r.outcome == Outcome::Refused(Refusal::NotListening)).count()
        })
        .sum();
    assert!(refused > 0);
}

// ---- 4. local-traffic-policy ----

/// The c28 pod (on kind-worker) behind `c28-probe-local`
/// (internalTrafficPolicy: Local) and the seed's `c28-probe` (Cluster).
/// Clients send GET /identity every 500 ms from 0: `local-same-node` from
/// kind-worker and `local-other-node` from kind-control-plane to
/// c28-probe-local, `cluster-other-node` from kind-control-plane to c28-probe.
#[test]
fn local_policy_forwards_on_the_pods_node_and_drops_elsewhere() {
    const POD: &str = "c28-probe";
    const LOCAL: &str = "c28-probe-local";
    for seed in SEEDS {
        let trace = run("local-traffic-policy", seed, None);
        let ready = pod_condition(&trace, POD, &ConditionType::Ready, true).unwrap();
        let endpoint = service_endpoint_at(&trace, LOCAL, POD, Some((true, true, false)), ready).unwrap();
        within("endpoint ready", endpoint, ready + ms(3), ready + ms(18));
        // Before: no usable endpoint anywhere → REJECT on both nodes (Local
        // does not turn "no endpoints" into DROP).
        for node in NODES {
            for (at, _, a) in proxy_actions(&trace, node, LOCAL) {
                if at < endpoint {
                    assert!(a.is_none() || a == Some(Action::Reject), "seed {seed}, {node} at {at}: {a:?}");
                }
            }
        }
        // After: the pod's node forwards to its local endpoint; the other one
        // has usable endpoints elsewhere only → DROP ("has no local endpoints").
        let worker = programmed(&trace, "kind-worker", LOCAL, endpoint, forwards_to(POD));
        let cp = programmed(&trace, OTHER, LOCAL, endpoint, drops);
        let cluster_endpoint = service_endpoint_at(&trace, "c28-probe", POD, Some((true, true, false)), ready).unwrap();
        let cp_cluster = programmed(&trace, OTHER, "c28-probe", cluster_endpoint, forwards_to(POD));

        let same = requests(&trace, "local-same-node");
        let early: Vec<_> = same.iter().filter(|r| r.sent <= worker).collect();
        assert!(!early.is_empty() && early.iter().all(|r| status(r).is_none()), "seed {seed}");
        for r in same.iter().filter(|r| r.sent > worker) {
            assert_eq!((status(r), served_by(r)), (Some(200), Some(POD)), "seed {seed}, request {}", r.n);
        }
        let other = requests(&trace, "local-other-node");
        let dropped = Outcome::Timeout(Silence::NoLocalEndpoints { rule: "c28/c28-probe-local:http".into() });
        for r in &other {
            let what = format!("seed {seed}, request {} sent {}", r.n, r.sent);
            assert_eq!(status(r), None, "{what}: never answered from the other node");
            if r.sent > cp {
                assert_eq!(r.outcome, dropped, "{what}: timed out, never refused");
            } else if r.sent < endpoint {
                assert!(
                    matches!(
                        r.outcome,
                        Outcome::Refused(Refusal::NoEndpoints { .. }) | Outcome::Timeout(Silence::NotProgrammed)
                    ),
                    "{what}: {:?}",
                    r.outcome
                );
            }
        }
        // The DROP is in place by about 21 s at worst (S ≤ 8 s: scheduling,
        // sandbox, two cached image checks and starts, the 2 s init
        // container; Ready ≤ S+12.1 s; the commit ≤ 1.1 s later); the run
        // lasts 40 s: ≥ 20 requests (one per 500 ms) meet it.
        assert!(other.iter().filter(|r| r.outcome == dropped).count() >= 20, "seed {seed}");
        // The same node through the Cluster-policy Service: 200.
        let cluster = requests(&trace, "cluster-other-node");
        for r in cluster.iter().filter(|r| r.sent > cp_cluster) {
            assert_eq!((status(r), served_by(r)), (Some(200), Some(POD)), "seed {seed}, request {}", r.n);
        }
        // A DROP's timeout comes at the client's timeout (1 s), not at once.
        let done = |r: &RequestRecord| {
            trace.entries.iter().find_map(|e| match &e.record {
                Record::Request(x) if x.client == r.client && x.n == r.n => Some(e.t),
                _ => None,
            })
        };
        for r in other.iter().filter(|r| r.outcome == dropped) {
            assert_eq!(done(r), Some(r.sent + secs(1.0)), "seed {seed}");
        }
    }
}

// ---- 5. session-affinity ----

/// Two pods, web-a and web-b, behind `web-sticky` (sessionAffinity:
/// ClientIP, timeout 10800 s) and `web` (None); one client each on
/// kind-control-plane, 60 requests every 250 ms from 10 s (source IP: the
/// node's).
#[test]
fn client_ip_affinity_sticks_to_one_pod_and_no_affinity_spreads() {
    const PODS: [&str; 2] = ["web-a", "web-b"];
    for seed in SEEDS {
        let trace = run("session-affinity", seed, None);
        // Both pods are in the client node's rules for both Services before
        // the first request (10 s).
        for svc in ["web-sticky", "web"] {
            let both = proxy_actions(&trace, OTHER, svc)
                .into_iter()
                .find(|(_, _, a)| a.as_ref().is_some_and(|a| PODS.iter().all(|p| forwards_to(p)(a))))
                .unwrap_or_else(|| panic!("seed {seed}: {svc} never forwards to both pods"))
                .0;
            assert!(both < t(10.0), "seed {seed}, {svc}: {both}");
        }
        // ClientIP: the first connection is a random pick and `--set`s the
        // node IP in that endpoint's `recent` list; every later one matches
        // `--rcheck --seconds 10800` there and goes to the same pod.
        let sticky = requests(&trace, "sticky");
        assert_eq!(sticky.len(), 60, "seed {seed}");
        let first = served_by(&sticky[0]).unwrap().to_string();
        assert!(!sticky[0].sticky, "seed {seed}");
        for r in &sticky {
            assert_eq!(status(r), Some(200), "seed {seed}, request {}", r.n);
            assert_eq!(served_by(r), Some(first.as_str()), "seed {seed}, request {}", r.n);
            assert_eq!(r.sticky, r.n > 1, "seed {seed}, request {}", r.n);
        }
        // No affinity: each new connection is a random pick, 1/2 each. All
        // 60 on one pod has probability 2·2^-60: both pods get requests.
        let spread = requests(&trace, "spread");
        assert_eq!(spread.len(), 60, "seed {seed}");
        assert!(spread.iter().all(|r| status(r) == Some(200) && !r.sticky), "seed {seed}");
        for pod in PODS {
            assert!(spread.iter().any(|r| served_by(r) == Some(pod)), "seed {seed}: nothing went to {pod}");
        }
    }
}
