//! Which selected pods count as healthy (pkg/controller/disruption/disruption.go).

use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;
use std::sync::Arc;

/// `DeletionTimeout`: how long an eviction the API server let through may
/// wait for its pod's deletion before the budget counts the pod again.
pub const DELETION_TIMEOUT: SimDuration = SimDuration::from_secs(120);

/// What the controller reads of one selected pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodView {
    pub name: Arc<str>,
    pub deleting: bool,
    /// `IsPodReady`.
    pub ready: bool,
}

/// What `buildDisruptedPodMap` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Disrupted {
    /// The entries still expected to be deleted.
    pub pods: BTreeMap<Arc<str>, SimTime>,
    /// When to look again: the earliest expiry.
    pub recheck: Option<SimTime>,
    /// The pods whose entry expired undeleted (each gets a `NotDeleted` Warning).
    pub expired: Vec<Arc<str>>,
}

/// `buildDisruptedPodMap`: the entries of `disruptedPods` still expected to
/// be deleted — for pods not deleting yet, younger than `DeletionTimeout` —
/// and when to look again. An expired entry is dropped.
pub fn build_disrupted_pod_map(pods: &[PodView], disrupted: &BTreeMap<Arc<str>, SimTime>, now: SimTime) -> Disrupted {
    let mut result = BTreeMap::new();
    let mut recheck: Option<SimTime> = None;
    let mut expired = Vec::new();
    for pod in pods.iter().filter(|p| !p.deleting) {
        let Some(&at) = disrupted.get(&pod.name) else { continue };
        let expected_deletion = at + DELETION_TIMEOUT;
        if expected_deletion < now {
            expired.push(pod.name.clone());
            continue;
        }
        recheck = Some(recheck.map_or(expected_deletion, |r| r.min(expected_deletion)));
        result.insert(pod.name.clone(), at);
    }
    Disrupted { pods: result, recheck, expired }
}

/// `countHealthyPods`: Ready pods, neither deleting nor expected to be
/// deleted soon (a live `disruptedPods` entry).
pub fn count_healthy_pods(pods: &[PodView], disrupted: &BTreeMap<Arc<str>, SimTime>, now: SimTime) -> i32 {
    let soon = |p: &PodView| disrupted.get(&p.name).is_some_and(|&at| at + DELETION_TIMEOUT > now);
    pods.iter().filter(|p| !p.deleting && !soon(p) && p.ready).count() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, deleting: bool, ready: bool) -> PodView {
        PodView { name: Arc::from(name), deleting, ready }
    }

    /// Of four Ready pods, one deleting and one just evicted count not: 2 healthy.
    #[test]
    fn deleting_and_disrupted_pods_are_not_healthy() {
        let pods = [pod("a", false, true), pod("b", true, true), pod("c", false, true), pod("d", false, false)];
        let t = SimTime::ZERO + SimDuration::from_secs(30);
        let disrupted = BTreeMap::from([(Arc::from("c"), t)]);
        assert_eq!(count_healthy_pods(&pods, &disrupted, t), 1);
        // Two minutes later the eviction of c is no longer expected: c counts again.
        let later = t + DELETION_TIMEOUT + SimDuration::from_millis(1);
        assert_eq!(count_healthy_pods(&pods, &disrupted, later), 2);
    }

    /// The map keeps entries of pods not yet deleting, for two minutes, and
    /// asks to look again when the first expires.
    #[test]
    fn disrupted_entries_expire_after_the_deletion_timeout() {
        let t = SimTime::ZERO + SimDuration::from_secs(10);
        let pods = [pod("a", false, true), pod("b", true, true)];
        let disrupted = BTreeMap::from([(Arc::from("a"), t), (Arc::from("b"), t), (Arc::from("gone"), t)]);
        let d = build_disrupted_pod_map(&pods, &disrupted, t);
        assert_eq!(d.pods.keys().map(|k| &**k).collect::<Vec<_>>(), ["a"]);
        assert_eq!((d.recheck, d.expired.len()), (Some(t + DELETION_TIMEOUT), 0));
        let late = t + DELETION_TIMEOUT + SimDuration::from_millis(1);
        let expired = Disrupted { expired: vec![Arc::from("a")], ..Disrupted::default() };
        assert_eq!(build_disrupted_pod_map(&pods, &disrupted, late), expired);
    }
}
