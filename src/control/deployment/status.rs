//! The Deployment's status and its Progressing condition (deployment/sync.go
//! `calculateStatus`, deployment/progress.go `syncRolloutStatus` and
//! `requeueStuckDeployment`, and the util predicates they use).

use super::conditions::{
    Condition, ConditionStatus, ConditionType, Reason, get_condition, remove_condition, set_condition,
};
use super::fenceposts::max_unavailable;
use super::view::{DeploymentView, RsView};
use crate::time::{SimDuration, SimTime};

/// `DeploymentStatus`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeploymentStatus {
    pub observed_generation: u64,
    pub replicas: u32,
    pub updated_replicas: u32,
    pub ready_replicas: u32,
    pub available_replicas: u32,
    pub unavailable_replicas: u32,
    /// `None` when the field is absent (gate off, or a count is unknown).
    pub terminating_replicas: Option<u32>,
    pub collision_count: Option<u32>,
    pub conditions: Vec<Condition>,
}

/// The Available condition's message.
pub fn available_message(available: bool) -> &'static str {
    if available { "Deployment has minimum availability." } else { "Deployment does not have minimum availability." }
}

/// The Progressing message `getNewReplicaSet` writes:
/// `Created new replica set "<rs>"` (reason NewReplicaSetCreated) or
/// `Found new replica set "<rs>"` (FoundNewReplicaSet).
pub fn new_replica_set_message(created: bool, rs: &str) -> String {
    if created { format!("Created new replica set \"{rs}\"") } else { format!("Found new replica set \"{rs}\"") }
}

/// `Failed to create new replica set "<rs>": <err>` (reason ReplicaSetCreateError).
pub fn replica_set_create_error_message(rs: &str, err: &str) -> String {
    format!("Failed to create new replica set \"{rs}\": {err}")
}

/// `checkPausedConditions`' messages (reasons DeploymentPaused / DeploymentResumed).
pub const PAUSED_MESSAGE: &str = "Deployment is paused";
pub const RESUMED_MESSAGE: &str = "Deployment is resumed";

/// The three messages of `syncRolloutStatus`: about the new ReplicaSet when
/// there is one, else about the Deployment. Names are DNS names, so Go's `%q`
/// is plain double quotes.
fn rollout_message(reason: Reason, deployment: &str, new_rs: Option<&str>) -> String {
    let subject = match new_rs {
        Some(rs) => format!("ReplicaSet \"{rs}\""),
        None => format!("Deployment \"{deployment}\""),
    };
    match reason {
        Reason::NewReplicaSetAvailable => format!("{subject} has successfully progressed."),
        Reason::ProgressDeadlineExceeded => format!("{subject} has timed out progressing."),
        _ => format!("{subject} is progressing."),
    }
}

/// deploymentutil.GetTerminatingReplicaCountForReplicaSets: the sum, skipping never-synced
/// ReplicaSets without the field; unknown (None) if any synced one lacks it.
pub fn terminating_replica_count<'a>(rss: impl IntoIterator<Item = &'a RsView>) -> Option<u32> {
    let mut sum = 0;
    for rs in rss {
        match rs.terminating {
            Some(n) => sum += n,
            None if rs.observed_generation == 0 => {}
            None => return None,
        }
    }
    Some(sum)
}

/// calculateStatus (sync.go): counts over all ReplicaSets, conditions copied, Available set.
/// `terminating_gate` is DeploymentReplicaSetTerminatingReplicas (beta, on, from 1.35).
pub fn calculate_status(
    d: &DeploymentView,
    new_rs: Option<&RsView>,
    old_rss: &[RsView],
    terminating_gate: bool,
    now: SimTime,
) -> DeploymentStatus {
    let all = || old_rss.iter().chain(new_rs);
    let available: u32 = all().map(|r| r.available).sum();
    let total_spec: u32 = all().map(|r| r.spec_replicas).sum();
    let mut status = DeploymentStatus {
        observed_generation: d.generation,
        replicas: all().map(|r| r.status_replicas).sum(),
        updated_replicas: new_rs.map_or(0, |r| r.status_replicas),
        ready_replicas: all().map(|r| r.ready).sum(),
        available_replicas: available,
        unavailable_replicas: total_spec.saturating_sub(available),
        terminating_replicas: if terminating_gate { terminating_replica_count(all()) } else { None },
        collision_count: d.status.collision_count,
        conditions: d.status.conditions.clone(),
    };
    let ok = available as i64 >= d.replicas as i64 - max_unavailable(d.strategy, d.replicas) as i64;
    let (cond, reason) = if ok {
        (ConditionStatus::True, Reason::MinimumReplicasAvailable)
    } else {
        (ConditionStatus::False, Reason::MinimumReplicasUnavailable)
    };
    let message = available_message(ok).to_string();
    set_condition(&mut status.conditions, Condition::new(ConditionType::Available, cond, reason, message, now));
    status
}

