//! Lifecycle hooks (startContainer, handlers.go): trace 030's failing
//! postStart hook; httpGet hooks against servers that listen at once or
//! late.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ConditionType;
use podsim::time::SimTime;
use podsim::trace::Trace;
use podsim::trace::record::{ProcessFact, Record};

const C: &str = "lifecycle-demo-container";

/// The hook runs after StartContainer and blocks the sync; `badcommand` exits
/// 126: FailedPostStartHook ("PostStartHook failed"), then Killing
/// "FailedPostStartHook" with the pod's grace: the preStop (1 s) runs first,
/// then SIGTERM. The start failed, so the container shows Waiting
/// PostStartHookError with the handler's message; the next start has no
/// backoff yet (the first restart is free), later ones CrashLoopBackOff.
#[test]
fn a_failing_poststart_hook_kills_and_restarts_the_container() {
    for seed in SEEDS {
        let trace = run("poststart-fails", seed, None);
        let lives = lives(&trace, C);
        assert!(lives.len() >= 3, "seed {seed}");
        let failed = actions(&trace, "FailedPostStartHook");
        let killed = actions(&trace, "Killing");
        // Every start's hook fails and is followed by its kill.
        assert_eq!((failed.len(), killed.len()), (lives.len(), lives.len()), "seed {seed}");
        assert!(failed.iter().all(|(_, m)| m == "PostStartHook failed"));
        assert!(killed.iter().all(|(_, m)| m == "FailedPostStartHook"));
        for (l, (k, _)) in lives.iter().zip(&killed) {
            // Hook: exec overhead 20–80 ms after the start, then the preStop's 1 s + overhead.
            within("kill", *k, l.started + secs(0.02), l.started + secs(0.08));
            within("SIGTERM after preStop", l.sigterm.unwrap(), *k + secs(1.02), *k + secs(1.08));
        }
        let starts: Vec<_> = facts(&trace, C).into_iter().filter(|(_, f)| *f == ProcessFact::Started).collect();
        assert_eq!(starts.len(), lives.len());
        let (_, message) = first_waiting(&trace, C, "PostStartHookError").expect("PostStartHookError shows");
        assert!(
            message.starts_with("Exec lifecycle hook ([badcommand]) for Container \"lifecycle-demo-container\" in Pod \"lifecycle-demo_default(")
                && message.contains("failed - error: command 'badcommand' exited with 126: , message: \"OCI runtime exec failed"),
            "{message}"
        );
        // The second start follows the first exit at once (no backoff entry yet);
        // the third waits for the 10 s backoff.
        assert!(lives[1].started.since(lives[0].finished.unwrap()) < secs(2.1), "seed {seed}");
        assert!(lives[2].started.since(lives[1].finished.unwrap()) >= secs(10.0), "seed {seed}");
        assert!(first_waiting(&trace, C, "CrashLoopBackOff").is_some());
    }
}

