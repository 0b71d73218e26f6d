//! One network namespace per pod: a probe, a hook or a client dials the pod
//! IP (`runProbe` uses `status.PodIP`, `runHTTPHandler` `status.IPs[0]`), so
//! whichever process of the pod bound the port answers; the first process
//! to bind a port gets it, another gets EADDRINUSE.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ConditionType;
use podsim::error::Severity;
use podsim::run::{Inputs, prepare};
use podsim::spec::ProbeKind;
use podsim::time::SimDuration;
use podsim::trace::Trace;
use podsim::trace::record::{ProcessFact, Verdict};

/// The warnings `podsim run` prints for a scenario of `models/` (its notes aside).
fn warnings(name: &str) -> Vec<String> {
    let inputs = Inputs { scenario: Some(scenario(name)), ..Inputs::default() };
    let prepared = prepare(&inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    prepared.warnings.iter().filter(|w| w.severity != Severity::Note).map(|w| w.to_string()).collect()
}

/// The notes `podsim run` prints for a scenario of `models/`.
fn notes(name: &str) -> Vec<String> {
    let inputs = Inputs { scenario: Some(scenario(name)), ..Inputs::default() };
    let prepared = prepare(&inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    prepared.warnings.iter().filter(|w| w.severity == Severity::Note).map(|w| w.to_string()).collect()
}

fn listening(trace: &Trace, container: &str) -> Vec<Vec<u16>> {
    facts(trace, container)
        .into_iter()
        .filter_map(|(_, f)| match f {
            ProcessFact::Listening { ports } => Some(ports),
            _ => None,
        })
        .collect()
}

/// The docs' liveness-http pod comes without a behaviour, and declares no
/// containerPort: podsim knows its image (agnhost `liveness`, which serves
/// 8080 itself), says so in a note, assumes no port, and the runs tell the
/// same story as with agnhost's behaviour written out (below).
#[test]
fn the_docs_liveness_http_pod_needs_no_behaviour_file() {
    assert!(warnings("liveness-http").is_empty(), "{:?}", warnings("liveness-http"));
    assert_eq!(
        notes("liveness-http"),
        ["no behaviour file describes these containers, so podsim reads them from themselves: container liveness of \
          pod/liveness-http (image registry.k8s.io/e2e-test-images/agnhost:2.40)"]
    );
    for seed in SEEDS {
        restarted_from_ten_seconds(&run("liveness-http", seed, None), seed);
    }
}

/// With agnhost's behaviour (200 for 10 s, then 500) and no `ports`, the
/// assumed port carries the probes to it: the first failing run comes at the
/// first tick at least 10 s into the instance, i.e. within [S+10, S+13); the
/// third in a row 6 s later kills it (the sync follows within 0.2 s), and
/// the killed instance exits 2 at its SIGTERM.
#[test]
fn agnhost_liveness_fails_from_ten_seconds_and_is_restarted() {
    assert_eq!(warnings("liveness-http-agnhost").len(), 1);
    for seed in SEEDS {
        restarted_from_ten_seconds(&run("liveness-http-agnhost", seed, None), seed);
    }
}

/// agnhost liveness's story: each instance killed by its third failure in a row.
fn restarted_from_ten_seconds(trace: &Trace, seed: u64) {
    let lives = lives(trace, "liveness");
    let kills = actions(trace, "Killing");
    assert!(kills.len() >= 3, "seed {seed}");
    assert!(kills.iter().all(|(_, m)| m == "Container liveness failed liveness probe, will be restarted"));
    each_kill_stops_its_instance(&lives, &kills, seed);
    for (l, (k, _)) in lives.iter().zip(&kills) {
        within(&format!("kill (seed {seed})"), *k, l.started + secs(16.0), l.started + secs(19.2));
        // agnhost, PID 1, catches no SIGTERM: Go's dieFromSignal ends in exit(2), at once.
        assert_eq!((l.finished, l.exit), (l.sigterm, Some(2)), "seed {seed}");
    }
    let failed = probe_runs(trace, "liveness-http", "liveness", ProbeKind::Liveness)
        .into_iter()
        .filter(|(_, v, _)| *v == Verdict::Failure)
        .collect::<Vec<_>>();
    assert!(failed.iter().all(|(_, _, d)| d == "HTTP probe failed with statuscode: 500"), "seed {seed}");
    for (t, _, _) in &failed {
        let l = lives.iter().rev().find(|l| l.started <= *t).expect("a probe runs in a started instance");
        assert!(*t >= l.started + secs(10.0), "seed {seed}: a failure at {t} before 10 s into {:?}", l.started);
    }
}

/// Restart k ≥ 2 waits at least 10 s · 2^(k−2) after the previous exit
/// (doBackOff; restart 1 is free).
fn backoff(restart: usize) -> SimDuration {
    if restart < 2 { SimDuration::ZERO } else { secs(10.0) * (1 << (restart - 2).min(5)) }
}

/// Two containers declare port 80: the API server's warning, in its words;
/// nginx1 starts first and binds 80; every nginx2 process fails to bind it
/// the instant it starts and, as nginx does (five tries 500 ms apart, then
/// `exit(1)`), exits 1 2.5 s later, so it crash-loops on the back-off schedule while nginx1
/// keeps serving: a client of the pod IP always gets nginx1's 200, and the
/// pod is Ready only in the seconds each nginx2 runs before giving up, so a
/// client of the Service is mostly refused.
#[test]
fn a_port_two_containers_declare_goes_to_the_first_to_bind_it() {
    let w = warnings("duplicate-port");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].ends_with(
            "duplicate-port.yaml:20:7: spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]"
        ),
        "{w:?}"
    );
    for seed in SEEDS {
        let trace = run("duplicate-port", seed, None);
        let first = lives(&trace, "nginx1");
        assert_eq!((first.len(), first[0].finished), (1, None), "seed {seed}");
        assert_eq!(listening(&trace, "nginx1"), vec![vec![80]]);
        let second = lives(&trace, "nginx2");
        assert!(second.len() >= 4, "seed {seed}: {} lives", second.len());
        assert!(second[0].started > first[0].started, "seed {seed}");
        for l in &second {
            assert_eq!((l.finished, l.exit), (Some(l.started + secs(2.5)), Some(1)), "seed {seed}");
        }
        let in_use: Vec<_> = facts(&trace, "nginx2")
            .into_iter()
            .filter(|(_, f)| matches!(f, ProcessFact::AddressInUse { port: 80 }))
            .collect();
        assert_eq!(in_use.len(), second.len());
        assert!(listening(&trace, "nginx2").is_empty());
        for (k, pair) in second.windows(2).enumerate() {
            assert!(pair[1].started >= pair[0].finished.unwrap() + backoff(k + 1), "seed {seed}: restart {}", k + 1);
        }
        assert!(first_waiting(&trace, "nginx2", "CrashLoopBackOff").is_some(), "seed {seed}");
        // Ready only in the seconds a new nginx2 runs before it gives up.
        let ready = first_condition(&trace, &ConditionType::Ready, true).expect("Ready while nginx2 retries");
        within(&format!("Ready (seed {seed})"), ready, second[0].started, second[0].started + secs(2.5));
        let direct = requests(&trace, "direct");
        let served: Vec<_> = direct.iter().filter(|r| r.sent > first[0].started).collect();
        assert!(served.len() >= 15, "seed {seed}");
        assert!(served.iter().all(|r| status(r) == Some(200) && served_by(r) == Some("nginx")), "seed {seed}");
        let service = requests(&trace, "service");
        let answered: Vec<_> = service.iter().filter(|r| status(r).is_some()).collect();
        assert!(answered.iter().all(|r| status(r) == Some(200) && served_by(r) == Some("nginx")), "seed {seed}");
        assert!(answered.len() * 2 < service.len(), "seed {seed}: mostly refused");
    }
}

