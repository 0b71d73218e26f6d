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

const INDEXED: &str = "apiVersion: batch/v1
kind: Job
metadata: {name: shards}
spec:
  completions: 3
  parallelism: 3
  completionMode: Indexed
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: worker, image: registry.example/worker:1}
";

/// A behaviour entry `worker[1]` describes only index 1's pod: it exits 3
/// at 2 s while the other indexes would run 5 s. With backoffLimit 0 that
/// one failure fails the Job (failed 1 > 0): the two pods still running are
/// deleted (they exit 0 on SIGTERM) and, the Job failing, count as failed
/// too (`trackJobStatusAndRemoveFinalizers`): failed 3.
#[test]
fn a_behaviour_entry_can_describe_some_indexes() {
    let dir = super::TempDir::new("indexed-behaviour");
    let job = dir.write("job.yaml", INDEXED);
    let app = dir.write(
        "app.yaml",
        "containers:\n  worker: {exit: {after: 5s, code: 0}}\n  'worker[1]': {exit: {after: 2s, code: 3}}\n",
    );
    let run = podsim(["run", "-f", &job, "--app", &app, "--until", "60s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let mut exits: Vec<(String, i64)> = Vec::new();
    let mut last = Value::Null;
    for v in run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        if v["type"] == "PROCESS" && v["fact"] == "exited" {
            exits.push((v["pod"].as_str().unwrap_or_default().into(), v["code"].as_i64().unwrap_or(-1)));
        }
        if v["object"]["kind"] == "Job" {
            last = v["object"]["status"].clone();
        }
    }
    let code_of = |index: &str| exits.iter().find(|(p, _)| p.starts_with(&format!("shards-{index}-"))).map(|e| e.1);
    assert_eq!((code_of("0"), code_of("1"), code_of("2")), (Some(0), Some(3), Some(0)), "{exits:?}");
    let conditions: Vec<&str> =
        last["conditions"].as_array().into_iter().flatten().filter_map(|c| c["type"].as_str()).collect();
    assert_eq!(conditions, ["FailureTarget", "Failed"]);
    assert_eq!(last["failed"].as_i64(), Some(3));
}

/// A malformed index list in a behaviour entry is an error at its key.
#[test]
fn a_bad_index_list_in_a_behaviour_entry_is_refused() {
    let dir = super::TempDir::new("indexed-behaviour-bad");
    let job = dir.write("job.yaml", INDEXED);
    let app = dir.write("app.yaml", "containers:\n  'worker[2-1]': {exit: {after: 2s}}\n");
    let run = podsim(["run", "-f", &job, "--app", &app]);
    super::assert_bad_input(&run);
    assert!(run.stderr.contains("an entry for some pods of an Indexed Job is NAME[INDEXES]"), "{run:?}");
}

/// Trace 018's job4: `completions: 2`, parallelism 1: the second pod is
/// created only after the first succeeded (`manageJob` wants
/// min(2 − succeeded, 1) pods), with no back-off (no failure); then
/// SuccessCriteriaMet and Complete (CompletionsReached), `completionTime`
/// equal to Complete's time, COMPLETIONS 2/2.
#[test]
fn completions_run_one_after_the_other_and_complete() {
    let dir = super::TempDir::new("completions");
    let job = dir.write(
        "job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: job4}\nspec:\n  completions: 2\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - {name: main, image: busybox:1.36, command: [sh, -c, sleep 10]}\n",
    );
    let run = podsim(["run", "-f", &job, "--until", "90s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let (mut created, mut succeeded, mut last) = (Vec::new(), Vec::new(), Value::Null);
    for v in run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let o = &v["object"];
        if v["type"] == "ADDED" && o["kind"] == "Pod" {
            created.push(v["t"].as_f64().unwrap_or(-1.0));
        }
        if o["kind"] == "Pod" && o["status"]["phase"] == "Succeeded" {
            let name = o["metadata"]["name"].as_str().unwrap_or_default().to_string();
            if !succeeded.iter().any(|(n, _)| *n == name) {
                succeeded.push((name, v["t"].as_f64().unwrap_or(-1.0)));
            }
        }
        if o["kind"] == "Job" {
            last = o["status"].clone();
        }
    }
    assert_eq!(created.len(), 2, "one pod at a time, two completions");
    assert!(created[1] > succeeded[0].1, "the second pod comes after the first succeeded");
    let conditions: Vec<(&str, &str)> = (last["conditions"].as_array().into_iter().flatten())
        .map(|c| (c["type"].as_str().unwrap_or(""), c["reason"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(conditions, [("SuccessCriteriaMet", "CompletionsReached"), ("Complete", "CompletionsReached")]);
    let complete_at = &last["conditions"][1]["lastTransitionTime"];
    assert_eq!(&last["completionTime"], complete_at);
    assert_eq!(last["succeeded"].as_i64(), Some(2));
    let get = podsim(["get", "jobs", "-f", &job, "--until", "90s"]);
    assert!(get.stdout.lines().nth(1).is_some_and(|l| l.starts_with("job4   Complete   2/2 ")), "{get:?}");
}

/// The API server's validation: a Job's pods may not restart Always; an
/// Indexed Job needs completions (here parallelism is set, so
/// `SetDefaults_Job` does not default completions to 1); a selector is
/// generated unless asked for.
#[test]
fn jobs_are_validated_as_the_api_server_does() {
    let dir = super::TempDir::new("job-validation");
    let job = dir.write(
        "job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: bad}\nspec:\n  completionMode: Indexed\n  parallelism: 2\n  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n    spec:\n      containers:\n      - {name: main, image: busybox:1.36}\n",
    );
    let run = podsim(["run", "-f", &job]);
    super::assert_bad_input(&run);
    for expected in [
        "spec.completions: Required value: when completion mode is Indexed",
        "spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"",
        "spec.selector: Invalid value:",
        "`selector` not auto-generated",
    ] {
        assert!(run.stderr.contains(expected), "{expected}\n{run:?}");
    }
}

/// `ttlSecondsAfterFinished: 30`: the TTL-after-finished controller deletes
/// the Job 30 s after its Complete condition's time (to the second), in the
/// foreground: the Job shows `foregroundDeletion`, the garbage collector
/// deletes its finished pod (grace 0: it is removed at once), then the
/// Job goes.
#[test]
fn a_finished_job_is_deleted_after_its_ttl_with_its_pods() {
    let dir = super::TempDir::new("ttl");
    let job = dir.write(
        "job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: hello}\nspec:\n  ttlSecondsAfterFinished: 30\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - {name: main, image: busybox:1.36, command: [sh, -c, sleep 5]}\n",
    );
    let run = podsim(["run", "-f", &job, "--until", "90s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let (mut complete, mut deleting, mut pod_gone, mut job_gone) = (None, None, None, None);
    for v in run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let (t, o) = (v["t"].as_f64().unwrap_or(-1.0), &v["object"]);
        match (v["type"].as_str(), o["kind"].as_str()) {
            (Some("DELETED"), Some("Pod")) => pod_gone = Some(t),
            (Some("DELETED"), Some("Job")) => job_gone = Some(t),
            (_, Some("Job")) => {
                let has_complete =
                    o["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == "Complete");
                if has_complete && complete.is_none() {
                    complete = Some(t);
                }
                if o["metadata"]["deletionTimestamp"].is_string() && deleting.is_none() {
                    assert_eq!(o["metadata"]["finalizers"][0], "foregroundDeletion");
                    deleting = Some(t);
                }
            }
            _ => {}
        }
    }
    let (complete, deleting) = (complete.expect("Complete"), deleting.expect("deleted by its TTL"));
    let due = complete.floor() + 30.0;
    assert!(deleting >= due && deleting < due + 1.0, "deleted at {deleting}, due at {due}");
    let (pod_gone, job_gone) = (pod_gone.expect("the pod collected"), job_gone.expect("the Job gone"));
    assert!(deleting < pod_gone && pod_gone < job_gone, "{deleting} {pod_gone} {job_gone}");
}

/// `cronjob-forbid.yaml` (epoch 2026-01-01T00:00:00Z, Unix minute
/// 29453760; a tick every minute, runs of 90 s, Forbid). The controller
/// syncs 100 ms after each tick and names each Job `<cronjob>-<tick's Unix
/// minute>` (`getJobName`); a tick while a run is active starts nothing
/// (JobAlreadyActive), but stays unmet (lastScheduleTime does not move), so
/// it starts as soon as the run completes (no startingDeadlineSeconds);
/// the ticks passed meanwhile are skipped: only the most recent is run
/// (`mostRecentScheduleTime`). So: 00:01 at 60.1 s; 00:02 late, when
/// 00:01's Job completes; 00:03 never; 00:04 when 00:02's completes.
#[test]
fn a_forbid_cronjob_skips_ticks_while_a_run_is_active_and_starts_the_last_one_late() {
    let run = podsim(["run", "models/scenarios/cronjob-forbid.yaml", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let (mut created, mut completed, mut last_schedule) = (Vec::new(), Vec::new(), Value::Null);
    for v in run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let (t, o) = (v["t"].as_f64().unwrap_or(-1.0), &v["object"]);
        match (v["type"].as_str(), o["kind"].as_str()) {
            (Some("ADDED"), Some("Job")) => {
                let name = o["metadata"]["name"].as_str().unwrap_or_default().to_string();
                let at = o["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"].clone();
                created.push((t, name, at));
            }
            (_, Some("Job")) => {
                let name = o["metadata"]["name"].as_str().unwrap_or_default().to_string();
                let done = o["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == "Complete");
                if done && !completed.iter().any(|(_, n)| *n == name) {
                    completed.push((t, name));
                }
            }
            (_, Some("CronJob")) => last_schedule = o["status"]["lastScheduleTime"].clone(),
            _ => {}
        }
    }
    let names: Vec<&str> = created.iter().map(|(_, n, _)| n.as_str()).collect();
    assert_eq!(names, ["report-29453761", "report-29453762", "report-29453764"]);
    assert_eq!(created[1].2, "2026-01-01T00:02:00Z");
    assert!(created[0].0 >= 60.1 && created[0].0 < 61.0, "the 00:01 run at {}", created[0].0);
    for (k, (t, name)) in completed.iter().take(2).enumerate() {
        let next = created[k + 1].0;
        assert!(next > *t && next < t + 1.0, "{name} completed at {t}, the next run created at {next}");
    }
    assert_eq!(last_schedule, "2026-01-01T00:04:00Z");
}

/// `podsim check` judges a recorded Job by its objects: trace 019's
/// fail-never Job, recorded as a watch of its objects, holds both rules
/// (three replacements, each after its back-off); the same watch with the
/// second pod's creationTimestamp 3 s after the first pod's finishedAt
/// (the back-off asks 10 s: `getRemainingTimeForFailuresCount` with one
/// failure) is a violation, exit 1.
#[test]
fn check_judges_a_recorded_jobs_replacements_against_the_backoff() {
    use k8s_openapi::jiff::{Timestamp, ToSpan};
    let run = podsim(["run", "models/scenarios/job-backoff-never.yaml", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let dir = super::TempDir::new("check-job");
    let holds = podsim(["check", &dir.write("watch.jsonl", &run.stdout)]);
    assert_eq!(holds.code, Some(0), "{holds:?}");
    assert!(
        holds.stdout.contains("holds     job-replacement-backoff              checked 3 times"),
        "{}",
        holds.stdout
    );
    assert!(holds.stdout.contains("holds     job-parallelism"), "{}", holds.stdout);

    let mut lines: Vec<Value> = run.stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let pods: Vec<String> = {
        let mut uids = Vec::new();
        for v in lines.iter().filter(|v| v["object"]["kind"] == "Pod") {
            let uid = v["object"]["metadata"]["uid"].as_str().unwrap_or_default().to_string();
            if !uids.contains(&uid) {
                uids.push(uid);
            }
        }
        uids
    };
    let finished = lines
        .iter()
        .filter(|v| v["object"]["metadata"]["uid"] == pods[0].as_str())
        .filter_map(|v| v["object"]["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"].as_str())
        .next()
        .expect("the first pod's container finished");
    let early = finished.parse::<Timestamp>().unwrap() + 3.seconds();
    for v in lines.iter_mut().filter(|v| v["object"]["metadata"]["uid"] == pods[1].as_str()) {
        v["object"]["metadata"]["creationTimestamp"] = Value::from(early.to_string());
    }
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    let broken = podsim(["check", &dir.write("broken.jsonl", &text.join("\n"))]);
    assert_eq!(broken.code, Some(1), "{broken:?}");
    let expected = format!("created at or after {} (1 failure(s) since the last success", early + 7.seconds());
    assert!(broken.stdout.contains("VIOLATED  job-replacement-backoff"), "{}", broken.stdout);
    assert!(broken.stdout.contains(&expected), "{expected} in {}", broken.stdout);
}

/// Recorded rows count too, matched to the Job by name: trace 032's
/// Indexed Job (parallelism 2) listed once, and trace 017's OnFailure Job
/// watched (its `Error` rows are a container restarting in the pod, still
/// active); the back-off is not judged on either, and says why.
#[test]
fn check_counts_a_jobs_pods_from_kubectl_rows() {
    let indexed = podsim([
        "check",
        "tests/traces/032-indexed-job-backofflimitperindex-failindex-docs/get-pods.txt",
        "tests/traces/032-indexed-job-backofflimitperindex-failindex-docs/spec.yaml",
    ]);
    assert_eq!(indexed.code, Some(0), "{indexed:?}");
    let out = &indexed.stdout;
    assert!(out.contains("(Job job-backoff-limit-per-index-failindex) (5 pod(s))"), "{out}");
    assert!(out.contains("holds     job-parallelism                      checked 5 times"), "{out}");
    assert!(out.contains("the Job's parallelism is not 1"), "{out}");
    let watched = podsim([
        "check",
        "tests/traces/017-job-onfailure-backofflimit2-watch/watch-pods.txt",
        "tests/traces/017-job-onfailure-backofflimit2-watch/spec-job3.yaml",
    ]);
    assert_eq!(watched.code, Some(0), "{watched:?}");
    assert!(watched.stdout.contains("(Job job3) (1 pod(s))"), "{}", watched.stdout);
    assert!(
        watched.stdout.contains("holds     job-parallelism                      checked 10 times"),
        "{}",
        watched.stdout
    );
    assert!(
        watched.stdout.contains("restartPolicy OnFailure: failed containers restart in their pod"),
        "{}",
        watched.stdout
    );
}

/// Two pods of a parallelism-1 Job running at once, as rows: a violation
/// that names the row.
#[test]
fn check_finds_more_active_pods_than_parallelism_in_rows() {
    let dir = super::TempDir::new("check-job-rows");
    let spec = dir.write(
        "job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: pi, image: perl}]\n",
    );
    let rows = dir.write(
        "watch.txt",
        "NAME       READY   STATUS              RESTARTS   AGE\npi-abcde   0/1     ContainerCreating   0          1s\npi-abcde   1/1     Running             0          3s\npi-fghjk   0/1     Pending             0          0s\n",
    );
    let run = podsim(["check", &rows, &spec]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("VIOLATED  job-parallelism"), "{}", run.stdout);
    assert!(run.stdout.contains("expected at most 1 active pod(s) (parallelism)"), "{}", run.stdout);
    assert!(run.stdout.contains("watch.txt:4"), "{}", run.stdout);
}

/// Each object's ADDED and DELETED records of a run: (ms, watch type, kind, name).
fn writes(args: &[&str]) -> Vec<(u64, String, String, String)> {
    let mut all = vec!["run"];
    all.extend(args);
    all.extend(["-o", "jsonl"]);
    let run = podsim(all);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines = run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok());
    lines
        .filter(|v| matches!(v["type"].as_str(), Some("ADDED" | "DELETED")))
        .map(|v| {
            let text = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
            let ms = (v["t"].as_f64().unwrap_or(-1.0) * 1000.0).round() as u64;
            (ms, text("/type"), text("/object/kind"), text("/object/metadata/name"))
        })
        .collect()
}

/// The times of the writes of one watch type and kind.
fn times(w: &[(u64, String, String, String)], ty: &str, kind: &str) -> Vec<u64> {
    w.iter().filter(|(_, t, k, _)| t == ty && k == kind).map(|(ms, ..)| *ms).collect()
}

/// `kubectl delete job/fail-never` while its first pod runs: the Job goes
/// at once, no pod is created after it, and the garbage collector deletes
/// the pod (its tracking finalizer removed by the Job controller, which
/// sees the Job gone: `syncOrphanPod`).
#[test]
fn deleting_a_running_job_deletes_its_pod_and_replaces_nothing() {
    let w = writes(&["models/scenarios/job-backoff-never.yaml", "--delete", "job/fail-never@8s", "--until", "60s"]);
    assert_eq!(times(&w, "DELETED", "Job"), [8_000]);
    assert_eq!(times(&w, "ADDED", "Pod").len(), 1, "no replacement: {w:?}");
    let gone = times(&w, "DELETED", "Pod");
    assert!(gone.len() == 1 && gone[0] > 8_000, "{w:?}");
}

/// `kubectl delete cronjob/report` while its first Job runs: the garbage
/// collector deletes that Job, then its pod; no Job is created after.
#[test]
fn deleting_a_cronjob_deletes_its_jobs_and_their_pods() {
    let w = writes(&["models/scenarios/cronjob-forbid.yaml", "--delete", "cronjob/report@100s", "--until", "300s"]);
    assert_eq!(times(&w, "DELETED", "CronJob"), [100_000]);
    let jobs: Vec<&str> = (w.iter().filter(|(_, t, k, _)| t == "ADDED" && k == "Job")).map(|x| x.3.as_str()).collect();
    assert_eq!(jobs, ["report-29453761"], "no Job after the delete");
    let job_gone = times(&w, "DELETED", "Job");
    assert!(job_gone.len() == 1 && job_gone[0] > 100_000, "{w:?}");
    let pod_gone = times(&w, "DELETED", "Pod");
    assert!(pod_gone.len() == 1 && pod_gone[0] > job_gone[0], "the pod after its Job: {w:?}");
}
