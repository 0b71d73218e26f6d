//! The milestones found so far: one time per name. The extractors read the
//! trace in time order, so the first time a name is offered is its earliest.

use super::Milestone;
use crate::time::SimTime;
use foldhash::HashMap;
use std::fmt::{Display, Write};
use std::sync::Arc;

#[derive(Default)]
pub struct Found {
    times: HashMap<Arc<str>, SimTime>,
    /// The name being offered: most offers repeat a name already found, so
    /// it is written here and copied only when it is new.
    name: String,
}

impl Found {
    /// Keeps the first time offered for `<subject>:<event>`.
    pub fn first(&mut self, subject: impl Display, event: impl Display, at: SimTime) {
        let name = compose(&mut self.name, subject, event);
        if !self.times.contains_key(name) {
            self.times.insert(name.into(), at);
        }
    }

    /// Keeps the last time offered for `<subject>:<event>` (the `last_…`
    /// milestones).
    pub fn last(&mut self, subject: impl Display, event: impl Display, at: SimTime) {
        let name = compose(&mut self.name, subject, event);
        match self.times.get_mut(name) {
            Some(t) => *t = at,
            None => {
                self.times.insert(name.into(), at);
            }
        }
    }

    /// In time order, ties by name.
    pub fn into_sorted(self) -> Vec<Milestone> {
        let mut out: Vec<Milestone> = self.times.into_iter().map(|(name, at)| Milestone { name, at }).collect();
        out.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.name.cmp(&b.name)));
        out
    }
}

/// `<subject>:<event>`, the form of every milestone name, written in `buffer`.
fn compose(buffer: &mut String, subject: impl Display, event: impl Display) -> &str {
    buffer.clear();
    let _ = write!(buffer, "{subject}:{event}");
    buffer
}
