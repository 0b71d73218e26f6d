//! Scenario actions (`--delete`, `--set-condition`, `--kill`, `--patch`,
//! `actions:`, `gates:`), kubectl's STATUS in the table, and a recorded deletion replayed
//! by the envelope.

use crate::{POD, TempDir, assert_bad_input, assert_error, assert_no_panic, line_of, podsim};

fn pod_dir(tag: &str) -> (TempDir, String) {
    let dir = TempDir::new(tag);
    let file = dir.write("pod.yaml", POD);
    (dir, file)
}

#[test]
fn delete_flag_deletes_with_the_pods_grace() {
    let (_dir, pod) = pod_dir("delete");
    let run = podsim(["run", "-f", &pod, "--delete", "pod/web@10s", "--until", "40s"]);
    assert_no_panic(&run);
    assert_eq!(run.code, Some(0), "{run:?}");
    // deletionTimestamp = the request's second + terminationGracePeriodSeconds (30, defaulted).
    assert!(run.stdout.contains("deletionTimestamp=+40s (grace 30s)"), "{run:?}");
    assert!(run.stdout.contains("kubectl Terminating"), "{run:?}");
    assert!(run.stdout.contains("app: Killing"), "{run:?}");
    assert!(run.stdout.contains("deleted from the API server"), "{run:?}");
}

