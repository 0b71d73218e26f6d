//! Deletion as the API server and the kubelet do it (termination.md,
//! research notes: CheckGracefulDelete, SyncTerminatingPod, killContainer,
//! TerminatePod, the status manager's final DELETE).

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::{ConditionType, ContainerState, PodPhase};
use podsim::trace::record::ProcessFact;

/// seeds/002 V2 in full. model-fetch (20–40 s) runs before asr starts; asr
/// is not Ready until /readyz answers 200 (180 s after its start) and never
/// restarts (the startup probe covers the load). Deleted at 300 s (grace
/// 120): the preStop `curl /drain && sleep 5` takes 5 s plus the exec's
/// 20–80 ms, SIGTERM follows it, the server exits 0 within 10–20 s: the pod
/// ends Succeeded long before the grace runs out, and only then leaves the
/// API server.
#[test]
fn asr_v2_is_ready_after_its_model_and_drains_within_the_grace() {
    for seed in SEEDS {
        let trace = run("asr-v2-delete", seed, None);
        let fetch = lives(&trace, "model-fetch")[0].clone();
        let asr = lives(&trace, "asr");
        assert_eq!(asr.len(), 1, "no restart (seed {seed})");
        let asr = asr[0].clone();
        assert!(asr.started > fetch.finished.unwrap(), "seed {seed}");
        let ready = ready_transitions(&trace, true);
        assert_eq!(ready.len(), 1, "seed {seed}");
        within("Ready", ready[0], asr.started + secs(180.0), asr.started + secs(190.1));
        let kill = actions(&trace, "Killing");
        assert_eq!(kill.len(), 1, "seed {seed}");
        within("Killing", kill[0].0, t(300.0), t(300.05));
        let sigterm = asr.sigterm.unwrap();
        within("preStop", sigterm, kill[0].0 + secs(5.02), kill[0].0 + secs(5.08));
        within("drain", asr.finished.unwrap(), sigterm + secs(10.0), sigterm + secs(20.0));
        assert_eq!(asr.exit, Some(0));
        assert!(asr.finished.unwrap() < t(300.0 + 120.0));
        // Readiness keeps probing while terminating: /drain makes /readyz 503
        // from the hook's start, and the second failure (period 5 s,
        // failureThreshold 2) comes 5–10 s later.
        let unready: Vec<_> = ready_transitions(&trace, false).into_iter().filter(|u| *u > kill[0].0).collect();
        assert_eq!(unready.len(), 1, "seed {seed}: {unready:?}");
        within("unready", unready[0], kill[0].0 + secs(5.0), kill[0].0 + secs(10.1));
        let end = pods(&trace).last().unwrap().1.clone();
        assert_eq!(end.status.phase, PodPhase::Succeeded, "seed {seed}");
        assert!(deleted_at(&trace).unwrap() > asr.finished.unwrap(), "seed {seed}");
    }
}

/// A preStop that never returns, a process that ignores SIGTERM, grace 10:
/// the kubelet waits the whole grace for the hook (10 s), then
/// `StopContainer(max(0, 2))`: SIGTERM at +10 s, SIGKILL at +12 s, exit 137;
/// the pod ends Failed and the hook is reported failed (its exec dies with
/// the container).
#[test]
fn a_hung_prestop_ends_at_grace_plus_the_minimum() {
    for seed in SEEDS {
        let trace = run("prestop-hang", seed, None);
        let kill = actions(&trace, "Killing")[0].0;
        let app = lives(&trace, "app")[0].clone();
        assert_eq!(app.sigterm, Some(kill + secs(10.0)), "seed {seed}");
        assert_eq!(app.finished, Some(kill + secs(12.0)), "seed {seed}");
        assert_eq!(app.exit, Some(137));
        assert!(facts(&trace, "app").iter().any(|(at, f)| *f == ProcessFact::Sigkill && *at == kill + secs(12.0)));
        assert_eq!(actions(&trace, "FailedPreStopHook"), vec![(kill + secs(12.0), "PreStopHook failed".to_string())]);
        let end = pods(&trace).last().unwrap().1.clone();
        assert_eq!(end.status.phase, PodPhase::Failed, "seed {seed}");
        let ContainerState::Terminated(t) = &end.status.container("app").unwrap().state else { panic!() };
        assert_eq!((t.exit_code, t.reason), (137, "Error"));
    }
}

/// seeds/004 claims a terminating pod is marked unready at once. The kubelet
/// does no such thing: readiness follows the probes until the containers
/// stop. Deleted at 40 s, nginx exits at once on SIGTERM, envoy drains 5 s:
/// Ready stays True until the status after the kill (Ready False,
/// PodCompleted), which needs every container stopped (envoy: +5 s).
#[test]
fn a_terminating_pod_stays_ready_until_its_containers_stop() {
    for seed in SEEDS {
        let trace = run("terminating", seed, None);
        let envoy = lives(&trace, "envoy")[0].clone();
        let web = lives(&trace, "web")[0].clone();
        assert!(envoy.sigterm.unwrap() >= web.finished.unwrap(), "seed {seed}");
        let unready = ready_transitions(&trace, false);
        let after_delete: Vec<_> = unready.into_iter().filter(|u| *u > t(40.0)).collect();
        assert_eq!(after_delete.len(), 1, "seed {seed}");
        assert!(after_delete[0] > envoy.finished.unwrap(), "seed {seed}");
        let c = condition_at(&trace, after_delete[0], &ConditionType::Ready).unwrap();
        assert_eq!(c.reason.as_deref(), Some("PodCompleted"));
        // Meanwhile kubectl shows Terminating with READY 2/2.
        assert!(kubectl_lines(&trace).iter().any(|(_, r, s)| *r == (2, 2) && s == "Terminating"), "seed {seed}");
    }
}