/// deploymentutil.DeploymentComplete
pub fn deployment_complete(d: &DeploymentView, status: &DeploymentStatus) -> bool {
    status.updated_replicas == d.replicas
        && status.replicas == d.replicas
        && status.available_replicas == d.replicas
        && status.observed_generation >= d.generation
}

/// deploymentutil.DeploymentProgressing: compared with the status as read (`d.status`).
pub fn deployment_progressing(d: &DeploymentView, new_status: &DeploymentStatus) -> bool {
    let old = &d.status;
    let old_old = old.replicas as i64 - old.updated_replicas as i64;
    let new_old = new_status.replicas as i64 - new_status.updated_replicas as i64;
    new_status.updated_replicas > old.updated_replicas
        || new_old < old_old
        || new_status.ready_replicas > old.ready_replicas
        || new_status.available_replicas > old.available_replicas
}

/// deploymentutil.DeploymentTimedOut: lastUpdateTime + progressDeadlineSeconds strictly before now.
pub fn deployment_timed_out(d: &DeploymentView, new_status: &DeploymentStatus, now: SimTime) -> bool {
    let Some(pds) = d.progress_deadline_seconds else { return false };
    let Some(cond) = get_condition(&new_status.conditions, ConditionType::Progressing) else { return false };
    match cond.reason {
        Reason::NewReplicaSetAvailable => false,
        Reason::ProgressDeadlineExceeded => true,
        _ => cond.last_update + SimDuration::from_secs(pds as u64) < now,
    }
}

/// What `syncRolloutStatus` does to the Progressing condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgressingDecision {
    /// No progress deadline: the condition is removed.
    Remove,
    /// The condition stays exactly as it is (rollout already complete, no
    /// case applies, or `SetDeploymentCondition` with the same status and
    /// reason, which changes nothing, not even the message).
    Keep,
    /// The condition is replaced by `condition` (and moves to the end of the
    /// list). `last_update_time_changes` is always true: every new condition
    /// is stamped now. `last_transition_time_changes` is false when the old
    /// lastTransitionTime is carried over.
    Set { condition: Condition, last_update_time_changes: bool, last_transition_time_changes: bool },
}

impl ProgressingDecision {
    /// Applies the decision to a condition list.
    pub fn apply(&self, conditions: &mut Vec<Condition>) {
        match self {
            ProgressingDecision::Remove => {
                remove_condition(conditions, ConditionType::Progressing);
            }
            ProgressingDecision::Keep => {}
            ProgressingDecision::Set { condition, .. } => {
                remove_condition(conditions, ConditionType::Progressing);
                conditions.push(condition.clone());
            }
        }
    }
}