/// The process facts of `container` in pod `pod`, with their times.
fn pod_facts(trace: &Trace, pod: &str, container: &str) -> Vec<(SimTime, ProcessFact)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Process { pod: p, container: c, fact, .. } if &**p == pod && &**c == container => {
                Some((e.t, fact.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Each hook of the container: (started, returned, error).
fn hook_runs(trace: &Trace, pod: &str, container: &str) -> Vec<(SimTime, SimTime, Option<String>)> {
    let mut out = Vec::new();
    let mut open = None;
    for (t, f) in pod_facts(trace, pod, container) {
        match f {
            ProcessFact::Hook { started: true, .. } => open = Some(t),
            ProcessFact::Hook { started: false, error, .. } => out.push((open.take().expect("started"), t, error)),
            _ => {}
        }
    }
    out
}

/// The first time the API showed the container of pod `pod` Running.
fn first_running(trace: &Trace, pod: &str) -> Option<SimTime> {
    pod_versions(trace, pod)
        .into_iter()
        .find(|(_, p)| p.status.containers.first().is_some_and(|c| c.state.is_running()))
        .map(|(t, _)| t)
}

/// `startContainer` runs the postStart hook as soon as `StartContainer`
/// returns, and `runHTTPHandler` dials the pod IP then. A server that binds
/// its port as it starts (a behaviour's `listen: 0s`, or podsim's default
/// app) is listening by then: the GET is answered, and any status succeeds
/// (handlers.go looks only at the error). warm's /warmup answers 500 after
/// 2 s, so the hook returns exactly 2 s after the start and the container
/// shows Running only after that (the sync waits for the hook); plain's
/// answers at once. Neither fails, neither is restarted.
#[test]
fn a_poststart_httpget_reaches_a_server_that_listens_at_once() {
    for seed in SEEDS {
        let trace = run("poststart-http", seed, None);
        for (pod, container, took) in [("warm", "web", secs(2.0)), ("plain", "plain", secs(0.0))] {
            let lives = pod_lives(&trace, pod, container);
            assert_eq!(lives.len(), 1, "seed {seed}: {pod}");
            let s = lives[0].started;
            let listening: Vec<_> = pod_facts(&trace, pod, container)
                .into_iter()
                .filter(|(_, f)| matches!(f, ProcessFact::Listening { .. }))
                .collect();
            assert_eq!(listening, vec![(s, ProcessFact::Listening { ports: vec![8080] })], "seed {seed}: {pod}");
            assert_eq!(hook_runs(&trace, pod, container), vec![(s, s + took, None)], "seed {seed}: {pod}");
            assert!(pod_actions(&trace, pod, "FailedPostStartHook").is_empty(), "seed {seed}: {pod}");
            assert!(pod_actions(&trace, pod, "Killing").is_empty(), "seed {seed}: {pod}");
            let running = first_running(&trace, pod).expect("Running shows");
            assert!(running >= s + took, "seed {seed}: {pod} Running at {running}, before the hook returned");
        }
    }
}

/// cold's server listens 2 s after it starts, but the hook dials at the
/// start: `connect: connection refused`. `startContainer` then emits
/// `FailedPostStartHook` ("PostStartHook failed"), kills the container at
/// once (`Killing` "FailedPostStartHook"; no preStop, and the app exits 0 on
/// SIGTERM) and returns `PostStartHookError` with the handler's message.
/// The process never lives the 2 s it needs to listen. The second start
/// follows at once (no backoff entry yet), the third after the 10 s backoff.
#[test]
fn a_poststart_httpget_is_refused_by_a_server_not_yet_listening() {
    for seed in SEEDS {
        let trace = run("poststart-http", seed, None);
        let lives = pod_lives(&trace, "cold", "slow");
        assert!(lives.len() >= 3, "seed {seed}");
        let last = pod_versions(&trace, "cold").pop().expect("cold exists").1;
        let ip = last.status.pod_ip.clone().expect("cold has an IP");
        let error = format!(
            "HTTP lifecycle hook (/warmup) for Container \"slow\" in Pod \"cold_default({})\" failed - error: Get \"http://{ip}:8080/warmup\": dial tcp {ip}:8080: connect: connection refused",
            last.meta.uid
        );
        let failed = pod_actions(&trace, "cold", "FailedPostStartHook");
        let killed = pod_actions(&trace, "cold", "Killing");
        let runs = hook_runs(&trace, "cold", "slow");
        assert_eq!((failed.len(), killed.len(), runs.len()), (lives.len(), lives.len(), lives.len()), "seed {seed}");
        for (i, l) in lives.iter().enumerate() {
            let s = l.started;
            assert_eq!(runs[i], (s, s, Some(error.clone())), "seed {seed}");
            assert_eq!(failed[i], (s, "PostStartHook failed".to_string()), "seed {seed}");
            assert_eq!(killed[i], (s, "FailedPostStartHook".to_string()), "seed {seed}");
            assert_eq!((l.sigterm, l.finished, l.exit), (Some(s), Some(s), Some(0)), "seed {seed}");
        }
        assert!(
            pod_facts(&trace, "cold", "slow").iter().all(|(_, f)| !matches!(f, ProcessFact::Listening { .. })),
            "seed {seed}: a killed process never listens"
        );
        let (_, message) = first_waiting(&trace, "slow", "PostStartHookError").expect("PostStartHookError shows");
        assert_eq!(message, error, "seed {seed}");
        assert!(lives[1].started.since(lives[0].finished.unwrap()) < secs(2.1), "seed {seed}");
        assert!(lives[2].started.since(lives[1].finished.unwrap()) >= secs(10.0), "seed {seed}");
    }
}

/// `runHTTPHandler` with no `host` dials `GetPodStatus(…).IPs[0]`; a
/// hostNetwork sandbox has no IP of its own (the runtime leaves
/// `PodSandboxStatus.Network.Ip` empty), so the hook fails before any
/// request: `failed to find networking container: %v` of the runtime's pod
/// status (kubernetes#134285). envoy is deleted at 20 s: `Killing`, then its
/// preStop fails at once — `FailedPreStopHook` "PreStopHook failed" — and
/// nothing comes off the 30 s grace, so SIGTERM follows in the same instant
/// (the app exits 0 on it). Its readiness probe is not affected: the prober
/// dials status.podIP, which the kubelet sets to the node's IP.
#[test]
fn an_httpget_hook_of_a_host_network_pod_finds_no_pod_ip() {
    for seed in SEEDS {
        let trace = run("hostnetwork-hooks", seed, None);
        let envoy = pod_versions(&trace, "envoy").pop().expect("envoy exists").1;
        let status =
            |uid: &str, name: &str| format!("failed to find networking container: &{{{uid} {name} default [] …}}");
        let ip = envoy.status.pod_ip.clone().expect("envoy has the node's IP");
        assert_eq!(Some(&ip), envoy.status.host_ip.as_ref(), "seed {seed}");
        assert!(pod_condition(&trace, "envoy", &ConditionType::Ready, true).is_some(), "seed {seed}");
        let lives = pod_lives(&trace, "envoy", "envoy");
        assert_eq!(lives.len(), 1, "seed {seed}");
        let killed = pod_actions(&trace, "envoy", "Killing");
        assert_eq!(killed.len(), 1, "seed {seed}");
        let (k, ref why) = killed[0];
        assert_eq!(why, "Stopping container envoy");
        let error = format!(
            "HTTP lifecycle hook (/shutdown) for Container \"envoy\" in Pod \"envoy_default({})\" failed - error: {}",
            envoy.meta.uid,
            status(&envoy.meta.uid, "envoy")
        );
        assert_eq!(hook_runs(&trace, "envoy", "envoy"), vec![(k, k, Some(error))], "seed {seed}");
        assert_eq!(pod_actions(&trace, "envoy", "FailedPreStopHook"), vec![(k, "PreStopHook failed".to_string())]);
        assert_eq!((lives[0].sigterm, lives[0].finished, lives[0].exit), (Some(k), Some(k), Some(0)), "seed {seed}");

        let agent = pod_versions(&trace, "agent").pop().expect("agent exists").1;
        let error = format!(
            "HTTP lifecycle hook (/register) for Container \"agent\" in Pod \"agent_default({})\" failed - error: {}",
            agent.meta.uid,
            status(&agent.meta.uid, "agent")
        );
        let lives = pod_lives(&trace, "agent", "agent");
        assert!(lives.len() >= 2, "seed {seed}");
        let runs = hook_runs(&trace, "agent", "agent");
        let failed = pod_actions(&trace, "agent", "FailedPostStartHook");
        assert_eq!((runs.len(), failed.len()), (lives.len(), lives.len()), "seed {seed}");
        for (l, run) in lives.iter().zip(&runs) {
            assert_eq!(*run, (l.started, l.started, Some(error.clone())), "seed {seed}");
        }
        assert_eq!(first_waiting(&trace, "agent", "PostStartHookError").map(|w| w.1), Some(error), "seed {seed}");
    }
}

/// A hostNetwork pod has the node's IP as its podIP from its first status
/// (`generateAPIPodStatus` copies the host IPs), before any sandbox exists;
/// PodReadyToStartContainers is False then because no sandbox was made yet,
/// and False again after deletion because `StopPodSandbox` stopped it. The
/// timeline tells the two apart.
#[test]
fn a_host_network_pods_timeline_says_why_it_has_no_sandbox() {
    for seed in SEEDS {
        let trace = run("hostnetwork-hooks", seed, None);
        let versions = pod_versions(&trace, "envoy");
        let first =
            versions.iter().find(|(_, p)| p.status.condition(&ConditionType::PodReadyToStartContainers).is_some());
        assert!(first.expect("the kubelet writes a status").1.status.pod_ip.is_some(), "seed {seed}: the node's IP");
        let rows: Vec<(String, String)> = versions
            .windows(2)
            .flat_map(|w| podsim::trace::changes::changes(Some(&w[0].1), &w[1].1))
            .filter(|c| c.what.starts_with("PodReadyToStartContainers="))
            .map(|c| (c.what, c.why))
            .collect();
        let row = |what: &str, why: &str| (what.to_string(), why.to_string());
        assert_eq!(
            rows,
            vec![
                // 1.37: the condition's own reason and message (GeneratePodReadyToStartContainersCondition).
                row("PodReadyToStartContainers=False", "PodSandboxNotReady: no pod sandbox exists"),
                row("PodReadyToStartContainers=True", "the pod sandbox and its network are ready"),
                row("PodReadyToStartContainers=False", "PodSandboxNotReady: pod sandbox is not ready"),
            ],
            "seed {seed}"
        );
    }
}
