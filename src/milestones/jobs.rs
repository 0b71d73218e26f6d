//! Job milestones (`Record::Job`): when the controller started it, and
//! each condition it reached, interim and terminal.

use super::found::Found;
use crate::api::job::{ApiJob, JobConditionType};
use crate::time::SimTime;

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
