//! Milestones: the named instants of a run that users ask about ("when was
//! the pod Ready?", "when did the first request succeed?"), extracted from any
//! trace, simulated or recorded. Names are stable: properties and predictions
//! refer to them.
//!
//! A name is `<subject>:<event>`. Subjects: `pod/<alias>` (see [`names`] for
//! the seed-independent aliases of ReplicaSet pods), `pod/<alias>/<container>`,
//! `svc/<service>`, `client/<client>`, `deploy/<deployment>@rev<k>`,
//! `job/<job>`, `cronjob/<cronjob>`, `node/<node>`, `sts/<statefulset>`
//! (`sts/web:pod#2:ready`), `sts/<statefulset>@gen<g>` and
//! `ds/<daemonset>@gen<k>` (its template generation `k`). An event
//! is a word, optionally numbered (`restart#2`) or with arguments in
//! parentheses (`endpoint_ready(pod/web@rev1#1)`,
//! `programmed(node/kind-worker)`). Each milestone is the first time its
//! event happened, unless its name says otherwise (`last_…`, `#k`). The book
//! chapter "Milestones" defines every one.

mod daemonsets;
mod deployments;
pub mod endpoints;
pub mod events;
mod found;
mod jobs;
pub mod names;
mod nodes;
pub mod pattern;
mod pods;
mod processes;
mod proxies;
pub mod requests;
pub mod statefulsets;
#[cfg(test)]
mod tests;

use crate::time::SimTime;
use crate::trace::{Record, Trace};
use std::sync::Arc;

/// One milestone of one run: its stable name and when it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Milestone {
    pub name: Arc<str>,
    pub at: SimTime,
}

/// Every milestone the trace reached, in time order (ties by name).
pub fn extract(trace: &Trace) -> Vec<Milestone> {
    let names = names::Names::new(trace);
    let mut found = found::Found::default();
    let mut pods = pods::Pods::default();
    let mut endpoints = endpoints::Endpoints::default();
    let mut proxies = proxies::Proxies::default();
    let mut deployments = deployments::Deployments::default();
    let mut requests = requests::Requests::default();
    let mut cronjob_runs = std::collections::BTreeMap::new();
    for e in &trace.entries {
        let t = e.t;
        match &e.record {
            Record::Pod { kind, pod } => {
                pods.see(t, *kind, pod, &names, &mut found);
                statefulsets::see_pod(t, *kind, pod, &mut found);
            }
            Record::Process { pod, container, fact, .. } => processes::see(t, pod, container, fact, &names, &mut found),
            Record::Slice { kind, slice } => endpoints.see(t, *kind, slice, &names, &mut found),
            Record::ProxySync(sync) => proxies.see(t, sync, &names, &mut found),
            Record::Request(r) => requests.see(t, r),
            Record::Deployment { deployment, .. } => deployments.see(t, deployment, &mut found),
            Record::Node { node, .. } => nodes::see(t, node, &mut found),
            Record::Job { kind, job } => {
                jobs::see_created(
                    job,
                    *kind == crate::trace::record::WatchKind::Added,
                    t,
                    &mut cronjob_runs,
                    &mut found,
                );
                jobs::see(t, job, &mut found)
            }
            Record::StatefulSet { sts, .. } => statefulsets::see(t, sts, &mut found),
            Record::DaemonSet { ds, .. } => daemonsets::see(t, ds, &mut found),
            _ => {}
        }
    }
    requests.into_found(&mut found);
    found.into_sorted()
}