#[test]
fn delete_flag_with_a_grace_period() {
    let (_dir, pod) = pod_dir("delete-grace");
    let run = podsim(["run", "-f", &pod, "--delete", "pod/web@10s,grace-period=5", "--until", "30s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("kubectl delete --grace-period=5"), "{run:?}");
    assert!(run.stdout.contains("deletionTimestamp=+15s (grace 5s)"), "{run:?}");
}

#[test]
fn action_flags_name_what_is_wrong() {
    let (_dir, pod) = pod_dir("flag-errors");
    let cases = [
        (
            "--delete",
            "pod/nope@10s",
            r#"error: --delete pod/nope@10s: no pod named "nope" in the manifests (pods: web)"#,
        ),
        ("--delete", "pod/web", r#"error: --delete pod/web: "pod/web": expected SUBJECT@TIME, e.g. pod/web@60s"#),
        ("--delete", "pod/web@10s,force=true", r#"unknown option "force" (known: grace-period)"#),
        (
            "--kill",
            "pod/web/db@10s",
            r#"error: --kill pod/web/db@10s: pod "web" has no container "db" (containers: app)"#,
        ),
        ("--kill", "pod/web/app@10s,signal=HUP", r#""HUP": the signal is SIGTERM or SIGKILL"#),
        ("--set-condition", "pod/web:Ready=True@10s", r#""Ready" is a condition the kubelet owns"#),
        ("--set-condition", "pod/web:a/b/c=True@10s", "a qualified name must consist of"),
        ("--set-condition", "pod/web:x.io/gate=Maybe@10s", r#""Maybe": a condition status is "True" or "False""#),
    ];
    for (flag, value, expected) in cases {
        let run = podsim(["run", "-f", &pod, flag, value]);
        assert_bad_input(&run);
        assert!(run.stderr.contains(expected), "{flag} {value}: expected {expected:?} in {run:?}");
    }
}

#[test]
fn a_condition_no_gate_uses_is_a_warning() {
    let (_dir, pod) = pod_dir("condition-warning");
    let run = podsim(["run", "-f", &pod, "--set-condition", "pod/web:example.com/lb=True@5s", "--until", "10s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains(r#"warning: --set-condition pod/web:example.com/lb=True@5s: pod "web" has no readiness gate "example.com/lb""#),
        "{run:?}"
    );
    assert!(run.stdout.contains("example.com/lb=True"), "{run:?}");
}

#[test]
fn scenario_actions_are_checked_with_their_line() {
    let dir = TempDir::new("scenario-actions");
    dir.write("pod.yaml", POD);
    let text = "manifests: [pod.yaml]\nactions:\n- {at: 10s, delete: pod/web}\n- {at: 20s, delete: pod/web, kill: pod/web/app}\n";
    let scenario = dir.write("s.yaml", text);
    let run = podsim(["run", &scenario]);
    assert_error(
        &run,
        &scenario,
        line_of(text, "kill: pod/web/app"),
        "actions[1]: an action has exactly one of `delete`, `setCondition`, `kill`, `apply`, `scale`, `undo`, `patch`, `cordon`, `uncordon`, `evict`, `drain`, `nodeDown`, `restartKubelet`, `reboot` and `addNode`",
    );
    let unitless = "manifests: [pod.yaml]\nactions:\n- {at: 5, delete: pod/web}\n";
    let scenario = dir.write("n.yaml", unitless);
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, 3, "actions[0].at: ");
    assert!(run.stderr.contains("needs a unit"), "{run:?}");
    let unknown = "manifests: [pod.yaml]\nactions:\n- {at: 10s, delete: pod/other}\n";
    let scenario = dir.write("u.yaml", unknown);
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, 3, r#"actions[0].delete: no pod named "other" in the manifests (pods: web)"#);
    let scale = "manifests: [pod.yaml]\nactions:\n- {at: 10s, scale: deployment/web, replicas: 3}\n";
    let scenario = dir.write("scale.yaml", scale);
    let run = podsim(["run", &scenario]);
    assert_error(
        &run,
        &scenario,
        3,
        r#"actions[0].scale: no Deployment named "web" in the manifests (Deployments: none)"#,
    );
    let replicas = "manifests: [pod.yaml]\nactions:\n- {at: 10s, undo: deployment/web, replicas: 3}\n";
    let scenario = dir.write("undo.yaml", replicas);
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, 3, "actions[0].replicas: a `scale` action takes `replicas`, and only it");
    let graceful = "manifests: [pod.yaml]\nactions:\n- {at: 10s, delete: deployment/web, gracePeriodSeconds: 5}\n";
    let scenario = dir.write("graceful.yaml", graceful);
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, 3, "actions[0].gracePeriodSeconds: a workload is deleted at once");
    let cascade = "manifests: [pod.yaml]\nactions:\n- {at: 10s, delete: pod/web, cascade: orphan}\n";
    let scenario = dir.write("cascade.yaml", cascade);
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, 3, "actions[0].cascade: only a `delete` of a workload (deployment/NAME");
    let missing = "manifests: [pod.yaml]\nactions:\n- {at: 10s, delete: deployment/web, cascade: foreground}\n";
    let scenario = dir.write("missing.yaml", missing);
    let run = podsim(["run", &scenario]);
    assert_error(
        &run,
        &scenario,
        3,
        r#"actions[0].delete: no Deployment named "web" in the manifests (Deployments: none)"#,
    );
}

#[test]
fn kill_flag_signals_the_process() {
    let (_dir, pod) = pod_dir("kill");
    let run = podsim(["run", "-f", &pod, "--kill", "pod/web/app@20s", "--until", "40s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("app process got SIGKILL from outside"), "{run:?}");
    assert!(run.stdout.contains("app process exited with 137"), "{run:?}");
    assert!(run.stdout.contains("the process was killed from outside with SIGKILL"), "{run:?}");
    // Before the container runs there is nothing to signal.
    let run = podsim(["run", "-f", &pod, "--kill", "pod/web/app@0s,signal=SIGTERM", "--until", "5s"]);
    assert!(run.stdout.contains("send SIGTERM to container app: the pod is not on a node, nothing happens"), "{run:?}");
}

#[test]
fn the_table_shows_kubectl_status() {
    let run = podsim(["run", "models/scenarios/init-sidecar-order.yaml"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    for status in [
        "kubectl Init:0/4 (READY 0/3, RESTARTS 0)",
        "kubectl Init:2/4 (READY 1/3, RESTARTS 0)",
        "kubectl PodInitializing (READY 2/3, RESTARTS 0)",
        "kubectl Running (READY 3/3, RESTARTS 0)",
        "kubectl Terminating (READY 3/3, RESTARTS 0)",
        "kubectl Completed (READY 0/3, RESTARTS 0)",
    ] {
        assert!(run.stdout.contains(status), "{status}: {run:?}");
    }
}

#[test]
fn the_envelope_replays_a_recorded_deletion() {
    let dir = TempDir::new("envelope-delete");
    let scenario = "models/scenarios/recorded/023-termination.yaml";
    // The envelope runs seeds 1–20: the recording is another run (seed 1000).
    let recorded = podsim(["run", scenario, "--seed", "1000", "-o", "jsonl"]);
    assert_eq!(recorded.code, Some(0), "{recorded:?}");
    let trace = dir.write("recording.jsonl", &recorded.stdout);
    let run = podsim(["check", &trace, "--against", scenario, "--runs", "20"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let line = run.stdout.lines().find(|l| l.contains("app stopped (after the deletion request)"));
    assert!(line.is_some_and(|l| l.ends_with("inside")), "{run:?}");
    assert!(!run.stdout.contains("deletion requested"), "the deletion is an input, not a timing: {run:?}");
}

/// `--patch` sets a deadline on a running pod: the kubelet fails the pod
/// (activeDeadlineSeconds counts from its startTime, at 0 s here) and stops it.
#[test]
fn patch_flag_sets_a_deadline() {
    let (_dir, pod) = pod_dir("patch-deadline");
    let run =
        podsim(["run", "-f", &pod, "--patch", r#"pod/web:{"spec":{"activeDeadlineSeconds":20}}@5s"#, "--until", "40s"]);
    assert_no_panic(&run);
    assert_eq!(run.code, Some(0), "{run:?}");
    for expected in [
        r#"kubectl patch pod web -p '{"spec":{"activeDeadlineSeconds":20}}'"#,
        "spec.activeDeadlineSeconds=20",
        "DeadlineExceeded                                  Pod was active on the node longer than the specified deadline",
        "app: Killing                                      Stopping container app",
        "phase=Failed                                      DeadlineExceeded: Pod was active on the node longer than the specified deadline",
    ] {
        assert!(run.stdout.contains(expected), "{expected}: {run:?}");
    }
}

/// A patch the API server refuses is a row with kubectl's message; the run goes on.
#[test]
fn an_invalid_patch_is_the_api_servers_error_row() {
    let dir = TempDir::new("patch-invalid");
    let pod = dir.write("pod.yaml", &crate::pod_with("  activeDeadlineSeconds: 60\n"));
    let cases = [
        (
            r#"{"spec":{"activeDeadlineSeconds":90}}"#,
            "spec.activeDeadlineSeconds: Invalid value: 90: must be less than or equal to previous value",
        ),
        (
            r#"{"spec":{"activeDeadlineSeconds":null}}"#,
            r#"spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value"#,
        ),
        (
            r#"{"spec":{"activeDeadlineSeconds":0}}"#,
            "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
        ),
        (
            r#"{"spec":{"activeDeadlineSeconds":-5}}"#,
            "[spec.activeDeadlineSeconds: Invalid value: -5: must be between 1 and 2147483647, inclusive, spec.activeDeadlineSeconds: Invalid value: -5: must be between 0 and 2147483647, inclusive]",
        ),
        (r#"{"spec":{"containers":[{"name":"app","image":""}]}}"#, "spec.containers[0].image: Required value"),
    ];
    for (json, expected) in cases {
        let run = podsim(["run", "-f", &pod, "--patch", &format!("pod/web:{json}@5s"), "--until", "10s"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let row = format!("kubectl patch pod web -p '{json}': The Pod \"web\" is invalid: {expected}");
        assert!(run.stdout.contains(&row), "{row}: {run:?}");
        assert!(!run.stdout.contains("DeadlineExceeded"), "nothing changed: {run:?}");
    }
    // The same value, and an empty patch: the server stores nothing new.
    for same in [r#"{"spec":{"activeDeadlineSeconds":60}}"#, r#"{"spec":{}}"#] {
        let run = podsim(["run", "-f", &pod, "--patch", &format!("pod/web:{same}@5s"), "--until", "10s"]);
        let row = format!("kubectl patch pod web -p '{same}': pod/web patched (no change)");
        assert!(run.stdout.contains(&row), "{run:?}");
    }
}

#[test]
fn patch_flags_name_what_is_wrong() {
    let (_dir, pod) = pod_dir("patch-errors");
    let cases = [
        ("pod/web@10s", r#""pod/web": expected pod/NAME:{"spec":{…}}, the JSON of kubectl patch -p"#),
        (
            r#"pod/web:{"spec":{"activeDeadlineSeconds":5}}"#,
            r#"expected POD:JSON@TIME, e.g. 'pod/web:{"spec":{"activeDeadlineSeconds":30}}@20s'"#,
        ),
        (r#"pod/web:{"spec":{"activeDeadlineSeconds":5}}@10s,force=true"#, r#"unknown option "force" (known: none)"#),
        ("pod/web:{spec}@10s", "not JSON"),
        (
            r#"pod/web:{"spec":{"activeDeadlineSeconds":"5s"}}@10s"#,
            "spec.activeDeadlineSeconds: activeDeadlineSeconds is whole seconds (an integer), or null to remove it",
        ),
        (
            r#"pod/web:{"spec":{"restartPolicy":"Never"}}@10s"#,
            "spec.restartPolicy: podsim's patch changes spec.activeDeadlineSeconds and the image of",
        ),
        (
            r#"pod/web:{"metadata":{"labels":{"a":"b"}}}@10s"#,
            r#""metadata": podsim's patch changes only the pod's spec: a cluster accepts new labels and annotations"#,
        ),
        (
            r#"pod/web:{"spec":{"containers":[{"image":"x"}]}}@10s"#,
            "spec.containers[0]: the entry has no name: containers merge by name",
        ),
        (
            r#"pod/web:{"spec":{"containers":[{"name":"app","ports":[]}]}}@10s"#,
            "spec.containers[0].ports: podsim's patch changes",
        ),
        (r#"pod/nope:{"spec":{"activeDeadlineSeconds":5}}@10s"#, r#"no pod named "nope" in the manifests (pods: web)"#),
        (
            r#"pod/web:{"spec":{"containers":[{"name":"db","image":"x"}]}}@10s"#,
            r#"pod "web" has no container "db" (spec.containers: app): the merged list would gain a container, which the API server refuses ("pod updates may not add or remove containers")"#,
        ),
        (
            r#"pod/web:{"spec":{"initContainers":[{"name":"app","image":"x"}]}}@10s"#,
            r#"pod "web" has no init container "app" (it has no spec.initContainers): the merged list would gain a container"#,
        ),
    ];
    // A prefix is resolved when the action runs; some pod or template must have the container.
    let value = r#"pod/web-*:{"spec":{"containers":[{"name":"db","image":"x"}]}}@10s"#;
    let run = podsim(["run", "models/scenarios/replicaset.yaml", "--patch", value]);
    assert_bad_input(&run);
    assert!(
        run.stderr.contains(&format!(
            r#"error: --patch {value}: no pod or pod template of the manifests has every container the patch names: the API server would refuse it for any pod ("pod updates may not add or remove containers")"#
        )),
        "{run:?}"
    );
    for (value, expected) in cases {
        let run = podsim(["run", "-f", &pod, "--patch", value]);
        assert_bad_input(&run);
        assert!(run.stderr.contains(&format!("error: --patch {value}: ")), "{value}: {run:?}");
        assert!(run.stderr.contains(expected), "{value}: expected {expected:?} in {run:?}");
    }
}

#[test]
fn scenario_patches_are_checked_with_their_line() {
    let dir = TempDir::new("scenario-patch");
    dir.write("pod.yaml", POD);
    let no_spec = "manifests: [pod.yaml]\nactions:\n- {at: 10s, patch: pod/web}\n";
    let scenario = dir.write("a.yaml", no_spec);
    assert_error(
        &podsim(["run", &scenario]),
        &scenario,
        3,
        "actions[0].spec: a `patch` action takes `spec`, and only it",
    );
    let stray = "manifests: [pod.yaml]\nactions:\n- {at: 10s, delete: pod/web, spec: {activeDeadlineSeconds: 5}}\n";
    let scenario = dir.write("b.yaml", stray);
    assert_error(
        &podsim(["run", &scenario]),
        &scenario,
        3,
        "actions[0].spec: a `patch` action takes `spec`, and only it",
    );
    let text = "manifests: [pod.yaml]\nactions:\n- at: 10s\n  patch: pod/web\n  spec:\n    containers:\n    - {name: app, command: [sh]}\n";
    let scenario = dir.write("c.yaml", text);
    let run = podsim(["run", &scenario]);
    assert_error(
        &run,
        &scenario,
        line_of(text, "spec:"),
        "actions[0].spec: containers[0].command: podsim's patch changes",
    );
    let text =
        "manifests: [pod.yaml]\nactions:\n- {at: 10s, patch: pod/web, spec: {containers: [{name: db, image: x}]}}\n";
    let scenario = dir.write("d.yaml", text);
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, 3, r#"actions[0].patch: pod "web" has no container "db""#);
    let text =
        "manifests: [pod.yaml]\nuntil: 30s\nactions:\n- {at: 5s, patch: pod/web, spec: {activeDeadlineSeconds: 10}}\n";
    let scenario = dir.write("e.yaml", text);
    let run = podsim(["run", &scenario]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("phase=Failed"), "{run:?}");
}

/// `apply` of Pods and Services: each is created at the action's time (a
/// Service brings the EndpointSlice controller and kube-proxy with it, so
/// its slice lists the pods it selects, the running one and the new one),
/// and a kind podsim reads but does not simulate is noted as in the
/// manifests.
#[test]
fn an_apply_file_creates_pods_and_services() {
    let dir = TempDir::new("apply-pod-service");
    let pod = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{app: web}}}}\nspec:\n  containers:\n  \
             - {{name: app, image: registry.example.com/web:1.0, ports: [{{containerPort: 8080}}]}}\n"
        )
    };
    dir.write("base.yaml", &pod("first"));
    let later = format!(
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: web}}\n---\napiVersion: v1\nkind: Service\n\
         metadata: {{name: web}}\nspec:\n  selector: {{app: web}}\n  ports: [{{port: 80, targetPort: 8080}}]\n---\n{}",
        pod("second")
    );
    dir.write("later.yaml", &later);
    let scenario =
        dir.write("s.yaml", "manifests: [base.yaml]\nuntil: 20s\nactions:\n- {at: 10s, apply: later.yaml}\n");
    let run = podsim(["run", &scenario]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains(
            "note: read, not simulated (they do not change how pods start, serve or stop here): ServiceAccount web"
        ),
        "{run:?}"
    );
    for object in ["pod/second", "service/web"] {
        let applied = |l: &&str| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            cells.starts_with(&["10.000s", object, "kubectl", "apply", "-f"]) && cells[5].ends_with("/later.yaml")
        };
        assert!(run.stdout.lines().any(|l| applied(&l)), "{object}: {run:?}");
    }
    assert!(run.stdout.contains("created, clusterIP"), "{run:?}");
    assert!(run.stdout.contains("kube-proxy: default/web → 10.244.0.2:8080, 10.244.0.3:8080"), "{run:?}");
}

/// A kill names a controller's pod by prefix: the oldest live match when
/// the action runs; a container no pod or template has is refused before.
#[test]
fn a_kill_names_a_controllers_pod_by_prefix() {
    let run = podsim([
        "run",
        "models/scenarios/delete-deployment.yaml",
        "--kill",
        "pod/web-*/web@10s",
        "--until",
        "15s",
        "--types",
        "scenario",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("10.000s  pod/web-86d7b47699-sq5zk  send SIGKILL to container web"), "{}", run.stdout);
    let bad = podsim(["run", "models/scenarios/delete-deployment.yaml", "--kill", "pod/web-*/nope@10s"]);
    assert_eq!(bad.code, Some(2), "{bad:?}");
    assert!(
        bad.stderr.contains(
            "error: --kill pod/web-*/nope@10s: no pod or pod template of the manifests has a container \"nope\""
        ),
        "{bad:?}"
    );
}
