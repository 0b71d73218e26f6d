//! Job milestones (`Record::Job`): when the controller started it, and
//! each condition it reached, interim and terminal.

use super::found::Found;
use crate::api::job::{ApiJob, JobConditionType};
use crate::time::SimTime;

/// `cronjob/<name>:job#k`: the k-th Job a CronJob created (counted in
/// `counts` by CronJob), when its first record shows it.
pub fn see_created(
    j: &ApiJob,
    first: bool,
    t: SimTime,
    counts: &mut std::collections::BTreeMap<String, u32>,
    found: &mut Found,
) {
    let Some(owner) = j.owner.as_ref().filter(|o| o.kind == "CronJob") else { return };
    if !first {
        return;
    }
    let subject = format!("cronjob/{}", owner.name);
    let k = counts.entry(subject.clone()).or_default();
    *k += 1;
    found.first(&subject, format!("job#{k}"), t);
}

/// `job/<name>:started` (startTime set), `:failure_target`, `:failed`,
/// `:success_criteria_met`, `:complete`, `:suspended`: each the first
/// record that shows it.
pub fn see(t: SimTime, j: &ApiJob, found: &mut Found) {
    if j.meta.removed {
        return;
    }
    let subject = format!("job/{}", j.spec.name);
    if j.status.start_time.is_some() {
        found.first(&subject, "started", t);
    }
    let events = [
        (JobConditionType::FailureTarget, "failure_target"),
        (JobConditionType::Failed, "failed"),
        (JobConditionType::SuccessCriteriaMet, "success_criteria_met"),
        (JobConditionType::Complete, "complete"),
        (JobConditionType::Suspended, "suspended"),
    ];
    for (kind, event) in events {
        if j.status.is_true(kind) {
            found.first(&subject, event, t);
        }
    }
}
