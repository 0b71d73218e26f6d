//! Proportional scaling (deployment/sync.go `scale`, util `GetProportion`):
//! when `spec.replicas` changes mid-rollout, or while paused, the change is
//! spread over the active ReplicaSets in proportion to their sizes.

use super::fenceposts::max_surge;
use super::view::{DeploymentView, RsRef, RsView, ScaleWrite, by_creation, by_size_newer, by_size_older};
use std::cmp::Ordering;

/// isScalingEvent: some active ReplicaSet's desired-replicas annotation differs from spec.replicas.
pub fn is_scaling_event(replicas: u32, new_rs: Option<&RsView>, old_rss: &[RsView]) -> bool {
    old_rss
        .iter()
        .chain(new_rs)
        .filter(|r| r.spec_replicas > 0)
        .filter_map(|r| r.desired_replicas)
        .any(|desired| desired as i64 != replicas as i64)
}

/// deploymentutil.FindActiveOrLatest: the only active ReplicaSet, or the newest one if none is
/// active; None when more than one is active.
pub fn find_active_or_latest(new_rs: Option<&RsView>, old_rss: &[RsView]) -> Option<RsRef> {
    let active: Vec<RsRef> = (0..old_rss.len())
        .filter(|&i| old_rss[i].spec_replicas > 0)
        .map(RsRef::Old)
        .chain(new_rs.filter(|r| r.spec_replicas > 0).map(|_| RsRef::New))
        .collect();
    match active.len() {
        0 if new_rs.is_some() => Some(RsRef::New),
        0 => (0..old_rss.len()).max_by(|&a, &b| by_creation(&old_rss[a], &old_rss[b])).map(RsRef::Old),
        1 => Some(active[0]),
        _ => None,
    }
}

/// deploymentutil.IsSaturated: the new ReplicaSet has spec, desired-replicas annotation and
/// available all equal to spec.replicas.
pub fn is_saturated(replicas: u32, new_rs: Option<&RsView>) -> bool {
    new_rs.is_some_and(|r| {
        r.spec_replicas == replicas && r.desired_replicas == Some(replicas as i32) && r.available == replicas
    })
}

/// getReplicaSetFraction: round(spec × (replicas + maxSurge) / max-replicas annotation) − spec
/// (half away from zero); the annotation falls back to status.replicas; −spec when scaling to 0.
pub fn replica_set_fraction(rs: &RsView, d: &DeploymentView) -> i64 {
    let spec = rs.spec_replicas as i64;
    if d.replicas == 0 {
        return -spec;
    }
    let deployment_replicas = d.replicas as i64 + max_surge(d.strategy, d.replicas) as i64;
    let annotated = rs.max_replicas.map_or(d.status.replicas as i64, |m| m as i64);
    if annotated == 0 {
        // Go divides by zero here (the comment says it never happens); treat as no change.
        return 0;
    }
    let size = (spec * deployment_replicas) as f64 / annotated as f64;
    size.round() as i64 - spec
}

/// deploymentutil.GetProportion: the fraction, bounded by what is left to add (or remove).
pub fn get_proportion(rs: &RsView, d: &DeploymentView, to_add: i64, added: i64) -> i64 {
    if rs.spec_replicas == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = replica_set_fraction(rs, d);
    let allowed = to_add - added;
    if to_add > 0 { fraction.min(allowed) } else { fraction.max(allowed) }
}

