//! Controller ownership (issue 16, point 7) in three scenarios of `models/`:
//! the controllers claim objects by their controller reference
//! (pkg/controller/controller_ref_manager.go `ClaimObject`): the ReplicaSet
//! controller adopts the orphan pods its selector matches before it manages
//! its replicas (replica_set.go `syncReplicaSet` → `claimPods`), the
//! Deployment controller the orphan ReplicaSets (deployment_controller.go
//! `getReplicaSetsForDeployment` → `ClaimReplicaSets`), each adoption an
//! uncached GET of the controller (`RecheckDeletionTimestamp`, once a sync)
//! then a PATCH of `metadata.ownerReferences`; and a rolling sync that both
//! cleans up unhealthy old replicas and scales the old ReplicaSet down writes
//! it twice (rolling.go `reconcileOldReplicaSets`).
//!
//! Profile kind-2 (as rollouts.rs): watch delivery 1–8 ms, every API call
//! (GET, PATCH, PUT, POST) 2–10 ms, a controller's calls one after the other.

use crate::SEEDS;
use crate::common::*;
use podsim::api::replicaset::ApiReplicaSet;
use podsim::api::status::ConditionType;
use podsim::time::{SimDuration, SimTime};
use podsim::trace::Trace;
use std::collections::BTreeMap;

