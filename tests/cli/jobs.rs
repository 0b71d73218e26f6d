//! Jobs: the Job controller's pod re-creation back-off, its two back-off
//! limits, and an Indexed Job's per-index limit and pod failure policy, at
//! the times and counts pkg/controller/job gives.

use super::podsim;
use serde_json::Value;

/// What the JSONL of a run says about a Job and its pods.
#[derive(Default, Debug)]
struct Seen {
    /// (t, name, completion index) of each pod created.
    created: Vec<(f64, String, Option<u32>)>,
    /// (t, pod) of each container process exit, with its code.
    exits: Vec<(f64, String, i64)>,
    /// (t, condition type, reason) of each Job condition as it first appears.
    conditions: Vec<(f64, String, String)>,
    /// The Job's last status.
    status: Value,
}

fn seen(scenario: &str) -> Seen {
    let run = podsim(["run", scenario, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let mut s = Seen::default();
    for v in run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let t = v["t"].as_f64().unwrap_or(-1.0);
        let o = &v["object"];
        match (v["type"].as_str(), o["kind"].as_str()) {
            (Some("ADDED"), Some("Pod")) => {
                let index = o["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"].as_str();
                let name = o["metadata"]["name"].as_str().unwrap_or_default().to_string();
                s.created.push((t, name, index.and_then(|i| i.parse().ok())));
            }
            (Some("PROCESS"), _) if v["fact"] == "exited" => {
                s.exits.push((t, v["pod"].as_str().unwrap_or_default().into(), v["code"].as_i64().unwrap_or(-1)))
            }
            (Some(_), Some("Job")) => {
                for c in o["status"]["conditions"].as_array().into_iter().flatten() {
                    let kind = c["type"].as_str().unwrap_or_default().to_string();
                    if !s.conditions.iter().any(|(_, k, _)| *k == kind) {
                        s.conditions.push((t, kind, c["reason"].as_str().unwrap_or_default().into()));
                    }
                }
                s.status = o["status"].clone();
            }
            _ => {}
        }
    }
    s
}

impl Seen {
    /// When the pod's (only) container first exited, to the second its
    /// `finishedAt` keeps: where the back-off counts from (`getFinishedTime`).
    fn finished(&self, pod: &str) -> f64 {
        let exit = self.exits.iter().find(|(_, p, _)| p == pod).unwrap_or_else(|| panic!("{pod} never exited"));
        exit.0.floor()
    }
    fn condition(&self, kind: &str) -> Option<(f64, &str)> {
        self.conditions.iter().find(|(_, k, _)| k == kind).map(|(t, _, r)| (*t, r.as_str()))
    }
}

/// `job-backoff-never.yaml`: restartPolicy Never, backoffLimit 3. The
/// n-th replacement is created 10·2^(n−1) s after the previous pod finished
/// (plus the create call's latency, well under a second); the fourth
/// failure exceeds the limit (failed 4 > 3): FailureTarget, then Failed in
/// the same sync, both BackoffLimitExceeded, and no fifth pod.
#[test]
fn never_replaces_each_failed_pod_after_a_doubling_back_off_until_the_limit() {
    let s = seen("models/scenarios/job-backoff-never.yaml");
    assert_eq!(s.created.len(), 4, "backoffLimit 3: four pods, {:?}", s.created);
    for (n, pair) in s.created.windows(2).enumerate() {
        let due = s.finished(&pair[0].1) + 10.0 * f64::powi(2.0, n as i32);
        let created = pair[1].0;
        assert!(created >= due && created < due + 1.0, "pod {} created at {created}, due at {due}", n + 2);
    }
    let (target, reason) = s.condition("FailureTarget").expect("FailureTarget");
    assert_eq!(reason, "BackoffLimitExceeded");
    let (failed, reason) = s.condition("Failed").expect("Failed");
    assert_eq!(reason, "BackoffLimitExceeded");
    let last = s.finished(&s.created[3].1);
    assert!(target > last && target <= failed && failed < last + 5.0, "{target} {failed} after {last}");
    assert_eq!((s.status["failed"].as_i64(), s.status["active"].as_i64()), (Some(4), None));
    assert!(s.status["completionTime"].is_null(), "a failed Job has no completionTime");
}

/// `job-backoff-onfailure.yaml`: restartPolicy OnFailure, backoffLimit 3.
/// One pod: the kubelet restarts its container; once the restarts reach 3
/// (`pastBackoffLimitOnFailure`: the sum over Pending and Running pods ≥
/// the limit) the controller sets FailureTarget and deletes the pod, which
/// counts as failed (failed 1); Failed waits until no pod is terminating.
#[test]
fn on_failure_stops_when_the_restarts_reach_the_limit_and_fails_once_the_pod_is_gone() {
    let s = seen("models/scenarios/job-backoff-onfailure.yaml");
    assert_eq!(s.created.len(), 1, "the kubelet restarts the container in place");
    let pod = &s.created[0].1;
    let exits: Vec<f64> = s.exits.iter().filter(|(_, p, _)| p == pod).map(|(t, ..)| *t).collect();
    let (target, reason) = s.condition("FailureTarget").expect("FailureTarget");
    assert_eq!(reason, "BackoffLimitExceeded");
    assert!(exits.len() >= 3 && exits[2] < target, "three exits (restarts 1–3) before FailureTarget: {exits:?}");
    let (failed, _) = s.condition("Failed").expect("Failed");
    assert!(failed > target, "Failed waits for the deleted pod to terminate");
    assert_eq!(s.status["failed"].as_i64(), Some(1), "the deleted pod counts as one failure");
}

/// `job-indexed-disruption.yaml`: index 1 exits 42 (FailIndex: failed at
/// once, never retried); index 0's pod, evicted at 15 s, fails with
/// DisruptionTarget, which the policy ignores: its replacement comes 10 s
/// after the evicted pod finished (the per-index back-off of an absolute
/// count of 0 + 1), with `job-index-ignored-failure-count` 1. Indexes 2 and
/// 3 start as earlier ones end (parallelism 2). The Job fails with
/// FailedIndexes when every index is done or failed: completed 0,2,3,
/// failed 1, one failure counted (the ignored one is not).
#[test]
fn an_indexed_job_fails_an_index_on_exit_42_and_ignores_a_disruption() {
    let s = seen("models/scenarios/job-indexed-disruption.yaml");
    let of = |i: u32| -> Vec<&(f64, String, Option<u32>)> { s.created.iter().filter(|c| c.2 == Some(i)).collect() };
    assert_eq!((of(0).len(), of(1).len(), of(2).len(), of(3).len()), (2, 1, 1, 1));
    let due = s.finished(&of(0)[0].1) + 10.0;
    assert!(of(0)[1].0 >= due && of(0)[1].0 < due + 1.0, "index 0 retried at {}, due {due}", of(0)[1].0);
    assert!(s.exits.iter().any(|(_, p, code)| *p == of(1)[0].1 && *code == 42));
    assert_eq!(s.condition("FailureTarget").map(|c| c.1), Some("FailedIndexes"));
    assert_eq!(s.condition("Failed").map(|c| c.1), Some("FailedIndexes"));
    assert_eq!(s.status["completedIndexes"], "0,2,3");
    assert_eq!(s.status["failedIndexes"], "1");
    assert_eq!((s.status["succeeded"].as_i64(), s.status["failed"].as_i64()), (Some(3), Some(1)));
}
