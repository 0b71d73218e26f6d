//! Deployment conditions and the rules that set them
//! (deployment/util/deployment_util.go `NewDeploymentCondition`,
//! `SetDeploymentCondition`, `RemoveDeploymentCondition`).

use crate::time::SimTime;

/// `DeploymentConditionType`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConditionType {
    Available,
    Progressing,
    ReplicaFailure,
}

impl ConditionType {
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionType::Available => "Available",
            ConditionType::Progressing => "Progressing",
            ConditionType::ReplicaFailure => "ReplicaFailure",
        }
    }
}

/// `v1.ConditionStatus`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

impl ConditionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
        }
    }
}

/// The condition reasons the Deployment controller writes (the `…Reason`
/// constants of deployment_util.go), and the ReplicaSet failure reasons it
/// copies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    MinimumReplicasAvailable,
    MinimumReplicasUnavailable,
    NewReplicaSetCreated,
    FoundNewReplicaSet,
    ReplicaSetUpdated,
    NewReplicaSetAvailable,
    ProgressDeadlineExceeded,
    DeploymentPaused,
    DeploymentResumed,
    ReplicaSetCreateError,
    FailedCreate,
    FailedDelete,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::MinimumReplicasAvailable => "MinimumReplicasAvailable",
            Reason::MinimumReplicasUnavailable => "MinimumReplicasUnavailable",
            Reason::NewReplicaSetCreated => "NewReplicaSetCreated",
            Reason::FoundNewReplicaSet => "FoundNewReplicaSet",
            Reason::ReplicaSetUpdated => "ReplicaSetUpdated",
            Reason::NewReplicaSetAvailable => "NewReplicaSetAvailable",
            Reason::ProgressDeadlineExceeded => "ProgressDeadlineExceeded",
            Reason::DeploymentPaused => "DeploymentPaused",
            Reason::DeploymentResumed => "DeploymentResumed",
            Reason::ReplicaSetCreateError => "ReplicaSetCreateError",
            Reason::FailedCreate => "FailedCreate",
            Reason::FailedDelete => "FailedDelete",
        }
    }
}

/// One `status.conditions[]` entry of a Deployment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub kind: ConditionType,
    pub status: ConditionStatus,
    pub reason: Reason,
    pub message: String,
    pub last_update: SimTime,
    pub last_transition: SimTime,
}

impl Condition {
    /// deploymentutil.NewDeploymentCondition: both times are now.
    pub fn new(kind: ConditionType, status: ConditionStatus, reason: Reason, message: String, now: SimTime) -> Self {
        Condition { kind, status, reason, message, last_update: now, last_transition: now }
    }
}

/// deploymentutil.GetDeploymentCondition
pub fn get_condition(conditions: &[Condition], kind: ConditionType) -> Option<&Condition> {
    conditions.iter().find(|c| c.kind == kind)
}

/// deploymentutil.SetDeploymentCondition: same status and reason → no change at all (not even the
/// message or lastUpdateTime); same status, other reason → lastTransitionTime kept; the condition
/// moves to the end of the list. Returns whether the list changed.
pub fn set_condition(conditions: &mut Vec<Condition>, mut condition: Condition) -> bool {
    if let Some(current) = get_condition(conditions, condition.kind) {
        if current.status == condition.status && current.reason == condition.reason {
            return false;
        }
        if current.status == condition.status {
            condition.last_transition = current.last_transition;
        }
    }
    conditions.retain(|c| c.kind != condition.kind);
    conditions.push(condition);
    true
}

/// deploymentutil.RemoveDeploymentCondition. Returns whether one was removed.
pub fn remove_condition(conditions: &mut Vec<Condition>, kind: ConditionType) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.kind != kind);
    conditions.len() != before
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConditionStatus::*;
    use ConditionType::*;

    fn t(s: u64) -> SimTime {
        SimTime::from_millis(s * 1000)
    }

    #[test]
    fn set_condition_follows_set_deployment_condition() {
        let mut conds = vec![
            Condition::new(
                Progressing,
                True,
                Reason::NewReplicaSetCreated,
                "Created new replica set \"a\"".into(),
                t(1),
            ),
            Condition::new(Available, True, Reason::MinimumReplicasAvailable, "m".into(), t(1)),
        ];
        // Same status and reason: nothing changes, not even the message.
        let same = Condition::new(Progressing, True, Reason::NewReplicaSetCreated, "other".into(), t(5));
        assert!(!set_condition(&mut conds, same));
        assert_eq!(conds[0].message, "Created new replica set \"a\"");
        assert_eq!(conds[0].last_update, t(1));
        // Same status, new reason: lastTransitionTime kept, lastUpdateTime new,
        // and the condition moves to the end.
        let upd = Condition::new(Progressing, True, Reason::ReplicaSetUpdated, "p".into(), t(7));
        assert!(set_condition(&mut conds, upd));
        assert_eq!(conds[0].kind, Available);
        assert_eq!((conds[1].last_update, conds[1].last_transition), (t(7), t(1)));
        // New status: both times new.
        let flip = Condition::new(Progressing, False, Reason::ProgressDeadlineExceeded, "x".into(), t(9));
        assert!(set_condition(&mut conds, flip));
        assert_eq!((conds[1].last_update, conds[1].last_transition), (t(9), t(9)));
        assert!(remove_condition(&mut conds, Progressing));
        assert!(!remove_condition(&mut conds, Progressing));
        assert_eq!(conds.len(), 1);
    }

    #[test]
    fn strings() {
        assert_eq!(Reason::ProgressDeadlineExceeded.as_str(), "ProgressDeadlineExceeded");
        assert_eq!(Reason::NewReplicaSetAvailable.as_str(), "NewReplicaSetAvailable");
        assert_eq!(ReplicaFailure.as_str(), "ReplicaFailure");
        assert_eq!(Unknown.as_str(), "Unknown");
    }
}
