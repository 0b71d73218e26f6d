//! Which pods a ReplicaSet deletes first when it has too many
//! (replica_set.go `getPodsToDelete`, `getPodsRankedByRelatedPodsOnSameNode`;
//! controller_utils.go `ActivePodsWithRanks.Less`), with the PodDeletionCost
//! gate (beta, on since 1.22) and LogarithmicScaleDown (GA since 1.31).

use crate::api::pod::ApiPod;
use crate::api::status::{ConditionType, PodPhase};
use crate::time::SimTime;
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

/// The phase of an active pod (Succeeded and Failed pods are not active).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RankPhase {
    Pending = 0,
    Unknown = 1,
    Running = 2,
}

/// What the ranking reads of one active pod of the ReplicaSet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodRankView {
    /// `spec.nodeName` is set.
    pub assigned: bool,
    pub phase: RankPhase,
    /// `IsPodReady`.
    pub ready: bool,
    /// `controller.kubernetes.io/pod-deletion-cost` (0 when absent or not an int32).
    pub deletion_cost: i32,
    /// The rank: active related pods (of every ReplicaSet of the same owner) on
    /// this pod's node; see [`related_on_node`].
    pub related_on_node: u32,
    /// The Ready condition's `lastTransitionTime`, if the pod is Ready and it is
    /// set (`None` is Go's zero time).
    pub ready_since: Option<SimTime>,
    /// The highest `restartCount` among its (non-init) containers.
    pub max_restarts: u32,
    pub created: SimTime,
    pub uid: Arc<str>,
}

/// getPodsRankedByRelatedPodsOnSameNode: for each pod's node ("" when unassigned), how many of the
/// active related pods are on it.
pub fn related_on_node<'a>(pod_nodes: &[&str], active_related_nodes: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
    let mut on_node: HashMap<&str, u32> = HashMap::new();
    for node in active_related_nodes {
        *on_node.entry(node).or_default() += 1;
    }
    pod_nodes.iter().map(|n| on_node.get(n).copied().unwrap_or(0)).collect()
}

/// logarithmicRankDiff: floor(log2(age in ns)) of each (−1 for a non-positive age), subtracted.
fn log_rank_diff(t1: SimTime, t2: SimTime, now: SimTime) -> i64 {
    let rank = |t: SimTime| {
        let ns = (now.as_millis() as i128 - t.as_millis() as i128) * 1_000_000;
        // Exact floor(log2); Go's float math.Log2 agrees on every millisecond-grid age up
        // to the int64 range (it could differ only within ~1e-15 of a power of two).
        if ns > 0 { 127 - ns.leading_zeros() as i64 } else { -1 }
    };
    rank(t1) - rank(t2)
}

/// afterOrZero: a zero time first, else the later one first.
fn after_or_zero(t1: Option<SimTime>, t2: Option<SimTime>) -> bool {
    match (t1, t2) {
        (Some(a), Some(b)) => a > b,
        (t1, _) => t1.is_none(),
    }
}

/// ActivePodsWithRanks.Less: whether `a` is deleted before `b`.
pub fn less(a: &PodRankView, b: &PodRankView, now: SimTime) -> bool {
    // 1. Unassigned < assigned.
    if a.assigned != b.assigned {
        return !a.assigned;
    }
    // 2. Pending < Unknown < Running.
    if a.phase != b.phase {
        return a.phase < b.phase;
    }
    // 3. Not ready < ready.
    if a.ready != b.ready {
        return !a.ready;
    }
    // 4. Lower pod-deletion-cost first.
    if a.deletion_cost != b.deletion_cost {
        return a.deletion_cost < b.deletion_cost;
    }
    // 5. More co-located related pods first.
    if a.related_on_node != b.related_on_node {
        return a.related_on_node > b.related_on_node;
    }
    // 6. Both ready: ready more recently first, by log2 bucket; same bucket → lower UID.
    if a.ready && b.ready && a.ready_since != b.ready_since {
        let (Some(t1), Some(t2)) = (a.ready_since, b.ready_since) else {
            return after_or_zero(a.ready_since, b.ready_since);
        };
        let diff = log_rank_diff(t1, t2, now);
        return if diff == 0 { a.uid < b.uid } else { diff < 0 };
    }
    // 7. More container restarts first.
    if a.max_restarts != b.max_restarts {
        return a.max_restarts > b.max_restarts;
    }
    // 8. Created more recently first, by log2 bucket; same bucket → lower UID.
    if a.created != b.created {
        let diff = log_rank_diff(a.created, b.created, now);
        return if diff == 0 { a.uid < b.uid } else { diff < 0 };
    }
    false
}

