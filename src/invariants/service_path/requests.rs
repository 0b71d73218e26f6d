//! `one-outcome-per-request`: a client reports each request once, between
//! its send and its timeout (the client gives up then; a later answer finds
//! no one waiting). A request still open when the run ends has no record,
//! so a number is missing only if the run ended within a timeout of its send.

use super::origin;
use crate::client::Outcome;
use crate::invariants::report::Tally;
use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
use crate::trace::record::Record;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the checker knows of the run beyond its records.
#[derive(Clone, Debug, Default)]
pub struct Horizon {
    /// When the run ended; else its last record's time (the end is no earlier).
    pub end: Option<SimTime>,
    /// Each client's timeout; else the wait of its timed-out requests, if any.
    pub timeouts: BTreeMap<Arc<str>, SimDuration>,
}

/// One REQUEST record: when, sent when, timed out, trace line.
struct Seen {
    at: SimTime,
    sent: SimTime,
    timeout: bool,
    line: usize,
}

pub fn judge(trace: &Trace, horizon: &Horizon) -> Tally {
    let mut t = Tally::default();
    let mut clients: BTreeMap<Arc<str>, BTreeMap<u32, Vec<Seen>>> = BTreeMap::new();
    for (i, e) in trace.entries.iter().enumerate() {
        if let Record::Request(r) = &e.record {
            let timeout = matches!(r.outcome, Outcome::Timeout(_));
            let seen = Seen { at: e.t, sent: r.sent, timeout, line: i };
            clients.entry(r.client.clone()).or_default().entry(r.n).or_default().push(seen);
        }
    }
    let end = horizon.end.or(trace.entries.last().map(|e| e.t)).unwrap_or(SimTime::ZERO);
    for (client, requests) in &clients {
        let wait = horizon.timeouts.get(client).copied().or_else(|| {
            let s = requests.values().flatten().find(|s| s.timeout)?;
            Some(s.at.since(s.sent))
        });
        let mut previous: Option<(u32, SimTime)> = None;
        for (&n, seen) in requests {
            if seen.len() > 1 {
                let at: Vec<_> = seen.iter().map(|s| origin(s.line)).collect();
                t.violate(
                    &at.iter().collect::<Vec<_>>(),
                    format!("{client} {n}: one outcome"),
                    format!("{} REQUEST records", seen.len()),
                );
                continue;
            }
            let s = &seen[0];
            let o = origin(s.line);
            if let Some(broken) = timing(s, wait) {
                t.violate(&[&o], format!("{client} {n}: {broken}"), format!("sent {}, recorded {}", s.sent, s.at));
                continue;
            }
            // Requests leave in number order; a missing one was sent no later
            // than the next one recorded, so it may be open only if that one
            // was sent less than a timeout before the end.
            let missing = previous.map_or(n > 1, |(m, _)| n > m + 1);
            match (previous, wait) {
                (Some((m, sent)), _) if sent > s.sent => t.violate(
                    &[&o],
                    format!("{client} {n}: sent no earlier than request {m} ({sent})"),
                    format!("sent {}", s.sent),
                ),
                (_, Some(w)) if missing && s.sent + w <= end => t.violate(
                    &[&o],
                    format!(
                        "{client}: every request before {n} recorded, as {n} was sent at {} and the run went on to {end}, past its {w} timeout",
                        s.sent
                    ),
                    format!("request {} has no outcome", previous.map_or(1, |(m, _)| m + 1)),
                ),
                _ => t.hold(),
            }
            previous = Some((n, s.sent));
        }
    }
    t
}

/// What is wrong with a record's time, given the client's timeout.
fn timing(s: &Seen, wait: Option<SimDuration>) -> Option<String> {
    if s.at < s.sent {
        return Some("an outcome no earlier than the send".into());
    }
    let took = s.at.since(s.sent);
    match wait {
        Some(w) if took > w => Some(format!("an outcome within the {w} timeout")),
        Some(w) if s.timeout && took != w => Some(format!("a timeout exactly {w} after the send")),
        _ => None,
    }
}
