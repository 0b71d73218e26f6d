//! HTTP probe and hook redirects: the kubelet's client (`RedirectChecker(false)`,
//! pkg/probe/http/http.go) follows a Location to the same host, at most until
//! 10 requests were sent, and the last status decides (`DoHTTPProbe`); a
//! redirect to another host is not followed, and its 3xx is a Warning: a
//! success with a `ProbeWarning` event (prober.go).

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ConditionType;
use podsim::spec::HookKind;
use podsim::spec::ProbeKind;
use podsim::time::SimTime;
use podsim::trace::Trace;
use podsim::trace::record::{ProcessFact, Record, Verdict};

fn probe_runs(trace: &Trace, pod: &str, kind: ProbeKind) -> Vec<(SimTime, Verdict, String)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Probe(p) if &*p.pod == pod && p.probe == kind => Some((e.t, p.verdict, p.detail.clone())),
            _ => None,
        })
        .collect()
}

const REFUSED: &str = "dial tcp 10.244.0.";

/// /ready redirects to /status (same host): the probe follows it and
/// /status's answer decides — 503 until 20 s into the server, then 200 —
/// so the failures say 503 (a 302 itself would be a success), and Ready
/// comes at the first run from S+20 on: within [S+20, S+25.1] (period 5 s).
#[test]
fn a_same_host_redirect_is_followed_and_the_last_status_decides() {
    for seed in SEEDS {
        let trace = run("probe-redirects", seed, None);
        let s = pod_lives(&trace, "portal", "web")[0].started;
        for (t, v, d) in probe_runs(&trace, "portal", ProbeKind::Readiness) {
            match (d.contains(REFUSED), t < s + secs(20.0)) {
                (true, _) => assert!(t < s + secs(1.0), "seed {seed}: refused after the server listens"),
                (false, true) => {
                    assert_eq!((v, d.as_str()), (Verdict::Failure, "HTTP probe failed with statuscode: 503"))
                }
                (false, false) => assert_eq!((v, d.as_str()), (Verdict::Success, ""), "seed {seed} at {t}"),
            }
        }
        let ready = pod_condition(&trace, "portal", &ConditionType::Ready, true).expect("portal gets Ready");
        within(&format!("Ready (seed {seed})"), ready, s + secs(20.0), s + secs(25.1));
    }
}

/// / redirects to the single sign-on host: not followed; every liveness run
/// that reaches the server succeeds with the warning, and each emits the
/// kubelet's ProbeWarning event; the container is never restarted.
#[test]
fn a_redirect_to_another_host_is_a_success_with_a_probe_warning() {
    for seed in SEEDS {
        let trace = run("probe-redirects", seed, None);
        let connected: Vec<_> = probe_runs(&trace, "portal", ProbeKind::Liveness)
            .into_iter()
            .filter(|(_, _, d)| !d.contains(REFUSED))
            .collect();
        assert!(connected.len() >= 4, "seed {seed}");
        assert!(
            connected
                .iter()
                .all(|(_, v, d)| *v == Verdict::Success && d == "Probe terminated redirects, Response body: ")
        );
        let warnings = pod_actions(&trace, "portal", "ProbeWarning");
        assert_eq!(warnings.len(), connected.len(), "seed {seed}: one event per run");
        assert!(
            warnings.iter().all(|(_, m)| m == "Liveness probe warning: Probe terminated redirects, Response body: ")
        );
        assert_eq!(pod_lives(&trace, "portal", "web").len(), 1, "seed {seed}");
    }
}

/// /healthz redirects to itself: ten requests, then `CheckRedirect` stops the
/// client with the raw Location in the error; every run fails. The first run
/// comes at a tick with at least initialDelaySeconds (5 s, read from whole
/// seconds: ≥ 4 s) into the instance and within a period after 5 s, so the
/// third failure in a row — the kill — lands within [S+14, S+20.2].
#[test]
fn a_redirect_loop_fails_after_ten_requests() {
    for seed in SEEDS {
        let trace = run("probe-redirects", seed, None);
        let runs = probe_runs(&trace, "loop", ProbeKind::Liveness);
        assert!(runs.len() >= 6, "seed {seed}");
        assert!(
            runs.iter().all(|(_, v, d)| *v == Verdict::Failure && d == "Get \"/healthz\": stopped after 10 redirects"),
            "seed {seed}"
        );
        let lives = pod_lives(&trace, "loop", "app");
        let kills = pod_actions(&trace, "loop", "Killing");
        assert!(kills.len() >= 3, "seed {seed}");
        each_kill_stops_its_instance(&lives, &kills, seed);
        for (l, (k, _)) in lives.iter().zip(&kills) {
            within(&format!("kill (seed {seed})"), *k, l.started + secs(14.0), l.started + secs(20.2));
        }
    }
}

