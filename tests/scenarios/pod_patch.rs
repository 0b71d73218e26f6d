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
use podsim::time::{SimDuration, SimTime};
use podsim::trace::changes::changes;
use podsim::trace::record::Record;

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

/// The timeline's image rows (time, what, why), from the stored versions.
fn image_rows(trace: &podsim::trace::Trace) -> Vec<(SimTime, String, String)> {
    let versions = pods(trace);
    let mut out = Vec::new();
    for w in versions.windows(2) {
        for c in changes(Some(&w[0].1), &w[1].1).into_iter().filter(|c| c.what.contains(" image=")) {
            out.push((w[1].0, c.what, c.why));
        }
    }
    out
}

/// The API-level row only says what was stored: what the kubelet does with
/// the new spec hash is in its own rows.
fn stored_row(at: f64, container: &str, image: &str, from: &str) -> (SimTime, String, String) {
    (
        t(at),
        format!("container {container} image={image}"),
        format!("patched from {from}: the container's spec hash changes; the kubelet's rows show what follows"),
    )
}

/// init-sidecar-order's first init container `migrate` has completed by
/// 30 s, and the sidecar after it has started: a new image at 30 s does not
/// run it again. `computeInitContainerActions` walks the init containers
/// newest-first and, from the first one with a status, passes over every
/// run-to-completion init container before it, so its hash is never
/// compared; the status keeps the image the runtime ran.
#[test]
fn a_completed_init_containers_new_image_does_not_run_it_again() {
    for seed in SEEDS {
        let patch = r#"pod/ordered:{"spec":{"initContainers":[{"name":"migrate","image":"busybox:1.37"}]}}@30s"#;
        let trace = run_with_flags("init-sidecar-order", seed, 55.0, &[("--patch", patch)]);
        assert_eq!(image_rows(&trace), [stored_row(30.0, "migrate", "busybox:1.37", "busybox:1.36")], "seed {seed}");
        let migrate = lives(&trace, "migrate");
        assert_eq!(migrate.len(), 1, "seed {seed}");
        assert!(migrate[0].finished.unwrap() < t(30.0), "completed before the patch (seed {seed})");
        assert!(lives(&trace, "proxy")[0].started < t(30.0), "a later init container ran (seed {seed})");
        assert!(actions(&trace, "Pulling").iter().all(|(_, m)| !m.contains("busybox:1.37")), "seed {seed}");
        assert!(actions(&trace, "Killing").is_empty(), "seed {seed}");
        let end = pod_at(&trace, t(55.0));
        let status = end.status.container("migrate").unwrap();
        assert_eq!((status.restart_count, &*status.image), (0, "docker.io/library/busybox:1.36"), "seed {seed}");
        assert_eq!(&*end.spec.containers[0].image, "busybox:1.37", "the stored spec (seed {seed})");
    }
}

/// prestop-hang's pod is deleted at 30 s (grace 10 s, a preStop hook that
/// never ends): a new image at 35 s, while it terminates, restarts nothing.
/// `SyncTerminatingPod` only kills (killPodWithSyncResult), so the hash is
/// never compared: SIGTERM at Killing + 10 s and SIGKILL 2 s later as
/// without the patch, one instance, no pull.
#[test]
fn a_terminating_pods_new_image_restarts_nothing() {
    for seed in SEEDS {
        let patch = r#"pod/hang:{"spec":{"containers":[{"name":"app","image":"busybox:1.37"}]}}@35s"#;
        let trace = run_with_flags("prestop-hang", seed, 60.0, &[("--patch", patch)]);
        assert_eq!(image_rows(&trace), [stored_row(35.0, "app", "busybox:1.37", "busybox:1.36")], "seed {seed}");
        let kills = actions(&trace, "Killing");
        assert_eq!(kills.len(), 1, "seed {seed}");
        assert_eq!(kills[0].1, "Stopping container app");
        let app = lives(&trace, "app");
        assert_eq!(app.len(), 1, "seed {seed}");
        assert_eq!(app[0].sigterm, Some(kills[0].0 + secs(10.0)), "seed {seed}");
        assert_eq!((app[0].finished, app[0].exit), (Some(kills[0].0 + secs(12.0)), Some(137)), "seed {seed}");
        assert!(actions(&trace, "Pulling").iter().all(|(_, m)| !m.contains("busybox:1.37")), "seed {seed}");
        assert!(deleted_at(&trace).is_some(), "seed {seed}");
    }
}

