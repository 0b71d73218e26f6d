//! The Service path as only a simulated trace shows it: each kube-proxy's
//! committed rules against the slices written before them and the requests
//! sent after them, and each client request's single outcome.

mod programmed;
mod requests;
mod routed;

pub use requests::Horizon;

use super::report::PodReport;
use crate::observe::Origin;
use crate::trace::Trace;
use crate::trace::record::Record;
use std::sync::Arc;

/// The report entry of the Service path's rules.
pub const ENTRY: &str = "(Service path)";

fn origin(i: usize) -> Origin {
    Origin { file: Arc::from("trace"), line: i as u64 + 1 }
}

/// The three rules' verdicts, or `None` when the trace has no Service path.
pub fn judge(trace: &Trace, horizon: &Horizon) -> Option<PodReport> {
    let count = |f: fn(&Record) -> bool| trace.entries.iter().filter(|e| f(&e.record)).count();
    let requests = count(|r| matches!(r, Record::Request(_)));
    let syncs = count(|r| matches!(r, Record::ProxySync(_)));
    let services = count(|r| matches!(r, Record::Service { .. }));
    if requests + syncs + services == 0 {
        return None;
    }
    let verdicts = [
        ("request-follows-proxy-rules", routed::judge(trace).verdict("no request to a Service was routed")),
        ("proxy-after-slice", programmed::judge(trace).verdict("no kube-proxy forwarded to an endpoint")),
        ("one-outcome-per-request", requests::judge(trace, horizon).verdict("no requests")),
    ];
    Some(PodReport {
        pod: ENTRY.into(),
        observed: format!("{requests} request(s), {syncs} kube-proxy sync(s)"),
        verdicts: verdicts.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests;
