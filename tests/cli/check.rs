//! `podsim check`: verdicts, exit codes, JSON output and envelopes.

use crate::{TempDir, podsim};

#[test]
fn check_a_recording_that_holds_exits_0() {
    let run = podsim([
        "check",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t1-restart2.yaml",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t2-restart3.yaml",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("holds     restart-gap-backoff"), "{run:?}");
    assert!(run.stdout.contains("holds     crashloop-message-delay"), "{run:?}");
}

#[test]
fn check_a_broken_invariant_exits_1_and_names_the_record() {
    let dir = TempDir::new("check-broken");
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: bad, uid: u1}\nspec:\n  containers: [{name: app, image: nginx}]\nstatus:\n  phase: Running\n  conditions:\n  - {type: Ready, status: \"True\"}\n  - {type: ContainersReady, status: \"False\"}\n  containerStatuses:\n  - {name: app, image: nginx, imageID: x, ready: false, restartCount: 0, state: {running: {startedAt: \"2026-01-01T00:00:00Z\"}}}\n";
    let file = dir.write("pod.yaml", pod);
    let run = podsim(["check", &file]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("VIOLATED  ready-implies-containers-ready"), "{run:?}");
    assert!(run.stdout.contains(&format!("at {file}:1")), "{run:?}");
    assert!(run.stdout.contains("expected ContainersReady=True"), "{run:?}");
}

#[test]
fn check_json_output_is_machine_readable() {
    let run = podsim([
        "check",
        "-o",
        "json",
        "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let pod = &v["pods"][0];
    assert_eq!(pod["pod"], "lifecycle-crashloop");
    assert_eq!(pod["verdicts"]["restart-count-steps"]["verdict"], "holds");
    assert_eq!(pod["verdicts"]["phase-consistent"]["verdict"], "not-applicable");
}

#[test]
fn check_unreadable_input_exits_2() {
    let run = podsim(["check", "no-such-recording.json"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let dir = TempDir::new("check-nothing");
    let file = dir.write("notes.txt", "just some notes\nnothing kubectl printed\n");
    let run = podsim(["check", &file]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no kubectl table or describe output found"), "{run:?}");
}

#[test]
fn check_against_a_scenario_reports_the_envelope() {
    let run = podsim([
        "check",
        "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt",
        "--against",
        "models/scenarios/recorded/023-crashloop.yaml",
        "--runs",
        "40",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("envelope of pod lifecycle-crashloop"), "{run:?}");
    // Four Running and two CrashLoopBackOff timings, and when it was ready.
    let recorded: Vec<&str> = run.stdout.lines().filter(|l| l.contains("recorded")).collect();
    assert_eq!(recorded.len(), 7, "{run:?}");
    assert!(recorded.iter().all(|l| l.ends_with("inside")), "{run:?}");
}

/// A `kubectl get pod -o yaml` dump always has spec.nodeName; only a pod
/// created with it (here: its last-applied configuration names the node)
/// stays bound when re-simulated, on the profile's first node when the
/// profile lacks that node, and the note says so.
#[test]
fn check_against_keeps_a_pod_created_bound_on_a_node() {
    let dir = TempDir::new("check-bound");
    let applied = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c28-bound","namespace":"c28"},"spec":{"nodeName":"minikube","containers":[{"name":"probe-app","image":"python:3.12-slim-bookworm"}]}}"#;
    let pod = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: c28-bound\n  namespace: c28\n  uid: u1\n  creationTimestamp: \"2026-01-01T00:00:00Z\"\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{applied}'\nspec:\n  nodeName: minikube\n  initContainers:\n  - {{name: init-sleep, image: python:3.12-slim-bookworm}}\n  containers:\n  - {{name: probe-app, image: python:3.12-slim-bookworm, ports: [{{name: http, containerPort: 18080}}]}}\nstatus:\n  phase: Running\n  conditions:\n  - {{type: PodScheduled, status: \"True\", lastTransitionTime: \"2026-01-01T00:00:01Z\"}}\n  initContainerStatuses:\n  - {{name: init-sleep, image: python:3.12-slim-bookworm, imageID: x, ready: true, restartCount: 0, state: {{terminated: {{exitCode: 0, reason: Completed, startedAt: \"2026-01-01T00:00:00Z\", finishedAt: \"2026-01-01T00:00:02Z\"}}}}}}\n  containerStatuses:\n  - {{name: probe-app, image: python:3.12-slim-bookworm, imageID: x, ready: false, started: true, restartCount: 0, state: {{running: {{startedAt: \"2026-01-01T00:00:03Z\"}}}}}}\n"
    );
    let file = dir.write("pod.yaml", &pod);
    let run = podsim(["check", &file, "--against", "models/scenarios/bound-pod.yaml", "--runs", "10"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("envelope of pod c28-bound (simulating the recorded spec"), "{run:?}");
    assert!(
        run.stderr.contains(
            r#"pod c28-bound: it was created bound to node "minikube", which the cluster profile lacks: simulated bound to "kind-control-plane""#
        ),
        "{run:?}"
    );
}