/// never-exit-1's pod has Failed by 30 s (restartPolicy Never, exit 1 after
/// 1 s): a new image changes nothing on the node. Its pod worker finished
/// with SyncTerminatedPod, so no SyncPod compares the hash; the phase stays.
#[test]
fn a_failed_pods_new_image_restarts_nothing() {
    for seed in SEEDS {
        let patch = r#"pod/once:{"spec":{"containers":[{"name":"app","image":"busybox:1.37"}]}}@30s"#;
        let trace = run_with_flags("never-exit-1", seed, 60.0, &[("--patch", patch)]);
        assert_eq!(pod_at(&trace, t(29.9)).status.phase, PodPhase::Failed, "seed {seed}");
        assert_eq!(image_rows(&trace), [stored_row(30.0, "app", "busybox:1.37", "busybox:1.36")], "seed {seed}");
        assert_eq!(lives(&trace, "app").len(), 1, "seed {seed}");
        assert!(actions(&trace, "Pulling").iter().all(|(_, m)| !m.contains("busybox:1.37")), "seed {seed}");
        let end = pod_at(&trace, t(60.0));
        assert_eq!((end.status.phase, end.status.containers[0].restart_count), (PodPhase::Failed, 0), "seed {seed}");
    }
}

/// crashloop-image-patch, then back to busybox:1.36 5 s after the new
/// image's first crash (it waits its own 10 s back-off then, and the PLEG
/// has seen the exit: relist ≤ 1.015 s). The old image's key still holds
/// its 80 s entry (restart 5 would have waited 10 s · 2³), and `doBackOff`
/// measures it from the newest exited instance — the 1.37 one, exit e: no
/// restart before e + 80 s (a BackOff event at the patch's sync instead),
/// and at most half the 60 s-capped back-off plus 2.5 s later (1.37's
/// requeue at the expiry). The status then says `back-off 1m20s`, and the
/// instance is restart 6.
#[test]
fn switching_back_to_an_image_waits_out_its_back_off() {
    for seed in SEEDS {
        let first = run("crashloop-image-patch", seed, None);
        let exit = lives(&first, "app").into_iter().find(|l| l.started >= t(140.0)).unwrap().finished.unwrap();
        let back = exit + secs(5.0);
        let ms = back.since(SimTime::ZERO).as_millis();
        let patch =
            format!(r#"pod/crashloop:{{"spec":{{"containers":[{{"name":"app","image":"busybox:1.36"}}]}}}}@{ms}ms"#);
        let trace = run_with_flags("crashloop-image-patch", seed, 300.0, &[("--patch", &patch)]);
        let rows = image_rows(&trace);
        assert_eq!(
            rows[1..],
            [(
                back,
                "container app image=busybox:1.36".to_string(),
                "patched from busybox:1.37: the container's spec hash changes; the kubelet's rows show what follows"
                    .to_string()
            )],
            "seed {seed}"
        );
        let lives = lives(&trace, "app");
        let new: Vec<_> = lives.iter().filter(|l| l.started >= t(140.0)).collect();
        assert_eq!(new[0].finished, Some(exit), "the same run up to the patch (seed {seed})");
        assert!(new[1].started > back, "no 1.37 restart before the switch (seed {seed})");
        within(&format!("the 1.36 restart (seed {seed})"), new[1].started, exit + secs(80.0), exit + secs(112.5));
        let backoff = actions(&trace, "BackOff").into_iter().find(|(at, _)| *at >= back).unwrap();
        within(&format!("BackOff at the patch's sync (seed {seed})"), backoff.0, back, back + secs(1.05));
        assert!(actions(&trace, "Killing").is_empty(), "seed {seed}");
        let (_, shown) = pods(&trace)
            .into_iter()
            .filter(|(at, _)| *at > back && *at < new[1].started)
            .filter_map(|(at, p)| match &p.status.containers[0].state {
                ContainerState::Waiting { message: Some(m), .. } => Some((at, m.clone())),
                _ => None,
            })
            .last()
            .expect("waiting in back-off");
        assert!(shown.starts_with("back-off 1m20s restarting failed container=app"), "{shown}");
        let running = pods(&trace)
            .into_iter()
            .find(|(at, p)| *at >= new[1].started && p.status.containers[0].state.is_running())
            .unwrap()
            .1;
        let c = &running.status.containers[0];
        assert_eq!((c.restart_count, &*c.image), (6, "docker.io/library/busybox:1.36"), "seed {seed}");
    }
}

/// sidecar-readiness's envoy (a native sidecar) patched to v1.32.0 at 30 s:
/// `computeInitContainerActions` kills a running sidecar whose hash changed
/// ("Init container envoy definition changed") and starts it again in the
/// same sync, after its SIGTERM drain (5 s, exit 0). The web container is
/// not touched; envoy's restartCount is 1 and its lastState the drained exit.
#[test]
fn a_sidecars_new_image_restarts_it() {
    for seed in SEEDS {
        let patch = r#"pod/web:{"spec":{"initContainers":[{"name":"envoy","image":"envoyproxy/envoy:v1.32.0"}]}}@30s"#;
        let trace = run_with_flags("sidecar-readiness", seed, 60.0, &[("--patch", patch)]);
        assert_eq!(
            image_rows(&trace),
            [stored_row(30.0, "envoy", "envoyproxy/envoy:v1.32.0", "envoyproxy/envoy:v1.31.0")],
            "seed {seed}"
        );
        let kills = actions(&trace, "Killing");
        assert_eq!(kills.len(), 1, "seed {seed}");
        assert_eq!(kills[0].1, "Init container envoy definition changed");
        within(&format!("Killing (seed {seed})"), kills[0].0, t(30.0), t(31.05));
        let envoy = lives(&trace, "envoy");
        assert_eq!(envoy.len(), 2, "seed {seed}");
        let stopped = kills[0].0 + secs(5.0);
        assert_eq!((envoy[0].sigterm, envoy[0].finished, envoy[0].exit), (Some(kills[0].0), Some(stopped), Some(0)));
        let pull = actions(&trace, "Pulling").into_iter().find(|(at, _)| *at >= t(30.0)).unwrap();
        assert_eq!(pull, (stopped, "Pulling image \"envoyproxy/envoy:v1.32.0\"".to_string()), "seed {seed}");
        // The pull (≤ 8 s), create and start (≤ 0.28 s).
        within(&format!("restart (seed {seed})"), envoy[1].started, stopped, stopped + secs(8.28));
        assert_eq!(lives(&trace, "web").len(), 1, "seed {seed}");
        let end = pod_at(&trace, t(60.0));
        let c = end.status.init_containers.iter().find(|c| &*c.name == "envoy").unwrap();
        assert_eq!((c.restart_count, &*c.image), (1, "docker.io/envoyproxy/envoy:v1.32.0"), "seed {seed}");
        let last = c.last_state.as_ref().unwrap();
        assert_eq!((last.exit_code, last.reason), (0, "Completed"), "seed {seed}");
    }
}

/// replicaset's three pods have generated names (web-xxxxx). `patch:
/// pod/web-*` picks, as `delete` does, the oldest live pod whose name
/// starts with web- — the first one created — and only its container is
/// restarted (computePodActions: "definition changed"); a prefix nothing
/// matches is a row saying so, and changes nothing.
#[test]
fn a_prefix_patches_the_oldest_live_pod() {
    let json = r#"{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}"#;
    for seed in SEEDS.take(3) {
        let (web, api) = (format!("pod/web-*:{json}@20s"), format!("pod/api-*:{json}@25s"));
        let trace = run_with_flags("replicaset", seed, 40.0, &[("--patch", &web), ("--patch", &api)]);
        let first = pods(&trace)[0].1.spec.name.clone();
        assert_eq!(
            scenario_rows(&trace),
            [
                (t(20.0), format!("kubectl patch pod {first} -p '{json}'")),
                (t(25.0), format!("kubectl patch pod api-* -p '{json}': no live pod matches")),
            ],
            "seed {seed}"
        );
        let kills: Vec<(String, String)> = trace
            .entries
            .iter()
            .filter_map(|e| match &e.record {
                Record::Kubelet(a) if a.reason == "Killing" => Some((a.pod.to_string(), a.message.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(kills, [(first.clone(), "Container web definition changed, will be restarted".to_string())]);
        // Each pod's last stored image: the patched one only for the first.
        let last: std::collections::BTreeMap<String, String> = pods(&trace)
            .into_iter()
            .map(|(_, p)| (p.spec.name.clone(), p.spec.containers[0].image.to_string()))
            .collect();
        assert_eq!(last.len(), 3, "seed {seed}");
        for (name, image) in &last {
            let expected = if *name == first { "nginx:1.28" } else { "nginx:1.27" };
            assert_eq!(image, expected, "{name} (seed {seed})");
        }
    }
}

/// deadline-patch's nginx:1.27 is patched to nginx:1.28 at 2 s, while the
/// first sync pulls 1.27 (it began by 1.3 s: scheduling, watch, podSync and
/// the sandbox; a pull takes at least 2 s). `podWorkerLoop` hands SyncPod
/// the pod of its update and the patch waits as the next one, so that sync
/// pulls, creates and starts 1.27; the next sync's `computePodActions` sees
/// the hash differ: "definition changed", a pull of 1.28, restartCount 1.
#[test]
fn a_new_image_during_a_pull_waits_for_the_next_sync() {
    for seed in SEEDS {
        let patch = r#"pod/web:{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}@2s"#;
        let trace = run_with_flags("deadline-patch", seed, 19.0, &[("--patch", patch)]);
        let pulls = actions(&trace, "Pulling");
        let pulls: Vec<&str> = pulls.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(pulls, ["Pulling image \"nginx:1.27\"", "Pulling image \"nginx:1.28\""], "seed {seed}");
        let pulled = actions(&trace, "Pulled");
        assert!(pulled[0].1.starts_with("Successfully pulled image \"nginx:1.27\""), "seed {seed}");
        assert!(pulled[0].0 > t(2.0), "the patch came during the pull (seed {seed})");
        let kills = actions(&trace, "Killing");
        assert_eq!(kills.len(), 1, "seed {seed}");
        assert_eq!(kills[0].1, "Container web definition changed, will be restarted");
        let web = lives(&trace, "web");
        assert_eq!(web.len(), 2, "seed {seed}");
        assert!(web[0].started < kills[0].0 && web[1].started > kills[0].0, "seed {seed}");
        let first = pods(&trace)
            .into_iter()
            .find(|(_, p)| p.status.containers.first().is_some_and(|c| c.state.is_running()))
            .expect("the first container shown running")
            .1;
        assert_eq!(&*first.status.containers[0].image, "docker.io/library/nginx:1.27", "seed {seed}");
        let end = pod_at(&trace, t(19.0));
        let c = &end.status.containers[0];
        assert_eq!((c.restart_count, &*c.image), (1, "docker.io/library/nginx:1.28"), "seed {seed}");
    }
}
