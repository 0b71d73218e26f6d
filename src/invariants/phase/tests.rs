//! The checker's `getPhase` against the kubelet_pods.go rules, and against
//! podsim's kubelet model (two readings of the same Go function that must
//! agree wherever the model claims to follow it).

use super::get_phase::{Inputs, Phase, get_phase};
use crate::kubelet::status::phase::{Seen, get_phase as model_phase};
use crate::spec::{RestartPolicy, Role};
use k8s_openapi::api::core::v1::Pod;
use serde_json::{Value, json};

/// One API container status for a state as getPhase reads it.
fn status(name: &str, seen: Seen) -> Option<Value> {
    let (state, last, started) = match seen {
        Seen::Missing => return None,
        Seen::Running { started } => (json!({"running": {}}), None, started),
        Seen::Terminated { exit_code } => (json!({"terminated": {"exitCode": exit_code}}), None, false),
        Seen::Waiting { last_exit } => {
            (json!({"waiting": {}}), last_exit.map(|c| json!({"terminated": {"exitCode": c}})), false)
        }
    };
    let mut s = json!({"name": name, "image": "i", "imageID": "", "ready": false, "restartCount": 0,
        "started": started, "state": state});
    if let Some(l) = last {
        s["lastState"] = l;
    }
    Some(s)
}

/// A pod of the given containers (`c0`, `c1`, … in role order).
fn pod(policy: &str, containers: &[(Role, Seen)], extra: Value) -> Pod {
    let (mut init, mut regular, mut init_s, mut regular_s) = (vec![], vec![], vec![], vec![]);
    for (i, (role, seen)) in containers.iter().enumerate() {
        let name = format!("c{i}");
        let mut c = json!({"name": name, "image": "i"});
        if *role == Role::Sidecar {
            c["restartPolicy"] = json!("Always");
        }
        if let Some(own) = extra.get(&name) {
            c.as_object_mut().unwrap().extend(own.as_object().unwrap().clone());
        }
        let s = status(&name, *seen);
        if role.is_init() {
            init.push(c);
            init_s.extend(s);
        } else {
            regular.push(c);
            regular_s.extend(s);
        }
    }
    serde_json::from_value(json!({
        "metadata": {"name": "p"},
        "spec": {"restartPolicy": policy, "initContainers": init, "containers": regular},
        "status": {"phase": "Pending", "initContainerStatuses": init_s, "containerStatuses": regular_s},
    }))
    .unwrap()
}

fn phase(policy: &str, containers: &[(Role, Seen)], initialized: bool, restart_rules: bool) -> Phase {
    let p = pod(policy, containers, json!({}));
    get_phase(&p, Inputs { policy, terminal: false, initialized, restart_rules })
}

const SEEN: [Seen; 8] = [
    Seen::Missing,
    Seen::Running { started: false },
    Seen::Running { started: true },
    Seen::Terminated { exit_code: 0 },
    Seen::Terminated { exit_code: 1 },
    Seen::Waiting { last_exit: None },
    Seen::Waiting { last_exit: Some(0) },
    Seen::Waiting { last_exit: Some(1) },
];

/// Every pod of one to three containers (at least one regular) in every
/// state getPhase tells apart.
fn every_pod() -> Vec<Vec<(Role, Seen)>> {
    let kinds: Vec<(Role, Seen)> =
        [Role::Init, Role::Sidecar, Role::Regular].into_iter().flat_map(|r| SEEN.map(|s| (r, s))).collect();
    // getPhase only counts, so the order of the containers does not matter:
    // each multiset once (kinds in non-decreasing index order).
    let mut level: Vec<Vec<usize>> = vec![vec![]];
    let mut pods = Vec::new();
    for _ in 0..3 {
        level = level
            .iter()
            .flat_map(|p| (p.last().copied().unwrap_or(0)..kinds.len()).map(move |k| [p.clone(), vec![k]].concat()))
            .collect();
        pods.extend(level.iter().map(|p| p.iter().map(|&k| kinds[k]).collect::<Vec<_>>()));
    }
    pods.retain(|p| p.iter().any(|(r, _)| *r == Role::Regular));
    pods
}