/// A mesh's rewritten probes: the app's readiness and liveness probes target
/// 15020, which only the sidecar binds, and its agent relays each to the
/// app's original probe, GET /health on 9080 (`handleAppProbeHTTPGet`),
/// answering with the status that got: 500 while the app refuses it. So
/// every readiness run before the app listens (at L) fails with statuscode
/// 500 (never a refusal: the sidecar answers), taking the relay's 1 ms;
/// every later run succeeds, taking 1 ms + the app's 2 ms. Runs are one
/// period (5 s) apart: the first success comes 5 s + 2 ms after the last
/// failure and at most a period after L, and Ready follows it within the
/// status manager's 100 ms — never before the app listens. Liveness starts
/// 30 s after the app's start (in whole seconds), once the app listens
/// (20 s): it never fails.
#[test]
fn the_sidecar_relays_the_probes_the_mesh_rewrote_to_the_app() {
    assert!(warnings("mesh-probes").is_empty());
    for seed in SEEDS {
        let trace = run("mesh-probes", seed, None);
        let proxy = lives(&trace, "istio-proxy");
        let app = lives(&trace, "reviews");
        assert_eq!((proxy.len(), app.len()), (1, 1), "seed {seed}");
        assert_eq!(listening(&trace, "istio-proxy"), vec![vec![15020, 15021, 15090]]);
        assert_eq!(listening(&trace, "reviews"), vec![vec![9080]]);
        let listens = facts(&trace, "reviews")
            .into_iter()
            .find_map(|(t, f)| matches!(f, ProcessFact::Listening { .. }).then_some(t))
            .expect("the app listens");
        assert_eq!(listens, app[0].started + secs(20.0), "seed {seed}");
        let readiness = probe_runs(&trace, "reviews", "reviews", ProbeKind::Readiness);
        let (failed, succeeded): (Vec<_>, Vec<_>) = readiness.iter().partition(|(t, _, _)| *t < listens);
        assert!(!failed.is_empty() && !succeeded.is_empty(), "seed {seed}");
        for (t, v, d) in &failed {
            assert_eq!(
                (v, d.as_str()),
                (&Verdict::Failure, "HTTP probe failed with statuscode: 500"),
                "seed {seed} at {t}"
            );
        }
        assert!(succeeded.iter().all(|(_, v, _)| *v == Verdict::Success), "seed {seed}");
        let (last_failure, first_success) = (failed[failed.len() - 1].0, succeeded[0].0);
        assert_eq!(first_success, last_failure + secs(5.002), "seed {seed}");
        within(&format!("first success (seed {seed})"), first_success, listens, listens + secs(5.003));
        let ready = pod_condition(&trace, "reviews", &ConditionType::Ready, true).expect("the pod gets Ready");
        within(&format!("Ready (seed {seed})"), ready, first_success, first_success + secs(0.1));
        let liveness = probe_runs(&trace, "reviews", "reviews", ProbeKind::Liveness);
        assert!(!liveness.is_empty() && liveness.iter().all(|(_, v, _)| *v == Verdict::Success), "seed {seed}");
        // `doProbe` reads startedAt from the status cache, whole seconds.
        assert!(liveness[0].0 >= app[0].started.floor_second() + secs(30.0), "seed {seed}");
    }
}

