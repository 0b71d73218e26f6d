//! Timings a person reads off a pod's history, all measured from its
//! creation: when it became Ready, when each container instance started,
//! when CrashLoopBackOff showed. The same extraction serves recordings and
//! simulated traces, so their numbers compare.

use crate::observe::{Observed, Origin, Record, Span, When};
use k8s_openapi::api::core::v1::Pod;
use std::collections::BTreeMap;

/// The suffix of timings measured from the deletion request, not from creation.
pub const AFTER_DELETION: &str = " (after the deletion request)";

/// The name of the timing that is the deletion request itself.
pub const DELETION_REQUESTED: &str = "deletion requested";

/// One timing, in milliseconds since the pod's creation (or since the
/// deletion request, for names ending in [`AFTER_DELETION`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    pub at: Span,
    pub origin: Option<Origin>,
}

/// The timings of one pod, by name (`Ready`, `app started #2`, …), first
/// occurrence of each.
pub type Timings = BTreeMap<String, Timing>;

fn secs(t: &k8s_openapi::apimachinery::pkg::apis::meta::v1::Time) -> i64 {
    t.0.as_second()
}

/// A timestamp relative to the creation timestamp: both are whole seconds,
/// so the difference is known to within a second either way.
fn since(created: i64, t: i64) -> Span {
    let d = (t - created) * 1000;
    Span { lo: d - 999, hi: d + 1000 }
}

fn insert(out: &mut Timings, name: String, at: Span, origin: &Origin) {
    out.entry(name).or_insert(Timing { at, origin: Some(origin.clone()) });
}

/// Extracts the timings of every pod in `records`, keyed by pod name.
pub fn timings(records: &[Record]) -> BTreeMap<String, Timings> {
    let mut out: BTreeMap<String, Timings> = BTreeMap::new();
    let mut created: BTreeMap<String, i64> = BTreeMap::new();
    for r in records {
        match &r.observed {
            Observed::Pod(p) => {
                let Some(name) = p.metadata.name.clone() else { continue };
                let Some(c) = p.metadata.creation_timestamp.as_ref().map(secs) else { continue };
                created.insert(name.clone(), c);
                from_object(p, c, r, out.entry(name).or_default());
            }
            Observed::Row(row) => from_row(row, r, out.entry(row.name.clone()).or_default()),
            _ => {}
        }
    }
    out
}

fn from_object(p: &Pod, created: i64, r: &Record, out: &mut Timings) {
    let o = &r.origin;
    let status = p.status.as_ref();
    // Deletion: the request (deletionTimestamp − grace), and each container's
    // end after it.
    if let Some(dt) = p.metadata.deletion_timestamp.as_ref() {
        let requested = secs(dt) - p.metadata.deletion_grace_period_seconds.unwrap_or(0);
        insert(out, DELETION_REQUESTED.into(), since(created, requested), o);
        let all =
            status.into_iter().flat_map(|s| s.init_container_statuses.iter().chain(&s.container_statuses)).flatten();
        for s in all {
            if let Some(t) = s.state.as_ref().and_then(|x| x.terminated.as_ref()).and_then(|t| t.finished_at.as_ref())
                && secs(t) >= requested
            {
                insert(out, format!("{} stopped{AFTER_DELETION}", s.name), since(requested, secs(t)), o);
            }
        }
    }
    if let Some(ready) = status
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .find(|c| c.type_ == "Ready" && c.status == "True")
        && let Some(t) = ready.last_transition_time.as_ref()
    {
        insert(out, "Ready".into(), since(created, secs(t)), o);
    }
    for s in status.and_then(|s| s.container_statuses.as_ref()).into_iter().flatten() {
        let state = s.state.as_ref();
        if let Some(t) = state.and_then(|x| x.running.as_ref()).and_then(|x| x.started_at.as_ref()) {
            insert(out, format!("{} started #{}", s.name, s.restart_count), since(created, secs(t)), o);
        }
        let last = s.last_state.as_ref().and_then(|l| l.terminated.as_ref());
        if let Some(t) = last.and_then(|l| l.finished_at.as_ref()) {
            insert(out, format!("{} exited #{}", s.name, s.restart_count.max(1) - 1), since(created, secs(t)), o);
        }
        // When CrashLoopBackOff showed is an observation time: only a trace with times has it.
        if let (Some(w), When::At(seen)) = (state.and_then(|x| x.waiting.as_ref()), r.seen)
            && w.reason.as_deref() == Some("CrashLoopBackOff")
        {
            let at = Span { lo: seen.lo - created * 1000, hi: seen.hi - created * 1000 };
            insert(out, format!("{} CrashLoopBackOff after #{}", s.name, s.restart_count), at, o);
        }
    }
}

/// A `kubectl get -w` row prints a change when it happens: its AGE is the
/// time of the change, to the row's precision.
fn from_row(row: &crate::observe::PodRow, r: &Record, out: &mut Timings) {
    let o = &r.origin;
    if row.status == "CrashLoopBackOff" {
        insert(out, format!("CrashLoopBackOff after #{}", row.restarts), row.age, o);
    }
    if row.status == "Running" {
        insert(out, format!("Running #{}", row.restarts), row.age, o);
    }
    if row.ready.1 > 0 && row.ready.0 == row.ready.1 {
        insert(out, "all containers ready".into(), row.age, o);
    }
}

/// The same row-style timings for a simulated trace, from its API writes.
pub fn row_timings(records: &[Record]) -> BTreeMap<String, Timings> {
    let mut out: BTreeMap<String, Timings> = BTreeMap::new();
    for r in records {
        let (Observed::Pod(p), When::At(seen)) = (&r.observed, r.seen) else { continue };
        let (Some(name), Some(created)) = (p.metadata.name.clone(), p.metadata.creation_timestamp.as_ref().map(secs))
        else {
            continue;
        };
        let Some(row) = as_row(p) else { continue };
        let age = Span { lo: seen.lo - created * 1000, hi: seen.hi - created * 1000 };
        let record = Record { observed: Observed::Row(crate::observe::PodRow { age, ..row }), ..r.clone() };
        if let Observed::Row(row) = &record.observed {
            from_row(row, &record, out.entry(name).or_default());
        }
    }
    out
}

/// The `kubectl get pods` row of a Pod (`printPod`).
fn as_row(p: &Pod) -> Option<crate::observe::PodRow> {
    p.status.as_ref()?;
    let line = crate::kubectl::print_pod(p);
    Some(crate::observe::PodRow {
        namespace: p.metadata.namespace.clone(),
        name: p.metadata.name.clone()?,
        ready: line.ready,
        status: line.status,
        restarts: line.restarts,
        last_restart_ago: None,
        age: Span::exact(0),
    })
}
