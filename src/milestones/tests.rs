//! Milestones of the model scenarios: their exact names, their order, and
//! names that do not depend on the seed.

use super::{Milestone, extract};
use crate::run::{Inputs, prepare, simulate, simulate_state};
use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet};

/// The milestones of `models/scenarios/<scenario>.yaml`, with its own seed
/// unless one is given.
fn run(scenario: &str, seed: Option<u64>) -> Vec<Milestone> {
    let inputs = Inputs { scenario: Some(format!("models/scenarios/{scenario}.yaml").into()), ..Default::default() };
    let p = prepare(&inputs).unwrap();
    let trace = simulate(&p.setup, seed.unwrap_or(p.seed), SimTime::ZERO + p.until);
    extract(&trace)
}

/// The same milestones, from a trace that keeps only the state records (as
/// predict's runs do).
fn run_state(scenario: &str) -> Vec<Milestone> {
    let inputs = Inputs { scenario: Some(format!("models/scenarios/{scenario}.yaml").into()), ..Default::default() };
    let p = prepare(&inputs).unwrap();
    extract(&simulate_state(&p.setup, p.seed, SimTime::ZERO + p.until))
}

/// By name, checking that no name comes twice and the list is sorted.
fn by_name(ms: &[Milestone]) -> BTreeMap<&str, SimTime> {
    assert!(ms.windows(2).all(|w| (w[0].at, &w[0].name) < (w[1].at, &w[1].name)), "not sorted by time, then name");
    let map: BTreeMap<&str, SimTime> = ms.iter().map(|m| (&*m.name, m.at)).collect();
    assert_eq!(map.len(), ms.len(), "a name came twice");
    map
}

fn at(map: &BTreeMap<&str, SimTime>, name: &str) -> SimTime {
    *map.get(name).unwrap_or_else(|| panic!("no milestone {name}; have {:?}", map.keys().collect::<Vec<_>>()))
}

/// Each name's time is strictly before the next one's.
fn in_order(map: &BTreeMap<&str, SimTime>, names: &[&str]) {
    for w in names.windows(2) {
        let (a, b) = (at(map, w[0]), at(map, w[1]));
        assert!(a < b, "{} ({a}) should come before {} ({b})", w[0], w[1]);
    }
}

#[test]
fn c28_service_from_scheduled_to_the_first_200() {
    let ms = run("c28-service", None);
    let map = by_name(&ms);
    in_order(
        &map,
        &[
            "pod/c28-probe:scheduled",
            "pod/c28-probe:initialized",
            "pod/c28-probe/probe-app:running",
            "pod/c28-probe:ready",
            "svc/c28-probe:endpoint_ready(pod/c28-probe)",
            "svc/c28-probe:programmed(node/kind-worker)",
            "svc/c28-probe:first_ok",
        ],
    );
    // The startup probe passes before readiness does; the pod-IP client gets
    // its 200 before the Service path is programmed.
    in_order(&map, &["pod/c28-probe/probe-app:running", "pod/c28-probe/probe-app:started", "pod/c28-probe:ready"]);
    in_order(&map, &["client/direct:first_ok", "svc/c28-probe:programmed(node/kind-worker)"]);
    assert_eq!(at(&map, "pod/c28-probe:ready"), at(&map, "pod/c28-probe/probe-app:ready"));
    assert_eq!(at(&map, "svc/c28-probe:first_ok"), at(&map, "client/curl:first_ok"));
    let names: Vec<&str> = map.keys().copied().collect();
    assert_eq!(
        names,
        [
            "client/curl:first_ok",
            "client/curl:last_ok",
            "client/direct:first_ok",
            "client/direct:last_ok",
            "pod/c28-probe/init-sleep:exited",
            "pod/c28-probe/init-sleep:last_exited",
            "pod/c28-probe/init-sleep:process_started",
            "pod/c28-probe/init-sleep:ready",
            "pod/c28-probe/init-sleep:running",
            "pod/c28-probe/init-sleep:started",
            "pod/c28-probe/init-sleep:terminated",
            "pod/c28-probe/probe-app:listening",
            "pod/c28-probe/probe-app:process_started",
            "pod/c28-probe/probe-app:ready",
            "pod/c28-probe/probe-app:running",
            "pod/c28-probe/probe-app:started",
            "pod/c28-probe:containers_ready",
            "pod/c28-probe:created",
            "pod/c28-probe:initialized",
            "pod/c28-probe:phase_running",
            "pod/c28-probe:ready",
            "pod/c28-probe:ready_to_start_containers",
            "pod/c28-probe:scheduled",
            "svc/c28-probe:endpoint_added(pod/c28-probe)",
            "svc/c28-probe:endpoint_ready(pod/c28-probe)",
            "svc/c28-probe:endpoint_serving(pod/c28-probe)",
            "svc/c28-probe:first_ok",
            "svc/c28-probe:first_ready_endpoint",
            "svc/c28-probe:last_ok",
            "svc/c28-probe:programmed(node/kind-control-plane)",
            "svc/c28-probe:programmed(node/kind-control-plane,pod/c28-probe)",
            "svc/c28-probe:programmed(node/kind-worker)",
            "svc/c28-probe:programmed(node/kind-worker,pod/c28-probe)",
        ]
    );
}

