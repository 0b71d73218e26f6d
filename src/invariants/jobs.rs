//! Rules of the Job controller, judged per Job on a recording or a podsim
//! run: its active pods never outnumber its parallelism, and a pod that
//! replaces failed ones comes after the back-off. A Job is known by its
//! object (a manifest, `kubectl get job -o yaml`, a podsim run); its pods by
//! their controller reference, else their `job-name` label, else their name
//! (`<job>-<5 letters>`, `<job>-<index>-<5 letters>`), so that `kubectl get
//! pods -w` rows count too. Written apart from the controller's code.

use super::pod::secs;
use super::report::{ControllerReport, Tally};
use super::{Invariant, Scope, inv};
use crate::observe::{Origin, PodRow, Record};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use std::collections::BTreeMap;

/// The Job rules.
pub const JOB_RULES: &[Invariant] = &[
    inv(
        "job-parallelism",
        "a Job never has more active pods (not finished, not being deleted) than its parallelism (on kubectl rows: a pod counts as active by its STATUS; one whose STATUS does not say is not counted)",
        "pkg/controller/job/job_controller.go manageJob (wantActive ≤ parallelism; expectations before each create)",
        Scope::Sequence,
    ),
    inv(
        "job-replacement-backoff",
        "a pod of a Job of parallelism 1 (NonIndexed, restartPolicy Never, no pod failure policy) that follows n failed pods since the last success is created no sooner than 10 s · 2^(n−1) (at most 10 min) after the last one finished (getFinishedTime, to the second); judged on Pod objects, whose timestamps say when",
        "pkg/controller/job/backoff_utils.go getRemainingTimeForFailuresCount, getFinishedTime; job_controller.go manageJob",
        Scope::Sequence,
    ),
];

/// What the rules read of a Job object.
struct JobSpec {
    parallelism: u32,
    /// Why the back-off rule does not apply (it does to parallelism 1,
    /// NonIndexed, Never, no pod failure policy).
    not_sequential: Option<&'static str>,
    /// `restartPolicy: Never`: a container that failed leaves its pod Failed.
    never: bool,
}

impl JobSpec {
    fn of(j: &Job) -> Self {
        let spec = j.spec.as_ref();
        let parallelism = spec.and_then(|s| s.parallelism).unwrap_or(1).max(0) as u32;
        let indexed = spec.and_then(|s| s.completion_mode.as_deref()) == Some("Indexed");
        let policy = spec.is_some_and(|s| s.pod_failure_policy.is_some());
        let restart = spec.and_then(|s| s.template.spec.as_ref()).and_then(|p| p.restart_policy.as_deref());
        let never = restart != Some("OnFailure");
        let not_sequential = match () {
            _ if parallelism != 1 => {
                Some("the Job's parallelism is not 1: its pods do not replace one another in turn")
            }
            _ if indexed => Some("an Indexed Job: each index backs off by its own failures"),
            _ if policy => Some("a pod failure policy decides which failures count"),
            _ if !never => Some("restartPolicy OnFailure: failed containers restart in their pod"),
            _ => None,
        };
        JobSpec { parallelism, not_sequential, never }
    }
}

/// A pod as one record shows it.
enum Seen {
    Object {
        uid: String,
        /// The Job its controller reference or `job-name` label names.
        job: Option<String>,
        active: bool,
        failed: bool,
        succeeded: bool,
        created: Option<i64>,
        finished: Option<i64>,
    },
    Row {
        status: String,
    },
}

struct PodRecord {
    namespace: Option<String>,
    name: String,
    seen: Seen,
    origin: Origin,
}

/// Every Job object and Job-like pod record of the input, judged once all
/// are read (a manifest may come after the watch of its pods).
#[derive(Default)]
pub struct Jobs {
    specs: BTreeMap<(String, String), JobSpec>,
    pods: Vec<PodRecord>,
}

impl Jobs {
    pub fn observe_job(&mut self, j: &Job) {
        let namespace = j.metadata.namespace.clone().unwrap_or_else(|| "default".into());
        let Some(name) = j.metadata.name.clone() else { return };
        self.specs.insert((namespace, name), JobSpec::of(j));
    }

