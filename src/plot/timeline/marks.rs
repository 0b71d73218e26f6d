//! The vertical lines: the run's key milestones and the scenario's actions.

use super::model::{Mark, secs};
use crate::milestones::Milestone;
use crate::plot::key;

/// The marks of a run's milestones and actions, in time order.
pub fn marks(milestones: &[Milestone], actions: Vec<(f64, String)>) -> Vec<Mark> {
    let mut out: Vec<Mark> = milestones
        .iter()
        .filter(|m| key::rank(&m.name).is_some())
        .map(|m| Mark { at: secs(m.at), label: m.name.to_string(), action: false })
        .chain(actions.into_iter().map(|(at, label)| Mark { at, label, action: true }))
        .collect();
    // Stable: same-instant marks keep milestone order, actions after.
    out.sort_by(|a, b| a.at.total_cmp(&b.at));
    out
}