const HASH: &str = "pod-template-hash";

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A controller reference: (kind, name, uid).
type Owner = Option<(&'static str, String, String)>;

/// The times at which pod `name`'s controller reference changed, with the
/// owner after the change.
fn pod_owner_changes(trace: &Trace, name: &str) -> Vec<(SimTime, Owner)> {
    let versions = pod_versions(trace, name);
    let owner =
        |p: &podsim::api::pod::ApiPod| p.spec.owner.as_ref().map(|o| (o.kind, o.name.to_string(), o.uid.to_string()));
    versions.windows(2).filter(|w| owner(&w[0].1) != owner(&w[1].1)).map(|w| (w[1].0, owner(&w[1].1))).collect()
}

/// The same for ReplicaSet `name`.
fn rs_owner_changes(trace: &Trace, name: &str) -> Vec<(SimTime, Owner)> {
    let versions = rs_versions(trace, name);
    let owner = |r: &ApiReplicaSet| r.spec.owner.as_ref().map(|o| (o.kind, o.name.to_string(), o.uid.to_string()));
    versions.windows(2).filter(|w| owner(&w[0].1) != owner(&w[1].1)).map(|w| (w[1].0, owner(&w[1].1))).collect()
}

/// The versions of ReplicaSet `name` whose spec or metadata differ from the
/// one before (the writes of the Deployment controller; the ReplicaSet
/// controller writes only the status).
fn rs_spec_writes(trace: &Trace, name: &str) -> Vec<(SimTime, std::sync::Arc<ApiReplicaSet>)> {
    let versions = rs_versions(trace, name);
    versions.windows(2).filter(|w| w[0].1.spec != w[1].1.spec).map(|w| w[1].clone()).collect()
}

/// The `ownerReferences` of a pod as `kubectl get -o json` shows it.
fn rendered_owner_references(pod: &podsim::api::pod::ApiPod) -> serde_json::Value {
    let clock = podsim::trace::render::Clock { epoch: podsim::run::DEFAULT_EPOCH.parse().unwrap() };
    serde_json::to_value(podsim::trace::render::pod(pod, &clock)).unwrap()["metadata"]["ownerReferences"].clone()
}

// ---- 1. orphan-pod-adopted ----

/// models/scenarios/orphan-pod-adopted.yaml: the bare pod `web-orphan`
/// (app=web) from 0 s; at 10 s the ReplicaSet `web` (3 replicas, selector
/// app=web) is applied. The client `curl` asks the Service every second from 10 s.
#[test]
fn a_replica_set_adopts_the_orphan_it_selects_and_creates_one_pod_fewer() {
    for seed in SEEDS {
        let trace = run("orphan-pod-adopted", seed, None);
        let rs = rs_versions(&trace, "web");
        let (created, first) = (rs[0].0, rs[0].1.clone());
        assert_eq!((created, first.spec.owner.is_none(), first.spec.replicas), (t(10.0), true, 3), "seed {seed}");

        // The first sync (the ReplicaSet's watch, 1–8 ms) finds the active
        // orphan, matching, in its namespace, not being deleted: it GETs the
        // ReplicaSet (2–10 ms), then PATCHes the pod (2–10 ms). Exactly one
        // MODIFIED record of the pod carries the change.
        let changes = pod_owner_changes(&trace, "web-orphan");
        assert_eq!(changes.len(), 1, "seed {seed}: {changes:?}");
        let (adopted, owner) = changes[0].clone();
        assert_eq!(owner, Some(("ReplicaSet", "web".into(), first.meta.uid.to_string())), "seed {seed}");
        within("adoption", adopted, created + ms(5), created + ms(28));
        let adoption = pod_versions(&trace, "web-orphan").into_iter().find(|(t, _)| *t == adopted).unwrap().1;
        let expected = serde_json::json!([{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": &*first.meta.uid,
            "controller": true, "blockOwnerDeletion": true,
        }]);
        assert_eq!(rendered_owner_references(&adoption), expected, "seed {seed}");
        // Metadata only: the pod's generation stays 1, and it keeps running.
        assert_eq!(adoption.meta.generation, 1);
        assert_eq!(pod_lives(&trace, "web-orphan", "web").len(), 1, "seed {seed}");
        assert!(pod_versions(&trace, "web-orphan").iter().all(|(_, p)| p.meta.deletion.is_none()));

        // `manageReplicas` counts the claimed pod: 3 − 1 = 2 creations, in
        // slow-start batches of 1 and 1, the first when the PATCH has returned.
        let made: Vec<(SimTime, String)> =
            pods_of(&trace, "web").into_iter().filter(|(_, n)| n != "web-orphan").collect();
        assert_eq!(made.len(), 2, "seed {seed}: {made:?}");
        within("first creation", made[0].0, adopted + ms(2), adopted + ms(10));
        within("second creation", made[1].0, made[0].0 + ms(2), made[0].0 + ms(10));
        let events: Vec<String> = controller_events(&trace, "replicaset-controller").into_iter().map(|e| e.2).collect();
        let expected: Vec<String> = made.iter().map(|(_, n)| format!("Created pod: {n}")).collect();
        assert_eq!(events, expected, "seed {seed}: no deletion");

        // The status counts the adopted pod with the others.
        let (_, last) = rs_versions(&trace, "web").pop().unwrap();
        let c = last.status.counts;
        assert_eq!((c.replicas, c.ready_replicas, c.available_replicas), (3, 3, 3), "seed {seed}");

        // The adoption changes no endpoint: ready since about 6 s, the pod
        // answers every request through the Service from 10 s on.
        assert!(pod_condition(&trace, "web-orphan", &ConditionType::Ready, true).unwrap() < t(10.0));
        let curl = requests(&trace, "curl");
        // Sent at 10, 11, …, 24 s; the one sent at 25 s, the run's last
        // instant, gets its answer after the run.
        assert_eq!(curl.len(), 15, "seed {seed}");
        assert!(curl.iter().all(|r| status(r) == Some(200)), "seed {seed}");
    }
}

// ---- 2. replicaset-adopted ----

/// models/scenarios/replicaset-adopted.yaml: the bare ReplicaSet `web`
/// (labels and selector app=web, 2 replicas); at 20 s the Deployment `web`
/// (selector app=web, 3 replicas, maxSurge 25 % → 1, maxUnavailable 25 % → 0,
/// the same template); at 40 s the Deployment's image moves to nginx:1.28.
#[test]
fn a_deployment_adopts_a_matching_replica_set_as_its_new_one_without_a_hash() {
    for seed in SEEDS {
        let trace = run("replicaset-adopted", seed, None);
        let (d_at, d) = deployment_versions(&trace)[0].clone();
        assert_eq!(d_at, t(20.0));

        // ClaimReplicaSets: the orphan's labels match the selector; the GET
        // of the Deployment, then the PATCH, after the Deployment's watch:
        // one MODIFIED record adds the controller reference.
        let changes = rs_owner_changes(&trace, "web");
        assert_eq!(
            changes,
            [(changes[0].0, Some(("Deployment", "web".into(), d.meta.uid.to_string())))],
            "seed {seed}"
        );
        let adopted = changes[0].0;
        within("adoption", adopted, d_at + ms(5), d_at + ms(28));

        // The Deployment controller's writes of `web`: the reference, then
        // (getNewReplicaSet: the template equals the Deployment's, hash
        // aside, so it is the new ReplicaSet) revision 1 = 0 old + 1, then
        // reconcileNewReplicaSet: NewRSNewReplicas = 2 + min(3 + 1 − 2, 3 − 2)
        // = 3, with the desired-replicas 3 and max-replicas 4 annotations.
        let writes = rs_spec_writes(&trace, "web");
        assert_eq!(writes.len(), 6, "seed {seed}: adoption, revision, 2→3, then 3→2→1→0");
        let annotations = |r: &ApiReplicaSet| r.spec.annotations.clone();
        assert_eq!((writes[0].0, writes[0].1.spec.replicas), (adopted, 2));
        assert!(annotations(&writes[0].1).is_empty(), "seed {seed}");
        assert_eq!(writes[1].1.spec.replicas, 2);
        assert_eq!(annotations(&writes[1].1), labels(&[("deployment.kubernetes.io/revision", "1")]));
        assert_eq!(writes[2].1.spec.replicas, 3);
        let scaled = labels(&[
            ("deployment.kubernetes.io/desired-replicas", "3"),
            ("deployment.kubernetes.io/max-replicas", "4"),
            ("deployment.kubernetes.io/revision", "1"),
        ]);
        assert_eq!(annotations(&writes[2].1), scaled, "seed {seed}");
        // The first sync's annotation update is sent from the informer's copy
        // read before the adoption: a stale resourceVersion, refused (409);
        // the sync fails and a later one, once the informer has the adopted
        // ReplicaSet (≤ 8 ms), writes it. A retry that still sees the orphan
        // PATCHes again (unchanged: no record) and is refused again. So the
        // revision comes after the refused call and the next sync's call
        // (≥ 4 ms), and at most two refused syncs and their backoffs (5 ms,
        // 10 ms) later: 10 + 5 + 30 + 10 + 10 ms < 70 ms.
        within("revision 1", writes[1].0, adopted + ms(4), adopted + ms(70));
        // The scale is the same sync's next call, based on the answer of the
        // first; the annotation-only change started no status write of the
        // ReplicaSet controller that could come between.
        within("2 → 3", writes[2].0, writes[1].0 + ms(2), writes[1].0 + ms(10));

        // No pod-template-hash is ever added: not to the ReplicaSet's labels,
        // selector or template, nor to its pods; 2 + 1 pods.
        for (_, r) in rs_versions(&trace, "web") {
            assert_eq!(
                (r.spec.labels.clone(), r.spec.selector.clone()),
                (labels(&[("app", "web")]), labels(&[("app", "web")]))
            );
            assert!(!r.spec.template.labels.contains_key(HASH));
        }
        let web_pods = pods_of(&trace, "web");
        assert_eq!(web_pods.len(), 3, "seed {seed}");
        for (_, name) in &web_pods {
            assert!(pod_versions(&trace, name).iter().all(|(_, p)| !p.spec.labels.contains_key(HASH)), "{name}");
        }
        // The Deployment takes revision 1 from it in a later sync.
        let revision_at = deployment_versions(&trace)
            .into_iter()
            .find(|(_, d)| d.annotations.get("deployment.kubernetes.io/revision").map(String::as_str) == Some("1"))
            .unwrap()
            .0;
        assert!(revision_at > writes[2].0 && revision_at < t(40.0), "seed {seed}");

        // The rollout at 40 s: a new ReplicaSet with the hash in its name,
        // labels and selector, revision 2; the adopted one is old and goes
        // 3 → 2 → 1 → 0 as each new pod becomes available (maxUnavailable 0).
        let names = rs_names(&trace);
        assert_eq!(names.len(), 2, "seed {seed}");
        let new = &*names[1];
        let (new_at, new_rs) = rs_versions(&trace, new)[0].clone();
        let hash = new_rs.spec.labels.get(HASH).cloned().expect("hash");
        assert_eq!(new, format!("web-{hash}"));
        assert_eq!(new_rs.spec.selector, labels(&[("app", "web"), (HASH, &hash)]));
        assert!(new_at > t(40.0), "seed {seed}");
        let old_sizes: Vec<u32> = writes[3..].iter().map(|(_, r)| r.spec.replicas).collect();
        assert_eq!(old_sizes, [2, 1, 0], "seed {seed}");
        // Its selector app=web matches the new pods too, but they name the new
        // ReplicaSet as controller: it never counts them.
        for (_, name) in pods_of(&trace, new) {
            for (_, p) in pod_versions(&trace, &name) {
                assert_eq!(p.spec.owner.as_ref().map(|o| &*o.name), Some(new), "seed {seed}: {name}");
            }
        }
        assert!(rs_versions(&trace, "web").iter().all(|(_, r)| r.status.counts.replicas <= 3));
        let events: Vec<String> = controller_events(&trace, "deployment-controller").into_iter().map(|e| e.2).collect();
        let expected = [
            "Scaled up replica set web from 2 to 3".to_string(),
            format!("Scaled up replica set {new} from 0 to 1"),
            "Scaled down replica set web from 3 to 2".into(),
            format!("Scaled up replica set {new} from 1 to 2"),
            "Scaled down replica set web from 2 to 1".into(),
            format!("Scaled up replica set {new} from 2 to 3"),
            "Scaled down replica set web from 1 to 0".into(),
        ];
        assert_eq!(events, expected, "seed {seed}");
    }
}

// ---- 3. rollout-10-cleanup ----

/// models/scenarios/rollout-10-cleanup.yaml: rollout-10's Deployment (10
/// replicas, maxSurge ⌈2.5⌉ = 3, maxUnavailable ⌊2.5⌋ = 2, so 8 must stay
/// available and 13 may exist); at 29 s the oldest pod is deleted; at 30 s a
/// release whose container crashes is applied.
#[test]
fn cleanup_then_scale_down_writes_the_old_replica_set_twice_in_one_sync() {
    let mut one_sync = 0;
    for seed in SEEDS {
        let trace = run("rollout-10-cleanup", seed, None);
        let names = rs_names(&trace);
        assert_eq!(names.len(), 2, "seed {seed}");
        let (old, new) = (&*names[0], &*names[1]);

        // The replacement of the deleted pod starts at 29 s and is Ready
        // only 5 s after its process starts: at 30 s the old ReplicaSet
        // reports 10 replicas, 9 available.
        let before = rs_versions(&trace, old).into_iter().rfind(|(at, _)| *at < t(30.0)).unwrap().1;
        let c = before.status.counts;
        assert_eq!((before.spec.replicas, c.replicas, c.available_replicas), (10, 10, 9), "seed {seed}");

        // The rollout's first sync creates the new ReplicaSet with
        // NewRSNewReplicas = min(13 − 10, 10) = 3, one hop after the apply.
        let (new_at, new_rs) = rs_versions(&trace, new)[0].clone();
        within("new ReplicaSet", new_at, t(30.0) + ms(3), t(30.0) + ms(18));
        assert_eq!(new_rs.spec.replicas, 3);
        // reconcileOldReplicaSets: maxScaledDown = 13 − 8 − (3 − 0) = 2.
        // cleanupUnhealthyReplicas: min(2, 10 − 9) = 1 → 10 → 9, one write.
        // scaleDownOldReplicaSetsForRollingUpdate: available 9 + 0 > 8 → 9 → 8,
        // a second write based on the first's answer. Two MODIFIED records:
        // one PUT of 10 → 8 would show no version at 9.
        let downs = rs_spec_writes(&trace, old);
        let sizes: Vec<u32> = downs.iter().map(|(_, r)| r.spec.replicas).collect();
        assert_eq!(sizes, [9, 8], "seed {seed}");
        let (first, second) = (downs[0].0, downs[1].0);
        // The first is the sync's third call (after the POST of the new
        // ReplicaSet and the Deployment's status): 4–20 ms after the POST.
        within("10 → 9", first, new_at + ms(4), new_at + ms(20));
        // The old ReplicaSet's own status write (it saw 10 → 9, deleted a pod:
        // 5–28 ms after the first write) may come between and make the second
        // call stale: then reconcileOldReplicaSets swallows the 409, and a
        // later sync (maxScaledDown 12 − 8 − 3 = 1, nothing unhealthy left to
        // clean up) scales 9 → 8.
        let status_between = rs_versions(&trace, old).iter().any(|(t, _)| *t > first && *t < second);
        if status_between {
            assert!(second > first + ms(5), "seed {seed}");
        } else {
            within("9 → 8, the same sync's next call", second, first + ms(2), first + ms(10));
            one_sync += 1;
        }
        let events: Vec<String> = controller_events(&trace, "deployment-controller").into_iter().map(|e| e.2).collect();
        let of =
            |rs: &str| -> Vec<String> { events.iter().filter(|e| e.split(' ').nth(4) == Some(rs)).cloned().collect() };
        let scaled = |rs: &str, pairs: &[(u32, u32)]| -> Vec<String> {
            pairs
                .iter()
                .map(|(a, b)| format!("Scaled {} replica set {rs} from {a} to {b}", if a < b { "up" } else { "down" }))
                .collect()
        };
        assert_eq!(of(old), scaled(old, &[(0, 10), (10, 9), (9, 8)]), "seed {seed}");
        // reconcileNewReplicaSet in the syncs after: NewRSNewReplicas = 3 +
        // min(13 − Σspec, 10 − 3), 5 when the informer already shows the old
        // ReplicaSet at 8, 4 (then 4 + 1) while it still shows 9 (or when the
        // second write was refused).
        let grows = [scaled(new, &[(0, 3), (3, 5)]), scaled(new, &[(0, 3), (3, 4), (4, 5)])];
        assert!(grows.contains(&of(new)), "seed {seed}: {events:?}");
        // The creation (0 → 3) is the first sync's, before its scale-downs.
        let position = |m: &str| events.iter().position(|e| e == m).unwrap();
        assert!(position(&scaled(new, &[(0, 3)])[0]) < position(&scaled(old, &[(10, 9)])[0]));

        // The ReplicaSet controller deletes the not-Ready replacement first
        // (ActivePodsWithRanks: not Ready before Ready).
        let replacement = pods_of(&trace, old).into_iter().find(|(at, _)| *at > t(29.0)).unwrap().1;
        let deleted: Vec<String> = controller_events(&trace, "replicaset-controller")
            .into_iter()
            .filter_map(|e| e.2.strip_prefix("Deleted pod: ").map(str::to_string))
            .collect();
        assert_eq!(deleted.len(), 2, "seed {seed}");
        assert!(deleted.contains(&replacement), "seed {seed}");

        // The new pods crash and are never available: maxScaledDown = 13 − 8
        // − 5 = 0, and the rollout stays at 8 old and 5 new.
        let (_, last_old) = rs_versions(&trace, old).pop().unwrap();
        let (_, last_new) = rs_versions(&trace, new).pop().unwrap();
        assert_eq!((last_old.spec.replicas, last_new.spec.replicas), (8, 5), "seed {seed}");
        assert_eq!(last_old.status.counts.available_replicas, 8, "seed {seed}");
    }
    assert!(one_sync > 0, "the two writes of one sync happen in some seed");
}
