//! Timeline rows for Jobs: created (with what it will run), each condition
//! as the Job controller adds it (`kubectl describe job`), and the columns
//! of `kubectl get jobs` when they change.

use crate::api::job::{ApiJob, JobStatus};
use crate::spec::job::CompletionMode;

/// The rows of a Job written, against how it was last seen (`None`: new);
/// each is (what, why), a `kubectl get jobs` one saying so in its why.
pub fn job_rows(old: Option<&ApiJob>, j: &ApiJob, push: &mut dyn FnMut(String, String)) {
    let s = &j.spec;
    let Some(old) = old else {
        let completions = s.completions.map_or("no completions (the first success ends it)".into(), |c| {
            format!("{c} completion{}", if c == 1 { "" } else { "s" })
        });
        let mode = match s.mode {
            CompletionMode::Indexed => ", Indexed",
            CompletionMode::NonIndexed => "",
        };
        let what = format!("created, {completions}, parallelism {}{mode}", s.parallelism);
        let mut why = vec![format!("backoffLimit {}", s.backoff_limit)];
        if let Some(b) = s.backoff_limit_per_index {
            why = vec![format!("backoffLimitPerIndex {b}")];
        }
        if let Some(d) = s.active_deadline_seconds {
            why.push(format!("activeDeadlineSeconds {d}"));
        }
        if s.suspend {
            why.push("suspended".into());
        }
        push(what, why.join(", "));
        push(kubectl_columns(j), "kubectl get jobs".into());
        return;
    };
    if s.suspend != old.spec.suspend {
        push(format!("spec.suspend → {}", s.suspend), String::new());
    }
    if let Some((what, why)) = super::workload_rows::deleting(&old.meta, &j.meta) {
        push(what, why);
    }
    for c in &j.status.conditions {
        let seen = old.status.conditions.iter().any(|o| o.kind == c.kind && o.status == c.status);
        if !seen {
            let status = if c.status { "True" } else { "False" };
            push(format!("{}={status} ({})", c.kind.as_str(), c.reason), c.message.clone());
        }
    }
    let (before, now) = (kubectl_columns(old), kubectl_columns(j));
    if before != now {
        push(now, "kubectl get jobs".into());
    }
}

/// The columns of `kubectl get jobs` that change with the status (STATUS
/// and COMPLETIONS, as `printJob`), with the status counts it leaves out.
fn kubectl_columns(j: &ApiJob) -> String {
    let st: &JobStatus = &j.status;
    let has = |t: &str| st.conditions.iter().any(|c| c.status && c.kind.as_str() == t);
    let state = crate::kubectl::printers::job_status(has, j.meta.deletion.is_some());
    let count = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    let completions = j.spec.completions.map(count);
    let done = crate::kubectl::printers::job_completions(count(st.succeeded), completions, count(j.spec.parallelism));
    let ready = st.ready.unwrap_or(0);
    format!("STATUS {state}, COMPLETIONS {done}, active {}, ready {ready}, failed {}", st.active, st.failed)
}

/// The rows of a CronJob written: created (its schedule and policy), then
/// each change of its active Jobs and last schedule time.
pub fn cronjob_rows(
    old: Option<&crate::api::cronjob::ApiCronJob>,
    c: &crate::api::cronjob::ApiCronJob,
    push: &mut dyn FnMut(String, String),
) {
    let s = &c.spec;
    let Some(old) = old else {
        let policy = match s.concurrency {
            crate::spec::cronjob::ConcurrencyPolicy::Allow => "Allow",
            crate::spec::cronjob::ConcurrencyPolicy::Forbid => "Forbid",
            crate::spec::cronjob::ConcurrencyPolicy::Replace => "Replace",
        };
        let mut why = format!("concurrencyPolicy {policy}");
        if let Some(d) = s.starting_deadline_seconds {
            why += &format!(", startingDeadlineSeconds {d}");
        }
        if s.suspend {
            why += ", suspended";
        }
        push(format!("created, schedule {:?}", s.schedule_text), why);
        return;
    };
    if let Some((what, why)) = super::workload_rows::deleting(&old.meta, &c.meta) {
        push(what, why);
    }
    let names =
        |st: &crate::api::cronjob::CronJobStatus| st.active.iter().map(|(_, n, _)| n.to_string()).collect::<Vec<_>>();
    if old.status.active != c.status.active || old.status.last_schedule != c.status.last_schedule {
        let active = names(&c.status);
        let what = match active.is_empty() {
            true => "ACTIVE 0".to_string(),
            false => format!("ACTIVE {} ({})", active.len(), active.join(", ")),
        };
        push(what, "kubectl get cronjobs, with status.active".into());
    }
}
