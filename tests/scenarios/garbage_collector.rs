//! Cascading deletion (issue 17, point 1's garbage collector) in four
//! scenarios of `models/`: `kubectl delete deployment/web` at 20 s with each
//! `--cascade`, and the deletion of the Deployment's ReplicaSet. The rules
//! are the API server's (registry/store.go `Delete`,
//! `deletionFinalizersForGarbageCollection`, `markAsDeleting`) and the
//! collector's (garbagecollector.go `attemptToDeleteItem`,
//! `processDeletingDependentsItem`, `attemptToOrphanWorker`).
//!
//! Profile kind-2: watch delivery 1–8 ms, every API call 2–10 ms. An
//! attempt to delete reads the item and its owner (two uncached GETs), then
//! sends one DELETE: 1 + 3×2 = 7 ms to 8 + 3×10 = 38 ms after the change
//! that caused it. When the collector saw the owner's DELETED event with
//! dependents, the owner is known absent (`absentOwnerCache`) and not read:
//! 1 + 2×2 = 5 ms to 8 + 2×10 = 28 ms. `removeFinalizer` is a GET and a PUT.

use crate::SEEDS;
use crate::common::*;
use podsim::api::meta::{FOREGROUND, ORPHAN};
use podsim::api::pod::ApiPod;
use podsim::time::{SimDuration, SimTime};
use podsim::trace::Trace;
use podsim::trace::record::{Record, WatchKind};
use std::sync::Arc;

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// Every pod record with its watch kind.
fn pod_records(trace: &Trace) -> Vec<(SimTime, WatchKind, Arc<ApiPod>)> {
    let records = trace.entries.iter().filter_map(|e| match &e.record {
        Record::Pod { kind, pod } => Some((e.t, *kind, pod.clone())),
        _ => None,
    });
    records.collect()
}

/// When each pod of the run got its deletionTimestamp, by name.
fn pod_deletions(trace: &Trace) -> Vec<(SimTime, Arc<ApiPod>)> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (t, _, p) in pod_records(trace) {
        if p.meta.deletion.is_some() && !seen.contains(&p.spec.name) {
            seen.push(p.spec.name.clone());
            out.push((t, p));
        }
    }
    out
}

/// When each pod left the API server.
fn pods_removed(trace: &Trace) -> Vec<SimTime> {
    pod_records(trace).into_iter().filter(|(_, k, _)| *k == WatchKind::Deleted).map(|(t, _, _)| t).collect()
}

/// Pods created after `t`.
fn pods_created_after(trace: &Trace, t: SimTime) -> usize {
    pod_records(trace).iter().filter(|(at, k, _)| *k == WatchKind::Added && *at > t).count()
}

/// The time the (only) Deployment left the API server.
fn deployment_removed(trace: &Trace) -> Option<SimTime> {
    let removed =
        trace.entries.iter().find(|e| matches!(&e.record, Record::Deployment { kind: WatchKind::Deleted, .. }));
    removed.map(|e| e.t)
}

/// The first ReplicaSet's records: (time, kind, deleting, finalizers, has an owner).
fn first_rs(trace: &Trace) -> Vec<(SimTime, WatchKind, bool, Vec<String>, bool)> {
    let all = replica_sets(trace);
    let uid = all[0].2.meta.uid.clone();
    let mine = all.into_iter().filter(|(_, _, r)| r.meta.uid == uid);
    let view = |(t, k, r): (SimTime, WatchKind, Arc<podsim::api::replicaset::ApiReplicaSet>)| {
        let finalizers = r.meta.finalizers.iter().map(|f| f.to_string()).collect();
        (t, k, r.meta.deletion.is_some(), finalizers, r.spec.owner.is_some())
    };
    mine.map(view).collect()
}