fn policy_name(p: RestartPolicy) -> &'static str {
    match p {
        RestartPolicy::Always => "Always",
        RestartPolicy::OnFailure => "OnFailure",
        RestartPolicy::Never => "Never",
    }
}

/// The checker and the kubelet model read getPhase alike for every small
/// pod, in the 1.34 form and in the 1.35+ form (no container has its own
/// restart policy, so `ContainerRestartRules` decides as the pod's policy
/// does), but for one case the model does not tell apart.
#[test]
fn the_checker_and_the_kubelet_model_agree_on_every_small_pod() {
    let pods = every_pod();
    // Multisets of 1–3 of the 24 kinds, less those of the 16 kinds that are not regular.
    assert_eq!(pods.len(), (24 + 300 + 2600) - (16 + 136 + 816));
    for containers in pods {
        for policy in [RestartPolicy::Always, RestartPolicy::OnFailure, RestartPolicy::Never] {
            let p = pod(policy_name(policy), &containers, json!({}));
            for (terminal, initialized, restart_rules) in
                (0..8).map(|b| (b & 1 == 1, b & 2 == 2, b & 4 == 4)).collect::<Vec<_>>()
            {
                // The one place the 1.35+ form decides otherwise: see
                // on_failure_with_a_clean_exit_waiting_is_failed_from_1_35.
                let clean_wait = containers.contains(&(Role::Regular, Seen::Waiting { last_exit: Some(0) }));
                if restart_rules && policy == RestartPolicy::OnFailure && clean_wait {
                    continue;
                }
                let model = model_phase(policy, containers.iter().copied(), terminal, initialized).as_str();
                let i = Inputs { policy: policy_name(policy), terminal, initialized, restart_rules };
                assert_eq!(
                    get_phase(&p, i).as_str(),
                    model,
                    "{policy:?} {containers:?} terminal {terminal} initialized {initialized} rules {restart_rules}"
                );
            }
        }
    }
}

use Role::*;
use Seen::*;

/// A regular init container that is not done keeps the pod Pending; one
/// that failed fails the pod only when it will not be restarted (Never).
#[test]
fn init_containers_keep_the_pod_pending_or_fail_it() {
    let failed = [(Init, Terminated { exit_code: 1 }), (Regular, Waiting { last_exit: None })];
    assert_eq!(phase("Never", &failed, false, false), Phase::Failed);
    assert_eq!(phase("OnFailure", &failed, false, false), Phase::Pending);
    let crashing = [(Init, Waiting { last_exit: Some(2) }), (Regular, Waiting { last_exit: None })];
    assert_eq!(phase("Never", &crashing, false, true), Phase::Failed);
    assert_eq!(phase("Always", &crashing, false, true), Phase::Pending);
    let running = [(Init, Running { started: false }), (Regular, Missing)];
    assert_eq!(phase("Always", &running, true, false), Phase::Pending);
}

/// A sidecar not started yet keeps the pod Pending only until a regular
/// container exists in the sandbox; a terminated or restarting one is ignored.
#[test]
fn sidecars_count_only_while_starting() {
    let starting = [(Sidecar, Running { started: false }), (Regular, Running { started: true })];
    assert_eq!(phase("Always", &starting, false, false), Phase::Pending);
    assert_eq!(phase("Always", &starting, true, false), Phase::Running);
    let restarting = [(Sidecar, Waiting { last_exit: Some(137) }), (Regular, Terminated { exit_code: 0 })];
    assert_eq!(phase("Never", &restarting, true, false), Phase::Succeeded);
}

