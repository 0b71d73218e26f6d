//! The milestones worth a vertical line: the steps a reader looks for
//! (scheduled, initialized, Ready, the first 200, a rollout's end…), not
//! every milestone the run reached; and the scenario's actions.

use super::model::{Mark, secs};
use crate::milestones::Milestone;

/// Events marked wherever they happen.
const EVENTS: [&str; 9] = [
    "scheduled",
    "initialized",
    "ready",
    "not_ready",
    "crashloop",
    "deleted",
    "first_ok",
    "rollout_complete",
    "progress_deadline_exceeded",
];

/// Whether a milestone gets a line: a pod's (not a container's) step, the
/// first restart of a container, a Service's first ready endpoint per pod
/// and first programming per node.
pub fn worth_marking(name: &str) -> bool {
    let Some((subject, event)) = name.split_once(':') else { return false };
    let container = subject.starts_with("pod/") && subject.matches('/').count() > 1;
    match container {
        true => event == "restart#1",
        false => {
            EVENTS.contains(&event)
                || event.starts_with("endpoint_ready(")
                || (event.starts_with("programmed(") && !event.contains(','))
        }
    }
}

/// The marks of a run's milestones and actions, in time order.
pub fn marks(milestones: &[Milestone], actions: Vec<(f64, String)>) -> Vec<Mark> {
    let mut out: Vec<Mark> = milestones
        .iter()
        .filter(|m| worth_marking(&m.name))
        .map(|m| Mark { at: secs(m.at), label: m.name.to_string(), action: false })
        .chain(actions.into_iter().map(|(at, label)| Mark { at, label, action: true }))
        .collect();
    // Stable: same-instant marks keep milestone order, actions after.
    out.sort_by(|a, b| a.at.total_cmp(&b.at));
    out
}

#[cfg(test)]
mod tests {
    use super::worth_marking;

    #[test]
    fn pod_steps_and_first_restarts_are_marked_not_every_milestone() {
        assert!(worth_marking("pod/web:ready"));
        assert!(worth_marking("svc/web:programmed(node/kind-worker)"));
        assert!(worth_marking("pod/web/app:restart#1"));
        assert!(!worth_marking("pod/web/app:ready"));
        assert!(!worth_marking("pod/web/app:restart#2"));
        assert!(!worth_marking("svc/web:programmed(node/kind-worker,pod/web)"));
        assert!(!worth_marking("pod/web:created"));
    }
}
