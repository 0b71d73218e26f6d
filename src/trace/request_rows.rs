//! The clients' rows, aggregated per client and outcome: a row when a
//! client gets an outcome it has not been getting, or the set of pods
//! serving it changes (a pod answers that had not, or one stops being a
//! serving endpoint of its Service), saying what the requests since the last
//! row got and from which pods; and a closing row per client with its
//! requests since its last row. Outcomes that alternate (an old pod
//! refusing while a new one answers) are counted, not printed one by one: at
//! any rate the table stays a few rows per change of the Service.

use super::table::{Row, RowType};
use crate::client::RequestRecord;
use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::Arc;

/// The requests of one client with one outcome since its last row.
struct Window {
    /// What makes two outcomes the same (the outcome with its cause).
    outcome: String,
    summary: String,
    first: u32,
    last: u32,
    count: u32,
    /// Answers per pod.
    pods: BTreeMap<Arc<str>, u32>,
}

struct Client {
    /// The Service it sends to (`service/NAME[:PORT]`), by name.
    service: Option<String>,
    path: Arc<str>,
    /// The pods that answer it now: each that answered, until its endpoint
    /// stops serving.
    serving: BTreeSet<Arc<str>>,
    /// The serving set when the last row was printed.
    serving_at_row: BTreeSet<Arc<str>>,
    /// The outcomes it has been getting since the serving set last changed.
    outcomes: BTreeSet<String>,
    /// Its requests since its last row, by outcome in order of appearance.
    since: Vec<Window>,
    /// When its last request's record was written.
    last_t: SimTime,
}

#[derive(Default)]
pub struct RequestRows {
    clients: BTreeMap<Arc<str>, Client>,
}

impl Window {
    /// `#3–#57 → 200 ×55 (pod/a ×20, pod/b ×35)`.
    fn text(&self) -> String {
        let mut s = match self.first == self.last {
            true => format!("#{} → {} ×1", self.first, self.summary),
            false => format!("#{}–#{} → {} ×{}", self.first, self.last, self.summary, self.count),
        };
        if !self.pods.is_empty() {
            let pods: Vec<String> = self.pods.iter().map(|(p, n)| format!("pod/{p} ×{n}")).collect();
            let _ = write!(s, " ({})", pods.join(", "));
        }
        s
    }
}

impl Client {
    fn count(&mut self, r: &RequestRecord, outcome: String, pod: Option<Arc<str>>) {
        let w = match self.since.iter().position(|w| w.outcome == outcome) {
            Some(i) => &mut self.since[i],
            None => {
                let summary = r.outcome.summary();
                let w = Window { outcome, summary, first: r.n, last: r.n, count: 0, pods: BTreeMap::new() };
                self.since.push(w);
                self.since.last_mut().expect("just pushed")
            }
        };
        w.first = w.first.min(r.n);
        w.last = w.last.max(r.n);
        w.count += 1;
        if let Some(p) = pod {
            *w.pods.entry(p).or_default() += 1;
        }
    }

    /// `#3–#57 → 200 ×55 (…); #40–#41 → connection refused ×2 (…)`.
    fn since_text(&self) -> String {
        self.since.iter().map(Window::text).collect::<Vec<_>>().join("; ")
    }
}

impl RequestRows {
    pub fn request(&mut self, t: SimTime, r: &RequestRecord, out: &mut Vec<Row>) {
        let client = self.clients.entry(r.client.clone()).or_insert_with(|| Client {
            service: service_name(&r.target),
            path: r.path.clone(),
            serving: BTreeSet::new(),
            serving_at_row: BTreeSet::new(),
            outcomes: BTreeSet::new(),
            since: Vec::new(),
            last_t: t,
        });
        client.last_t = t;
        let pod = r.pod.as_ref().map(|(name, _)| name.clone());
        if let Some(p) = &pod {
            client.serving.insert(p.clone());
        }
        let outcome = format!("{:?}", r.outcome);
        let moved = client.serving != client.serving_at_row;
        if !moved && client.outcomes.contains(&outcome) {
            client.count(r, outcome, pod);
            return;
        }
        let mut why = request_why(r);
        if client.since.iter().map(|w| w.count).sum::<u32>() > 1 {
            let _ = write!(why, "; since the last row: {}", client.since_text());
        }
        let what = format!("GET {} #{} → {}", r.path, r.n, r.outcome.summary());
        out.push(Row { t, namespace: None, kind: RowType::Request, object: format!("client/{}", r.client), what, why });
        if moved {
            client.outcomes.clear();
        }
        client.outcomes.insert(outcome.clone());
        client.serving_at_row = client.serving.clone();
        client.since.clear();
        client.count(r, outcome, pod);
    }

    /// The pods whose endpoints serve Service `name` now: the others leave
    /// the serving sets of its clients.
    pub fn serving(&mut self, name: &str, pods: &BTreeSet<Arc<str>>) {
        for c in self.clients.values_mut().filter(|c| c.service.as_deref() == Some(name)) {
            c.serving.retain(|p| pods.contains(p));
        }
    }

    /// Each client's requests since its last row, at its last request.
    pub fn finish(&mut self, out: &mut Vec<Row>) {
        for (name, c) in &self.clients {
            if c.since.iter().map(|w| w.count).sum::<u32>() <= 1 {
                continue;
            }
            let first = c.since.iter().map(|w| w.first).min().unwrap_or_default();
            let last = c.since.iter().map(|w| w.last).max().unwrap_or_default();
            let counts: Vec<String> = c.since.iter().map(|w| format!("{} ×{}", w.summary, w.count)).collect();
            out.push(Row {
                t: c.last_t,
                namespace: None,
                kind: RowType::Request,
                object: format!("client/{name}"),
                what: format!("GET {} #{first}–#{last}: {}", c.path, counts.join(", ")),
                why: format!("the client's requests since its last row: {}", c.since_text()),
            });
        }
    }
}

/// `web` of `service/web:http`; `None` for a pod target.
fn service_name(target: &str) -> Option<String> {
    let rest = target.strip_prefix("service/")?;
    Some(rest.split(':').next().unwrap_or(rest).to_string())
}

fn request_why(r: &RequestRecord) -> String {
    let via = match (&r.endpoint, &r.pod) {
        (Some(e), Some((pod, _))) => format!(" → pod/{pod} ({e})"),
        (Some(e), None) => format!(" → {e}"),
        _ => String::new(),
    };
    let sticky = if r.sticky { ", by ClientIP affinity" } else { "" };
    let detail = r.outcome.detail();
    let detail = if detail.is_empty() { String::new() } else { format!(": {detail}") };
    format!("sent {} from {} to {}{via}{sticky}{detail}", r.sent, r.from, r.target)
}
