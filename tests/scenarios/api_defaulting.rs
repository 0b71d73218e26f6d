//! API defaulting and the kubelet's status wording: a negative grace period
//! (models/scenarios/negative-grace.yaml) and the PodReadyToStartContainers
//! condition in each modelled version (models/scenarios/bound-pod.yaml).

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ConditionType;
use podsim::trace::record::ProcessFact;

/// `terminationGracePeriodSeconds: -5` is stored as 1
/// (`Convert_v1_Pod_To_core_Pod`; from 1.37 `SetDefaults_Pod`); the plain DELETE at 30 s takes it
/// (deletionTimestamp 31 s). The kubelet kills with that 1 s: the hung
/// preStop hook gets the whole second, nothing is left, so the runtime gets
/// the 2 s minimum (`killContainer`): SIGTERM 1 s after Killing, SIGKILL
/// 2 s later, exit 137.
#[test]
fn a_negative_grace_deletes_gracefully_with_one_second() {
    for seed in SEEDS {
        let trace = run("negative-grace", seed, None);
        let (_, deleting) = pods(&trace).into_iter().find(|(_, p)| p.meta.deletion.is_some()).unwrap();
        assert_eq!(deleting.spec.stored_grace_seconds(), 1);
        let d = deleting.meta.deletion.unwrap();
        assert_eq!((d.grace_seconds, d.timestamp), (1, t(31.0)), "seed {seed}");
        let kill = actions(&trace, "Killing")[0].0;
        within("Killing", kill, t(30.0), t(30.05));
        let app = lives(&trace, "app")[0].clone();
        assert_eq!(app.sigterm, Some(kill + secs(1.0)), "seed {seed}");
        assert_eq!((app.finished, app.exit), (Some(kill + secs(3.0)), Some(137)), "seed {seed}");
        assert!(facts(&trace, "app").contains(&(kill + secs(3.0), ProcessFact::Sigkill)), "seed {seed}");
        assert!(deleted_at(&trace).unwrap() > kill + secs(3.0), "seed {seed}");
    }
}

/// A DELETE whose gracePeriodSeconds is −1 (a request kubectl never sends:
/// `DeleteResult` sets it only when ≥ 0) is graceful with 1 s
/// (`CheckGracefulDelete`: a negative period becomes 1), not the pod's 10 s:
/// prestop-hang's hook gets 1 s, the runtime the 2 s minimum. The row says
/// it is the API request, not a kubectl command.
#[test]
fn a_negative_grace_in_the_request_is_one_second() {
    for seed in SEEDS {
        let trace = run_with_flags("prestop-hang", seed, 40.0, &[("--delete", "pod/hang@20s,grace-period=-1")]);
        assert_eq!(
            scenario_rows(&trace),
            [
                (
                    t(20.0),
                    "DELETE with gracePeriodSeconds=-1 (an API request; kubectl ignores a negative --grace-period)"
                        .to_string()
                ),
                // The scenario's own delete: the pod went after its SIGKILL (≤ 23.05 s).
                (t(30.0), "kubectl delete: Error from server (NotFound): pods \"hang\" not found".to_string()),
            ],
            "seed {seed}"
        );
        let (_, deleting) = pods(&trace).into_iter().find(|(_, p)| p.meta.deletion.is_some()).unwrap();
        let d = deleting.meta.deletion.unwrap();
        assert_eq!((d.grace_seconds, d.timestamp), (1, t(21.0)), "seed {seed}");
        let kill = actions(&trace, "Killing")[0].0;
        within("Killing", kill, t(20.0), t(20.05));
        let app = lives(&trace, "app")[0].clone();
        assert_eq!(app.sigterm, Some(kill + secs(1.0)), "seed {seed}");
        assert_eq!((app.finished, app.exit), (Some(kill + secs(3.0)), Some(137)), "seed {seed}");
    }
}

/// GeneratePodReadyToStartContainersCondition: False before the sandbox
/// exists and again once it is stopped with the deleted pod. 1.34 and 1.35
/// write it bare; 1.36 and 1.37 (PR #135300) add reason PodSandboxNotReady
/// and PodSandboxChanged's message: "no pod sandbox exists", then "pod
/// sandbox is not ready" (the runtime still lists the stopped sandbox).
#[test]
fn ready_to_start_containers_false_is_worded_by_version() {
    for (version, worded) in [("1.34", false), ("1.35", false), ("1.36", true), ("1.37", true)] {
        for seed in SEEDS.take(3) {
            let trace = run("bound-pod", seed, Some(version));
            let falses: Vec<_> = pods(&trace)
                .into_iter()
                .filter_map(|(_, p)| p.status.condition(&ConditionType::PodReadyToStartContainers).cloned())
                .filter(|c| !c.status)
                .map(|c| (c.reason.map(|r| r.to_string()), c.message))
                .collect();
            let (first, last) = (falses.first().unwrap().clone(), falses.last().unwrap().clone());
            let word = |m: &str| match worded {
                true => (Some("PodSandboxNotReady".to_string()), Some(m.to_string())),
                false => (None, None),
            };
            assert_eq!(first, word("no pod sandbox exists"), "{version} seed {seed}");
            assert_eq!(last, word("pod sandbox is not ready"), "{version} seed {seed}");
        }
    }
}
