//! The seed exercises as the book answers them (book/src/exercises.md): each
//! property the chapter states, with the verdict it reports, over 100 runs.

use crate::podsim;
use serde_json::Value;

/// Runs `podsim verify` over 100 seeds and returns each property's verdict.
fn verdicts(scenario: &str, properties: &[&str]) -> Vec<String> {
    let mut args =
        vec!["verify".to_string(), format!("models/scenarios/{scenario}.yaml"), "--runs".into(), "100".into()];
    for p in properties {
        args.extend(["-p".to_string(), p.to_string()]);
    }
    args.extend(["-o".to_string(), "json".to_string()]);
    let run = podsim(&args);
    assert!(matches!(run.code, Some(0 | 1)), "{run:?}");
    run.stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            v["verdict"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Seed 000, exercise 1: init, Running, Ready, the endpoint and the first
/// 200 come in that order in every run, and nothing restarts.
#[test]
fn seed_000_exercise_1_the_order_from_init_to_the_first_200() {
    let v = verdicts(
        "c28-service",
        &[
            "always pod/c28-probe:initialized < pod/c28-probe/probe-app:running",
            "always pod/c28-probe:ready <= svc/c28-probe:endpoint_ready(pod/c28-probe)",
            "always svc/c28-probe:endpoint_ready(pod/c28-probe) < svc/c28-probe:first_ok",
            "never restarts(pod/*) > 0",
        ],
    );
    assert_eq!(v, ["holds"; 4]);
}

/// Seed 000, exercise 2: with maxUnavailable 0 the old pod serves every
/// request through the bad rollout; evicted, it does not.
#[test]
fn seed_000_exercise_2_the_old_pod_serves_unless_it_is_evicted() {
    let properties = ["never failed_requests(client/curl)", "always ready_endpoints(svc/c28-probe) >= 1 after 20s"];
    let mut bad = properties.to_vec();
    bad.extend(["never pod/c28-probe@rev2#1:ready", "never pod/c28-probe@rev1#1:deleted"]);
    assert_eq!(verdicts("c28-bad-rollout", &bad), ["holds"; 4]);
    assert_eq!(verdicts("c28-bad-rollout-evicted", &properties), ["counterexample"; 2]);
}

/// Seed 002, 12.1: readiness failures do not restart, liveness failures do.
#[test]
fn seed_002_12_1_readiness_failures_do_not_restart() {
    let v = verdicts(
        "probe-actions",
        &[
            "never restarts(pod/worker) > 0 within 60s",
            "eventually pod/worker:not_ready within 60s",
            "eventually restarts(pod/worker) == 1 within 90s",
        ],
    );
    assert_eq!(v, ["holds"; 3]);
}

/// Seed 002, 12.2: a 300 s startup budget covers a 180 s load, not a 320 s
/// one; the preStop drain and SIGTERM fit in the 120 s grace.
#[test]
fn seed_002_12_2_the_startup_budget_and_the_termination_budget() {
    let v = verdicts("asr-v2-180s", &["never restarts(pod/asr) > 0", "eventually pod/asr:ready within 200s"]);
    assert_eq!(v, ["holds"; 2]);
    assert_eq!(verdicts("asr-v2-320s", &["never restarts(pod/asr) > 0"]), ["counterexample"]);
    let v = verdicts(
        "asr-v2-delete",
        &[
            "never pod/asr/asr:sigkill",
            "always pod/asr/asr:sigterm - pod/asr/asr:prestop_started >= 5s",
            "always pod/asr:removed - pod/asr:deleted < 30s",
        ],
    );
    assert_eq!(v, ["holds"; 3]);
}

/// Seed 002, 12.3: without a readiness probe the pod is Ready minutes
/// before it can answer; with /readyz the first 200 follows Ready.
#[test]
fn seed_002_12_3_ready_without_a_readiness_probe_is_not_serving() {
    assert_eq!(verdicts("asr-gateway-v1", &["always svc/asr:first_ok - pod/asr:ready > 170s"]), ["holds"]);
    let v = verdicts(
        "asr-gateway-v2",
        &["always svc/asr:first_ok > pod/asr:ready", "always svc/asr:first_ok - pod/asr:ready < 6s"],
    );
    assert_eq!(v, ["holds"; 2]);
}

/// Seed 002, 12.4: a failing init container keeps the server from starting
/// and shows CrashLoopBackOff within a minute.
#[test]
fn seed_002_12_4_a_failing_download_in_an_init_container() {
    let v = verdicts(
        "asr-v2-fetch-fails",
        &["never pod/asr/asr:process_started", "eventually pod/asr:crashloop within 60s"],
    );
    assert_eq!(v, ["holds"; 2]);
}