/// syncRolloutStatus (progress.go), steps 2–4: the Progressing condition. `new_status` is
/// calculateStatus's result (its conditions copied from `d.status`).
pub fn progressing_decision(
    d: &DeploymentView,
    new_status: &DeploymentStatus,
    new_rs: Option<&str>,
    now: SimTime,
) -> ProgressingDecision {
    let in_new = get_condition(&new_status.conditions, ConditionType::Progressing);
    if d.progress_deadline_seconds.is_none() {
        return if in_new.is_some() { ProgressingDecision::Remove } else { ProgressingDecision::Keep };
    }
    let current = get_condition(&d.status.conditions, ConditionType::Progressing);
    let is_complete = new_status.replicas == new_status.updated_replicas
        && current.is_some_and(|c| c.reason == Reason::NewReplicaSetAvailable);
    if is_complete {
        return ProgressingDecision::Keep;
    }
    let make = |status, reason| {
        Condition::new(ConditionType::Progressing, status, reason, rollout_message(reason, &d.name, new_rs), now)
    };
    if deployment_complete(d, new_status) {
        set_rule(in_new, make(ConditionStatus::True, Reason::NewReplicaSetAvailable))
    } else if deployment_progressing(d, new_status) {
        // Removed, then set: lastUpdateTime is always now; lastTransitionTime is kept only
        // if the old condition was True.
        let mut condition = make(ConditionStatus::True, Reason::ReplicaSetUpdated);
        let kept = current.is_some_and(|c| c.status == ConditionStatus::True);
        if let (true, Some(c)) = (kept, current) {
            condition.last_transition = c.last_transition;
        }
        ProgressingDecision::Set { condition, last_update_time_changes: true, last_transition_time_changes: !kept }
    } else if deployment_timed_out(d, new_status, now) {
        set_rule(in_new, make(ConditionStatus::False, Reason::ProgressDeadlineExceeded))
    } else {
        ProgressingDecision::Keep
    }
}

/// `SetDeploymentCondition` on the Progressing condition, as a decision.
fn set_rule(current: Option<&Condition>, mut condition: Condition) -> ProgressingDecision {
    let mut transition_changes = true;
    if let Some(c) = current {
        if c.status == condition.status && c.reason == condition.reason {
            return ProgressingDecision::Keep;
        }
        if c.status == condition.status {
            condition.last_transition = c.last_transition;
            transition_changes = false;
        }
    }
    ProgressingDecision::Set {
        condition,
        last_update_time_changes: true,
        last_transition_time_changes: transition_changes,
    }
}

/// When the controller looks at a Deployment again to check its deadline.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Requeue {
    /// No self-requeue.
    Never,
    /// `enqueueRateLimited`: at once, subject to the queue's rate limiter.
    RateLimited,
    /// `enqueueAfter`.
    After(SimDuration),
}

/// requeueStuckDeployment: after = lastUpdateTime + pds − now; < 1 s → rate-limited now; else after + 1 s.
pub fn requeue_stuck_deployment(d: &DeploymentView, new_status: &DeploymentStatus, now: SimTime) -> Requeue {
    let Some(pds) = d.progress_deadline_seconds else { return Requeue::Never };
    let Some(current) = get_condition(&d.status.conditions, ConditionType::Progressing) else {
        return Requeue::Never;
    };
    if deployment_complete(d, new_status) || current.reason == Reason::ProgressDeadlineExceeded {
        return Requeue::Never;
    }
    let after_ms = current.last_update.as_millis() as i128 + pds as i128 * 1000 - now.as_millis() as i128;
    if after_ms < 1000 {
        Requeue::RateLimited
    } else {
        Requeue::After(SimDuration::from_millis(after_ms as u64) + SimDuration::from_secs(1))
    }
}

/// The outcome of `syncRolloutStatus`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolloutStatusSync {
    /// The new status (conditions included).
    pub status: DeploymentStatus,
    pub progressing: ProgressingDecision,
    /// Whether it differs from the status as read, so `UpdateStatus` is called.
    pub update_status: bool,
    /// Only when there is no write (`requeueStuckDeployment`); otherwise [`Requeue::Never`].
    pub requeue: Requeue,
}

/// syncRolloutStatus (progress.go): calculateStatus, the Progressing decision, the
/// ReplicaFailure copy, then UpdateStatus or requeueStuckDeployment.
pub fn sync_rollout_status(
    d: &DeploymentView,
    new_rs: Option<&RsView>,
    old_rss: &[RsView],
    terminating_gate: bool,
    now: SimTime,
) -> RolloutStatusSync {
    let mut status = calculate_status(d, new_rs, old_rss, terminating_gate, now);
    let progressing = progressing_decision(d, &status, new_rs.map(|r| &*r.name), now);
    progressing.apply(&mut status.conditions);
    // getReplicaFailures: the new ReplicaSet's failure first, else the first of all of them.
    let failure = new_rs
        .and_then(|r| r.failure.as_ref())
        .or_else(|| old_rss.iter().chain(new_rs).find_map(|r| r.failure.as_ref()));
    match failure {
        Some(f) => {
            // ReplicaSetToDeploymentCondition: lastUpdateTime = lastTransitionTime.
            let c = Condition {
                kind: ConditionType::ReplicaFailure,
                status: f.status,
                reason: f.reason,
                message: f.message.clone(),
                last_update: f.last_transition,
                last_transition: f.last_transition,
            };
            set_condition(&mut status.conditions, c);
        }
        None => {
            remove_condition(&mut status.conditions, ConditionType::ReplicaFailure);
        }
    }
    let update_status = status != d.status;
    let requeue = if update_status { Requeue::Never } else { requeue_stuck_deployment(d, &status, now) };
    RolloutStatusSync { status, progressing, update_status, requeue }
}