/// With `ContainerRestartRules` (1.35+) a container's own restart policy and
/// rules decide whether a stopped container will run again.
#[test]
fn container_restart_rules_decide_per_container() {
    let stopped = [(Regular, Terminated { exit_code: 3 })];
    let own = json!({"c0": {"restartPolicy": "Never"}});
    let p = pod("Always", &stopped, own);
    let with = |restart_rules| Inputs { policy: "Always", terminal: false, initialized: true, restart_rules };
    // The pod's Always would restart c0; its own Never keeps it down: Failed.
    assert_eq!(get_phase(&p, with(true)), Phase::Failed);
    assert_eq!(get_phase(&p, with(false)), Phase::Running);
    // A rule `Restart on exit code 3` wins over the container's Never.
    let rule = json!({"c0": {"restartPolicy": "Never", "restartPolicyRules": [
        {"action": "Restart", "exitCodes": {"operator": "In", "values": [3]}}]}});
    assert_eq!(get_phase(&pod("Always", &stopped, rule), with(true)), Phase::Running);
    // NotIn: exit code 3 is not in [3], so the rule does not match and Never decides.
    let not_in = json!({"c0": {"restartPolicy": "Never", "restartPolicyRules": [
        {"action": "Restart", "exitCodes": {"operator": "NotIn", "values": [3]}}]}});
    assert_eq!(get_phase(&pod("Always", &stopped, not_in), with(true)), Phase::Failed);
}

/// 1.35+: under OnFailure a container waiting after an exit 0 (killed by its
/// liveness probe, say, and exiting cleanly on SIGTERM) is not restartable
/// by the policy and is not counted as succeeded (only a current
/// termination is): getPhase returns Failed where 1.34 returned Running.
#[test]
fn on_failure_with_a_clean_exit_waiting_is_failed_from_1_35() {
    let c = [(Regular, Waiting { last_exit: Some(0) })];
    assert_eq!(phase("OnFailure", &c, true, true), Phase::Failed);
    assert_eq!(phase("OnFailure", &c, true, false), Phase::Running);
}

/// A terminal pod ignores the policy; a pod with a container of unknown
/// state is Pending.
#[test]
fn terminal_pods_and_unknown_containers() {
    let p = pod("Always", &[(Regular, Terminated { exit_code: 143 })], json!({}));
    let i = Inputs { policy: "Always", terminal: true, initialized: true, restart_rules: true };
    assert_eq!(get_phase(&p, i), Phase::Failed);
    let unknown = [(Regular, Running { started: true }), (Regular, Missing)];
    assert_eq!(phase("Always", &unknown, true, true), Phase::Pending);
}

/// Pod `web` still Pending at the API while its container runs, with
/// ContainersReady False for `reason`.
fn held_back_verdict(reason: &str) -> crate::invariants::Verdict {
    use crate::cluster::Cluster;
    use crate::error::SourceFile;
    use crate::invariants::Checker;
    use std::sync::Arc;
    let text = format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web","uid":"u1"}},"spec":{{"restartPolicy":"Always","containers":[{{"name":"app","image":"app:1"}}]}},"status":{{"phase":"Pending","conditions":[{{"type":"Ready","status":"False","reason":"{reason}","lastTransitionTime":"2026-01-01T00:00:30Z"}},{{"type":"ContainersReady","status":"False","reason":"{reason}","lastTransitionTime":"2026-01-01T00:00:30Z"}}],"containerStatuses":[{{"name":"app","image":"app:1","imageID":"","containerID":"containerd://1","ready":false,"started":true,"restartCount":0,"state":{{"running":{{"startedAt":"2026-01-01T00:00:29Z"}}}}}}]}}}}"#
    );
    let file = Arc::new(SourceFile { name: "pod.json".into(), text });
    let mut c = Checker::new(Cluster::default());
    crate::observe::read(&file, &mut |r| c.observe(&r));
    c.report().verdict("web", "phase-consistent").cloned().unwrap()
}

/// The active deadline failed the pod as its container started: the
/// kubelet's Failed phase is held back (the API keeps Pending), its
/// PodFailed conditions are not. Without them a running container
/// means Running.
#[test]
fn a_held_back_failure_shows_in_the_conditions() {
    use crate::invariants::Verdict;
    assert!(matches!(held_back_verdict("PodFailed"), Verdict::Holds { .. }));
    assert!(matches!(held_back_verdict("ContainersNotReady"), Verdict::Violated { .. }));
}
