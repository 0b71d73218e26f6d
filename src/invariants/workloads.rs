//! The rows of `kubectl get rs|deploy|sts|job`: what their counts can show
//! about the controllers that wrote them, and a list of what was read.
//!
//! Each row prints one status write, so the counts it shows were computed
//! together: a ReplicaSet counts its ready pods among the same active pods
//! it counts as current, and an available pod is one that is ready.

use super::report::{ControllerReport, Tally};
use super::{Invariant, Scope, inv};
use crate::observe::{Origin, Span, Workload, WorkloadRow};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The rule judged on controllers' rows.
pub const WORKLOAD_RULES: &[Invariant] = &[inv(
    "controller-counts",
    "a ReplicaSet's READY ≤ CURRENT (its ready pods are counted among the same active pods); a Deployment's AVAILABLE ≤ its ready replicas (a pod counts as available only once ready, summed over the same ReplicaSets); a Job's DURATION ≤ its AGE (startTime is set after creation); a StatefulSet's READY is listed, not judged; a DaemonSet's CURRENT ≤ DESIRED, READY and UP-TO-DATE ≤ CURRENT, AVAILABLE ≤ READY (each node judged by its oldest pod, counted only when it should run one)",
    "pkg/controller/replicaset/replica_set_utils.go calculateStatus; pkg/controller/deployment/sync.go calculateStatus (podutil.IsPodAvailable); pkg/controller/job/job_controller.go syncJob (StartTime) and pkg/printers/internalversion/printers.go printJob; pkg/controller/daemon/daemon_controller.go updateDaemonSetStatus",
    Scope::Snapshot,
)];

/// What the checker keeps about one controller object.
#[derive(Default)]
pub struct WorkloadState {
    kind: &'static str,
    name: String,
    rows: u32,
    tally: Tally,
    /// The first and the last row's counts, at their ages.
    first: Option<(String, Span)>,
    last: Option<(String, Span)>,
}

/// The key of a controller object: kind, namespace, name.
pub fn key(row: &WorkloadRow) -> String {
    format!("{}/{}/{}", row.shows.kind(), row.namespace.as_deref().unwrap_or("default"), row.name)
}

impl WorkloadState {
    pub fn observe(&mut self, row: &WorkloadRow, o: &Origin) {
        self.kind = row.shows.kind();
        self.name = row.name.clone();
        self.rows += 1;
        let shown = counts(&row.shows);
        self.first.get_or_insert_with(|| (shown.clone(), row.age));
        self.last = Some((shown, row.age));
        let t = &mut self.tally;
        match &row.shows {
            Workload::ReplicaSet { current, ready, .. } if ready > current => {
                t.violate(&[o], format!("READY ≤ CURRENT ({current})"), format!("READY {ready}"))
            }
            Workload::Deployment { ready, available, .. } if available > ready => {
                t.violate(&[o], format!("AVAILABLE ≤ the ready replicas ({ready})"), format!("AVAILABLE {available}"))
            }
            Workload::Job { duration: Some(d), .. } if d.lo >= row.age.hi => {
                t.violate(&[o], format!("DURATION ≤ AGE ({})", age(row.age)), format!("DURATION {}", age(*d)))
            }
            Workload::ReplicaSet { .. } | Workload::Deployment { .. } => t.hold(),
            Workload::Job { duration: Some(_), .. } => t.hold(),
            Workload::Job { duration: None, .. } => t.skip("no DURATION yet (the Job has not started)"),
            Workload::StatefulSet { .. } => t.skip("a StatefulSet row: READY is listed, no rule judges it"),
            Workload::DaemonSet { desired, current, ready, updated, available } => {
                let (desired, current, ready, updated, available) = (*desired, *current, *ready, *updated, *available);
                if current > desired {
                    t.violate(&[o], format!("CURRENT ≤ DESIRED ({desired})"), format!("CURRENT {current}"))
                } else if ready > current || updated > current {
                    let shown = format!("READY {ready}, UP-TO-DATE {updated}");
                    t.violate(&[o], format!("READY and UP-TO-DATE ≤ CURRENT ({current})"), shown)
                } else if available > ready {
                    t.violate(&[o], format!("AVAILABLE ≤ READY ({ready})"), format!("AVAILABLE {available}"))
                } else {
                    t.hold()
                }
            }
        }
    }

    pub fn report(self) -> ControllerReport {
        let mut observed = format!("{} row(s)", self.rows);
        if let Some((shown, at)) = &self.first {
            let _ = write!(observed, ": {shown} at AGE {}", age(*at));
        }
        if let Some((shown, at)) = self.last.as_ref().filter(|_| self.rows > 1) {
            let _ = write!(observed, " … {shown} at AGE {}", age(*at));
        }
        let verdict = self.tally.verdict("nothing to judge");
        ControllerReport {
            kind: self.kind,
            name: self.name,
            observed,
            verdicts: [("controller-counts", verdict)].into_iter().collect(),
        }
    }
}

/// The counts of a row as kubectl prints them.
fn counts(w: &Workload) -> String {
    match w {
        Workload::ReplicaSet { desired, current, ready } => {
            format!("DESIRED {desired} CURRENT {current} READY {ready}")
        }
        Workload::Deployment { ready, desired, updated, available } => {
            format!("READY {ready}/{desired} UP-TO-DATE {updated} AVAILABLE {available}")
        }
        Workload::StatefulSet { ready, desired } => format!("READY {ready}/{desired}"),
        Workload::Job { succeeded, completions, status, .. } => {
            let of = completions.map_or(String::new(), |c| format!("/{c}"));
            let status = status.as_ref().map_or(String::new(), |s| format!("{s} "));
            format!("{status}COMPLETIONS {succeeded}{of}")
        }
        Workload::DaemonSet { desired, current, ready, updated, available } => {
            format!("DESIRED {desired} CURRENT {current} READY {ready} UP-TO-DATE {updated} AVAILABLE {available}")
        }
    }
}

/// A printed age as kubectl shows it (its lower bound).
fn age(s: Span) -> String {
    crate::kubectl::human_duration(s.lo)
}

/// Every controller object's state, in the order first seen.
#[derive(Default)]
pub struct Workloads {
    order: Vec<String>,
    states: BTreeMap<String, WorkloadState>,
}

impl Workloads {
    pub fn observe(&mut self, row: &WorkloadRow, o: &Origin) {
        let k = key(row);
        if !self.states.contains_key(&k) {
            self.order.push(k.clone());
        }
        self.states.entry(k).or_default().observe(row, o);
    }

    pub fn report(mut self) -> Vec<ControllerReport> {
        self.order.iter().filter_map(|k| self.states.remove(k)).map(WorkloadState::report).collect()
    }
}