#[test]
fn crashloop_restarts_are_numbered_and_the_backoff_is_shown() {
    let ms = run("crashloop", None);
    let map = by_name(&ms);
    let restarts: Vec<SimTime> =
        (1..).map_while(|k| map.get(format!("pod/crashloop/app:restart#{k}").as_str()).copied()).collect();
    assert!(restarts.len() >= 5, "{restarts:?}");
    assert!(restarts.windows(2).all(|w| w[0] < w[1]), "{restarts:?}");
    let numbered = map.keys().filter(|n| n.contains(":restart#")).count();
    assert_eq!(numbered, restarts.len(), "restart numbers have a gap");
    assert_eq!(at(&map, "pod/crashloop/app:last_restart"), *restarts.last().unwrap());
    // Exit, restart #1, then the back-off is shown before restart #2.
    in_order(
        &map,
        &[
            "pod/crashloop/app:running",
            "pod/crashloop/app:exited",
            "pod/crashloop/app:restart#1",
            "pod/crashloop/app:crashloop",
            "pod/crashloop/app:restart#2",
        ],
    );
    assert_eq!(at(&map, "pod/crashloop:crashloop"), at(&map, "pod/crashloop/app:crashloop"));
    in_order(&map, &["pod/crashloop:ready", "pod/crashloop:not_ready"]);
    in_order(&map, &["pod/crashloop/app:exited", "pod/crashloop/app:last_exited"]);
}

#[test]
fn c28_bad_rollout_exceeds_its_deadline_and_revision_3_completes() {
    let ms = run("c28-bad-rollout", None);
    let map = by_name(&ms);
    let deadline = at(&map, "deploy/c28-probe@rev2:progress_deadline_exceeded");
    assert!((SimTime::ZERO + crate::time::SimDuration::from_secs(120)..).contains(&deadline), "{deadline}");
    assert!(!map.contains_key("deploy/c28-probe@rev2:rollout_complete"));
    // Revision 3 starts under the old ProgressDeadlineExceeded condition:
    // that is not its own.
    assert!(!map.contains_key("deploy/c28-probe@rev3:progress_deadline_exceeded"));
    in_order(
        &map,
        &[
            "deploy/c28-probe@rev1:rollout_complete",
            "deploy/c28-probe@rev2:rollout_started",
            "deploy/c28-probe@rev2:progress_deadline_exceeded",
            "deploy/c28-probe@rev3:rollout_started",
            "deploy/c28-probe@rev3:rollout_complete",
        ],
    );
    assert!(
        at(&map, "deploy/c28-probe@rev3:rollout_complete") > SimTime::ZERO + crate::time::SimDuration::from_secs(150)
    );
    // Revision 3 is revision 1's template again: its ReplicaSet is reused and
    // the old pod keeps serving, so no pod of revision 3 exists.
    assert!(map.keys().all(|n| !n.starts_with("pod/c28-probe@rev3")));
    in_order(&map, &["pod/c28-probe@rev1#1:ready", "pod/c28-probe@rev2#1:created"]);
    assert!(!map.contains_key("pod/c28-probe@rev2#1:ready"));
    in_order(
        &map,
        &[
            "pod/c28-probe@rev2#1:deleted",
            "pod/c28-probe@rev2#1/probe-app:sigterm",
            "pod/c28-probe@rev2#1/probe-app:exited",
            "svc/c28-probe:endpoint_removed(pod/c28-probe@rev2#1)",
        ],
    );
    // The old pod served throughout: no window without a ready endpoint.
    assert!(map.keys().all(|n| !n.contains("no_ready_endpoint")));
}

#[test]
fn rollout_10_names_do_not_depend_on_the_seed() {
    let names = |seed| run("rollout-10", Some(seed)).into_iter().map(|m| m.name).collect::<BTreeSet<_>>();
    let one = names(1);
    assert_eq!(one, names(2));
    assert_eq!(one, names(3));
    let pods: BTreeSet<&str> =
        one.iter().filter_map(|n| n.strip_prefix("pod/")).filter_map(|n| n.split([':', '/']).next()).collect();
    let expected: BTreeSet<String> =
        (1..=2).flat_map(|rev| (1..=10).map(move |n| format!("web@rev{rev}#{n}"))).collect();
    assert_eq!(pods, expected.iter().map(String::as_str).collect());
    assert!(one.contains("deploy/web@rev1:rollout_complete"));
    assert!(one.contains("deploy/web@rev2:rollout_complete"));
    assert!(one.contains("pod/web@rev1#10/web:sigterm"));
}

