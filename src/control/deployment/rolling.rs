//! One step of a rolling update (deployment/rolling.go, §3.4 of the notes):
//! scale the new ReplicaSet up within `maxSurge`, or the old ones down within
//! `maxUnavailable`. Each sync does at most one of the two; the write's
//! ReplicaSet update event brings the next sync.

use super::fenceposts::{max_unavailable, scaled_value};
use super::view::{RsRef, RsView, ScaleWrite, by_creation};
use crate::spec::Strategy;

/// deploymentutil.NewRSNewReplicas: the new ReplicaSet's size within replicas + maxSurge (Recreate: replicas).
/// `new_spec` is 0 when the ReplicaSet is about to be created; `old_rss` are all the old ones.
pub fn new_rs_new_replicas(strategy: Strategy, replicas: u32, new_spec: u32, old_rss: &[RsView]) -> u32 {
    let max_surge = match strategy {
        Strategy::Recreate => return replicas,
        // Computed directly with round-up, as NewRSNewReplicas does (same as ResolveFenceposts' surge).
        Strategy::RollingUpdate { max_surge, .. } => scaled_value(max_surge, replicas, true),
    };
    let current = new_spec as i64 + total_spec(old_rss);
    let max_total = replicas as i64 + max_surge as i64;
    if current >= max_total {
        return new_spec;
    }
    let scale_up = (max_total - current).min(replicas as i64 - new_spec as i64);
    (new_spec as i64 + scale_up).max(0) as u32
}

/// reconcileNewReplicaSet: the new ReplicaSet's write, if its size changes.
pub fn reconcile_new_replica_set(
    strategy: Strategy,
    replicas: u32,
    new_rs: &RsView,
    old_rss: &[RsView],
) -> Option<ScaleWrite> {
    let from = new_rs.spec_replicas;
    let to = if from > replicas { replicas } else { new_rs_new_replicas(strategy, replicas, from, old_rss) };
    (to != from).then_some(ScaleWrite { rs: RsRef::New, from, to })
}

/// What `reconcileOldReplicaSets` does in one sync.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OldScaleDown {
    /// The writes in the order they are made: those of
    /// `cleanupUnhealthyReplicas`, then those of
    /// `scaleDownOldReplicaSetsForRollingUpdate`, each oldest ReplicaSet
    /// first. A ReplicaSet can be written twice (cleanup, then scale-down).
    pub writes: Vec<ScaleWrite>,
    /// Replicas removed by `cleanupUnhealthyReplicas`.
    pub cleaned_up: u32,
    /// Replicas removed by `scaleDownOldReplicaSetsForRollingUpdate`.
    pub scaled_down: u32,
    /// `cleanupUnhealthyReplicas` met an old ReplicaSet with more available
    /// replicas than `spec.replicas` (its status lags a scale-down) and
    /// returned its "invalid request to scale down" error: the writes before
    /// it stand, there is no scale-down, and the function reports no scaling.
    pub aborted: bool,
}

impl OldScaleDown {
    /// The boolean `reconcileOldReplicaSets` returns: whether the sync ends here.
    pub fn scaled(&self) -> bool {
        !self.aborted && self.cleaned_up + self.scaled_down > 0
    }

    /// The total scale-down of each of the `old_count` old ReplicaSets.
    pub fn scale_down_per_rs(&self, old_count: usize) -> Vec<u32> {
        let mut out = vec![0; old_count];
        for w in &self.writes {
            if let RsRef::Old(i) = w.rs {
                out[i] += w.from - w.to;
            }
        }
        out
    }
}

