//! Manifests using kinds and fields that podsim does not simulate.

use crate::{POD, TempDir, assert_error, assert_problem, line_of, manifest_error, podsim};

const STATEFUL_SET: &str = "\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: 1
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
";

/// A StatefulSet is simulated now: one without a selector is refused as
/// the API server refuses it (`ValidateStatefulSetSpec`), not as a kind.
#[test]
fn a_stateful_set_without_a_selector_is_refused_as_the_api_server_refuses_it() {
    let dir = TempDir::new("statefulset");
    let file = dir.write("sts.yaml", STATEFUL_SET);
    let run = podsim(["run", "-f", &file]);
    // reported at the set's `spec:`, the line above `replicas:`
    assert_error(&run, &file, line_of(STATEFUL_SET, "replicas:") - 1, "spec.selector: Required value");
    assert!(!run.stderr.contains("does not simulate kind StatefulSet"), "{run:?}");
}

/// Kinds that do not change the pod lifecycle are read and listed once, in
/// a note (a rendered chart's ServiceAccount, RBAC, ConfigMap, IngressClass
/// and a custom resource); the run goes on. A misspelt kind of a built-in
/// group is kubectl's `no matches for kind`.
#[test]
fn kinds_that_do_not_change_the_lifecycle_are_read_and_noted() {
    let dir = TempDir::new("read-kinds");
    let others = "\
apiVersion: v1
kind: ServiceAccount
metadata: {name: web}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: web-reader}
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: web-admin}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web}
---
";
    let file = dir.write("app.yaml", &format!("{others}{POD}"));
    let run = podsim(["run", "-f", &file, "--until", "2s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let note = "note: read, not simulated (they do not change how pods start, serve or stop here): \
                ServiceAccount web; ClusterRole web-reader, web-admin; ServiceMonitor web\n";
    assert!(run.stderr.contains(note), "{run:?}");
    assert_eq!(run.stderr.matches("note: read, not simulated").count(), 1, "{run:?}");

    let typo = dir.write("typo.yaml", &POD.replace("kind: Pod", "kind: Pood"));
    let bad = podsim(["run", "-f", &typo]);
    assert_error(&bad, &typo, line_of(POD, "kind:"), r#"kind: no matches for kind "Pood" in version "v1""#);
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

/// A `kubectl get pod -o yaml` dump (recording 006, a ReplicaSet's pod).
const DUMP: &str = include_str!("../traces/006-happy-path-nginx-containerd-describe-and-yaml/pod.yaml");

/// Each field the API server writes itself is named with what a create does
/// with it: resourceVersion cleared by kubectl (Helper.Create), uid and
/// creationTimestamp set anew (FillObjectMetaSystemFields), status reset
/// (PrepareForCreate); the owner reference is an error, since the garbage
/// collector deletes a pod whose owner does not exist. Without it, the node
/// the profile lacks is an error that says the two ways forward; with a
/// profile that has the node, the pod runs there, created bound.
#[test]
fn a_pod_dump_names_what_the_api_server_writes() {
    let dir = TempDir::new("pod-dump");
    let file = dir.write("dump.yaml", DUMP);
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        line_of(DUMP, "ownerReferences:"),
        "metadata.ownerReferences: owner references are not simulated: the garbage collector deletes a pod whose \
         owners do not exist (attemptToDeleteItem); remove them to run the pod on its own",
    );
    let warned = |run: &crate::Run, file: &str, text: &str| {
        for (anchor, expected) in [
            (
                "  resourceVersion:",
                "metadata.resourceVersion: ignored: kubectl create and apply clear it before the create (Helper.Create); another client that sends it is refused (\"resourceVersion should not be set on objects to be created\")",
            ),
            (
                "  uid: a6501da1",
                "metadata.uid: ignored: the API server gives every created object a new uid (FillObjectMetaSystemFields)",
            ),
            (
                "  creationTimestamp:",
                "metadata.creationTimestamp: ignored: the API server sets it to the time of the create (FillObjectMetaSystemFields)",
            ),
            ("status:", "status: ignored: the API server resets status on create"),
        ] {
            // The line that begins so (indentation included: `status:` also ends condition lines).
            let lines: Vec<usize> =
                text.lines().enumerate().filter(|(_, l)| l.starts_with(anchor)).map(|(i, _)| i).collect();
            assert_eq!(lines.len(), 1, "{anchor:?}");
            assert_problem(run, "warning", file, lines[0] as u64 + 1, expected);
        }
    };
    warned(&run, &file, DUMP);
    assert_eq!(run.stderr.matches("error: ").count(), 1, "{run:?}");

    // The dump without its owner reference: the node is the one error left.
    let owner = DUMP.find("  ownerReferences:").unwrap();
    let end = owner + DUMP[owner..].find("  resourceVersion:").unwrap();
    let orphan = format!("{}{}", &DUMP[..owner], &DUMP[end..]);
    let file = dir.write("orphan.yaml", &orphan);
    let run = podsim(["run", "-f", &file, "--until", "10s"]);
    assert_error(
        &run,
        &file,
        line_of(&orphan, "nodeName:"),
        r#"spec.nodeName: "kube-worker-1" is not a node of the cluster profile "default" (nodes: node-1): remove spec.nodeName to let the scheduler place the pod, or run with a profile (--cluster) whose nodes include "kube-worker-1""#,
    );

    // A profile with that node: the pod is created bound to it (no Scheduled event).
    let cluster = dir.write("cluster.yaml", "nodes:\n- name: kube-worker-1\n");
    let run = podsim(["run", "-f", &file, "--cluster", &cluster, "--until", "10s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    warned(&run, &file, &orphan);
    assert!(
        run.stdout.contains(
            "PodScheduled=True                                 created bound to kube-worker-1 (spec.nodeName)"
        ),
        "{run:?}"
    );
    assert!(!run.stdout.contains("Successfully assigned"), "{run:?}");
}
