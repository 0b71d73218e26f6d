//! `podsim describe KIND/NAME` of the workload and network kinds: kubectl
//! describe's lines (describeDeployment, describeReplicaSet, describeService,
//! describeEndpointSliceV1) of the objects as they are at an instant.

use super::{assert_bad_input, assert_no_panic, podsim};

const ROLLOUT: &str = "models/scenarios/c28-bad-rollout.yaml";
const SERVICE: &str = "models/scenarios/c28-service.yaml";

/// The failed rollout at 140 s: the new ReplicaSet's pod never became
/// Ready, so Progressing is False (ProgressDeadlineExceeded) while the old
/// ReplicaSet keeps the Deployment Available; OldReplicaSets and
/// NewReplicaSet name both with `current/desired replicas created`; the
/// Events are the deployment controller's ScalingReplicaSet events.
#[test]
fn a_failed_rollout_as_kubectl_describes_the_deployment() {
    let run = podsim(["describe", "deploy/c28-probe", ROLLOUT, "-n", "c28", "--at", "140s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let out = &run.stdout;
    for block in [
        "Name:                   c28-probe\nNamespace:              c28\nCreationTimestamp:      Thu, 01 Jan 2026 00:00:00 +0000\n",
        "Selector:               app=c28-probe\nReplicas:               1 desired | 1 updated | 2 total | 1 available | 1 unavailable\nStrategyType:           RollingUpdate\nMinReadySeconds:        0\nRollingUpdateStrategy:  0 max unavailable, 1 max surge\nPod Template:\n  Labels:  app=c28-probe\n  Init Containers:\n   init-sleep:\n",
        "    Readiness:     http-get http://:http/__c28_not_ready__ delay=0s timeout=1s period=2s #success=1 #failure=3\n",
        "Conditions:\n  Type           Status  Reason\n  ----           ------  ------\n  Available      True    MinimumReplicasAvailable\n  Progressing    False   ProgressDeadlineExceeded\n",
        "OldReplicaSets:  c28-probe-5cb8c6cb66 (1/1 replicas created)\nNewReplicaSet:   c28-probe-5c476f65b (1/1 replicas created)\n",
        "Events:\n  Type    Reason             Age    From                   Message\n  ----    ------             ----   ----                   -------\n  Normal  ScalingReplicaSet  2m20s  deployment-controller  Scaled up replica set c28-probe-5cb8c6cb66 from 0 to 1\n  Normal  ScalingReplicaSet  110s   deployment-controller  Scaled up replica set c28-probe-5c476f65b from 0 to 1\n",
    ] {
        assert!(out.contains(block), "{block}\n---\n{out}");
    }
    // At the end the fixed template is the first one again: that ReplicaSet
    // is the new one, the bad one old and scaled to 0.
    let end = podsim(["describe", "deployments/c28-probe", ROLLOUT, "-n", "c28"]);
    assert_eq!(end.code, Some(0), "{end:?}");
    for block in [
        "  Progressing    True    NewReplicaSetAvailable\n",
        "OldReplicaSets:  c28-probe-5c476f65b (0/0 replicas created)\nNewReplicaSet:   c28-probe-5cb8c6cb66 (1/1 replicas created)\n",
        "  Normal  ScalingReplicaSet  90s    deployment-controller  Scaled down replica set c28-probe-5c476f65b from 1 to 0\n",
    ] {
        assert!(end.stdout.contains(block), "{block}\n---\n{}", end.stdout);
    }
}

/// The bad ReplicaSet at 140 s: controlled by the Deployment, its one pod
/// Running (never Ready), its template with the pod-template-hash selector,
/// the replicaset controller's SuccessfulCreate.
#[test]
fn a_replica_set_as_kubectl_describes_it() {
    let run = podsim(["describe", "rs/c28-probe-5c476f65b", ROLLOUT, "-n", "c28", "--at", "140s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let out = &run.stdout;
    for block in [
        "Name:           c28-probe-5c476f65b\nNamespace:      c28\nSelector:       app=c28-probe,pod-template-hash=5c476f65b\n",
        "Controlled By:  Deployment/c28-probe\nReplicas:       1 current / 1 desired\nPods Status:    1 Running / 0 Waiting / 0 Succeeded / 0 Failed\nPod Template:\n",
        "  Normal  SuccessfulCreate  110s  replicaset-controller  Created pod: c28-probe-5c476f65b-",
    ] {
        assert!(out.contains(block), "{block}\n---\n{out}");
    }
    // Scaled down at the end: no pod of its own left.
    let end = podsim(["describe", "replicaset/c28-probe-5c476f65b", ROLLOUT, "-n", "c28"]);
    assert!(
        end.stdout.contains("Replicas:       0 current / 0 desired\nPods Status:    0 Running / 0 Waiting"),
        "{end:?}"
    );
}

/// The Service once its pod is Ready, then before: the Endpoints line comes
/// from its EndpointSlices (kubectl ≥ 1.33), empty while no endpoint is ready.
#[test]
fn a_service_as_kubectl_describes_it() {
    let run = podsim(["describe", "svc/c28-probe", SERVICE, "-n", "c28"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let out = &run.stdout;
    assert!(out.starts_with("Name:                     c28-probe\nNamespace:                c28\n"), "{out}");
    for block in [
        "Selector:                 app=c28-probe\nType:                     ClusterIP\nIP Family Policy:         SingleStack\nIP Families:              IPv4\n",
        "Port:                     http  18080/TCP\nTargetPort:               http/TCP\nEndpoints:                10.244.1.2:18080\nSession Affinity:         None\nInternal Traffic Policy:  Cluster\nEvents:                   <none>\n",
    ] {
        assert!(out.contains(block), "{block}\n---\n{out}");
    }
    let early = podsim(["describe", "service/c28-probe", SERVICE, "-n", "c28", "--at", "5s"]);
    assert!(early.stdout.contains("\nEndpoints:                \n"), "{early:?}");
}

/// The Service's EndpointSlice: its labels, the ports table, the endpoint's
/// Ready condition (false before the readiness probe passes), target and node.
#[test]
fn an_endpoint_slice_as_kubectl_describes_it() {
    let name = podsim(["get", "endpointslices", SERVICE, "-n", "c28", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&name.stdout).expect("the slices as JSON");
    let slice = list["items"][0]["metadata"]["name"].as_str().expect("one slice").to_string();
    let run = podsim(["describe", &format!("endpointslice/{slice}"), SERVICE, "-n", "c28"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let out = &run.stdout;
    for block in [
        "Labels:       endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io\n              kubernetes.io/service-name=c28-probe\n",
        "AddressType:  IPv4\nPorts:\n  Name  Port   Protocol\n  ----  ----   --------\n  http  18080  TCP\n",
        "Endpoints:\n  - Addresses:  10.244.1.2\n    Conditions:\n      Ready:    true\n    Hostname:   <unset>\n    TargetRef:  Pod/c28-probe\n    NodeName:   kind-worker\n    Zone:       <unset>\nEvents:         <none>\n",
    ] {
        assert!(out.contains(block), "{block}\n---\n{out}");
    }
    let early = podsim(["describe", &format!("endpointslices/{slice}"), SERVICE, "-n", "c28", "--at", "5s"]);
    assert!(early.stdout.contains("      Ready:    false\n"), "{early:?}");
}

/// kubectl's words for a name that is not there (exit 1) and a kind it does
/// not know (bad input, exit 2); a kind without a name is bad input too.
#[test]
fn missing_objects_and_unknown_kinds() {
    let missing = podsim(["describe", "deploy/nope", ROLLOUT, "-n", "c28"]);
    assert_no_panic(&missing);
    assert_eq!(
        (missing.code, missing.stderr.as_str()),
        (Some(1), "Error from server (NotFound): deployments.apps \"nope\" not found\n")
    );
    let svc = podsim(["describe", "svc/nope", SERVICE]);
    assert_eq!(
        (svc.code, svc.stderr.as_str()),
        (Some(1), "Error from server (NotFound): services \"nope\" not found\n")
    );
    let jobs = podsim(["describe", "replicationcontrollers/x", ROLLOUT]);
    assert_bad_input(&jobs);
    assert!(
        jobs.stderr.starts_with("error: the server doesn't have a resource type \"replicationcontrollers\"\n"),
        "{jobs:?}"
    );
    for bad in ["deploy", "deploy/", "events/x", "/x", ""] {
        assert_bad_input(&podsim(["describe", bad, ROLLOUT]));
    }
}