#[cfg(test)]
mod tests {
    use super::super::view::RsFailure;
    use super::*;
    use crate::spec::IntOrPercent::Percent;
    use crate::spec::Strategy;
    use ConditionStatus::{False, True};
    use std::sync::Arc;

    fn t(s: u64) -> SimTime {
        SimTime::from_millis(s * 1000)
    }

    fn rs(name: &str, spec: u32, status: u32, ready: u32, available: u32) -> RsView {
        let mut r = RsView::new(name, t(0), spec);
        r.status_replicas = status;
        r.ready = ready;
        r.available = available;
        r.observed_generation = 1;
        r
    }

    fn deploy(replicas: u32, strategy: Strategy) -> DeploymentView {
        DeploymentView {
            name: Arc::from("web"),
            generation: 2,
            replicas,
            strategy,
            progress_deadline_seconds: Some(600),
            status: DeploymentStatus::default(),
        }
    }

    fn rolling() -> Strategy {
        Strategy::RollingUpdate { max_surge: Percent(25), max_unavailable: Percent(25) }
    }

    fn progressing(status: ConditionStatus, reason: Reason, update: u64, transition: u64) -> Condition {
        Condition {
            kind: ConditionType::Progressing,
            status,
            reason,
            message: "old".into(),
            last_update: t(update),
            last_transition: t(transition),
        }
    }

    #[test]
    fn status_sums_the_replica_sets() {
        // §7.1 at the end of t=0: old 8 (all available), new spec 5 with 5 pods, none ready.
        let d = deploy(10, rolling());
        let old = [rs("old", 8, 8, 8, 8)];
        let new = rs("new", 5, 5, 0, 0);
        let s = calculate_status(&d, Some(&new), &old, false, t(1));
        // replicas 8 + 5 = 13, updated = new.status.replicas = 5, available 8,
        // unavailable = Σspec − available = 13 − 8 = 5; 8 ≥ 10 − 2 → Available=True.
        assert_eq!(
            (s.observed_generation, s.replicas, s.updated_replicas, s.ready_replicas, s.available_replicas),
            (2, 13, 5, 8, 8)
        );
        assert_eq!(s.unavailable_replicas, 5);
        let c = get_condition(&s.conditions, ConditionType::Available).unwrap();
        assert_eq!(
            (c.status, c.reason, c.message.as_str()),
            (True, Reason::MinimumReplicasAvailable, "Deployment has minimum availability.")
        );
        assert_eq!(s.terminating_replicas, None);
    }

    #[test]
    fn available_condition_and_clamps() {
        // Recreate: MaxUnavailable = 0, so 9 of 10 available is not enough.
        let d = deploy(10, Strategy::Recreate);
        let s = calculate_status(&d, Some(&rs("new", 10, 10, 9, 9)), &[], false, t(1));
        let c = get_condition(&s.conditions, ConditionType::Available).unwrap();
        assert_eq!((c.status, c.reason), (False, Reason::MinimumReplicasUnavailable));
        assert_eq!(c.message, "Deployment does not have minimum availability.");
        // More available than Σspec (a scale-down in flight): unavailable is 0, not negative.
        let s = calculate_status(&deploy(2, rolling()), Some(&rs("new", 2, 4, 4, 4)), &[], false, t(1));
        assert_eq!(s.unavailable_replicas, 0);
        // No new ReplicaSet: updated is 0.
        let s = calculate_status(&deploy(2, rolling()), None, &[rs("old", 2, 2, 2, 2)], false, t(1));
        assert_eq!(s.updated_replicas, 0);
    }

