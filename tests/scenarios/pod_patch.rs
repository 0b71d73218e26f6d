//! `kubectl patch` of a container's image. The kubelet keeps the spec hash
//! (`HashContainer`: name and image) on each container it creates:
//! - a running container whose hash differs is killed ("Container C
//!   definition changed, will be restarted", the pod's grace) and started
//!   again in the same sync, whatever the restart policy (`computePodActions`);
//! - a waiting one is started at the next sync, and `doBackOff` looks it up
//!   under its new key (`GetStableKey` holds the hash): no entry, so it starts
//!   at once and `Next` creates a fresh 10 s entry.
//!
//! Either way `restartCount` is the newest instance's + 1 (`startContainer`).

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::{ContainerState, PodPhase};
use podsim::time::SimDuration;

/// The CrashLoopBackOff wait before restart `k` ≥ 2 of one backoff key: 10 s · 2^(k−2).
fn backoff(k: usize) -> SimDuration {
    (secs(10.0) * (1 << (k - 2).min(5))).min(secs(300.0))
}

/// crashloop's pod (exit 1 after 1 s) patched to busybox:1.37 at 140 s.
/// Every seed is then waiting out the 80 s backoff after restart 4: with
/// the profile's latencies restart 4 comes by 129.5 s (exit ≤ 130.5 s) and
/// the old key would not allow restart 5 before 76.4 + 80 = 156.4 s (the
/// chains of earliest and latest restarts of crash_loop.rs).
#[test]
fn a_new_image_starts_at_once_with_a_fresh_backoff() {
    for seed in SEEDS {
        let trace = run("crashloop-image-patch", seed, None);
        let lives = lives(&trace, "app");
        let old: Vec<_> = lives.iter().filter(|l| l.started < t(140.0)).collect();
        let new: Vec<_> = lives.iter().filter(|l| l.started >= t(140.0)).collect();
        assert_eq!(old.len(), 5, "start and restarts 1–4 before the patch (seed {seed})");
        let old_exit = old[4].finished.unwrap();
        assert!(old_exit < t(140.0), "waiting in back-off at the patch (seed {seed})");
        // The watch (≤ 20 ms), a relist newer than the last sync (≤ 1.015 s),
        // the sync (≤ 10 ms), the pull (≤ 8 s), create and start (≤ 0.28 s).
        within(&format!("the new image's start (seed {seed})"), new[0].started, t(140.0), t(149.33));
        assert!(new[0].started < old_exit + secs(80.0), "before the old backoff's expiry (seed {seed})");
        let pulls: Vec<_> = actions(&trace, "Pulling").into_iter().filter(|(at, _)| *at >= t(140.0)).collect();
        assert_eq!(pulls.len(), 1, "seed {seed}");
        assert_eq!(pulls[0].1, "Pulling image \"busybox:1.37\"");
        within(&format!("Pulling (seed {seed})"), pulls[0].0, t(140.0), t(141.05));
        // restartCount counts on; the runtime reports the new image.
        let (_, p) = pods(&trace)
            .into_iter()
            .find(|(at, p)| *at >= new[0].started && p.status.containers[0].state.is_running())
            .expect("the new container shown running");
        let c = &p.status.containers[0];
        assert_eq!((c.restart_count, &*c.image), (5, "docker.io/library/busybox:1.37"), "seed {seed}");
        // The new key backs off afresh: 10 s, 20 s … after each exit, each
        // restart at most half a backoff late (1.37's requeue) plus 2.5 s.
        assert!(new.len() >= 3, "seed {seed}");
        for (j, pair) in new.windows(2).enumerate() {
            let exit = pair[0].finished.unwrap();
            let b = backoff(j + 2);
            let late = SimDuration::from_millis(b.min(secs(60.0)).as_millis() / 2) + secs(2.5);
            within(&format!("new restart {} (seed {seed})", j + 1), pair[1].started, exit + b, exit + b + late);
        }
        let shown = pods(&trace).into_iter().filter(|(at, _)| *at > new[0].started).find_map(|(_, p)| {
            match &p.status.containers[0].state {
                ContainerState::Waiting { reason: Some(r), message } if r == "CrashLoopBackOff" => message.clone(),
                _ => None,
            }
        });
        let message = shown.expect("CrashLoopBackOff after the new image's first exit");
        assert!(
            message.starts_with("back-off 10s restarting failed container=app pod=crashloop_default("),
            "{message}"
        );
    }
}

/// readiness-delay's nginx, running and Ready, patched to nginx:1.28 at 30 s:
/// killed at the next sync with the kubelet's message, restarted in the same
/// sync after the pull; Ready again only after the new container's own
/// initialDelaySeconds (20 s).
#[test]
fn a_running_container_is_restarted_with_its_new_image() {
    use podsim::run::{Inputs, prepare, simulate};
    use podsim::scenario::ActionOrigin;
    use podsim::scenario::actions::parse_patch_flag;
    for seed in SEEDS {
        let flag = r#"pod/delayed:{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}@30s"#.to_string();
        let action = (parse_patch_flag(&flag).unwrap(), ActionOrigin::Flag(flag));
        let inputs = Inputs {
            scenario: Some(scenario("readiness-delay")),
            seed: Some(seed),
            actions: vec![action],
            ..Inputs::default()
        };
        let p = prepare(&inputs).unwrap();
        let trace = simulate(&p.setup, p.seed, t(90.0));
        let kill = actions(&trace, "Killing");
        assert_eq!(kill.len(), 1, "seed {seed}");
        assert_eq!(kill[0].1, "Container web definition changed, will be restarted");
        within(&format!("Killing (seed {seed})"), kill[0].0, t(30.0), t(31.05));
        let web = lives(&trace, "web");
        assert_eq!(web.len(), 2, "seed {seed}");
        // The default app exits 0 at SIGTERM; the same sync then pulls and starts.
        assert_eq!((web[0].sigterm, web[0].finished, web[0].exit), (Some(kill[0].0), Some(kill[0].0), Some(0)));
        within(&format!("restart (seed {seed})"), web[1].started, kill[0].0, kill[0].0 + secs(8.28));
        let end = pods(&trace).last().unwrap().1.clone();
        let c = &end.status.containers[0];
        assert_eq!((c.restart_count, &*c.image), (1, "docker.io/library/nginx:1.28"), "seed {seed}");
        let last = c.last_state.as_ref().unwrap();
        assert_eq!((last.exit_code, last.reason), (0, "Completed"), "seed {seed}");
        assert_eq!(end.status.phase, PodPhase::Running);
        let ready_again = *ready_transitions(&trace, true).last().unwrap();
        assert!(ready_again >= web[1].started + secs(20.0), "seed {seed}");
    }
}