/// trace 023, 12-termination: `kubectl delete` (which waits for the object
/// to go) returned after 11.667 s. The derivation: SIGTERM within 30 ms,
/// the trap's 10–11 s, the post-kill status (sandbox stop 0.1–0.4 s with the
/// minikube profile's latencies), the PLEG relist before SyncTerminatedPod
/// (≤ 1 s), volume and cgroup cleanup (0.1–1 s), then the final DELETE:
/// between 10.2 and 13.5 s; the recording's 11.667 s must be inside.
#[test]
fn trace_023_delete_returns_after_the_cleanup() {
    let mut lo = f64::MAX;
    let mut hi = 0.0f64;
    for seed in SEEDS {
        let trace = run("recorded/023-termination", seed, None);
        let took = deleted_at(&trace).unwrap().since(t(20.0)).as_secs_f64();
        assert!((10.2..=13.5).contains(&took), "seed {seed}: {took}");
        lo = lo.min(took);
        hi = hi.max(took);
    }
    assert!(lo < 11.667 && 11.667 < hi, "11.667 s outside the simulated {lo}–{hi} s");
}

/// Deleted at 3 s, while the first sync is still pulling migrate's image:
/// that sync finishes (the runtime's SyncPod is not cancelled), so migrate
/// starts after the deletion, then SyncTerminatingPod kills it — the only
/// running container. The sidecars and the app never start and nothing
/// waits for them; TerminatePod gives the never-initialized pod phase Failed.
#[test]
fn a_pod_deleted_during_initialization_fails_without_waiting_for_sidecars() {
    use podsim::run::{Inputs, prepare, simulate};
    use podsim::scenario::ActionOrigin;
    use podsim::scenario::actions::parse_delete_flag;
    for seed in SEEDS {
        let flag = "pod/ordered@3s".to_string();
        let action = (parse_delete_flag(&flag).unwrap(), ActionOrigin::Flag(flag));
        let inputs = Inputs {
            scenario: Some(scenario("init-sidecar-order")),
            seed: Some(seed),
            actions: vec![action],
            ..Inputs::default()
        };
        let p = prepare(&inputs).unwrap();
        let trace = simulate(&p.setup, p.seed, t(60.0));
        let migrate = lives(&trace, "migrate");
        assert_eq!(migrate.len(), 1, "seed {seed}");
        assert!(migrate[0].started > t(3.0), "the in-flight sync's start (seed {seed})");
        for c in ["proxy", "warm", "logs", "app"] {
            assert!(lives(&trace, c).is_empty(), "{c} never starts (seed {seed})");
        }
        let kills: Vec<_> = actions(&trace, "Killing").into_iter().map(|(_, m)| m).collect();
        assert_eq!(kills, vec!["Stopping container migrate".to_string()], "seed {seed}");
        let end = pods(&trace).last().unwrap().1.clone();
        assert_eq!(end.status.phase, PodPhase::Failed, "seed {seed}");
        assert!(deleted_at(&trace).unwrap() < t(10.0), "seed {seed}");
    }
}

/// `kubectl delete --force --grace-period=0` at 30 s: the API server removes
/// the object at once (the MODIFIED with the deletion fields, then DELETED),
/// but the kubelet still stops the containers: effective grace max(0, 1) =
/// 1 s (`calculateEffectiveGracePeriod`), raised to the 2 s minimum by
/// `killContainer`. nginx exits at once; envoy, which drains for 5 s, is
/// SIGKILLed 2 s after its SIGTERM. The scenario's own delete at 40 s finds
/// nothing; a signal sent on the node still reaches a stopping container.
#[test]
fn a_forced_delete_removes_the_object_but_the_kubelet_still_stops_the_containers() {
    use podsim::run::{Inputs, prepare, simulate};
    use podsim::scenario::ActionOrigin;
    use podsim::scenario::actions::{parse_delete_flag, parse_kill_flag};
    for seed in SEEDS {
        let flag = |s: &str, parse: fn(&str) -> Result<_, String>| (parse(s).unwrap(), ActionOrigin::Flag(s.into()));
        let forced = Inputs {
            scenario: Some(scenario("terminating")),
            seed: Some(seed),
            actions: vec![flag("pod/web@30s,grace-period=0", parse_delete_flag)],
            ..Inputs::default()
        };
        let p = prepare(&forced).unwrap();
        let trace = simulate(&p.setup, p.seed, t(90.0));
        assert_eq!(deleted_at(&trace), Some(t(30.0)), "seed {seed}");
        let kill = actions(&trace, "Killing");
        assert_eq!(kill.len(), 2, "seed {seed}");
        let envoy = lives(&trace, "envoy")[0].clone();
        let sigterm = envoy.sigterm.unwrap();
        assert!(sigterm >= lives(&trace, "web")[0].finished.unwrap(), "the sidecar stops last (seed {seed})");
        assert_eq!((envoy.finished, envoy.exit), (Some(sigterm + secs(2.0)), Some(137)), "seed {seed}");
        assert!(
            scenario_rows(&trace)
                .contains(&(t(40.0), r#"kubectl delete: Error from server (NotFound): pods "web" not found"#.into()))
        );

        let mut killed = forced.clone();
        killed.actions.push(flag("pod/web/envoy@30500ms,signal=SIGKILL", parse_kill_flag));
        let p = prepare(&killed).unwrap();
        let trace = simulate(&p.setup, p.seed, t(90.0));
        let envoy = lives(&trace, "envoy")[0].clone();
        assert_eq!((envoy.finished, envoy.exit), (Some(t(30.5)), Some(137)), "seed {seed}");
    }
}