/// DeploymentController.scale: the ReplicaSet writes of a scaling event or a paused sync.
/// Each entry is one scaleReplicaSet call, in order; in the proportional case every active
/// ReplicaSet gets one, even with an unchanged size (the call then only refreshes the
/// desired/max annotations if they are stale, and records no event).
pub fn scale(d: &DeploymentView, new_rs: Option<&RsView>, old_rss: &[RsView]) -> Vec<ScaleWrite> {
    let get = |r: RsRef| match r {
        RsRef::New => new_rs.expect("new ReplicaSet"),
        RsRef::Old(i) => &old_rss[i],
    };
    // FindActiveOrLatest is None with no ReplicaSets at all, as in Go.
    if let Some(r) = find_active_or_latest(new_rs, old_rss) {
        let from = get(r).spec_replicas;
        if from == d.replicas {
            return Vec::new();
        }
        return vec![ScaleWrite { rs: r, from, to: d.replicas }];
    }
    if is_saturated(d.replicas, new_rs) {
        let mut old: Vec<usize> = (0..old_rss.len()).filter(|&i| old_rss[i].spec_replicas > 0).collect();
        // FindActiveOrLatest left the old ReplicaSets newest first.
        old.sort_by(|&a, &b| by_creation(&old_rss[b], &old_rss[a]));
        return old
            .into_iter()
            .map(|i| ScaleWrite { rs: RsRef::Old(i), from: old_rss[i].spec_replicas, to: 0 })
            .collect();
    }
    if !matches!(d.strategy, crate::spec::Strategy::RollingUpdate { .. }) {
        return Vec::new();
    }
    // The active ReplicaSets: the old ones newest first (as FindActiveOrLatest left them), then new.
    let mut order: Vec<usize> = (0..old_rss.len()).filter(|&i| old_rss[i].spec_replicas > 0).collect();
    order.sort_by(|&a, &b| by_creation(&old_rss[b], &old_rss[a]));
    let mut all: Vec<RsRef> = order.into_iter().map(RsRef::Old).collect();
    if new_rs.is_some_and(|r| r.spec_replicas > 0) {
        all.push(RsRef::New);
    }
    let current: i64 = all.iter().map(|&r| get(r).spec_replicas as i64).sum();
    let allowed = if d.replicas > 0 { d.replicas as i64 + max_surge(d.strategy, d.replicas) as i64 } else { 0 };
    let to_add = allowed - current;
    match to_add.cmp(&0) {
        Ordering::Greater => all.sort_by(|&a, &b| by_size_newer(get(a), get(b))),
        Ordering::Less => all.sort_by(|&a, &b| by_size_older(get(a), get(b))),
        Ordering::Equal => {}
    }
    let mut added = 0i64;
    let mut sizes: Vec<i64> = Vec::with_capacity(all.len());
    for &r in &all {
        let rs = get(r);
        let proportion = if to_add != 0 { get_proportion(rs, d, to_add, added) } else { 0 };
        sizes.push(rs.spec_replicas as i64 + proportion);
        added += proportion;
    }
    if to_add != 0 && !sizes.is_empty() {
        // The leftover goes to the first (largest) ReplicaSet, floored at 0.
        sizes[0] = (sizes[0] + to_add - added).max(0);
    }
    all.iter()
        .zip(sizes)
        .map(|(&r, size)| ScaleWrite { rs: r, from: get(r).spec_replicas, to: size.max(0) as u32 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::status::DeploymentStatus;
    use super::*;
    use crate::spec::IntOrPercent::Int;
    use crate::spec::Strategy;
    use crate::time::SimTime;
    use std::sync::Arc;

    fn rs(name: &str, created_s: u64, spec: u32, max_replicas: Option<i32>) -> RsView {
        let mut r = RsView::new(name, SimTime::from_millis(created_s * 1000), spec);
        r.max_replicas = max_replicas;
        r.status_replicas = spec;
        r
    }

    fn deploy(replicas: u32, surge: u32, status_replicas: u32) -> DeploymentView {
        DeploymentView {
            name: Arc::from("web"),
            generation: 3,
            replicas,
            strategy: Strategy::RollingUpdate { max_surge: Int(surge), max_unavailable: Int(2) },
            progress_deadline_seconds: Some(600),
            status: DeploymentStatus { replicas: status_replicas, ..Default::default() },
        }
    }

    fn sizes(writes: &[ScaleWrite]) -> Vec<(RsRef, u32, u32)> {
        writes.iter().map(|w| (w.rs, w.from, w.to)).collect()
    }

    #[test]
    fn the_documented_example() {
        // The Kubernetes docs' proportional-scaling example: 10 replicas, maxSurge 3,
        // maxUnavailable 2, a stuck rollout with old 8 and new 5 (max-replicas 13 on both);
        // scaled to 15: allowed = 15 + 3 = 18, toAdd = 18 − 13 = 5.
        // BySizeNewer: old (8) first: round(8 × 18 / 13 = 11.08) − 8 = 3 → min(3, 5) = 3.
        // New: round(5 × 18 / 13 = 6.92) − 5 = 2 → min(2, 5 − 3) = 2. Leftover 0.
        // The docs: "3 replicas are added to the old ReplicaSet and 2 replicas are added to the new".
        let d = deploy(15, 3, 13);
        let old = [rs("old", 0, 8, Some(13))];
        let new = rs("new", 1, 5, Some(13));
        let w = scale(&d, Some(&new), &old);
        assert_eq!(sizes(&w), [(RsRef::Old(0), 8, 11), (RsRef::New, 5, 7)]);
        assert_eq!(w[0].event_message("old").as_deref(), Some("Scaled up replica set old from 8 to 11"));
    }

    #[test]
    fn scaling_down_proportionally() {
        // Same ReplicaSets, scaled to 5: allowed 5 + 3 = 8, toAdd = 8 − 13 = −5. BySizeOlder: old first:
        // round(8 × 8 / 13 = 4.92) − 8 = −3 → max(−3, −5) = −3; new: round(5 × 8 / 13 = 3.08) − 5 = −2
        // → max(−2, −2) = −2. Old 5, new 3.
        let d = deploy(5, 3, 13);
        let w = scale(&d, Some(&rs("new", 1, 5, Some(13))), &[rs("old", 0, 8, Some(13))]);
        assert_eq!(sizes(&w), [(RsRef::Old(0), 8, 5), (RsRef::New, 5, 3)]);
        // To 0: allowed 0, every fraction is −spec → all 0.
        let d = deploy(0, 3, 13);
        let w = scale(&d, Some(&rs("new", 1, 5, Some(13))), &[rs("old", 0, 8, Some(13))]);
        assert_eq!(sizes(&w), [(RsRef::Old(0), 8, 0), (RsRef::New, 5, 0)]);
    }

    #[test]
    fn leftovers_go_to_the_first_in_sort_order() {
        // Three ReplicaSets of 1 (max-replicas 3), replicas 3 → 4 with surge 0: toAdd 1;
        // each fraction round(1 × 4 / 3 = 1.33) − 1 = 0, so the leftover 1 goes to the first of
        // BySizeNewer: equal sizes → the newest, "new".
        let d = deploy(4, 0, 3);
        let old = [rs("a", 0, 1, Some(3)), rs("b", 1, 1, Some(3))];
        let new = rs("new", 2, 1, Some(3));
        let w = scale(&d, Some(&new), &old);
        assert_eq!(sizes(&w), [(RsRef::New, 1, 2), (RsRef::Old(1), 1, 1), (RsRef::Old(0), 1, 1)]);
        // To 2: toAdd −1; round(1 × 2 / 3 = 0.67) − 1 = 0 each; the leftover −1 goes to the
        // first of BySizeOlder: the oldest, "a".
        let d = deploy(2, 0, 3);
        let w = scale(&d, Some(&new), &old);
        assert_eq!(sizes(&w), [(RsRef::Old(0), 1, 0), (RsRef::Old(1), 1, 1), (RsRef::New, 1, 1)]);
    }

    #[test]
    fn proportion_rounds_half_away_from_zero_and_falls_back_to_status() {
        // spec 1 × (4 + 1) / 2 = 2.5 → 3 → fraction 2.
        let d = deploy(4, 1, 2);
        assert_eq!(replica_set_fraction(&rs("a", 0, 1, Some(2)), &d), 2);
        // No annotation: status.replicas (2) is used: the same 2.
        assert_eq!(replica_set_fraction(&rs("a", 0, 1, None), &d), 2);
        // GetProportion bounds it by what is left: toAdd 3, added 2 → 1.
        assert_eq!(get_proportion(&rs("a", 0, 1, Some(2)), &d, 3, 2), 1);
        // Nothing for an empty ReplicaSet or when all is added.
        assert_eq!(get_proportion(&rs("a", 0, 0, Some(2)), &d, 3, 0), 0);
        assert_eq!(get_proportion(&rs("a", 0, 1, Some(2)), &d, 3, 3), 0);
    }

    #[test]
    fn single_active_and_saturated() {
        // One active ReplicaSet: it takes spec.replicas outright.
        let d = deploy(6, 3, 4);
        let old = [rs("old", 0, 0, None)];
        let new = rs("new", 1, 4, Some(7));
        assert_eq!(find_active_or_latest(Some(&new), &old), Some(RsRef::New));
        assert_eq!(sizes(&scale(&d, Some(&new), &old)), [(RsRef::New, 4, 6)]);
        // Already that size: nothing.
        assert!(scale(&deploy(4, 3, 4), Some(&new), &old).is_empty());
        // None active and no new one: the newest old ReplicaSet.
        let olds = [rs("a", 0, 0, None), rs("b", 5, 0, None), rs("c", 2, 0, None)];
        assert_eq!(find_active_or_latest(None, &olds), Some(RsRef::Old(1)));
        // Two active: None.
        assert_eq!(find_active_or_latest(Some(&new), &[rs("o", 0, 2, None)]), None);

        // Saturated new ReplicaSet (spec, desired annotation and available all = 4): old ones → 0.
        let mut sat = rs("new", 3, 4, Some(7));
        sat.desired_replicas = Some(4);
        sat.available = 4;
        assert!(is_saturated(4, Some(&sat)));
        let old = [rs("a", 0, 2, None), rs("b", 1, 0, None), rs("c", 2, 1, None)];
        assert_eq!(sizes(&scale(&deploy(4, 3, 7), Some(&sat), &old)), [(RsRef::Old(2), 1, 0), (RsRef::Old(0), 2, 0)]);
        sat.available = 3;
        assert!(!is_saturated(4, Some(&sat)));
    }

    #[test]
    fn recreate_does_not_scale_proportionally() {
        let mut d = deploy(6, 0, 4);
        d.strategy = Strategy::Recreate;
        assert!(scale(&d, Some(&rs("new", 1, 2, None)), &[rs("old", 0, 2, None)]).is_empty());
    }

    #[test]
    fn scaling_events() {
        let mut a = rs("a", 0, 3, None);
        a.desired_replicas = Some(3);
        assert!(!is_scaling_event(3, None, std::slice::from_ref(&a)));
        assert!(is_scaling_event(5, None, std::slice::from_ref(&a)));
        // Inactive ReplicaSets and missing annotations do not count.
        a.spec_replicas = 0;
        assert!(!is_scaling_event(5, None, std::slice::from_ref(&a)));
        assert!(!is_scaling_event(5, Some(&rs("n", 1, 2, None)), &[]));
    }
}
