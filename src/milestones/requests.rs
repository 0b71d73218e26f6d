//! Client milestones (`Record::Request`): the first and last successful
//! request of each client, and of each Service over all its clients.

use super::found::Found;
use crate::client::{Outcome, RequestRecord};
use crate::time::SimTime;
use foldhash::HashMap;

/// The outcomes that count as a success: an HTTP status from 200 to 399
/// (the range an HTTP probe accepts).
pub fn succeeded(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Http { status } if (200..400).contains(status))
}

/// The first and last success of each subject (`client/<name>`,
/// `svc/<name>`), kept by name parts and named once at the end: a run has
/// many requests and few subjects.
#[derive(Default)]
pub struct Requests<'t> {
    ok: HashMap<(&'static str, &'t str), (SimTime, SimTime)>,
}

impl<'t> Requests<'t> {
    pub fn see(&mut self, t: SimTime, r: &'t RequestRecord) {
        if !succeeded(&r.outcome) {
            return;
        }
        self.ok(("client", &r.client), t);
        if let Some(s) = service(&r.target) {
            self.ok(("svc", s), t);
        }
    }

    fn ok(&mut self, subject: (&'static str, &'t str), t: SimTime) {
        self.ok.entry(subject).and_modify(|(_, last)| *last = t).or_insert((t, t));
    }

    /// `first_ok` and `last_ok` of every subject that had a success.
    pub fn into_found(self, found: &mut Found) {
        for ((kind, name), (first, last)) in self.ok {
            found.first(format_args!("{kind}/{name}"), "first_ok", first);
            found.last(format_args!("{kind}/{name}"), "last_ok", last);
        }
    }
}

/// The Service a client's target names (`service/web:http`, `svc/web`), as
/// the scenario's traffic section accepts it.
pub fn service(target: &str) -> Option<&str> {
    match target.split_once('/')? {
        ("service" | "services" | "svc", rest) => rest.split(':').next(),
        _ => None,
    }
}