/// models/scenarios/delete-deployment.yaml: background, kubectl's default.
/// The Deployment goes at once (no finalizer holds it); the collector sees
/// it gone, knows it absent, and deletes its ReplicaSet (the reference
/// dangles), which goes at once too; then each pod the same way, gracefully:
/// its deletionTimestamp is 20 s + its 30 s grace.
#[test]
fn background_deletes_the_deployment_then_its_replica_set_then_its_pods() {
    for seed in SEEDS {
        let trace = run("delete-deployment", seed, None);
        assert_eq!(deployment_removed(&trace), Some(t(20.0)), "seed {seed}");
        let rs = first_rs(&trace);
        let (gone, kind, deleting, ..) = rs.last().cloned().unwrap();
        assert_eq!((kind, deleting), (WatchKind::Deleted, false), "removed without a deleting version, seed {seed}");
        assert!(rs.iter().all(|(_, _, d, ..)| !d), "seed {seed}");
        within("ReplicaSet deleted", gone, t(20.0) + ms(5), t(20.0) + ms(28));
        let deletions = pod_deletions(&trace);
        assert_eq!(deletions.len(), 3, "seed {seed}");
        for (at, p) in &deletions {
            within("pod deleted", *at, gone + ms(5), gone + ms(28));
            let d = p.meta.deletion.unwrap();
            assert_eq!((d.grace_seconds, d.timestamp), (30, t(50.0)), "seed {seed}");
        }
        assert_eq!(pods_created_after(&trace, t(20.0)), 0, "nothing replaces them, seed {seed}");
        // The collector sends no Event (only the controllers do).
        assert!(actions(&trace, "SuccessfulDelete").is_empty(), "seed {seed}");
    }
}

/// models/scenarios/delete-deployment-foreground.yaml: the Deployment is
/// kept, deleting, with the `foregroundDeletion` finalizer and the next
/// generation; the collector deletes the ReplicaSet in the foreground too
/// (its owner waits for its dependents, and it has some), then its pods in
/// the background (they have none). The ReplicaSet controller does not
/// replace them. The ReplicaSet goes when its last pod has left the API
/// server (the collector removes its finalizer), the Deployment after it.
#[test]
fn foreground_deletes_the_pods_first_and_the_owners_after_them() {
    for seed in SEEDS {
        let trace = run("delete-deployment-foreground", seed, None);
        let versions = deployment_versions(&trace);
        let (at, marked) = versions.iter().find(|(_, d)| d.meta.deletion.is_some()).cloned().unwrap();
        let before = versions.iter().rev().find(|(_, d)| d.meta.deletion.is_none()).unwrap().1.clone();
        assert_eq!(at, t(20.0), "seed {seed}");
        let d = marked.meta.deletion.unwrap();
        assert_eq!((d.timestamp, d.grace_seconds), (t(20.0), 0), "seed {seed}");
        assert_eq!(marked.meta.finalizers, [Arc::from(FOREGROUND)], "seed {seed}");
        assert_eq!(marked.meta.generation, before.meta.generation + 1, "seed {seed}");

        let rs = first_rs(&trace);
        let (rs_marked, ..) = rs.iter().find(|(_, _, d, ..)| *d).cloned().unwrap();
        within("ReplicaSet deleting", rs_marked, t(20.0) + ms(7), t(20.0) + ms(38));
        assert!(rs.iter().any(|(_, _, d, f, _)| *d && f == &[FOREGROUND.to_string()]), "seed {seed}");
        let deletions = pod_deletions(&trace);
        assert_eq!(deletions.len(), 3, "seed {seed}");
        for (at, _) in &deletions {
            within("pod deleted", *at, rs_marked + ms(7), rs_marked + ms(38));
        }
        assert_eq!(pods_created_after(&trace, t(20.0)), 0, "a ReplicaSet being deleted is not managed, seed {seed}");

        let last_pod = *pods_removed(&trace).iter().max().unwrap();
        let (rs_gone, kind, ..) = rs.last().cloned().unwrap();
        assert_eq!(kind, WatchKind::Deleted, "seed {seed}");
        // Its watch, the GET of the item, then removeFinalizer (GET + PUT); a
        // second attempt may wait for one in flight.
        within("ReplicaSet removed", rs_gone, last_pod + ms(7), last_pod + ms(76));
        let d_gone = deployment_removed(&trace).unwrap();
        within("Deployment removed", d_gone, rs_gone + ms(7), rs_gone + ms(76));
    }
}

