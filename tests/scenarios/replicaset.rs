//! A ReplicaSet of three (models/scenarios/replicaset.yaml): how the
//! ReplicaSet controller (pkg/controller/replicaset/replica_set.go) creates
//! and names the pods and reports them.
//!
//! Profile kind-2: watch 1–8 ms, API writes 2–10 ms. The controller sees the
//! ReplicaSet through its watch, `manageReplicas` creates 3 pods in
//! slow-start batches of 1 then 2 (`slowStartBatch`: a batch starts when the
//! previous one has returned), each POST with `generateName: web-`, which the
//! API server completes with 5 characters of "bcdfghjklmnpqrstvwxz2456789".

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ConditionType;
use podsim::trace::record::{EventSource, Record};

const ALPHABET: &str = "bcdfghjklmnpqrstvwxz2456789";

fn ms(n: u64) -> podsim::time::SimDuration {
    podsim::time::SimDuration::from_millis(n)
}

#[test]
fn three_pods_in_slow_start_batches_named_and_owned_by_the_replica_set() {
    for seed in SEEDS {
        let trace = run("replicaset", seed, None);
        let rs = trace
            .entries
            .iter()
            .find_map(|e| match &e.record {
                Record::ReplicaSet { rs, .. } => Some(rs.clone()),
                _ => None,
            })
            .unwrap();
        // Each pod's first version (ADDED), in creation order.
        let mut created: Vec<(podsim::time::SimTime, String)> = Vec::new();
        for (t, p) in pods(&trace) {
            if !created.iter().any(|(_, n)| *n == p.spec.name) {
                assert_eq!(p.spec.owner.as_ref().map(|o| o.uid.clone()), Some(rs.meta.uid.clone()), "seed {seed}");
                created.push((t, p.spec.name.clone()));
            }
        }
        assert_eq!(created.len(), 3, "exactly spec.replicas pods (seed {seed})");
        for (_, name) in &created {
            let suffix = name.strip_prefix("web-").unwrap();
            assert!(suffix.len() == 5 && suffix.chars().all(|c| ALPHABET.contains(c)), "{name}");
        }
        // Batch 1: one pod, after the watch (1–8 ms) and its POST (2–10 ms).
        within("first pod", created[0].0, t(0.0) + ms(3), t(0.0) + ms(18));
        // Batch 2: two pods, POSTed when the first returned.
        for (at, name) in &created[1..] {
            within(name, *at, created[0].0 + ms(2), created[0].0 + ms(10));
        }
        // One SuccessfulCreate event per pod, about the ReplicaSet.
        let events: Vec<String> = trace
            .entries
            .iter()
            .filter_map(|e| match &e.record {
                Record::Event(ev) if matches!(ev.source, EventSource::Controller { kind: "ReplicaSet", .. }) => {
                    assert_eq!(ev.reason, "SuccessfulCreate");
                    Some(ev.message.clone())
                }
                _ => None,
            })
            .collect();
        let expected: Vec<String> = created.iter().map(|(_, n)| format!("Created pod: {n}")).collect();
        assert_eq!(events, expected, "seed {seed}");
    }
}

#[test]
fn the_status_counts_follow_the_pods_and_never_exceed_the_spec() {
    for seed in SEEDS {
        let trace = run("replicaset", seed, None);
        let statuses: Vec<(podsim::time::SimTime, podsim::control::replicaset::status::RsStatusCounts, i64)> = trace
            .entries
            .iter()
            .filter_map(|e| match &e.record {
                Record::ReplicaSet { rs, .. } => Some((e.t, rs.status.counts, rs.status.observed_generation)),
                _ => None,
            })
            .collect();
        assert!(statuses.len() >= 2, "seed {seed}: {statuses:?}");
        assert!(statuses.iter().all(|(_, c, _)| c.replicas <= 3 && c.ready_replicas <= c.replicas));
        // minReadySeconds 0: available = ready at every write.
        assert!(statuses.iter().all(|(_, c, _)| c.available_replicas == c.ready_replicas));
        // 1.35 (kind-2): terminatingReplicas is written, 0 here.
        assert!(statuses.iter().skip(1).all(|(_, c, _)| c.terminating_replicas == Some(0)), "seed {seed}");
        // Every pod Ready → the status says 3 ready once the controller has seen it.
        let last_ready = pods(&trace)
            .iter()
            .filter(|(_, p)| p.status.condition_true(&ConditionType::Ready))
            .map(|(t, p)| (p.spec.name.clone(), *t))
            .fold(std::collections::BTreeMap::new(), |mut m, (n, t)| {
                m.entry(n).or_insert(t);
                m
            })
            .into_values()
            .max()
            .unwrap();
        let (at, counts, generation) = *statuses.last().unwrap();
        assert_eq!((counts.replicas, counts.ready_replicas, counts.available_replicas, generation), (3, 3, 3, 1));
        assert!(at > last_ready, "seed {seed}: the status follows the pods");
    }
}