#[test]
fn recreate_has_one_window_without_a_ready_endpoint() {
    let ms = run("recreate", None);
    let map = by_name(&ms);
    in_order(
        &map,
        &["svc/web:first_ready_endpoint", "svc/web:no_ready_endpoint_start#1", "svc/web:no_ready_endpoint_end#1"],
    );
    assert!(!map.contains_key("svc/web:no_ready_endpoint_start#2"));
    // The window opens when the last old endpoint turns not ready; a node
    // stops forwarding to a pod only after its endpoint turned not ready.
    let start = at(&map, "svc/web:no_ready_endpoint_start#1");
    let last_old = map
        .iter()
        .filter(|(n, _)| n.starts_with("svc/web:endpoint_not_ready(pod/web@rev1#"))
        .map(|(_, t)| *t)
        .max()
        .unwrap();
    assert_eq!(start, last_old);
    let unprogrammed: Vec<(&str, SimTime)> = map
        .iter()
        .filter_map(|(n, t)| Some((n.strip_prefix("svc/web:unprogrammed(")?.strip_suffix(')')?, *t)))
        .collect();
    assert_eq!(unprogrammed.len(), 6, "{unprogrammed:?}");
    for (args, t) in unprogrammed {
        let (_, pod) = args.split_once(',').unwrap();
        assert!(t > at(&map, &format!("svc/web:endpoint_not_ready({pod})")), "{args} at {t}");
    }
    let end = at(&map, "svc/web:no_ready_endpoint_end#1");
    let first_new = map
        .iter()
        .filter(|(n, _)| n.starts_with("svc/web:endpoint_ready(pod/web@rev2#"))
        .map(|(_, t)| *t)
        .min()
        .unwrap();
    assert_eq!(end, first_new);
}

#[test]
fn every_milestone_of_every_model_scenario_is_in_the_event_catalogue() {
    let mut scenarios: Vec<_> = std::fs::read_dir("models/scenarios")
        .unwrap()
        .filter_map(|e| e.unwrap().path().file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|s| s != "recorded")
        .collect();
    scenarios.sort();
    for scenario in scenarios {
        let ms = run(&scenario, None);
        assert_eq!(ms, run_state(&scenario), "{scenario}: a trace of the state records has other milestones");
        for m in ms {
            let (subject, event) = m.name.split_once(':').unwrap();
            assert_eq!(
                super::events::check(subject, event),
                super::events::EventCheck::Known,
                "{scenario}: {}",
                m.name
            );
        }
    }
}

/// A lost node's milestones: not Ready 39.6–60 s after it stopped at 60 s,
/// tainted NoExecute one monitor pass (5 s, plus the 100 ms tainting loop)
/// later; a rebooted node's: rebooted at its boot, and Ready again then if
/// it had been marked not Ready.
#[test]
fn nodes_lost_and_rebooted() {
    for seed in 1..5 {
        let ms = run("node-down", Some(seed));
        let map = by_name(&ms);
        let not_ready = at(&map, "node/node-2:not_ready").as_secs_f64();
        assert!((99.6..=120.0).contains(&not_ready), "seed {seed}: {not_ready}");
        let tainted = at(&map, "node/node-2:no_execute").as_secs_f64() - not_ready;
        assert!((5.0..=5.1).contains(&tainted), "seed {seed}: {tainted}");
        assert!(!map.contains_key("node/node-1:not_ready"), "seed {seed}");
    }
    let rebooted = run("reboot", None);
    let map = by_name(&rebooted);
    assert_eq!(at(&map, "node/node-1:rebooted#1"), SimTime::from_millis(90_000));
    assert!(!map.contains_key("node/node-1:not_ready"), "a 30 s reboot is not noticed");
    assert_eq!(run_state("node-down").iter().filter(|m| m.name.starts_with("node/")).count(), 2);
}

/// A pod deleted by the taint-eviction controller is `evicted` at its
/// deletion, exactly when it is `deleted`.
#[test]
fn a_pod_deleted_from_a_lost_node_is_evicted() {
    let map_owned = run("node-down", None);
    let map = by_name(&map_owned);
    let evicted: Vec<(&&str, &SimTime)> = map.iter().filter(|(n, _)| n.ends_with(":evicted")).collect();
    assert_eq!(evicted.len(), 1, "{evicted:?}");
    let pod = evicted[0].0.trim_end_matches(":evicted");
    assert_eq!(at(&map, &format!("{pod}:deleted")), *evicted[0].1);
}