    pub fn observe_pod(&mut self, r: &Record, p: &Pod) {
        let meta = &p.metadata;
        let Some(name) = meta.name.clone() else { return };
        let owner = meta.owner_references.iter().flatten().find(|o| o.controller == Some(true));
        let label = |k: &str| meta.labels.as_ref().and_then(|l| l.get(k)).cloned();
        let job = match owner {
            Some(o) if o.kind == "Job" => Some(o.name.clone()),
            Some(_) => return,
            None => label("batch.kubernetes.io/job-name").or_else(|| label("job-name")),
        };
        let status = p.status.as_ref();
        let phase = status.and_then(|s| s.phase.as_deref()).unwrap_or("Pending");
        let gone = r.watch.as_deref() == Some("DELETED");
        let deleting = gone || meta.deletion_timestamp.is_some();
        let seen = Seen::Object {
            uid: meta.uid.clone().unwrap_or_else(|| name.clone()),
            job,
            active: !deleting && !matches!(phase, "Succeeded" | "Failed"),
            // `isPodFailed` with the default replacement policy: a deleted pod that did not succeed failed.
            failed: phase == "Failed" || (deleting && phase != "Succeeded"),
            succeeded: phase == "Succeeded",
            created: meta.creation_timestamp.as_ref().map(secs),
            finished: finished_time(p),
        };
        let namespace = meta.namespace.clone();
        self.pods.push(PodRecord { namespace, name, seen, origin: r.origin.clone() });
    }

    pub fn observe_row(&mut self, r: &Record, row: &PodRow) {
        let seen = Seen::Row { status: row.status.clone() };
        self.pods.push(PodRecord {
            namespace: row.namespace.clone(),
            name: row.name.clone(),
            seen,
            origin: r.origin.clone(),
        });
    }

    pub fn report(self) -> Vec<ControllerReport> {
        let mut judged: BTreeMap<(String, String), Judging> = BTreeMap::new();
        for p in &self.pods {
            let Some(key) = self.job_of(p) else { continue };
            let spec = &self.specs[&key];
            let j = judged.entry(key).or_default();
            j.see(p, spec);
        }
        let mut out = Vec::new();
        for (key, spec) in &self.specs {
            let j = judged.remove(key).unwrap_or_default();
            let backoff_why = match (spec.not_sequential, j.objects) {
                (Some(why), _) => why,
                (None, false) => "no Pod objects (kubectl rows carry no timestamps to judge it by)",
                (None, true) => "no pod replaced a failed one",
            };
            out.push(ControllerReport {
                kind: "Job",
                name: key.1.clone(),
                observed: format!("{} pod(s)", j.pods.len()),
                verdicts: [
                    ("job-parallelism", j.counts.verdict("no pod of it")),
                    ("job-replacement-backoff", j.backoff.verdict(backoff_why)),
                ]
                .into_iter()
                .collect(),
            });
        }
        out
    }

    /// The known Job a pod record belongs to.
    fn job_of(&self, p: &PodRecord) -> Option<(String, String)> {
        let in_namespace = |ns: &str| p.namespace.as_deref().is_none_or(|n| n == ns);
        let named = |job: &str| self.specs.keys().find(|(ns, n)| n == job && in_namespace(ns)).cloned();
        match &p.seen {
            Seen::Object { job: Some(job), .. } => named(job),
            // By name: `<job>-<suffix>` or `<job>-<index>-<suffix>`, the longest Job name that fits.
            _ => {
                let fits = |(ns, job): &&(String, String)| in_namespace(ns) && generated_from(&p.name, job);
                self.specs.keys().filter(fits).max_by_key(|(_, job)| job.len()).cloned()
            }
        }
    }
}

/// `name` is one the Job controller generates for `job`'s pods: the Job's
/// name, a dash, an optional index and dash, then five characters of
/// `generateName`'s alphabet.
fn generated_from(name: &str, job: &str) -> bool {
    let Some(rest) = name.strip_prefix(job).and_then(|r| r.strip_prefix('-')) else { return false };
    let suffix = match rest.split_once('-') {
        Some((index, suffix)) if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) => suffix,
        _ => rest,
    };
    suffix.len() == 5 && suffix.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// A pod of a Job as last seen.
struct Last {
    active: bool,
    deleting: bool,
    failed: bool,
    succeeded: bool,
    finished: Option<i64>,
}

/// One Job's pods as the records go, and the verdicts so far.
#[derive(Default)]
struct Judging {
    /// Its pods by UID (or name, for rows), in creation order.
    pods: Vec<(String, Last)>,
    /// Whether any record was a Pod object.
    objects: bool,
    counts: Tally,
    backoff: Tally,
}

