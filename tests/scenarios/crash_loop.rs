//! A container that exits 1 one second after each start, restartPolicy
//! Always (trace 001's pod): the CrashLoopBackOff schedule.
//!
//! doBackOff looks at the newest exited instance: after the first exit there
//! is no backoff entry yet, so the first restart is immediate (#133472) and
//! creates the 10 s entry; each later restart doubles it, measured from the
//! exited instance's FinishedAt: 10, 20, 40, 80, 160, 300 s.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::PodPhase;
use podsim::time::SimDuration;
use std::path::PathBuf;

fn backoff(restart: usize) -> SimDuration {
    // restart 1 is free; restart k ≥ 2 waits 10 s · 2^(k−2), capped at 300 s.
    if restart < 2 { SimDuration::ZERO } else { (secs(10.0) * (1 << (restart - 2).min(5))).min(secs(300.0)) }
}

/// When the restart after a held-back sync lands. The first in-backoff sync
/// follows the exit within a relist (≤ 1 s); then:
/// - 1.34: the pod worker requeues every 10–15 s whatever the backoff
///   (#123602): the restart is ≤ 15 s after the expiry, plus the 1 s sync
///   ticker and a relist;
/// - 1.35+: it requeues at the expiry capped at 60 s, jittered by up to
///   +50 %: ≤ half of the last ≤ 60 s slice late (PR #133066).
fn latest_restart(exit: podsim::time::SimTime, restart: usize, version: &str) -> podsim::time::SimTime {
    let b = backoff(restart);
    let slack =
        if version == "1.34" { secs(15.0) } else { SimDuration::from_millis(b.min(secs(60.0)).as_millis() / 2) };
    exit + b + slack + secs(2.5)
}

fn check_schedule(version: &str) {
    for seed in SEEDS {
        let trace = run("crashloop", seed, Some(version));
        let lives = lives(&trace, "app");
        assert!(lives[0].started < t(10.5), "the first start follows a ≤ 8 s pull (seed {seed})");
        for (k, pair) in lives.windows(2).enumerate() {
            let restart = k + 1;
            let exit = pair[0].finished.expect("each instance exits");
            assert_eq!(pair[0].exit, Some(1));
            assert_eq!(exit, pair[0].started + secs(1.0));
            within(
                &format!("{version} restart {restart} (seed {seed})"),
                pair[1].started,
                exit + backoff(restart),
                latest_restart(exit, restart, version),
            );
        }
        // 7 starts fit in 10 minutes: the 7th (restart 6) comes after at most
        // 10.5 + the six worst cases ≈ 437 s (1.35+); the 8th needs ≥ 300 s
        // after the 7th exits, past 600 s.
        if version != "1.34" {
            assert_eq!(lives.iter().filter(|l| l.started <= t(600.0)).count(), 7, "seed {seed}");
        }
        // The phase never leaves Running: a waiting container with a last
        // termination counts as stopped, and policy Always keeps it Running.
        let started: Vec<_> =
            pods(&trace).into_iter().skip_while(|(_, p)| p.status.phase == PodPhase::Pending).collect();
        assert!(!started.is_empty() && started.iter().all(|(_, p)| p.status.phase == PodPhase::Running));
    }
}

#[test]
fn restarts_follow_the_backoff_schedule_in_1_37() {
    check_schedule("1.37");
}

#[test]
fn restarts_follow_the_backoff_schedule_in_1_35() {
    check_schedule("1.35");
}

#[test]
fn restarts_follow_the_backoff_schedule_in_1_34() {
    check_schedule("1.34");
}

