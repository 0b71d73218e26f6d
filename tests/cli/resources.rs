//! Requests and limits: validated as the API server validates them
//! (`ValidateResourceRequirements`), and fitted by the scheduler's
//! NodeResourcesFit into each node's allocatable (`fitsRequest`), with
//! `FitError`'s message and its queueing hint.

use super::{manifest_error, podsim};
use serde_json::Value;

#[test]
fn a_request_above_its_limit_is_the_api_servers_error() {
    manifest_error(
        "request-limit",
        "    resources:\n      limits: {cpu: 500m}\n      requests: {cpu: \"0.7\"}\n",
        "requests:",
        "spec.containers[0].resources.requests: Invalid value: \"700m\": must be less than or equal to cpu limit of 500m",
    );
    manifest_error(
        "bad-quantity",
        "    resources:\n      limits: {memory: 1GB}\n",
        "limits:",
        "spec.containers[0].resources.limits.memory: Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression",
    );
}

/// The scheduler's events of one pod, as (time, reason, message).
fn scheduling(jsonl: &[Value], pod: &str) -> Vec<(f64, String, String)> {
    (jsonl.iter())
        .filter(|v| v["type"] == "EVENT")
        .filter(|v| v["object"]["involvedObject"]["name"].as_str().is_some_and(|p| p.starts_with(pod)))
        .filter(|v| v["object"]["reason"] == "Scheduled" || v["object"]["reason"] == "FailedScheduling")
        .map(|v| {
            let s = |k: &str| v["object"][k].as_str().unwrap_or_default().to_string();
            (v["t"].as_f64().unwrap(), s("reason"), s("message"))
        })
        .collect()
}

const NO_CPU: &str = "0/1 nodes are available: 1 Insufficient cpu. \
    preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
const NO_MEMORY: &str = "0/1 nodes are available: 1 Insufficient memory. \
    preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";

/// `too-big`: one node of 4 CPUs and 16Gi. Three workers of 1500m: two fit
/// (3000m), the third does not (1500m > 4000m − 3000m), `Unschedulable`, so
/// preemption dry-runs and finds no lower priority. huge's 32Gi exceeds the
/// node's whole allocatable: unresolvable, preemption "not helpful". The
/// deleted worker's pod leaves the scheduler's cache when its phase is
/// Succeeded; NodeResourcesFit's hint requeues both pending pods, the one
/// waiting longest is bound, and the ReplicaSet's replacement is not.
#[test]
fn pods_too_big_for_the_node_wait_with_the_schedulers_reasons() {
    let run = podsim(["run", "models/scenarios/too-big.yaml", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let huge = scheduling(&lines, "huge");
    assert!(huge.len() >= 2 && huge.iter().all(|(_, r, m)| r == "FailedScheduling" && m == NO_MEMORY), "{huge:?}");
    let workers = scheduling(&lines, "worker-");
    let first: Vec<_> = workers.iter().filter(|(t, _, _)| *t < 1.0).collect();
    assert_eq!(first.iter().filter(|(_, r, _)| r == "Scheduled").count(), 2, "{first:?}");
    let failed: Vec<_> = first.iter().filter(|(_, r, _)| r == "FailedScheduling").collect();
    assert_eq!(failed.len(), 1, "{first:?}");
    assert_eq!(failed[0].2, NO_CPU);
    // The deleted worker leaves the cache at its Succeeded phase; the
    // pending worker is bound 5–30 ms later (the profile's scheduling latency).
    let succeeded = (lines.iter())
        .find(|v| v["type"] == "CHANGE" && v["change"] == "phase=Succeeded")
        .and_then(|v| v["t"].as_f64())
        .expect("the deleted worker ends Succeeded");
    let later: Vec<_> = workers.iter().filter(|(t, _, _)| *t > succeeded).collect();
    let bound: Vec<_> = later.iter().filter(|(_, r, _)| r == "Scheduled").collect();
    assert_eq!(bound.len(), 1, "{later:?}");
    assert!((0.005..=0.030).contains(&(bound[0].0 - succeeded)), "{later:?}");
    let pods = podsim(["get", "pods", "models/scenarios/too-big.yaml"]);
    let pending: Vec<&str> = pods.stdout.lines().filter(|l| l.contains("Pending")).collect();
    assert_eq!(pending.len(), 2, "huge and the replacement: {}", pods.stdout);
    assert_eq!(pods.stdout.lines().filter(|l| l.contains("1/1     Running")).count(), 2, "{}", pods.stdout);
}