impl Judging {
    fn see(&mut self, p: &PodRecord, spec: &JobSpec) {
        let (id, last, created) = match &p.seen {
            Seen::Object { uid, active, failed, succeeded, created, finished, .. } => {
                self.objects = true;
                let last = Last {
                    active: *active,
                    deleting: false,
                    failed: *failed,
                    succeeded: *succeeded,
                    finished: *finished,
                };
                (uid.clone(), last, *created)
            }
            Seen::Row { status } => (p.name.clone(), row_state(status, spec.never), None),
        };
        match self.pods.iter_mut().find(|(known, _)| *known == id) {
            // A deletion is for good: a row after Terminating shows the
            // phase the pod ended in, not a pod active again.
            Some((_, seen)) if seen.deleting => *seen = Last { active: false, deleting: true, ..last },
            Some((_, seen)) => *seen = last,
            None => {
                if spec.not_sequential.is_none()
                    && let Some(created) = created
                {
                    self.created_after_backoff(created, &p.origin);
                }
                self.pods.push((id, last));
            }
        }
        let n = self.pods.iter().filter(|(_, l)| l.active).count() as u32;
        match n > spec.parallelism {
            true => self.counts.violate(
                &[&p.origin],
                format!("at most {} active pod(s) (parallelism)", spec.parallelism),
                format!("{n} active"),
            ),
            false => self.counts.hold(),
        }
    }

    /// A new pod of a sequential Job created at `created`: after n failures
    /// since the last success, no sooner than the delay after the last one finished.
    fn created_after_backoff(&mut self, created: i64, origin: &Origin) {
        let since_success = self.pods.iter().rev().take_while(|(_, l)| !l.succeeded);
        let failures: Vec<&Last> = since_success.map(|(_, l)| l).filter(|l| l.failed).collect();
        let Some(last) = failures.first() else { return };
        let Some(finished) = last.finished else {
            self.backoff.skip("a failed pod's finish time is not shown");
            return;
        };
        let due = finished + delay(failures.len() as u32);
        match created >= due {
            true => self.backoff.hold(),
            false => self.backoff.violate(
                &[origin],
                format!(
                    "created at or after {} ({} failure(s) since the last success, the last finished at {})",
                    stamp(due),
                    failures.len(),
                    stamp(finished)
                ),
                format!("created at {}", stamp(created)),
            ),
        }
    }
}

/// A kubectl STATUS (`printPod`: a container's waiting or terminated
/// reason, `Init:…`, `Terminating` while deleting and not terminal) as the
/// Job controller would count the pod: active
/// while not finished and not being deleted. Under OnFailure a container
/// that exited is restarted in place (the pod stays active); under Never it
/// leaves the pod Failed. A STATUS that does not say is not counted.
fn row_state(status: &str, never: bool) -> Last {
    let waiting = [
        "Pending",
        "ContainerCreating",
        "PodInitializing",
        "Running",
        "NotReady",
        "CrashLoopBackOff",
        "ImagePullBackOff",
        "ErrImagePull",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
    ];
    let exited = ["Error", "OOMKilled", "ContainerCannotRun", "StartError"];
    let active = waiting.contains(&status) || status.starts_with("Init:") || (!never && exited.contains(&status));
    let failed = never && exited.contains(&status) || matches!(status, "Failed" | "Evicted" | "DeadlineExceeded");
    let deleting = status == "Terminating";
    Last { active, deleting, failed: failed || deleting, succeeded: status == "Completed", finished: None }
}

/// `getFinishedTime`, in whole seconds: the latest `finishedAt` once every
/// container (and sidecar) has terminated, else when Ready turned False,
/// else the deletion (its timestamp less the grace), else the creation.
fn finished_time(p: &Pod) -> Option<i64> {
    let status = p.status.as_ref()?;
    let sidecars: Vec<&str> = (p.spec.as_ref().and_then(|s| s.init_containers.as_ref()))
        .into_iter()
        .flatten()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"))
        .map(|c| c.name.as_str())
        .collect();
    let regular = status.container_statuses.iter().flatten();
    let side = status.init_container_statuses.iter().flatten().filter(|c| sidecars.contains(&c.name.as_str()));
    let finished: Option<Vec<i64>> =
        regular.chain(side).map(|c| c.state.as_ref()?.terminated.as_ref()?.finished_at.as_ref().map(secs)).collect();
    if let Some(latest) = finished.and_then(|f| f.into_iter().max()) {
        return Some(latest);
    }
    let ready = status.conditions.iter().flatten().find(|c| c.type_ == "Ready");
    if let Some(t) = ready.filter(|c| c.status == "False").and_then(|c| c.last_transition_time.as_ref()) {
        return Some(secs(t));
    }
    if let Some(d) = &p.metadata.deletion_timestamp {
        return Some(secs(d) - p.metadata.deletion_grace_period_seconds.unwrap_or(0));
    }
    p.metadata.creation_timestamp.as_ref().map(secs)
}