/// reconcileOldReplicaSets (with cleanupUnhealthyReplicas and scaleDownOldReplicaSetsForRollingUpdate).
/// `old_rss` may include inactive (spec 0) ReplicaSets: they are filtered out as FilterActiveReplicaSets does.
pub fn reconcile_old_replica_sets(
    strategy: Strategy,
    replicas: u32,
    new_rs: &RsView,
    old_rss: &[RsView],
) -> OldScaleDown {
    let mut out = OldScaleDown::default();
    let old_pods = total_spec(old_rss);
    if old_pods == 0 {
        return out;
    }
    let all_pods = old_pods + new_rs.spec_replicas as i64;
    let min_available = replicas as i64 - max_unavailable(strategy, replicas) as i64;
    // Negative when the new ReplicaSet has more available pods than its spec.
    let new_unavailable = new_rs.spec_replicas as i64 - new_rs.available as i64;
    let max_scaled_down = all_pods - min_available - new_unavailable;
    if max_scaled_down <= 0 {
        return out;
    }

    // The active old ReplicaSets, oldest first (both helpers sort by creation).
    let mut active: Vec<usize> = (0..old_rss.len()).filter(|&i| old_rss[i].spec_replicas > 0).collect();
    active.sort_by(|&a, &b| by_creation(&old_rss[a], &old_rss[b]));
    let mut spec: Vec<i64> = old_rss.iter().map(|r| r.spec_replicas as i64).collect();

    // cleanupUnhealthyReplicas: remove unavailable replicas first, up to maxScaledDown.
    let mut cleaned = 0i64;
    for &i in &active {
        if cleaned >= max_scaled_down {
            break;
        }
        let available = old_rss[i].available as i64;
        if spec[i] == 0 || spec[i] == available {
            continue;
        }
        let n = (max_scaled_down - cleaned).min(spec[i] - available);
        let to = spec[i] - n;
        if to > spec[i] {
            out.aborted = true;
            return out;
        }
        out.writes.push(ScaleWrite { rs: RsRef::Old(i), from: spec[i] as u32, to: to as u32 });
        cleaned += n;
        spec[i] = to;
    }
    out.cleaned_up = cleaned as u32;

    // scaleDownOldReplicaSetsForRollingUpdate: available counts the active old
    // ReplicaSets and the new one (statuses as read: cleanup changed only specs).
    let available = active.iter().map(|&i| old_rss[i].available as i64).sum::<i64>() + new_rs.available as i64;
    if available <= min_available {
        return out;
    }
    let total = available - min_available;
    let mut done = 0i64;
    for &i in &active {
        if done >= total {
            break;
        }
        if spec[i] == 0 {
            continue;
        }
        let n = spec[i].min(total - done);
        out.writes.push(ScaleWrite { rs: RsRef::Old(i), from: spec[i] as u32, to: (spec[i] - n) as u32 });
        done += n;
        spec[i] -= n;
    }
    out.scaled_down = done as u32;
    out
}

/// The scaling part of one `rolloutRolling` sync (after
/// `getAllReplicaSetsAndSyncRevision`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RollingStep {
    /// `reconcileNewReplicaSet` scaled the new ReplicaSet; the sync goes on to
    /// `syncRolloutStatus` and ends.
    New(ScaleWrite),
    /// `reconcileOldReplicaSets` ran. If it [`OldScaleDown::scaled`], the sync
    /// ends with `syncRolloutStatus`; otherwise it runs `cleanupDeployment`
    /// when the Deployment (as read) is complete, then `syncRolloutStatus`.
    Old(OldScaleDown),
}

impl RollingStep {
    /// Every write of the step, in order.
    pub fn writes(&self) -> &[ScaleWrite] {
        match self {
            RollingStep::New(w) => std::slice::from_ref(w),
            RollingStep::Old(o) => &o.writes,
        }
    }
}

/// rolloutRolling, steps 2–3: reconcileNewReplicaSet, then (if it did not scale) reconcileOldReplicaSets.
pub fn rolling_step(strategy: Strategy, replicas: u32, new_rs: &RsView, old_rss: &[RsView]) -> RollingStep {
    match reconcile_new_replica_set(strategy, replicas, new_rs, old_rss) {
        Some(w) => RollingStep::New(w),
        None => RollingStep::Old(reconcile_old_replica_sets(strategy, replicas, new_rs, old_rss)),
    }
}

/// deploymentutil.GetReplicaCountForReplicaSets
fn total_spec(rss: &[RsView]) -> i64 {
    rss.iter().map(|r| r.spec_replicas as i64).sum()
}