    #[test]
    fn terminating_replicas_need_every_synced_count() {
        let d = deploy(3, rolling());
        let mut a = rs("a", 1, 1, 1, 1);
        a.terminating = Some(2);
        let mut fresh = rs("fresh", 2, 0, 0, 0);
        fresh.observed_generation = 0;
        // A never-synced ReplicaSet without the field is skipped: 2.
        let s = calculate_status(&d, Some(&fresh), std::slice::from_ref(&a), true, t(1));
        assert_eq!(s.terminating_replicas, Some(2));
        // A synced one without it makes the sum unknown.
        let synced = rs("b", 2, 2, 2, 2);
        let s = calculate_status(&d, Some(&synced), std::slice::from_ref(&a), true, t(1));
        assert_eq!(s.terminating_replicas, None);
        // Gate off: absent.
        let s = calculate_status(&d, Some(&fresh), std::slice::from_ref(&a), false, t(1));
        assert_eq!(s.terminating_replicas, None);
    }

    #[test]
    fn complete_progressing_timed_out() {
        let mut d = deploy(3, rolling());
        let mut s = DeploymentStatus {
            observed_generation: 2,
            replicas: 3,
            updated_replicas: 3,
            available_replicas: 3,
            ..Default::default()
        };
        assert!(deployment_complete(&d, &s));
        // observedGeneration behind generation: not complete.
        s.observed_generation = 1;
        assert!(!deployment_complete(&d, &s));

        // Progress, each of the four signs against the old status 4/2/1/1.
        d.status = DeploymentStatus {
            replicas: 4,
            updated_replicas: 2,
            ready_replicas: 1,
            available_replicas: 1,
            ..Default::default()
        };
        let same = d.status.clone();
        assert!(!deployment_progressing(&d, &same));
        assert!(deployment_progressing(&d, &DeploymentStatus { updated_replicas: 3, replicas: 5, ..same.clone() }));
        // Old replicas 4 − 2 = 2 → 3 − 2 = 1.
        assert!(deployment_progressing(&d, &DeploymentStatus { replicas: 3, ..same.clone() }));
        assert!(deployment_progressing(&d, &DeploymentStatus { ready_replicas: 2, ..same.clone() }));
        assert!(deployment_progressing(&d, &DeploymentStatus { available_replicas: 2, ..same.clone() }));

        // Timed out: lastUpdateTime 100 s + 600 s must be strictly before now.
        let with = |c: Condition| DeploymentStatus { conditions: vec![c], ..Default::default() };
        let s = with(progressing(True, Reason::ReplicaSetUpdated, 100, 100));
        assert!(!deployment_timed_out(&d, &s, t(700)));
        assert!(deployment_timed_out(&d, &s, t(700) + SimDuration::from_millis(1)));
        assert!(!deployment_timed_out(&d, &with(progressing(True, Reason::NewReplicaSetAvailable, 0, 0)), t(9999)));
        assert!(deployment_timed_out(
            &d,
            &with(progressing(False, Reason::ProgressDeadlineExceeded, 900, 900)),
            t(901)
        ));
        assert!(!deployment_timed_out(&d, &DeploymentStatus::default(), t(9999)));
        d.progress_deadline_seconds = None;
        assert!(!deployment_timed_out(&d, &s, t(9999)));
    }