/// `getRemainingTimeForFailuresCount`'s delay for `n` failures, in seconds:
/// 10 s doubling, at most `MaxJobPodFailureBackOff` (10 min).
fn delay(n: u32) -> i64 {
    10i64.saturating_mul(1 << (n.max(1) - 1).min(20)).min(600)
}

/// A Unix second as the API writes it.
fn stamp(s: i64) -> String {
    k8s_openapi::jiff::Timestamp::from_second(s).map_or_else(|_| s.to_string(), |t| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    fn time(s: i64) -> Time {
        Time(k8s_openapi::jiff::Timestamp::from_second(s).unwrap())
    }

    #[test]
    fn pod_names_are_matched_to_the_job_that_generates_them() {
        assert!(generated_from("pi-x8vm6", "pi"));
        assert!(generated_from("sweep-3-abcde", "sweep"), "Indexed: <job>-<index>-<suffix>");
        assert!(!generated_from("pi-x8vm6", "p"), "the name is the Job's plus a dash");
        assert!(!generated_from("pi-web-x8vm6", "pi"), "the middle part of an Indexed pod is a number");
        assert!(!generated_from("pi-x8vm", "pi"), "generateName adds five characters");
        assert!(!generated_from("pi-X8VM6", "pi"));
    }

    /// Under Never a container's exit fails the pod; under OnFailure it
    /// restarts in the pod, which stays active.
    #[test]
    fn a_rows_status_counts_by_the_restart_policy() {
        assert!(!row_state("Error", true).active && row_state("Error", true).failed);
        assert!(row_state("Error", false).active && !row_state("Error", false).failed);
        for active in ["Pending", "ContainerCreating", "Running", "CrashLoopBackOff", "Init:0/1"] {
            assert!(row_state(active, true).active, "{active}");
        }
        let done = row_state("Completed", true);
        assert!(!done.active && done.succeeded && !done.failed);
        let deleting = row_state("Terminating", false);
        assert!(!deleting.active && deleting.deleting && deleting.failed);
        assert!(!row_state("SomethingElse", true).active, "a STATUS that does not say is not counted");
    }

    #[test]
    fn the_delay_doubles_from_ten_seconds_to_ten_minutes() {
        assert_eq!([1, 2, 3, 4, 6, 7, 40].map(delay), [10, 20, 40, 80, 320, 600, 600]);
    }

    /// getFinishedTime: the containers' latest finishedAt, else Ready=False's
    /// transition, else the deletion less its grace, else the creation.
    #[test]
    fn a_pods_finish_time_is_looked_up_in_get_finished_times_order() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "pi-abcde", "creationTimestamp": "2026-01-01T00:00:00Z",
                         "deletionTimestamp": "2026-01-01T00:01:00Z", "deletionGracePeriodSeconds": 30},
            "status": {
                "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-01-01T00:00:20Z"}],
                "containerStatuses": [
                    {"name": "a", "image": "i", "imageID": "", "ready": false, "restartCount": 0,
                     "state": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:00:07Z"}}},
                    {"name": "b", "image": "i", "imageID": "", "ready": false, "restartCount": 0,
                     "state": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:00:09Z"}}}
                ]
            }
        }))
        .unwrap();
        let epoch = secs(&time(1_767_225_600));
        assert_eq!(finished_time(&pod), Some(epoch + 9), "the latest container");
        let mut running = pod.clone();
        let statuses = running.status.as_mut().unwrap().container_statuses.as_mut().unwrap();
        statuses[1].state = Some(Default::default());
        assert_eq!(finished_time(&running), Some(epoch + 20), "one still running: Ready=False");
        running.status.as_mut().unwrap().conditions = None;
        assert_eq!(finished_time(&running), Some(epoch + 30), "the deletion less its grace");
        running.metadata.deletion_timestamp = None;
        assert_eq!(finished_time(&running), Some(epoch), "the creation");
    }
}