#[cfg(test)]
mod tests {
    use super::super::fenceposts::max_surge;
    use super::super::status::{DeploymentStatus, calculate_status};
    use super::super::view::DeploymentView;
    use super::*;
    use crate::spec::IntOrPercent::{self, Int, Percent};
    use crate::spec::Strategy;
    use crate::time::{SimDuration, SimTime};
    use proptest::prelude::*;
    use proptest::strategy::Strategy as _;
    use std::sync::Arc;

    fn rolling(s: IntOrPercent, u: IntOrPercent) -> Strategy {
        Strategy::RollingUpdate { max_surge: s, max_unavailable: u }
    }

    fn rs(name: &str, created_s: u64, spec: u32, available: u32) -> RsView {
        let mut r = RsView::new(name, SimTime::from_millis(created_s * 1000), spec);
        r.status_replicas = spec;
        r.ready = available;
        r.available = available;
        r
    }

    #[test]
    fn new_rs_size_within_surge() {
        let s = rolling(Percent(25), Percent(25));
        let old = [rs("old", 0, 10, 10)];
        // Creation: Σspec = 10, maxTotal = 13 → min(13 − 10, 10 − 0) = 3 (§7.1 t=0).
        assert_eq!(new_rs_new_replicas(s, 10, 0, &old), 3);
        // At the cap: Σ = 10 + 3 = 13 ≥ 13 → unchanged.
        assert_eq!(new_rs_new_replicas(s, 10, 3, &old), 3);
        // Old scaled to 8: Σ = 11 → 3 + min(2, 7) = 5.
        assert_eq!(new_rs_new_replicas(s, 10, 3, &[rs("old", 0, 8, 8)]), 5);
        // Never past replicas: old 0, new 9 → 9 + min(13 − 9, 10 − 9) = 10.
        assert_eq!(new_rs_new_replicas(s, 10, 9, &[rs("old", 0, 0, 0)]), 10);
        // Recreate: always replicas.
        assert_eq!(new_rs_new_replicas(Strategy::Recreate, 10, 0, &old), 10);
    }

    #[test]
    fn reconcile_new_scales_down_to_replicas_and_up_within_surge() {
        let s = rolling(Int(1), Int(0));
        // newRS.spec > replicas → scale down to replicas, readiness ignored.
        let w = reconcile_new_replica_set(s, 2, &rs("new", 1, 5, 0), &[]);
        assert_eq!(w, Some(ScaleWrite { rs: RsRef::New, from: 5, to: 2 }));
        // newRS.spec == replicas → nothing.
        assert_eq!(reconcile_new_replica_set(s, 2, &rs("new", 1, 2, 0), &[rs("o", 0, 2, 2)]), None);
        // Σ = 2 + 0 < 3 → 0 + min(1, 2) = 1.
        let w = reconcile_new_replica_set(s, 2, &rs("new", 1, 0, 0), &[rs("o", 0, 2, 2)]);
        assert_eq!(w, Some(ScaleWrite { rs: RsRef::New, from: 0, to: 1 }));
    }

    #[test]
    fn cleanup_then_scale_down_oldest_first() {
        // replicas 10, maxSurge 3, maxUnavailable 2 → minAvailable 8.
        let s = rolling(Int(3), Int(2));
        // Old A (older) 6 spec / 4 available, old B 4 / 4, new 3 / 3; inactive old C.
        let old = [rs("b", 2, 4, 4), rs("c", 0, 0, 0), rs("a", 1, 6, 4)];
        let new = rs("n", 3, 3, 3);
        let out = reconcile_old_replica_sets(s, 10, &new, &old);
        // all = 13, newUnavailable 0 → maxScaledDown = 13 − 8 − 0 = 5.
        // Cleanup, oldest first: A has 6 − 4 = 2 unhealthy → min(5, 2) = 2: A 6→4.
        //   B is healthy (4 == 4): skipped.
        // Scale-down: available = 4 + 4 + 3 = 11 > 8 → 3 to remove, oldest first:
        //   A 4→1 (min(4, 3) = 3), done.
        assert_eq!(
            out.writes,
            [ScaleWrite { rs: RsRef::Old(2), from: 6, to: 4 }, ScaleWrite { rs: RsRef::Old(2), from: 4, to: 1 },]
        );
        assert_eq!((out.cleaned_up, out.scaled_down, out.aborted), (2, 3, false));
        assert!(out.scaled());
        assert_eq!(out.scale_down_per_rs(3), [0, 0, 5]);
    }

