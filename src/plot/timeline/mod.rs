//! The swimlane timeline of one run: a group of lanes per pod (containers,
//! probe results, conditions), per Job (its counts and conditions), per
//! StatefulSet and DaemonSet (its ready and updated pods), per Service (its
//! endpoints), for the nodes' kube-proxies and for the clients, with the key milestones and the
//! scenario's actions as vertical lines.

mod draw;
mod jobs;
mod marks;
mod model;
mod network;
mod pods;
mod sets;

pub use model::{Bar, Group, Lane, Mark, ObjectKey, Timeline};

use crate::milestones::{extract, names::Names};
use crate::time::SimTime;
use crate::trace::{Record, Trace, record::WatchKind};
use foldhash::{HashMap, HashMapExt};
use model::secs;
use network::Network;
use pods::PodLanes;
use std::sync::Arc;

/// The timeline of `trace`, a run of `until`.
pub fn build(trace: &Trace, title: String, until: SimTime) -> Timeline {
    let end = secs(until);
    let names = Names::new(trace);
    // Pods by UID in order of appearance, with their removal time.
    let mut pods: Vec<(Arc<str>, PodLanes, Option<f64>)> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut network = Network::default();
    let mut jobs: Vec<(Arc<str>, jobs::JobLanes, Option<f64>)> = Vec::new();
    let mut sets: Vec<(Arc<str>, sets::SetLanes, Option<f64>)> = Vec::new();
    // The set of that UID, its lanes made on its first record.
    fn set_of<'a>(
        sets: &'a mut Vec<(Arc<str>, sets::SetLanes, Option<f64>)>,
        uid: &Arc<str>,
        new: impl FnOnce() -> sets::SetLanes,
    ) -> &'a mut (Arc<str>, sets::SetLanes, Option<f64>) {
        let i = sets.iter().position(|(u, ..)| u == uid).unwrap_or_else(|| {
            sets.push((uid.clone(), new(), None));
            sets.len() - 1
        });
        &mut sets[i]
    }
    let mut actions = Vec::new();
    for e in &trace.entries {
        let t = secs(e.t);
        match &e.record {
            Record::Pod { kind, pod } => {
                let i = match pods.iter().position(|(uid, ..)| *uid == pod.meta.uid) {
                    Some(i) => i,
                    None => {
                        let lanes = PodLanes::new(&names.pod(&pod.meta.uid, &pod.spec.name), pod);
                        pods.push((pod.meta.uid.clone(), lanes, None));
                        pods.len() - 1
                    }
                };
                by_name.insert(pod.spec.name.clone(), i);
                pods[i].1.see(t, pod);
                if *kind == WatchKind::Deleted || pod.meta.removed {
                    pods[i].2.get_or_insert(t);
                }
            }
            Record::Probe(run) => {
                if let Some(&i) = by_name.get(&*run.pod) {
                    pods[i].1.probe(t, run);
                }
            }
            Record::Process { pod, container, fact, .. } => {
                if let Some(&i) = by_name.get(&**pod) {
                    pods[i].1.process(t, container, fact);
                }
            }
            Record::Job { kind, job } => {
                let i = match jobs.iter().position(|(uid, ..)| *uid == job.meta.uid) {
                    Some(i) => i,
                    None => {
                        jobs.push((job.meta.uid.clone(), jobs::JobLanes::new(job), None));
                        jobs.len() - 1
                    }
                };
                jobs[i].1.see(t, job);
                if *kind == WatchKind::Deleted || job.meta.removed {
                    jobs[i].2.get_or_insert(t);
                }
            }
            Record::StatefulSet { kind, sts } => {
                let set = set_of(&mut sets, &sts.meta.uid, || sets::SetLanes::stateful_set(sts));
                set.1.see_stateful_set(t, sts);
                if *kind == WatchKind::Deleted || sts.meta.removed {
                    set.2.get_or_insert(t);
                }
            }
            Record::DaemonSet { kind, ds } => {
                let set = set_of(&mut sets, &ds.meta.uid, || sets::SetLanes::daemon_set(ds));
                set.1.see_daemon_set(t, ds);
                if *kind == WatchKind::Deleted || ds.meta.removed {
                    set.2.get_or_insert(t);
                }
            }
            Record::Service { svc, .. } => network.service(svc.id, &svc.spec.name),
            Record::Slice { kind, slice } => network.slice(t, *kind, slice, &names),
            Record::ProxySync(sync) => network.sync(t, &sync.node),
            Record::Request(r) => network.request(r),
            Record::Scenario { object, what } => actions.push((t, format!("{object}: {what}"))),
            _ => {}
        }
    }
    let mut groups: Vec<_> = jobs.into_iter().map(|(_, lanes, removed)| lanes.finish(removed.unwrap_or(end))).collect();
    groups.extend(sets.into_iter().map(|(_, lanes, removed)| lanes.finish(removed.unwrap_or(end))));
    groups.extend(pods.into_iter().map(|(_, lanes, removed)| lanes.finish(removed.unwrap_or(end))));
    groups.extend(network.finish(end));
    Timeline { title, until: end, groups, marks: marks::marks(&extract(trace), actions) }
}
