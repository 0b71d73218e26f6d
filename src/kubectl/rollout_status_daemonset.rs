//! `kubectl rollout status daemonset/<name>`: the line it prints for each
//! version of the DaemonSet it sees (kubectl polymorphichelpers
//! `DaemonSetStatusViewer.Status`), and the lines of one run after an apply.

use super::rollout_status::Verdict;
use super::rollout_watch::watch_versions;
use crate::api::daemonset::ApiDaemonSet;
use crate::spec::daemonset::DaemonStrategy;
use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
use crate::trace::record::Record;

/// `DaemonSetStatusViewer.Status`. The error names the StatefulSet
/// constant, whose value is the same word.
pub fn daemon_set_status(d: &ApiDaemonSet) -> Verdict {
    if d.spec.strategy == DaemonStrategy::OnDelete {
        return Verdict::Failed("error: rollout status is only available for RollingUpdate strategy type\n".into());
    }
    let (name, s) = (&d.spec.name, &d.status);
    if d.meta.generation > s.observed_generation {
        return Verdict::Waiting("Waiting for daemon set spec update to be observed...\n".into());
    }
    let waiting =
        |what: String| Verdict::Waiting(format!("Waiting for daemon set \"{name}\" rollout to finish: {what}...\n"));
    if s.updated_number_scheduled < s.desired_number_scheduled {
        return waiting(format!(
            "{} out of {} new pods have been updated",
            s.updated_number_scheduled, s.desired_number_scheduled
        ));
    }
    if s.number_available < s.desired_number_scheduled {
        return waiting(format!("{} of {} updated pods are available", s.number_available, s.desired_number_scheduled));
    }
    Verdict::Done(format!("daemon set \"{name}\" successfully rolled out\n"))
}

/// What `kubectl rollout status daemonset/NAME` prints from `start`, each
/// version of the DaemonSet judged as its watch event comes.
pub fn watch(trace: &Trace, name: &str, start: SimTime, timeout: Option<SimDuration>) -> Vec<(SimTime, Verdict)> {
    let versions = trace.entries.iter().filter_map(|e| match &e.record {
        Record::DaemonSet { ds, .. } if ds.spec.name == name => Some((e.t, ds.meta.removed, daemon_set_status(ds))),
        _ => None,
    });
    watch_versions(versions, start, timeout)
}