    #[test]
    fn progressing_decisions() {
        let mut d = deploy(3, rolling());
        let new_status = |d: &DeploymentView, replicas, updated, available| {
            let mut s = d.status.clone();
            (s.observed_generation, s.replicas, s.updated_replicas, s.available_replicas, s.ready_replicas) =
                (2, replicas, updated, available, available);
            s
        };

        // Complete → True/NewReplicaSetAvailable, transition kept (old status True).
        d.status.conditions = vec![progressing(True, Reason::ReplicaSetUpdated, 10, 5)];
        d.status.available_replicas = 3;
        d.status.ready_replicas = 3;
        d.status.replicas = 3;
        d.status.updated_replicas = 3;
        let s = new_status(&d, 3, 3, 3);
        match progressing_decision(&d, &s, Some("web-abc"), t(20)) {
            ProgressingDecision::Set { condition, last_update_time_changes, last_transition_time_changes } => {
                assert_eq!((condition.status, condition.reason), (True, Reason::NewReplicaSetAvailable));
                assert_eq!(condition.message, "ReplicaSet \"web-abc\" has successfully progressed.");
                assert_eq!((condition.last_update, condition.last_transition), (t(20), t(5)));
                assert!(last_update_time_changes && !last_transition_time_changes);
            }
            other => panic!("{other:?}"),
        }
        // Already NewReplicaSetAvailable and replicas == updated: the rollout is complete, kept.
        d.status.conditions = vec![progressing(True, Reason::NewReplicaSetAvailable, 10, 5)];
        assert_eq!(progressing_decision(&d, &s, Some("web-abc"), t(20)), ProgressingDecision::Keep);

        // Progress after a timeout: True/ReplicaSetUpdated with both times now (old was False).
        d.status = DeploymentStatus {
            replicas: 4,
            updated_replicas: 1,
            available_replicas: 2,
            ready_replicas: 2,
            conditions: vec![progressing(False, Reason::ProgressDeadlineExceeded, 700, 700)],
            ..Default::default()
        };
        let s = new_status(&d, 4, 2, 2);
        match progressing_decision(&d, &s, None, t(800)) {
            ProgressingDecision::Set { condition, last_transition_time_changes, .. } => {
                assert_eq!((condition.status, condition.reason), (True, Reason::ReplicaSetUpdated));
                assert_eq!(condition.message, "Deployment \"web\" is progressing.");
                assert_eq!((condition.last_update, condition.last_transition), (t(800), t(800)));
                assert!(last_transition_time_changes);
            }
            other => panic!("{other:?}"),
        }
        // Progress while True/ReplicaSetUpdated: same reason, but removed first, so lastUpdateTime
        // is refreshed and the transition kept.
        d.status.conditions = vec![progressing(True, Reason::ReplicaSetUpdated, 100, 50)];
        let s = new_status(&d, 4, 2, 2);
        match progressing_decision(&d, &s, Some("web-abc"), t(130)) {
            ProgressingDecision::Set { condition, last_transition_time_changes, .. } => {
                assert_eq!(condition.message, "ReplicaSet \"web-abc\" is progressing.");
                assert_eq!((condition.last_update, condition.last_transition), (t(130), t(50)));
                assert!(!last_transition_time_changes);
            }
            other => panic!("{other:?}"),
        }
        // No progress, deadline passed (100 + 600 < 701) → False/ProgressDeadlineExceeded; the status
        // changes, so the transition time is now.
        let s = new_status(&d, 4, 1, 2);
        match progressing_decision(&d, &s, Some("web-abc"), t(701)) {
            ProgressingDecision::Set { condition, last_transition_time_changes, .. } => {
                assert_eq!((condition.status, condition.reason), (False, Reason::ProgressDeadlineExceeded));
                assert_eq!(condition.message, "ReplicaSet \"web-abc\" has timed out progressing.");
                assert_eq!(condition.last_transition, t(701));
                assert!(last_transition_time_changes);
            }
            other => panic!("{other:?}"),
        }
        // No progress, before the deadline: kept.
        assert_eq!(progressing_decision(&d, &s, Some("web-abc"), t(700)), ProgressingDecision::Keep);
        // Already timed out, still no progress: SetDeploymentCondition is a no-op.
        d.status.conditions = vec![progressing(False, Reason::ProgressDeadlineExceeded, 700, 700)];
        let s = new_status(&d, 4, 1, 2);
        assert_eq!(progressing_decision(&d, &s, Some("web-abc"), t(900)), ProgressingDecision::Keep);
        // No deadline: removed.
        d.progress_deadline_seconds = None;
        assert_eq!(progressing_decision(&d, &s, Some("web-abc"), t(900)), ProgressingDecision::Remove);
    }

