//! seeds/000 (c28): from Ready to a 200 through the Service.
//!
//! The scenario (models/scenarios/c28-service.yaml): one pod on a two-node
//! kind cluster, an init container sleeping 2 s, then the probe app whose
//! /ready answers 503 for 10 s after its process starts (S) and 200 after;
//! readiness period 2 s, threshold 1. Client `curl` sends GET /identity to the
//! Service every 2 s from t=0 (15 requests) from kind-worker; client `direct`
//! sends GET /ready to the pod's own IP on the same schedule.
//!
//! The profile (models/clusters/kind-2.yaml, defaults in src/cluster): watch
//! delivery 1–8 ms (in order), API writes 2–10 ms, network 0–1 ms each way,
//! EndpointSlice batch period 0, kube-proxy minSyncPeriod 1 s and a sync of
//! 20–50 ms plus at most 1 ms for one endpoint.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::{ConditionType, PodPhase};
use podsim::client::{Outcome, Refusal, Silence};
use podsim::trace::record::{ProcessFact, Record};

const NODES: [&str; 2] = ["kind-control-plane", "kind-worker"];
const POD: &str = "c28-probe";

fn ms(n: u64) -> podsim::time::SimDuration {
    podsim::time::SimDuration::from_millis(n)
}

#[test]
fn the_control_plane_taint_puts_the_pod_on_the_worker() {
    for seed in SEEDS {
        let trace = run("c28-service", seed, None);
        let (_, last) = pod_versions(&trace, POD).pop().unwrap();
        assert_eq!(last.node.as_deref(), Some("kind-worker"), "seed {seed}");
    }
}

#[test]
fn running_then_ready_then_endpoint_then_every_proxy_then_the_first_200() {
    for seed in SEEDS {
        let trace = run("c28-service", seed, None);
        let versions = pod_versions(&trace, POD);
        // Phase and container state come from the same status write.
        let running = versions.iter().find(|(_, p)| p.status.phase == PodPhase::Running).unwrap().0;
        let container_running = versions
            .iter()
            .find(|(_, p)| p.status.container("probe-app").is_some_and(|c| c.state.is_running()))
            .unwrap()
            .0;
        assert_eq!(running, container_running, "seed {seed}");

        // Ready: the first readiness tick at or after S+10 s (period 2 s,
        // successThreshold 1), then the status manager's write.
        let s = lives(&trace, "probe-app")[0].started;
        let ready = pod_condition(&trace, POD, &ConditionType::Ready, true).unwrap();
        within("Ready", ready, s + secs(10.0), s + secs(12.1));
        assert!(running < ready, "seed {seed}");

        // The controller sees the pod change (watch 1–8 ms), syncs at once
        // (batch period 0) and writes the slice (2–10 ms): podToEndpoint's ready.
        let endpoint = endpoint_at(&trace, POD, Some((true, true, false)), ready).unwrap();
        within("endpoint ready", endpoint, ready + ms(3), ready + ms(18));

        // Each kube-proxy: the slice arrives 1–8 ms after the write; the
        // BoundedFrequencyRunner starts a sync then, or when minSyncPeriod
        // (1 s) after the previous sync's end has passed; the sync commits
        // 21–51 ms after it started.
        let mut programmed = Vec::new();
        for node in NODES {
            let (at, sync) = trace
                .entries
                .iter()
                .find_map(|e| match &e.record {
                    Record::ProxySync(s) if &*s.node == node && e.t >= endpoint && forwards_to(s, POD) => {
                        Some((e.t, s.clone()))
                    }
                    _ => None,
                })
                .unwrap();
            let previous_end =
                proxy_forwarding(&trace, node, POD).iter().map(|(t, _)| *t).rfind(|t| *t <= sync.started).unwrap();
            let earliest = endpoint + ms(1);
            let latest = (endpoint + ms(8)).max(previous_end + secs(1.0));
            within(&format!("{node} sync start"), sync.started, earliest, latest);
            within(&format!("{node} programmed"), at, sync.started + ms(21), sync.started + ms(51));
            programmed.push(at);
        }

        // The client's first 200 is its first request sent once kind-worker
        // (its node) forwards: requests leave every 2 s from t=0.
        let worker = programmed[1];
        let curl = requests(&trace, "curl");
        let first_ok = curl.iter().find(|r| status(r) == Some(200)).unwrap();
        let expected_send = secs((worker.as_secs_f64() / 2.0).ceil() * 2.0);
        assert_eq!(first_ok.sent, podsim::time::SimTime::ZERO + expected_send, "seed {seed}");
        assert_eq!(served_by(first_ok), Some(POD));
        assert!(programmed.iter().all(|p| *p > endpoint) && worker <= first_ok.sent, "seed {seed}");
        // And every later request got 200: the pod never leaves the rules.
        assert!(curl.iter().filter(|r| r.sent >= first_ok.sent).all(|r| status(r) == Some(200)), "seed {seed}");
    }
}

#[test]
fn before_the_endpoint_is_programmed_the_service_refuses_while_the_pod_ip_answers_503() {
    for seed in SEEDS {
        let trace = run("c28-service", seed, None);
        let s = lives(&trace, "probe-app")[0].started;
        let listening =
            facts(&trace, "probe-app").into_iter().find(|(_, f)| matches!(f, ProcessFact::Listening { .. })).unwrap().0;
        let worker_syncs = proxy_forwarding(&trace, "kind-worker", POD);
        let first_rule = worker_syncs[0].0;
        let programmed = worker_syncs.iter().find(|(_, f)| *f).unwrap().0;
        let curl = requests(&trace, "curl");
        for r in curl.iter().filter(|r| r.sent < programmed) {
            // Before kube-proxy's first sync the cluster IP has no rule: the
            // SYN is lost and curl times out; after it, REJECT: refused.
            // Never a 503: the not-ready pod is not in the rules at all.
            let expected = if r.sent < first_rule {
                Outcome::Timeout(Silence::NotProgrammed)
            } else {
                Outcome::Refused(Refusal::NoEndpoints { rule: "c28/c28-probe:http".into() })
            };
            assert_eq!(r.outcome, expected, "seed {seed}, request {}", r.n);
        }
        assert!(matches!(curl[0].outcome, Outcome::Timeout(Silence::NotProgrammed)), "seed {seed}: sent at 0 s");

        // The pod's own IP, same moments: refused until the server listens,
        // 503 until S+10 s, 200 after (arrival is 0–1 ms after the send).
        let direct = requests(&trace, "direct");
        for r in direct.iter().filter(|r| r.pod.is_some()) {
            let arrival_lo = r.sent;
            let arrival_hi = r.sent + ms(1);
            let got = &r.outcome;
            if arrival_hi < listening {
                assert_eq!(*got, Outcome::Refused(Refusal::NotListening), "seed {seed}, request {}", r.n);
            } else if arrival_lo >= listening && arrival_hi < s + secs(10.0) {
                assert_eq!(*got, Outcome::Http { status: 503 }, "seed {seed}, request {}", r.n);
            } else if arrival_lo >= s + secs(10.0) {
                assert_eq!(*got, Outcome::Http { status: 200 }, "seed {seed}, request {}", r.n);
            }
        }
        // So at some instant the pod's IP says 503 while the Service refuses.
        let both = direct.iter().any(|d| {
            status(d) == Some(503) && curl.iter().any(|c| c.sent == d.sent && matches!(c.outcome, Outcome::Refused(_)))
        });
        assert!(both, "seed {seed}: a 503 from the pod IP beside a refusal from the Service");
    }
}