    #[test]
    fn cleanup_bounded_by_max_scaled_down_and_blocked_by_unavailable_new() {
        let s = rolling(Int(3), Int(2));
        // New has 5 spec, 0 available: maxScaledDown = 13 − 8 − 5 = 0 → nothing.
        let out = reconcile_old_replica_sets(s, 10, &rs("n", 3, 5, 0), &[rs("a", 1, 8, 8)]);
        assert_eq!(out, OldScaleDown::default());
        assert!(!out.scaled());
        // New 4 / 1: maxScaledDown = 13 − 8 − 3 = 2; A 9 / 5 has 4 unhealthy → cleanup min(2, 4) = 2.
        // Scale-down: available = 5 + 1 = 6 ≤ 8 → none.
        let out = reconcile_old_replica_sets(s, 10, &rs("n", 3, 4, 1), &[rs("a", 1, 9, 5)]);
        assert_eq!(out.writes, [ScaleWrite { rs: RsRef::Old(0), from: 9, to: 7 }]);
        assert_eq!((out.cleaned_up, out.scaled_down), (2, 0));
    }

    #[test]
    fn cleanup_aborts_on_a_lagging_old_status() {
        // Old A was scaled 10→8 but its status still shows 10 available; new 3 / 3.
        // replicas 10, 25%/25% → surge 3, unavailable 2, minAvailable 8.
        // all = 11, maxScaledDown = 11 − 8 − 0 = 3 > 0; cleanup: A spec 8 ≠ available 10 →
        // n = min(3, 8 − 10) = −2 → 10 > 8: the guard error, so nothing scales.
        let s = rolling(Percent(25), Percent(25));
        let mut a = rs("a", 1, 8, 10);
        a.status_replicas = 10;
        let out = reconcile_old_replica_sets(s, 10, &rs("n", 3, 3, 3), &[a]);
        assert!(out.aborted && !out.scaled() && out.writes.is_empty());
    }

    #[test]
    fn step_prefers_the_new_replica_set() {
        let s = rolling(Percent(25), Percent(25));
        // §7.1 second sync: old 8, new 3 → reconcileNew scales 3→5 and the sync ends.
        let step = rolling_step(s, 10, &rs("n", 1, 3, 0), &[rs("o", 0, 8, 8)]);
        assert_eq!(step, RollingStep::New(ScaleWrite { rs: RsRef::New, from: 3, to: 5 }));
        assert_eq!(step.writes().len(), 1);
        // Third sync: Σ = 13 → reconcileOld: 13 − 8 − 5 = 0 → nothing.
        let step = rolling_step(s, 10, &rs("n", 1, 5, 0), &[rs("o", 0, 8, 8)]);
        assert_eq!(step, RollingStep::Old(OldScaleDown::default()));
    }

    /// (time in ms, (status.replicas, updatedReplicas, availableReplicas)).
    type Timeline = Vec<(u64, (u32, u32, u32))>;

    /// A tiny world for replaying the notes' worked examples: controllers and
    /// watches are instant, a new pod becomes available `ready_after` (plus
    /// `k` ms with `jitter`, k = its creation index) after it is created, old
    /// pods are all available, and a deleted pod leaves at once.
    struct World {
        strategy: Strategy,
        replicas: u32,
        old: RsView,
        new: Option<RsView>,
        /// When each new pod becomes available, in creation order.
        new_pods: Vec<SimTime>,
        created: u64,
        jitter: bool,
        now: SimTime,
        steps: Vec<(u64, &'static str, u32, u32)>,
    }

    impl World {
        fn new(strategy: Strategy, replicas: u32, jitter: bool) -> World {
            World {
                strategy,
                replicas,
                old: rs("web-old", 0, replicas, replicas),
                new: None,
                new_pods: Vec::new(),
                created: 0,
                jitter,
                now: SimTime::ZERO,
                steps: Vec::new(),
            }
        }