/// Two containers declare no port and both probe 8080. podsim's assumption
/// is made once per pod: app (first in spec order, the first started) is
/// assumed to listen on 8080, and watcher's probe goes to the pod IP like
/// every probe (`runProbe` dials status.PodIP), where app answers. Each gets
/// a warning in those words. No process meets EADDRINUSE, watcher binds
/// nothing, neither is restarted, and every liveness run of watcher succeeds
/// (podsim's default app answers 200).
#[test]
fn an_undeclared_port_two_containers_probe_is_assumed_once_per_pod() {
    let w = warnings("shared-probe-port");
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].ends_with(
            "shared-probe-port.yaml:16:37: spec.containers[0].readinessProbe.httpGet.port: container \"app\" declares no containerPort, nor does any other container of the pod declare 8080: podsim assumes its process listens on 8080, where this probe connects (a behaviour's `ports` says otherwise)"
        ),
        "{w:?}"
    );
    assert!(
        w[1].ends_with(
            "shared-probe-port.yaml:20:39: spec.containers[1].livenessProbe.httpGet.port: container \"watcher\" declares no containerPort, nor does any other container of the pod declare 8080: podsim assumes the process of container \"app\", whose own probe or hook targets it first, listens on 8080; this probe reaches it through the pod's network namespace (a behaviour's `ports` says otherwise)"
        ),
        "{w:?}"
    );
    for seed in SEEDS {
        let trace = run("shared-probe-port", seed, None);
        assert_eq!((lives(&trace, "app").len(), lives(&trace, "watcher").len()), (1, 1), "seed {seed}");
        assert_eq!(listening(&trace, "app"), vec![vec![8080]], "seed {seed}");
        assert!(listening(&trace, "watcher").iter().all(Vec::is_empty), "seed {seed}");
        let in_use =
            |c| facts(&trace, c).into_iter().filter(|(_, f)| matches!(f, ProcessFact::AddressInUse { .. })).count();
        assert_eq!((in_use("app"), in_use("watcher")), (0, 0), "seed {seed}");
        let runs = probe_runs(&trace, "two", "watcher", ProbeKind::Liveness);
        assert!(runs.len() >= 3, "seed {seed}");
        assert!(runs.iter().all(|(_, v, _)| *v == Verdict::Success), "seed {seed}");
        assert!(first_condition(&trace, &ConditionType::Ready, true).is_some(), "seed {seed}");
    }
}