/// getPodsToDelete: the indices of the `diff` pods to delete; all of them, unsorted, when diff
/// covers every pod. The sort is a stable insertion sort: Go's sort.Sort uses exactly that up
/// to 12 pods; beyond, it differs from Go's pdqsort only between pods Less cannot order
/// (ties, or the rare cycles rules 6 and 8 allow), where the informer's order is arbitrary anyway.
pub fn pods_to_delete(pods: &[PodRankView], diff: usize, now: SimTime) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..pods.len()).collect();
    if diff < pods.len() {
        for i in 1..idx.len() {
            let mut j = i;
            while j > 0 && less(&pods[idx[j]], &pods[idx[j - 1]], now) {
                idx.swap(j, j - 1);
                j -= 1;
            }
        }
    }
    idx.truncate(diff);
    idx
}

/// When the pod turned Ready, as the API stores it (whole seconds), if Ready.
pub fn ready_since(p: &ApiPod) -> Option<SimTime> {
    let c = p.status.condition(&ConditionType::Ready).filter(|c| c.status)?;
    Some(SimTime::from_millis(c.last_transition.whole_seconds() * 1000))
}

/// The ranking's view of an active pod, with its rank.
pub fn view_of(p: &ApiPod, related_on_node: u32) -> PodRankView {
    let cost = p
        .spec
        .object
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("controller.kubernetes.io/pod-deletion-cost"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    PodRankView {
        assigned: p.node.is_some(),
        phase: match p.status.phase {
            PodPhase::Pending => RankPhase::Pending,
            PodPhase::Running => RankPhase::Running,
            _ => RankPhase::Unknown,
        },
        ready: ready_since(p).is_some(),
        deletion_cost: cost,
        related_on_node,
        ready_since: ready_since(p),
        max_restarts: p.status.containers.iter().map(|c| c.restart_count).max().unwrap_or(0),
        created: SimTime::from_millis(p.meta.created.whole_seconds() * 1000),
        uid: p.meta.uid.clone(),
    }
}

/// `ActivePods.Less` (controller_utils.go), as a sort key: unassigned,
/// then Pending < Unknown < Running, not ready, ready for less time (a
/// zero time first), more restarts, created more recently (a zero time
/// first) come first. The Job controller's order (`activePodsForRemoval`):
/// no ranks, no deletion cost, no log buckets.
pub fn active_pods_key(v: &PodRankView) -> impl Ord + use<> {
    let recent_first = |t: Option<SimTime>| std::cmp::Reverse(t.map_or(u64::MAX, |t| t.as_millis()));
    let ready_for = if v.ready { recent_first(v.ready_since) } else { std::cmp::Reverse(0) };
    (v.assigned, v.phase, v.ready, ready_for, std::cmp::Reverse(v.max_restarts), recent_first(Some(v.created)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: u64) -> SimTime {
        SimTime::from_millis(secs * 1000)
    }

    /// A Running, Ready, scheduled pod, ready since 100 s, created at 90 s.
    fn pod(uid: &str) -> PodRankView {
        PodRankView {
            assigned: true,
            phase: RankPhase::Running,
            ready: true,
            deletion_cost: 0,
            related_on_node: 1,
            ready_since: Some(s(100)),
            max_restarts: 0,
            created: s(90),
            uid: Arc::from(uid),
        }
    }

    const NOW: SimTime = SimTime::from_millis(1_000_000);

    fn first(a: &PodRankView, b: &PodRankView) -> bool {
        less(a, b, NOW) && !less(b, a, NOW)
    }

    #[test]
    fn rules_one_to_five() {
        let base = pod("m");
        // 1. Unassigned first, even Pending-vs-Running would say otherwise.
        let unassigned = PodRankView { assigned: false, ..base.clone() };
        assert!(first(&unassigned, &PodRankView { phase: RankPhase::Pending, ..base.clone() }));
        // 2. Pending < Unknown < Running.
        let pending = PodRankView { phase: RankPhase::Pending, ready: false, ..base.clone() };
        let unknown = PodRankView { phase: RankPhase::Unknown, ready: false, ..base.clone() };
        assert!(first(&pending, &unknown));
        assert!(first(&unknown, &PodRankView { ready: false, ..base.clone() }));
        // 3. Not ready first.
        assert!(first(&PodRankView { ready: false, ready_since: None, ..base.clone() }, &base));
        // 4. Lower deletion cost first, before the node rank.
        let cheap = PodRankView { deletion_cost: -5, related_on_node: 0, ..base.clone() };
        assert!(first(&cheap, &PodRankView { related_on_node: 9, ..base.clone() }));
        // 5. More related pods on the node first.
        assert!(first(&PodRankView { related_on_node: 3, ..base.clone() }, &base));
    }

    #[test]
    fn rule_six_ready_time_in_log_buckets() {
        // now = 1000 s. Ready at 990 s: age 1e10 ns, log2 = 33.2 → 33. Ready at 900 s: age 1e11 ns,
        // log2 = 36.5 → 36. rankDiff −3 < 0 → the more recent one first.
        let recent = PodRankView { ready_since: Some(s(990)), uid: Arc::from("z"), ..pod("z") };
        let older = PodRankView { ready_since: Some(s(900)), ..pod("a") };
        assert!(first(&recent, &older));
        // Ages 10 s and 12 s: 1e10 and 1.2e10 ns, both in [2^33, 2^34) → same bucket →
        // lower UID first, and restarts are never looked at.
        let a = PodRankView { ready_since: Some(s(990)), max_restarts: 0, ..pod("a") };
        let b = PodRankView { ready_since: Some(s(988)), max_restarts: 9, ..pod("b") };
        assert!(first(&a, &b));
        // A zero ready time (Ready without lastTransitionTime) comes first.
        let zero = PodRankView { ready_since: None, ..pod("z") };
        assert!(first(&zero, &a));
        // Ready "in the future" (age ≤ 0) has rank −1, below any real age.
        let future = PodRankView { ready_since: Some(s(2000)), ..pod("z") };
        assert!(first(&future, &a));
        // The bucket boundary: 2^33 ns ≈ 8.59 s. Ages 8.5 s (bucket 32) and 8.6 s (33).
        let p1 = PodRankView { ready_since: Some(NOW - crate::time::SimDuration::from_millis(8600)), ..pod("a") };
        let p2 = PodRankView { ready_since: Some(NOW - crate::time::SimDuration::from_millis(8500)), ..pod("b") };
        assert!(first(&p2, &p1));
    }

    #[test]
    fn rules_seven_and_eight() {
        // Same ready time: more restarts first.
        let restarted = PodRankView { max_restarts: 2, ..pod("z") };
        assert!(first(&restarted, &pod("a")));
        // Not ready (rule 6 skipped): restarts still decide.
        let nr = |uid, r| PodRankView { ready: false, ready_since: None, max_restarts: r, ..pod(uid) };
        assert!(first(&nr("z", 1), &nr("a", 0)));
        // 8. Created at 990 s (bucket 33) vs 900 s (bucket 36): newer first.
        let newer = PodRankView { created: s(990), ..pod("z") };
        assert!(first(&newer, &PodRankView { created: s(900), ..pod("a") }));
        // Same bucket (988 s vs 990 s): lower UID first.
        let c1 = PodRankView { created: s(988), ..pod("a") };
        let c2 = PodRankView { created: s(990), ..pod("b") };
        assert!(first(&c1, &c2));
        // All equal (UIDs aside): neither is less.
        assert!(!less(&pod("a"), &pod("b"), NOW) && !less(&pod("b"), &pod("a"), NOW));
    }

    #[test]
    fn picks_pods_to_delete() {
        // Four pods: a Running ready, b Pending, c Running not ready, d unassigned.
        let a = pod("a");
        let b = PodRankView { phase: RankPhase::Pending, ready: false, ready_since: None, ..pod("b") };
        let c = PodRankView { ready: false, ready_since: None, ..pod("c") };
        let d = PodRankView { assigned: false, phase: RankPhase::Pending, ready: false, ready_since: None, ..pod("d") };
        let pods = [a, b, c, d];
        // Order: d (unassigned), b (Pending), c (not ready), a.
        assert_eq!(pods_to_delete(&pods, 3, NOW), [3, 1, 2]);
        assert_eq!(pods_to_delete(&pods, 1, NOW), [3]);
        // All of them: no sort, input order.
        assert_eq!(pods_to_delete(&pods, 4, NOW), [0, 1, 2, 3]);
        assert!(pods_to_delete(&pods, 0, NOW).is_empty());
    }

    #[test]
    fn ranks_count_related_pods_per_node() {
        // Related (active) pods: two on n1, one on n2, one unassigned.
        let ranks = related_on_node(&["n1", "n2", "", "n3"], ["n1", "n1", "n2", ""]);
        assert_eq!(ranks, [2, 1, 1, 0]);
    }

    /// `ActivePods.Less`, rule by rule: each pod here goes before the next.
    #[test]
    fn the_job_controllers_order_follows_active_pods_rules() {
        let unassigned = PodRankView { assigned: false, phase: RankPhase::Pending, ready: false, ..pod("a") };
        let pending = PodRankView { phase: RankPhase::Pending, ready: false, ..pod("b") };
        let running_not_ready = PodRankView { ready: false, ..pod("c") };
        let ready_recently = PodRankView { ready_since: Some(s(150)), ..pod("d") };
        let ready_long_restarted = PodRankView { max_restarts: 2, ..pod("e") };
        let ready_long_newer = PodRankView { created: s(95), ..pod("f") };
        let ready_long_older = pod("g");
        let order = [
            unassigned,
            pending,
            running_not_ready,
            ready_recently,
            ready_long_restarted,
            ready_long_newer,
            ready_long_older,
        ];
        for w in order.windows(2) {
            assert!(active_pods_key(&w[0]) < active_pods_key(&w[1]), "{} before {}", w[0].uid, w[1].uid);
        }
    }
}
