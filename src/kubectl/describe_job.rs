//! `kubectl describe job` and `kubectl describe cronjob`
//! (k8s.io/kubectl/pkg/describe `describeJob`, `describeCronJob` with
//! `describeJobTemplate` and `printActiveJobs`): the spec's knobs, what the
//! controller last wrote in the status, the pod template and the events.

use super::describe::{Writer, annotations, describe_events, labels, rfc1123z};
use super::describe_workloads::pod_template;
use super::human_duration;
use super::selector::selector_string;
use super::tabwriter::go_tabwriter;
use k8s_openapi::api::batch::v1::{CronJob, Job, JobTemplateSpec};
use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;

/// `describeJob` of `job` with its events. The pod counts are the Job
/// controller's (its status), not the pods listed now, as kubectl reads them.
pub fn describe_job(job: &Job, events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &job.metadata;
    let spec = job.spec.clone().unwrap_or_default();
    let s = job.status.clone().unwrap_or_default();
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    // A nil selector is `labels.Nothing()`, which prints as nothing.
    w.line(0, &format!("Selector:\t{}", spec.selector.as_ref().map(selector_string).unwrap_or_default()));
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    // printController
    if let Some(owner) = meta.owner_references.iter().flatten().find(|o| o.controller == Some(true)) {
        w.line(0, &format!("Controlled By:\t{}/{}", owner.kind, owner.name));
    }
    if let Some(p) = spec.parallelism {
        w.line(0, &format!("Parallelism:\t{p}"));
    }
    w.line(0, &format!("Completions:\t{}", unset_or(spec.completions)));
    if let Some(m) = &spec.completion_mode {
        w.line(0, &format!("Completion Mode:\t{m}"));
    }
    // `%v` of a bool: lower case, unlike the CronJob's `printBoolPtr`.
    if let Some(suspend) = spec.suspend {
        w.line(0, &format!("Suspend:\t{suspend}"));
    }
    if let Some(b) = spec.backoff_limit {
        w.line(0, &format!("Backoff Limit:\t{b}"));
    }
    if let Some(t) = spec.ttl_seconds_after_finished {
        w.line(0, &format!("TTL Seconds After Finished:\t{t}"));
    }
    if let Some(t) = &s.start_time {
        w.line(0, &format!("Start Time:\t{}", rfc1123z(t)));
    }
    if let Some(t) = &s.completion_time {
        w.line(0, &format!("Completed At:\t{}", rfc1123z(t)));
    }
    if let (Some(start), Some(end)) = (&s.start_time, &s.completion_time) {
        w.line(0, &format!("Duration:\t{}", human_duration(end.0.duration_since(start.0).as_millis() as i64)));
    }
    if let Some(d) = spec.active_deadline_seconds {
        w.line(0, &format!("Active Deadline Seconds:\t{d}s"));
    }
    let (active, succeeded, failed) = (s.active.unwrap_or(0), s.succeeded.unwrap_or(0), s.failed.unwrap_or(0));
    match s.ready {
        None => w.line(0, &format!("Pods Statuses:\t{active} Active / {succeeded} Succeeded / {failed} Failed")),
        Some(ready) => w.line(
            0,
            &format!("Pods Statuses:\t{active} Active ({ready} Ready) / {succeeded} Succeeded / {failed} Failed"),
        ),
    }
    if spec.completion_mode.as_deref() == Some("Indexed") {
        w.line(0, &format!("Completed Indexes:\t{}", cap_indexes_list_or_none(s.completed_indexes.as_deref(), 50)));
    }
    pod_template(&mut w, Some(&spec.template));
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

/// `capIndexesListOrNone`: the list up to the first comma at or past
/// `soft_limit` bytes, then `...`; `<none>` when empty.
fn cap_indexes_list_or_none(indexes: Option<&str>, soft_limit: usize) -> String {
    let indexes = indexes.unwrap_or_default();
    if indexes.is_empty() {
        return "<none>".into();
    }
    match indexes.bytes().enumerate().skip(soft_limit).find(|(_, b)| *b == b',') {
        Some((ix, _)) => format!("{}...", &indexes[..=ix]),
        None => indexes.to_string(),
    }
}

/// `describeCronJob` of `cron_job` with its events: the schedule and
/// policies, the Job template, the last schedule and the active Jobs' names.
pub fn describe_cron_job(cron_job: &CronJob, events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &cron_job.metadata;
    let spec = &cron_job.spec;
    let s = cron_job.status.clone().unwrap_or_default();
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    w.line(0, &format!("Schedule:\t{}", spec.schedule));
    w.line(0, &format!("Concurrency Policy:\t{}", spec.concurrency_policy.clone().unwrap_or_default()));
    // printBoolPtr
    let suspend = match spec.suspend {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    w.line(0, &format!("Suspend:\t{suspend}"));
    w.line(0, &format!("Time Zone:\t{}", spec.time_zone.clone().unwrap_or_else(|| "<unset>".into())));
    w.line(0, &format!("Successful Job History Limit:\t{}", unset_or(spec.successful_jobs_history_limit)));
    w.line(0, &format!("Failed Job History Limit:\t{}", unset_or(spec.failed_jobs_history_limit)));
    let deadline = spec.starting_deadline_seconds.map_or_else(|| "<unset>".into(), |d| format!("{d}s"));
    w.line(0, &format!("Starting Deadline Seconds:\t{deadline}"));
    job_template(&mut w, &spec.job_template);
    let last = s.last_schedule_time.as_ref().map_or_else(|| "<unset>".into(), rfc1123z);
    w.line(0, &format!("Last Schedule Time:\t{last}"));
    // printActiveJobs
    let active: Vec<String> = s.active.iter().flatten().map(|j| j.name.clone().unwrap_or_default()).collect();
    w.line(0, &format!("Active Jobs:\t{}", if active.is_empty() { "<none>".into() } else { active.join(", ") }));
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

/// `describeJobTemplate`: the template's selector, parallelism and
/// completions (`<unset>` when not written: the API server defaults them
/// only on the Jobs made from it), deadline and pod template.
fn job_template(w: &mut Writer, template: &JobTemplateSpec) {
    let spec = template.spec.clone().unwrap_or_default();
    let selector = spec.selector.as_ref().map_or_else(|| "<unset>".into(), selector_string);
    w.line(0, &format!("Selector:\t{selector}"));
    w.line(0, &format!("Parallelism:\t{}", unset_or(spec.parallelism)));
    w.line(0, &format!("Completions:\t{}", unset_or(spec.completions)));
    if let Some(d) = spec.active_deadline_seconds {
        w.line(0, &format!("Active Deadline Seconds:\t{d}s"));
    }
    pod_template(w, Some(&spec.template));
}

/// `%d` of a set number, `<unset>` of an unset one.
fn unset_or(n: Option<i32>) -> String {
    n.map_or_else(|| "<unset>".into(), |n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `capIndexesListOrNone(…, 50)`: cut after the first comma at byte 50
    /// or later, the whole list when there is none.
    #[test]
    fn long_index_lists_are_cut_after_a_comma() {
        assert_eq!(cap_indexes_list_or_none(None, 50), "<none>");
        assert_eq!(cap_indexes_list_or_none(Some("0-3,7"), 50), "0-3,7");
        let long: Vec<String> = (0..40).map(|i| (i * 2).to_string()).collect();
        let long = long.join(",");
        // 0,2,…,78: byte 50 is the "6" of "36" (bytes 49-50), the comma after it byte 51.
        assert_eq!(cap_indexes_list_or_none(Some(&long), 50), format!("{}...", &long[..=51]));
        assert!(cap_indexes_list_or_none(Some(&long), 50).ends_with(",34,36,..."));
    }
}
