//! Client milestones (`Record::Request`): the first and last successful
//! request of each client, and of each Service over all its clients.

use super::found::Found;
use super::names::milestone;
use crate::client::{Outcome, RequestRecord};
use crate::time::SimTime;

/// The outcomes that count as a success: an HTTP status from 200 to 399
/// (the range an HTTP probe accepts).
pub fn succeeded(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Http { status } if (200..400).contains(status))
}

pub fn see(t: SimTime, r: &RequestRecord, found: &mut Found) {
    if !succeeded(&r.outcome) {
        return;
    }
    let mut subjects = vec![format!("client/{}", r.client)];
    subjects.extend(service(&r.target).map(|s| format!("svc/{s}")));
    for s in subjects {
        found.first(milestone(&s, "first_ok"), t);
        found.last(milestone(&s, "last_ok"), t);
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
