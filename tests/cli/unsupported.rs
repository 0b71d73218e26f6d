//! Manifests using kinds and fields that podsim does not simulate.

use crate::{TempDir, assert_error, line_of, manifest_error, podsim};

const STATEFUL_SET: &str = "\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: 1
";

#[test]
fn stateful_set_is_an_unsupported_kind() {
    let dir = TempDir::new("statefulset");
    let file = dir.write("sts.yaml", STATEFUL_SET);
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        line_of(STATEFUL_SET, "kind:"),
        "kind: podsim does not simulate kind StatefulSet (apps/v1)",
    );
    let supported = "only Pod (v1), Service (v1), ReplicaSet and Deployment (apps/v1) are supported";
    assert!(run.stderr.contains(supported), "{run:?}");
}

/// Deployments are validated as the API server would: a user learns what a
/// cluster would refuse, with its line.
#[test]
fn an_invalid_deployment_is_refused_with_the_api_servers_message() {
    let dir = TempDir::new("deployment-invalid");
    let text = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  strategy:
    rollingUpdate: {maxSurge: 0, maxUnavailable: 0}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: nginx:1.27}
";
    let file = dir.write("deploy.yaml", text);
    let run = podsim(["run", "-f", &file]);
    crate::assert_bad_input(&run);
    let line = line_of(text, "rollingUpdate:");
    let expected = format!(
        "error: {file}:{line}:50: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"
    );
    assert!(run.stderr.contains(&expected), "{expected}\n{run:?}");
}

#[test]
fn list_with_an_invalid_item() {
    let dir = TempDir::new("list");
    let text = "\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: one
  spec:
    containers:
    - name: app
      image: nginx:1.27
- apiVersion: v1
  kind: Pod
  metadata:
    name: two
  spec:
    containers:
    - name: app
      image: nginx:1.27
      livenessProbe:
        tcpSocket: {port: 80}
        successThreshold: 3
";
    let file = dir.write("list.yaml", text);
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        line_of(text, "successThreshold"),
        "items[1].spec.containers[0].livenessProbe.successThreshold: Invalid value: 3: must be 1",
    );
    assert_eq!(run.stderr.matches("error: ").count(), 1, "only the second item is wrong: {run:?}");
}

#[test]
fn ephemeral_containers_are_unsupported() {
    manifest_error(
        "ephemeral",
        "  ephemeralContainers:\n  - name: debug\n    image: busybox:1.36\n",
        "ephemeralContainers:",
        "spec.ephemeralContainers: podsim does not simulate this yet",
    );
}

#[test]
fn stop_signals_are_unsupported_flow_style() {
    manifest_error(
        "stop-signal",
        "  initContainers: [{name: proxy, image: envoy:1.30, restartPolicy: Always, lifecycle: {stopSignal: SIGUSR1}}]\n",
        "initContainers:",
        "spec.initContainers[0].lifecycle.stopSignal: stop signals (ContainerStopSignals, alpha) are not simulated: podsim sends SIGTERM",
    );
}

/// The scheduler's preemption verdict in a FailedScheduling message assumes
/// every pod has priority 0; a PriorityClass would change it, so its use is
/// named.
#[test]
fn a_priority_class_is_warned_about() {
    let dir = TempDir::new("priority-class");
    let text = crate::pod_with("  priorityClassName: high\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file, "--until", "1s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    crate::assert_problem(
        &run,
        "warning",
        &file,
        line_of(&text, "priorityClassName"),
        "spec.priorityClassName: PriorityClasses are not modelled: the pod has priority 0, and the scheduler preempts no pod for it",
    );
}