        /// The ReplicaSet controller, instantly: pods and statuses follow the specs.
        fn settle(&mut self) {
            self.old.status_replicas = self.old.spec_replicas;
            self.old.available = self.old.spec_replicas;
            self.old.ready = self.old.spec_replicas;
            let now = self.now;
            if let Some(new) = &mut self.new {
                while (self.new_pods.len() as u32) < new.spec_replicas {
                    let jitter = if self.jitter { self.created } else { 0 };
                    self.new_pods.push(now + SimDuration::from_secs(5) + SimDuration::from_millis(jitter));
                    self.created += 1;
                }
                self.new_pods.truncate(new.spec_replicas as usize);
                new.status_replicas = new.spec_replicas;
                new.available = self.new_pods.iter().filter(|t| **t <= now).count() as u32;
                new.ready = new.available;
            }
        }

        /// One Deployment sync; returns whether it wrote anything.
        fn sync(&mut self) -> bool {
            let t = self.now.as_millis();
            let mut wrote = false;
            if self.new.is_none() {
                // getNewReplicaSet: create with NewRSNewReplicas (the event only if > 0).
                let n = new_rs_new_replicas(self.strategy, self.replicas, 0, std::slice::from_ref(&self.old));
                self.new = Some(rs("web-new", 1, n, 0));
                if n > 0 {
                    self.steps.push((t, "new", 0, n));
                }
                self.settle();
                wrote = true;
            }
            let new = self.new.clone().unwrap();
            let step = rolling_step(self.strategy, self.replicas, &new, std::slice::from_ref(&self.old));
            for w in step.writes() {
                let target = match w.rs {
                    RsRef::New => {
                        self.steps.push((t, "new", w.from, w.to));
                        self.new.as_mut().unwrap()
                    }
                    RsRef::Old(_) => {
                        self.steps.push((t, "old", w.from, w.to));
                        &mut self.old
                    }
                };
                target.spec_replicas = w.to;
                wrote = true;
            }
            self.settle();
            wrote
        }

        fn status(&self) -> (u32, u32, u32) {
            let d = DeploymentView {
                name: Arc::from("web"),
                generation: 1,
                replicas: self.replicas,
                strategy: self.strategy,
                progress_deadline_seconds: Some(600),
                status: DeploymentStatus::default(),
            };
            let s = calculate_status(&d, self.new.as_ref(), std::slice::from_ref(&self.old), false, self.now);
            (s.replicas, s.updated_replicas, s.available_replicas)
        }

        fn complete(&self) -> bool {
            let new = self.new.as_ref().unwrap();
            self.old.spec_replicas == 0 && new.spec_replicas == self.replicas && new.available == self.replicas
        }

        /// Runs the rollout; returns the time it completed and the Deployment
        /// status (replicas, updated, available) at the end of each instant.
        fn run(&mut self) -> (u64, Timeline) {
            let mut statuses = Vec::new();
            loop {
                while self.sync() {}
                statuses.push((self.now.as_millis(), self.status()));
                if self.complete() {
                    return (self.now.as_millis(), statuses);
                }
                let now = self.now;
                self.now = *self.new_pods.iter().filter(|t| **t > now).min().expect("stuck rollout");
                self.settle();
            }
        }
    }

    #[test]
    fn replays_7_1_a_batches_ready_together() {
        // §7.1(a): replicas 10, 25%/25% → surge 3, unavailable 2, minAvailable 8, maxTotal 13.
        // t=0: create new 0→3 (13 − 10); reconcileOld 13 − 8 − 3 = 2, available 10 > 8 → old 10→8;
        //      next sync Σ = 11 → new 3→5; then 13 − 8 − 5 = 0.
        // t=5: 5 new ready → 13 − 8 − 0 = 5, available 13 → old 8→3; Σ = 8 → new 5→10.
        // t=10: last 5 ready → available 3 + 10 = 13 → old min(3, 5) → 3→0. Complete.
        let mut w = World::new(rolling(Percent(25), Percent(25)), 10, false);
        let (done, statuses) = w.run();
        assert_eq!(
            w.steps,
            [
                (0, "new", 0, 3),
                (0, "old", 10, 8),
                (0, "new", 3, 5),
                (5000, "old", 8, 3),
                (5000, "new", 5, 10),
                (10000, "old", 3, 0),
            ]
        );
        assert_eq!(done, 10_000);
        // Status at the end of each instant: t=0 13/5/8 (notes); t=5 replicas 3 + 10 = 13,
        // updated 10, available 3 + 5 = 8; t=10 10/10/10.
        assert_eq!(statuses, [(0, (13, 5, 8)), (5000, (13, 10, 8)), (10000, (10, 10, 10))]);
    }