/// models/scenarios/delete-deployment-orphan.yaml: the Deployment is kept
/// with the `orphan` finalizer until the collector has PATCHed its
/// reference out of the ReplicaSet (its watch, then the PATCH), then the
/// finalizer goes (a GET and a PUT) and with it the Deployment. The
/// ReplicaSet and its pods live on: no pod is deleted, every request 200.
#[test]
fn orphan_keeps_the_replica_set_and_its_pods() {
    for seed in SEEDS {
        let trace = run("delete-deployment-orphan", seed, None);
        let versions = deployment_versions(&trace);
        let marked = versions.iter().find(|(_, d)| d.meta.deletion.is_some()).unwrap();
        assert_eq!((marked.0, marked.1.meta.finalizers.clone()), (t(20.0), vec![Arc::from(ORPHAN)]), "seed {seed}");
        let rs = first_rs(&trace);
        let orphaned = rs.iter().find(|(_, _, _, _, owned)| !owned).unwrap().0;
        within("ReplicaSet orphaned", orphaned, t(20.0) + ms(3), t(20.0) + ms(18));
        let gone = deployment_removed(&trace).unwrap();
        within("Deployment removed", gone, orphaned + ms(4), orphaned + ms(20));
        assert!(rs.iter().all(|(_, k, d, ..)| *k != WatchKind::Deleted && !d), "seed {seed}");
        assert!(pod_deletions(&trace).is_empty(), "seed {seed}");
        let answers: Vec<Option<u16>> =
            requests(&trace, "curl").iter().filter(|r| r.sent > t(20.0)).map(|r| status(r)).collect();
        assert!(!answers.is_empty() && answers.iter().all(|s| *s == Some(200)), "seed {seed}: {answers:?}");
    }
}

/// models/scenarios/delete-replicaset.yaml: the Deployment's ReplicaSet is
/// deleted (background) and the Deployment controller creates it again,
/// same name (the template hash), new UID. The old pods name the old UID:
/// the collector's GET of their owner by name finds another UID, so the
/// reference dangles and it deletes them; the new ReplicaSet cannot adopt
/// pods another controller owns and creates three of its own.
#[test]
fn a_recreated_replica_set_does_not_save_the_old_pods() {
    for seed in SEEDS {
        let trace = run("delete-replicaset", seed, None);
        let all = replica_sets(&trace);
        let old_uid = all[0].2.meta.uid.clone();
        let removed = all.iter().find(|(_, k, r)| *k == WatchKind::Deleted && r.meta.uid == old_uid).unwrap().0;
        assert_eq!(removed, t(20.0), "seed {seed}");
        let recreated = all.iter().find(|(_, _, r)| r.meta.uid != old_uid).unwrap().2.clone();
        assert_eq!(recreated.spec.name, all[0].2.spec.name, "seed {seed}");
        let deletions = pod_deletions(&trace);
        assert_eq!(deletions.len(), 3, "seed {seed}");
        assert!(deletions.iter().all(|(_, p)| p.spec.owner.as_ref().is_some_and(|o| o.uid == old_uid)));
        // The old ReplicaSet had dependents: known absent, each pod's attempt
        // reads only the pod.
        for (at, _) in &deletions {
            within("pod deleted", *at, removed + ms(5), removed + ms(28));
        }
        assert_eq!(pods_created_after(&trace, t(20.0)), 3, "seed {seed}");
        let last = pod_records(&trace).into_iter().filter(|(_, k, _)| *k != WatchKind::Deleted).last().unwrap();
        assert_eq!(last.2.spec.owner.as_ref().map(|o| o.uid.clone()), Some(recreated.meta.uid.clone()));
    }
}
