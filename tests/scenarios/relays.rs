//! HTTP answers that relay the request (a behaviour's `forward`) to another
//! port and path of the pod's network namespace, answered as istio's
//! pilot-agent answers the probes it rewrote (`handleAppProbeHTTPGet`): the
//! status the relayed GET got, 200 when that was a 3xx the relay's client
//! did not follow (Go's redirect policy, as the kubelet's), 500 when it
//! failed (refused, its own timeout passed). A relay loop never answers.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ConditionType;
use podsim::run::{Inputs, prepare};
use podsim::spec::ProbeKind;
use podsim::time::SimTime;
use podsim::trace::Trace;
use podsim::trace::record::{ProcessFact, Record, Verdict};

/// When `container` of `pod` first listens.
fn listens(trace: &Trace, pod: &str, container: &str) -> SimTime {
    (trace.entries.iter())
        .find_map(|e| match &e.record {
            Record::Process { pod: p, container: c, fact: ProcessFact::Listening { .. }, .. }
                if &**p == pod && &**c == container =>
            {
                Some(e.t)
            }
            _ => None,
        })
        .expect("listens")
}

const S500: &str = "HTTP probe failed with statuscode: 500";

/// The agent relays the app's readiness to /ready on 8080 (1 ms, plus the
/// app's 2 ms). Before the app listens (S+3 s) the relayed GET is refused:
/// 500; then /ready's own 503 until S+10 s; then 200. So every run ending
/// before L fails with 500, every run ending in [L+3ms, S+10s) with 503,
/// every later one succeeds, and Ready comes at the first run from S+10 on:
/// within [S+10, S+15.1] (period 5 s). Liveness is relayed to /moved, a 302
/// to another host: the relay's client does not follow it and answers 200,
/// so the kubelet sees a plain success (no "Probe terminated redirects"),
/// and the app is never restarted.
#[test]
fn a_relay_answers_with_what_its_request_got() {
    for seed in SEEDS {
        let trace = run("relay-probes", seed, None);
        let app = pod_lives(&trace, "relayed", "app");
        assert_eq!(app.len(), 1, "seed {seed}");
        let (s, l) = (app[0].started, listens(&trace, "relayed", "app"));
        assert_eq!(l, s + secs(3.0), "seed {seed}");
        let readiness = probe_runs(&trace, "relayed", "app", ProbeKind::Readiness);
        assert!(readiness.len() >= 4, "seed {seed}");
        for (t, v, d) in &readiness {
            let expected = match *t {
                t if t < l => (Verdict::Failure, S500),
                t if t < s + secs(10.0) => (Verdict::Failure, "HTTP probe failed with statuscode: 503"),
                _ => (Verdict::Success, ""),
            };
            assert_eq!((*v, d.as_str()), expected, "seed {seed} at {t}");
        }
        let ready = pod_condition(&trace, "relayed", &ConditionType::Ready, true).expect("relayed gets Ready");
        within(&format!("Ready (seed {seed})"), ready, s + secs(10.0), s + secs(15.1));
        let liveness = probe_runs(&trace, "relayed", "app", ProbeKind::Liveness);
        let after: Vec<_> = liveness.iter().filter(|(t, _, _)| *t > l).collect();
        assert!(after.len() >= 2, "seed {seed}");
        assert!(after.iter().all(|(_, v, d)| (*v, d.as_str()) == (Verdict::Success, "")), "seed {seed}");
        assert!(liveness.iter().filter(|(t, _, _)| *t < l).all(|(_, _, d)| d == S500), "seed {seed}");
    }
}

/// /loop relays to itself: on a real pod the requests pile up and none is
/// ever answered, so every readiness run ends at its 2 s timeout with Go's
/// timeout error, and echo is never ready. watcher's probe reaches echo
/// (one network namespace) at /slow, relayed with a 500 ms timeout to an
/// origin that takes 800 ms: the relay gives up and answers 500, every run.
#[test]
fn a_relay_loop_never_answers_and_a_relay_timeout_is_a_500() {
    for seed in SEEDS {
        let trace = run("relay-probes", seed, None);
        let looped = probe_runs(&trace, "loops", "echo", ProbeKind::Readiness);
        assert!(looped.len() >= 4, "seed {seed}");
        for (t, v, d) in &looped {
            assert_eq!(*v, Verdict::Failure, "seed {seed} at {t}");
            assert!(d.starts_with("Get \"http://10.244."), "seed {seed}: {d}");
            assert!(
                d.ends_with(":8080/loop\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"),
                "seed {seed}: {d}"
            );
        }
        let slow = probe_runs(&trace, "loops", "watcher", ProbeKind::Readiness);
        assert!(slow.len() >= 4, "seed {seed}");
        assert!(slow.iter().all(|(_, v, d)| (*v, d.as_str()) == (Verdict::Failure, S500)), "seed {seed}");
        assert_eq!(pod_condition(&trace, "loops", &ConditionType::Ready, true), None, "seed {seed}");
    }
}

/// /cached answers 304 with a `location`: Go's client follows only 301, 302,
/// 303, 307 and 308 (`redirectBehavior`), so the 304 is the response, a
/// success with the kubelet's warning text; the file gets one warning
/// saying the `location` is ignored, and echo is never restarted.
#[test]
fn a_location_on_a_304_is_ignored_with_a_warning() {
    let inputs = Inputs { scenario: Some(scenario("relay-probes")), ..Inputs::default() };
    let warnings: Vec<String> = prepare(&inputs).unwrap().warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("relay-probes.yaml:16:"), "{}", warnings[0]);
    assert!(warnings[0].contains("containers.echo.http[\"/cached\"][0].location: ignored"), "{}", warnings[0]);
    for seed in SEEDS {
        let trace = run("relay-probes", seed, None);
        let runs = probe_runs(&trace, "loops", "echo", ProbeKind::Liveness);
        assert!(runs.len() >= 2, "seed {seed}");
        assert!(
            runs.iter()
                .all(|(_, v, d)| (*v, d.as_str()) == (Verdict::Success, "Probe terminated redirects, Response body: ")),
            "seed {seed}"
        );
        assert_eq!(pod_lives(&trace, "loops", "echo").len(), 1, "seed {seed}");
    }
}