    #[test]
    fn replays_7_1_b_pods_ready_one_at_a_time() {
        // §7.1(b): t=0 as in (a). New pod k becomes ready at created + 5 s + k ms, so the
        // first five at 5.000…5.004 s. Each: 13 − 8 − (unavailable new) = 1 and available
        // 9 > 8 → old −1; then Σ = 12 → new +1 (pods 5…9 created at 5.000…5.004, ready at
        // 10.005, 10.007, 10.009, 10.011, 10.013). Then each of the first three: old −1
        // (e.g. 13 − 8 − (10 − 6) = 1, available 3 + 6 = 9 > 8); new stays at 10.
        let mut w = World::new(rolling(Percent(25), Percent(25)), 10, true);
        let (done, _) = w.run();
        let mut expected = vec![(0, "new", 0, 3), (0, "old", 10, 8), (0, "new", 3, 5)];
        for k in 0..5u32 {
            expected.push((5000 + k as u64, "old", 8 - k, 7 - k));
            expected.push((5000 + k as u64, "new", 5 + k, 6 + k));
        }
        expected.extend([(10005, "old", 3, 2), (10007, "old", 2, 1), (10009, "old", 1, 0)]);
        assert_eq!(w.steps, expected);
        // Complete when the last new pod is ready.
        assert_eq!(done, 10013);
    }

    #[test]
    fn replays_7_2_one_replica() {
        // §7.2: replicas 1, surge 1, unavailable 0 → minAvailable 1, maxTotal 2.
        // t=0: new 0→1 (min(2 − 1, 1)); reconcileOld 2 − 1 − 1 = 0.
        // t=5: 2 − 1 − 0 = 1, available 2 > 1 → old 1→0. Complete.
        let mut w = World::new(rolling(Int(1), Int(0)), 1, false);
        let (done, statuses) = w.run();
        assert_eq!(w.steps, [(0, "new", 0, 1), (5000, "old", 1, 0)]);
        assert_eq!(done, 5000);
        assert_eq!(statuses, [(0, (2, 1, 1)), (5000, (1, 1, 1))]);
    }

    #[test]
    fn replays_7_3_zero_surge() {
        // §7.3: replicas 3, surge 0, unavailable floor(0.3) = 0 → forced 1, minAvailable 2.
        // t=0: new created with min(3 − 3, …) = 0 (no event); 3 − 2 − 0 = 1 → old 3→2;
        //      Σ = 2 → new 0→1. t=5: old 2→1, new 1→2. t=10: old 1→0, new 2→3. Done at 15.
        let mut w = World::new(rolling(Int(0), Percent(10)), 3, false);
        let (done, _) = w.run();
        assert_eq!(
            w.steps,
            [
                (0, "old", 3, 2),
                (0, "new", 0, 1),
                (5000, "old", 2, 1),
                (5000, "new", 1, 2),
                (10000, "old", 1, 0),
                (10000, "new", 2, 3),
            ]
        );
        assert_eq!(done, 15_000);
    }

    fn int_or_percent() -> impl proptest::strategy::Strategy<Value = IntOrPercent> {
        prop_oneof![(0u32..6).prop_map(Int), (0u32..101).prop_map(Percent)]
    }

    /// Available replicas after the writes, when the ReplicaSet controller
    /// deletes unavailable pods first (the ranking puts not-ready pods first).
    fn available_after(rs: &RsView, spec: u32) -> u32 {
        rs.available.min(spec)
    }

