//! Init containers and native sidecars (models/scenarios/init-sidecar-order
//! and livekit-sidecar), checked against computeInitContainerActions and the
//! termination ordering of kuberuntime_termination_order.go.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::{ConditionType, PodPhase};
use podsim::trace::record::ProcessFact;

fn started(trace: &podsim::trace::Trace, c: &str) -> podsim::time::SimTime {
    lives(trace, c).first().unwrap_or_else(|| panic!("{c} starts")).started
}

fn finished(trace: &podsim::trace::Trace, c: &str) -> podsim::time::SimTime {
    lives(trace, c).first().and_then(|l| l.finished).unwrap_or_else(|| panic!("{c} finishes"))
}

/// Start order (computeInitContainerActions): init container i+1 is put on
/// the start list only by a sync that sees i Exited 0 (run-to-completion) or
/// Running with its startup probe passed (sidecar); regular containers only
/// by a sync that sees the last init container done. So:
/// migrate exits (2 s) < proxy starts; proxy's admin port opens 1.5 s after
/// its start and the startup probe (period 1 s) passes at the first tick
/// after that < warm starts; warm exits (1 s) < logs starts; logs (no
/// startup probe) runs < app starts. Every step needs a new sync, so each
/// start is strictly after the event that allows it.
#[test]
fn init_containers_run_serially_and_sidecars_start_first() {
    for seed in SEEDS {
        let trace = run("init-sidecar-order", seed, None);
        let migrate = lives(&trace, "migrate")[0].clone();
        assert_eq!((migrate.exit, migrate.finished), (Some(0), Some(migrate.started + secs(2.0))), "seed {seed}");
        assert!(started(&trace, "proxy") > migrate.finished.unwrap(), "seed {seed}");
        let proxy_listens = started(&trace, "proxy") + secs(1.5);
        assert!(
            started(&trace, "warm") > proxy_listens,
            "the startup probe gates the next init container (seed {seed})"
        );
        assert!(started(&trace, "logs") > finished(&trace, "warm"), "seed {seed}");
        assert!(started(&trace, "app") > started(&trace, "logs"), "seed {seed}");
        // Initialized becomes True only once every init container is done
        // and every sidecar started: after logs started.
        let initialized = first_condition(&trace, &ConditionType::Initialized, true).unwrap();
        assert!(initialized > started(&trace, "logs"), "seed {seed}");
        // kubectl: Init:0/4 … Init:3/4, then PodInitializing, then Running.
        let statuses = kubectl_statuses(&trace);
        let wanted = ["Init:0/4", "Init:1/4", "Init:2/4", "Init:3/4", "PodInitializing", "Running", "Terminating"];
        let seen: Vec<&str> = statuses.iter().map(String::as_str).filter(|s| wanted.contains(s)).collect();
        assert_eq!(seen, wanted, "seed {seed}: {statuses:?}");
        // READY counts the started, ready sidecars: 3/3 once app runs.
        let lines = kubectl_lines(&trace);
        assert!(lines.iter().any(|(_, r, s)| *r == (3, 3) && s == "Running"), "seed {seed}");
    }
}

/// Deletion at 60 s (grace 30): every container gets its Killing at once;
/// preStop hooks start at once (proxy: sleep 3; app: 3 s exec). The app gets
/// SIGTERM when its hook returns and exits 2 s later. Sidecars wait for every
/// regular container and the next later sidecar (waitForTurn), so logs gets
/// SIGTERM when app has exited, proxy when logs has; both within the grace.
#[test]
fn sidecars_stop_after_the_regular_containers_in_reverse_order() {
    for seed in SEEDS {
        let trace = run("init-sidecar-order", seed, None);
        let kills = actions(&trace, "Killing");
        assert_eq!(kills.len(), 3, "seed {seed}: {kills:?}");
        let first_kill = kills[0].0;
        assert!(kills.iter().all(|k| k.0 == first_kill), "every Killing at once (seed {seed})");
        within("Killing", first_kill, t(60.0), t(60.05));
        let hook = |c: &str| {
            facts(&trace, c)
                .into_iter()
                .filter(|(_, f)| matches!(f, ProcessFact::Hook { started: false, .. }))
                .map(|(t, _)| t)
                .next()
        };
        let app = lives(&trace, "app")[0].clone();
        let app_sigterm = app.sigterm.unwrap();
        assert_eq!(Some(app_sigterm), hook("app"), "SIGTERM when the preStop returns (seed {seed})");
        within("app preStop", app_sigterm, first_kill + secs(3.02), first_kill + secs(3.08));
        assert_eq!(app.finished, Some(app_sigterm + secs(2.0)));
        let logs = lives(&trace, "logs")[0].clone();
        let proxy = lives(&trace, "proxy")[0].clone();
        assert_eq!(logs.sigterm, app.finished, "logs after app (seed {seed})");
        assert_eq!(proxy.sigterm, logs.finished, "proxy after logs (seed {seed})");
        assert_eq!(hook("proxy"), Some(first_kill + secs(3.0)), "the sidecar's preStop runs at once (seed {seed})");
        let end = pods(&trace).last().unwrap().1.clone();
        assert_eq!(end.status.phase, PodPhase::Succeeded, "every regular container exited 0 (seed {seed})");
        assert!(deleted_at(&trace).is_some());
    }
}

/// seeds/002 LiveKit: the metrics-proxy sidecar runs before the media server
/// starts and is stopped only after the server has drained (30–60 s), well
/// within the 120 s grace.
#[test]
fn livekit_sidecar_starts_first_and_stops_last() {
    for seed in SEEDS {
        let trace = run("livekit-sidecar", seed, None);
        let proxy = lives(&trace, "metrics-proxy")[0].clone();
        let lk = lives(&trace, "livekit")[0].clone();
        assert!(proxy.started < lk.started, "seed {seed}");
        let drained = lk.finished.unwrap();
        within("drain", drained, lk.sigterm.unwrap() + secs(30.0), lk.sigterm.unwrap() + secs(60.0));
        assert_eq!(proxy.sigterm, Some(drained), "seed {seed}");
        assert_eq!(lives(&trace, "metrics-proxy").len(), 1, "no sidecar restart (seed {seed})");
    }
}

/// The checker's composition rules are not vacuous on this pod: every init
/// and regular container's start is checked against the init containers
/// before it (0 + 1 + 2 + 3 for the four init containers, 4 for app: 10),
/// the three kills against the grace, and both
/// sidecars against the containers they outlive.
#[test]
fn the_composition_rules_judge_this_pod() {
    use podsim::invariants::{Verdict, check_trace};
    let inputs =
        podsim::run::Inputs { scenario: Some(scenario("init-sidecar-order")), ..podsim::run::Inputs::default() };
    let p = podsim::run::prepare(&inputs).unwrap();
    let trace = podsim::run::simulate(&p.setup, p.seed, podsim::time::SimTime::ZERO + p.until);
    let report = check_trace(&trace, &p.clock, &p.setup.cluster);
    let v = &report.pods[0].verdicts;
    assert_eq!(v["init-order"], Verdict::Holds { checked: 10 });
    assert_eq!(v["stopped-within-grace"], Verdict::Holds { checked: 3 });
    assert_eq!(v["sidecars-stop-last"], Verdict::Holds { checked: 2 });
}
