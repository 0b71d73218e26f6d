//! seeds/002: the ASR inference pod, whose model takes minutes to load.
//!
//! V1 (models/manifests/asr-v1.yaml): liveness httpGet /healthz,
//! initialDelaySeconds 30, period 10, failureThreshold 3; /healthz answers 503
//! until the model is loaded 180 s after the process starts; on SIGTERM the
//! server exits 0 after 2 s.

use super::backoff_rule::{AfterKill, assert_restarts, replay};
use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ContainerState;

/// One cycle of V1: the first liveness probe at the first tick with
/// `int32(now − StartedAt) ≥ 30`, StartedAt read from the kubelet's status
/// cache, which keeps whole seconds (normalizeStatus): the first tick ≥
/// second(start) + 30 s (ticks are 10 s apart); the kill at the third failure
/// (+20 s), the exit 2 s after SIGTERM. So kill − second(start) ∈ [50, 60] s
/// (plus the sync's latency), and a cycle start → next start is ≤ 63 s. The
/// model never loads (180 s > 60 s).
#[test]
fn v1_liveness_kills_the_loading_model_again_and_again() {
    for seed in SEEDS {
        let trace = run("asr-v1", seed, None);
        let lives = lives(&trace, "asr");
        for l in lives.iter().filter(|l| l.sigterm.is_some()) {
            let kill = l.sigterm.unwrap();
            let second = l.started.floor_second();
            within("kill after start", kill, second + secs(50.0), second + secs(61.1));
            assert_eq!(l.exit, Some(0), "SIGTERM handled: exits 0 after 2 s (seed {seed})");
            assert_eq!(l.finished, Some(kill + secs(2.0)));
        }
        // Each restart follows the replayed backoff rule: kills 1–5 restart at
        // once (cycles of 52–63 s exceed the 10, 20, 40 s entries), kill 6 is
        // held back by the 80 s entry: CrashLoopBackOff.
        let expected = replay(&lives);
        assert!(expected[..5].iter().all(|e| *e == AfterKill::Immediate), "seed {seed}: {expected:?}");
        assert_eq!(expected[5], AfterKill::Wait { backoff: secs(80.0) }, "seed {seed}");
        assert_restarts(&lives, &expected);
        // restartCount at 95 s: the first kill is at ≤ S0 + 61 s with S0 ≤ 10 s
        // (image pull), its restart immediate; the second needs ≥ 50 s more.
        assert!(lives[0].started < t(10.0));
        assert_eq!(pod_at(&trace, t(95.0)).status.container("asr").unwrap().restart_count, 1, "seed {seed}");
        // At 10 minutes: five immediate restarts, the sixth after the 80 s
        // backoff; the seventh kill is held back by the 160 s entry unless it
        // comes ≥ 160 s after the sixth instance's exit.
        let at_10m = pod_at(&trace, t(600.0)).status.container("asr").unwrap().restart_count;
        let starts_by_10m = lives.iter().filter(|l| l.started <= t(600.0)).count() as u32;
        assert_eq!(at_10m, starts_by_10m - 1, "seed {seed}");
        assert!(
            at_10m == 6 || (at_10m == 7 && expected.get(6) == Some(&AfterKill::Immediate)),
            "seed {seed}: {at_10m}"
        );
        // CrashLoopBackOff first shows at the sync after the sixth kill's exit
        // (PLEG ≤ 1 s, then a PATCH), with the 80 s delay in its message.
        let (when, message) = first_waiting(&trace, "asr", "CrashLoopBackOff").expect("CrashLoopBackOff shows");
        let exit6 = lives[5].finished.unwrap();
        within("CrashLoopBackOff shows", when, exit6, exit6 + secs(1.2));
        assert!(message.starts_with("back-off 1m20s restarting failed container=asr pod=asr_voice("), "{message}");
    }
}

/// V2 with a 180 s load: the startup probe (period 10, failureThreshold 30:
/// 300 s) succeeds at the first tick ≥ start + 180 s; liveness and readiness
/// wait for it; nothing restarts.
#[test]
fn v2_startup_probe_covers_a_180s_model_load() {
    for seed in SEEDS {
        let trace = run("asr-v2-180s", seed, None);
        let lives = lives(&trace, "asr");
        assert_eq!(lives.len(), 1, "no restart (seed {seed})");
        let s = lives[0].started;
        let started_at = pods(&trace)
            .into_iter()
            .find(|(_, p)| p.status.container("asr").is_some_and(|c| c.started))
            .expect("the container starts")
            .0;
        within("started=true", started_at, s + secs(180.0), s + secs(190.1));
        let end = pod_at(&trace, t(600.0));
        assert_eq!(end.status.container("asr").unwrap().restart_count, 0);
        assert!(actions(&trace, "Killing").is_empty());
    }
}

/// V2 with a 320 s load: /startupz fails at every tick; the 30th failure
/// comes ≤ 300 s after the first, which comes ≤ 10 s after the container
/// runs. The kill message names the startup probe; the restart of the first
/// kill is immediate (no exited instance before it).
#[test]
fn v2_startup_probe_restarts_a_320s_model_load() {
    for seed in SEEDS {
        let trace = run("asr-v2-320s", seed, None);
        let lives = lives(&trace, "asr");
        let kill = lives[0].sigterm.expect("the startup probe kills it");
        within("startup kill", kill, lives[0].started + secs(290.0), lives[0].started + secs(311.1));
        assert_eq!(actions(&trace, "Killing")[0].1, "Container asr failed startup probe, will be restarted");
        within("restart", lives[1].started, lives[0].finished.unwrap(), lives[0].finished.unwrap() + secs(0.5));
        assert!(pods(&trace).iter().all(|(_, p)| p.status.container("asr").is_none_or(|c| !c.started)));
        let second = lives[1].sigterm.expect("killed again");
        within("second startup kill", second, lives[1].started + secs(290.0), lives[1].started + secs(311.1));
        assert!(matches!(
            pod_at(&trace, t(900.0)).status.container("asr").unwrap().state,
            ContainerState::Running { .. } | ContainerState::Waiting { .. }
        ));
    }
}
