//! `podsim get`: what `kubectl get` prints of the run, cell for cell
//! (kubectl's printers and tabwriter), at an instant or as a watch.

use super::podsim;

const PROBES: &str = "models/scenarios/probe-actions.yaml";

/// At the end of the probe-actions run (3 min): the pod restarted once,
/// 110 s before (`RESTARTS 1 (110s ago)`: HumanDuration keeps seconds under
/// 2 minutes), AGE `3m`; columns padded to the widest cell plus 3.
#[test]
fn the_pod_list_at_the_end_of_the_run() {
    let run = podsim(["get", "pods", PROBES]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stdout,
        "NAME     READY   STATUS    RESTARTS       AGE\nworker   1/1     Running   1 (110s ago)   3m\n"
    );
}

/// `--at 40s -o wide`: the readiness probe failed at 37 s (`0/1`); the wide
/// columns are the pod IP, its node, no nominated node and no gates.
#[test]
fn the_pod_at_an_instant_with_the_wide_columns() {
    let run = podsim(["get", "po/worker", PROBES, "--at", "40s", "-o", "wide"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stdout,
        "NAME     READY   STATUS    RESTARTS   AGE   IP           NODE     NOMINATED NODE   READINESS GATES\n\
         worker   0/1     Running   0          40s   10.244.0.2   node-1   <none>           <none>\n"
    );
}

/// `-w`: a row per watch event, the first with the header; the columns
/// widen when a longer cell comes (ContainerCreating) and never narrow.
#[test]
fn a_watch_prints_every_event() {
    let run = podsim(["get", "pods", PROBES, "-w"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "NAME     READY   STATUS    RESTARTS   AGE");
    assert_eq!(lines[1], "worker   0/1     Pending   0          0s");
    assert!(lines.contains(&"worker   0/1     ContainerCreating   0          0s"), "{run:?}");
    assert!(lines.contains(&"worker   0/1     Running             1 (0s ago)   70s"), "{run:?}");
    let records = podsim(["run", PROBES, "-o", "jsonl"]);
    let pod_events =
        records.stdout.lines().filter(|l| l.contains("\"kind\":\"Pod\"") && !l.contains("\"type\":\"EVENT\"")).count();
    assert_eq!(lines.len() - 1, pod_events, "one row per ADDED/MODIFIED/DELETED record");
}

/// Deployments and ReplicaSets of the stuck-rollout scenario, in its
/// namespace; the objects as the API server returns them (`-o yaml`, a List).
#[test]
fn workloads_in_their_namespace() {
    let scenario = "models/scenarios/c28-bad-rollout.yaml";
    let none = podsim(["get", "deployments", scenario]);
    assert_eq!((none.code, none.stdout.as_str()), (Some(0), ""), "{none:?}");
    assert_eq!(none.stderr, "No resources found in default namespace.\n");
    let run = podsim(["get", "deploy", scenario, "-n", "c28", "-o", "wide"]);
    assert_eq!(
        run.stdout,
        "NAME        READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES                      SELECTOR\n\
         c28-probe   1/1     1            1           4m    probe-app    python:3.12-slim-bookworm   app=c28-probe\n"
    );
    let rs = podsim(["get", "rs", scenario, "-n", "c28"]);
    assert!(rs.stdout.starts_with("NAME                   DESIRED   CURRENT   READY   AGE\n"), "{rs:?}");
    let yaml = podsim(["get", "deploy", scenario, "-A", "--at", "5s", "-o", "yaml"]);
    assert!(yaml.stdout.starts_with("apiVersion: v1\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n"), "{yaml:?}");
    assert!(yaml.stdout.ends_with("kind: List\nmetadata:\n  resourceVersion: \"\"\n"), "{yaml:?}");
}

/// A Service and its EndpointSlice, every namespace (`-A` adds NAMESPACE).
#[test]
fn services_and_endpoint_slices() {
    let scenario = "models/scenarios/c28-service.yaml";
    let svc = podsim(["get", "svc", scenario, "-A", "-o", "wide"]);
    assert_eq!(
        svc.stdout,
        "NAMESPACE   NAME        TYPE        CLUSTER-IP      EXTERNAL-IP   PORT(S)     AGE   SELECTOR\n\
         c28         c28-probe   ClusterIP   10.96.238.139   <none>        18080/TCP   40s   app=c28-probe\n"
    );
    let slices = podsim(["get", "endpointslices", scenario, "-n", "c28"]);
    assert_eq!(
        slices.stdout,
        "NAME              ADDRESSTYPE   PORTS   ENDPOINTS    AGE\nc28-probe-dnvdg   IPv4          18080   10.244.1.2   40s\n"
    );
}

/// kubectl's errors: an object that is not there exits 1; an unknown kind is bad input.
#[test]
fn what_is_not_there() {
    let run = podsim(["get", "pod/nope", PROBES]);
    assert_eq!((run.code, run.stderr.as_str()), (Some(1), "Error from server (NotFound): pods \"nope\" not found\n"));
    let bad = podsim(["get", "replicationcontrollers", PROBES]);
    assert_eq!(bad.code, Some(2), "{bad:?}");
    assert!(bad.stderr.contains("the server doesn't have a resource type \"replicationcontrollers\""), "{bad:?}");
    let watch_yaml = podsim(["get", "pods", PROBES, "-w", "-o", "yaml"]);
    assert_eq!(watch_yaml.code, Some(2), "{watch_yaml:?}");
}

/// `get events`: kubectl's event rows in the API's order (by name: the
/// involved object, then time), LAST SEEN from the last timestamp (the
/// scheduler's events.k8s.io event from its eventTime, to the microsecond),
/// OBJECT `pod/worker`; `-o wide` adds SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME.
#[test]
fn events_as_kubectl_lists_them() {
    let run = podsim(["get", "events", PROBES]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "LAST SEEN   TYPE      REASON      OBJECT       MESSAGE");
    assert_eq!(
        lines[1],
        "2m59s       Normal    Scheduled   pod/worker   Successfully assigned default/worker to node-1"
    );
    assert_eq!(lines[2], "3m          Normal    Pulling     pod/worker   Pulling image \"python:3.11-slim-bookworm\"");
    assert!(lines.contains(
        &"112s        Normal    Killing     pod/worker   Container app failed liveness probe, will be restarted"
    ));
    let wide = podsim(["get", "ev", PROBES, "-o", "wide"]);
    let header: Vec<&str> =
        wide.stdout.lines().next().unwrap().split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(
        header,
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"]
    );
    assert!(wide.stdout.contains("   spec.containers{app}   kubelet, node-1 "), "{wide:?}");
    assert!(
        wide.stdout.contains("   default-scheduler, "),
        "an events.k8s.io event: its reporting controller: {wide:?}"
    );
}

/// `podsim describe pod/NAME`: kubectl describe's sections, laid out by its
/// tabwriter (padding 2; a line without a tab, such as `IPs:` or
/// `Command:`, ends a column block), the restarted container's `Last
/// State`, and the Events table: the scheduler's events.k8s.io event first
/// (no lastTimestamp), repeats as `x3 over 114s` (three liveness failures
/// one period apart, the last 112 s before the end).
#[test]
fn describe_prints_what_kubectl_describe_prints() {
    let run = podsim(["describe", "pod/worker", PROBES]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let out = &run.stdout;
    for block in [
        "Name:             worker\nNamespace:        default\nPriority:         0\nService Account:  default\nNode:             node-1/10.0.0.10\n",
        "IP:               10.244.0.2\nIPs:\n  IP:  10.244.0.2\nContainers:\n  app:\n",
        "    State:          Running\n      Started:      Thu, 01 Jan 2026 00:01:10 +0000\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    137\n",
        "    Liveness:     http-get http://:8080/live delay=0s timeout=1s period=1s #success=1 #failure=3\n",
        "Conditions:\n  Type                        Status\n  PodReadyToStartContainers   True \n",
        "Tolerations:                  node.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n                              node.kubernetes.io/unreachable:NoExecute op=Exists for 300s\n",
    ] {
        assert!(out.contains(block), "{block}\n---\n{out}");
    }
    let events: Vec<&str> = out.lines().skip_while(|l| *l != "Events:").collect();
    assert!(events[3].starts_with("  Normal   Scheduled  2m59s "), "{events:?}");
    assert!(
        out.contains("  Warning  Unhealthy  112s (x3 over 114s)     kubelet            Liveness probe failed:"),
        "{out}"
    );
    let early = podsim(["describe", "pod/worker", PROBES, "--at", "3s"]);
    assert!(early.stdout.contains("    State:          Waiting\n      Reason:       ContainerCreating\n"), "{early:?}");
    let missing = podsim(["describe", "pod/nope", PROBES]);
    assert_eq!(missing.code, Some(1), "{missing:?}");
}

/// `get deploy,rs,pods`: a table per kind in the order asked, each with its
/// own widths, a blank line between, the kind before each name
/// (`deployment.apps/…`); `-w` takes one kind, with kubectl's error; a
/// name among several kinds is refused; `-o json` is one List of them all.
#[test]
fn several_kinds_print_a_table_each_with_the_kind_in_the_name() {
    let run = podsim(["get", "deploy,rs,pods", "models/scenarios/c28-bad-rollout.yaml", "-n", "c28"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let tables: Vec<&str> = run.stdout.split("\n\n").collect();
    assert_eq!(tables.len(), 3, "{}", run.stdout);
    assert!(tables[0].starts_with("NAME                        READY   UP-TO-DATE"), "{}", tables[0]);
    assert!(tables[0].contains("\ndeployment.apps/c28-probe   1/1 "), "{}", tables[0]);
    assert!(tables[1].contains("\nreplicaset.apps/c28-probe-5cb8c6cb66   1 "), "{}", tables[1]);
    assert!(tables[2].contains("\npod/c28-probe-5cb8c6cb66-sq5zk   1/1 "), "{}", tables[2]);
    let watch = podsim(["get", "deploy,rs", "models/scenarios/c28-bad-rollout.yaml", "-n", "c28", "-w"]);
    assert_eq!(watch.code, Some(1), "{watch:?}");
    assert_eq!(
        watch.stderr,
        "error: watch is only supported on individual resources and resource collections - more than 1 resource was found\n"
    );
    let named = podsim(["get", "deploy/c28-probe,rs", "models/scenarios/c28-bad-rollout.yaml"]);
    assert_eq!(named.code, Some(2), "{named:?}");
    let json = podsim(["get", "deploy,rs", "models/scenarios/c28-bad-rollout.yaml", "-n", "c28", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&json.stdout).expect("a List");
    let kinds: Vec<&str> = list["items"].as_array().unwrap().iter().filter_map(|o| o["kind"].as_str()).collect();
    assert_eq!(kinds, ["Deployment", "ReplicaSet", "ReplicaSet"]);
}
