//! `podsim describe KIND/NAME` of the workload and network kinds: kubectl
//! describe's lines (describeDeployment, describeReplicaSet, describeJob,
//! describeCronJob, describeStatefulSet, describeService,
//! describeEndpointSliceV1) of the objects as they are at an instant.

use super::{assert_bad_input, assert_no_panic, podsim};

const ROLLOUT: &str = "models/scenarios/c28-bad-rollout.yaml";
const SERVICE: &str = "models/scenarios/c28-service.yaml";
const BACKOFF: &str = "models/scenarios/job-backoff-never.yaml";
const CRON: &str = "models/scenarios/cronjob-forbid.yaml";
const INDEXED: &str = "models/scenarios/job-indexed-disruption.yaml";
const STATEFUL: &str = "models/scenarios/statefulset-rollout.yaml";

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

/// The fail-never Job at 2 min, after its fourth pod failed: the spec as
/// defaulted (NonIndexed, not suspended, backoffLimit 3 as written), the
/// generated selector and labels, the start but no completion time (a
/// failed Job has none, so no Duration either), the counts of its status
/// (`ready` written, so `(0 Ready)`), and the Job controller's events: one
/// SuccessfulCreate a pod, then BackoffLimitExceeded.
#[test]
fn a_failed_job_as_kubectl_describes_it() {
    let run = podsim(["describe", "job/fail-never", BACKOFF, "--at", "2m"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let out = &run.stdout;
    let uid = out.lines().nth(2).and_then(|l| l.strip_prefix("Selector:         ")).expect("the selector");
    assert!(uid.starts_with("batch.kubernetes.io/controller-uid="), "{out}");
    for block in [
        "Name:             fail-never\nNamespace:        default\n".to_string(),
        format!("Labels:           {uid}\n                  batch.kubernetes.io/job-name=fail-never\n"),
        "Annotations:      <none>\nParallelism:      1\nCompletions:      1\nCompletion Mode:  NonIndexed\nSuspend:          false\nBackoff Limit:    3\nStart Time:       Thu, 01 Jan 2026 00:00:00 +0000\nPods Statuses:    0 Active (0 Ready) / 0 Succeeded / 4 Failed\nPod Template:\n".into(),
        "Events:\n  Type     Reason                Age   From            Message\n  ----     ------                ----  ----            -------\n  Normal   SuccessfulCreate      2m    job-controller  Created pod: fail-never-dnvdg\n  Normal   SuccessfulCreate      101s  job-controller  Created pod: fail-never-sq5zk\n  Normal   SuccessfulCreate      78s   job-controller  Created pod: fail-never-chvd2\n  Normal   SuccessfulCreate      35s   job-controller  Created pod: fail-never-rwk7v\n  Warning  BackoffLimitExceeded  30s   job-controller  Job has reached the specified backoff limit\n".into(),
    ] {
        assert!(out.contains(&block), "{block}\n---\n{out}");
    }
    assert!(!out.contains("Completed At") && !out.contains("Duration") && !out.contains("Completed Indexes"), "{out}");
}

/// A CronJob's Jobs: controlled by it, with the scheduled-timestamp
/// annotation; the 00:01 run once complete has its Completed At and the
/// Duration between the two (162 s − 60 s, second-truncated), while the
/// late 00:02 run is still active, its pod Ready. An Indexed Job adds its
/// Completed Indexes.
#[test]
fn jobs_of_a_cron_job_and_an_indexed_job_as_kubectl_describes_them() {
    let done = podsim(["describe", "job/report-29453761", CRON, "--at", "200s"]);
    assert_eq!(done.code, Some(0), "{done:?}");
    assert!(
        done.stdout.contains("Annotations:      batch.kubernetes.io/cronjob-scheduled-timestamp: 2026-01-01T00:01:00Z\nControlled By:    CronJob/report\n"),
        "{done:?}"
    );
    assert!(
        done.stdout.contains("Backoff Limit:    6\nStart Time:       Thu, 01 Jan 2026 00:01:00 +0000\nCompleted At:     Thu, 01 Jan 2026 00:02:42 +0000\nDuration:         102s\nPods Statuses:    0 Active (0 Ready) / 1 Succeeded / 0 Failed\n"),
        "{done:?}"
    );
    assert!(done.stdout.ends_with("  Normal  Completed         38s    job-controller  Job completed\n"), "{done:?}");
    let late = podsim(["describe", "jobs/report-29453762", CRON, "--at", "200s"]);
    assert!(
        late.stdout.contains("Pods Statuses:    1 Active (1 Ready) / 0 Succeeded / 0 Failed\nPod Template:\n"),
        "{late:?}"
    );
    let indexed = podsim(["describe", "job/sweep", INDEXED]);
    assert_eq!(indexed.code, Some(0), "{indexed:?}");
    assert!(
        indexed.stdout.contains("Parallelism:        2\nCompletions:        4\nCompletion Mode:    Indexed\nSuspend:            false\nBackoff Limit:      2147483647\n"),
        "{indexed:?}"
    );
    assert!(
        indexed.stdout.contains("Pods Statuses:      0 Active (0 Ready) / 3 Succeeded / 1 Failed\nCompleted Indexes:  0,2,3\nPod Template:\n"),
        "{indexed:?}"
    );
}

/// The Forbid CronJob at 150 s: its defaulted policies and history limits,
/// the Job template with nothing defaulted (`<unset>`: the API server
/// defaults only the Jobs made from it), the 00:01 tick as the last
/// schedule, its Job active, and the 00:02 tick refused (JobAlreadyActive).
/// Before its first tick: no schedule, no active Job, no event.
#[test]
fn a_cron_job_as_kubectl_describes_it() {
    let run = podsim(["describe", "cronjob/report", CRON, "--at", "150s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let out = &run.stdout;
    for block in [
        "Name:                          report\nNamespace:                     default\nLabels:                        <none>\nAnnotations:                   <none>\nSchedule:                      */1 * * * *\nConcurrency Policy:            Forbid\nSuspend:                       False\nTime Zone:                     <unset>\nSuccessful Job History Limit:  3\nFailed Job History Limit:      1\nStarting Deadline Seconds:     <unset>\nSelector:                      <unset>\nParallelism:                   <unset>\nCompletions:                   <unset>\nPod Template:\n  Labels:  <none>\n  Containers:\n   report:\n    Image:      busybox:1.36\n",
        "  Tolerations:       <none>\nLast Schedule Time:  Thu, 01 Jan 2026 00:01:00 +0000\nActive Jobs:         report-29453761\n",
        "  Normal  SuccessfulCreate  90s   cronjob-controller  Created job report-29453761\n  Normal  JobAlreadyActive  30s   cronjob-controller  Not starting job because prior execution is running and concurrency policy is Forbid\n",
    ] {
        assert!(out.contains(block), "{block}\n---\n{out}");
    }
    let early = podsim(["describe", "cj/report", CRON, "--at", "50s"]);
    assert!(
        early
            .stdout
            .ends_with("Last Schedule Time:  <unset>\nActive Jobs:         <none>\nEvents:              <none>\n"),
        "{early:?}"
    );
}

/// The StatefulSet at 61 s, a second into the partitioned rollout: `N
/// desired | M total`, the defaulted RollingUpdate with the partition under
/// it, the pods by phase (the old web-2 has ended, Succeeded, its
/// replacement not yet created), the new template, the claim template
/// (no class written, kubectl's `[ReadWriteOnce]`), the controller's events.
/// At the end the partition is 0 and every pod runs again.
#[test]
fn a_stateful_set_as_kubectl_describes_it() {
    let run = podsim(["describe", "sts/web", STATEFUL, "--at", "61s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let out = &run.stdout;
    for block in [
        "Name:               web\nNamespace:          default\nCreationTimestamp:  Thu, 01 Jan 2026 00:00:00 +0000\nSelector:           app=nginx\nLabels:             <none>\nAnnotations:        <none>\nReplicas:           3 desired | 3 total\nUpdate Strategy:    RollingUpdate\n  Partition:        1\nPods Status:        2 Running / 0 Waiting / 1 Succeeded / 0 Failed\nPod Template:\n  Labels:  app=nginx\n",
        "    Image:        nginx:1.28\n",
        "Volume Claims:\n  Name:          www\n  StorageClass:  \n  Labels:        <none>\n  Annotations:   <none>\n  Capacity:      1Gi\n  Access Modes:  [ReadWriteOnce]\nEvents:\n",
        "  Normal  SuccessfulCreate  48s   statefulset-controller  create Pod web-2 in StatefulSet web successful\n  Normal  SuccessfulDelete  1s    statefulset-controller  delete Pod web-2 in StatefulSet web successful\n",
    ] {
        assert!(out.contains(block), "{block}\n---\n{out}");
    }
    let end = podsim(["describe", "statefulset/web", STATEFUL]);
    assert!(
        end.stdout
            .contains("  Partition:        0\nPods Status:        3 Running / 0 Waiting / 0 Succeeded / 0 Failed\n"),
        "{end:?}"
    );
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
    let events = podsim(["describe", "events/x", ROLLOUT]);
    assert_bad_input(&events);
    assert!(
        events.stderr.starts_with("error: resource \"events/x\": podsim describes pods, deployments, replicasets, statefulsets, daemonsets, jobs, cronjobs, services and endpointslices\n"),
        "{events:?}"
    );
    let job = podsim(["describe", "job/nope", CRON]);
    assert_eq!(
        (job.code, job.stderr.lines().last()),
        (Some(1), Some("Error from server (NotFound): jobs.batch \"nope\" not found"))
    );
    for bad in ["deploy", "deploy/", "/x", ""] {
        assert_bad_input(&podsim(["describe", bad, ROLLOUT]));
    }
}
