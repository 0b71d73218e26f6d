//! Deployment milestones (`Record::Deployment`), per revision: when the
//! controller took the revision up, when `kubectl rollout status` would
//! report it rolled out, and when it exceeded its progress deadline.

use super::found::Found;
use crate::api::deployment::{ApiDeployment, ConditionType, Reason};
use crate::control::deployment::conditions::get_condition;
use crate::control::deployment::revisions;
use crate::kubectl::rollout_status::{RolloutView, Verdict, rollout_status};
use crate::time::SimTime;
use foldhash::HashMap;
use std::sync::Arc;

/// Whether each Deployment's last version reported ProgressDeadlineExceeded:
/// the condition outlives its revision (the next revision starts under it),
/// so only a version that newly reports it counts.
#[derive(Default)]
pub struct Deployments {
    exceeded: HashMap<Arc<str>, bool>,
}

impl Deployments {
    pub fn see(&mut self, t: SimTime, d: &ApiDeployment, found: &mut Found) {
        let progressing = get_condition(&d.status.conditions, ConditionType::Progressing);
        let exceeded = progressing.is_some_and(|c| c.reason == Reason::ProgressDeadlineExceeded);
        let newly = !self.exceeded.insert(d.meta.uid.clone(), exceeded).unwrap_or(false) && exceeded;
        let revision = revisions::revision(&d.annotations).unwrap_or(0);
        if revision <= 0 || d.meta.removed {
            return;
        }
        let subject = format!("deploy/{}@rev{revision}", d.spec.name);
        found.first(&subject, "rollout_started", t);
        if newly {
            found.first(&subject, "progress_deadline_exceeded", t);
        }
        if complete(d, revision) {
            found.first(&subject, "rollout_complete", t);
        }
    }
}

/// `kubectl rollout status` would print "successfully rolled out".
fn complete(d: &ApiDeployment, revision: i64) -> bool {
    let s = &d.status;
    let progressing = get_condition(&s.conditions, ConditionType::Progressing);
    let view = RolloutView {
        name: &d.spec.name,
        generation: d.meta.generation.max(0) as u64,
        observed_generation: s.observed_generation,
        spec_replicas: d.spec.replicas,
        replicas: s.replicas,
        updated_replicas: s.updated_replicas,
        available_replicas: s.available_replicas,
        progressing_reason: progressing.map(|c| c.reason.as_str()),
        revision: revision as u64,
    };
    matches!(rollout_status(&view, 0), Verdict::Done(_))
}
