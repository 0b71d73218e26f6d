//! A run's events and probe results as HTML tables.

use super::escape::html;
use crate::trace::Trace;
use crate::trace::record::{ApiEvent, EventSource, Record};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

/// Rows kept per table; the rest are counted.
pub const MAX_ROWS: usize = 2000;

fn secs(ms: u64) -> String {
    format!("{}.{:03}s", ms / 1000, ms % 1000)
}

/// Each Event once, as the API server holds it at the run's end (its last
/// count), ordered by when it was last seen, as `kubectl events` sorts.
pub fn events(trace: &Trace) -> String {
    let mut last: BTreeMap<(Arc<str>, &str), Arc<ApiEvent>> = BTreeMap::new();
    for e in &trace.entries {
        if let Record::Event(ev) = &e.record {
            last.insert((ev.namespace.clone(), ev.name.as_str()), ev.clone());
        }
    }
    let mut list: Vec<_> = last.into_values().collect();
    list.sort_by_key(|e| (e.last, e.first));
    let mut out = String::from(
        "<table class=\"events\"><thead><tr><th>LAST SEEN</th><th>TYPE</th><th>REASON</th><th>OBJECT</th><th>SOURCE</th><th>MESSAGE</th></tr></thead><tbody>\n",
    );
    for ev in list.iter().take(MAX_ROWS) {
        let kind = match &ev.source {
            EventSource::Controller { kind, .. } => kind.to_ascii_lowercase(),
            _ => "pod".to_string(),
        };
        let source = match &ev.source {
            EventSource::Kubelet { node } => format!("kubelet, {node}"),
            EventSource::Scheduler => "default-scheduler".to_string(),
            EventSource::Controller { component, .. } => component.to_string(),
        };
        let count = match ev.count {
            1 => String::new(),
            n => format!(" (x{n} since {})", secs(ev.first.as_millis())),
        };
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><td>{}{count}</td><td>{}</td><td>{}</td><td>{kind}/{}</td><td>{}</td><td>{}</td></tr>",
            if ev.warning { "warning" } else { "normal" },
            secs(ev.last.as_millis()),
            if ev.warning { "Warning" } else { "Normal" },
            ev.reason,
            html(&ev.pod),
            html(&source),
            html(&ev.message)
        );
    }
    out.push_str("</tbody></table>\n");
    more(&mut out, list.len(), "events");
    out
}

/// Every probe run: when, which container's which probe, the result, how
/// many in a row against the threshold, and whether it changed the result.
pub fn probes(trace: &Trace) -> String {
    let mut out = String::from(
        "<table class=\"probes\"><thead><tr><th>TIME</th><th>POD</th><th>CONTAINER</th><th>PROBE</th><th>RESULT</th><th>IN A ROW</th><th>OUTPUT</th></tr></thead><tbody>\n",
    );
    let mut n = 0;
    for e in &trace.entries {
        let Record::Probe(p) = &e.record else { continue };
        n += 1;
        if n > MAX_ROWS {
            continue;
        }
        let row = match p.threshold {
            0 => "not counted".to_string(),
            t => format!("{}/{t}{}", p.run, if p.published { ", published" } else { "" }),
        };
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{row}</td><td>{}</td></tr>",
            p.verdict.as_str(),
            secs(e.t.as_millis()),
            html(&p.pod),
            html(&p.container),
            p.probe,
            p.verdict.as_str(),
            html(&p.detail)
        );
    }
    out.push_str("</tbody></table>\n");
    more(&mut out, n, "probe results");
    out
}

fn more(out: &mut String, n: usize, what: &str) {
    match n {
        0 => {
            let _ = writeln!(out, "<p class=\"none\">No {what} in this run.</p>");
        }
        n if n > MAX_ROWS => {
            let _ = writeln!(
                out,
                "<p class=\"kept\">The first {MAX_ROWS} of {n} {what}; the rest are in `podsim run -o jsonl`.</p>"
            );
        }
        _ => {}
    }
}
