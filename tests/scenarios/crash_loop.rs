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