/// CrashLoopBackOff appears at the sync after the first one that hit the
/// backoff (the reason cache is written after the status of its own sync is
/// generated): in 1.37 that sync is the requeue at the 10 s expiry, which
/// shows the reason and restarts the container in the same sync.
#[test]
fn crash_loop_back_off_first_shows_with_the_10s_delay() {
    for seed in SEEDS {
        let trace = run("crashloop", seed, None);
        let lives = lives(&trace, "app");
        let exit1 = lives[1].finished.unwrap();
        let (when, message) = first_waiting(&trace, "app", "CrashLoopBackOff").expect("shown");
        within("CrashLoopBackOff shows", when, exit1 + secs(10.0), exit1 + secs(17.6));
        assert!(
            message.starts_with("back-off 10s restarting failed container=app pod=crashloop_default("),
            "{message}"
        );
        let backoffs = actions(&trace, "BackOff");
        assert!(
            backoffs
                .iter()
                .all(|(_, m)| m.starts_with("Back-off restarting failed container app in pod crashloop_default("))
        );
        assert!(
            backoffs[0].0 > exit1 && backoffs[0].0 <= exit1 + secs(1.1),
            "the first BackOff follows the second exit's relist"
        );
    }
}

/// A container that runs 11 minutes before each exit: the backoff entry
/// expires (eventTime − lastUpdate > 600 s, the kubelet's HasExpiredFunc),
/// so every restart is immediate and no CrashLoopBackOff appears.
#[test]
fn ten_minutes_of_running_resets_the_backoff() {
    use podsim::run::{Inputs, prepare, simulate};
    let dir = std::env::temp_dir().join(format!("podsim-long-runner-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let app = dir.join("app.yaml");
    std::fs::write(&app, "containers:\n  app:\n    exit: {after: 11m, code: 1}\n").unwrap();
    for seed in SEEDS {
        let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/manifests/crashloop.yaml");
        let inputs = Inputs {
            manifests: vec![manifest],
            app: Some(app.clone()),
            seed: Some(seed),
            until: Some(secs(3600.0)),
            ..Inputs::default()
        };
        let p = prepare(&inputs).unwrap();
        let trace = simulate(&p.setup, p.seed, podsim::time::SimTime::ZERO + p.until);
        let lives = lives(&trace, "app");
        assert!(lives.len() >= 5, "seed {seed}");
        for pair in lives.windows(2) {
            let exit = pair[0].finished.unwrap();
            within("immediate restart", pair[1].started, exit, exit + secs(2.5));
        }
        assert!(first_waiting(&trace, "app", "CrashLoopBackOff").is_none());
    }
}

/// Trace 023's crash loop (a busybox that exits 1 about 4 s after each
/// start, minikube profile) on `version`, for 10 minutes.
fn lab_crash_loop(version: &str, seed: u64) -> podsim::trace::Trace {
    use podsim::run::{Inputs, prepare, simulate};
    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/scenarios/recorded/023-crashloop.yaml");
    let inputs = Inputs {
        scenario: Some(scenario),
        seed: Some(seed),
        kubernetes: Some(version.to_string()),
        until: Some(secs(600.0)),
        ..Inputs::default()
    };
    let p = prepare(&inputs).unwrap();
    simulate(&p.setup, p.seed, podsim::time::SimTime::ZERO + p.until)
}

/// What `kubectl get pods -w` shows between an exit and the next Running,
/// derived step by step from the kubelet (restarts.md, "What kubectl shows
/// between restarts"):
///
/// - The exit is seen by the next relist (≤ 1 s; the container lives 4 s,
///   so the pod worker is idle) and that sync writes the status first
///   (`generateAPIPodStatus`), with nothing in the reason cache: `Error`,
///   within 1.1 s of the exit. Its runtime `SyncPod` then hits the back-off
///   (`doBackOff`) and only then writes `CrashLoopBackOff` into the reason
///   cache (`reasonCache.Update`).
/// - Nothing syncs the pod again until the pod worker's requeue
///   (`completeWork`): no PLEG event (the container stays exited), no probe.
///   That sync shows `CrashLoopBackOff`, and restarts the container if the
///   back-off B is over: `Running` within 1.5 s.
/// - 1.34: the requeue is 10–15 s after the back-off sync (#123602), so
///   `CrashLoopBackOff` shows 10–17.1 s after the exit, whatever B; for
///   B ≥ 20 s it stays until the restart at or after exit + B.
/// - 1.35+: the requeue is at the back-off's expiry, capped at 60 s and
///   jittered by up to +50 % (PR #133066): with m = min(B, 60 s),
///   `CrashLoopBackOff` shows within [exit + m, exit + 1.5 m + 2.1 s] — for
///   B ≤ 60 s never before the expiry, so `Error` stays for the whole
///   back-off and `CrashLoopBackOff` only for the moment of the restart.
/// - The first restart is free (#133472): `Error`, then `Running`.
#[test]
fn kubectl_shows_error_then_crash_loop_back_off_as_each_release_syncs() {
    for version in ["1.34", "1.35", "1.36", "1.37"] {
        for seed in SEEDS {
            let trace = lab_crash_loop(version, seed);
            let rows = kubectl_lines(&trace);
            let lives = lives(&trace, "crashing-app");
            assert!(lives.len() >= 6, "{version} seed {seed}: {} starts", lives.len());
            for (k, pair) in lives.windows(2).enumerate() {
                let (exit, start) = (pair[0].finished.unwrap(), pair[1].started);
                if start + secs(2.0) > t(600.0) {
                    continue;
                }
                let what = format!("{version} seed {seed} restart {}", k + 1);
                // The rows from the exit up to the first Running after the restart.
                let mut seen: Vec<(podsim::time::SimTime, &str)> = Vec::new();
                for (at, _, status) in rows.iter().filter(|(at, ..)| *at > exit) {
                    seen.push((*at, status.as_str()));
                    if status == "Running" && *at >= start {
                        break;
                    }
                }
                let statuses: Vec<&str> = seen.iter().map(|(_, s)| *s).collect();
                let (error, running) = (seen[0].0, seen.last().unwrap().0);
                within(&format!("{what}: Error"), error, exit, exit + secs(1.1));
                within(&format!("{what}: Running"), running, start, start + secs(1.1));
                if k == 0 {
                    assert_eq!(statuses, ["Error", "Running"], "{what}: the first restart is free");
                    continue;
                }
                assert_eq!(statuses, ["Error", "CrashLoopBackOff", "Running"], "{what}");
                let b = backoff(k + 1);
                let crash_loop = seen[1].0;
                if version == "1.34" {
                    within(&format!("{what}: CrashLoopBackOff"), crash_loop, exit + secs(10.0), exit + secs(17.1));
                    if b > secs(10.0) {
                        assert!(start >= exit + b, "{what}: restarted before the back-off expired");
                    }
                } else {
                    let m = b.min(secs(60.0));
                    let latest = exit + m + SimDuration::from_millis(m.as_millis() / 2) + secs(2.1);
                    within(&format!("{what}: CrashLoopBackOff"), crash_loop, exit + m, latest);
                }
                if (version != "1.34" && b <= secs(60.0)) || b == secs(10.0) {
                    // Shown by the sync that restarts the container.
                    within(&format!("{what}: shown until"), running, crash_loop, crash_loop + secs(1.5));
                }
            }
        }
    }
}

/// Housekeeping's `backOff.GC()` (`HandlePodCleanups`) drops an entry not
/// updated for 2 × the 300 s max. The seventh instance starts (its back-off
/// at the 300 s cap, `Next` called at that start) and runs 400 s; its exit
/// holds the restart back until exit + 300 s, but 600 s after that start
/// the entry is gone, and the next sync (the 1.35+ requeue every ≤ 90 s)
/// starts the container early.
#[test]
fn housekeeping_collects_a_backoff_entry_idle_for_600s() {
    for seed in SEEDS {
        let trace = run("backoff-collected", seed, None);
        let lives = lives(&trace, "app");
        assert_eq!(lives.len(), 8, "seed {seed}");
        let (long, next) = (&lives[6], lives[7].started);
        let exit = long.finished.expect("the long instance exits");
        assert_eq!(exit, long.started + secs(400.0), "seed {seed}");
        // `Next` came just before that start: no collection before 600 s after it.
        within(
            &format!("restart after the entry is collected (seed {seed})"),
            next,
            long.started + secs(599.0),
            exit + secs(300.0) - secs(1.0),
        );
    }
}
