//! The milestones found so far: one time per name. The extractors read the
//! trace in time order, so the first time a name is offered is its earliest.

use super::Milestone;
use crate::time::SimTime;
use std::collections::HashMap;

#[derive(Default)]
pub struct Found {
    times: HashMap<String, SimTime>,
}

impl Found {
    /// Keeps the first time offered for `name`.
    pub fn first(&mut self, name: String, at: SimTime) {
        self.times.entry(name).or_insert(at);
    }

    /// Keeps the last time offered for `name` (the `last_…` milestones).
    pub fn last(&mut self, name: String, at: SimTime) {
        self.times.insert(name, at);
    }

    /// In time order, ties by name.
    pub fn into_sorted(self) -> Vec<Milestone> {
        let mut out: Vec<Milestone> =
            self.times.into_iter().map(|(name, at)| Milestone { name: name.into(), at }).collect();
        out.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.name.cmp(&b.name)));
        out
    }
}