/// The preStop hook GETs /drain, which answers 307 to /drain/ at once, and
/// /drain/ takes 3 s: the hook follows the redirect (the lifecycle client
/// has the same policy), so SIGTERM comes exactly 3 s after the hook started.
#[test]
fn a_prestop_hook_follows_its_redirect() {
    for seed in SEEDS {
        let trace = run("probe-redirects", seed, None);
        let facts: Vec<(SimTime, ProcessFact)> = trace
            .entries
            .iter()
            .filter_map(|e| match &e.record {
                Record::Process { pod, fact, .. } if &**pod == "portal" => Some((e.t, fact.clone())),
                _ => None,
            })
            .collect();
        let hook = facts
            .iter()
            .find(|(_, f)| matches!(f, ProcessFact::Hook { kind: HookKind::PreStop, started: true, .. }))
            .expect("the preStop hook runs")
            .0;
        let returned = facts
            .iter()
            .find(|(_, f)| matches!(f, ProcessFact::Hook { kind: HookKind::PreStop, started: false, error: None, .. }));
        assert_eq!(returned.map(|r| r.0), Some(hook + secs(3.0)), "seed {seed}");
        let sigterm = facts.iter().find(|(_, f)| *f == ProcessFact::Sigterm).expect("SIGTERM").0;
        assert_eq!(sigterm, hook + secs(3.0), "seed {seed}");
    }
}

/// web's /ready answers 302 to `http://{host}:9090/health`: the app writes
/// the host it was asked for, the pod IP, so `RedirectChecker` sees the same
/// host name (it compares `URL.Hostname()`, not the port) and follows it to
/// 9090, where admin answers: 503 for admin's first 15 s, then 200. A run
/// before admin listens is refused on 9090 (the error names that hop's URL).
/// Ready at the first run from A+15 on: within [A+15, A+15+5.1] (period 5 s).
#[test]
fn a_redirect_to_another_port_of_the_pod_is_followed() {
    for seed in SEEDS {
        let trace = run("redirect-ports", seed, None);
        let a = pod_lives(&trace, "split", "admin")[0].started;
        let ip = pod_versions(&trace, "split").pop().unwrap().1.status.pod_ip.clone().expect("an IP");
        let refused = format!("Get \"http://{ip}:9090/health\": dial tcp {ip}:9090: connect: connection refused");
        let runs = probe_runs(&trace, "split", ProbeKind::Readiness);
        assert!(runs.iter().any(|(t, _, _)| *t > a + secs(15.0)), "seed {seed}");
        for (t, v, d) in runs {
            match (t < a, t < a + secs(15.0)) {
                (true, _) => assert_eq!((v, d.as_str()), (Verdict::Failure, refused.as_str()), "seed {seed}"),
                (false, true) => {
                    assert_eq!((v, d.as_str()), (Verdict::Failure, "HTTP probe failed with statuscode: 503"))
                }
                (false, false) => assert_eq!((v, d.as_str()), (Verdict::Success, ""), "seed {seed} at {t}"),
            }
        }
        let ready = pod_condition(&trace, "split", &ConditionType::Ready, true).expect("split gets Ready");
        within(&format!("Ready (seed {seed})"), ready, a + secs(15.0), a + secs(20.1));
    }
}

/// web's / answers 302 to `//:9090/`: Go's `URL.Parse` accepts the empty
/// host, whose `Hostname()` "" is not the pod IP, so the redirect is not
/// followed and the 302 is the answer: every liveness run after web listens
/// succeeds with the warning and its `ProbeWarning` event; no restart.
#[test]
fn a_location_with_an_empty_host_is_another_host() {
    for seed in SEEDS {
        let trace = run("redirect-ports", seed, None);
        let w = pod_lives(&trace, "split", "web")[0].started;
        let runs: Vec<_> =
            probe_runs(&trace, "split", ProbeKind::Liveness).into_iter().filter(|(t, _, _)| *t > w).collect();
        assert!(runs.len() >= 4, "seed {seed}");
        assert!(
            runs.iter().all(|(_, v, d)| *v == Verdict::Success && d == "Probe terminated redirects, Response body: ")
        );
        assert_eq!(pod_actions(&trace, "split", "ProbeWarning").len(), runs.len(), "seed {seed}");
        assert!(pod_actions(&trace, "split", "Killing").is_empty(), "seed {seed}");
    }
}