    fn apply(step: &RollingStep, new: &mut RsView, old: &mut [RsView]) {
        for w in step.writes() {
            match w.rs {
                RsRef::New => new.spec_replicas = w.to,
                RsRef::Old(i) => old[i].spec_replicas = w.to,
            }
        }
        new.available = available_after(new, new.spec_replicas);
        for o in old.iter_mut() {
            o.available = available_after(o, o.spec_replicas);
        }
    }

    fn total(new: &RsView, old: &[RsView]) -> u32 {
        new.spec_replicas + old.iter().map(|r| r.spec_replicas).sum::<u32>()
    }

    fn available(new: &RsView, old: &[RsView]) -> u32 {
        new.available + old.iter().map(|r| r.available).sum::<u32>()
    }

    proptest! {
        /// One sync from any consistent state (available ≤ spec): the total
        /// never grows past replicas + maxSurge, and availability never drops
        /// below replicas − maxUnavailable if it was not already below.
        #[test]
        fn one_step_keeps_the_bounds(
            replicas in 0u32..30,
            surge in int_or_percent(),
            unavailable in int_or_percent(),
            old in prop::collection::vec((0u32..30, 0u32..=100, 0u64..5), 0..4),
            new_spec in 0u32..35,
            new_avail_pct in 0u32..=100,
        ) {
            let s = rolling(surge, unavailable);
            let mut old: Vec<RsView> = old
                .iter()
                .enumerate()
                .map(|(i, &(spec, pct, created))| rs(&format!("o{i}"), created, spec, spec * pct / 100))
                .collect();
            let mut new = rs("n", 10, new_spec, new_spec * new_avail_pct / 100);
            let max_total = replicas + max_surge(s, replicas);
            let min_available = replicas - max_unavailable(s, replicas);
            let (total_before, available_before) = (total(&new, &old), available(&new, &old));
            let step = rolling_step(s, replicas, &new, &old);
            if let RollingStep::Old(o) = &step {
                // Consistent statuses never hit the guard.
                prop_assert!(!o.aborted);
            }
            apply(&step, &mut new, &mut old);
            prop_assert!(total(&new, &old) <= total_before.max(max_total));
            if available_before >= min_available {
                prop_assert!(available(&new, &old) >= min_available);
            }
        }

        /// A whole rollout from a steady old ReplicaSet (some of whose pods may
        /// never become ready), with new pods becoming available in random
        /// bunches: the bounds hold after every sync and the rollout completes.
        #[test]
        fn rollouts_keep_the_bounds_and_finish(
            replicas in 0u32..25,
            surge in int_or_percent(),
            unavailable in int_or_percent(),
            stuck_pct in 0u32..=40,
            bunches in prop::collection::vec(1u32..6, 200),
        ) {
            let s = rolling(surge, unavailable);
            let max_total = replicas + max_surge(s, replicas);
            let min_available = replicas - max_unavailable(s, replicas);
            let stuck = replicas * stuck_pct / 100;
            let mut old = vec![rs("old", 0, replicas, replicas - stuck)];
            let n = new_rs_new_replicas(s, replicas, 0, &old);
            let mut new = rs("new", 1, n, 0);
            prop_assert!(total(&new, &old) <= max_total);
            let mut bunch = bunches.iter().cycle();
            let mut syncs = 0;
            loop {
                let before = available(&new, &old);
                let step = rolling_step(s, replicas, &new, &old);
                apply(&step, &mut new, &mut old);
                prop_assert!(total(&new, &old) <= max_total);
                if before >= min_available {
                    prop_assert!(available(&new, &old) >= min_available);
                }
                let scaled = match &step { RollingStep::New(_) => true, RollingStep::Old(o) => o.scaled() };
                if !scaled {
                    if old[0].spec_replicas == 0 && new.spec_replicas == replicas && new.available == replicas {
                        break;
                    }
                    // Quiet: some new pods become available.
                    let missing = new.spec_replicas - new.available;
                    prop_assert!(missing > 0, "stuck: old {:?} new {:?}", old[0], new);
                    new.available += (*bunch.next().unwrap()).min(missing);
                }
                syncs += 1;
                prop_assert!(syncs < 1000, "no completion");
            }
        }
    }
}