    #[test]
    fn requeue_for_the_deadline() {
        let mut d = deploy(3, rolling());
        let s = DeploymentStatus::default();
        // No Progressing condition: no requeue.
        assert_eq!(requeue_stuck_deployment(&d, &s, t(0)), Requeue::Never);
        d.status.conditions = vec![progressing(True, Reason::ReplicaSetUpdated, 100, 100)];
        // after = 100 + 600 − 400 = 300 s → AddAfter(301 s).
        assert_eq!(requeue_stuck_deployment(&d, &s, t(400)), Requeue::After(SimDuration::from_secs(301)));
        // 1 s exactly is not < 1 s: AddAfter(2 s).
        assert_eq!(requeue_stuck_deployment(&d, &s, t(699)), Requeue::After(SimDuration::from_secs(2)));
        // 0.5 s left, or already past: rate-limited, now.
        assert_eq!(requeue_stuck_deployment(&d, &s, t(699) + SimDuration::from_millis(500)), Requeue::RateLimited);
        assert_eq!(requeue_stuck_deployment(&d, &s, t(800)), Requeue::RateLimited);
        // Complete, or already timed out, or no deadline: none.
        let done = DeploymentStatus {
            observed_generation: 2,
            replicas: 3,
            updated_replicas: 3,
            available_replicas: 3,
            ..Default::default()
        };
        assert_eq!(requeue_stuck_deployment(&d, &done, t(400)), Requeue::Never);
        d.status.conditions = vec![progressing(False, Reason::ProgressDeadlineExceeded, 100, 100)];
        assert_eq!(requeue_stuck_deployment(&d, &s, t(400)), Requeue::Never);
        d.status.conditions = vec![progressing(True, Reason::ReplicaSetUpdated, 100, 100)];
        d.progress_deadline_seconds = None;
        assert_eq!(requeue_stuck_deployment(&d, &s, t(400)), Requeue::Never);
    }

    #[test]
    fn sync_rollout_status_writes_or_requeues() {
        // A quiet, incomplete rollout whose status is already current: no write, a requeue at
        // lastUpdateTime + 600 s + 1 s.
        let mut d = deploy(3, rolling());
        let old = [rs("old", 1, 1, 1, 1)];
        let new = rs("web-abc", 3, 3, 2, 2);
        let first = sync_rollout_status(&d, Some(&new), &old, false, t(10));
        assert!(first.update_status);
        d.status = first.status.clone();
        d.status.conditions = vec![progressing(True, Reason::ReplicaSetUpdated, 10, 10)];
        let _ = set_condition(
            &mut d.status.conditions,
            Condition::new(
                ConditionType::Available,
                True,
                Reason::MinimumReplicasAvailable,
                available_message(true).into(),
                t(10),
            ),
        );
        let again = sync_rollout_status(&d, Some(&new), &old, false, t(20));
        assert_eq!(again.progressing, ProgressingDecision::Keep);
        assert!(!again.update_status);
        assert_eq!(again.requeue, Requeue::After(SimDuration::from_secs(591)));

        // A ReplicaFailure on an old ReplicaSet is copied, lastUpdateTime = lastTransitionTime.
        let mut failing = old[0].clone();
        failing.failure = Some(RsFailure {
            status: True,
            reason: Reason::FailedCreate,
            message: "pods \"x\" is forbidden: quota".into(),
            last_transition: t(15),
        });
        let out = sync_rollout_status(&d, Some(&new), &[failing], false, t(20));
        let c = get_condition(&out.status.conditions, ConditionType::ReplicaFailure).unwrap();
        assert_eq!((c.reason, c.last_update, c.last_transition), (Reason::FailedCreate, t(15), t(15)));
        assert!(out.update_status);
        assert_eq!(out.requeue, Requeue::Never);
    }

    #[test]
    fn messages() {
        assert_eq!(new_replica_set_message(true, "web-abc"), "Created new replica set \"web-abc\"");
        assert_eq!(new_replica_set_message(false, "web-abc"), "Found new replica set \"web-abc\"");
        assert_eq!(
            replica_set_create_error_message("web-abc", "boom"),
            "Failed to create new replica set \"web-abc\": boom"
        );
        assert_eq!(
            rollout_message(Reason::ProgressDeadlineExceeded, "web", None),
            "Deployment \"web\" has timed out progressing."
        );
        assert_eq!(
            rollout_message(Reason::NewReplicaSetAvailable, "web", None),
            "Deployment \"web\" has successfully progressed."
        );
    }
}
